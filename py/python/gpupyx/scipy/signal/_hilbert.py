"""``scipy.signal.hilbert`` and ``hilbert2`` on gpupy arrays: the analytic signal by
FFTs (``gpupyx.scipy.fft``, so float32 input gives complex64 as under SciPy), with
SciPy's checks and messages.

SciPy doubles the positive frequencies and zeroes the negative ones by slice
assignments; here one elementwise product with the same per-frequency factors (0, 1
or 2: exact) does it along the transformed axes, without moving them."""

import numpy

import gpupy as gp
from gpupyx.scipy import fft as sp_fft
from gpupyx.scipy.ndimage._util import as_device, normalize_axis


def _analytic_factors(N, dtype):
    """SciPy's ``h`` of length `N`: 1 at zero frequency (and at Nyquist for even `N`),
    2 for the positive frequencies, 0 for the negative ones."""
    h = numpy.zeros(N, dtype=dtype)
    if N % 2 == 0:
        h[0] = h[N // 2] = 1
        h[1:N // 2] = 2
    else:
        h[0] = 1
        h[1:(N + 1) // 2] = 2
    return h


def _along(h, axis, ndim):
    shape = [1] * ndim
    shape[axis] = h.size
    return gp.asarray(h.reshape(shape))


def hilbert(x, N=None, axis=-1):
    """The analytic signal of real `x` along `axis`, over `N` Fourier components
    (``scipy.signal.hilbert``)."""
    x = as_device(x)
    if x.dtype.kind == "c":
        raise ValueError("x must be real.")
    if N is None:
        N = x.shape[axis]
    if N <= 0:
        raise ValueError("N must be positive.")
    Xf = sp_fft.fft(x, N, axis=axis)
    axis = normalize_axis(axis, Xf.ndim)
    real = numpy.dtype(Xf.dtype.char.lower())
    return sp_fft.ifft(Xf * _along(_analytic_factors(N, real), axis, Xf.ndim), axis=axis)


def hilbert2(x, N=None, axes=(-2, -1)):
    """The 2-d analytic signal of real `x` over two `axes` (``scipy.signal.hilbert2``)."""
    x = as_device(x)
    if x.ndim < 2:
        x = x.reshape((1,) * (2 - x.ndim) + tuple(x.shape))
    if x.dtype.kind == "c":
        raise ValueError("x must be real.")
    if len(axes) != 2:
        raise ValueError("axes must be a tuple of length 2")
    if axes[0] == axes[1]:
        raise ValueError("axes must contain 2 distinct axes")
    if N is None:
        N = (x.shape[axes[0]], x.shape[axes[1]])
    elif isinstance(N, int):
        if N <= 0:
            raise ValueError("N must be positive.")
        N = (N, N)
    elif len(N) != 2 or numpy.any(numpy.asarray(N) <= 0):
        raise ValueError("When given as a tuple, N must hold exactly two positive integers")
    Xf = sp_fft.fft2(x, N, axes=axes)
    real = numpy.dtype(Xf.dtype.char.lower())
    factors = []
    for n in N:
        # SciPy's 2-d rule: doubled below (n + 1) // 2, zero from there on (Nyquist too).
        k = (n + 1) // 2
        h = numpy.zeros(n, dtype=real)
        h[0] = 1
        h[1:k] = 2
        factors.append(h)
    a0, a1 = (normalize_axis(a, Xf.ndim) for a in axes)
    Xf = Xf * _along(factors[0], a0, Xf.ndim) * _along(factors[1], a1, Xf.ndim)
    return sp_fft.ifft2(Xf, axes=axes)


__all__ = ["hilbert", "hilbert2"]
