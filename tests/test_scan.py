"""Scans (cumsum, cumprod, nancumsum, nancumprod, cumulative_sum/prod, diff) and counting
(bincount, histogram) against NumPy.

Integers and bool must equal NumPy exactly (int64/uint64 wrap the same way). Floats are
compared with a higher-precision reference (float64 for float16/float32, long double for
float64, complex likewise): gpupy scans float16 in float32 and float32 in float64 and
rounds once, so a result may differ from NumPy's serial loop in the dtype itself, but
must lie within a few units of rounding of the exact scan. Histogram counts are exact;
weighted sums are compared within float64 rounding of the sums.
"""

import re
import warnings

import numpy as np
import pytest

import compare
import gpupy as gp
from helpers import (
    ALL_DTYPES,
    SAMPLE_DTYPES,
    VIEW_FUNCS_1D,
    VIEW_FUNCS_2D,
    VIEW_IDS_1D,
    VIEW_IDS_2D,
    assert_close,
    assert_equal_to_numpy,
    assert_exact,
    assert_nonfinite_match,
    dtype_id,
    unit_roundoff,
    raises_like,
    random_array,
)

pytestmark = pytest.mark.gpu

SCANS = ["cumsum", "cumprod", "nancumsum", "nancumprod"]
LONGDOUBLE_IS_WIDER = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps


def shape_id(shape):
    return "x".join(map(str, shape)) if shape else "0d"


def scan_input(rng, name, shape, dtype, nans=True):
    """Random data for scan `name`: products use values near 1 so long scans neither
    vanish nor overflow; the nan variants get NaNs at random places."""
    dt = np.dtype(dtype)
    x = np.array(random_array(rng, shape, dt))
    if "prod" in name and dt.kind in "fc":
        x = np.array(1.0 + 0.01 * random_array(rng, shape, dt), dtype=dt)
    if nans and name.startswith("nan") and dt.kind in "fc" and x.size:
        mask = rng.random(x.shape) < 0.05
        x[mask] = np.nan
    return x


def wide_dtype(dt):
    """The dtype of the high-precision reference for a float or complex result dtype."""
    if dt.kind == "c":
        return np.clongdouble if dt == np.complex128 and LONGDOUBLE_IS_WIDER else np.complex128
    return np.longdouble if dt == np.float64 and LONGDOUBLE_IS_WIDER else np.float64


def reference(name, x, axis, dtype=None):
    """NumPy's result dtype, and the exact-ish scan in a wider float for float results."""
    f = getattr(np, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = f(x, axis=axis, dtype=dtype)
        if want.dtype.kind not in "fc":
            return want, None
        # NumPy converts every element to the result dtype first, then accumulates.
        xs = x.astype(want.dtype) if x.dtype.kind in "fc" or want.dtype.kind in "fc" else x
        return want, f(xs.astype(wide_dtype(want.dtype)), axis=axis)


def assert_scan_close(got, name, x, axis=None, dtype=None):
    want, exact = reference(name, x, axis, dtype)
    assert isinstance(got, gp.ndarray), type(got)
    g = got.get()
    assert g.dtype == want.dtype, f"dtype: gpupy {g.dtype}, numpy {want.dtype}"
    assert g.shape == want.shape, f"shape: gpupy {g.shape}, numpy {want.shape}"
    if exact is None:
        np.testing.assert_array_equal(g, want, strict=True)
        return
    wide = np.complex128 if want.dtype.kind == "c" else np.float64
    scale = None
    if "sum" in name:
        scale = np.cumsum(np.nan_to_num(np.abs(x.astype(wide))), axis=axis).reshape(g.shape)
    n = x.size if axis is None else (x.shape[axis] if x.ndim else 1)
    assert_scan_result(g, want, exact, scale, n, name)


def assert_scan_result(g, want, exact, scale, n, name):
    """compare.assert_scan_result with gpupy's scan accumulators (kernels/src/scan.rs:
    float16 in float32, every other float in float64)."""
    accum = np.float32 if want.dtype == np.float16 else np.float64
    compare.assert_scan_result(g, want, exact, scale, n, accum, name)


# ---------------------------------------------------------------------------------------
# cumsum, cumprod, nancumsum, nancumprod


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", SCANS)
def test_every_dtype(rng, name, dtype):
    x = scan_input(rng, name, (1003,), dtype)
    assert_scan_close(getattr(gp, name)(gp.asarray(x)), name, x)


SHAPES_AXES = [
    ((), None),
    ((), 0),
    ((), -1),
    ((0,), None),
    ((0,), 0),
    ((1,), 0),
    ((7,), 0),
    ((9,), -1),
    ((257,), 0),
    ((2049,), 0),
    ((3, 0, 4), 1),
    ((3, 0, 4), 2),
    ((5, 1), 0),
    ((5, 1), 1),
    ((33, 257), 0),
    ((33, 257), 1),
    ((33, 257), None),
    ((4, 5, 6), 0),
    ((4, 5, 6), 1),
    ((4, 5, 6), 2),
    ((4, 5, 6), -2),
    ((2, 3, 4, 5), 2),
    ((1000, 5), 1),  # short lines: one thread per line
    ((5, 1000), 0),  # short columns
]


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.complex64], ids=dtype_id)
@pytest.mark.parametrize("shape,axis", SHAPES_AXES, ids=[f"{shape_id(s)}-ax{a}" for s, a in SHAPES_AXES])
@pytest.mark.parametrize("name", SCANS)
def test_shapes_and_axes(rng, name, shape, axis, dtype):
    x = scan_input(rng, name, shape, dtype)
    assert_scan_close(getattr(gp, name)(gp.asarray(x), axis=axis), name, x, axis)


# Shapes that exercise every launch plan: long rows cut into parts (reduce, scan of the
# totals, scan), strided single lines, columns with and without parts, many short rows.
LARGE = [
    ((2**20 + 3,), 0),
    ((1, 2**20 + 3), 1),
    ((2**20 + 3, 3), 0),  # three lines of stride 3: cooperative, strided
    ((2**16 + 1, 40), 0),  # 40 adjacent columns: one thread per column, in parts
    ((40, 2**16 + 1), 1),
    ((3001, 300), 0),
    ((300, 3001), 1),
    ((2**18 + 1, 3), 1),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint8, np.float16, np.complex128], ids=dtype_id)
@pytest.mark.parametrize("shape,axis", LARGE, ids=[f"{shape_id(s)}-ax{a}" for s, a in LARGE])
@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumsum"])
def test_large(rng, name, shape, axis, dtype):
    x = scan_input(rng, name, shape, dtype)
    assert_scan_close(getattr(gp, name)(gp.asarray(x), axis=axis), name, x, axis)


def test_float32_cumsum_is_accurate(rng):
    """The issue's accuracy bar: a float32 cumsum of 2**20 + 3 values in [0, 1) within one
    rounding (plus float64 noise) of the float64 cumsum of the same values."""
    x = rng.random(2**20 + 3, dtype=np.float32)
    got = gp.cumsum(gp.asarray(x)).get()
    exact = np.cumsum(x.astype(np.float64))
    rel = np.abs(got.astype(np.float64) - exact) / exact
    assert rel.max() <= 2 * np.finfo(np.float32).eps, rel.max()


@pytest.mark.parametrize("view", VIEW_FUNCS_1D, ids=VIEW_IDS_1D)
@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumprod"])
def test_views_1d(rng, name, view):
    base = scan_input(rng, name, (4099,), np.float64)
    x = view(base)
    assert_scan_close(getattr(gp, name)(view(gp.asarray(base))), name, x)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("dtype", [np.float32, np.int16], ids=dtype_id)
def test_views_2d(rng, dtype, view, axis):
    base = scan_input(rng, "cumsum", (67, 301), dtype)
    x = view(base)
    assert_scan_close(gp.cumsum(view(gp.asarray(base)), axis=axis), "cumsum", x, axis)
    assert_scan_close(view(gp.asarray(base)).cumsum(axis=axis), "cumsum", x, axis)


@pytest.mark.parametrize(
    "in_dtype,dtype",
    [
        (np.int8, np.float64),
        (np.float64, np.int32),
        (np.float32, np.bool_),
        (np.int64, np.int8),
        (np.uint16, np.uint8),
        (np.float32, np.float16),
        (np.float32, np.complex128),
        (np.bool_, np.bool_),
        (np.int32, np.uint64),
        (np.float64, np.float32),
    ],
    ids=lambda d: np.dtype(d).name,
)
@pytest.mark.parametrize("name", SCANS)
def test_dtype_argument(rng, name, in_dtype, dtype):
    x = scan_input(rng, name, (33, 65), in_dtype)
    if np.dtype(in_dtype).kind == "f" and np.dtype(dtype).kind in "iu":
        x = (x * 100).astype(in_dtype)
    assert_scan_close(getattr(gp, name)(gp.asarray(x), axis=1, dtype=dtype), name, x, 1, dtype)


def test_nan_variants_replace_before_integer_dtype(rng):
    x = scan_input(rng, "nancumsum", (100,), np.float64) * 50
    got = gp.nancumsum(gp.asarray(x), dtype=np.int64)
    assert_equal_to_numpy(got, np.nancumsum(x, dtype=np.int64))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=dtype_id)
def test_complex_cumprod_of_a_first_element_with_negative_zero(dtype):
    """NumPy's cumprod starts from the first element. Complex multiplication has no exact
    identity ((1+0j)(2-0j) has imaginary part +0.0), so the scan's identity is a marker
    that is never multiplied (kernels/src/scan/mod.rs): a -0.0 part stays -0.0, and
    (-1+0j)(-1+0j) is 1-0j as in NumPy, in every tile position."""
    x = np.array([2 - 0j, 1j], dtype=dtype)
    x[0] = complex(2.0, -0.0)
    assert_exact(gp.cumprod(gp.asarray(x)).get(), np.cumprod(x))
    for n in (2, 3, 1000, 70001):  # one thread, one tile, several tiles (look-back)
        y = np.full(n, -1 + 0j, dtype=dtype)
        y[1::7] = complex(1.0, -0.0)
        assert_exact(gp.cumprod(gp.asarray(y)).get(), np.cumprod(y))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64], ids=dtype_id)
def test_float_specials(request, dtype):
    """Signed zeros, infinities and NaN propagate as in NumPy's serial scan: bit-exact."""
    sub = float(np.finfo(np.float16 if dtype == np.float16 else np.float32).smallest_subnormal)
    x = np.array([-0.0, -0.0, sub, -sub, 1.0, np.inf, -np.inf, 2.0, np.nan, 3.0], dtype=dtype)
    # Complex products with infinities: NumPy's naive formula and gpupy's may place NaNs
    # in different components (C99 leaves it open); complex sums are componentwise.
    for name in SCANS if np.dtype(dtype).kind == "f" else ["cumsum", "nancumsum"]:
        with np.errstate(invalid="ignore"):
            want = getattr(np, name)(x)
        assert_exact(getattr(gp, name)(gp.asarray(x)).get(), want, err_msg=name)
    big = np.array([np.finfo(np.float16 if dtype == np.float16 else np.float32).max] * 3, dtype=dtype)
    with np.errstate(over="ignore"):
        # Overflow to inf as NumPy (gpupy's wide accumulator rounds once, NumPy per step:
        # max + max is past the dtype's range in both).
        assert_exact(gp.cumsum(gp.asarray(big)).get(), np.cumsum(big), err_msg="cumsum overflow")


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_out(rng, name):
    x = scan_input(rng, name, (20, 30), np.float64)
    gx = gp.asarray(x)
    # out of the result dtype, as a strided view: written in place.
    base = gp.zeros((20, 60))
    out = base[:, ::2]
    r = getattr(gp, name)(gx, axis=1, out=out)
    assert r is out
    assert_scan_close(out, name, x, 1)
    assert np.all(base.get()[:, 1::2] == 0)
    # out of another dtype: computed in float64, cast into out.
    out32 = gp.empty((20, 30), np.float32)
    getattr(gp, name)(gx, axis=0, out=out32)
    # gpupy's and NumPy's float64 scans of 20 terms differ by <= 2 gamma_20 (2**-53) of
    # the running sums (about 2**-45 relative here): rounded to float32 they are equal or
    # adjacent (a float64 pair straddling a float32 midpoint): 1 float32 ulp.
    assert_close(out32.get(), getattr(np, name)(x, axis=0).astype(np.float32), 1, err_msg=f"{name} out=float32")
    # in place
    y = x.copy()
    gy = gp.asarray(y)
    getattr(gp, name)(gy, axis=1, out=gy)
    assert_scan_close(gy, name, x, 1)
    # integers into a float out
    xi = random_array(rng, (50,), np.int16)
    outf = gp.empty(50, np.float64)
    gp.cumsum(gp.asarray(xi), out=outf)
    np.testing.assert_array_equal(outf.get(), np.cumsum(xi).astype(np.float64))


def test_methods(rng):
    x = scan_input(rng, "cumprod", (6, 7), np.float32)
    g = gp.asarray(x)
    assert_scan_close(g.cumsum(), "cumsum", x)
    assert_scan_close(g.cumsum(axis=0), "cumsum", x, 0)
    assert_scan_close(g.cumprod(1), "cumprod", x, 1)
    assert_scan_close(g.cumprod(axis=-1, dtype=np.float64), "cumprod", x, -1, np.float64)


def test_errors(rng):
    x = random_array(rng, (3, 4))
    g = gp.asarray(x)
    for name in SCANS:
        f, nf = getattr(gp, name), getattr(np, name)
        raises_like(lambda: f(g, axis=2), lambda: nf(x, axis=2))
        raises_like(lambda: f(g, axis=-3), lambda: nf(x, axis=-3))
        raises_like(lambda: f(gp.asarray(np.float64(2.0)), axis=1), lambda: nf(np.float64(2.0), axis=1))
        raises_like(lambda: f(g, out=gp.empty((3, 3))), lambda: nf(x, out=np.empty((3, 3))))
        raises_like(lambda: f(g, axis=0.5), lambda: nf(x, axis=0.5))


# ---------------------------------------------------------------------------------------
# cumulative_sum, cumulative_prod (array API)


@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_cumulative(rng, name, dtype, include_initial):
    scan = "cumsum" if name == "cumulative_sum" else "cumprod"
    f, nf = getattr(gp, name), getattr(np, name)
    for shape, axis in [((0,), None), ((), None), ((37,), None), ((5, 0), 1), ((9, 31), 0), ((9, 31), -1), ((2, 3, 4), 1)]:
        x = scan_input(rng, scan, shape, dtype)
        got = f(gp.asarray(x), axis=axis, include_initial=include_initial).get()
        want = nf(x, axis=axis, include_initial=include_initial)
        assert got.dtype == want.dtype and got.shape == want.shape
        if want.dtype.kind not in "fc":
            np.testing.assert_array_equal(got, want)
            continue
        # Floats against the scan of the same values in a wider type (assert_scan_result).
        exact = nf(x.astype(wide_dtype(want.dtype)), axis=axis, include_initial=include_initial)
        scale = None
        if scan == "cumsum":
            absx = np.abs(x.astype(np.complex128 if want.dtype.kind == "c" else np.float64))
            scale = np.cumulative_sum(absx, axis=axis, include_initial=include_initial)
        n = x.size if axis is None else x.shape[axis]
        assert_scan_result(got, want, exact, scale, n, name)


def test_cumulative_dtype_out_and_errors(rng):
    x = random_array(rng, (4, 6), np.int8)
    g = gp.asarray(x)
    assert_equal_to_numpy(gp.cumulative_sum(g, axis=1, dtype=np.int16), np.cumulative_sum(x, axis=1, dtype=np.int16))
    out = gp.empty((4, 7), np.int64)
    r = gp.cumulative_sum(g, axis=1, include_initial=True, out=out)
    assert r is out
    assert_equal_to_numpy(out, np.cumulative_sum(x, axis=1, include_initial=True))
    out32 = gp.empty((5, 6), np.int32)
    gp.cumulative_prod(g, axis=0, include_initial=True, out=out32)
    assert_equal_to_numpy(out32, np.cumulative_prod(x, axis=0, include_initial=True).astype(np.int32))
    raises_like(lambda: gp.cumulative_sum(g), lambda: np.cumulative_sum(x))
    raises_like(lambda: gp.cumulative_sum(g, axis=2), lambda: np.cumulative_sum(x, axis=2))


# ---------------------------------------------------------------------------------------
# diff


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int64, np.float16, np.float32, np.complex64], ids=dtype_id)
def test_diff(rng, dtype):
    x = random_array(rng, (7, 11, 5), dtype)
    g = gp.asarray(x)
    for n in [0, 1, 2, 4, 12]:
        for axis in [0, 1, -1]:
            assert_equal_to_numpy(gp.diff(g, n=n, axis=axis), np.diff(x, n=n, axis=axis))
    assert_equal_to_numpy(gp.diff(g[::-1, 1::3], axis=1), np.diff(x[::-1, 1::3], axis=1))


def test_diff_prepend_append(rng):
    x = random_array(rng, (6, 9), np.uint8)
    g = gp.asarray(x)
    assert_equal_to_numpy(gp.diff(g, prepend=1), np.diff(x, prepend=1))
    assert_equal_to_numpy(gp.diff(g, axis=0, append=0, prepend=3), np.diff(x, axis=0, append=0, prepend=3))
    row = random_array(rng, (1, 9), np.uint8)
    assert_equal_to_numpy(gp.diff(g, axis=0, append=gp.asarray(row)), np.diff(x, axis=0, append=row))
    y = random_array(rng, (10,), np.float64)
    assert_equal_to_numpy(gp.diff(gp.asarray(y), n=2, prepend=0.5, append=[1.0, 2.0]), np.diff(y, n=2, prepend=0.5, append=[1.0, 2.0]))


def test_diff_errors(rng):
    x = random_array(rng, (4,))
    raises_like(lambda: gp.diff(gp.asarray(np.float64(1.0))), lambda: np.diff(np.float64(1.0)))
    raises_like(lambda: gp.diff(gp.asarray(x), n=-1), lambda: np.diff(x, n=-1))
    raises_like(lambda: gp.diff(gp.asarray(x), axis=1), lambda: np.diff(x, axis=1))


# ---------------------------------------------------------------------------------------
# bincount


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64], ids=dtype_id)
@pytest.mark.parametrize("high", [1, 7, 300, 8192, 20000])
def test_bincount(rng, dtype, high):
    info = np.iinfo(dtype) if dtype != np.bool_ else None
    top = min(high, int(info.max)) if info else 1
    x = rng.integers(0, top, size=100003, endpoint=True).astype(dtype)
    assert_equal_to_numpy(gp.bincount(gp.asarray(x)), np.bincount(x))
    assert_equal_to_numpy(gp.bincount(gp.asarray(x), minlength=top + 5), np.bincount(x, minlength=top + 5))


@pytest.mark.parametrize("wdtype", [np.float32, np.float64, np.int32, np.bool_], ids=dtype_id)
@pytest.mark.parametrize("high", [10, 5000, 100000])
def test_bincount_weights(rng, wdtype, high):
    x = rng.integers(0, high, size=2**18 + 3)
    w = random_array(rng, x.shape, wdtype)
    got = gp.bincount(gp.asarray(x), weights=gp.asarray(w), minlength=3)
    want = np.bincount(x, weights=w, minlength=3)
    assert got.dtype == want.dtype == np.float64
    assert want.dtype == np.float64
    assert_bincount_weights(got.get(), want, x, w, 3)


def assert_bincount_weights(got, want, x, w, minlength):
    """Each bin is a float64 sum of its c weights (float32, int32 and bool weights are
    exact in float64), in any order: within gamma_c(2**-53) times the bin's sum of |w|;
    NumPy's own float64 sum errs as much, so the two differ by at most twice that."""
    # float64 (NumPy returns int64 for an empty x even with weights: the dtype must match).
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    scale = np.bincount(x, weights=np.abs(np.asarray(w, dtype=np.float64)), minlength=minlength)
    c = np.bincount(x, minlength=minlength).astype(np.float64)
    bound = 2 * c * 2.0**-53 / (1 - c * 2.0**-53) * scale
    assert np.all(np.abs(got - want) <= bound), np.max(np.abs(got - want) - bound)


def test_bincount_views_and_edges(rng):
    x = rng.integers(0, 50, size=1001)
    assert_equal_to_numpy(gp.bincount(gp.asarray(x)[::-3]), np.bincount(x[::-3]))
    empty = np.zeros(0, np.int64)
    assert_equal_to_numpy(gp.bincount(gp.asarray(empty)), np.bincount(empty))
    assert_equal_to_numpy(gp.bincount(gp.asarray(empty), minlength=4), np.bincount(empty, minlength=4))
    assert_equal_to_numpy(gp.bincount(gp.asarray(empty), weights=gp.asarray(np.zeros(0))), np.bincount(empty, weights=np.zeros(0)))
    big = np.array([0, 2**20 + 3, 5])
    assert_equal_to_numpy(gp.bincount(gp.asarray(big)), np.bincount(big))


def test_bincount_errors(rng):
    x = rng.integers(0, 5, size=10)
    g = gp.asarray(x)
    big = np.array([1, 2**63 + 5], dtype=np.uint64)
    cases = [
        (lambda: gp.bincount(gp.asarray(x - 3)), lambda: np.bincount(x - 3)),
        (lambda: gp.bincount(gp.asarray(x.reshape(2, 5))), lambda: np.bincount(x.reshape(2, 5))),
        (lambda: gp.bincount(gp.asarray(np.int64(3))), lambda: np.bincount(np.int64(3))),
        (lambda: gp.bincount(gp.asarray(x.astype(np.float64))), lambda: np.bincount(x.astype(np.float64))),
        (lambda: gp.bincount(gp.asarray(big)), lambda: np.bincount(big)),  # uint64 wraps to negative
        (lambda: gp.bincount(gp.asarray(np.zeros(0))), lambda: np.bincount(np.zeros(0))),
        (lambda: gp.bincount(g, minlength=-1), lambda: np.bincount(x, minlength=-1)),
        (lambda: gp.bincount(g, minlength=None), lambda: np.bincount(x, minlength=None)),
        (lambda: gp.bincount(g, weights=gp.ones(3)), lambda: np.bincount(x, weights=np.ones(3))),
        (lambda: gp.bincount(g, weights=gp.ones(10, np.complex64)), lambda: np.bincount(x, weights=np.ones(10, np.complex64))),
    ]
    for gcall, ncall in cases:
        raises_like(gcall, ncall)


# ---------------------------------------------------------------------------------------
# histogram


def assert_histogram(got, want, weighted=False, x=None, w=None, **kw):
    """Edges bit-exact, integer counts and integer-weight sums exact. Float results
    (weights, density=True) against NumPy's histogram of the same ``x`` with the weights
    in float64 (complex128), within the derived bound: each bin is a sum of its c weights
    in float64 (gpupy's accumulator; the reference's is the same), 2 gamma_c(2**-53) times
    the bin's sum of |w|; density divides by the total weight (its own sum's error,
    relative gamma_N sum|w| / |sum w|) and the bin width (a few roundings, 6 u relative for
    both sides); then one rounding to the result dtype."""
    (gh, ge), (wh, we) = got, want
    assert isinstance(gh, gp.ndarray) and isinstance(ge, gp.ndarray)
    # Edges bit-exact except the sign of a zero edge: the automatic range is the data's
    # (min, max), and the sign of a zero min/max of mixed -0.0 and +0.0 is the
    # implementation's (as for min/max in test_reduction.py; NumPy's max of
    # [-1, -0.0, 0.0] in float16 is -0.0, an IEEE maxNum may give either).
    assert_close(ge.get(), we, 0, signed_zeros=False, err_msg="histogram edges")
    h = gh.get()
    assert h.dtype == wh.dtype and h.shape == wh.shape, (h.dtype, wh.dtype, h.shape, wh.shape)
    if wh.dtype.kind in "iu":
        np.testing.assert_array_equal(h, wh, strict=True)
        return
    assert x is not None, "float histograms need x (and w) for the wide reference"
    wide = np.complex128 if wh.dtype.kind == "c" else np.float64
    ww = None if w is None else np.asarray(w).astype(wide)
    u = 2.0**-53
    with np.errstate(all="ignore"):
        ref = np.histogram(x, weights=ww, **kw)[0]
        plain = {k: v for k, v in kw.items() if k != "density"}
        scale = np.histogram(x, weights=None if ww is None else np.abs(ww), **plain)[0].astype(np.float64)
        c = np.histogram(x, **plain)[0].astype(np.float64)
        bound = 2 * c * u / (1 - c * u) * scale
        if kw.get("density"):
            total_abs = scale.sum()
            weighted_bins = np.histogram(x, weights=ww, **plain)[0]
            total = np.abs(weighted_bins.sum())
            n = c.sum()
            width = np.diff(we).astype(np.float64)
            bound = bound / (total * width) + np.abs(ref) * (6 * u + 2 * n * u / (1 - n * u) * total_abs / total)
            if w is not None and np.asarray(w).dtype.kind in "fc":
                # Weighted counts have the weights' dtype (NumPy's ``ntype``; gpupy the
                # same) before the normalization: each bin is rounded once to it (u_w
                # relative) and so is the total of those rounded bins (u_w |total| + the
                # bins' own roundings, u_w sum|bin|). density = bin / width / total:
                # relative error u_w (1 + (sum|bin| + |total|) / |total|). For float64
                # weights u_w = 2**-53 (already inside the terms above, counted twice).
                u_w = unit_roundoff(np.asarray(w).dtype)
                bins_abs = np.abs(weighted_bins).sum()
                bound = bound + np.abs(ref) * u_w * (1 + (bins_abs + total) / total)
        bound = bound + (np.sqrt(2) if wh.dtype.kind == "c" else 1) * unit_roundoff(wh.dtype) * np.abs(ref)
    assert_nonfinite_match(h, wh, "histogram")
    fin = np.isfinite(ref) & np.isfinite(h)
    err = np.abs(h.astype(wide) - ref)
    assert np.all(err[fin] <= bound[fin]), f"histogram: max excess {np.max(err[fin] - bound[fin])}"


def with_edge_values(rng, x, edges):
    """`x` with a quarter of its values replaced by bin edges (exact hits, the last edge too)."""
    x = x.copy()
    idx = rng.integers(0, x.size, size=x.size // 4)
    x[idx] = edges[rng.integers(0, edges.size, size=idx.size)].astype(x.dtype)
    return x


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int64, np.uint16, np.uint64], ids=dtype_id)
@pytest.mark.parametrize("bins", [1, 7, 10, 100, 5000, 20000])
def test_histogram_uniform(rng, dtype, bins):
    x = random_array(rng, 100003, dtype)
    if np.dtype(dtype).kind == "f":
        x = x * 7
    try:
        _, edges = np.histogram(x, bins=bins)
    except ValueError:  # float16 cannot hold that many distinct edges over the range
        with pytest.raises(ValueError, match="Too many bins for data range"):
            gp.histogram(gp.asarray(x), bins=bins)
        return
    x = with_edge_values(rng, x, edges)
    assert_histogram(gp.histogram(gp.asarray(x), bins=bins), np.histogram(x, bins=bins))


RANGES = [(0, 1), (-0.5, 0.25), (np.float32(-0.3), np.float32(0.7)), (-1.0, 1.0), (np.float64(0.1), 0.9), (2, 2)]


@pytest.mark.parametrize("rng_", RANGES, ids=[repr(r) for r in RANGES])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32], ids=dtype_id)
def test_histogram_range(rng, dtype, rng_):
    x = random_array(rng, 50001, dtype)
    if np.dtype(dtype).kind == "f":
        x[::97] = np.nan  # NaN is outside every range
    _, edges = np.histogram(x, bins=10, range=rng_)
    x = with_edge_values(rng, x, edges)
    for bins in [3, 10, 64]:
        assert_histogram(gp.histogram(gp.asarray(x), bins=bins, range=rng_), np.histogram(x, bins=bins, range=rng_))


@pytest.mark.parametrize("wdtype", [np.float32, np.float64, np.int64, np.complex128], ids=dtype_id)
def test_histogram_weights_and_density(rng, wdtype):
    x = random_array(rng, (300, 7), np.float32)
    w = random_array(rng, (300, 7), wdtype)
    if np.dtype(wdtype).kind in "iu":
        w = rng.integers(-100, 100, size=w.shape).astype(wdtype)  # sums that fit the dtype
    gx, gw = gp.asarray(x), gp.asarray(w)
    assert_histogram(gp.histogram(gx, bins=13, weights=gw), np.histogram(x, bins=13, weights=w), True, x, w, bins=13)
    assert_histogram(gp.histogram(gx, bins=13, density=True), np.histogram(x, bins=13, density=True), True, x, None, bins=13, density=True)
    if wdtype != np.complex128:
        kw = dict(bins=13, range=(-0.5, 0.5), density=True)
        # NumPy and gpupy round the weighted counts to float32 (the weights' dtype) and
        # normalize by their total: measured against the float64 computation with those
        # roundings in the bound (assert_histogram).
        assert_histogram(gp.histogram(gx, weights=gw, **kw), np.histogram(x, weights=w, **kw), True, x, w, **kw)


@pytest.mark.parametrize("dtype,edge_dtype", [(np.float64, np.float64), (np.float32, np.float32), (np.int64, np.int64), (np.int16, np.float32), (np.float16, np.float16), (np.float32, np.int64)], ids=lambda d: np.dtype(d).name)
def test_histogram_edges(rng, dtype, edge_dtype):
    x = random_array(rng, 20011, dtype)
    if np.dtype(dtype).kind == "f":
        x = x * 10
        x[::101] = np.nan
    lo, hi = (-8, 8) if np.dtype(dtype).kind == "f" else (-20000, 20000)
    edges = np.sort(rng.uniform(lo, hi, size=30)).astype(edge_dtype)
    edges = np.concatenate([edges[:10], edges[9:10], edges[10:]])  # a repeated edge: an empty bin
    x = with_edge_values(rng, x, edges)
    assert_histogram(gp.histogram(gp.asarray(x), bins=edges), np.histogram(x, bins=edges))
    assert_histogram(gp.histogram(gp.asarray(x), bins=gp.asarray(edges)), np.histogram(x, bins=edges))
    w = random_array(rng, x.shape, np.float64)
    assert_histogram(gp.histogram(gp.asarray(x), bins=edges, weights=gp.asarray(w)), np.histogram(x, bins=edges, weights=w), True, x, w, bins=edges)


def test_histogram_small_cases(rng):
    for x in [np.zeros(0), np.array([3.0]), np.array([2, 2, 2]), np.array([1.0, 1.0 + 1e-15]), np.array([-np.inf, 1.0])]:
        for kwargs in [{}, {"bins": 3}, {"range": (0, 4)}, {"bins": [0, 1, 2, 4]}, {"bins": [1]}]:
            gx = gp.asarray(x)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    want = np.histogram(x, **kwargs)
                except Exception as e:  # noqa: BLE001 - gpupy must raise the same type
                    with pytest.raises(type(e), match=re.escape(str(e))):
                        gp.histogram(gx, **kwargs)
                    continue
            assert_histogram(gp.histogram(gx, **kwargs), want)
    b = rng.integers(0, 2, size=100).astype(bool)
    with pytest.warns(RuntimeWarning):
        got = gp.histogram(gp.asarray(b), bins=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_histogram(got, np.histogram(b, bins=2))


def test_histogram_errors(rng):
    x = random_array(rng, 100)
    g = gp.asarray(x)
    xn = x.copy()
    xn[3] = np.nan
    cases = [
        ({"bins": 0}, x),
        ({"bins": -2}, x),
        ({"bins": 1.5}, x),
        ({"bins": [[1, 2]]}, x),
        ({"bins": [3, 1, 2]}, x),
        ({"range": (1, 0)}, x),
        ({"range": (0, np.inf)}, x),
        ({"weights": np.ones(3)}, x),
        ({}, xn),
    ]
    for kwargs, data in cases:
        gk = {k: (gp.asarray(v) if k == "weights" else v) for k, v in kwargs.items()}
        raises_like(lambda: gp.histogram(gp.asarray(data), **gk), lambda: np.histogram(data, **kwargs))
    del g


def test_histogram_large(rng):
    x = rng.standard_normal(2**20 + 3).astype(np.float32)
    for bins in [50, 9000]:
        assert_histogram(gp.histogram(gp.asarray(x), bins=bins), np.histogram(x, bins=bins))
        assert_histogram(gp.histogram(gp.asarray(x), bins=bins, range=(-2, 2)), np.histogram(x, bins=bins, range=(-2, 2)))
