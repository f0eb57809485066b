"""Whole-array comparisons (NumPy's "Logic functions: comparison"): ``isclose``,
``allclose``, ``array_equal`` and ``array_equiv``, composed of ufuncs and one ``all``
reduction. The three predicates return a Python bool, as NumPy's do (one device-to-host
read of a single value); ``isclose`` returns a gpupy array (0-d for scalar inputs, where
NumPy returns a NumPy scalar, as CuPy does)."""

import builtins
import warnings

import numpy

from gpupy import _math
from gpupy._creation import asarray
from gpupy._gpupy import ndarray
from gpupy._indexing import where
from gpupy._manipulation import broadcast_shapes
from gpupy._reduction import all as _all

__all__ = ["isclose", "allclose", "array_equal", "array_equiv"]

_PY_SCALARS = (builtins.bool, int, float, complex)


def _operand(x):
    """Python scalars stay Python scalars (NEP 50: weakly typed), the rest gpupy arrays."""
    return x if type(x) in _PY_SCALARS else asarray(x)


def _tolerance(t):
    """A tolerance as a weak Python scalar when it is one, else a gpupy array."""
    if isinstance(t, ndarray):
        return t
    h = numpy.asarray(t)
    return h.item() if h.ndim == 0 and type(t) in _PY_SCALARS else asarray(h)


def isclose(a, b, rtol=1.0e-5, atol=1.0e-8, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (and ``a == b``, which makes equal
    infinities close), NumPy 2's asymmetric test: ``b`` is first made inexact (its dtype
    promoted with float), so ``|b|`` cannot overflow an integer. NaNs are close to each
    other only with ``equal_nan``.

    .. seealso:: numpy.isclose"""
    x, y = _operand(a), _operand(b)
    if isinstance(y, ndarray):
        dt = numpy.result_type(y.dtype, 1.0)
        if y.dtype != dt:
            y = y.astype(dt)
    elif type(y) is int:
        y = float(y)
    ah, rh = numpy.asarray(atol.get() if isinstance(atol, ndarray) else atol), \
        numpy.asarray(rtol.get() if isinstance(rtol, ndarray) else rtol)
    if not (numpy.all(numpy.isfinite(ah)) and numpy.all(numpy.isfinite(rh))):
        # NumPy reports non-finite tolerances through its floating-point error state.
        err_s = numpy.geterr()["invalid"]
        msg = f"One of rtol or atol is not valid, atol: {atol}, rtol: {rtol}"
        if err_s == "warn":
            warnings.warn(msg, RuntimeWarning, stacklevel=2)
        elif err_s == "raise":
            raise FloatingPointError(msg)
        elif err_s == "print":
            print(msg)
    atol, rtol = _tolerance(atol), _tolerance(rtol)
    # The ufuncs take Python scalars as weak operands (and make a 0-d array of them when
    # no operand is an array), so the dtypes are NumPy's.
    bound = _math.add(atol, _math.multiply(rtol, _math.absolute(y)))
    close = _math.less_equal(_math.absolute(_math.subtract(x, y)), bound)
    result = _math.logical_or(_math.logical_and(close, _math.isfinite(y)), _math.equal(x, y))
    if equal_nan:
        result = _math.logical_or(result, _math.logical_and(_math.isnan(x), _math.isnan(y)))
    return result


def allclose(a, b, rtol=1.0e-5, atol=1.0e-8, equal_nan=False):
    """Whether every element of ``isclose(a, b, rtol, atol, equal_nan)`` is true (a Python
    bool).

    .. seealso:: numpy.allclose"""
    return builtins.bool(_all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def _as_arrays(a1, a2):
    try:
        return asarray(a1), asarray(a2)
    except Exception:  # noqa: BLE001 - NumPy answers False for anything not an array
        return None


def array_equal(a1, a2, equal_nan=False):
    """True when ``a1`` and ``a2`` have one shape and equal elements (NaNs in the same
    places count as equal with ``equal_nan``; for complex, a value with a NaN part is
    NaN). A Python bool.

    .. seealso:: numpy.array_equal"""
    arrays = _as_arrays(a1, a2)
    if arrays is None:
        return False
    a1, a2 = arrays
    if a1.shape != a2.shape:
        return False
    equal = _math.equal(a1, a2)
    if equal_nan and (a1.dtype.kind in "fc" or a2.dtype.kind in "fc"):
        # Equal where both are NaN; unequal where only one is (equal is False there).
        both_nan = _math.logical_and(_math.isnan(a1), _math.isnan(a2))
        equal = where(both_nan, True, equal)
    return builtins.bool(_all(equal))


def array_equiv(a1, a2):
    """True when ``a1`` and ``a2`` broadcast against each other and are equal everywhere
    (a Python bool).

    .. seealso:: numpy.array_equiv"""
    arrays = _as_arrays(a1, a2)
    if arrays is None:
        return False
    a1, a2 = arrays
    try:
        broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    return builtins.bool(_all(_math.equal(a1, a2)))
