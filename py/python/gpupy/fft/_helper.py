"""NumPy's FFT helpers (``numpy/fft/_helper.py``): the sample frequencies and the shifts
of the zero frequency to the centre and back.

The frequencies are computed on the device as NumPy computes them on the host: integers
``0, 1, ..., -1`` times ``1.0 / (n * d)`` (that factor worked out with the arguments' own
arithmetic, as NumPy does), one float64 multiplication each, so the values are NumPy's
bit for bit. ``dtype=`` (the array API's keyword) converts that float64 result.
"""

import contextlib

import numpy

from gpupy._creation import asarray, empty
from gpupy._manipulation import concatenate, roll
from gpupy._ranges import arange
from gpupy.cuda import Device

__all__ = ["fftshift", "ifftshift", "fftfreq", "rfftfreq"]

integer_types = (int, numpy.integer)


def fftshift(x, axes=None):
    """The zero-frequency term moved to the centre (``numpy.fft.fftshift``): a roll by
    half of each axis's length, all axes when ``axes`` is None. Host inputs are copied
    to the device, as CuPy's ``fftshift`` does."""
    x = asarray(x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [dim // 2 for dim in x.shape]
    elif isinstance(axes, integer_types):
        shift = x.shape[axes] // 2
    else:
        shift = [x.shape[ax] // 2 for ax in axes]
    return roll(x, shift, axes)


def ifftshift(x, axes=None):
    """The inverse of ``fftshift`` (``numpy.fft.ifftshift``; they differ for odd
    lengths)."""
    x = asarray(x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [-(dim // 2) for dim in x.shape]
    elif isinstance(axes, integer_types):
        shift = -(x.shape[axes] // 2)
    else:
        shift = [-(x.shape[ax] // 2) for ax in axes]
    return roll(x, shift, axes)


def _on_device(device):
    """The block's device for a ``device=`` argument: None (or "cuda"/"gpu") is the
    current device, a ``gpupy.cuda.Device`` that one. NumPy's "cpu" is refused: gpupy
    arrays live on a GPU."""
    if device is None or (isinstance(device, str) and device in ("cuda", "gpu")):
        return contextlib.nullcontext()
    if isinstance(device, Device):
        return device
    raise ValueError(f"gpupy arrays live on the GPU; cannot place them on {device!r}")


def _scaled(k, val, dtype):
    """``k * val`` in float64 (complex128 for a complex ``val``), as NumPy's integer
    array times the scalar ``val``, then as ``dtype`` if given. A complex ``val``
    scales the real and imaginary parts separately: NumPy's complex product of
    ``k + 0j`` has the same values (its extra terms are zeros), whatever order
    gpupy's complex multiplication rounds in."""
    if numpy.result_type(k.dtype, val).kind == "c":
        val = complex(val)
        r = empty(k.shape, numpy.complex128)
        r.real = k * val.real
        r.imag = k * val.imag
    else:
        r = k * float(val)
    return r if dtype is None else r.astype(dtype)


def fftfreq(n, d=1.0, device=None, *, dtype=None):
    """The sample frequencies of an ``n``-point ``fft`` with sample spacing ``d``
    (``numpy.fft.fftfreq``, and the array API's ``fftfreq(n, /, *, d, dtype, device)``):
    ``[0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d*n)``."""
    if not isinstance(n, integer_types):
        raise ValueError("n should be an integer")
    val = 1.0 / (n * d)  # with n's own type, as NumPy computes it
    n = int(n)
    if n < 0:
        raise ValueError("negative dimensions are not allowed")
    with _on_device(device):
        N = (n - 1) // 2 + 1
        k = concatenate((arange(0, N, dtype=numpy.int64), arange(-(n // 2), 0, dtype=numpy.int64)))
        return _scaled(k, val, dtype)


def rfftfreq(n, d=1.0, device=None, *, dtype=None):
    """The sample frequencies of an ``n``-point ``rfft`` (``numpy.fft.rfftfreq``):
    ``[0, 1, ..., n//2] / (d*n)``."""
    if not isinstance(n, integer_types):
        raise ValueError("n should be an integer")
    val = 1.0 / (n * d)  # with n's own type, as NumPy computes it
    n = int(n)  # a negative n gives an empty array, as NumPy's arange does
    with _on_device(device):
        return _scaled(arange(0, n // 2 + 1, dtype=numpy.int64), val, dtype)
