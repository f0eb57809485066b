"""bfloat16 (ml_dtypes' type, which NumPy can hold but not define) against NumPy with
ml_dtypes: transfers and casts bit for bit, ufuncs and reductions (computed in float32
and rounded, as ml_dtypes' loops do), sorting, and matrix products on tensor cores
(float32 accumulation and, as NumPy's matmul for bfloat16, a float32 result).

Products are compared elementwise with the exact product of the same bfloat16 values (exact
in float32 and in their float64 products) within ``compare.product_bound``: float32
accumulation, gamma_k(2**-24) sum |a||b|, and one rounding to the result dtype."""

import numpy as np
import pytest

import compare
from helpers import ALL_DTYPES, assert_close, dtype_id, raises_like, random_array, ufunc_ulps, unit_roundoff

ml_dtypes = pytest.importorskip("ml_dtypes", reason="bfloat16 needs the ml_dtypes package")
import gpupy as gp  # noqa: E402

pytestmark = pytest.mark.gpu

BF16 = np.dtype(ml_dtypes.bfloat16)
SHAPES = [(), (0,), (1,), (7,), (33, 65), (3, 1, 257)]


def shape_id(shape):
    return "x".join(map(str, shape)) if shape else "0d"


def rand_bf16(rng, shape, scale=1.0):
    return np.asarray(rng.uniform(-scale, scale, size=shape)).astype(BF16)


def bits(x):
    return np.asarray(x).view(np.uint16)


def assert_same_bits(got, want, signed_zeros=True):
    """Bit for bit, except that any NaN matches any NaN (payloads and their signs differ
    between the GPU's float32 functions and the CPU's); with ``signed_zeros=False`` a
    zero of either sign matches too."""
    assert isinstance(got, gp.ndarray), type(got)
    assert got.dtype == want.dtype, f"dtype: gpupy {got.dtype}, numpy {want.dtype}"
    assert got.shape == want.shape, f"shape: gpupy {got.shape}, numpy {want.shape}"
    g = got.get()
    if want.dtype != BF16:
        np.testing.assert_array_equal(g, want)
        return
    gf, wf = g.astype(np.float32), want.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(gf), np.isnan(wf))
    keep = ~np.isnan(wf) & (signed_zeros | (wf != 0))
    np.testing.assert_array_equal(bits(g)[keep], bits(want)[keep])


def test_exported_dtype():
    assert gp.bfloat16 is ml_dtypes.bfloat16
    assert gp.zeros(3, dtype=gp.bfloat16).dtype == BF16


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
def test_round_trip_and_views(rng, shape):
    x = rand_bf16(rng, shape, 100.0)
    a = gp.asarray(x)
    assert a.dtype == BF16 and a.itemsize == 2 and a.nbytes == x.nbytes
    assert_same_bits(a, x)
    if x.ndim >= 2:
        assert_same_bits(a.T, x.T)
        assert_same_bits(a[..., ::-2, 1:], x[..., ::-2, 1:])
        assert_same_bits(a.T.copy(), x.T.copy())
        assert_same_bits(a[::2].reshape(-1), x[::2].reshape(-1))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_casts_to_and_from_bfloat16(rng, dtype):
    """Every dtype to bfloat16 and back, with ml_dtypes' rounding (through float32)."""
    x = random_array(rng, (5, 37), dtype)
    assert_same_bits(gp.asarray(x).astype(BF16), x.astype(BF16))
    assert_same_bits(gp.asarray(x)[:, ::3].astype(BF16), x[:, ::3].astype(BF16))
    y = rand_bf16(rng, (5, 37), 100.0)
    if np.dtype(dtype).kind == "u":
        y = abs(y)
    with np.errstate(invalid="ignore"):
        want = y.astype(dtype)
    assert_same_bits(gp.asarray(y).astype(dtype), want)


def test_rounding_edges():
    """Ties to even, overflow to infinity, NaN, signed zero, float64 rounded twice."""
    x = np.array([1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 3.4e38, -3.4e38, np.nan, -0.0, 1 + 2**-8 + 2**-30, 1e-40], np.float64)
    assert_same_bits(gp.asarray(x).astype(BF16), x.astype(BF16))
    f = x.astype(np.float32)
    assert_same_bits(gp.asarray(f).astype(BF16), f.astype(BF16))


BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "less", "equal", "arctan2", "hypot", "floor_divide", "remainder", "power", "copysign"]
UNARY = ["negative", "absolute", "square", "sqrt", "exp", "log1p", "sin", "tanh", "floor", "rint", "sign", "isnan", "isfinite", "signbit"]
# Ops whose float32 result can sit on a bfloat16 rounding boundary where the GPU's and
# the CPU's float32 functions differ by one float32 ulp: compared to one bfloat16 ulp.
TRANSCENDENTAL = {"arctan2", "hypot", "power", "sqrt", "exp", "log1p", "sin", "tanh"}


def assert_ufunc_matches(name, got, want):
    if name not in TRANSCENDENTAL or want.dtype.kind == "b":
        # NumPy's float32 sign(-0.0) is +0.0; ml_dtypes' keeps -0.0.
        assert_same_bits(got, want, signed_zeros=name != "sign")
        return
    if want.dtype == BF16:
        # Both are float32 results (libdevice's and NumPy's, each within a few float32
        # ulps of exact) rounded once to bfloat16: equal or adjacent, 1 bfloat16 ulp.
        assert_close(got.get(), want, 1, err_msg=name)
    else:
        # A float32 result (bfloat16 with a Python float): libdevice's bound plus
        # NumPy's own float32 error (helpers.ufunc_ulps).
        assert_close(got.get(), want, ufunc_ulps(name, want.dtype, False), err_msg=name)


@pytest.mark.parametrize("name", BINARY)
def test_binary_ufuncs(rng, name):
    x, y = rand_bf16(rng, (31, 67), 4.0), rand_bf16(rng, (67,), 4.0)
    if name in ("power",):
        x = abs(x)
    a, b = gp.asarray(x), gp.asarray(y)
    np_f, gp_f = getattr(np, name), getattr(gp, name)
    with np.errstate(all="ignore"):
        assert_ufunc_matches(name, gp_f(a, b), np_f(x, y))  # broadcast
        assert_ufunc_matches(name, gp_f(a[:30:2, ::-1], a[1::2, :]), np_f(x[:30:2, ::-1], x[1::2, :]))
        assert_ufunc_matches(name, gp_f(a, 1.5), np_f(x, 1.5))  # weak scalar (NumPy: float32)
        assert_ufunc_matches(name, gp_f(a, BF16.type(0.75)), np_f(x, BF16.type(0.75)))
        assert_ufunc_matches(name, gp_f(a[0, 0], b[3]), np_f(x[0, 0], y[3]))  # 0-d


@pytest.mark.parametrize("name", UNARY)
def test_unary_ufuncs(rng, name):
    x = rand_bf16(rng, (3, 129), 8.0)
    x[0, :3] = [np.nan, np.inf, -0.0]
    if name in ("sqrt", "log1p"):
        x = abs(x)
    a = gp.asarray(x)
    np_f, gp_f = getattr(np, name), getattr(gp, name)
    with np.errstate(all="ignore"):
        assert_ufunc_matches(name, gp_f(a), np_f(x))
        assert_ufunc_matches(name, gp_f(a.T), np_f(x.T))
        assert_ufunc_matches(name, gp_f(a[:0]), np_f(x[:0]))


@pytest.mark.parametrize("other", [np.bool_, np.int8, np.uint8, np.int16, np.float16, np.float32, np.float64, np.complex64], ids=dtype_id)
def test_mixed_dtypes_follow_numpy(rng, other):
    """bfloat16 with int8/uint8/bool stays bfloat16; with wider types NumPy's float32 (or
    wider) loop runs."""
    x, y = rand_bf16(rng, (9, 10), 4.0), random_array(rng, (10,), other)
    want = np.add(x, y)
    assert_same_bits(gp.add(gp.asarray(x), gp.asarray(y)), want)
    if want.dtype.kind != "c":
        out = gp.zeros(want.shape, np.float64)
        gp.add(gp.asarray(x), gp.asarray(y), out=out)
        np.testing.assert_array_equal(out.get(), want.astype(np.float64))


def test_out_and_nextafter(rng):
    x = rand_bf16(rng, (50,), 4.0)
    a = gp.asarray(x)
    out = gp.empty((50,), BF16)
    r = gp.multiply(a, a, out=out)
    assert r is out
    assert_same_bits(out, x * x)
    # ml_dtypes steps by a bfloat16 ulp; gpupy has no such loop (its own message: NumPy has one).
    with pytest.raises(TypeError, match="gpupy has no nextafter kernel for bfloat16"):
        gp.nextafter(a, a)


@pytest.mark.parametrize("shape,axis", [((1000,), None), ((37, 129), 0), ((37, 129), 1), ((4, 5, 6), (0, 2)), ((0, 4), 0), ((), None)], ids=str)
@pytest.mark.parametrize("op", ["sum", "mean", "max", "min", "argmax", "argmin", "prod", "var"])
def test_reductions(rng, op, shape, axis):
    """Reductions accumulate in float32 and round once (NumPy with ml_dtypes accumulates
    in bfloat16): compared with the float64 reduction of the same values, within one
    bfloat16 ulp of the result's scale."""
    x = rand_bf16(rng, shape, 2.0)
    if op in ("argmax", "argmin") and axis is not None and not isinstance(axis, int):
        # NumPy's argmax takes one axis: gpupy refuses a tuple with NumPy's TypeError.
        raises_like(lambda: getattr(gp.asarray(x), op)(axis=axis), lambda: getattr(x, op)(axis=axis),
                    match="cannot be interpreted as an integer")
        return
    if op == "prod":
        x = (1 + x.astype(np.float32) / 64).astype(BF16)
    a = gp.asarray(x)
    if 0 in shape and op in ("max", "min", "argmax", "argmin"):
        raises_like(lambda: getattr(a, op)(axis=axis), lambda: getattr(x, op)(axis=axis),
                    match="zero-size array to reduction operation|attempt to get arg(max|min) of an empty sequence")
        return
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = getattr(x, op)(axis=axis)
            ref = getattr(x.astype(np.float64), op)(axis=axis)
            got = getattr(a, op)(axis=axis)
    assert got.dtype == np.asarray(want).dtype, f"dtype: gpupy {got.dtype}, numpy {np.asarray(want).dtype}"
    assert got.shape == np.shape(want)
    g = got.get().astype(np.float64)
    if op in ("max", "min", "argmax", "argmin"):
        np.testing.assert_array_equal(g, np.asarray(want).astype(np.float64))
        return
    # Derived bound: terms accumulate in float32 (gamma_m(2**-24) times the sum of |terms|,
    # m = n + 4 roundings in any order; var: terms |x - k|^2 <= 2|x|^2 + 2 max|x|^2, two
    # sums), the float64 reference adds its own (2**-53), then one rounding of the result
    # to bfloat16 (2**-8 |exact|) after mean's division (2**-24 |exact|).
    ref = np.asarray(ref)
    w = np.abs(x.astype(np.float64))
    n = x.size // max(ref.size, 1) if x.size else 0
    m = n + 4
    uu = 2.0**-24 + 2.0**-53
    gamma = m * uu / (1 - m * uu)
    with np.errstate(all="ignore"):
        if op == "sum":
            acc = gamma * np.sum(w, axis=axis)
        elif op == "mean":
            acc = gamma * np.mean(w, axis=axis) if x.size else 0.0
        elif op == "prod":
            acc = gamma * np.abs(ref)
        else:  # var
            acc = 2 * gamma * (2 * np.mean(w**2, axis=axis) + 2 * np.max(w**2, axis=axis, initial=0.0)) if x.size else 0.0
    bound = (2.0**-8 + 2.0**-24) * np.abs(ref) + acc + compare.half_subnormal("bfloat16")
    compare.assert_nonfinite_match(g, ref, op)
    fin = np.isfinite(ref)
    err = np.abs(g - ref)
    assert np.all(err[fin] <= np.broadcast_to(bound, ref.shape)[fin]), f"{op}: max error {np.max(err[fin] - np.broadcast_to(bound, ref.shape)[fin])} over the bound"


@pytest.mark.parametrize("shape", [(1000,), (7, 300), (0,)], ids=shape_id)
def test_sort_and_search(rng, shape):
    x = rand_bf16(rng, shape, 10.0)
    a = gp.asarray(x)
    assert_same_bits(gp.sort(a), np.sort(x))
    idx = gp.argsort(a).get()
    np.testing.assert_array_equal(bits(np.take_along_axis(x, idx, -1)), bits(np.sort(x)))
    if x.ndim == 1:
        s = np.sort(x)
        v = rand_bf16(rng, (50,), 12.0)
        got = gp.searchsorted(gp.asarray(s), gp.asarray(v))
        np.testing.assert_array_equal(got.get(), np.searchsorted(s.astype(np.float32), v.astype(np.float32)))


def assert_product_close(got, x, y):
    """NumPy's dtype; every element within compare.product_bound of the exact product of
    the same values (bfloat16, float16 and int8 are exact in float32), accumulated in
    float32 and rounded once to the result dtype."""
    want = np.matmul(x, y)
    assert got.dtype == want.dtype, f"dtype: gpupy {got.dtype}, numpy {want.dtype}"
    k = x.shape[-1] if x.ndim else 1
    compare.assert_product_close(
        got.get().astype(np.float32), x.astype(np.float32), y.astype(np.float32), accum=np.float32,
        k=k, dtype=np.float32, output=want.dtype, err_msg=f"bfloat16 product {x.shape}@{y.shape}",
    )


PRODUCT_SHAPES = [
    ((1, 1), (1, 1)),
    ((1, 9), (9, 1)),
    ((17, 33), (33, 9)),
    ((127, 136), (136, 131)),
    ((256, 512), (512, 384)),
    ((64, 20000), (20000, 64)),  # split along k
    ((0, 8), (8, 5)),
    ((9,), (9, 16)),
    ((16, 24), (24,)),
    ((3, 1, 40, 72), (5, 72, 24)),  # batched with broadcasting
]


@pytest.mark.parametrize("shapes", PRODUCT_SHAPES, ids=lambda p: f"{shape_id(p[0])}@{shape_id(p[1])}")
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "offset"])
def test_products(rng, layout, shapes):
    x, y = rand_bf16(rng, shapes[0]), rand_bf16(rng, shapes[1])
    if layout == "offset" and x.ndim == 2 and y.ndim == 2:  # one element in: misaligned
        xb, yb = rand_bf16(rng, (x.shape[0] + 1, x.shape[1] + 1)), rand_bf16(rng, (y.shape[0] + 1, y.shape[1]))
        a, b = gp.asarray(xb)[1:, 1:], gp.asarray(yb)[1:]
        x, y = xb[1:, 1:], yb[1:]
    else:
        t = lambda v: np.ascontiguousarray(np.swapaxes(v, -1, -2))  # noqa: E731
        a = gp.swapaxes(gp.asarray(t(x)), -1, -2) if layout[0] == "t" and x.ndim > 1 else gp.asarray(x)
        b = gp.swapaxes(gp.asarray(t(y)), -1, -2) if layout[1:] == "t" and y.ndim > 1 else gp.asarray(y)
    got = a @ b
    assert_product_close(got, x, y)
    if shapes[0] == (256, 512) and layout != "offset" and int(gp.cuda.Device().compute_capability) >= 80:
        assert gp.config.matmul_path() == "mma", gp.config.matmul_path()


@pytest.mark.parametrize("shapes", [((2056, 264), (264, 8200)), ((1031, 1032), (1032, 4100))], ids=str)
@pytest.mark.parametrize("layout", ["nn", "tn", "nt"])
def test_warpgroup_products(rng, layout, shapes):
    """Large products: Hopper's warpgroup kernel (checked on compute capability 9.0)."""
    x, y = rand_bf16(rng, shapes[0]), rand_bf16(rng, shapes[1])
    a = gp.asarray(np.ascontiguousarray(x.T)).T if layout[0] == "t" else gp.asarray(x)
    b = gp.asarray(np.ascontiguousarray(y.T)).T if layout[1] == "t" else gp.asarray(y)
    got = a @ b
    path = gp.config.matmul_path()
    assert_product_close(got, x, y)
    if gp.cuda.Device().compute_capability == "90":
        assert path == "wgmma", path


@pytest.mark.parametrize("other", [np.int8, np.float16, np.float32], ids=dtype_id)
def test_mixed_products(rng, other):
    x, y = rand_bf16(rng, (33, 40)), random_array(rng, (40, 17), other)
    assert_product_close(gp.asarray(x) @ gp.asarray(y), x, y)


def test_linalg_compositions(rng):
    """dot, vdot, inner, outer, tensordot, einsum, trace and norms take bfloat16 and agree
    with the float64 result of the same values within bfloat16 rounding."""
    x, y, v = rand_bf16(rng, (12, 16)), rand_bf16(rng, (16, 9)), rand_bf16(rng, (16,))
    a, b, w = gp.asarray(x), gp.asarray(y), gp.asarray(v)
    f = lambda t: t.astype(np.float64)  # noqa: E731
    fa = lambda t: np.abs(t.astype(np.float64))  # noqa: E731
    # (gpupy result, exact result, the same computation on |x|, number of terms k).
    cases = [
        (gp.dot(a, b), f(x) @ f(y), fa(x) @ fa(y), 16),
        (gp.vdot(w, w), np.vdot(f(v), f(v)), np.vdot(fa(v), fa(v)), 16),
        (gp.inner(a, w), np.inner(f(x), f(v)), np.inner(fa(x), fa(v)), 16),
        (gp.outer(w, w), np.outer(f(v), f(v)), np.outer(fa(v), fa(v)), 1),
        (gp.tensordot(a, b, 1), np.tensordot(f(x), f(y), 1), np.tensordot(fa(x), fa(y), 1), 16),
        (gp.einsum("ij,jk->ik", a, b), f(x) @ f(y), fa(x) @ fa(y), 16),
        (gp.trace(a), np.trace(f(x)), np.trace(fa(x)), 12),
        # Norms: sums of non-negative terms (x^2, |x|) and a square root.
        (gp.linalg.norm(a), np.linalg.norm(f(x)), np.linalg.norm(f(x)), 12 * 16 + 2),
        (gp.linalg.norm(w, 1), np.linalg.norm(f(v), 1), np.linalg.norm(f(v), 1), 16),
    ]
    for got, ref, absref, k in cases:
        # gamma_{k+1}(2**-24) * 2 (float32 accumulation, tensor-core rounding allowance) on
        # the |x| computation, and one rounding to the result dtype (bfloat16 or float32).
        u_out = unit_roundoff(got.dtype)
        uu = 2.0**-24 + 2.0**-53
        bound = 2 * (k + 1) * uu / (1 - (k + 1) * uu) * absref + u_out * np.abs(ref)
        g = np.asarray(gp.asnumpy(got)).astype(np.float64)
        assert np.all(np.abs(g - ref) <= bound), (got.dtype, np.max(np.abs(g - ref) - bound))
