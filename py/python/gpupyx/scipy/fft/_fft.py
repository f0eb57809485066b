"""``scipy.fft``'s discrete Fourier transforms on gpupy arrays.

The transforms themselves are ``gpupy.fft``'s (NumPy's API over gpupy's Rust kernels);
this module adds what ``scipy.fft`` does differently from ``numpy.fft``:

- SciPy's argument checks, in its order and with its messages (``_helper``), before any
  kernel runs: unique axes, ``s`` entries of -1, ``n < 1``, ``workers``;
- SciPy's dtypes: float16 is computed in float32, integers in float64, float32 stays
  single precision (complex64 results);
- transforms over no axis: ``fftn(x, axes=[])`` returns ``x`` itself, ``rfftn`` and
  ``irfftn`` refuse it;
- ``hfft2``/``hfftn``/``ihfft2``/``ihfftn``, which NumPy lacks;
- CuPy's ``plan=`` argument (``_plan``): made current for the call, so that
  ``gpupy.fft`` checks it, as it checks a plan entered with ``with plan:``.

``overwrite_x`` is accepted and ignored (every result is a new array). ``workers`` is
checked as SciPy checks it and otherwise ignored.

Two SciPy results that are accidents of its implementation are errors here: ``irfft``
with ``n=0`` and ``irfftn`` of a last axis of length 1 without ``s`` (SciPy returns an
array of the wrong length for a zero-length inverse; numpy.fft refuses both).

Structure after CuPy's ``cupyx/scipy/fft/_fft.py`` (MIT license, Copyright (c)
Preferred Networks, Inc. and Preferred Infrastructure, Inc.).
"""

import operator

import gpupy as gp
import gpupy.fft as _npfft
from gpupyx.scipy.fft import _helper, _plan


def _no_plan(name, plan):
    """CuPy's refusal of an explicit plan for the Hermitian transforms (an entered plan
    is still checked, as the C2R/R2C transform they run)."""
    if plan is not None:
        raise NotImplementedError(f"{name} plan is currently not yet supported")


# --------------------------------------------------------------------------------------
# One axis


def _c2c(forward, x, n, axis, norm, workers, plan):
    x = _helper.asfarray(x)
    norm = _helper.check_norm(norm)
    _helper.check_workers(workers)
    axis, n = _helper.axis_and_n(x, axis, n)
    with _plan.given(plan):
        return (_npfft.fft if forward else _npfft.ifft)(x, n=n, axis=axis, norm=norm)


def _r2c(forward, x, n, axis, norm, workers, plan):
    """``rfft`` (forward) and ``ihfft``: real input only."""
    x = _helper.asfarray(x)
    norm = _helper.check_norm(norm)
    _helper.check_workers(workers)
    if x.dtype.kind == "c":
        raise TypeError("x must be a real sequence")
    axis, n = _helper.axis_and_n(x, axis, n)
    with _plan.given(plan):
        return (_npfft.rfft if forward else _npfft.ihfft)(x, n=n, axis=axis, norm=norm)


def _c2r(forward, x, n, axis, norm, workers, plan):
    """``hfft`` (forward) and ``irfft``: ``n`` real outputs from ``n // 2 + 1`` inputs."""
    x = _helper.asfarray(x)
    norm = _helper.check_norm(norm)
    _helper.check_workers(workers)
    if x.dtype.kind != "c":
        x = x.astype(_helper.complex_dtype(x.dtype))
    if n is None:
        axis = _helper.normalize_axis(axis, x.ndim)
        n = (x.shape[axis] - 1) * 2
        if n < 1:
            raise ValueError(f"Invalid number of data points ({n}) specified")
    else:
        _helper.check_n(n // 2 + 1)  # SciPy checks the input length it pads to
        n = operator.index(n)
        axis = _helper.normalize_axis(axis, x.ndim)
        if n < 1:
            raise ValueError(f"invalid number of data points ({n}) specified")
    with _plan.given(plan):
        return (_npfft.hfft if forward else _npfft.irfft)(x, n=n, axis=axis, norm=norm)


def fft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.fft``: the 1-d discrete Fourier transform (complex result; float32
    and float16 input give complex64)."""
    return _c2c(True, x, n, axis, norm, workers, plan)


def ifft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ifft``: the 1-d inverse discrete Fourier transform."""
    return _c2c(False, x, n, axis, norm, workers, plan)


def rfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.rfft``: the ``n // 2 + 1`` non-negative frequencies of the transform of
    real input (complex input is SciPy's TypeError)."""
    return _r2c(True, x, n, axis, norm, workers, plan)


def irfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.irfft``: the inverse of ``rfft``, ``n`` real outputs (default
    ``2 * (m - 1)`` for ``m`` inputs)."""
    return _c2r(False, x, n, axis, norm, workers, plan)


def hfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.hfft``: the transform of a Hermitian-symmetric signal given by its
    first half (real result)."""
    _no_plan("hfft", plan)
    return _c2r(True, x, n, axis, norm, workers, None)


def ihfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ihfft``: the inverse of ``hfft`` (real input, ``n // 2 + 1`` outputs)."""
    _no_plan("ihfft", plan)
    return _r2c(False, x, n, axis, norm, workers, None)


# --------------------------------------------------------------------------------------
# Several axes


def _c2cn(forward, x, s, axes, norm, workers, plan):
    original = x
    x = _helper.asfarray(x)
    shape, axes = _helper.init_nd_shape_and_axes(x, s, axes)
    _helper.check_workers(workers)
    if not axes:
        return original  # SciPy returns its input, unconverted and unchecked for norm
    norm = _helper.check_norm(norm)
    with _plan.given(plan):
        return (_npfft.fftn if forward else _npfft.ifftn)(x, s=shape, axes=axes, norm=norm)


def _r2cn(forward, x, s, axes, norm, workers, plan):
    """``rfftn`` (forward) and ``ihfftn`` (the conjugate of ``rfftn`` with the other
    direction's scaling)."""
    x = _helper.asfarray(x)
    if x.dtype.kind == "c":
        raise TypeError("x must be a real sequence")
    shape, axes = _helper.init_nd_shape_and_axes(x, s, axes)
    norm = _helper.check_norm(norm)
    _helper.check_workers(workers)
    if not axes:
        raise ValueError("at least 1 axis must be transformed")
    if forward:
        with _plan.given(plan):
            return _npfft.rfftn(x, s=shape, axes=axes, norm=norm)
    y = _npfft.rfftn(x, s=shape, axes=axes, norm=_helper.swap_direction(norm))
    return gp.conjugate(y, out=y)


def _c2rn(forward, x, s, axes, norm, workers, plan):
    """``irfftn`` and ``hfftn`` (``irfftn`` of the conjugate with the other direction's
    scaling). Without ``s`` the last axis gives ``2 * (m - 1)`` outputs."""
    x = _helper.asfarray(x)
    if x.dtype.kind != "c":
        x = x.astype(_helper.complex_dtype(x.dtype))
    noshape = s is None
    shape, axes = _helper.init_nd_shape_and_axes(x, s, axes)
    if not axes:
        raise ValueError("at least 1 axis must be transformed")
    if noshape:
        shape[-1] = (x.shape[axes[-1]] - 1) * 2
    norm = _helper.check_norm(norm)
    _helper.check_workers(workers)
    last = shape[-1]
    if last < 1:
        raise ValueError(f"Invalid number of data points ({last}) specified")
    if forward:
        return _npfft.irfftn(gp.conjugate(x), s=shape, axes=axes, norm=_helper.swap_direction(norm))
    with _plan.given(plan):
        return _npfft.irfftn(x, s=shape, axes=axes, norm=norm)


def fftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.fftn``: the n-d transform over ``axes`` (default all, or the last
    ``len(s)``); ``s`` entries of -1 keep the input's length."""
    return _c2cn(True, x, s, axes, norm, workers, plan)


def ifftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ifftn``: the n-d inverse transform."""
    return _c2cn(False, x, s, axes, norm, workers, plan)


def fft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.fft2``: ``fftn`` over the last two axes."""
    return _c2cn(True, x, s, axes, norm, workers, plan)


def ifft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ifft2``: ``ifftn`` over the last two axes."""
    return _c2cn(False, x, s, axes, norm, workers, plan)


def rfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.rfftn``: the n-d transform of real input, halved along the last axis."""
    return _r2cn(True, x, s, axes, norm, workers, plan)


def irfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.irfftn``: the inverse of ``rfftn`` (real result)."""
    return _c2rn(False, x, s, axes, norm, workers, plan)


def rfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.rfft2``: ``rfftn`` over the last two axes."""
    return _r2cn(True, x, s, axes, norm, workers, plan)


def irfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.irfft2``: ``irfftn`` over the last two axes."""
    return _c2rn(False, x, s, axes, norm, workers, plan)


def hfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.hfftn``: the n-d transform of a Hermitian-symmetric signal given by its
    first half along the last axis (real result)."""
    _no_plan("hfftn", plan)
    return _c2rn(True, x, s, axes, norm, workers, None)


def ihfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ihfftn``: the inverse of ``hfftn`` (real input)."""
    _no_plan("ihfftn", plan)
    return _r2cn(False, x, s, axes, norm, workers, None)


def hfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.hfft2``: ``hfftn`` over the last two axes."""
    _no_plan("hfft2", plan)
    return _c2rn(True, x, s, axes, norm, workers, None)


def ihfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ihfft2``: ``ihfftn`` over the last two axes."""
    _no_plan("ihfft2", plan)
    return _r2cn(False, x, s, axes, norm, workers, None)


__all__ = [
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "fft2", "ifft2", "rfftn", "irfftn",
    "rfft2", "irfft2", "hfftn", "ihfftn", "hfft2", "ihfft2",
]
