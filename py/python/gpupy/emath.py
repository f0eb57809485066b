"""NumPy's ``emath`` (``numpy.lib.scimath``): ``sqrt``, ``log``, ``log2``, ``log10``,
``logn``, ``power``, ``arccos``, ``arcsin`` and ``arctanh`` with complex results where
the real-valued function leaves its domain (``emath.sqrt(-1) == 1j``).

As in NumPy, the whole input switches to complex when any real element is out of the
domain (negative for the roots and logarithms, |x| > 1 for arccos, arcsin and arctanh):
that decision is one device reduction (``any``) and one bool read to the host per
argument, skipped for complex and unsigned input, whose dtype already decides it.
"""

import numpy

from gpupy import _math, _reduction
from gpupy._creation import asarray

__all__ = ["sqrt", "log", "log2", "log10", "logn", "power", "arccos", "arcsin", "arctanh"]

# NumPy's _tocomplex: these types go to complex64, every other real type to complex128.
_TO_COMPLEX64 = {numpy.dtype(t) for t in (numpy.single, numpy.byte, numpy.short, numpy.ubyte, numpy.ushort)}


def _to_complex(x):
    return x.astype(numpy.complex64 if x.dtype in _TO_COMPLEX64 else numpy.complex128)


def _any(mask):
    return bool(_reduction.any(mask))


def _fix_real_lt_zero(x):
    """``x`` (as a gpupy array), made complex when a real element is negative."""
    x = asarray(x)
    if x.dtype.kind in "fi" and _any(_math.less(x, 0)):
        x = _to_complex(x)
    return x


def _fix_int_lt_zero(x):
    """``x`` as float64 when it is integer with a negative element (NumPy's ``x * 1.0``)."""
    x = asarray(x)
    if x.dtype.kind == "i" and _any(_math.less(x, 0)):
        x = x.astype(numpy.float64)
    return x


def _fix_real_abs_gt_1(x):
    """``x`` made complex when a real element lies outside [-1, 1]."""
    x = asarray(x)
    if x.dtype.kind in "iuf" and _any(_math.greater(_math.absolute(x), 1)):
        x = _to_complex(x)
    return x


def _scimath(name, fix, doc):
    """NumPy's ``emath.<name>``: ``gpupy.<name>`` applied to ``fix(x)``, the input made
    complex (or float) where the real-valued function leaves its domain."""
    real_function = getattr(_math, name)

    def function(x):
        return real_function(fix(x))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"{doc}\n\n    .. seealso:: numpy.emath.{name}"
    return function


sqrt = _scimath("sqrt", _fix_real_lt_zero, "The square root; complex for negative input (``emath.sqrt(-4) == 2j``).")
log = _scimath("log", _fix_real_lt_zero, "The natural logarithm; complex for negative input (``log(-1) == pi*1j``).")
log10 = _scimath("log10", _fix_real_lt_zero, "The base-10 logarithm; complex for negative input.")
log2 = _scimath("log2", _fix_real_lt_zero, "The base-2 logarithm; complex for negative input.")
arccos = _scimath("arccos", _fix_real_abs_gt_1, "The inverse cosine; complex where |x| > 1.")
arcsin = _scimath("arcsin", _fix_real_abs_gt_1, "The inverse sine; complex where |x| > 1.")
arctanh = _scimath("arctanh", _fix_real_abs_gt_1, "The inverse hyperbolic tangent; complex where |x| > 1.")


def logn(n, x):
    """The base-``n`` logarithm ``log(x) / log(n)``; complex for negative input.

    .. seealso:: numpy.emath.logn"""
    x = _fix_real_lt_zero(x)
    n = _fix_real_lt_zero(n)
    return _math.divide(_math.log(x), _math.log(n))


def power(x, p):
    """``x ** p``; complex for negative ``x``, float for negative integer ``p``.

    .. seealso:: numpy.emath.power"""
    x = _fix_real_lt_zero(x)
    p = _fix_int_lt_zero(p)
    return _math.power(x, p)
