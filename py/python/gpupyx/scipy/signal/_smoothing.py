"""``scipy.signal.sepfir2d`` and ``scipy.signal.wiener`` on gpupy arrays, with SciPy's
checks, messages and result dtypes, composed of gpupy's filters:

- ``sepfir2d``: SciPy's C routine convolves every row with ``hrow`` and then every
  column with ``hcol``, the image mirrored about its edge samples (``d c b a | a b c
  d``), storing the row pass in the working dtype; that is
  ``ndimage.convolve1d(..., mode='reflect')`` along axis 1, then along axis 0, here
  on gpupy's filter kernels. The working dtype is SciPy's (the input promoted to at
  least float32; the filters must cast to it safely).
- ``wiener``: local means and variances as ``correlate(x, ones(mysize), 'same')``
  (gpupy's direct correlation, in float64 as SciPy's, which correlates with float64
  ones), then SciPy's formula elementwise.
"""

import math

import numpy

import gpupy as gp
from gpupyx.scipy import ndimage
from gpupyx.scipy.ndimage._util import as_device
from gpupyx.scipy.signal._signaltools import correlate


def _depth_error(ndim, want):
    # NumPy's words for an array of the wrong depth, as SciPy's C code raises them.
    return ValueError("object too deep for desired array" if ndim > want else
                      "object of too small depth for desired array")


def _filter_taps(h, dtype):
    h = as_device(h)
    if h.ndim != 1:
        raise _depth_error(h.ndim, 1)
    if not numpy.can_cast(h.dtype, dtype, "safe"):
        raise TypeError(f"Cannot cast array data from {h.dtype!r} to {dtype!r} according to the rule 'safe'")
    return h.astype(dtype, copy=False)


def sepfir2d(input, hrow, hcol):
    """Convolution of the 2-d `input` with the separable odd-length FIR filter ``hcol
    (x) hrow``, mirror-symmetric at the edges (``scipy.signal.sepfir2d``)."""
    image = as_device(input)
    dtype = numpy.promote_types(image.dtype, numpy.float32)
    if image.ndim != 2:
        raise _depth_error(image.ndim, 2)
    image = image.astype(dtype, copy=False)
    hrow = _filter_taps(hrow, dtype)
    hcol = _filter_taps(hcol, dtype)
    if hrow.shape[0] % 2 != 1 or hcol.shape[0] % 2 != 1:
        raise ValueError("hrow and hcol must be odd length")
    rows = ndimage.convolve1d(image, hrow, axis=1, mode="reflect")
    return ndimage.convolve1d(rows, hcol, axis=0, mode="reflect")


def wiener(im, mysize=None, noise=None):
    """Wiener filter of an n-d array over windows of `mysize` (``scipy.signal.wiener``):
    each sample pulled toward its window's mean by how far the window's variance
    exceeds `noise` (the mean local variance when None)."""
    im = as_device(im)
    if mysize is None:
        mysize = [3] * im.ndim
    if numpy.asarray(mysize).shape == ():
        mysize = [mysize] * im.ndim
    size = math.prod(mysize)
    ones = gp.ones(tuple(int(k) for k in mysize))
    lsize = float(size)
    # SciPy correlates with float64 ones, so float16/float32 data sum in float64 (gpupy's
    # correlate would sum them in float32): widen first. ``im ** 2`` is NumPy's, in the
    # input's own dtype (a correctly rounded square; integers wrap).
    wide = numpy.result_type(im.dtype, numpy.float64)
    lMean = correlate(im.astype(wide, copy=False), ones, "same") / lsize
    lVar = correlate(gp.square(im).astype(wide, copy=False), ones, "same") / lsize - gp.square(lMean)
    if noise is None:
        noise = gp.mean(lVar.reshape(-1), axis=0)
    res = im - lMean
    res = res * (1 - noise / lVar)
    res = res + lMean
    return gp.where(lVar < noise, lMean, res)


__all__ = ["sepfir2d", "wiener"]
