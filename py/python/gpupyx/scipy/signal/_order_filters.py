"""``scipy.signal``'s order filters (``medfilt``, ``medfilt2d``, ``order_filter``) on
gpupy arrays: SciPy's signatures, checks and messages. As SciPy, each is
``ndimage.rank_filter`` with zero padding (``mode='constant'``), here gpupy's
(``gpupyx.scipy.ndimage._order_filters``)."""

import math
import warnings

import numpy

from gpupyx.scipy import ndimage
from gpupyx.scipy.ndimage._util import as_device


def _supported(a, name):
    if not (a.dtype.kind in "iu" or a.dtype in (numpy.float32, numpy.float64)):
        raise ValueError(f"dtype={a.dtype} is not supported by {name}")


def _kernel_size(kernel_size, ndim):
    if kernel_size is None:
        kernel_size = [3] * ndim
    kernel_size = numpy.asarray(kernel_size)
    if kernel_size.shape == ():
        kernel_size = numpy.repeat(kernel_size.item(), ndim)
    return [int(k) for k in kernel_size]


def order_filter(a, domain, rank):
    """Rank-`rank` element of each window of `domain`'s true elements, zero outside the
    array (``scipy.signal.order_filter``)."""
    domain = as_device(domain)
    for dimsize in domain.shape:
        if (dimsize % 2) != 1:
            raise ValueError("Each dimension of domain argument should have an odd number of "
                             "elements.")
    a = as_device(a)
    _supported(a, "order_filter")
    return ndimage.rank_filter(a, rank, footprint=domain, mode="constant")


def medfilt(volume, kernel_size=None):
    """Median filter of an n-d array, zero-padded (``scipy.signal.medfilt``)."""
    volume = as_device(volume)
    if volume.ndim == 0:
        volume = volume.reshape(1)
    _supported(volume, "medfilt")
    kernel_size = _kernel_size(kernel_size, volume.ndim)
    for k in range(volume.ndim):
        if (kernel_size[k] % 2) != 1:
            raise ValueError("Each element of kernel_size should be odd.")
    if any(k > s for k, s in zip(kernel_size, volume.shape)):
        warnings.warn("kernel_size exceeds volume extent: the volume will be zero-padded.",
                      stacklevel=2)
    size = math.prod(kernel_size)
    return ndimage.rank_filter(volume, size // 2, size=kernel_size, mode="constant")


def medfilt2d(input, kernel_size=3):
    """Median filter of a 2-d array, zero-padded (``scipy.signal.medfilt2d``)."""
    image = as_device(input)
    if image.dtype.type not in (numpy.ubyte, numpy.float32, numpy.float64):
        return medfilt(image, kernel_size)
    kernel_size = _kernel_size(kernel_size, 2)
    for size in kernel_size:
        if (size % 2) != 1:
            raise ValueError("Each element of kernel_size should be odd.")
    if image.ndim != 2:
        # NumPy's words for the wrong depth, as SciPy's C code raises them.
        raise ValueError("object too deep for desired array" if image.ndim > 2 else
                         "object of too small depth for desired array")
    size = math.prod(kernel_size)
    return ndimage.rank_filter(image, size // 2, size=kernel_size, mode="constant")


__all__ = ["order_filter", "medfilt", "medfilt2d"]
