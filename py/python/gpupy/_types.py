"""NumPy's scalar type names, abstract type hierarchy, type tables, constants, and its
``exceptions`` and ``dtypes`` modules, re-exported as NumPy's own objects (as gpupy's
``float32`` is ``numpy.float32``), so ``dtype=gpupy.intp`` and
``issubclass(a.dtype.type, gpupy.floating)`` mean what they mean in NumPy, and
``except gpupy.exceptions.AxisError`` catches what gpupy raises.

gpupy arrays hold only the dtypes of ``__array_namespace_info__().dtypes()`` (and
float16, bfloat16 where ml_dtypes is installed). The other names here are NumPy's types
all the same (so code that names them imports), but making a gpupy array of one of them
(``longdouble``, ``object_``, ``str_``, ``bytes_``, ``void``, ``datetime64``,
``timedelta64``) raises ``TypeError: gpupy does not support dtype '...'``."""

import numpy
from numpy import (
    False_,
    ScalarType,
    True_,
    bool,  # noqa: A004  (NumPy 2's name for its boolean type, as numpy.bool)
    byte,
    bytes_,
    cdouble,
    character,
    clongdouble,
    complexfloating,
    csingle,
    datetime64,
    double,
    dtype,
    dtypes,  # the module of dtype classes (numpy.dtypes.Float32DType, ...)
    e,
    euler_gamma,
    exceptions,  # the module of NumPy's exceptions (AxisError, ...), which gpupy raises
    flexible,
    floating,
    generic,
    half,
    inexact,
    inf,
    int_,
    intc,
    integer,
    intp,
    little_endian,
    long,
    longdouble,
    longlong,
    nan,
    newaxis,
    number,
    object_,
    pi,
    sctypeDict,
    short,
    signedinteger,
    single,
    str_,
    timedelta64,
    typecodes,
    ubyte,
    uint,
    uintc,
    uintp,
    ulong,
    ulonglong,
    unsignedinteger,
    ushort,
    void,
)

__all__ = [
    # concrete scalar types under NumPy's C-derived and alias names
    "bool", "byte", "ubyte", "short", "ushort", "intc", "uintc", "int_", "uint", "long", "ulong",
    "longlong", "ulonglong", "intp", "uintp", "half", "single", "double", "longdouble", "csingle",
    "cdouble", "clongdouble", "object_", "str_", "bytes_", "void", "datetime64", "timedelta64",
    # the abstract hierarchy
    "dtype", "generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact",
    "floating", "complexfloating", "flexible", "character",
    # tables and the dtype classes' module
    "True_", "False_", "ScalarType", "sctypeDict", "typecodes", "dtypes", "exceptions",
    # constants
    "e", "pi", "inf", "nan", "newaxis", "euler_gamma", "little_endian",
]

# float128/complex256 exist in NumPy only where long double is 80 or 128 bits wide
# (not on Windows or macOS arm64): present exactly where NumPy has them.
for _name in ("float96", "float128", "complex192", "complex256"):
    if hasattr(numpy, _name):
        globals()[_name] = getattr(numpy, _name)
        __all__.append(_name)
del _name
