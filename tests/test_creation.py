"""Array creation, transfers to and from the host, and array attributes, against NumPy."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import gpupy as gp
from helpers import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    VIEW_FUNCS_1D,
    VIEW_FUNCS_2D,
    VIEW_IDS_1D,
    VIEW_IDS_2D,
    assert_equal_to_numpy,
    assert_same_attributes,
    dtype_id,
    raises_like,
    random_array,
    random_scalar,
    same_outcome,
)

pytestmark = pytest.mark.gpu

SHAPES = [(), (0,), (0, 3), (3, 0), (1,), (7,), (1023,), (1025,), (100003,), (4, 5, 6)]


def shape_id(shape):
    return "x".join(map(str, shape)) if shape else "0d"


def assert_bit_exact(got, want):
    """Same dtype, shape and bytes (NaN payloads and signed zeros included)."""
    assert isinstance(got, np.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == np.ascontiguousarray(want).tobytes()


# --- from the host and back ------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (1025,), (3, 5, 2)], ids=shape_id)
def test_round_trip_of_every_dtype_is_bit_exact(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    g = gp.asarray(x)
    assert isinstance(g, gp.ndarray)
    assert_same_attributes(g, x)
    assert_bit_exact(g.get(), x)
    assert_bit_exact(gp.asnumpy(g), x)
    a = gp.array(x)
    assert_bit_exact(a.get(), x)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_asarray_with_dtype_converts_like_numpy(rng, dtype):
    x = rng.uniform(-100, 100, (4, 9))
    if np.dtype(dtype).kind == "u":
        x = np.abs(x)  # NumPy's own cast of negative floats to unsigned is undefined
    assert_equal_to_numpy(gp.asarray(x, dtype=dtype), np.asarray(x, dtype=dtype))
    assert_equal_to_numpy(gp.array(x, dtype=dtype), np.array(x, dtype=dtype))


@pytest.mark.parametrize("dtype", [None, *FLOAT_DTYPES, np.complex64], ids=lambda d: "default" if d is None else dtype_id(d))
def test_from_lists_and_nested_lists(rng, dtype):
    for x in [random_array(rng, (6,), np.float64), random_array(rng, (3, 4), np.float64), random_array(rng, (2, 3, 2), np.float64)]:
        as_list = x.tolist()
        assert_equal_to_numpy(gp.asarray(as_list, dtype=dtype), np.asarray(as_list, dtype=dtype))
        assert_equal_to_numpy(gp.array(as_list, dtype=dtype), np.array(as_list, dtype=dtype))
    ints = rng.integers(-1000, 1000, (3, 5)).tolist()
    assert_equal_to_numpy(gp.asarray(ints, dtype=dtype), np.asarray(ints, dtype=dtype))
    bools = (rng.uniform(size=7) < 0.5).tolist()
    assert_equal_to_numpy(gp.asarray(bools, dtype=dtype), np.asarray(bools, dtype=dtype))


@pytest.mark.parametrize("kind", ["float", "int", "bool", "complex"])
@pytest.mark.parametrize("dtype", [None, np.float32, np.float64, np.int32], ids=lambda d: "default" if d is None else dtype_id(d))
def test_python_scalars_give_0d_arrays(rng, kind, dtype):
    value = {
        "float": float(rng.uniform(-1e3, 1e3)),
        "int": int(rng.integers(-(10**6), 10**6)),
        "bool": bool(rng.integers(0, 2)),
        "complex": complex(rng.uniform(-1, 1), rng.uniform(-1, 1)),
    }[kind]
    if kind == "complex" and dtype is not None:
        # NumPy refuses the complex-to-real conversion ("float() argument must be ... not
        # 'complex'"): gpupy raises the same TypeError.
        raises_like(lambda: gp.asarray(value, dtype=dtype), lambda: np.asarray(value, dtype=dtype), match="complex")
        return
    g = gp.asarray(value, dtype=dtype)
    want = np.asarray(value, dtype=dtype)
    assert g.shape == () and g.ndim == 0 and g.size == 1
    assert_equal_to_numpy(g, want)


def test_non_contiguous_numpy_inputs(rng):
    x = random_array(rng, (9, 12), np.float64)
    for view in [x.T, x[::2], x[::-1, ::-3], x[1:, 2:], np.asfortranarray(x)]:
        assert_equal_to_numpy(gp.asarray(view), view)


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">i4", ">i8", ">c16", "<f4", "=f8"])
def test_non_native_byte_order_input(rng, dtype):
    x = random_array(rng, (5, 7), np.dtype(dtype).newbyteorder("="))
    x = x.astype(dtype)
    g = gp.asarray(x)
    native = np.dtype(dtype).newbyteorder("=")
    assert g.dtype == native
    assert g.shape == x.shape
    assert_array_equal(g.get(), x)
    assert g.get().dtype == native


def test_asarray_of_a_gpupy_array_is_the_same_object(rng):
    g = gp.asarray(random_array(rng, (3, 4), np.float32))
    assert gp.asarray(g) is g
    assert gp.asarray(g, dtype=np.float32) is g
    assert gp.asarray(g, dtype="float32") is g


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_array_of_a_gpupy_array_is_an_independent_copy(rng, dtype):
    x = random_array(rng, (5, 6), dtype)
    g = gp.asarray(x)
    c = gp.array(g)
    assert c is not g
    assert_equal_to_numpy(c, x)
    c[1:3] = random_array(rng, (2, 6), dtype)
    assert_equal_to_numpy(g, x)  # the original is untouched


@pytest.mark.parametrize("src", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("dst", FLOAT_DTYPES, ids=dtype_id)
def test_array_and_asarray_convert_between_float_dtypes(rng, src, dst):
    x = random_array(rng, (17, 3), src)
    g = gp.asarray(x)
    assert_equal_to_numpy(gp.array(g, dtype=dst), x.astype(dst))
    assert_equal_to_numpy(gp.asarray(g, dtype=dst), x.astype(dst))
    assert_equal_to_numpy(g.astype(dst), x.astype(dst))


def test_asnumpy_passes_host_data_through(rng):
    x = random_array(rng, (4,), np.float64)
    assert_array_equal(gp.asnumpy(x), x)
    assert_array_equal(gp.asnumpy(x.tolist()), x)


# --- empty, zeros, ones, full ------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_, np.complex128], ids=dtype_id)
def test_empty_zeros_ones_shapes(shape, dtype):
    for make, want in [(gp.empty, np.empty), (gp.zeros, np.zeros), (gp.ones, np.ones)]:
        g = make(shape, dtype=dtype)
        assert_same_attributes(g, want(shape, dtype=dtype))
    assert_equal_to_numpy(gp.zeros(shape, dtype=dtype), np.zeros(shape, dtype=dtype))
    assert_equal_to_numpy(gp.ones(shape, dtype=dtype), np.ones(shape, dtype=dtype))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_zeros_ones_every_dtype(dtype):
    for shape in [(7,), (33, 5)]:
        assert_equal_to_numpy(gp.zeros(shape, dtype=dtype), np.zeros(shape, dtype=dtype))
        assert_equal_to_numpy(gp.ones(shape, dtype=dtype), np.ones(shape, dtype=dtype))


def test_default_dtype_is_float64():
    for make in (gp.empty, gp.zeros, gp.ones):
        assert make(3).dtype == np.float64
    # int shapes as well as tuples and lists
    assert gp.zeros(5).shape == (5,)
    assert gp.zeros([2, 3]).shape == (2, 3)
    assert gp.zeros(np.int64(4)).shape == (4,)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (1025,), (3, 0), (5, 9)], ids=shape_id)
def test_full_with_random_value(rng, dtype, shape):
    value = random_scalar(rng, dtype)
    assert_equal_to_numpy(gp.full(shape, value, dtype=dtype), np.full(shape, value, dtype=dtype))


def test_full_infers_the_dtype_like_numpy(rng):
    values = [
        int(rng.integers(1, 100)),  # int64
        float(rng.uniform(-5, 5)),  # float64
        bool(rng.integers(0, 2)),  # bool
        complex(rng.uniform(), rng.uniform()),  # complex128
        np.float32(rng.uniform()),  # float32
        np.int16(rng.integers(-100, 100)),  # int16
        np.uint8(rng.integers(0, 255)),  # uint8
    ]
    for value in values:
        want = np.full(3, value)
        g = gp.full(3, value)
        assert g.dtype == want.dtype, f"full(3, {value!r}): gpupy {g.dtype}, numpy {want.dtype}"
        assert_equal_to_numpy(g, want)
    assert gp.full(3, 7).dtype == np.int64
    assert gp.full(3, 2.5).dtype == np.float64


def test_full_with_a_0d_gpupy_fill_value(rng):
    x = random_array(rng, (), np.float32)
    assert_equal_to_numpy(gp.full((4, 3), gp.asarray(x)), np.full((4, 3), x))


@pytest.mark.parametrize(
    "call",
    [
        lambda: gp.empty(-1),
        lambda: gp.zeros((2, -3)),
        lambda: gp.ones((-1, 4), dtype=np.float32),
        lambda: gp.full(-2, 1.5),
    ],
    ids=["empty", "zeros", "ones", "full"],
)
def test_negative_shape_raises_value_error(call):
    with pytest.raises(ValueError, match="negative dimensions"):
        call()


# --- attributes, views, repr -------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.complex128, np.bool_], ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (0, 3), (3, 4, 5)], ids=shape_id)
def test_attributes_match_numpy(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    g = gp.asarray(x)
    assert_same_attributes(g, x)
    assert_same_attributes(g.T, x.T)
    assert_same_attributes(g.transpose(), x.transpose())


@pytest.mark.parametrize("view", VIEW_FUNCS_1D, ids=VIEW_IDS_1D)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16], ids=dtype_id)
def test_attributes_of_1d_views(rng, view, dtype):
    x = random_array(rng, (23,), dtype)
    v = view(gp.asarray(x))
    assert_same_attributes(v, view(x))
    assert_equal_to_numpy(v, view(x))


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64], ids=dtype_id)
def test_attributes_of_2d_views(rng, view, dtype):
    x = random_array(rng, (9, 14), dtype)
    v = view(gp.asarray(x))
    assert_same_attributes(v, view(x))
    assert_same_attributes(v.T, view(x).T)
    assert_equal_to_numpy(v, view(x))


def test_transpose_with_axes(rng):
    x = random_array(rng, (2, 3, 4), np.float32)
    g = gp.asarray(x)
    for axes in [(1, 0, 2), (2, 0, 1), (-1, -3, -2)]:
        assert_same_attributes(g.transpose(axes), x.transpose(axes))
        assert_equal_to_numpy(g.transpose(axes), x.transpose(axes))
        assert_equal_to_numpy(g.transpose(*axes), x.transpose(*axes))
    for bad, words in [((0, 1), "axes don't match array"), ((0, 0, 1), "repeated axis in transpose"),
                       ((0, 1, 3), "axis 3 is out of bounds for array of dimension 3")]:
        with pytest.raises(ValueError, match=words):
            x.transpose(bad)
        with pytest.raises(ValueError, match=words):
            g.transpose(bad)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint8, np.bool_, np.complex64, np.float16], ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (5,), (3, 4), (2, 3, 4), (2000,), (100003,)], ids=shape_id)
def test_repr_and_str_match_numpy(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    g = gp.asarray(x)
    assert repr(g) == repr(x)
    assert str(g) == str(x)


def test_repr_of_a_view_matches_numpy(rng):
    x = random_array(rng, (6, 8), np.float32)
    g = gp.asarray(x)
    assert repr(g.T[::-2, 1:]) == repr(x.T[::-2, 1:])
    assert str(g[1:, ::3]) == str(x[1:, ::3])


def test_implicit_conversion_to_numpy_raises_type_error(rng):
    g = gp.asarray(random_array(rng, (3,), np.float32))
    with pytest.raises(TypeError, match=r"\.get\(\)"):
        np.asarray(g)
    with pytest.raises(TypeError, match=r"\.get\(\)"):
        np.array(g)
    with pytest.raises(TypeError, match=r"\.get\(\)"):
        np.asarray(g, dtype=np.float64)


@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (0, 3), (4, 2), (5, 1, 2)], ids=shape_id)
def test_len_matches_numpy(rng, shape):
    x = random_array(rng, shape, np.float32)
    same_outcome(lambda: len(gp.asarray(x)), lambda: len(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_], ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (1,), (1, 1)], ids=shape_id)
def test_python_number_conversions_of_one_element(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    if np.dtype(dtype).kind == "f":
        x = (x * 1000).astype(dtype)  # int() sees a non-trivial value
    g = gp.asarray(x)
    # NumPy decides whether ndim > 0 converts (it no longer does from NumPy 2.4 on):
    # gpupy must agree with the installed NumPy either way.
    same_outcome(lambda: float(g), lambda: float(x))
    same_outcome(lambda: int(g), lambda: int(x))
    same_outcome(lambda: bool(g), lambda: bool(x))


def test_bool_of_several_elements_raises_like_numpy(rng):
    x = random_array(rng, (3,), np.float64)
    same_outcome(lambda: bool(gp.asarray(x)), lambda: bool(x))
