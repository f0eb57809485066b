"""The discrete Fourier transforms of ``numpy.fft`` (NumPy 2's ``_pocketfft.py``: the
same signatures, argument checks, messages, dtype rules and order of checks), computed by
the extension's three one-axis primitives:

- ``_fft_c2c(a, axis, inverse, scale)``: complex to complex;
- ``_fft_r2c(a, axis, scale)``: real to the first ``n // 2 + 1`` complex outputs;
- ``_fft_c2r(a, axis, n, scale)``: ``n // 2 + 1`` complex inputs to ``n`` real outputs.

They take any strides and return fresh C-contiguous arrays, so this module only works out
the dtypes, crops (a view) or zero-pads (``zeros`` and a copy into its head) the input to
the transform's length, passes the normalization factor as ``scale`` (computed in float64
from the transform's length), and loops over the axes of the n-dimensional transforms
one axis at a time in NumPy's order: the last of ``axes`` first (``rfftn``: the real
transform on the last axis, then complex ones; ``irfftn``: complex ones on all but the
last, then the real one). Zero-size batches give empty results without a primitive call.

Deliberate differences from NumPy, each for a GPU library's reasons:

- Inputs must be gpupy arrays (``TypeError`` otherwise), as CuPy's ``cupy.fft``.
- ``out=`` is honoured by every function (NumPy's ``ifft2``, ``irfft2`` and ``hfft``
  ignore it) and must have the final result's shape; the n-dimensional transforms write
  only the final result into it (NumPy passes it to every one-axis step, which fails
  when ``s`` changes the shape on the way).
- Out-of-range axes raise NumPy's ``AxisError`` everywhere; NumPy raises a bare
  ``IndexError`` where ``n``/``s`` is not given (``AxisError`` is an ``IndexError``).
- The ``"ortho"``/``"forward"`` factor of float16 inputs is exact to float64 (NumPy
  rounds it to float16 before the complex64 transform, a 2**-11 relative error).
"""

import math
import operator
import warnings

import numpy

from gpupy import _gpupy
from gpupy._creation import empty, zeros
from gpupy._gpupy import ndarray
from gpupy._manipulation import _normalize_axis, _slice_along
from gpupy.fft import _plan

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "rfftn", "irfftn", "rfft2", "irfft2", "fft2",
           "ifft2", "fftn", "ifftn"]

_SWAP_DIRECTION_MAP = {"backward": "forward", None: "forward", "ortho": "ortho", "forward": "backward"}

_REAL_OF = {numpy.dtype(numpy.complex64): numpy.dtype(numpy.float32),
            numpy.dtype(numpy.complex128): numpy.dtype(numpy.float64)}


def _swap_direction(norm):
    """The forward-direction norm that gives an inverse transform ``norm``'s scaling."""
    try:
        return _SWAP_DIRECTION_MAP[norm]
    except KeyError:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", '
                         '"ortho" or "forward".') from None


def _check_input(a):
    """CuPy's rule: the transforms take device arrays only (a host array would be a
    silent transfer each call)."""
    if not isinstance(a, ndarray):
        raise TypeError(f"The input array a must be a gpupy.ndarray, not {type(a).__name__}")


def _length_along(a, axis):
    """``a.shape[axis]``, NumPy's default ``n``; an out-of-range axis is an AxisError."""
    return a.shape[_normalize_axis(axis, a.ndim)]


def _as_length(n, allow_bool):
    """``n`` as a Python int, with NumPy's TypeErrors: floats are refused, and booleans by
    every transform but the real forward one (where NumPy's arithmetic on ``n`` happens
    to turn ``True`` into an int before the output shape is built)."""
    if isinstance(n, (bool, numpy.bool_)):
        if not allow_bool:
            raise TypeError("an integer is required")
        return int(n)
    return operator.index(n)


def _unsupported(name):
    return (f"ufunc '{name}' not supported for the input types, and the inputs could not be safely coerced "
            "to any supported types according to the casting rule ''safe''")


_DTYPES = {}


def _dtypes(dtype, kind, n):
    """``_dtypes_of`` memoized: NumPy's type promotion costs microseconds a call."""
    key = (dtype, kind, kind == "r2c" and n % 2 == 0)
    got = _DTYPES.get(key)
    if got is None:
        got = _DTYPES[key] = _dtypes_of(dtype, kind, n)
    return got


def _dtypes_of(dtype, kind, n):
    """(input dtype of the primitive, its output dtype, NumPy's result dtype) for an input
    of ``dtype``. NumPy runs ``numpy.fft`` as ufuncs with complex64/complex128 loops whose
    output arrays are allocated in ``result_type(a, 1j)`` (c2c, r2c) or in
    ``result_type(a.real, 1.0)`` (c2r): float16 computes in single precision but a c2r
    of it returns float16; bool and integers compute and return double precision."""
    cplx = numpy.result_type(dtype, 1j)
    if kind == "r2c":
        if dtype.kind == "c" or cplx not in _REAL_OF:
            raise TypeError(_unsupported(_ufunc_name(kind, True, n)))
        return _REAL_OF[cplx], cplx, cplx
    if cplx not in _REAL_OF:
        raise TypeError(_unsupported(_ufunc_name(kind, True, n)))
    if kind == "c2c":
        return cplx, cplx, cplx
    return cplx, _REAL_OF[cplx], numpy.result_type(_REAL_OF.get(dtype, dtype), 1.0)


def _check_out(out, shape, dtype, ufunc_name):
    """NumPy's checks of ``out=``: its shape (ValueError) and the same-kind cast of the
    computed dtype to it (TypeError, NumPy's UFuncTypeError message)."""
    if not isinstance(out, ndarray):
        raise TypeError(f"out must be a gpupy.ndarray, not {type(out).__name__}")
    if tuple(out.shape) != tuple(shape):
        raise ValueError("output array has wrong shape.")
    if not numpy.can_cast(dtype, out.dtype, "same_kind"):
        raise TypeError(f"Cannot cast ufunc '{ufunc_name}' output from {dtype!r} to {out.dtype!r} with casting "
                        "rule 'same_kind'")


def _fit(a, n, axis, dtype):
    """``a`` cropped or zero-padded along ``axis`` to length ``n``, as ``dtype``: a view
    when nothing changes, a converted copy of the used part otherwise (pocketfft's rule:
    a longer input is cropped, a shorter one padded with zeros at the end)."""
    m = a.shape[axis]
    if m > n:
        a = a[_slice_along(a.ndim, axis, slice(0, n))]
    if m >= n:
        # (The dtype test first: astype's own no-op check costs microseconds a call.)
        return a if a.dtype == dtype else a.astype(dtype)
    padded = zeros(a.shape[:axis] + (n,) + a.shape[axis + 1:], dtype)
    _gpupy._copyto(padded[_slice_along(a.ndim, axis, slice(0, m))], a)
    return padded


_VALUE_TYPES = {"c2c": "C2C", "r2c": "R2C", "c2r": "C2R"}


def _ufunc_name(kind, is_forward, n):
    """The name of NumPy's pocketfft ufunc for the transform (its error messages say it)."""
    if kind == "r2c":
        return "rfft_n_even" if n % 2 == 0 else "rfft_n_odd"
    if kind == "c2r":
        return "irfft"
    return "fft" if is_forward else "ifft"


def _raw_fft(a, n, axis, kind, is_forward, norm, out=None, hook=True):
    """One transform along one axis (NumPy's ``_raw_fft``): ``kind`` is "c2c", "r2c" or
    "c2r"; ``n`` the transform's length (the real side's for r2c and c2r). ``hook``:
    pass the call to the current plan (``_plan``); False for the steps of an
    n-dimensional transform, which passes itself once."""
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    if not is_forward:
        norm = _swap_direction(norm)
    if norm is not None and norm not in ("backward", "ortho", "forward"):
        raise ValueError(f'Invalid norm value {norm}; should be "backward",'
                         '"ortho" or "forward".')
    axis = _normalize_axis(axis, a.ndim)
    n = _as_length(n, allow_bool=kind == "r2c")
    # NumPy's factor: 1 for "backward", 1/sqrt(n) for "ortho", 1/n for "forward" (the
    # inverse transforms swapped the direction above); float64 here, rounded once by the
    # primitive to the transform's precision.
    scale = {None: 1.0, "backward": 1.0, "ortho": 1.0 / math.sqrt(n), "forward": 1.0 / n}[norm]
    n_in = n // 2 + 1 if kind == "c2r" else n
    n_out = n // 2 + 1 if kind == "r2c" else n
    shape = a.shape[:axis] + (n_out,) + a.shape[axis + 1:]
    if out is not None and getattr(out, "shape", None) is not None and tuple(out.shape) != shape:
        raise ValueError("output array has wrong shape.")
    work, computed, result = _dtypes(a.dtype, kind, n)
    if out is not None:
        _check_out(out, shape, computed, _ufunc_name(kind, is_forward, n))
    if hook:
        in_shape = a.shape[:axis] + (n_in,) + a.shape[axis + 1:]
        _plan.check(_VALUE_TYPES[kind], work, in_shape, (axis,), n if kind == "c2r" else None)
    if math.prod(shape) == 0:  # a zero-size batch: nothing to compute
        return out if out is not None else empty(shape, result)
    x = _fit(a, n_in, axis, work)
    if kind == "c2c":
        r = _gpupy._fft_c2c(x, axis, not is_forward, scale)
    elif kind == "r2c":
        r = _gpupy._fft_r2c(x, axis, scale)
    else:
        r = _gpupy._fft_c2r(x, axis, n, scale)
    if out is not None:
        _gpupy._copyto(out, r)
        return out
    return r if r.dtype == result else r.astype(result)


# ---------------------------------------------------------------------------------------
# One axis. Each takes n=None as NumPy does (the input's length; 2 * (m - 1) for the
# Hermitian-input inverses); the n-dimensional loops below call these directly.


def _fft(a, n, axis, norm, out, hook=True):
    if n is None:
        n = _length_along(a, axis)
    return _raw_fft(a, n, axis, "c2c", True, norm, out, hook)


def _ifft(a, n, axis, norm, out, hook=True):
    if n is None:
        n = _length_along(a, axis)
    return _raw_fft(a, n, axis, "c2c", False, norm, out, hook)


def _rfft(a, n, axis, norm, out, hook=True):
    if n is None:
        n = _length_along(a, axis)
    return _raw_fft(a, n, axis, "r2c", True, norm, out, hook)


def _irfft(a, n, axis, norm, out, hook=True):
    if n is None:
        n = (_length_along(a, axis) - 1) * 2
    return _raw_fft(a, n, axis, "c2r", False, norm, out, hook)


def fft(a, n=None, axis=-1, norm=None, out=None):
    """The one-dimensional discrete Fourier transform (``numpy.fft.fft``)."""
    _check_input(a)
    return _fft(a, n, axis, norm, out)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """The one-dimensional inverse discrete Fourier transform (``numpy.fft.ifft``)."""
    _check_input(a)
    return _ifft(a, n, axis, norm, out)


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """The one-dimensional transform of real input: the ``n // 2 + 1`` non-negative
    frequency terms (``numpy.fft.rfft``)."""
    _check_input(a)
    return _rfft(a, n, axis, norm, out)


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of ``rfft``: ``n`` real values (default ``2 * (m - 1)``) from the
    non-negative frequency terms (``numpy.fft.irfft``)."""
    _check_input(a)
    return _irfft(a, n, axis, norm, out)


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """The transform of a signal with Hermitian symmetry, given by its first half: a real
    spectrum (``numpy.fft.hfft``; an ``irfft`` of the conjugate with the swapped norm)."""
    _check_input(a)
    if n is None:
        n = (_length_along(a, axis) - 1) * 2
    new_norm = _swap_direction(norm)
    if a.dtype.kind == "c":
        a = _gpupy.conjugate(a)
    return _irfft(a, n, axis, new_norm, out)


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of ``hfft`` (``numpy.fft.ihfft``: the conjugate of an ``rfft`` with
    the swapped norm)."""
    _check_input(a)
    if n is None:
        n = _length_along(a, axis)
    new_norm = _swap_direction(norm)
    r = _rfft(a, n, axis, new_norm, out)
    return _gpupy.conjugate(r, out=r)


# ---------------------------------------------------------------------------------------
# Several axes.

_AXES_NONE_MSG = ("`axes` should not be `None` if `s` is not `None` "
                  "(Deprecated in NumPy 2.0). In a future version of NumPy, "
                  "this will raise an error and `s[i]` will correspond to "
                  "the size along the transformed axis specified by "
                  "`axes[i]`. To retain current behaviour, pass a sequence "
                  "[0, ..., k-1] to `axes` for an array of dimension k.")
_S_NONE_MSG = ("Passing an array containing `None` values to `s` is "
               "deprecated in NumPy 2.0 and will raise an error in "
               "a future version of NumPy. To use the default behaviour "
               "of the corresponding 1-D transform, pass the value matching "
               "the default for its `n` parameter. To use the default "
               "behaviour for every axis, the `s` argument can be omitted.")
# The user's frame, seen from _cook_nd_args: public function -> _fftnd -> _cook_nd_args.
_STACKLEVEL = 4


def _cook_nd_args(a, s=None, axes=None, invreal=False):
    """NumPy's ``_cook_nd_args``: the lengths and axes of an n-dimensional transform.
    ``s[i] == -1`` is the input's length along ``axes[i]``; ``None`` (deprecated) is the
    one-axis default when that axis's turn comes; axes may repeat (the axis is then
    transformed again, as in NumPy)."""
    if s is None:
        shapeless = True
        if axes is None:
            s = list(a.shape)
        else:
            s = [a.shape[_normalize_axis(ax, a.ndim)] for ax in axes]
    else:
        shapeless = False
    s = list(s)
    if axes is None:
        if not shapeless:
            warnings.warn(_AXES_NONE_MSG, DeprecationWarning, stacklevel=_STACKLEVEL)
        axes = list(range(-len(s), 0))
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if invreal and shapeless:
        s[-1] = (a.shape[axes[-1]] - 1) * 2
    if None in s:
        warnings.warn(_S_NONE_MSG, DeprecationWarning, stacklevel=_STACKLEVEL)
    s = [a.shape[_a] if _s == -1 else _s for _s, _a in zip(s, axes)]
    return s, axes


def _check_plan_nd(a, s, axes, kind):
    """Passes an n-dimensional transform to the current plan (``_plan``), once: its
    lengths (``s``'s None entries as the one-axis defaults), the padded input shape and
    the precision. Only with a plan current, so NumPy's errors come first otherwise."""
    if _plan.current_plan() is None or not axes:
        return
    ndim = a.ndim
    axes = [_normalize_axis(ax, ndim) for ax in axes]
    lengths = [a.shape[ax] if n is None else operator.index(n) for n, ax in zip(s, axes)]
    if kind == "c2r" and s[-1] is None:
        lengths[-1] = (a.shape[axes[-1]] - 1) * 2
    in_shape = list(a.shape)
    for n, ax in zip(lengths, axes):
        in_shape[ax] = n
    if kind == "c2r":
        in_shape[axes[-1]] = lengths[-1] // 2 + 1
    work = _dtypes(a.dtype, kind, lengths[-1])[0]
    _plan.check(_VALUE_TYPES[kind], work, in_shape, axes, lengths[-1] if kind == "c2r" else None)


def _fftnd(a, s, axes, norm, out, kind, is_forward):
    """The n-dimensional transforms, one axis at a time in NumPy's order; ``out`` takes
    the last step's result. No axes: the input itself, as NumPy (c2c only; the real
    transforms fail on their last axis as NumPy's do)."""
    _check_input(a)
    s, axes = _cook_nd_args(a, s, axes, invreal=kind == "c2r")
    _check_plan_nd(a, s, axes, kind)
    last = len(axes) - 1
    if kind == "c2c":
        step = _fft if is_forward else _ifft
        for ii in range(last, -1, -1):
            a = step(a, s[ii], axes[ii], norm, out if ii == 0 else None, False)
        return a
    if kind == "r2c":
        a = _rfft(a, s[-1], axes[-1], norm, out if last == 0 else None, False)
        for ii in range(last - 1, -1, -1):
            a = _fft(a, s[ii], axes[ii], norm, out if ii == 0 else None, False)
        return a
    for ii in range(last):
        a = _ifft(a, s[ii], axes[ii], norm, None, False)
    return _irfft(a, s[-1], axes[-1], norm, out, False)


def fftn(a, s=None, axes=None, norm=None, out=None):
    """The n-dimensional discrete Fourier transform (``numpy.fft.fftn``)."""
    return _fftnd(a, s, axes, norm, out, "c2c", True)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """The n-dimensional inverse discrete Fourier transform (``numpy.fft.ifftn``)."""
    return _fftnd(a, s, axes, norm, out, "c2c", False)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The two-dimensional discrete Fourier transform (``numpy.fft.fft2``)."""
    return _fftnd(a, s, axes, norm, out, "c2c", True)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The two-dimensional inverse discrete Fourier transform (``numpy.fft.ifft2``)."""
    return _fftnd(a, s, axes, norm, out, "c2c", False)


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """The n-dimensional transform of real input (``numpy.fft.rfftn``): ``rfft`` along
    the last of ``axes``, then ``fft`` along the others."""
    return _fftnd(a, s, axes, norm, out, "r2c", True)


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """The inverse of ``rfftn`` (``numpy.fft.irfftn``): ``ifft`` along all but the last
    of ``axes``, then ``irfft`` along it."""
    return _fftnd(a, s, axes, norm, out, "c2r", False)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The two-dimensional transform of real input (``numpy.fft.rfft2``)."""
    return _fftnd(a, s, axes, norm, out, "r2c", True)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The inverse of ``rfft2`` (``numpy.fft.irfft2``)."""
    return _fftnd(a, s, axes, norm, out, "c2r", False)
