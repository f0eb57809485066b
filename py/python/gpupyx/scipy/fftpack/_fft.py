"""``scipy.fftpack``'s FFTs on gpupy arrays: the legacy signatures (``shape`` rather
than ``s``, no ``norm``), CuPy's ``plan`` argument, and fftpack's packed real layout for
``rfft``/``irfft``::

    [y(0), Re y(1), Im y(1), ..., Re y(n/2)]                  n even
    [y(0), Re y(1), Im y(1), ..., Re y(n/2), Im y(n/2)]       n odd

a real array of length ``n`` in the input's precision (float32 stays float32).

The transforms are ``gpupyx.scipy.fft``'s with ``norm=None``, so they check their
arguments as SciPy does. Ported from CuPy's ``cupyx/scipy/fftpack/_fft.py`` (MIT
license, Copyright (c) Preferred Networks, Inc. and Preferred Infrastructure, Inc.).
"""

import operator

import gpupy as gp
from gpupyx.scipy.fft import _fft, _helper


def _good_shape(x, shape, axes):
    """fftpack's rule: without ``axes``, ``shape`` must name every axis."""
    if shape is not None and axes is None:
        shape = _helper._iterable_of_int(shape, "shape")
        if len(shape) != x.ndim:
            raise ValueError("when given, axes and shape arguments have to be of the same length")
    return shape


def _along(ndim, axis, sl):
    """An index taking slice ``sl`` along ``axis``."""
    index = [slice(None)] * ndim
    index[axis] = sl
    return tuple(index)


def fft(x, n=None, axis=-1, overwrite_x=False, plan=None):
    """``scipy.fftpack.fft``: the 1-d discrete Fourier transform."""
    return _fft.fft(x, n, axis, None, overwrite_x, plan=plan)


def ifft(x, n=None, axis=-1, overwrite_x=False, plan=None):
    """``scipy.fftpack.ifft``: the 1-d inverse discrete Fourier transform (scaled by 1/n)."""
    return _fft.ifft(x, n, axis, None, overwrite_x, plan=plan)


def fftn(x, shape=None, axes=None, overwrite_x=False, plan=None):
    """``scipy.fftpack.fftn``: the n-d transform; ``shape`` needs ``axes`` unless it
    gives every axis."""
    shape = _good_shape(x, shape, axes)
    return _fft.fftn(x, shape, axes, None, overwrite_x, plan=plan)


def ifftn(x, shape=None, axes=None, overwrite_x=False, plan=None):
    """``scipy.fftpack.ifftn``: the n-d inverse transform."""
    shape = _good_shape(x, shape, axes)
    return _fft.ifftn(x, shape, axes, None, overwrite_x, plan=plan)


def fft2(x, shape=None, axes=(-2, -1), overwrite_x=False, plan=None):
    """``scipy.fftpack.fft2``: ``fftn`` over the last two axes."""
    return fftn(x, shape, axes, overwrite_x, plan)


def ifft2(x, shape=None, axes=(-2, -1), overwrite_x=False, plan=None):
    """``scipy.fftpack.ifft2``: ``ifftn`` over the last two axes."""
    return ifftn(x, shape, axes, overwrite_x, plan)


def rfft(x, n=None, axis=-1, overwrite_x=False, plan=None):
    """``scipy.fftpack.rfft``: the transform of real input in the packed real layout."""
    f = _fft.rfft(x, n, axis, None, overwrite_x, plan=plan)  # checks the arguments
    axis = _helper.normalize_axis(axis, f.ndim)
    n = x.shape[axis] if n is None else operator.index(n)
    shape = list(f.shape)
    shape[axis] = n
    z = gp.empty(shape, dtype=f.real.dtype)
    nd = f.ndim
    z[_along(nd, axis, slice(0, 1))] = f.real[_along(nd, axis, slice(0, 1))]
    z[_along(nd, axis, slice(1, None, 2))] = f.real[_along(nd, axis, slice(1, n // 2 + 1))]
    z[_along(nd, axis, slice(2, None, 2))] = f.imag[_along(nd, axis, slice(1, (n + 1) // 2))]
    return z


def irfft(x, n=None, axis=-1, overwrite_x=False):
    """``scipy.fftpack.irfft``: the inverse of ``rfft``, from the packed real layout (real
    input only; ``n`` pads or truncates the packed input, as fftpack does)."""
    x = _helper.asfarray(x)
    if x.dtype.kind == "c":
        raise TypeError("x must be a real sequence")
    axis, n = _helper.axis_and_n(x, axis, n)
    m = min(n, x.shape[axis])
    nd = x.ndim
    shape = list(x.shape)
    shape[axis] = n // 2 + 1
    z = gp.zeros(shape, dtype=_helper.complex_dtype(x.dtype))
    z.real[_along(nd, axis, slice(0, 1))] = x[_along(nd, axis, slice(0, 1))]
    z.real[_along(nd, axis, slice(1, m // 2 + 1))] = x[_along(nd, axis, slice(1, m, 2))]
    z.imag[_along(nd, axis, slice(1, (m + 1) // 2))] = x[_along(nd, axis, slice(2, m, 2))]
    return _fft.irfft(z, n, axis, None, overwrite_x)


__all__ = ["fft", "ifft", "fftn", "ifftn", "fft2", "ifft2", "rfft", "irfft"]
