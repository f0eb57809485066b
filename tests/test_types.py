"""NumPy's type names, constants and dtype routines in gpupy (gpupy/_types.py,
gpupy/_dtypes.py): the names are NumPy's own objects, the routines give NumPy's answers,
unsupported dtypes are refused with a clear TypeError. The tests that make no gpupy
array run without a GPU."""

import itertools
import math
import re

import numpy as np
import pytest

import gpupy as gp
from helpers import known_defect, random_array

TYPE_NAMES = [
    "bool", "byte", "ubyte", "short", "ushort", "intc", "uintc", "int_", "uint", "long", "ulong", "longlong",
    "ulonglong", "intp", "uintp", "half", "single", "double", "longdouble", "csingle", "cdouble", "clongdouble",
    "object_", "str_", "bytes_", "void", "datetime64", "timedelta64", "dtype", "generic", "number", "integer",
    "signedinteger", "unsignedinteger", "inexact", "floating", "complexfloating", "flexible", "character",
    "True_", "False_", "ScalarType", "sctypeDict", "typecodes", "dtypes", "exceptions",
]
CONSTANTS = ["e", "pi", "inf", "nan", "newaxis", "euler_gamma", "little_endian"]


@pytest.mark.parametrize("name", TYPE_NAMES + CONSTANTS + ["float128", "complex256"])
def test_names_are_numpys_objects(name):
    if not hasattr(np, name):  # float128/complex256: only where NumPy has them
        assert not hasattr(gp, name)
        return
    assert getattr(gp, name) is getattr(np, name)


def test_constants_values():
    assert gp.pi == math.pi and gp.e == math.e and gp.euler_gamma == np.euler_gamma
    assert gp.inf == math.inf and math.isnan(gp.nan)
    assert gp.newaxis is None
    assert isinstance(gp.little_endian, bool)


def test_hierarchy_holds_gpupys_dtypes():
    assert issubclass(gp.float32, gp.floating) and issubclass(gp.complex64, gp.complexfloating)
    assert issubclass(gp.int8, gp.signedinteger) and issubclass(gp.uint64, gp.unsignedinteger)
    assert issubclass(gp.intp, gp.integer) and issubclass(gp.float16, gp.inexact)
    assert gp.dtype("float32") == np.float32
    assert gp.bool is np.bool_ and gp.bool_ is np.bool_


# Making a gpupy array of a dtype the GPU cannot hold raises a TypeError that names it,
# before any device work (so these run without a GPU too).
UNSUPPORTED = [np.object_, np.str_, np.bytes_, np.void, np.datetime64, np.timedelta64, "M8[s]", "m8[ms]", "U4",
               np.longdouble, np.clongdouble]
CREATORS = {
    "empty": lambda dt: gp.empty((3,), dtype=dt),
    "zeros": lambda dt: gp.zeros(3, dtype=dt),
    "ones": lambda dt: gp.ones(3, dtype=dt),
    "asarray": lambda dt: gp.asarray(np.zeros(3, dtype=dt)),
    "array": lambda dt: gp.array(np.zeros(2, dtype=dt)),
}


@pytest.mark.parametrize("creator", sorted(CREATORS))
@pytest.mark.parametrize("dtype", UNSUPPORTED, ids=str)
def test_unsupported_dtypes_raise(request, creator, dtype):
    if np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128)):
        pytest.skip("long double is double on this platform")
    if creator == "ones":
        try:
            np.ones(3, dtype=dtype)
        except Exception as e:  # NumPy refuses as well (datetime64 without a unit): the same error
            with pytest.raises(type(e)):
                CREATORS[creator](dtype)
            return
        if dtype is np.void or dtype is np.datetime64:
            known_defect(request, "full/ones build the fill value with numpy.array(1, dtype) before checking the "
                         "dtype: NumPy's unrelated error ('A bytes-like object is required, not int' for void, "
                         "'Converting an integer to a NumPy datetime requires a specified unit') instead of "
                         "'gpupy does not support dtype' (gpupy/_creation.py full)")
    with pytest.raises(TypeError, match="gpupy does not support dtype"):
        CREATORS[creator](dtype)


# ---------------------------------------------------------------------------------------
# Dtype routines against NumPy

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16,
          np.float32, np.float64, np.complex64, np.complex128]


def test_promote_types_matches_numpy():
    for a, b in itertools.product(DTYPES, repeat=2):
        assert gp.promote_types(a, b) == np.promote_types(a, b), (a, b)
    assert gp.promote_types("i4", "f8") == np.dtype("f8")
    with pytest.raises(TypeError):
        gp.promote_types(np.bool_, np.datetime64)


@pytest.mark.parametrize("value", [0, 10, 255, 256, -1, -129, 2**40, 3.0, -1.5, 1e300, 1j, True])
def test_min_scalar_type_of_scalars(value):
    assert gp.min_scalar_type(value) == np.min_scalar_type(value)


@pytest.mark.gpu
@pytest.mark.parametrize("value, dtype", [(10, np.int64), (-200, np.int32), (300, np.uint16), (1.5, np.float64),
                                          (1e300, np.float64), (2.5 + 1j, np.complex128), (True, np.bool_)])
def test_min_scalar_type_of_arrays(value, dtype):
    # A 0-d array is judged by its value, others by their dtype (NumPy's rule).
    x = np.asarray(value, dtype=dtype)
    assert gp.min_scalar_type(gp.asarray(x)) == np.min_scalar_type(x)
    v = np.full(3, value, dtype=dtype)
    assert gp.min_scalar_type(gp.asarray(v)) == np.min_scalar_type(v) == np.dtype(dtype)


def test_issubdtype_matches_numpy():
    abstract = [np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger, np.inexact, np.floating,
                np.complexfloating, np.bool_]
    for a in DTYPES:
        for b in abstract + DTYPES:
            assert gp.issubdtype(a, b) == np.issubdtype(a, b), (a, b)
    assert gp.issubdtype("float32", gp.floating) and not gp.issubdtype(gp.float32, gp.integer)


@pytest.mark.gpu
def test_common_type_of_gpupy_arrays(rng):
    for dts in [(np.float32,), (np.float32, np.int16), (np.float16, np.complex64), (np.int8, np.uint64),
                (np.float64, np.complex64, np.float32), (np.float16,)]:
        xs = [random_array(rng, (2, 3), dt) for dt in dts]
        assert gp.common_type(*[gp.asarray(x) for x in xs]) is np.common_type(*xs), dts
    # Mixed with NumPy arrays, as NumPy's.
    x = random_array(rng, (4,), np.float32)
    assert gp.common_type(gp.asarray(x), np.zeros(2, np.complex64)) is np.complex64
    b = random_array(rng, (3,), np.bool_)
    with pytest.raises(Exception) as want:  # NumPy's own error ("can't get common type for non-numeric array")
        np.common_type(b)
    with pytest.raises(want.type, match=re.escape(str(want.value))):
        gp.common_type(gp.asarray(b))


def test_common_type_of_numpy_arrays():
    assert gp.common_type(np.zeros(2, np.float32), np.zeros(2, np.int64)) is np.float64


def test_mintypecode_and_typename_match_numpy():
    for chars in (["f", "d"], "if", ["F", "d"], ["b"], [], "Gd"):
        for typeset in ("GDFgdf", "fd"):
            assert gp.mintypecode(chars, typeset) == np.mintypecode(chars, typeset)
    assert gp.mintypecode(["i"], "fd", default="f") == np.mintypecode(["i"], "fd", default="f")
    for c in np.typecodes["All"] + "?x":
        try:
            want = np.typename(c)
        except KeyError:  # characters NumPy's table lacks ('e', ...): the same KeyError
            with pytest.raises(KeyError):
                gp.typename(c)
        else:
            assert gp.typename(c) == want, c


def test_isdtype_matches_numpy():
    kinds = ["bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric",
             ("bool", "real floating")]
    for dt in DTYPES:
        for kind in kinds:
            assert gp.isdtype(np.dtype(dt), kind) == np.isdtype(np.dtype(dt), kind), (dt, kind)


# ---------------------------------------------------------------------------------------
# finfo / iinfo: the array API's types, NumPy's values


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64, np.complex128, float, complex])
def test_finfo_types_and_values(dtype):
    ours, ref = gp.finfo(dtype), np.finfo(dtype)
    assert type(ours.bits) is int and ours.bits == ref.bits
    for name in ("eps", "max", "min", "smallest_normal", "tiny", "epsneg", "resolution", "smallest_subnormal"):
        got = getattr(ours, name)
        assert type(got) is float, name
        assert got == getattr(ref, name), name  # float() of a float16/32 value is exact
    assert ours.dtype == ref.dtype and isinstance(ours.dtype, np.dtype)
    assert ours.dtype.kind == "f"  # the real dtype for complex ones, as the standard says
    assert ours.precision == ref.precision and ours.nmant == ref.nmant and ours.maxexp == ref.maxexp
    assert gp.finfo(dtype) == gp.finfo(ref.dtype)
    assert repr(ours) == repr(ref)


@pytest.mark.parametrize("dtype", [np.int32, np.dtype(np.uint8), "i8", bool], ids=str)
def test_finfo_refuses_integers(dtype):
    # NumPy's own error for the same argument ("data type <class 'numpy.int32'> not
    # inexact" in NumPy 2.4, "... not compatible with finfo" in 2.5): from the installed NumPy.
    with pytest.raises(Exception) as want:
        np.finfo(dtype)
    with pytest.raises(want.type, match=re.escape(str(want.value))):
        gp.finfo(dtype)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_iinfo_types_and_values(dtype):
    ours, ref = gp.iinfo(dtype), np.iinfo(dtype)
    for name in ("bits", "min", "max"):
        assert type(getattr(ours, name)) is int and getattr(ours, name) == getattr(ref, name)
    assert ours.dtype == np.dtype(dtype)


@pytest.mark.gpu
def test_finfo_iinfo_of_gpupy_arrays(rng):
    for dt in (np.float32, np.complex128, np.float16):
        g = gp.asarray(random_array(rng, (3,), dt))
        assert gp.finfo(g).eps == np.finfo(dt).eps and gp.finfo(g).dtype == np.finfo(dt).dtype
    for dt in (np.int16, np.uint32):
        g = gp.asarray(random_array(rng, (3,), dt))
        assert gp.iinfo(g).max == np.iinfo(dt).max
