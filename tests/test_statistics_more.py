"""cov, corrcoef, nanmedian, nanquantile, nanpercentile, histogram_bin_edges,
histogram2d, histogramdd and lexsort against NumPy: several shapes (empty and 0-d where
they apply), NaNs at random places and all-NaN slices, dtypes, weights and
non-contiguous views.

Tolerances: the NaN-ignoring quantiles gather the same order statistics and interpolate
with the same IEEE operations in the same dtypes as NumPy (each a separate, correctly
rounded kernel), so they must match exactly, NaNs included. cov sums N products in a
different order than NumPy: for data in [-1, 1) (|centred| <= 2) and weights <= 4 an
entry's rounding error is at most about (N + 2) * u * 4 * 4 / fact * N ~ 16 (N + 2) u
(Higham's bound for a length-N dot product, plus the centring), so atol = 32 (N + 2) u
with u the dtype's unit roundoff; corrcoef divides by two standard deviations of about
0.5 each, so 4x that. Histogram counts and lexsort indices are exact; densities divide
exact counts twice in float64 (rtol 4u).
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import gpupy as gp
from helpers import VIEW_FUNCS_2D, VIEW_IDS_2D, dtype_id, raises_like

pytestmark = pytest.mark.gpu

FLOATS = [np.float16, np.float32, np.float64]


def u(dtype):
    return float(np.finfo(dtype).eps) / 2


def with_nans(rng, shape, dtype, frac=0.3):
    """Uniform [-5, 5) values with NaNs at random places (frac of them)."""
    x = np.asarray(rng.uniform(-5, 5, shape))
    x[rng.random(shape) < frac] = np.nan
    return np.asarray(x).astype(dtype)


def exact(got, want):
    got = gp.asnumpy(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert_array_equal(got, want)


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return f(*args, **kwargs)


# --- nanmedian / nanquantile / nanpercentile ------------------------------------------

SHAPES_AXES = [((7,), None), ((), None), ((5, 6), 1), ((5, 6), 0), ((5, 6), -1), ((3, 4, 5), (0, 2)),
               ((3, 4, 5), None), ((4, 1), 1), ((2, 3, 4), 1)]
QS = [0.5, 0.0, 1.0, 0.37, [0.1, 0.9], np.array([0.25, 0.5, 1.0], np.float32), 1, [0, 1], np.array(0.8)]


@pytest.mark.parametrize("dtype", FLOATS, ids=dtype_id)
@pytest.mark.parametrize("shape,axis", SHAPES_AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_nanquantile_matches_numpy(rng, dtype, shape, axis, keepdims):
    x = with_nans(rng, shape, dtype)
    if len(shape) >= 2:
        x[1] = np.nan  # an all-NaN slice (or part of one)
    g = gp.asarray(x)
    for q in QS:
        exact(quiet(gp.nanquantile, g, q, axis=axis, keepdims=keepdims), quiet(np.nanquantile, x, q, axis=axis, keepdims=keepdims))
    for q in [37, [5, 95.5], 100]:
        exact(quiet(gp.nanpercentile, g, q, axis=axis, keepdims=keepdims), quiet(np.nanpercentile, x, q, axis=axis, keepdims=keepdims))
    exact(quiet(gp.nanmedian, g, axis=axis, keepdims=keepdims), quiet(np.nanmedian, x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_nan_order_statistics_of_views(rng, view):
    base = with_nans(rng, (9, 8), np.float64)
    x = view(base)
    g = view(gp.asarray(base))
    for axis in (None, 0, 1):
        exact(quiet(gp.nanmedian, g, axis=axis), quiet(np.nanmedian, x, axis=axis))
        exact(quiet(gp.nanquantile, g, [0.2, 0.7], axis=axis), quiet(np.nanquantile, x, [0.2, 0.7], axis=axis))


def test_all_nan_slices_warn_and_give_nan(rng):
    x = with_nans(rng, (4, 6), np.float32)
    x[0] = np.nan  # the first slice: NumPy then builds the result in a's dtype
    g = gp.asarray(x)
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        r = gp.nanmedian(g, axis=1)
    exact(r, quiet(np.nanmedian, x, axis=1))
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        r = gp.nanquantile(g, np.array([0.5, 0.9]), axis=1)
    exact(r, quiet(np.nanquantile, x, np.array([0.5, 0.9]), axis=1))
    x[0] = 1.0
    x[2] = np.nan  # a later slice: the result keeps the float64 of the array q
    exact(quiet(gp.nanquantile, gp.asarray(x), np.array([0.5]), axis=1), quiet(np.nanquantile, x, np.array([0.5]), axis=1))


@pytest.mark.parametrize("shape,axis", [((0, 3), 0), ((0, 3), 1), ((0,), None)])
def test_nan_order_statistics_of_empty_arrays(shape, axis):
    x = np.zeros(shape)
    exact(quiet(gp.nanmedian, gp.asarray(x), axis=axis), quiet(np.nanmedian, x, axis=axis))
    exact(quiet(gp.nanquantile, gp.asarray(x), [0.1, 0.5], axis=axis), quiet(np.nanquantile, x, [0.1, 0.5], axis=axis))


@pytest.mark.parametrize("dtype", [np.int16, np.int64, np.uint8], ids=dtype_id)
def test_nan_order_statistics_of_integers_are_the_plain_ones(rng, dtype):
    x = rng.integers(0, 100, (5, 7)).astype(dtype)
    g = gp.asarray(x)
    exact(gp.nanmedian(g, axis=1), np.nanmedian(x, axis=1))
    exact(gp.nanquantile(g, 0.3, axis=0), np.nanquantile(x, 0.3, axis=0))
    exact(gp.nanpercentile(g, [10, 60]), np.nanpercentile(x, [10, 60]))


def test_nanmedian_of_complex(rng):
    x = (rng.uniform(-1, 1, 9) + 1j * rng.uniform(-1, 1, 9))
    x[[2, 5]] = np.nan
    exact(gp.nanmedian(gp.asarray(x)), np.nanmedian(x))


def test_nan_quantile_out_and_errors(rng):
    x = with_nans(rng, (4, 5), np.float64)
    g = gp.asarray(x)
    out = gp.empty(5)
    r = gp.nanquantile(g, 0.4, axis=0, out=out)
    assert r is out
    exact(out, np.nanquantile(x, 0.4, axis=0))
    raises_like(lambda: gp.nanquantile(g, 1.5), lambda: np.nanquantile(x, 1.5), "range")
    raises_like(lambda: gp.nanpercentile(g, -1), lambda: np.nanpercentile(x, -1), "range")
    raises_like(lambda: gp.nanquantile(g, 0.5, method="foo"), lambda: np.nanquantile(x, 0.5, method="foo"), "not a valid method")
    raises_like(lambda: gp.nanquantile(g, 0.5, weights=np.ones(20)), lambda: np.nanquantile(x, 0.5, weights=np.ones(20)), "inverted_cdf")
    raises_like(lambda: gp.nanquantile(g.astype(np.complex64), 0.5), lambda: np.nanquantile(x.astype(np.complex64), 0.5), "real")
    with pytest.raises(NotImplementedError):
        gp.nanquantile(g, 0.5, method="lower")


# --- cov / corrcoef ----------------------------------------------------------------


def cov_atol(n, dtype):
    return 32 * (n + 2) * u(np.dtype(dtype).char.lower() if np.dtype(dtype).kind == "c" else dtype)


def close(got, want, atol):
    got = gp.asnumpy(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert_allclose(got, want, rtol=0, atol=atol, equal_nan=True)


def uniform(rng, shape, dtype):
    x = rng.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-1, 1, shape)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-2, 3, shape).astype(dtype)  # |centred| <= 4: 4x the float bound
    return np.asarray(x).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128, np.int32], ids=dtype_id)
@pytest.mark.parametrize("shape", [(3, 10), (10,), (1, 7), (4, 2), (5, 33)])
def test_cov_and_corrcoef_match_numpy(rng, dtype, shape):
    m = uniform(rng, shape, dtype)
    g = gp.asarray(m)
    n = shape[-1]
    fw = rng.integers(1, 4, n)
    aw = rng.random(n) * 4
    cases = [{}, {"rowvar": False}, {"bias": True}, {"ddof": 0}, {"fweights": fw}, {"aweights": aw},
             {"fweights": fw, "aweights": aw, "ddof": 1}, {"fweights": fw, "aweights": aw}]
    if np.dtype(dtype).kind != "c":
        cases.append({"dtype": np.float32})
    for kw in cases:
        want = quiet(np.cov, m, **kw)
        atol = cov_atol(max(shape), want.dtype) * (4 if np.issubdtype(m.dtype, np.integer) else 1)
        close(quiet(gp.cov, g, **{k: gp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}), want, atol)
    for kw in [{}, {"rowvar": False}] + ([{"dtype": np.float32}] if np.dtype(dtype).kind != "c" else []):
        want = quiet(np.corrcoef, m, **kw)
        close(quiet(gp.corrcoef, g, **kw), want, 4 * cov_atol(max(shape), want.dtype))
    y = uniform(rng, shape, np.float64)
    close(quiet(gp.cov, g, gp.asarray(y)), quiet(np.cov, m, y), cov_atol(max(shape), np.float64))
    close(quiet(gp.corrcoef, g, gp.asarray(y)), quiet(np.corrcoef, m, y), 4 * cov_atol(max(shape), np.float64))


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_cov_of_views(rng, view):
    base = uniform(rng, (9, 12), np.float64)
    x, g = view(base), view(gp.asarray(base))
    close(gp.cov(g), np.cov(x), cov_atol(12, np.float64))
    close(gp.corrcoef(g), np.corrcoef(x), 4 * cov_atol(12, np.float64))


def test_cov_edge_cases(rng):
    close(gp.cov(gp.zeros((0, 3))), np.cov(np.zeros((0, 3))), 0)
    x = uniform(rng, (2, 1), np.float64)  # one observation: N - 1 = 0 degrees of freedom
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        r = quiet_divide(gp.cov, gp.asarray(x))
    close(r, quiet(np.cov, x), 0)
    c = uniform(rng, (6,), np.float64)
    close(gp.corrcoef(gp.asarray(c)), np.corrcoef(c), 0)  # one variable: c / c
    m = gp.asarray(uniform(rng, (2, 5), np.float64))
    raises_like(lambda: gp.cov(m, fweights=gp.asarray([1, 2.5, 1, 1, 1])), lambda: np.cov(gp.asnumpy(m), fweights=[1, 2.5, 1, 1, 1]), "integer")
    raises_like(lambda: gp.cov(m, fweights=[1, -2, 1, 1, 1]), lambda: np.cov(gp.asnumpy(m), fweights=[1, -2, 1, 1, 1]), "negative")
    raises_like(lambda: gp.cov(m, aweights=[1, 2, 1]), lambda: np.cov(gp.asnumpy(m), aweights=[1, 2, 1]), "incompatible")
    raises_like(lambda: gp.cov(gp.zeros((2, 2, 2))), lambda: np.cov(np.zeros((2, 2, 2))), "more than 2")
    raises_like(lambda: gp.cov(m, ddof=1.5), lambda: np.cov(gp.asnumpy(m), ddof=1.5), "integer")


def quiet_divide(f, *args):
    with np.errstate(divide="ignore", invalid="ignore"):
        return f(*args)


# --- histograms -----------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(20, 2), (0, 3), (15, 3), (31, 1)])
def test_histogramdd_matches_numpy(rng, shape):
    s = rng.normal(size=shape)
    if shape[0]:
        s[0] = s.max(axis=0)  # values on the last edges count in the last bins
    d = shape[1]
    bin_choices = [5, [3, 4, 2][:d], [np.sort(rng.normal(size=6)) for _ in range(d)]]
    for bins in bin_choices:
        for kw in [{}, {"density": True}, {"weights": rng.random(shape[0])}, {"range": [(-1, 1)] * d}]:
            if shape[0] == 0 and kw.get("density"):
                continue
            wh, we = np.histogramdd(s, bins, **kw)
            gkw = {k: gp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
            gh, ge = gp.histogramdd(gp.asarray(s), bins, **gkw)
            assert_allclose(gp.asnumpy(gh), wh, rtol=4 * u(np.float64), atol=0)
            assert gp.asnumpy(gh).dtype == wh.dtype
            assert len(ge) == len(we)
            for a, b in zip(ge, we):
                exact(a, b)


def test_histogramdd_of_views_and_sequences(rng):
    base = rng.normal(size=(40, 6))
    x = base[::2, 1::2]  # a non-contiguous (20, 3) sample
    wh, _ = np.histogramdd(x, 4)
    gh, _ = gp.histogramdd(gp.asarray(base)[::2, 1::2], 4)
    exact(gh, wh)
    cols = [rng.normal(size=12) for _ in range(2)]
    exact(gp.histogramdd([gp.asarray(c) for c in cols], 3)[0], np.histogramdd(cols, 3)[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8], ids=dtype_id)
def test_histogram2d_matches_numpy(rng, dtype):
    x = rng.uniform(0, 50, 30).astype(dtype)
    y = rng.uniform(-9, 9, 30).astype(dtype) if np.dtype(dtype).kind != "u" else rng.uniform(0, 9, 30).astype(dtype)
    for bins in [[4, 6], 7, np.linspace(0, 50, 9)]:
        for kw in [{}, {"density": True}, {"weights": rng.random(30)}]:
            want = np.histogram2d(x, y, bins=bins, **kw)
            gkw = {k: gp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
            got = gp.histogram2d(gp.asarray(x), gp.asarray(y), bins=bins, **gkw)
            assert_allclose(gp.asnumpy(got[0]), want[0], rtol=4 * u(np.float64), atol=0)
            exact(got[1], want[1])
            exact(got[2], want[2])
    raises_like(lambda: gp.histogram2d(gp.asarray(x), gp.asarray(y[:5])), lambda: np.histogram2d(x, y[:5]), "same length")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int16, np.uint8, np.int64, np.bool_],
                         ids=dtype_id)
def test_histogram_bin_edges_matches_numpy(rng, dtype):
    a = rng.uniform(0, 50, 40).astype(dtype)
    g = gp.asarray(a)
    for bins in [7, 1, [0, 3, 10]]:
        exact(quiet(gp.histogram_bin_edges, g, bins), quiet(np.histogram_bin_edges, a, bins))
    exact(quiet(gp.histogram_bin_edges, g, 4, range=(2, 9)), quiet(np.histogram_bin_edges, a, 4, range=(2, 9)))
    same = np.full(5, a[0])
    exact(quiet(gp.histogram_bin_edges, gp.asarray(same), 4), quiet(np.histogram_bin_edges, same, 4))
    exact(gp.histogram_bin_edges(gp.zeros(0, dtype=np.float32), 3), np.histogram_bin_edges(np.zeros(0, np.float32), 3))
    raises_like(lambda: gp.histogram_bin_edges(g, [3, 1]), lambda: np.histogram_bin_edges(a, [3, 1]), "monotonically")
    raises_like(lambda: gp.histogram_bin_edges(g, 0), lambda: np.histogram_bin_edges(a, 0), "positive")
    raises_like(lambda: gp.histogram_bin_edges(g, "nope"), lambda: np.histogram_bin_edges(a, "nope"), "estimator")


# --- lexsort --------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(9,), (4, 7), (0,), (3, 0), (2, 3, 5)])
@pytest.mark.parametrize("axis", [-1, 0])
def test_lexsort_matches_numpy(rng, shape, axis):
    keys = [rng.integers(0, 3, shape), rng.integers(0, 2, shape).astype(np.bool_), rng.normal(size=shape).astype(np.float32)]
    keys[2][rng.random(shape) < 0.2] = np.nan  # NaNs sort last, as in NumPy
    exact(gp.lexsort([gp.asarray(k) for k in keys], axis=axis), np.lexsort(keys, axis=axis))
    two = np.array(keys[:2], dtype=np.int64)
    exact(gp.lexsort(gp.asarray(two), axis=axis), np.lexsort(two, axis=axis))


def test_lexsort_of_views_and_errors(rng):
    base = rng.integers(0, 4, (3, 20))
    exact(gp.lexsort(gp.asarray(base)[:, ::-2]), np.lexsort(base[:, ::-2]))
    exact(gp.lexsort([1, 2]), np.lexsort([1, 2]))
    raises_like(lambda: gp.lexsort([]), lambda: np.lexsort([]), "len > 0")
    raises_like(lambda: gp.lexsort([gp.ones(2), gp.ones(3)]), lambda: np.lexsort([np.ones(2), np.ones(3)]), "same shape")
    raises_like(lambda: gp.lexsort([gp.ones((2, 3))], axis=2), lambda: np.lexsort([np.ones((2, 3))], axis=2))
