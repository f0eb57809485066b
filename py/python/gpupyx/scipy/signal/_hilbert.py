"""``scipy.signal.hilbert`` and ``hilbert2`` on gpupy arrays: the analytic signal by
FFTs (``gpupyx.scipy.fft``, so float32 input gives complex64 as under SciPy), with
SciPy's checks and messages.

SciPy doubles the positive frequencies and zeroes the negative ones by slice
assignments; here one elementwise product with the same per-frequency factors (0, 1
or 2: exact; made on the device) does it along the transformed axes, without moving
them."""

import numpy

import gpupy as gp
from gpupyx.scipy import fft as sp_fft
from gpupyx.scipy.ndimage._util import as_device, normalize_axis


def _analytic_factors(N, dtype, nyquist):
    """SciPy's per-frequency factors for `N` components, on the device: 1 at zero
    frequency, 2 for the positive frequencies (below ``(N + 1) // 2``), 0 for the rest;
    with `nyquist`, 1 at ``N / 2`` for even `N` (``hilbert``'s rule; ``hilbert2`` zeroes it)."""
    h = gp.zeros(N, dtype=dtype)
    h[0] = 1
    h[1:(N + 1) // 2] = 2
    if nyquist and N % 2 == 0:
        h[N // 2] = 1
    return h


def _along(h, axis, ndim):
    shape = [1] * ndim
    shape[axis] = h.size
    return h.reshape(tuple(shape))


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
    return sp_fft.ifft(Xf * _along(_analytic_factors(N, real, True), axis, Xf.ndim), axis=axis)


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
    factors = [_analytic_factors(n, real, False) for n in N]
    a0, a1 = (normalize_axis(a, Xf.ndim) for a in axes)
    Xf = Xf * _along(factors[0], a0, Xf.ndim) * _along(factors[1], a1, Xf.ndim)
    return sp_fft.ifft2(Xf, axes=axes)


__all__ = ["hilbert", "hilbert2"]
