"""Matrix products (gp.matmul, gp.dot, ``@``, ``a.dot(b)``) against a NumPy reference.

Inexact dtypes are compared elementwise with the exact product of the operands as the
kernel sees them (cast to the result dtype; computed in long double), within
``compare.product_bound``: |err_ij| <= 2 gamma_k(u_acc) sum_p |a_ip||b_pj| (+ the TF32
truncation of both factors when TF32 is on, + one rounding to the output dtype), with
u_acc the accumulator's unit roundoff (float32 for float16 and float32, float64 for
float64; kernels/src/mma.rs) and the factor 2 for tensor cores' round-toward-zero
accumulation. NumPy's own float32 BLAS result is not the reference, as the summation
order differs. Integer and bool products must equal NumPy's exactly (integers wrap; bool
is an or of ands).

Shapes include 1, odd sizes and sizes that are multiples of no tile (the SIMT tiles are
16..128, the tensor-core tiles 64 and 128, the k steps 8..32); operands are transposed,
sliced, offset (misaligned for the tensor cores' 16-byte copies) and batched with
broadcasting, so that every kernel variant (SIMT tiles, split-K, GEMV, tensor cores in
all four layouts, their float32 fallback) runs."""

import numpy as np
import pytest

import gpupy as gp
import compare
from helpers import ALL_DTYPES, assert_equal_to_numpy, dtype_id, random_array, unit_roundoff

pytestmark = pytest.mark.gpu

# Accumulation precision of the product kernels, by result dtype.
ACCUM = {
    np.dtype(np.float16): np.float32,
    np.dtype(np.float32): np.float32,
    np.dtype(np.float64): np.float64,
    np.dtype(np.complex64): np.float32,
    np.dtype(np.complex128): np.float64,
}
FLOAT_DTYPES = [np.float16, np.float32, np.float64, np.complex64, np.complex128]
EXACT_DTYPES = [d for d in ALL_DTYPES if np.dtype(d).kind in "biu"]

PRODUCTS = {
    "matmul": lambda a, b: gp.matmul(a, b),
    "operator": lambda a, b: a @ b,
    "dot": lambda a, b: gp.dot(a, b),
    "method": lambda a, b: a.dot(b),
}


def shape_id(shape):
    return "x".join(map(str, shape)) if shape else "0d"


def assert_product_close(got, x, y, tf32=False, product=np.matmul, out_dtype=None):
    """``got`` equals ``product(x, y)`` with NumPy's shape and result dtype: exactly for
    integers and bool, else within ``compare.product_bound`` of the exact product of the
    operands cast to the result dtype (NumPy casts them first; the rounding of an int32
    to float32 is the input's, not the product's). ``tf32``: the product ran with TF32
    on. ``out_dtype``: the dtype of ``got`` when it was written into a wider out=."""
    assert isinstance(got, gp.ndarray), type(got)
    want_dtype = np.result_type(x.dtype, y.dtype)
    xr, yr = x.astype(want_dtype), y.astype(want_dtype)
    k = x.shape[-1] if x.ndim else 1
    accum = ACCUM.get(want_dtype)
    compare.assert_product_close(
        got.get(), xr, yr, accum=accum, tf32=tf32, op=product, k=k,
        dtype=out_dtype or want_dtype, output=want_dtype, err_msg=f"{product.__name__} {x.shape}@{y.shape}",
    )


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
    # gp.dot takes N-d operands (py/python/gpupy/_linalg.py: NumPy's sum over the last
    # axis of a and the second-to-last of b), so the 3-d case runs through it too.
    x, y = random_array(rng, shapes[0], dtype), random_array(rng, shapes[1], dtype)
    got = PRODUCTS[how](gp.asarray(x), gp.asarray(y))
    want = (np.dot if how == "dot" else np.matmul)(x, y)  # k = 0: zeros; m or n = 0: an empty result
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
    if want.dtype.kind == "c":
        # One complex product per element (NumPy's SIMD loop may fuse the multiply-add of
        # re = ar*br - ai*bi): each of gpupy's and NumPy's is within sqrt(2) gamma_2 |s||x|
        # of the exact product, so they differ by at most twice that.
        u = unit_roundoff(want.dtype)
        bound = 2 * np.sqrt(2) * (2 * u / (1 - 2 * u)) * np.abs(s) * np.abs(x)
        assert np.all(np.abs(got.get() - want) <= bound)
    else:
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
    with pytest.raises(ValueError, match="matmul: Output operand 0"):
        z = x.copy()
        z @= y
    a = gp.asarray(x)
    with pytest.raises(ValueError, match="matmul: Output operand 0"):
        a @= gp.asarray(y)
    assert_equal_to_numpy(a, x)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=dtype_id)
@pytest.mark.parametrize("how", list(PRODUCTS))
def test_special_values_in_products(rng, how, dtype):
    """Infinities and NaNs propagate as IEEE sums of products do, in any order: a NaN
    term or inf * 0 gives NaN, +inf and -inf terms give NaN, otherwise the sign of the
    infinities. Elements without specials stay within the product bound."""
    x, y = random_array(rng, (9, 13), dtype), random_array(rng, (13, 7), dtype)
    x[1, 3] = np.inf  # row 1: inf * y[3, :]
    y[3, 2] = 0.0  # ... inf * 0 = NaN in (1, 2)
    x[2, 5] = np.nan  # row 2: all NaN
    x[4, 6] = np.inf
    x[4, 8] = -np.inf  # row 4: inf * y[6, j] + (-inf) * y[8, j]: NaN where the signs agree
    y[9, 4] = -np.inf  # column 4: -inf * x[i, 9]
    x[0, 0] = -0.0
    a, b = gp.asarray(x), gp.asarray(y)
    assert_product_close(PRODUCTS[how](a, b), x, y)
    # The same specials through the transposed (other-layout) operands.
    at = gp.asarray(np.ascontiguousarray(x.T)).T
    bt = gp.asarray(np.ascontiguousarray(y.T)).T
    assert_product_close(PRODUCTS[how](at, bt), x, y)


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
    with pytest.raises(ValueError) as want:  # no match=: NumPy's message is the reference
        np.dot(x, y)
    with pytest.raises(ValueError) as got:  # no match=: compared with NumPy's below
        gp.dot(gp.asarray(x), gp.asarray(y))
    assert str(got.value) == str(want.value)


def test_0d_operands_to_matmul_raise_value_error(rng):
    x, s = random_array(rng, (3, 3), np.float64), random_array(rng, (), np.float64)
    a, z = gp.asarray(x), gp.asarray(s)
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        np.matmul(s, x)
    for call in (
        lambda: gp.matmul(z, a),
        lambda: gp.matmul(a, z),
        lambda: z @ a,
        lambda: a @ z,
        lambda: a @ 2.0,
        lambda: 2.0 @ a,
    ):
        with pytest.raises(ValueError, match=r"Input operand [01] does not have enough dimensions"):
            call()


def test_numpy_operands_raise_type_error(rng):
    x, y = random_array(rng, (3, 4), np.float32), random_array(rng, (4, 2), np.float32)
    a = gp.asarray(x)
    # gpupy's functions refuse NumPy operands and name the type (NumPy would compute).
    for call, words in [
        (lambda: gp.matmul(a, y), r"Unsupported type ndarray \(expected a gpupy\.ndarray\)"),
        (lambda: gp.dot(x, gp.asarray(y)), r"Unsupported type ndarray \(expected a gpupy\.ndarray\)"),
    ]:
        with pytest.raises(TypeError, match=words):
            call()
    assert_product_close(a @ gp.asarray(y), x, y)  # still usable


def test_operators_with_numpy_operands_run_on_the_gpu(rng):
    # The @ operator with a NumPy operand on either side reaches np.matmul, which hands
    # the call to gpupy (NEP 13, ndarray.__array_ufunc__): the product runs on the GPU
    # and is a gpupy array.
    x, y = random_array(rng, (3, 4), np.float32), random_array(rng, (4, 2), np.float32)
    a = gp.asarray(x)
    for got, want_a, want_b in [(a @ y, x, y), (y.T @ a.T, y.T, x.T)]:
        assert isinstance(got, gp.ndarray)
        assert_product_close(got, want_a, want_b)


# --- every dtype, exact integer products ---------------------------------------------


@pytest.mark.parametrize("shapes", [((1, 1), (1, 1)), ((5, 7), (7, 3)), ((33, 65), (65, 17)), ((70, 129), (129, 66))], ids=pair_id)
@pytest.mark.parametrize("dtype", EXACT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("how", list(PRODUCTS))
def test_integer_and_bool_products_are_exact(rng, how, dtype, shapes):
    x, y = random_array(rng, shapes[0], dtype), random_array(rng, shapes[1], dtype)
    got = PRODUCTS[how](gp.asarray(x), gp.asarray(y))
    assert_equal_to_numpy(got, np.matmul(x, y))


@pytest.mark.parametrize("dtype", EXACT_DTYPES, ids=dtype_id)
def test_integer_products_batched_and_transposed(rng, dtype):
    x, y = random_array(rng, (3, 1, 9, 20), dtype), random_array(rng, (4, 11, 20), dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    assert_equal_to_numpy(a @ b.transpose(0, 2, 1), np.matmul(x, y.transpose(0, 2, 1)))
    assert_equal_to_numpy(a[..., ::-2] @ b[0, :, 3:13].T, np.matmul(x[..., ::-2], y[0, :, 3:13].T))
    v = random_array(rng, (20,), dtype)
    assert_equal_to_numpy(a @ gp.asarray(v), np.matmul(x, v))
    assert_equal_to_numpy(gp.asarray(v) @ b.transpose(0, 2, 1), np.matmul(v, y.transpose(0, 2, 1)))


MIXED = [
    (np.int8, np.uint8),
    (np.int32, np.float32),
    (np.int16, np.float16),
    (np.uint64, np.int64),
    (np.bool_, np.int8),
    (np.float16, np.float32),
    (np.float32, np.complex64),
    (np.float64, np.complex64),
    (np.int64, np.complex128),
    (np.bool_, np.float64),
]


@pytest.mark.parametrize("dtypes", MIXED, ids=lambda p: f"{np.dtype(p[0])}-{np.dtype(p[1])}")
@pytest.mark.parametrize("how", ["matmul", "operator", "dot"])
def test_mixed_dtypes_promote_as_numpy(rng, how, dtypes):
    x, y = random_array(rng, (13, 21), dtypes[0]), random_array(rng, (21, 6), dtypes[1])
    assert_product_close(PRODUCTS[how](gp.asarray(x), gp.asarray(y)), x, y)
    assert_product_close(PRODUCTS[how](gp.asarray(y.T), gp.asarray(x.T)), y.T, x.T)


# --- tensor cores and their fallbacks ------------------------------------------------

TC_SHAPES = [
    ((1, 8), (8, 1)),
    ((1, 24), (24, 130)),
    ((130, 24), (24, 1)),
    ((128, 128), (128, 128)),
    ((129, 33), (33, 127)),  # k not a multiple of the 16-byte chunk (partial chunks)
    ((200, 7), (7, 300)),  # k shorter than one chunk of float16
    ((65, 257), (257, 63)),
    ((300, 520), (520, 260)),
]


@pytest.mark.parametrize("shapes", TC_SHAPES, ids=pair_id)
@pytest.mark.parametrize("dtype", [np.float16, np.float64], ids=dtype_id)
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt"])
def test_tensor_core_layouts(rng, layout, dtype, shapes):
    """All four operand orientations (the kernel's k-major / outer-major variants)."""
    x, y = random_array(rng, shapes[0], dtype), random_array(rng, shapes[1], dtype)
    a = gp.asarray(np.ascontiguousarray(x.T)).T if layout[0] == "t" else gp.asarray(x)
    b = gp.asarray(np.ascontiguousarray(y.T)).T if layout[1] == "t" else gp.asarray(y)
    assert_product_close(a @ b, x, y)


@pytest.mark.parametrize("dtype", [np.float16, np.float64], ids=dtype_id)
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt"])
def test_large_tensor_core_tiles(rng, layout, dtype):
    """Grids large enough for the big tiles (float16 128x256, float64 128x128), with
    ragged edges in m and n."""
    x, y = random_array(rng, (2056, 264), dtype), random_array(rng, (264, 8200), dtype)
    a = gp.asarray(np.ascontiguousarray(x.T)).T if layout[0] == "t" else gp.asarray(x)
    b = gp.asarray(np.ascontiguousarray(y.T)).T if layout[1] == "t" else gp.asarray(y)
    assert_product_close(a @ b, x, y)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=dtype_id)
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt", "offset"])
def test_large_simt_tiles(rng, layout, dtype):
    """Exact float32 (and complex64) on the CUDA cores with grids large enough for the
    128x128 tile: aligned operands take its 16-byte-load twin, an offset view (and the
    odd n) the scalar one."""
    m, k, n = 2056, 264, 2052
    x, y = random_array(rng, (m + 1, k + 1), dtype), random_array(rng, (k + 1, n + 1), dtype)
    if layout == "offset":
        a, b = gp.asarray(x)[1:, 1:], gp.asarray(y)[1:, 1:]
        x, y = x[1:, 1:], y[1:, 1:]
    else:
        x, y = x[:m, :k], y[:k, :n]
        a = gp.asarray(np.ascontiguousarray(x.T)).T if layout[0] == "t" else gp.asarray(x)
        b = gp.asarray(np.ascontiguousarray(y.T)).T if layout[1] == "t" else gp.asarray(y)
    got = a @ b
    assert gp.config.matmul_path() == "simt"
    assert_product_close(got, x, y)


def on_hopper():
    return gp.cuda.Device().compute_capability == "90"


WARPGROUP_SHAPES = [
    ((2056, 264), (264, 8200)),  # ragged m and n, k not a multiple of the 64-deep stage
    ((2176, 8), (8, 2304)),  # one partial k tile
    ((1031, 1032), (1032, 4100)),
]


@pytest.mark.parametrize("shapes", WARPGROUP_SHAPES, ids=pair_id)
@pytest.mark.parametrize("dtype", [np.float16, np.float32], ids=dtype_id)
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt", "offset"])
def test_warpgroup_products(rng, layout, dtype, shapes):
    """Products large enough for Hopper's warpgroup kernels (float16, and float32 with
    TF32 on), which read both operands k-major: the other layouts and a misaligned
    offset go through a transposed or aligned copy first. On an H100/H200 the test also
    checks that the warpgroup kernel is the one that ran."""
    (m, k), (_, n) = shapes
    x, y = random_array(rng, (m + 1, k + 8), dtype), random_array(rng, (k + 8, n), dtype)
    if layout == "offset":  # one element in: no 16-byte alignment anywhere
        a, b = gp.asarray(x)[1:, 1 : k + 1], gp.asarray(y)[1 : k + 1]
        x, y = x[1:, 1 : k + 1], y[1 : k + 1]
    else:
        x, y = x[:m, :k], y[:k]
        a = gp.asarray(np.ascontiguousarray(x.T)).T if layout[0] == "t" else gp.asarray(x)
        b = gp.asarray(np.ascontiguousarray(y.T)).T if layout[1] == "t" else gp.asarray(y)
    with gp.config.allow_tf32(dtype == np.float32):
        got = a @ b
        path = gp.config.matmul_path()
    assert_product_close(got, x, y, tf32=dtype == np.float32)
    if on_hopper():
        assert path == "wgmma", path


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=dtype_id)
def test_misaligned_and_strided_operands_fall_back(rng, dtype):
    """Views the tensor cores cannot stream (an odd offset, a row length that is not a
    16-byte multiple, a column step) take the other kernels with the same results."""
    x = random_array(rng, (67, 131), dtype)
    y = random_array(rng, (131, 45), dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    assert_product_close(a[1:, 1:] @ b[1:, :], x[1:, 1:], y[1:, :])
    assert_product_close(a[:, :-3] @ b[:-3, ::2], x[:, :-3], y[:-3, ::2])
    assert_product_close(a[::2] @ b, x[::2], y)
    assert_product_close(a[:, ::-1] @ b, x[:, ::-1], y)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=dtype_id)
def test_tensor_core_batches(rng, dtype):
    x, y = random_array(rng, (3, 1, 40, 72), dtype), random_array(rng, (5, 72, 24), dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    assert_product_close(a @ b, x, y)
    assert_product_close(a @ b[0], x, y[0])
    assert_product_close(b.transpose(0, 2, 1) @ a[0, 0].T, y.transpose(0, 2, 1), x[0, 0].T)


@pytest.mark.parametrize("shapes", [((256, 512), (512, 384)), ((129, 33), (33, 127)), ((4, 100, 40), (40, 72)), ((64, 20000), (20000, 64))], ids=pair_id)
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt"])
def test_tf32_is_opt_in(rng, layout, shapes):
    """float32 is exact float32 by default; ``gpupy.config.allow_tf32()`` trades
    precision (1e-2 normwise) for tensor cores, and restores the setting after."""
    x, y = random_array(rng, shapes[0], np.float32), random_array(rng, shapes[1], np.float32)
    if layout[0] == "t":
        a = gp.asarray(np.ascontiguousarray(np.swapaxes(x, -1, -2)))
        a = gp.swapaxes(a, -1, -2)
    else:
        a = gp.asarray(x)
    b = gp.asarray(np.ascontiguousarray(y.T)).T if layout[1] == "t" else gp.asarray(y)
    assert not gp.config.tf32()
    assert_product_close(a @ b, x, y)
    with gp.config.allow_tf32():
        assert gp.config.tf32()
        assert_product_close(a @ b, x, y, tf32=True)
    assert not gp.config.tf32()
    assert_product_close(a @ b, x, y)


# --- matrix-vector products and split-K ----------------------------------------------

GEMV_SHAPES = [
    ((300, 517), (517,)),
    ((517,), (517, 300)),
    ((1, 4099), (4099, 1)),
    ((4099, 1), (1, 1)),
    ((2, 3, 77, 40), (40, 1)),
    ((1, 40), (6, 40, 77)),
    ((33, 8192), (8192,)),
]


@pytest.mark.parametrize("shapes", GEMV_SHAPES, ids=pair_id)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64], ids=dtype_id)
@pytest.mark.parametrize("transposed", [False, True])
def test_matrix_vector(rng, transposed, dtype, shapes):
    x, y = random_array(rng, shapes[0], dtype), random_array(rng, shapes[1], dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    if transposed and x.ndim >= 2:
        a = gp.swapaxes(gp.asarray(np.ascontiguousarray(np.swapaxes(x, -1, -2))), -1, -2)
    if transposed and y.ndim >= 2:
        b = gp.swapaxes(gp.asarray(np.ascontiguousarray(np.swapaxes(y, -1, -2))), -1, -2)
    assert_product_close(a @ b, x, y)


@pytest.mark.parametrize("shapes", [((64, 65536), (65536, 64)), ((3, 5000), (5000, 2)), ((1, 9999), (9999, 1)), ((100, 3000), (3000, 70))], ids=pair_id)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128], ids=dtype_id)
def test_long_inner_dimension_split_k(rng, dtype, shapes):
    x, y = random_array(rng, shapes[0], dtype), random_array(rng, shapes[1], dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    assert_product_close(a @ b, x, y)
    assert_product_close(b.T @ a.T, y.T, x.T)


@pytest.mark.parametrize("n", [4096, 4097, 65537, 1_000_003])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64, np.complex128],
                         ids=dtype_id)
def test_long_vector_dot_by_reduction(rng, dtype, n):
    """One inner product of long vectors (``x @ y``, ``dot``, ``vdot``, a (1, n) @ (n, 1)
    product), contiguous, strided and reversed: an elementwise product and a sum
    reduction (the "dot" path) within the product bound of ``compare``."""
    x, y = random_array(rng, (2 * n,), dtype), random_array(rng, (2 * n,), dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    cases = [(a[:n], b[:n], x[:n], y[:n]), (a[::2], b[1::2], x[::2], y[1::2]),
             (a[::-2], b[n - 1::-1], x[::-2], y[n - 1::-1])]
    for ga, gb, xa, yb in cases:
        assert_product_close(ga @ gb, xa, yb)
        if dtype != np.float16:
            assert gp.config.matmul_path() == "dot"
        assert_product_close(gp.dot(ga, gb), xa, yb, product=np.dot)
        assert_product_close(ga[None, :] @ gb[:, None], xa[None, :], yb[:, None])
    if np.dtype(dtype).kind == "c":
        # vdot conjugates the first operand: the same product of conj(x) and y.
        got = gp.vdot(a[:n], b[:n])
        assert_product_close(got, np.conj(x[:n]), y[:n], product=np.dot)


# --- out= ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex128, np.int32, np.int8], ids=dtype_id)
def test_out_views_and_casts(rng, dtype):
    x, y = random_array(rng, (2, 17, 33), dtype), random_array(rng, (33, 9), dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    # A strided out (every other column of a wider array, batch-major): written directly.
    big = gp.zeros((2, 17, 18), dtype=dtype)
    view = big[:, :, ::2]
    assert gp.matmul(a, b, out=view) is view
    assert_product_close(view, x, y)
    assert_equal_to_numpy(big[:, :, 1::2], np.zeros((2, 17, 9), dtype))
    # A transposed out.
    outT = gp.zeros((2, 9, 17), dtype=dtype).transpose(0, 2, 1)
    gp.matmul(a, b, out=outT)
    assert_product_close(outT, x, y)
    # A wider dtype (same_kind cast).
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    o = gp.zeros((2, 17, 9), dtype=wide)
    gp.matmul(a, b, out=o)
    want = np.matmul(x, y).astype(wide)
    if np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(o.get(), want)
    else:
        # Computed in the operands' dtype (NumPy's loop), then widened exactly.
        assert_product_close(o, x, y, out_dtype=wide)


def test_out_overlapping_an_input(rng):
    x, y = random_array(rng, (9, 9), np.float64), random_array(rng, (9, 9), np.float64)
    a, b = gp.asarray(x), gp.asarray(y)
    gp.matmul(a, b, out=a)
    assert_product_close(a, x, y)
    a = gp.asarray(x)
    gp.matmul(a, a.T, out=a)
    assert_product_close(a, x, x.T)


def test_out_errors_match_numpy(rng):
    x, y = random_array(rng, (4, 5), np.float64), random_array(rng, (5, 3), np.float64)
    a, b = gp.asarray(x), gp.asarray(y)
    for o in [np.zeros((4, 4)), np.zeros((3, 4)), np.zeros((4, 3, 1)), np.zeros((2, 3))]:
        with pytest.raises(ValueError, match="matmul: Output operand 0"):
            np.matmul(x, y, out=o)
        with pytest.raises(ValueError, match="matmul: Output operand 0"):
            gp.matmul(a, b, out=gp.asarray(o))
    # Like any gufunc, matmul broadcasts its loop axes against out's: extra leading axes
    # of out get copies of the product.
    o, g = np.zeros((2, 4, 3)), gp.zeros((2, 4, 3))
    np.matmul(x, y, out=o)
    assert gp.matmul(a, b, out=g) is g
    assert_product_close(g, np.broadcast_to(x, (2, 4, 5)), np.broadcast_to(y, (2, 5, 3)))
    cast = r"Cannot cast ufunc 'matmul' output from dtype\('float64'\) to dtype\('int64'\) with casting rule 'same_kind'"
    with pytest.raises(TypeError, match=cast):
        np.matmul(x, y, out=np.zeros((4, 3), np.int64))
    with pytest.raises(TypeError, match=cast):
        gp.matmul(a, b, out=gp.zeros((4, 3), dtype=np.int64))
    # dot takes only an exact, C-contiguous out
    with pytest.raises(ValueError, match="output array is not acceptable"):
        np.dot(x, y, out=np.zeros((4, 3), np.float32))
    with pytest.raises(ValueError, match="output array is not acceptable"):
        gp.dot(a, b, out=gp.zeros((4, 3), dtype=np.float32))


def test_matmul_dtype_argument(rng):
    x, y = random_array(rng, (6, 7), np.float64), random_array(rng, (7, 5), np.float64)
    got = gp.matmul(gp.asarray(x), gp.asarray(y), dtype=np.float32)
    assert got.dtype == np.float32
    assert_product_close(got, x.astype(np.float32), y.astype(np.float32))


def test_int_in_place_matmul_with_float_raises_like_numpy(rng):
    x, y = random_array(rng, (4, 4), np.int32), random_array(rng, (4, 4), np.float32)
    cast = r"Cannot cast ufunc 'matmul' output from dtype\('float64'\) to dtype\('int32'\)"
    with pytest.raises(TypeError, match=cast):
        z = x.copy()
        z @= y
    a = gp.asarray(x)
    with pytest.raises(TypeError, match=cast):
        a @= gp.asarray(y)
    assert_equal_to_numpy(a, x)


# ---------------------------------------------------------------------------------------
# c -= a @ b in the product kernels' store (`_gpupy._matmul_sub`, the blocked
# factorizations' trailing updates)

SUB_DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def assert_sub_close(got, c0, a, b):
    """``got`` is ``c0 - a @ b``: within ``compare.product_bound`` for the product plus
    one rounding of the subtraction (``u (|c0| + |a @ b|)``), per element."""
    exact, bound = compare.product_bound(a, b, a.shape[-1], accum=ACCUM[np.dtype(c0.dtype)], output=c0.dtype)
    want = c0 - exact
    u = unit_roundoff(c0.dtype)
    total = bound + u * (np.abs(c0) + np.abs(exact)) * (np.sqrt(2) if c0.dtype.kind == "c" else 1)
    err = np.abs(np.asarray(got) - want)
    assert got.dtype == c0.dtype
    assert np.all(err <= total), f"max excess {np.max(err - total)}"


@pytest.mark.parametrize("dtype", SUB_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", [((1, 1), (1, 1)), ((1, 9), (9, 1)), ((9, 1), (1, 9)), ((17, 33), (33, 9)),
                                    ((127, 129), (129, 131)), ((3, 1000), (1000, 2)), ((300, 2000), (2000, 40)),
                                    ((257, 63), (63, 513)), ((2, 33, 17), (17, 40)), ((0, 5), (5, 3))],
                         ids=pair_id)
def test_matmul_sub(rng, dtype, shapes):
    """Every path a subtraction takes (SIMT tiles, split-K with the subtraction in the
    sum, FP64 tensor cores, shapes that would be GEMV or a dot without one) against
    ``c0 - a @ b``; ``c`` a transposed view (column stride not 1) too."""
    from gpupy import _gpupy

    sa, sb = shapes
    a, b = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
    c_shape = np.broadcast_shapes(sa[:-2], sb[:-2]) + (sa[-2], sb[-1])
    c0 = random_array(rng, c_shape, dtype)
    c = gp.asarray(c0)
    _gpupy._matmul_sub(gp.asarray(a), gp.asarray(b), c)
    assert_sub_close(c.get(), c0, a, b)
    ct = gp.asarray(np.ascontiguousarray(np.swapaxes(c0, -1, -2)))
    _gpupy._matmul_sub(gp.asarray(a), gp.asarray(b), gp.swapaxes(ct, -1, -2))
    assert_sub_close(np.swapaxes(ct.get(), -1, -2), c0, a, b)


@pytest.mark.parametrize("dtype", [np.float64, np.complex64], ids=dtype_id)
@pytest.mark.parametrize("batch", [1, 3])
def test_matmul_sub_blocks_of_one_matrix(rng, dtype, batch):
    """LU's update ``A22 -= L21 @ U12`` on views of one matrix (fused: the blocks are
    apart), and ``c`` overlapping ``b`` (the product first, then the subtraction, as
    NumPy's ``c -= a @ b``)."""
    from gpupy import _gpupy

    m0 = random_array(rng, (batch, 150, 170), dtype)
    g = gp.asarray(m0)
    _gpupy._matmul_sub(g[:, 40:, :40], g[:, :40, 40:], g[:, 40:, 40:])
    want = m0.copy()
    assert_sub_close(gp.asnumpy(g)[:, 40:, 40:], m0[:, 40:, 40:], m0[:, 40:, :40], m0[:, :40, 40:])
    want[:, 40:, 40:] = gp.asnumpy(g)[:, 40:, 40:]
    np.testing.assert_array_equal(gp.asnumpy(g), want)  # nothing else written
    g = gp.asarray(m0)
    _gpupy._matmul_sub(g[:, :100, :100], g[:, :100, 80:150], g[:, :100, 100:])
    assert_sub_close(gp.asnumpy(g)[:, :100, 100:], m0[:, :100, 100:], m0[:, :100, :100], m0[:, :100, 80:150])


def test_matmul_sub_other_dtypes_and_errors(rng):
    """Integer and float16 operands take the unfused way (exact for integers); mixed
    dtypes and shapes that do not make ``c -= a @ b`` raise."""
    from gpupy import _gpupy

    a, b = rng.integers(-9, 9, (20, 30)).astype(np.int32), rng.integers(-9, 9, (30, 7)).astype(np.int32)
    c0 = rng.integers(-99, 99, (20, 7)).astype(np.int32)
    c = gp.asarray(c0)
    _gpupy._matmul_sub(gp.asarray(a), gp.asarray(b), c)
    np.testing.assert_array_equal(c.get(), c0 - a @ b)
    h = [gp.asarray(x.astype(np.float16)) for x in (a, b, c0)]
    _gpupy._matmul_sub(*h)
    assert h[2].dtype == np.float16
    with pytest.raises(TypeError):
        _gpupy._matmul_sub(gp.asarray(a), gp.asarray(b), gp.asarray(c0.astype(np.float64)))
    with pytest.raises(ValueError, match="do not make"):
        _gpupy._matmul_sub(gp.asarray(a), gp.asarray(b), gp.asarray(c0[:, :6]))
    with pytest.raises(ValueError, match="do not make"):
        _gpupy._matmul_sub(gp.asarray(a[None].repeat(2, 0)), gp.asarray(b), c)
