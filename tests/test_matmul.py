"""Matrix products (gp.matmul, gp.dot, ``@``, ``a.dot(b)``) against a float64 NumPy
reference: ||got - ref||_F / (||a||_F * ||b||_F) must be below 1e-5 for float32 and
1e-12 for float64 (NumPy's own float32 BLAS result is not the reference, as the
summation order differs)."""

import numpy as np
import pytest

import gpupy as gp
from helpers import FLOAT_DTYPES, assert_equal_to_numpy, dtype_id, random_array

pytestmark = pytest.mark.gpu

TOL = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}

PRODUCTS = {
    "matmul": lambda a, b: gp.matmul(a, b),
    "operator": lambda a, b: a @ b,
    "dot": lambda a, b: gp.dot(a, b),
    "method": lambda a, b: a.dot(b),
}


def shape_id(shape):
    return "x".join(map(str, shape)) if shape else "0d"


def assert_product_close(got, x, y):
    """``got`` equals ``np.matmul(x, y)`` (computed in float64) within the normwise
    tolerance, with NumPy's shape and result dtype."""
    assert isinstance(got, gp.ndarray), type(got)
    want_dtype = np.result_type(x.dtype, y.dtype)
    ref = np.matmul(x.astype(np.float64), y.astype(np.float64))
    assert got.shape == ref.shape, f"shape: gpupy {got.shape}, numpy {ref.shape}"
    assert got.dtype == want_dtype, f"dtype: gpupy {got.dtype}, numpy {want_dtype}"
    r = got.get().astype(np.float64)
    scale = np.linalg.norm(x.astype(np.float64).ravel()) * np.linalg.norm(y.astype(np.float64).ravel())
    err = np.linalg.norm((r - ref).ravel())
    if scale == 0.0:  # an empty operand: every element of the result is an empty sum
        np.testing.assert_array_equal(r, ref)
        return
    assert err <= TOL[want_dtype] * scale, f"relative error {err / scale:.3e} > {TOL[want_dtype]:.0e}"


MATRIX_SHAPES = [
    ((1, 1), (1, 1)),
    ((1, 9), (9, 1)),
    ((9, 1), (1, 9)),
    ((17, 33), (33, 9)),
    ((127, 129), (129, 131)),
    ((257, 63), (63, 513)),
    ((64, 64), (64, 64)),
    ((1024, 1024), (1024, 1024)),
    ((3, 1000), (1000, 2)),  # long inner dimension
]


def pair_id(p):
    return f"{shape_id(p[0])}@{shape_id(p[1])}"


@pytest.mark.parametrize("shapes", MATRIX_SHAPES, ids=pair_id)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("how", list(PRODUCTS))
def test_2d_products(rng, how, dtype, shapes):
    if how != "matmul" and shapes[0][0] == 1024:
        pytest.skip("the 1024 case runs once, through gp.matmul")
    x, y = random_array(rng, shapes[0], dtype), random_array(rng, shapes[1], dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    assert_product_close(PRODUCTS[how](a, b), x, y)
    assert_equal_to_numpy(a, x)  # inputs untouched
    assert_equal_to_numpy(b, y)


@pytest.mark.parametrize(
    "shapes",
    [((3, 0), (0, 4)), ((0, 5), (5, 3)), ((4, 5), (5, 0)), ((0, 0), (0, 0)), ((1, 0), (0, 1)), ((0,), (0,)), ((2, 3, 0), (0, 5))],
    ids=pair_id,
)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("how", ["matmul", "operator", "dot"])
def test_empty_dimensions(rng, how, dtype, shapes):
    if how == "dot" and len(shapes[0]) > 2:
        pytest.skip("gp.dot takes up to 2-D operands")
    x, y = random_array(rng, shapes[0], dtype), random_array(rng, shapes[1], dtype)
    got = PRODUCTS[how](gp.asarray(x), gp.asarray(y))
    want = np.matmul(x, y)  # k = 0: zeros; m or n = 0: an empty result
    assert_equal_to_numpy(got, want)


@pytest.mark.parametrize(
    "shapes",
    [((7,), (7, 5)), ((7, 5), (5,)), ((300,), (300,)), ((1,), (1,)), ((129,), (129, 131)), ((131, 129), (129,))],
    ids=pair_id,
)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("how", list(PRODUCTS))
def test_1d_operands(rng, how, dtype, shapes):
    x, y = random_array(rng, shapes[0], dtype), random_array(rng, shapes[1], dtype)
    got = PRODUCTS[how](gp.asarray(x), gp.asarray(y))
    assert_product_close(got, x, y)
    if len(shapes[0]) == len(shapes[1]) == 1:
        assert got.shape == ()  # a 0-d array
        assert np.dot(x, y).shape == ()


@pytest.mark.parametrize(
    "shapes",
    [
        ((2, 3, 4, 5), (5, 6)),
        ((4, 5), (2, 3, 5, 6)),
        ((3, 1, 4, 5), (2, 5, 6)),
        ((2, 1, 4, 5), (1, 3, 5, 6)),
        ((5,), (3, 5, 6)),
        ((3, 4, 5), (5,)),
        ((7, 33, 17), (7, 17, 9)),
        ((1, 4, 5), (6, 5, 2)),
    ],
    ids=pair_id,
)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("how", ["matmul", "operator"])
def test_batched_with_broadcasting(rng, how, dtype, shapes):
    x, y = random_array(rng, shapes[0], dtype), random_array(rng, shapes[1], dtype)
    assert_product_close(PRODUCTS[how](gp.asarray(x), gp.asarray(y)), x, y)


def test_many_batches(rng):
    # More batches than one launch's grid z (65535) takes
    x, y = random_array(rng, (70000, 2, 3), np.float32), random_array(rng, (70000, 3, 2), np.float32)
    assert_product_close(gp.asarray(x) @ gp.asarray(y), x, y)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("how", list(PRODUCTS))
def test_transposed_operands(rng, how, dtype):
    x, y = random_array(rng, (65, 47), dtype), random_array(rng, (65, 31), dtype)
    z = random_array(rng, (31, 47), dtype)
    a, b, c = gp.asarray(x), gp.asarray(y), gp.asarray(z)
    assert_product_close(PRODUCTS[how](a.T, b), x.T, y)  # (47, 65) @ (65, 31)
    assert_product_close(PRODUCTS[how](a, c.T), x, z.T)  # (65, 47) @ (47, 31)
    assert_product_close(PRODUCTS[how](c.T.T, a.T), z, x.T)  # (31, 47) @ (47, 65)
    assert_product_close(PRODUCTS[how](b.T, a), y.T, x)  # (31, 65) @ (65, 47)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("how", list(PRODUCTS))
def test_sliced_operands(rng, how, dtype):
    m, k, n = 19, 37, 23
    x = random_array(rng, (2 * m, k + 1), dtype)
    y = random_array(rng, (k + 1, 3 * n), dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    assert_product_close(PRODUCTS[how](a[::2, 1:], b[1:, ::3]), x[::2, 1:], y[1:, ::3])
    assert_product_close(PRODUCTS[how](a[::-2, :-1], b[:-1, ::-3]), x[::-2, :-1], y[:-1, ::-3])
    assert_product_close(PRODUCTS[how](a[1::2, 1:], b.T[::-3, 1:].T), x[1::2, 1:], y.T[::-3, 1:].T)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_batched_views(rng, dtype):
    x = random_array(rng, (4, 9, 12), dtype)
    y = random_array(rng, (4, 12, 10), dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    assert_product_close(a[::2, ::-1, 1:] @ b[1::2, 1:, ::2], x[::2, ::-1, 1:], y[1::2, 1:, ::2])
    assert_product_close(a.transpose(0, 2, 1) @ b[:, :9, :], x.transpose(0, 2, 1), y[:, :9, :])


@pytest.mark.parametrize("how", list(PRODUCTS))
def test_float32_with_float64_promotes(rng, how):
    x, y = random_array(rng, (33, 17), np.float32), random_array(rng, (17, 9), np.float64)
    got = PRODUCTS[how](gp.asarray(x), gp.asarray(y))
    assert got.dtype == np.float64
    assert_product_close(got, x, y)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_dot_with_a_0d_operand_multiplies(rng, dtype):
    x, s = random_array(rng, (4, 5), dtype), random_array(rng, (), dtype)
    got = gp.dot(gp.asarray(s), gp.asarray(x))
    want = np.dot(s, x)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_out_argument(rng, dtype):
    x, y = random_array(rng, (17, 33), dtype), random_array(rng, (33, 9), dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    out = gp.asarray(random_array(rng, (17, 9), dtype))
    assert gp.matmul(a, b, out=out) is out
    assert_product_close(out, x, y)
    out = gp.asarray(random_array(rng, (17, 9), dtype))
    assert gp.dot(a, b, out=out) is out
    assert_product_close(out, x, y)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", [((5, 5), (5, 5)), ((7, 4), (4, 4)), ((3, 6, 6), (6, 6))], ids=pair_id)
def test_in_place_matmul(rng, dtype, shapes):
    x, y = random_array(rng, shapes[0], dtype), random_array(rng, shapes[1], dtype)
    a = gp.asarray(x)
    same = a
    a @= gp.asarray(y)
    assert a is same
    assert_product_close(a, x, y)


def test_in_place_matmul_that_changes_the_shape_raises(rng):
    x, y = random_array(rng, (4, 5), np.float32), random_array(rng, (5, 6), np.float32)
    with pytest.raises(ValueError):
        z = x.copy()
        z @= y
    a = gp.asarray(x)
    with pytest.raises(ValueError):
        a @= gp.asarray(y)
    assert_equal_to_numpy(a, x)


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("shapes", [((2, 3), (4, 5)), ((3,), (4,)), ((2, 3), (2,)), ((5, 2, 3), (4, 5))], ids=pair_id)
def test_inner_dimension_mismatch(rng, shapes):
    x, y = random_array(rng, shapes[0], np.float32), random_array(rng, shapes[1], np.float32)
    a, b = gp.asarray(x), gp.asarray(y)
    with pytest.raises(ValueError, match="mismatch"):
        np.matmul(x, y)
    with pytest.raises(ValueError, match="mismatch"):
        gp.matmul(a, b)
    with pytest.raises(ValueError, match="mismatch"):
        a @ b
    if len(shapes[0]) <= 2 and len(shapes[1]) <= 2:
        with pytest.raises(ValueError, match="not aligned"):
            np.dot(x, y)
        with pytest.raises(ValueError, match="not aligned"):
            gp.dot(a, b)
        with pytest.raises(ValueError, match="not aligned"):
            a.dot(b)
    z = random_array(rng, (shapes[0][-1], 3), np.float32)
    assert_product_close(a @ gp.asarray(z), x, z)  # still usable


def test_dot_not_aligned_message_matches_numpy(rng):
    x, y = random_array(rng, (2, 3), np.float64), random_array(rng, (4, 5), np.float64)
    with pytest.raises(ValueError) as want:
        np.dot(x, y)
    with pytest.raises(ValueError) as got:
        gp.dot(gp.asarray(x), gp.asarray(y))
    assert str(got.value) == str(want.value)


def test_0d_operands_to_matmul_raise_value_error(rng):
    x, s = random_array(rng, (3, 3), np.float64), random_array(rng, (), np.float64)
    a, z = gp.asarray(x), gp.asarray(s)
    with pytest.raises(ValueError):
        np.matmul(s, x)
    for call in (
        lambda: gp.matmul(z, a),
        lambda: gp.matmul(a, z),
        lambda: z @ a,
        lambda: a @ z,
        lambda: a @ 2.0,
        lambda: 2.0 @ a,
    ):
        with pytest.raises(ValueError):
            call()


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_, np.float16, np.complex64], ids=dtype_id)
def test_non_float_arrays_raise_type_error(rng, dtype):
    a = gp.asarray(random_array(rng, (3, 4), dtype))
    b = gp.asarray(random_array(rng, (4, 2), dtype))
    f = gp.asarray(random_array(rng, (4, 2), np.float32))
    for call in (lambda: gp.matmul(a, b), lambda: a @ b, lambda: gp.dot(a, b), lambda: a.dot(b), lambda: a @ f):
        with pytest.raises(TypeError):
            call()


def test_numpy_operands_raise_type_error(rng):
    x, y = random_array(rng, (3, 4), np.float32), random_array(rng, (4, 2), np.float32)
    a = gp.asarray(x)
    for call in (lambda: a @ y, lambda: y.T @ a.T, lambda: gp.matmul(a, y), lambda: gp.dot(x, gp.asarray(y))):
        with pytest.raises(TypeError):
            call()
    assert_product_close(a @ gp.asarray(y), x, y)  # still usable
