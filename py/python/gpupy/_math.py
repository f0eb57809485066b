"""Mathematical functions (NumPy's "Mathematical functions", "Logic functions" and
"Binary operations"): the ufuncs come from the Rust extension, one object per op, with
NumPy's names and aliases; the rest are composed from them here."""

import numpy

from gpupy import _gpupy
from gpupy._gpupy import ndarray

# Private aliases, so module-level imports stay out of the package's namespace; a new
# public function must also be listed in __all__ (the end of this file), which is what
# ``from gpupy._math import *`` in gpupy/__init__.py exports.
from gpupy import _methods
from gpupy._creation import asarray as _asarray, zeros as _zeros
from gpupy._indexing import where as _where

# Every ufunc gpupy has kernels for, under NumPy's name, in the kernels' op-table order:
# the extension's list, so no copy of the table here can drift from it.
_UFUNC_NAMES = list(_gpupy.UFUNC_NAMES)
globals().update({name: getattr(_gpupy, name) for name in _UFUNC_NAMES})
ufunc = _gpupy.ufunc

# NumPy's aliases.
true_divide = divide  # noqa: F821 (defined by the update above)
mod = remainder  # noqa: F821
abs = absolute  # noqa: F821
conj = conjugate  # noqa: F821
radians = deg2rad  # noqa: F821
degrees = rad2deg  # noqa: F821
bitwise_not = invert  # noqa: F821

dot = _gpupy.dot
matmul = _gpupy.matmul


def divmod(x1, x2, out=None):
    """(x1 // x2, x1 % x2), as NumPy's ``divmod``."""
    q_out, r_out = (None, None) if out is None else out
    return floor_divide(x1, x2, out=q_out), remainder(x1, x2, out=r_out)  # noqa: F821


def real(val):
    """The real part: a view for complex arrays, the array itself otherwise."""
    return _asarray(val).real


def imag(val):
    """The imaginary part: a view for complex arrays, zeros otherwise."""
    return _asarray(val).imag


def angle(z, deg=False):
    """The argument of complex numbers, ``arctan2(imag, real)``."""
    z = _asarray(z)
    a = arctan2(z.imag, z.real) if z.dtype.kind == "c" else arctan2(_zeros_like_float(z), z)  # noqa: F821
    return a * (180.0 / numpy.pi) if deg else a


def _zeros_like_float(z):
    dt = z.dtype if z.dtype.kind == "f" else numpy.dtype(numpy.float64)
    return _zeros(z.shape, dt)


def around(a, decimals=0, out=None):
    """Round half to even at ``decimals`` digits, as NumPy: ``rint(a * 10**d) / 10**d``."""
    a = _asarray(a)
    if a.dtype.kind in "biu":
        if decimals >= 0:
            return a.copy() if out is None else _copyto(out, a)
        f = 10 ** (-decimals)
        r = floor_divide(a + f // 2, f) * f  # noqa: F821
        return r if out is None else _copyto(out, r)
    if decimals == 0:
        return rint(a, out=out)  # noqa: F821
    f = 10.0 ** decimals
    if decimals > 0:
        return divide(rint(multiply(a, f)), f, out=out)  # noqa: F821
    return multiply(rint(divide(a, 1.0 / f)), 1.0 / f, out=out)  # noqa: F821


round = around


def _copyto(out, r):
    out[...] = r
    return out


_NO_BOUND = object()


def clip(a, min=None, max=None, out=None, *, a_min=_NO_BOUND, a_max=_NO_BOUND):  # noqa: A002
    """``minimum(maximum(a, min), max)``, skipping a missing bound (a copy of ``a`` when
    both are missing, as NumPy 2). The bounds' names are the array API's ``min``/``max``
    (NumPy 2's keyword-only spelling) in NumPy's positions; NumPy's ``a_min=``/``a_max=``
    keywords are accepted too."""
    if a_min is not _NO_BOUND:
        if min is not None:
            raise TypeError("clip() got multiple values for argument 'min' (min and a_min)")
        min = a_min  # noqa: A001
    if a_max is not _NO_BOUND:
        if max is not None:
            raise TypeError("clip() got multiple values for argument 'max' (max and a_max)")
        max = a_max  # noqa: A001
    a_min, a_max = min, max
    r = _asarray(a)
    if a_min is None and a_max is None:
        if out is None:
            return r.copy()
        out[...] = r
        return out
    if a_min is not None:
        r = maximum(r, a_min)  # noqa: F821
    if a_max is not None:
        r = minimum(r, a_max, out=out)  # noqa: F821
    elif out is not None:
        out[...] = r
        r = out
    return r


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN to ``nan``, infinities to ``posinf``/``neginf`` (the dtype's extremes by default)."""
    x = _asarray(x)
    if x.dtype.kind not in "fc":
        return x.copy() if copy else x
    if x.dtype.kind == "c":
        re = nan_to_num(x.real, True, nan, posinf, neginf)
        im = nan_to_num(x.imag, True, nan, posinf, neginf)
        r = x.copy() if copy else x
        r.real[...] = re
        r.imag[...] = im
        return r
    info = numpy.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    r = _where(isnan(x), nan, x)  # noqa: F821
    r = _where(isposinf(r), posinf, r)
    r = _where(isneginf(r), neginf, r)
    r = r.astype(x.dtype, copy=False)
    if copy:
        return r
    x[...] = r
    return x


def isposinf(x):
    return logical_and(isinf(x), logical_not(signbit(x)))  # noqa: F821


def isneginf(x):
    return logical_and(isinf(x), signbit(x))  # noqa: F821


def _conj_method(a):
    """``ndarray.conj()``/``conjugate()``: the conjugate of a complex array; the array
    itself for any other dtype, as NumPy's method returns it."""
    return conjugate(a) if a.dtype.kind == "c" else a  # noqa: F821


_methods.attach({"conj": _conj_method, "conjugate": _conj_method, "clip": clip, "round": around})

__all__ = [
    *_UFUNC_NAMES, "ufunc", "true_divide", "mod", "abs", "conj", "radians", "degrees", "bitwise_not", "dot",
    "matmul", "divmod", "real", "imag", "angle", "around", "round", "clip", "nan_to_num", "isposinf", "isneginf",
]
