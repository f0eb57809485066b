"""gpupyx.scipy.ndimage's labels, measurements by label and distance transform against
scipy.ndimage (on the CPU, same data): ``label``, ``find_objects``, ``sum_labels``,
``sum``, ``mean``, ``variance``, ``standard_deviation``, ``minimum``, ``maximum``,
``median``, ``minimum_position``, ``maximum_position``, ``extrema``, ``center_of_mass``,
``histogram``, ``labeled_comprehension``, ``distance_transform_edt``; random binary
images of several densities (the percolation thresholds included: long snaking
components), 1-d to 4-d, every structure kind, views, every input dtype, every
``labels``/``index`` form, outputs, SciPy's errors.

Exact comparisons: labels and their count (SciPy's numbering, not up to a
permutation), boxes, minima, maxima, medians (the same two elements averaged in the
same dtype), histograms, integer sums, positions of extremes that are unique (SciPy
takes a tied extreme's position from an unstable sort; gpupy the first in C order, so
for ties the value at the position is checked), and the distance transform: features
(ties included) and distances bit for bit, since the kernels run SciPy's algorithm in
its floating-point operations.

Float tolerances (``u`` the unit roundoff of float64, ``n`` a label's element count,
``S`` the sum of its ``|x|``): a float64 sum of n terms in any order is within
``(n - 1) u S`` of the exact sum, so SciPy's (``bincount``, in element order) and
gpupy's (``bincount``, float64 atomics) differ by at most ``2 (n - 1) u S <= n eps S``
(``sum_bound``). A single group (labels or index None, scalar index) is summed by NumPy
in the input's dtype: for float32 its pairwise sum is within ``(7 + log2 n) u32 S``,
gpupy's (a float64 accumulation rounded once) within ``u32 S + n u S``. A mean adds one
rounding of each side (``u |mean|`` twice). A variance is a sum of squared deviations
from each side's own mean: its ``n`` squares and their sum add ``(2 n + 6) u SS``
(``SS`` the sum of squares), and the means' difference ``dm`` adds ``3 n dm^2``, all
over ``n`` (for a float32 single group both sides square and sum in float32: another
``(2 n + 12) u32 SS / n``); a standard deviation's error is the variance's over
``sd_gpupy + sd_scipy``.
Centers of mass use positive masses: each coordinate is a ratio of two sums of positive
terms (each within ``(n + 1) u`` relatively), so the two sides differ by at most
``(8 n + 2) u`` relatively.
"""

import math
import re

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.ndimage as gnd
from helpers import ALL_DTYPES, dtype_id, random_array, raises_as_numpy

nd = pytest.importorskip("scipy.ndimage")

pytestmark = pytest.mark.gpu

U64 = np.finfo(np.float64).eps / 2
U32 = np.finfo(np.float32).eps / 2


def host(a):
    """A gpupy result (or a tuple/list of them) as NumPy."""
    if isinstance(a, gp.ndarray):
        return a.get()
    if isinstance(a, (tuple, list)):
        return type(a)(host(v) for v in a)
    return a


def structure_of(kind, ndim, rng):
    """The cross (connectivity 1), the full 3^n structure, or a random symmetric one."""
    if kind == "cross":
        return nd.generate_binary_structure(ndim, 1)
    if kind == "full":
        return nd.generate_binary_structure(ndim, ndim)
    s = rng.random((3,) * ndim) < 0.4
    s = s | s[(slice(None, None, -1),) * ndim]
    s[(1,) * ndim] = True
    return s


def assert_labels(got, want):
    g, n = got
    w, m = want
    assert isinstance(g, gp.ndarray)
    assert n == m
    assert g.dtype == w.dtype and g.shape == w.shape
    np.testing.assert_array_equal(g.get(), w)


# ---------------------------------------------------------------------------------------
# label

LABEL_SHAPES = [(1,), (37,), (23, 41), (9, 13, 11), (3, 4, 2, 5)]
# Around the percolation thresholds (2-d cross 0.593, 2-d full 0.407, 3-d cross 0.312).
DENSITIES = [0.0, 0.15, 0.31, 0.41, 0.5, 0.593, 0.8, 1.0]


@pytest.mark.parametrize("kind", ["cross", "full", "custom"])
@pytest.mark.parametrize("shape", LABEL_SHAPES, ids=str)
def test_label_matches_scipy(rng, shape, kind):
    s = structure_of(kind, len(shape), rng)
    for density in DENSITIES:
        x = rng.random(shape) < density
        assert_labels(gnd.label(gp.asarray(x), s), nd.label(x, s))
    # The structure as a gpupy array, as integers.
    x = rng.random(shape) < 0.5
    assert_labels(gnd.label(gp.asarray(x), gp.asarray(s.astype(np.int8))), nd.label(x, s))


@pytest.mark.parametrize("shape,density,kind", [
    ((1000, 1000), 0.593, "cross"),
    ((1000, 1000), 0.407, "full"),
    ((4097, 3), 0.6, "cross"),
    ((3, 4099), 0.6, "full"),
    ((96, 97, 98), 0.312, "cross"),
], ids=str)
def test_label_large_near_percolation(rng, shape, density, kind):
    x = rng.random(shape) < density
    s = structure_of(kind, len(shape), rng)
    assert_labels(gnd.label(gp.asarray(x), s), nd.label(x, s))


def test_label_snakes(rng):
    # A spiral and a comb: components that wind through the whole image.
    n = 61
    spiral = np.zeros((n, n), bool)
    r, c, dr, dc = 0, 0, 0, 1
    lo, hi = 0, n - 1
    for _ in range(n * n):
        spiral[r, c] = True
        nr, nc = r + 2 * dr, c + 2 * dc
        if not (lo <= nr <= hi and lo <= nc <= hi) or spiral[nr, nc]:
            dr, dc = dc, -dr
            nr, nc = r + dr, c + dc
            if spiral[nr, nc] if (0 <= nr < n and 0 <= nc < n) else True:
                break
        r, c = r + dr, c + dc
    comb = np.zeros((40, 50), bool)
    comb[:, ::2] = True
    comb[0, :] = True
    comb[-1, 1::4] = True
    for x in (spiral, comb, comb.T, comb[::-1]):
        for s in (None, nd.generate_binary_structure(2, 2)):
            assert_labels(gnd.label(gp.asarray(x), s), nd.label(x, s))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_label_every_input_dtype(rng, dtype):
    x = random_array(rng, (17, 23), dtype)
    x[rng.random(x.shape) < 0.45] = 0
    if np.dtype(dtype).kind == "f":
        x[rng.random(x.shape) < 0.05] = np.nan  # NaN is a feature (nonzero)
    if dtype == np.float16 or np.dtype(dtype).kind == "c":  # SciPy labels neither
        raises_as_numpy(lambda: gnd.label(gp.asarray(x)), lambda: nd.label(x))
        return
    assert_labels(gnd.label(gp.asarray(x)), nd.label(x))


def test_label_views(rng):
    base = rng.random((30, 41)) < 0.55
    g = gp.asarray(base)
    for view in (lambda a: a.T, lambda a: a[::-1], lambda a: a[:, ::2], lambda a: a[1:-1, ::-3],
                 lambda a: a.T[::2, 1:]):
        assert_labels(gnd.label(view(g)), nd.label(view(base)))
    base3 = rng.random((6, 7, 8)) < 0.4
    v = lambda a: a.transpose(2, 0, 1)[::-1]  # noqa: E731
    s = nd.generate_binary_structure(3, 2)
    assert_labels(gnd.label(v(gp.asarray(base3)), s), nd.label(v(base3), s))


def test_label_outputs(rng):
    x = rng.random((25, 31)) < 0.5
    want, count = nd.label(x)
    for dtype in (np.int16, np.int64, np.uint16, np.float32, np.float64):
        assert_labels(gnd.label(gp.asarray(x), output=dtype), nd.label(x, output=dtype))
    # An output array: filled in place, the count returned.
    out = gp.empty(x.shape, np.int32)
    assert gnd.label(gp.asarray(x), output=out) == count
    np.testing.assert_array_equal(out.get(), want)
    # An output of another layout: SciPy numbers along its smallest-stride axis.
    for make in (lambda m: m.empty((31, 25), np.int32).T, lambda m: m.empty((25, 62), np.int64)[:, ::2],
                 lambda m: m.empty((25, 31), np.int32)[::-1]):
        gout, sout = make(gp), make(np)
        for s in (None, nd.generate_binary_structure(2, 2)):
            assert gnd.label(gp.asarray(x), s, output=gout) == nd.label(x, s, output=sout)
            np.testing.assert_array_equal(gout.get(), sout)
    # In place over the input (SciPy allows output=input).
    a = (rng.random((20, 20)) < 0.5).astype(np.int32)
    ga = gp.asarray(a)
    assert gnd.label(ga, output=ga) == nd.label(a, output=a)
    np.testing.assert_array_equal(ga.get(), a)
    # Labels that fit a small type, and too many for it.
    few = np.zeros((4, 50), bool)
    few[1, ::2] = True
    assert_labels(gnd.label(gp.asarray(few), output=np.uint8), nd.label(few, output=np.uint8))
    many = np.zeros((2, 600), bool)
    many[0, ::2] = True  # 300 labels
    for dtype in (np.int8, np.uint8):
        raises_as_numpy(lambda: gnd.label(gp.asarray(many), output=dtype), lambda: nd.label(many, output=dtype))


def test_label_special_inputs(rng):
    for x in (np.zeros((5, 6)), np.ones((5, 6)), np.zeros((0, 4)), np.zeros((3, 0, 2)), np.array(0.0),
              np.array(2.5), np.ones(1), np.zeros(1)):
        assert_labels(gnd.label(gp.asarray(x)), nd.label(x))
    out = gp.zeros((), np.int32)
    assert gnd.label(gp.asarray(np.array(3)), output=out) == 1
    assert int(out) == 1


def test_label_errors(rng):
    x = rng.random((4, 5)) < 0.5
    cases = [
        (np.ones(3, np.complex64), None, None),
        (x, np.ones((3, 3, 3)), None),
        (x, np.ones((3, 2)), None),
        (x, np.array([[0, 1, 0], [1, 1, 0], [0, 0, 0]]), None),  # not symmetric
    ]
    for a, s, out in cases:
        raises_as_numpy(lambda: gnd.label(gp.asarray(a), s, out), lambda: nd.label(a, s, out))
    raises_as_numpy(lambda: gnd.label(gp.asarray(x), output=gp.empty((5, 4), np.int32)),
                    lambda: nd.label(x, output=np.empty((5, 4), np.int32)))
    for dtype in (np.float16, np.complex64):  # outputs SciPy's labelling cannot write
        raises_as_numpy(lambda: gnd.label(gp.asarray(x), output=dtype), lambda: nd.label(x, output=dtype))


# ---------------------------------------------------------------------------------------
# find_objects


def assert_objects(got, want):
    assert got == want, f"{got} != {want}"


@pytest.mark.parametrize("shape", [(29,), (13, 17), (5, 6, 7), (2, 3, 4, 5)], ids=str)
def test_find_objects_of_labels(rng, shape):
    labels, n = nd.label(rng.random(shape) < 0.45)
    g = gp.asarray(labels)
    assert_objects(gnd.find_objects(g), nd.find_objects(labels))
    for m in (1, max(n // 2, 1), n + 3):
        assert_objects(gnd.find_objects(g, max_label=m), nd.find_objects(labels, max_label=m))
    # Large objects (few labels covering long runs), views.
    blocks = (rng.integers(0, 4, size=tuple(max(k // 3, 1) for k in shape)))
    big = np.kron(blocks, np.ones((3,) * len(shape), blocks.dtype))
    assert_objects(gnd.find_objects(gp.asarray(big)), nd.find_objects(big))
    if len(shape) > 1:
        v = lambda a: a.T[::-1]  # noqa: E731
        assert_objects(gnd.find_objects(v(g)), nd.find_objects(v(labels)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_find_objects_every_dtype(rng, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = (rng.integers(-2, 6, size=(9, 11)) + rng.choice([0.0, 0.25, 0.75], size=(9, 11))).astype(dt)
    elif dt.kind == "b":
        x = rng.random((9, 11)) < 0.5
    else:
        x = rng.integers(0, 6, size=(9, 11)).astype(dt)
        if dt.kind == "i":
            x[0, :3] = -1
    g = gp.asarray(x)
    for m in (0, 3, 7):
        raises_or_equal(lambda: gnd.find_objects(g, max_label=m), lambda: nd.find_objects(x, max_label=m))


def raises_or_equal(gcall, scall):
    try:
        want = scall()
    except Exception as e:  # noqa: BLE001 - SciPy's outcome is the expectation
        with pytest.raises(type(e), match=f"^{re.escape(str(e))}$"):
            gcall()
        return
    assert_objects(gcall(), want)


def test_find_objects_special(rng):
    for x, m in ((np.array(2), 3), (np.array(0), 2), (np.zeros((3, 4), int), 0), (np.zeros((3, 4), int), 2),
                 (np.zeros((0, 4), int), 0), (np.zeros((0, 4), int), 2), (np.array([1 + 1j]), 1),
                 (np.array([1, 2], np.uint64) + np.uint64(2**63), 3)):
        raises_or_equal(lambda: gnd.find_objects(gp.asarray(x), max_label=m), lambda: nd.find_objects(x, max_label=m))


# ---------------------------------------------------------------------------------------
# Measurements by label


def sum_bound(x, labels, index, dtype):
    """The bound of the module docstring on a sum (per index entry with an index)."""
    a = np.abs(x.astype(np.float64))
    if labels is None:
        n, s = x.size, a.sum()
    elif index is None or np.isscalar(index):
        sel = labels > 0 if index is None else labels == index
        a = np.broadcast_to(a, np.broadcast_shapes(a.shape, labels.shape))
        n, s = int(sel.sum()), a[np.broadcast_to(sel, a.shape)].sum()
    else:
        ones = np.ones(np.broadcast_shapes(x.shape, labels.shape))
        n = nd.sum_labels(ones, labels, index)
        s = nd.sum_labels(np.broadcast_to(a, ones.shape), labels, index)
    if (labels is None or index is None or np.isscalar(index)) and np.dtype(dtype) == np.float32:
        return (7 + math.log2(max(n, 2)) + 1) * U32 * s + n * U64 * s
    return np.maximum(n, 1) * 2 * U64 * s


def label_data(rng, shape, dtype, kind):
    """(input, labels) of one of the label kinds: small non-negative ints (SciPy's
    direct path), large and negative ints and floats (its unique-label path), bools."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = rng.uniform(-4, 4, size=shape).astype(dt)
    elif dt.kind == "b":
        x = rng.random(shape) < 0.5
    elif dt.kind == "i":
        x = rng.integers(-1000, 1000, size=shape).astype(dt)
    else:
        x = rng.integers(0, 2000, size=shape).astype(dt)
    if kind == "small":
        labels = rng.integers(0, 6, size=shape)
    elif kind == "large":
        labels = rng.choice([-7, 0, 3, 10**6, 2**40], size=shape)
    elif kind == "float":
        labels = rng.choice([0.0, 1.0, 2.5, -3.0], size=shape)
    elif kind == "uint8":
        labels = rng.integers(0, 5, size=shape).astype(np.uint8)
    else:
        labels = rng.random(shape) < 0.5
    return x, labels


INDEXES = {
    "small": [None, 1, 9, [1, 2, 3], [0, 4, 9, -1], np.array([[2, 5], [5, 1]])],
    "large": [None, 3, 10**6, [3, 10**6, 2**40, -7, 0, 5]],
    "float": [None, 2.5, [1.0, 2.5, -3.0, 7.0]],
    "uint8": [None, 2, [0, 1, 4, 300]],
    "bool": [None, True, [True, False]],
}


def call_both(name, x, labels, index):
    """SciPy's and gpupy's results, or both their exceptions' (type, message)."""
    f, g = getattr(nd, name), getattr(gnd, name)
    glabels = None if labels is None else gp.asarray(labels)
    gindex = gp.asarray(index) if isinstance(index, np.ndarray) else index
    with np.errstate(all="ignore"):
        try:
            want = f(x, labels, index)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                g(gp.asarray(x), glabels, gindex)
            return None, None
    return host(g(gp.asarray(x), glabels, gindex)), want


def assert_close_to(got, want, bound):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape, (got.shape, want.shape)
    same_nan = np.isnan(got) == np.isnan(want)
    assert same_nan.all(), (got, want)
    ok = np.isnan(want) | (np.abs(got - want) <= bound)
    assert ok.all(), f"{got} vs {want} (bound {bound})"


STAT_CASES = [(dtype, kind) for dtype in (np.float64, np.float32, np.int32, np.uint8, np.int64, np.bool_)
              for kind in ("small", "large", "float", "uint8", "bool")]


@pytest.mark.parametrize("dtype,kind", STAT_CASES, ids=lambda v: v if isinstance(v, str) else dtype_id(v))
def test_sums_means_variances(rng, dtype, kind):
    shape = (13, 17)
    x, labels = label_data(rng, shape, dtype, kind)
    for labs in (None, labels):
        for index in (INDEXES[kind] if labs is not None else [None]):
            exact_ints = np.dtype(dtype).kind in "biu"
            for name in ("sum_labels", "sum", "mean", "variance", "standard_deviation"):
                got, want = call_both(name, x, labs, index)
                if want is None:
                    continue
                assert np.asarray(got).dtype == np.asarray(want).dtype, (name, got, want)
                if name in ("sum_labels", "sum") and exact_ints:
                    np.testing.assert_array_equal(got, want)
                    continue
                sb = sum_bound(x, labs, index, dtype)
                if name in ("sum_labels", "sum"):
                    assert_close_to(got, want, sb)
                    continue
                count = np.asarray(nd.sum_labels(np.ones(shape), labs, index) if labs is not None else x.size,
                                   np.float64)
                with np.errstate(all="ignore"):
                    mean_w = np.asarray(nd.mean(x, labs, index), np.float64)
                    mean_bound = sb / count + 2 * U64 * np.abs(mean_w)
                    if np.dtype(dtype) == np.float32 and (labs is None or index is None or np.isscalar(index)):
                        mean_bound = mean_bound + 2 * U32 * np.abs(mean_w)
                    if name == "mean":
                        assert_close_to(got, want, mean_bound)
                        continue
                    var_w = np.asarray(nd.variance(x, labs, index), np.float64)
                    ss = var_w * count
                    var_bound = ((2 * count + 6) * U64 * ss + 3 * count * mean_bound**2) / count
                    if np.dtype(dtype) == np.float32 and (labs is None or index is None or np.isscalar(index)):
                        var_bound = var_bound + (2 * count + 12) * U32 * ss / count
                    if name == "variance":
                        assert_close_to(got, want, var_bound)
                    else:
                        denom = np.maximum(np.asarray(got, np.float64) + np.asarray(want, np.float64), 1e-300)
                        assert_close_to(got, want, var_bound / denom)


@pytest.mark.parametrize("dtype,kind", STAT_CASES, ids=lambda v: v if isinstance(v, str) else dtype_id(v))
def test_extremes_and_medians(rng, dtype, kind):
    shape = (11, 19)
    x, labels = label_data(rng, shape, dtype, kind)
    distinct = np.dtype(dtype).kind == "f"  # float data has no ties: positions compare exactly
    for labs in (None, labels):
        for index in (INDEXES[kind] if labs is not None else [None]):
            for name in ("minimum", "maximum", "median"):
                got, want = call_both(name, x, labs, index)
                if want is not None:
                    assert np.asarray(got).dtype == np.asarray(want).dtype, (name, got, want)
                    np.testing.assert_array_equal(got, want)
            for name in ("minimum_position", "maximum_position"):
                got, want = call_both(name, x, labs, index)
                if want is None:
                    continue
                check_positions(got, want, x, labs, index, name, distinct)
            got, want = call_both("extrema", x, labs, index)
            if want is not None:
                np.testing.assert_array_equal(got[0], want[0])
                np.testing.assert_array_equal(got[1], want[1])
                check_positions(got[2], want[2], x, labs, index, "minimum_position", distinct)
                check_positions(got[3], want[3], x, labs, index, "maximum_position", distinct)


def check_positions(got, want, x, labels, index, name, distinct):
    """Positions equal SciPy's; with ties in a sequence index's groups, the value there
    is the group's extreme and the position is the group's first holding it."""
    single = labels is None or index is None or np.isscalar(index)
    assert type(got) is type(want)
    if single or distinct:
        assert [tuple(int(c) for c in p) for p in (got if isinstance(got, list) else [got])] == \
            [tuple(int(c) for c in p) for p in (want if isinstance(want, list) else [want])]
        return
    extreme = nd.minimum if name == "minimum_position" else nd.maximum
    values = np.asarray(extreme(x, labels, index)).ravel()
    xb, lb = np.broadcast_arrays(x, labels)
    for p, w, v, i in zip(got, want, values, np.ravel(index)):
        members = lb == i
        if not members.any():
            assert p == tuple(int(c) for c in w)  # SciPy's (0, ..) for a missing label
            continue
        assert xb[p] == v and members[p]
        first = np.argwhere(members & (xb == v))[0]
        assert p == tuple(int(c) for c in first)


def test_extremes_with_nans_and_zeros(rng):
    x = rng.uniform(-1, 1, size=(40,))
    x[::7] = np.nan
    x[3] = -0.0
    labels = rng.integers(0, 4, size=40)
    index = [0, 1, 2, 3, 5]
    # SciPy's sequence-index path: minima skip NaNs, maxima take them (its sort puts
    # NaN last); gpupy does the same.
    for name in ("minimum", "maximum", "median"):
        got, want = call_both(name, x, labels, index)
        np.testing.assert_array_equal(got, want)
    all_nan = np.full(6, np.nan)
    got, want = call_both("minimum", all_nan, np.array([1, 1, 2, 2, 0, 0]), [1, 2])
    np.testing.assert_array_equal(got, want)


def test_measurements_broadcast_and_views(rng):
    x = rng.uniform(0, 1, size=(12, 15))
    labels = rng.integers(0, 5, size=(1, 15))
    for name in ("sum_labels", "mean", "minimum", "maximum", "median"):
        got, want = call_both(name, x, labels, [0, 1, 2, 4])
        assert_close_to(got, want, 64 * U64 * np.abs(np.asarray(want, np.float64)) + 1e-300)
    xv, lv = x[::-1, ::2], rng.integers(0, 4, size=(12, 15)).T[::2, ::-1].T
    for name in ("sum_labels", "minimum", "maximum", "median"):
        got = host(getattr(gnd, name)(gp.asarray(x)[::-1, ::2], gp.asarray(lv), [1, 2, 3]))
        want = getattr(nd, name)(xv, lv, [1, 2, 3])
        assert_close_to(got, want, 64 * U64 * np.abs(np.asarray(want, np.float64)) + 1e-300)


def test_center_of_mass(rng):
    for shape in ((23,), (9, 14), (5, 6, 7)):
        x = rng.uniform(0.5, 2.0, size=shape)  # positive masses (see the module docstring)
        labels, n = nd.label(rng.random(shape) < 0.5)
        gx, gl = gp.asarray(x), gp.asarray(labels)
        want = nd.center_of_mass(x)
        got = gnd.center_of_mass(gx)
        assert isinstance(got, tuple) and len(got) == len(shape)
        assert_close_to([float(v) for v in got], want, (8 * x.size + 2) * U64 * np.abs(want))
        for index in (None, 1, [1, 2, n, n + 4]):
            with np.errstate(all="ignore"):
                want = np.array(nd.center_of_mass(x, labels, index), np.float64)
            got = gnd.center_of_mass(gx, gl, index)
            got = np.array([host(v) for v in got], np.float64)
            count = x.size if index is None else np.asarray(nd.sum_labels(np.ones(shape), labels, index))
            bound = (8 * np.reshape(count, (-1, 1) if want.ndim > 1 else ()) + 2) * U64 * np.abs(want)
            assert_close_to(got, want, bound)


def test_histogram(rng):
    x = rng.uniform(-1, 3, size=(20, 30))
    x[0, :5] = [0.0, 2.0, -0.5, np.nan, 2.0 / 3]
    labels = rng.integers(0, 6, size=x.shape)
    gx, gl = gp.asarray(x), gp.asarray(labels)
    for lo, hi, bins in ((0.0, 2.0, 6), (-1.0, 3.0, 1), (0.5, 0.5, 3), (0.0, 2.0, 0)):
        np.testing.assert_array_equal(host(gnd.histogram(gx, lo, hi, bins)), nd.histogram(x, lo, hi, bins))
        np.testing.assert_array_equal(host(gnd.histogram(gx, lo, hi, bins, gl)),
                                      nd.histogram(x, lo, hi, bins, labels))
        want = nd.histogram(x, lo, hi, bins, labels, 3)
        np.testing.assert_array_equal(host(gnd.histogram(gx, lo, hi, bins, gl, 3)), want)
        index = [3, 0, 9, 5]
        want = nd.histogram(x, lo, hi, bins, labels, index)
        got = gnd.histogram(gx, lo, hi, bins, gl, index)
        assert got.dtype == object and got.shape == want.shape
        for g, w in zip(got, want):
            assert (g is None) == (w is None)
            if w is not None:
                np.testing.assert_array_equal(host(g), w)
    raises_as_numpy(lambda: gnd.histogram(gx, 2.0, 1.0, 4), lambda: nd.histogram(x, 2.0, 1.0, 4))


def test_labeled_comprehension(rng):
    x = rng.uniform(-1, 1, size=(15, 16))
    labels = rng.integers(0, 5, size=x.shape)
    gx, gl = gp.asarray(x), gp.asarray(labels)
    for index in ([1, 2, 7], 3, np.array([4, 0]), None):
        want = nd.labeled_comprehension(x, labels, index, np.max, np.float64, -1.0)
        got = gnd.labeled_comprehension(gx, gl, index, np.max, np.float64, -1.0)
        np.testing.assert_array_equal(host(got), want)
        # Positions: the first of each label (its values arrive in C order).
        want = nd.labeled_comprehension(x, labels, index, lambda v, p: p.min(), np.int64, -1, pass_positions=True)
        got = gnd.labeled_comprehension(gx, gl, index, lambda v, p: p.min(), np.int64, -1, pass_positions=True)
        np.testing.assert_array_equal(host(got), want)
        # A sum (float64, any order): within the sum bound.
        want = nd.labeled_comprehension(x, labels, index, np.sum, np.float64, 0.0)
        got = gnd.labeled_comprehension(gx, gl, index, np.sum, np.float64, 0.0)
        assert_close_to(host(got), want, sum_bound(x, labels, index, np.float64))
    # Object results, and labels None. (The two smallest values: SciPy groups the
    # values by an unstable argsort of the labels, so their order within a label is not
    # C order on every input, and a function of that order cannot be compared.)
    want = nd.labeled_comprehension(x, labels, [1, 9], lambda v: np.sort(v)[:2], object, None)
    got = gnd.labeled_comprehension(gx, gl, [1, 9], lambda v: np.sort(v)[:2], object, None)
    assert got.dtype == object and got[1] is None and want[1] is None
    np.testing.assert_array_equal(got[0], want[0])
    assert gnd.labeled_comprehension(gx, None, None, np.max, float, 0) == \
        nd.labeled_comprehension(x, None, None, np.max, float, 0)
    raises_as_numpy(lambda: gnd.labeled_comprehension(gx, None, [1], np.max, float, 0),
                    lambda: nd.labeled_comprehension(x, None, [1], np.max, float, 0))
    raises_as_numpy(lambda: gnd.labeled_comprehension(gx, gp.asarray(labels[:3]), [1], np.max, float, 0),
                    lambda: nd.labeled_comprehension(x, labels[:3], [1], np.max, float, 0))
    raises_as_numpy(lambda: gnd.labeled_comprehension(gx, gl, [1.5], np.max, float, 0),
                    lambda: nd.labeled_comprehension(x, labels, [1.5], np.max, float, 0))


def test_measurement_errors(rng):
    x = rng.uniform(-1, 1, size=(6, 7))
    labels = rng.integers(0, 3, size=(6, 7))
    gx, gl = gp.asarray(x), gp.asarray(labels)
    # bincount takes no complex weights: SciPy's TypeError with a sequence index.
    c = x + 1j
    with pytest.raises(TypeError):
        nd.sum_labels(c, labels, [1, 2])
    with pytest.raises(TypeError):
        gnd.sum_labels(gp.asarray(c), gl, [1, 2])
    # An empty group has no minimum.
    raises_as_numpy(lambda: gnd.minimum(gx, gl, 7), lambda: nd.minimum(x, labels, 7))
    with pytest.raises(ValueError):
        nd.sum_labels(x, labels[:4], [1])
    with pytest.raises(ValueError):
        gnd.sum_labels(gx, gl[:4], [1])


# ---------------------------------------------------------------------------------------
# distance_transform_edt


def assert_edt(got, want):
    """Distances bit for bit, features exactly (SciPy's, ties included)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_edt(g, w)
        return
    assert isinstance(got, gp.ndarray)
    g = got.get()
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, g.shape, want.dtype, want.shape)
    np.testing.assert_array_equal(g, want)


EDT_SHAPES = [(1,), (41,), (23, 37), (64, 5), (5, 64), (9, 10, 11), (3, 4, 5, 6)]
EDT_DENSITIES = [0.0, 0.05, 0.5, 0.9, 0.995, 1.0]  # of foreground (nonzero) elements


@pytest.mark.parametrize("shape", EDT_SHAPES, ids=str)
def test_edt_matches_scipy(rng, shape):
    ndim = len(shape)
    samplings = [None, [0.5, 2.0, 1.25, 0.75][:ndim], [0.3, 1.7, 0.9, 2.2][:ndim], 2.0]
    for density in EDT_DENSITIES:
        x = rng.random(shape) < density
        gx = gp.asarray(x)
        for sampling in samplings:
            want = nd.distance_transform_edt(x, sampling, return_indices=True)
            assert_edt(gnd.distance_transform_edt(gx, sampling, return_indices=True), want)
    # A lattice of background points: every element has tied nearest features.
    lattice = np.ones(shape, bool)
    lattice[tuple(slice(None, None, 3) for _ in shape)] = False
    lattice[tuple(slice(1, None, 4) for _ in shape)] = False
    for sampling in (None, [1.5] * ndim):
        want = nd.distance_transform_edt(lattice, sampling, return_indices=True)
        assert_edt(gnd.distance_transform_edt(gp.asarray(lattice), sampling, return_indices=True), want)


def test_edt_one_dimension(rng):
    # One long line (found by scans), and samplings outside [1e-100, 1e100] (the kernel,
    # where SciPy's arithmetic keeps other sites).
    for n, density in ((100003, 0.999), (100003, 0.5), (5000, 1.0), (2, 0.5)):
        x = rng.random(n) < density
        for sampling in (None, 0.7, 1e-200, 1e200, -2.0):
            want = nd.distance_transform_edt(x, sampling, return_indices=True)
            assert_edt(gnd.distance_transform_edt(gp.asarray(x), sampling, return_indices=True), want)


def test_edt_large(rng):
    for shape, density in (((300, 401), 0.97), ((40, 50, 60), 0.9), ((2049, 7), 0.999)):
        x = rng.random(shape) < density
        want = nd.distance_transform_edt(x, return_indices=True)
        assert_edt(gnd.distance_transform_edt(gp.asarray(x), return_indices=True), want)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_edt_every_input_dtype(rng, dtype):
    x = random_array(rng, (13, 14), dtype)
    x[rng.random(x.shape) < 0.2] = 0
    if np.dtype(dtype).kind == "f":
        x[0, 0] = np.nan  # NaN is nonzero (truthy), as in SciPy's np.where(input, 1, 0)
    assert_edt(gnd.distance_transform_edt(gp.asarray(x)), nd.distance_transform_edt(x))


def test_edt_views_and_forms(rng):
    base = rng.random((20, 33)) < 0.8
    g = gp.asarray(base)
    for view in (lambda a: a.T, lambda a: a[::-1, ::2], lambda a: a[2:-3, ::-3]):
        assert_edt(gnd.distance_transform_edt(view(g), return_indices=True),
                   nd.distance_transform_edt(view(base), return_indices=True))
    # Indices only; both in place; distances in place with indices returned.
    assert_edt(gnd.distance_transform_edt(g, return_distances=False, return_indices=True),
               nd.distance_transform_edt(base, return_distances=False, return_indices=True))
    gd, gi = gp.empty(base.shape, np.float64), gp.empty((2,) + base.shape, np.int32)
    sd, si = np.empty(base.shape, np.float64), np.empty((2,) + base.shape, np.int32)
    assert gnd.distance_transform_edt(g, return_indices=True, distances=gd, indices=gi) is None
    assert nd.distance_transform_edt(base, return_indices=True, distances=sd, indices=si) is None
    np.testing.assert_array_equal(gd.get(), sd)
    np.testing.assert_array_equal(gi.get(), si)
    gd = gp.empty(base.shape, np.float64)
    assert_edt(gnd.distance_transform_edt(g, return_indices=True, distances=gd),
               nd.distance_transform_edt(base, return_indices=True, distances=sd))
    np.testing.assert_array_equal(gd.get(), sd)
    # Non-contiguous output arrays.
    gi = gp.empty((2, 33, 20), np.int32).transpose(0, 2, 1)
    si = np.empty((2, 33, 20), np.int32).transpose(0, 2, 1)
    gnd.distance_transform_edt(g, return_indices=True, indices=gi)
    nd.distance_transform_edt(base, return_indices=True, indices=si)
    np.testing.assert_array_equal(gi.get(), si)


def test_edt_special_inputs(rng):
    for x in (np.zeros((4, 5)), np.ones((4, 5)), np.ones(7), np.array(0.0), np.array(3.0), np.zeros((0, 3)),
              np.ones((2, 0, 3))):
        assert_edt(gnd.distance_transform_edt(gp.asarray(x), return_indices=True),
                   nd.distance_transform_edt(x, return_indices=True))
    # Without background SciPy leaves the initial features (a passed `indices`'
    # values), plane 0 at -1.
    x = np.ones((3, 4))
    gi = gp.asarray(np.full((2, 3, 4), 7, np.int32))
    si = np.full((2, 3, 4), 7, np.int32)
    assert_edt(gnd.distance_transform_edt(gp.asarray(x), return_indices=True, indices=gi),
               nd.distance_transform_edt(x, return_indices=True, indices=si))
    np.testing.assert_array_equal(gi.get(), si)


def test_edt_many_dimensions(rng):
    # More than 8 axes: the axes of extent 1 are dropped (at most 8 others).
    for shape in ((3, 1, 1, 2, 1, 1, 1, 1, 2, 1), (1,) * 9, (2, 1, 2, 1, 2, 1, 2, 1, 2)):
        for density in (0.5, 1.0):
            x = rng.random(shape) < density
            assert_edt(gnd.distance_transform_edt(gp.asarray(x), [1.5] + [1.0] * (len(shape) - 1),
                                                  return_indices=True),
                       nd.distance_transform_edt(x, [1.5] + [1.0] * (len(shape) - 1), return_indices=True))


def test_edt_errors(rng):
    x = rng.random((5, 6)) < 0.5
    g = gp.asarray(x)
    cases = [
        (dict(return_distances=False), dict(return_distances=False)),
        (dict(return_distances=False, distances=gp.empty((5, 6))),
         dict(return_distances=False, distances=np.empty((5, 6)))),
        (dict(indices=gp.empty((2, 5, 6), np.int32)), dict(indices=np.empty((2, 5, 6), np.int32))),
        (dict(return_indices=True, indices=gp.empty((2, 5, 5), np.int32)),
         dict(return_indices=True, indices=np.empty((2, 5, 5), np.int32))),
        (dict(return_indices=True, indices=gp.empty((2, 5, 6), np.int64)),
         dict(return_indices=True, indices=np.empty((2, 5, 6), np.int64))),
        (dict(distances=gp.empty((5, 5))), dict(distances=np.empty((5, 5)))),
        (dict(distances=gp.empty((5, 6), np.float32)), dict(distances=np.empty((5, 6), np.float32))),
        (dict(sampling=[1.0, 2.0, 3.0]), dict(sampling=[1.0, 2.0, 3.0])),
    ]
    for gkw, skw in cases:
        raises_as_numpy(lambda: gnd.distance_transform_edt(g, **gkw), lambda: nd.distance_transform_edt(x, **skw))
