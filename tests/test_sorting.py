"""Sorting, searching, unique and quantiles against NumPy: ``sort``/``argsort`` (every
dtype, axes, views, NaNs and signed zeros, stability against ``kind='stable'``),
``partition``/``argpartition``, ``searchsorted``, ``unique`` and the array API
``unique_*``, ``median``/``percentile``/``quantile``. The hypothesis property tests are in
test_sorting_properties.py."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import gpupy as gp
from helpers import ALL_DTYPES, VIEW_FUNCS_2D, VIEW_IDS_2D, assert_nonfinite_match, dtype_id, random_array, raises_like, unit_roundoff

pytestmark = pytest.mark.gpu

FLOATS = [np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
REAL_DTYPES = [d for d in ALL_DTYPES if np.dtype(d).kind != "c"]


def data(rng, shape, dtype, few=False):
    """Random values of ``dtype``; ``few``: drawn from a handful of values, so there are
    many duplicates (stability shows). Floats get NaNs, infinities and both zeros;
    complex numbers NaNs in either part."""
    dt = np.dtype(dtype)
    if few or dt.kind == "b":
        if dt.kind == "b":
            return rng.integers(0, 2, size=shape).astype(dt)
        if dt.kind in "iu":
            lo = 0 if dt.kind == "u" else -3
            return rng.integers(lo, lo + 7, size=shape).astype(dt)
        pool = np.array([-1.5, -0.0, 0.0, 2.0, np.inf, -np.inf, np.nan], dtype=np.float64)
        if dt.kind == "c":
            re = rng.choice(pool, size=shape)
            im = rng.choice(pool[:4], size=shape)
            im = np.where(rng.random(shape) < 0.1, np.nan, im)
            return (re + 1j * im).astype(dt) if np.size(re) else np.zeros(shape, dt)
        return rng.choice(pool, size=shape).astype(dt)
    x = random_array(rng, shape, dt)
    if dt.kind in "fc" and x.size:
        flat = x.reshape(-1)
        k = max(1, flat.size // 20)
        idx = rng.choice(flat.size, size=k)
        flat[idx] = np.nan if dt.kind == "f" else complex(np.nan, 1.0)
        flat[rng.choice(flat.size, size=k)] = -0.0
        flat[rng.choice(flat.size, size=k)] = 0.0
    return x


def bits(a):
    """Exact bits, so signed zeros and NaN payloads count."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint8).reshape(a.shape + (a.dtype.itemsize,)) if a.size else a


def assert_same_bits(g, want):
    got = g.get()
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert_array_equal(bits(got), bits(want))


SHAPES_AXES = [
    ((0,), -1),
    ((1,), 0),
    ((7,), -1),
    ((1000,), 0),
    ((4097,), -1),
    ((3, 5), -1),
    ((3, 5), 0),
    ((2, 0, 3), 1),
    ((4, 3, 17), 1),
    ((4, 3, 17), -3),
    ((4, 3, 17), None),
    ((5, 1), -1),
]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape,axis", SHAPES_AXES, ids=[f"{s}-{a}" for s, a in SHAPES_AXES])
def test_sort_and_argsort_match_stable_numpy(rng, dtype, shape, axis):
    for few in (False, True):
        x = data(rng, shape, dtype, few)
        g = gp.asarray(x)
        assert_same_bits(gp.sort(g, axis=axis), np.sort(x, axis=axis, kind="stable"))
        assert_same_bits(gp.argsort(g, axis=axis), np.argsort(x, axis=axis, kind="stable"))


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.float16, np.complex128], ids=dtype_id)
def test_large_sorts(rng, dtype):
    x = data(rng, (2**20 + 3,), dtype, few=dtype == np.uint8)
    g = gp.asarray(x)
    assert_same_bits(gp.sort(g), np.sort(x, kind="stable"))
    assert_same_bits(gp.argsort(g), np.argsort(x, kind="stable"))


@pytest.mark.parametrize(
    "shape,axis",
    [((1000, 1037), -1), ((1000, 1037), 0), ((70001, 3), -1), ((3, 70001), 0), ((257, 2, 9), 0)],
)
def test_many_rows(rng, shape, axis):
    """Row passes: more than 256 (two digits) and 65536 (three digits) rows."""
    x = data(rng, shape, np.float32, few=True)
    g = gp.asarray(x)
    assert_same_bits(gp.sort(g, axis=axis), np.sort(x, axis=axis, kind="stable"))
    assert_same_bits(gp.argsort(g, axis=axis), np.argsort(x, axis=axis, kind="stable"))


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("axis", [-1, 0, None])
def test_views(rng, view, axis):
    base = data(rng, (9, 14), np.int16, few=True)
    x, g = view(base), view(gp.asarray(base))
    assert_same_bits(gp.sort(g, axis=axis), np.sort(x, axis=axis, kind="stable"))
    assert_same_bits(gp.argsort(g, axis=axis), np.argsort(x, axis=axis, kind="stable"))


def test_zero_d_and_errors(rng):
    x = np.array(2.5)
    g = gp.asarray(x)
    raises_like(lambda: gp.sort(g), lambda: np.sort(x))
    assert_same_bits(gp.sort(g, axis=None), np.sort(x, axis=None))
    assert_same_bits(gp.argsort(g), np.argsort(x))
    assert_same_bits(gp.argsort(g, axis=None), np.argsort(x, axis=None))
    y = data(rng, (4, 5), np.float64)
    gy = gp.asarray(y)
    raises_like(lambda: gp.sort(gy, axis=2), lambda: np.sort(y, axis=2))
    raises_like(lambda: gp.argsort(gy, axis=-3), lambda: np.argsort(y, axis=-3))
    raises_like(lambda: gp.sort(gy, kind="bogus"), lambda: np.sort(y, kind="bogus"))
    raises_like(lambda: gp.sort(gy, kind=3), lambda: np.sort(y, kind=3))
    raises_like(lambda: gp.sort(gy, kind="stable", stable=True), lambda: np.sort(y, kind="stable", stable=True))
    raises_like(lambda: gp.sort(gy, order="f"), lambda: np.sort(y, order="f"))
    for kind in (None, "quicksort", "mergesort", "heapsort", "stable", "Q"):
        assert_same_bits(gp.argsort(gy, kind=kind), np.argsort(y, kind="stable"))
    assert_same_bits(gp.sort(gy, stable=True), np.sort(y, stable=True))


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_methods_sort_in_place(rng, axis):
    x = data(rng, (6, 7, 5), np.float32, few=True)
    g = gp.asarray(x)
    x.sort(axis=axis, kind="stable")
    assert g.sort(axis=axis) is None
    assert_same_bits(g, x)
    # Through a view: the base array changes.
    base = data(rng, (8, 9), np.int32, few=True)
    gb = gp.asarray(base)
    v, gv = base[::2, ::-1], gb[::2, ::-1]
    v.sort(axis=axis if axis < 2 else 1, kind="stable")
    gv.sort(axis=axis if axis < 2 else 1)
    assert_same_bits(gb, base)
    y = data(rng, (5, 6), np.uint16, few=True)
    assert_same_bits(gp.asarray(y).argsort(axis=0), y.argsort(axis=0, kind="stable"))
    assert_same_bits(gp.asarray(y).argsort(), y.argsort(kind="stable"))


@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.complex64, np.bool_], ids=dtype_id)
def test_partition(rng, dtype):
    x = data(rng, (6, 11), dtype, few=True)
    g = gp.asarray(x)
    for kth, axis in [(3, -1), ([0, 10], -1), (-1, -1), (5, 0), (np.array([2, 4]), 0), (17, None)]:
        p = gp.partition(g, kth, axis=axis).get()
        want = np.partition(x, kth, axis=axis)
        # A full sort is a valid partition; the values at kth are NumPy's.
        assert_same_bits(gp.partition(g, kth, axis=axis), np.sort(x, axis=axis, kind="stable"))
        k = np.atleast_1d(kth)
        if axis is None:
            assert_array_equal(p[k], want[k])
        else:
            assert_array_equal(np.take(p, k, axis=axis), np.take(want, k, axis=axis))
        ap = gp.argpartition(g, kth, axis=axis)
        assert_same_bits(ap, np.argsort(x, axis=axis, kind="stable"))
    raises_like(lambda: gp.partition(g, 11), lambda: np.partition(x, 11))
    raises_like(lambda: gp.partition(g, -12), lambda: np.partition(x, -12))
    raises_like(lambda: gp.partition(g, [1, 20]), lambda: np.partition(x, [1, 20]))
    raises_like(lambda: gp.partition(g, 1.5), lambda: np.partition(x, 1.5))
    raises_like(lambda: gp.partition(g, True), lambda: np.partition(x, True))
    raises_like(lambda: gp.argpartition(g, 1, kind="quick"), lambda: np.argpartition(x, 1, kind="quick"))
    raises_like(lambda: gp.partition(g, 6, axis=0), lambda: np.partition(x, 6, axis=0))
    with pytest.raises(ValueError, match=r"kth\(=11\) out of bounds \(11\)"):
        gp.partition(g, 11)
    z = np.array(3.0)
    assert_same_bits(gp.argpartition(gp.asarray(z), 0), np.argpartition(z, 0))
    m = x.copy()
    gm = gp.asarray(m)
    gm.partition(4)
    assert_same_bits(gm, np.sort(x, axis=-1, kind="stable"))
    assert_same_bits(gp.asarray(x).argpartition(4, axis=0), np.argsort(x, axis=0, kind="stable"))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_searchsorted(rng, dtype):
    a = np.sort(data(rng, (301,), dtype, few=True), kind="stable")
    v = data(rng, (7, 13), dtype, few=True)
    ga, gv = gp.asarray(a), gp.asarray(v)
    for side in ("left", "right"):
        assert_same_bits(gp.searchsorted(ga, gv, side=side), np.searchsorted(a, v, side=side))
        assert_same_bits(ga.searchsorted(gv, side=side), a.searchsorted(v, side=side))
    # An unsorted array with its sorter.
    u = data(rng, (50,), dtype)
    s = np.argsort(u, kind="stable")
    w = data(rng, (20,), dtype)
    for side in ("left", "right"):
        got = gp.searchsorted(gp.asarray(u), gp.asarray(w), side=side, sorter=gp.asarray(s))
        assert_same_bits(got, np.searchsorted(u, w, side=side, sorter=s))
        got = gp.searchsorted(gp.asarray(u), gp.asarray(w), side=side, sorter=list(s))
        assert_same_bits(got, np.searchsorted(u, w, side=side, sorter=s))


def test_searchsorted_scalars_mixed_dtypes_and_errors(rng):
    a = np.sort(rng.integers(-50, 50, size=40))
    ga = gp.asarray(a)
    for v in (3, -100, 2.5, np.float32(7.5), [1, 2.5, 60]):
        got = gp.searchsorted(ga, v)
        want = np.searchsorted(a, v)
        assert_array_equal(got.get(), want)
        assert got.shape == np.shape(want)
    f = np.sort(data(rng, (33,), np.float32))
    for v in (np.nan, -0.0, 0.0, np.inf):
        for side in ("left", "right"):
            assert int(gp.searchsorted(gp.asarray(f), v, side=side)) == np.searchsorted(f, v, side=side)
    e = np.zeros(0, np.float64)
    assert_same_bits(gp.searchsorted(gp.asarray(e), gp.asarray(np.array([1.0, 2.0]))), np.searchsorted(e, [1.0, 2.0]))
    assert_same_bits(gp.searchsorted(ga, gp.asarray(np.zeros((0, 3)))), np.searchsorted(a, np.zeros((0, 3))))
    raises_like(lambda: gp.searchsorted(ga, 1, side="x"), lambda: np.searchsorted(a, 1, side="x"))
    a2 = np.ones((2, 2))
    raises_like(lambda: gp.searchsorted(gp.asarray(a2), 1.0), lambda: np.searchsorted(a2, 1.0))
    raises_like(lambda: gp.searchsorted(ga, 1, sorter=[0, 1]), lambda: np.searchsorted(a, 1, sorter=[0, 1]))
    # NumPy checks only the sorter entries its search visits; gpupy checks them all.
    with pytest.raises(ValueError, match="Sorter index out of range"):
        gp.searchsorted(ga, 1, sorter=list(range(39)) + [99])
    fs = [0.0] * 40
    raises_like(lambda: gp.searchsorted(ga, 1, sorter=fs), lambda: np.searchsorted(a, 1, sorter=fs))


def _check_unique(x, **kw):
    g = gp.asarray(x)
    got = gp.unique(g, **kw)
    want = np.unique(x, **kw)
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    assert len(got) == len(want)
    names = ["values"] + [k for k in ("return_index", "return_inverse", "return_counts") if kw.get(k)]
    # Distinct NaNs (equal_nan=False): NumPy's unstable sort for return_inverse alone
    # assigns them in any order; check that the inverse rebuilds the input instead.
    loose = not kw.get("equal_nan", True) and not kw.get("return_index") and np.isnan(x).sum() > 1 if x.dtype.kind in "fc" else False
    for name, a, b in zip(names, got, want):
        assert isinstance(a, gp.ndarray)
        r = a.get()
        assert r.dtype == b.dtype and r.shape == b.shape, (name, r.dtype, b.dtype, r.shape, b.shape)
        if name == "return_inverse" and loose:
            assert_array_equal(got[0].get()[r], x.reshape(r.shape))
        else:
            assert_array_equal(r, b)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(0,), (1,), (57,), (6, 9), (3000,)], ids=str)
def test_unique(rng, dtype, shape):
    for few in (True, False):
        x = data(rng, shape, dtype, few)
        for flags in [{}, {"return_index": True}, {"return_inverse": True}, {"return_counts": True},
                      {"return_index": True, "return_inverse": True, "return_counts": True}]:
            _check_unique(x, **flags)
            if np.dtype(dtype).kind in "fc":
                _check_unique(x, equal_nan=False, **flags)


def test_unique_zero_d_and_array_api(rng):
    _check_unique(np.array(3.5), return_inverse=True, return_counts=True, return_index=True)
    x = data(rng, (5, 8), np.float64, few=True)
    x[0, :3] = np.nan
    # Distinct NaNs: each one is its own value, last in the sorted order.
    assert_array_equal(gp.unique_values(gp.asarray(x)).get(), np.sort(np.unique_values(x)))
    x = np.where(np.isnan(x), 7.0, x)  # NumPy orders distinct NaNs' inverse indices arbitrarily
    g = gp.asarray(x)
    for name in ("unique_counts", "unique_inverse", "unique_all"):
        got, want = getattr(gp, name)(g), getattr(np, name)(x)
        assert got._fields == want._fields
        for a, b in zip(got, want):
            assert a.shape == b.shape and a.dtype == b.dtype
            assert_array_equal(a.get(), b)
    with pytest.raises(NotImplementedError, match=r"gpupy\.unique supports axis=None"):
        gp.unique(g, axis=0)


QUANTILE_DTYPES = [np.int8, np.int64, np.uint32, np.float16, np.float32, np.float64]
def assert_quantile_close(g, want, x):
    """A quantile or median of ``x``: non-finite values and signed zeros as NumPy's, finite
    values within the interpolation's error bound.

    Derivation: NumPy's _lerp computes a + (b - a) t (or b - (b - a)(1 - t)) in the result
    dtype: three roundings, each at most u max(|a|, |b|), and gpupy's interpolation as
    many; the median's (a + b) / 2 is one rounding. So |got - want| <= 6 u max(|a|, |b|)
    <= 6 u max|x| (finite x; float16 and integer inputs interpolate in float32/float64 at
    most, bounded the same way by the result dtype's u)."""
    got = g.get() if isinstance(g, gp.ndarray) else np.asarray(g)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert_nonfinite_match(got, want, "quantile")
    if want.dtype.kind not in "fc":
        assert_array_equal(got, want)
        return
    xf = np.abs(np.asarray(x).astype(np.complex128 if want.dtype.kind == "c" else np.float64))
    xf = xf[np.isfinite(xf)]
    scale = xf.max(initial=0.0)
    fin = np.isfinite(got) & np.isfinite(want)
    err = np.abs(got[fin].astype(np.complex128) - want[fin].astype(np.complex128))
    bound = 6 * unit_roundoff(want.dtype) * scale
    assert np.all(err <= bound), f"quantile: max error {err.max():.3g} > 6 u max|x| = {bound:.3g}"


@pytest.mark.parametrize("dtype", QUANTILE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), 1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_median(rng, dtype, axis, keepdims):
    x = random_array(rng, (4, 7, 6), dtype)
    g = gp.asarray(x)
    assert_quantile_close(gp.median(g, axis=axis, keepdims=keepdims), np.median(x, axis=axis, keepdims=keepdims), x)


def test_median_nans_complex_odd_even_and_out(rng):
    x = random_array(rng, (5, 9), np.float32)
    x[1, 3] = np.nan
    x[4, 0] = np.nan
    g = gp.asarray(x)
    for axis in (None, 0, 1):
        assert_quantile_close(gp.median(g, axis=axis), np.median(x, axis=axis), x)
    c = random_array(rng, (4, 6), np.complex128)
    assert_quantile_close(gp.median(gp.asarray(c), axis=1), np.median(c, axis=1), c)
    b = random_array(rng, (7,), np.bool_)
    assert_quantile_close(gp.median(gp.asarray(b)), np.median(b), b)
    o = gp.empty(9, dtype=np.float32)
    r = gp.median(g, axis=0, out=o)
    assert r is o
    assert_quantile_close(o, np.median(x, axis=0), x)
    assert_quantile_close(gp.median(gp.asarray(np.array(2.0))), np.median(np.array(2.0)), np.array(2.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert_quantile_close(gp.median(gp.asarray(np.zeros((3, 0))), axis=1), np.median(np.zeros((3, 0)), axis=1), np.zeros((3, 0)))


@pytest.mark.parametrize("dtype", QUANTILE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize(
    "q", [0.5, 0, 1, 0.37, [0.1, 0.5, 0.99], np.array([[0.25, 1.0], [0.0, 0.7]]), np.float32(0.3), np.array(0.8)],
    ids=lambda q: repr(q).replace(" ", "")[:24],
)
def test_quantile(rng, dtype, q):
    x = random_array(rng, (5, 6, 7), dtype)
    g = gp.asarray(x)
    for axis, keepdims in [(None, False), (1, False), ((0, 2), True), (-1, True)]:
        assert_quantile_close(gp.quantile(g, q, axis=axis, keepdims=keepdims), np.quantile(x, q, axis=axis, keepdims=keepdims), x)
        pq = np.asarray(q) * 100 if not isinstance(q, (int, float)) else q * 100
        assert_quantile_close(gp.percentile(g, pq, axis=axis, keepdims=keepdims), np.percentile(x, pq, axis=axis, keepdims=keepdims), x)


def test_quantile_nans_infs_out_and_errors(rng):
    x = random_array(rng, (6, 8), np.float64)
    x[2, 5] = np.nan
    x[0, 0] = np.inf
    g = gp.asarray(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for q in (0.0, 0.5, 1.0, [0.2, 1.0]):
            for axis in (None, 0, 1):
                assert_quantile_close(gp.quantile(g, q, axis=axis), np.quantile(x, q, axis=axis), x)
    o = gp.empty((2, 6))
    r = gp.quantile(g, [0.3, 0.6], axis=1, out=o)
    assert r is o
    assert_quantile_close(o, np.quantile(x, [0.3, 0.6], axis=1), x)
    q = gp.asarray(np.array([0.1, 0.9]))
    assert_quantile_close(gp.quantile(g, q, axis=0), np.quantile(x, np.array([0.1, 0.9]), axis=0), x)
    raises_like(lambda: gp.quantile(g, 1.5), lambda: np.quantile(x, 1.5))
    raises_like(lambda: gp.quantile(g, [-0.1, 0.5]), lambda: np.quantile(x, [-0.1, 0.5]))
    raises_like(lambda: gp.percentile(g, 101), lambda: np.percentile(x, 101))
    raises_like(lambda: gp.quantile(g, 0.5, axis=2), lambda: np.quantile(x, 0.5, axis=2))
    raises_like(lambda: gp.quantile(gp.asarray(np.zeros(0)), 0.5), lambda: np.quantile(np.zeros(0), 0.5))
    b = np.array([True, False, True])
    raises_like(lambda: gp.quantile(gp.asarray(b), 0.5), lambda: np.quantile(b, 0.5))
    c = np.array([1 + 1j, 2])
    raises_like(lambda: gp.quantile(gp.asarray(c), 0.5), lambda: np.quantile(c, 0.5))
    with pytest.raises(NotImplementedError, match="gpupy's quantiles support method='linear' so far, not 'nearest'"):
        gp.quantile(g, 0.5, method="nearest")
