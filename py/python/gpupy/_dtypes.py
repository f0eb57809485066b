"""Dtype routines: NumPy's own, taking gpupy arrays where NumPy takes arrays.

Each hands NumPy dtypes (or, where NumPy's answer depends on a 0-d array's value, that
one value copied to the host), never a gpupy array: with ``__array_function__`` on
gpupy.ndarray, NumPy's function given a gpupy array would dispatch back here.

``finfo`` and ``iinfo`` follow the array API standard's types (``finfo(float32).eps`` is
a Python float, as the standard says, where NumPy's is a ``numpy.float32``; the value is
the same, exactly) and accept gpupy arrays as well as dtypes."""

import numpy

from gpupy._gpupy import ndarray


def _dtype_of(x):
    return x.dtype if isinstance(x, ndarray) else x


def result_type(*arrays_and_dtypes):
    """NumPy's ``result_type`` (NEP 50: Python scalars are weak)."""
    return numpy.result_type(*[_dtype_of(x) for x in arrays_and_dtypes])


def can_cast(from_, to, casting="safe"):
    """NumPy's ``can_cast`` for dtypes and gpupy arrays (not Python scalars, as NumPy 2)."""
    return numpy.can_cast(_dtype_of(from_), to, casting)


def promote_types(type1, type2, /):
    """NumPy's ``promote_types``: the smallest dtype both can be safely cast to."""
    return numpy.promote_types(type1, type2)


def min_scalar_type(a, /):
    """NumPy's ``min_scalar_type``: for a 0-d gpupy array, of its value (one element is
    copied to the host, as the answer depends on it); for others, their dtype."""
    if isinstance(a, ndarray):
        a = a.get() if a.ndim == 0 else numpy.empty(0, a.dtype)
    return numpy.min_scalar_type(a)


def issubdtype(arg1, arg2):
    """NumPy's ``issubdtype``: whether ``arg1`` is ``arg2`` or below it in the type
    hierarchy (``issubdtype(gpupy.float32, gpupy.floating)``)."""
    return numpy.issubdtype(arg1, arg2)


def common_type(*arrays):
    """NumPy's ``common_type`` for gpupy (or NumPy) arrays: the inexact scalar type all
    inputs cast to (integers count as float64)."""
    return numpy.common_type(*[numpy.empty(0, a.dtype) if isinstance(a, ndarray) else a for a in arrays])


def mintypecode(typechars, typeset="GDFgdf", default="d"):
    """NumPy's ``mintypecode``: the character of the smallest type in ``typeset`` that
    all of ``typechars`` (type characters or gpupy/NumPy arrays) cast to safely."""
    if not isinstance(typechars, str):
        typechars = [numpy.empty(0, t.dtype) if isinstance(t, ndarray) else t for t in typechars]
    return numpy.mintypecode(typechars, typeset, default)


def typename(char):
    """NumPy's ``typename``: a description of a type character (``'d'``: 'double precision')."""
    return numpy.typename(char)


def _as_dtype(spec):
    if isinstance(spec, ndarray):
        return spec.dtype
    return numpy.dtype(spec)


class finfo:
    """Machine limits of a floating-point type: NumPy's ``finfo`` with the array API
    standard's types. ``bits`` is an int; ``eps``, ``max``, ``min``, ``smallest_normal``
    (and NumPy's ``tiny``, ``epsneg``, ``resolution``, ``smallest_subnormal``) are Python
    floats; ``dtype`` is the real floating dtype (float32 for complex64). NumPy's integer
    attributes (``precision``, ``nmant``, ``machep``, ...) are as NumPy's.

    ``dtype`` may be a dtype, a type, a gpupy or NumPy array, or an instance."""

    _FLOATS = ("eps", "epsneg", "max", "min", "resolution", "smallest_normal", "smallest_subnormal", "tiny")

    def __init__(self, dtype):
        if isinstance(dtype, ndarray):
            dtype = dtype.dtype
        info = numpy.finfo(dtype)
        self._numpy = info
        self.dtype = info.dtype
        self.bits = int(info.bits)
        for name in self._FLOATS:
            setattr(self, name, float(getattr(info, name)))

    def __getattr__(self, name):
        # NumPy's other attributes (precision, nmant, iexp, machep, maxexp, ...) as NumPy's.
        if name.startswith("__") or name == "_numpy":
            raise AttributeError(name)
        return getattr(self._numpy, name)

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return repr(self._numpy)

    def __str__(self):
        return str(self._numpy)


def iinfo(int_type):
    """Machine limits of an integer type: NumPy's ``iinfo`` (``bits``, ``min``, ``max``
    are Python ints, ``dtype`` the integer dtype), taking gpupy arrays as well."""
    return numpy.iinfo(_as_dtype(int_type) if isinstance(int_type, ndarray) else int_type)


__all__ = [
    "result_type", "can_cast", "finfo", "iinfo", "promote_types", "min_scalar_type", "issubdtype",
    "common_type", "mintypecode", "typename",
]
