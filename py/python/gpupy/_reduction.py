"""Reductions and statistics with NumPy's signatures, over the Rust reduction engine.

Each function validates its arguments as NumPy does, then asks ``_gpupy._reduce`` for one
reduction (the kernels pick NumPy's accumulator and result dtypes). ``dtype=`` casts the
input first and the result after, which gives NumPy's results (integer sums wrap the same
way in any width); ``out=`` copies the result in. A full reduction returns a 0-d array, as
CuPy does; ``float()``, ``int()`` and ``bool()`` bring its value to the host.

Not supported: ``where=`` (NotImplementedError). NumPy's RuntimeWarnings for empty
slices are given where the host knows them without reading the result back.
"""

import operator
import warnings

import numpy

from gpupy import _gpupy, _indexing, _math, _methods
from gpupy._creation import asarray as _asarray, full
from gpupy._gpupy import ndarray
from gpupy._manipulation import _normalize_axis_tuple, broadcast_to, copyto

_NO_VALUE = numpy._NoValue


def _axes(axis, ndim):
    """``axis`` as a sorted tuple of distinct non-negative axes (None: all)."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(_normalize_axis_tuple(axis, ndim)))


def _no_where(where, name):
    if where is not True and not (isinstance(where, (bool, numpy.bool_)) and where):
        raise NotImplementedError(f"gpupy.{name} does not support where= yet")


def _finish(r, dtype, out):
    """Casts the result to ``dtype`` and stores it into ``out`` when given."""
    if dtype is not None and r.dtype != dtype:
        r = r.astype(dtype)
    if out is None:
        return r
    if not isinstance(out, ndarray):
        raise TypeError("out must be a gpupy.ndarray")
    if out.shape != r.shape:
        raise ValueError(f"output parameter has shape {out.shape}, the reduction's result has shape {r.shape}")
    copyto(out, r, casting="unsafe")
    return out


def _run(a, op, axis, keepdims=False, dtype=None, ddof=0.0, root=False):
    a = _asarray(a)
    axes = _axes(axis, a.ndim)
    if dtype is not None:
        dtype = numpy.dtype(dtype)
        if a.dtype != dtype:
            a = a.astype(dtype)
    return a, _gpupy._reduce(a, op, list(axes), bool(keepdims), float(ddof), bool(root)), axes


def _reduced_size(a, axes):
    n = 1
    for d in axes:
        n *= a.shape[d]
    return n


def _with_initial(r, initial, combine):
    if initial is _NO_VALUE:
        return r
    return combine(r, numpy.asarray(initial, dtype=r.dtype)[()])


# Sums and products -----------------------------------------------------------------


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Sum of array elements over the given axes (NumPy's ``sum``)."""
    _no_where(where, "sum")
    _, r, _ = _run(a, "sum", axis, keepdims, dtype)
    r = _finish(r, dtype, None)
    return _finish(_with_initial(r, initial, _math.add), None, out)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Product of array elements over the given axes (NumPy's ``prod``)."""
    _no_where(where, "prod")
    _, r, _ = _run(a, "prod", axis, keepdims, dtype)
    r = _finish(r, dtype, None)
    return _finish(_with_initial(r, initial, _math.multiply), None, out)


def _is_inexact(a, dtype=None):
    """Whether the reduction computes in a float or complex dtype (NaN-aware variants
    matter only then)."""
    return _inexact(a.dtype if dtype is None else dtype)


def _inexact(dtype):
    """Float or complex, counting ml_dtypes' bfloat16 (a NumPy 'V' kind) as float."""
    dtype = numpy.dtype(dtype)
    return dtype.kind in "fc" or dtype.name == "bfloat16"


def _replace_nan(a, value):
    return _indexing.where(_math.isnan(a), numpy.asarray(value, a.dtype)[()], a)


def _nan_ring(op, plain, a, axis, dtype, out, keepdims, initial, where, identity):
    a = _asarray(a)
    if not _is_inexact(a):
        return plain(a, axis, dtype, out, keepdims, initial, where)
    if dtype is not None and not _is_inexact(a, dtype):
        # NumPy replaces the NaNs first, then reduces in the integer dtype.
        return plain(_replace_nan(a, identity), axis, dtype, out, keepdims, initial, where)
    _no_where(where, op)
    _, r, _ = _run(a, op, axis, keepdims, dtype)
    combine = _math.add if identity == 0 else _math.multiply
    return _finish(_with_initial(_finish(r, dtype, None), initial, combine), None, out)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Sum treating NaNs as zero (NumPy's ``nansum``)."""
    return _nan_ring("nansum", sum, a, axis, dtype, out, keepdims, initial, where, 0)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Product treating NaNs as one (NumPy's ``nanprod``)."""
    return _nan_ring("nanprod", prod, a, axis, dtype, out, keepdims, initial, where, 1)


def _check_nan_dtype(a, dtype):
    """NumPy's nanmean/nanvar/nanstd refuse an integer dtype for float input."""
    if dtype is not None and _is_inexact(a) and not _is_inexact(a, dtype):
        raise TypeError("If a is inexact, then dtype must be inexact")


# Means and moments -----------------------------------------------------------------


def _float_dtype(dtype):
    """NumPy's mean/var dtype for an input dtype: integers and bool compute in float64."""
    return dtype if _inexact(dtype) else numpy.dtype(numpy.float64)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """Arithmetic mean over the given axes (NumPy's ``mean``); integers give float64."""
    _no_where(where, "mean")
    a = _asarray(a)
    if dtype is not None and not _inexact(dtype):
        # NumPy sums in the integer (or bool) dtype, then divides and casts back.
        dtype = numpy.dtype(dtype)
        s = sum(a, axis, dtype, None, keepdims)
        return _finish(_math.divide(s, _reduced_size(a, _axes(axis, a.ndim))), dtype, out)
    a, r, axes = _run(a, "mean", axis, keepdims, dtype)
    if _reduced_size(a, axes) == 0:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2)
    return _finish(r, None, out)


def _ddof(ddof, correction):
    if correction is not _NO_VALUE:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        return correction
    return ddof


def _moments(name, a, axis, dtype, out, ddof, keepdims, root):
    a = _asarray(a)
    if root and dtype is not None and not _inexact(dtype):
        # NumPy's sqrt into an integer array fails; a full reduction is a scalar and casts.
        r = _moments(name, a, axis, None, None, ddof, keepdims, root)
        if r.ndim == 0:
            return _finish(r, numpy.dtype(dtype), out)
        code = numpy.dtype(dtype).char
        raise TypeError(f"ufunc 'sqrt' output (typecode 'd') could not be coerced to provided output parameter "
                        f"(typecode '{code}') according to the casting rule ''same_kind''")
    if dtype is not None and not _inexact(dtype):
        r = _moments(name, a, axis, None, None, ddof, keepdims, root)
        return _finish(r, numpy.dtype(dtype), out)
    if dtype is not None and numpy.dtype(dtype).kind == "c" and a.dtype.kind != "c":
        # NumPy squares real deviations in the complex dtype: a real value, typed complex.
        real = numpy.dtype(dtype).char.lower()
        return _finish(_moments(name, a, axis, real, None, ddof, keepdims, root), numpy.dtype(dtype), out)
    a, r, axes = _run(a, name, axis, keepdims, dtype, ddof, root)
    if _reduced_size(a, axes) - ddof <= 0 and name == "var":
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)
    return _finish(r, None, out)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NO_VALUE,
        correction=_NO_VALUE):
    """Variance over the given axes (NumPy's ``var``), in one pass: shifted sums per
    thread, Chan's formula between threads. Complex input gives the real variance."""
    _no_where(where, "var")
    return _moments("var", a, axis, dtype, out, _ddof(ddof, correction), keepdims, False)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NO_VALUE,
        correction=_NO_VALUE):
    """Standard deviation over the given axes (NumPy's ``std``)."""
    _no_where(where, "std")
    return _moments("var", a, axis, dtype, out, _ddof(ddof, correction), keepdims, True)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """Mean ignoring NaNs (NumPy's ``nanmean``); an all-NaN slice gives NaN."""
    a = _asarray(a)
    _check_nan_dtype(a, dtype)
    if not _is_inexact(a, dtype):
        return mean(a, axis, dtype, out, keepdims, where=where)
    _no_where(where, "nanmean")
    _, r, _ = _run(a, "nanmean", axis, keepdims, dtype)
    return _finish(r, None, out)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NO_VALUE,
           correction=_NO_VALUE):
    """Variance ignoring NaNs (NumPy's ``nanvar``)."""
    a = _asarray(a)
    _check_nan_dtype(a, dtype)
    if not _is_inexact(a, dtype):
        return var(a, axis, dtype, out, ddof, keepdims, where=where, correction=correction)
    _no_where(where, "nanvar")
    return _moments("nanvar", a, axis, dtype, out, _ddof(ddof, correction), keepdims, False)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NO_VALUE,
           correction=_NO_VALUE):
    """Standard deviation ignoring NaNs (NumPy's ``nanstd``)."""
    a = _asarray(a)
    _check_nan_dtype(a, dtype)
    if not _is_inexact(a, dtype):
        return std(a, axis, dtype, out, ddof, keepdims, where=where, correction=correction)
    _no_where(where, "nanstd")
    return _moments("nanvar", a, axis, dtype, out, _ddof(ddof, correction), keepdims, True)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """Weighted average (NumPy's ``average``)."""
    a = _asarray(a)
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        if returned:
            count = _reduced_size(a, _axes(axis, a.ndim))
            scl = full(avg.shape, count, dtype=avg.dtype)
            return avg, scl
        return avg
    w = _asarray(weights)
    result_dtype = numpy.result_type(a.dtype, w.dtype, *([numpy.float64] if a.dtype.kind in "biu" else []))
    if a.shape != w.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if w.ndim != 1:
            raise TypeError("1D weights expected when shapes of a and weights differ.")
        ax = _axes(axis, a.ndim)
        if len(ax) != 1:
            raise TypeError("Single axis expected when shapes of a and weights differ.")
        if w.shape[0] != a.shape[ax[0]]:
            raise ValueError("Length of weights not compatible with specified axis.")
        shape = [1] * a.ndim
        shape[ax[0]] = w.shape[0]
        w = w.reshape(shape)
    wsum = sum(w.astype(result_dtype), axis, keepdims=keepdims)
    if bool(any(wsum == 0)):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    total = sum(_math.multiply(a.astype(result_dtype), w.astype(result_dtype)), axis, keepdims=keepdims)
    avg = _math.divide(total, wsum)
    if returned:
        return avg, broadcast_to(wsum, avg.shape).copy()
    return avg


# Extremes --------------------------------------------------------------------------

_NUMPY_UFUNC = {"min": "minimum", "max": "maximum", "nanmin": "fmin", "nanmax": "fmax"}


def _extreme(op, a, axis, out, keepdims, initial, where):
    _no_where(where, op)
    a = _asarray(a)
    axes = _axes(axis, a.ndim)
    if _reduced_size(a, axes) == 0:
        if initial is _NO_VALUE:
            raise ValueError(
                f"zero-size array to reduction operation {_NUMPY_UFUNC[op]} which has no identity")
        shape = tuple(1 if d in axes else n for d, n in enumerate(a.shape)) if keepdims else \
            tuple(n for d, n in enumerate(a.shape) if d not in axes)
        return _finish(full(shape, initial, dtype=a.dtype), None, out)
    if op.startswith("nan") and not _is_inexact(a):
        op = op[3:]
    _, r, _ = _run(a, op, axis, keepdims)
    combine = {"min": _math.minimum, "max": _math.maximum, "nanmin": _math.fmin, "nanmax": _math.fmax}[op]
    return _finish(_with_initial(r, initial, combine), None, out)


def min(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Minimum over the given axes (NumPy's ``min``); NaN propagates."""
    return _extreme("min", a, axis, out, keepdims, initial, where)


def max(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Maximum over the given axes (NumPy's ``max``); NaN propagates."""
    return _extreme("max", a, axis, out, keepdims, initial, where)


amin = min
amax = max


def nanmin(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Minimum ignoring NaNs (NumPy's ``nanmin``); an all-NaN slice gives NaN."""
    return _extreme("nanmin", a, axis, out, keepdims, initial, where)


def nanmax(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Maximum ignoring NaNs (NumPy's ``nanmax``); an all-NaN slice gives NaN."""
    return _extreme("nanmax", a, axis, out, keepdims, initial, where)


def ptp(a, axis=None, out=None, keepdims=False):
    """Range (maximum - minimum) over the given axes (NumPy's ``ptp``)."""
    a = _asarray(a)
    return _finish(_math.subtract(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims)), None, out)


def _arg(op, a, axis, out, keepdims):
    a = _asarray(a)
    if axis is not None:
        axis = operator.index(axis)
    if (a.size == 0 if axis is None else a.shape[_axes(axis, a.ndim)[0]] == 0):
        kind = op[3:] if op.startswith("nan") else op
        raise ValueError(f"attempt to get {kind} of an empty sequence")
    if op.startswith("nan") and not _is_inexact(a):
        op = op[3:]
    # With axis=None, positions count in C order over the whole array: the host keeps the
    # reduced axes in order for arg reductions.
    _, r, _ = _run(a, op, axis, keepdims)
    if op.startswith("nan") and bool(any(r == numpy.iinfo(numpy.int64).max)):
        raise ValueError("All-NaN slice encountered")
    return _finish(r, None, out)


def argmin(a, axis=None, out=None, *, keepdims=False):
    """Position of the first minimum (NumPy's ``argmin``); the first NaN if any."""
    return _arg("argmin", a, axis, out, keepdims)


def argmax(a, axis=None, out=None, *, keepdims=False):
    """Position of the first maximum (NumPy's ``argmax``); the first NaN if any."""
    return _arg("argmax", a, axis, out, keepdims)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """Position of the first minimum ignoring NaNs (NumPy's ``nanargmin``)."""
    return _arg("nanargmin", a, axis, out, keepdims)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """Position of the first maximum ignoring NaNs (NumPy's ``nanargmax``)."""
    return _arg("nanargmax", a, axis, out, keepdims)


# Truth and counting ----------------------------------------------------------------


def any(a, axis=None, out=None, keepdims=False, *, where=True):
    """Whether any element along the axes is true (NumPy's ``any``)."""
    _no_where(where, "any")
    _, r, _ = _run(a, "any", axis, keepdims)
    return _finish(r, None, out)


def all(a, axis=None, out=None, keepdims=False, *, where=True):
    """Whether every element along the axes is true (NumPy's ``all``)."""
    _no_where(where, "all")
    _, r, _ = _run(a, "all", axis, keepdims)
    return _finish(r, None, out)


def count_nonzero(a, axis=None, *, keepdims=False):
    """Number of non-zero elements along the axes, as int64 (a 0-d array for
    ``axis=None``, as CuPy returns)."""
    _, r, _ = _run(a, "count_nonzero", axis, keepdims)
    return r


# Methods ---------------------------------------------------------------------------


_methods.attach({"sum": sum, "prod": prod, "mean": mean, "var": var, "std": std, "min": min, "max": max,
                 "argmin": argmin, "argmax": argmax, "any": any, "all": all, "ptp": ptp})

__all__ = ["sum", "prod", "mean", "var", "std", "min", "max", "amin", "amax", "ptp", "argmin", "argmax",
           "any", "all", "count_nonzero", "average", "nansum", "nanprod", "nanmean", "nanvar", "nanstd",
           "nanmin", "nanmax", "nanargmin", "nanargmax"]
