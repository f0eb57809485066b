"""NumPy namespace additions against NumPy: set routines (``_sets``), index tricks
(``_index_tricks``), insert/delete/block and friends (``_manipulation_more``), geomspace
and the from* constructors (``_creation_more``), load/save (``_io``) and introspection
(``_array_info``).

Integer and boolean results are compared exactly; so are the set routines and index
routines for every dtype (they only move and compare values). ``geomspace`` is compared
within a stated ulp budget (see ``test_geomspace``)."""

import warnings

import numpy as np
import pytest

import gpupy as gp
from helpers import (
    ALL_DTYPES,
    SAMPLE_DTYPES,
    assert_close,
    assert_equal_to_numpy,
    dtype_id,
    numpy_error,
    raises_as_numpy,
    raises_like,
    random_array,
    random_pair,
)

pytestmark = pytest.mark.gpu

AxisError = np.exceptions.AxisError


def small_ints(rng, shape, dtype, hi=6):
    """Random values with many repeats (sets need collisions): integers in [0, hi) cast
    to ``dtype`` (random signs for signed and inexact dtypes)."""
    v = rng.integers(0, hi, size=shape)
    dt = np.dtype(dtype)
    if dt.kind in "ifc":
        v = v * rng.choice([-1, 1], size=shape)
    if dt.kind == "c":
        return (v + 1j * rng.integers(0, 2, size=shape)).astype(dt)
    return v.astype(dt)


def check_tuple(got, want):
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        assert_equal_to_numpy(g, w)


def equal_or_raises_as_numpy(gpupy_call, numpy_call):
    """gpupy does what the installed NumPy does: the same array, or the same error."""
    if numpy_error(numpy_call) is None:
        assert_equal_to_numpy(gpupy_call(), numpy_call())
    else:
        raises_as_numpy(gpupy_call, numpy_call)


# ---------------------------------------------------------------------------------------
# Set routines


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", [((7,), (5,)), ((3, 4), (2, 3)), ((0,), (4,)), ((5,), (0,)), ((), (3,))],
                         ids=["1d", "2d", "empty1", "empty2", "scalar"])
def test_set_routines(rng, dtype, shapes):
    s1, s2 = shapes
    x, y = small_ints(rng, s1, dtype), small_ints(rng, s2, dtype)
    if np.dtype(dtype).kind == "f" and x.size:
        x.reshape(-1)[0] = np.nan  # NaN is in no set
    gx, gy = gp.asarray(x), gp.asarray(y)
    for invert in (False, True):
        assert_equal_to_numpy(gp.isin(gx, gy, invert=invert), np.isin(x, y, invert=invert))
    if x.ndim:
        assert_equal_to_numpy(gp.isin(gx[..., ::-1], gy), np.isin(x[..., ::-1], y))  # a view
    assert_equal_to_numpy(gp.union1d(gx, gy), np.union1d(x, y))
    assert_equal_to_numpy(gp.intersect1d(gx, gy), np.intersect1d(x, y))
    check_tuple(gp.intersect1d(gx, gy, return_indices=True), np.intersect1d(x, y, return_indices=True))
    assert_equal_to_numpy(gp.setdiff1d(gx, gy), np.setdiff1d(x, y))
    assert_equal_to_numpy(gp.setxor1d(gx, gy), np.setxor1d(x, y))
    # assume_unique on unique inputs (NumPy's algorithm, so also on others).
    ux, uy = np.unique(x), np.unique(y)
    gux, guy = gp.asarray(ux), gp.asarray(uy)
    assert_equal_to_numpy(gp.intersect1d(gux, guy, assume_unique=True), np.intersect1d(ux, uy, assume_unique=True))
    check_tuple(gp.intersect1d(gux, guy, assume_unique=True, return_indices=True),
                np.intersect1d(ux, uy, assume_unique=True, return_indices=True))
    assert_equal_to_numpy(gp.setdiff1d(gx, gy, assume_unique=True), np.setdiff1d(x, y, assume_unique=True))
    assert_equal_to_numpy(gp.setxor1d(gux, guy, assume_unique=True), np.setxor1d(ux, uy, assume_unique=True))


def test_set_routines_mixed_dtypes(rng):
    x = small_ints(rng, (9,), np.int8)
    y = small_ints(rng, (6,), np.float32)
    assert_equal_to_numpy(gp.isin(gp.asarray(x), gp.asarray(y)), np.isin(x, y))
    assert_equal_to_numpy(gp.union1d(gp.asarray(x), gp.asarray(y)), np.union1d(x, y))
    # int64 against uint64 beyond 2**53: NumPy's table method compares exactly.
    big = np.array([2**62 + 1, 2**62, 3, -5], dtype=np.int64)
    ubig = np.array([2**62 + 1, 2**63 + 7, 3], dtype=np.uint64)
    assert_equal_to_numpy(gp.isin(gp.asarray(big), gp.asarray(ubig)), np.isin(big, ubig))
    assert_equal_to_numpy(gp.isin(gp.asarray(ubig), gp.asarray(big)), np.isin(ubig, big))
    # Host operands.
    assert_equal_to_numpy(gp.isin(gp.asarray(x), [1, 2, -3]), np.isin(x, [1, 2, -3]))


def test_isin_kind_and_in1d(rng):
    # Values in a small range: NumPy's kind='table' refuses ranges beyond the dtype's maximum.
    x = small_ints(rng, (6,), np.int32, hi=50)
    gx = gp.asarray(x)
    y = np.concatenate([x[:3], small_ints(rng, (4,), np.int32, hi=50)])
    gy = gp.asarray(y)
    for kind in (None, "sort", "table"):
        assert_equal_to_numpy(gp.isin(gx, gy, kind=kind), np.isin(x, y, kind=kind))
    raises_like(lambda: gp.isin(gx, gy, kind="hash"), lambda: np.isin(x, y, kind="hash"), match="Invalid kind")
    f = np.float32([1.5, 2.5])
    raises_like(lambda: gp.isin(gp.asarray(f), gp.asarray(f), kind="table"),
                lambda: np.isin(f, f, kind="table"), match="only supported")
    # in1d: removed from NumPy 2.4, kept (deprecated) as in CuPy: isin of the flattened input.
    x2, gx2 = random_pair(rng, (3, 4), np.int16)
    with pytest.warns(DeprecationWarning):
        got = gp.in1d(gx2, gx2[:1])
    assert_equal_to_numpy(got, np.isin(x2, x2[:1]).ravel())


# ---------------------------------------------------------------------------------------
# Index grids and flat/multi indices


@pytest.mark.parametrize("dims", [(3,), (2, 3), (4, 1, 5), (0, 3), ()], ids=str)
@pytest.mark.parametrize("dtype", [int, np.int32, np.float32])
def test_indices(dims, dtype):
    assert_equal_to_numpy(gp.indices(dims, dtype=dtype), np.indices(dims, dtype=dtype))
    check_tuple(gp.indices(dims, dtype=dtype, sparse=True), np.indices(dims, dtype=dtype, sparse=True))


def test_ix_(rng):
    a, g = random_pair(rng, (5, 6, 4), np.float32)
    rows, cols = [0, 3, 4], np.array([True, False, True, True, False, True])
    got, want = gp.ix_(rows, gp.asarray(cols), []), np.ix_(rows, cols, [])
    check_tuple(got, want)
    assert_equal_to_numpy(g[gp.ix_(rows, gp.asarray(cols))], a[np.ix_(rows, cols)])
    raises_like(lambda: gp.ix_([[0, 1]]), lambda: np.ix_([[0, 1]]), match="Cross index")


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 5), (1, 6, 1)], ids=str)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.uint64])
def test_unravel_and_ravel(rng, shape, order, dtype):
    size = int(np.prod(shape))
    flat = rng.integers(0, min(size, np.iinfo(dtype).max + 1), size=(3, 4)).astype(dtype)
    want = np.unravel_index(flat, shape, order=order)
    got = gp.unravel_index(gp.asarray(flat), shape, order=order)
    check_tuple(got, want)
    back = gp.ravel_multi_index(got, shape, order=order)
    assert_equal_to_numpy(back, np.ravel_multi_index(want, shape, order=order))
    # 0-d input: 0-d results.
    check_tuple(gp.unravel_index(int(flat[0, 0]), shape), tuple(np.asarray(v) for v in np.unravel_index(int(flat[0, 0]), shape)))


def test_ravel_multi_index_modes(rng):
    dims = (4, 5)
    coords = (rng.integers(-9, 9, size=7), rng.integers(-9, 9, size=7))
    gcoords = tuple(gp.asarray(c) for c in coords)
    for mode in ("wrap", "clip", ("wrap", "clip"), ("clip", "wrap")):
        assert_equal_to_numpy(gp.ravel_multi_index(gcoords, dims, mode=mode),
                              np.ravel_multi_index(coords, dims, mode=mode))
    # Broadcasting of the coordinate arrays; host lists.
    assert_equal_to_numpy(gp.ravel_multi_index(([[1], [2]], [0, 3, 4]), dims),
                          np.ravel_multi_index(([[1], [2]], [0, 3, 4]), dims))


def test_index_errors():
    for g, n, match in [
        (lambda m: m.unravel_index([1, 10], (2, 3)), None, "out of bounds"),
        (lambda m: m.unravel_index([-1], (2, 3)), None, "out of bounds"),
        (lambda m: m.unravel_index(np.array([1.0]), (2, 3)), None, "only int"),
        (lambda m: m.unravel_index(3, (2, 3), order="A"), None, "only 'C' or 'F'"),
        (lambda m: m.unravel_index(3, (2, 3), order="X"), None, "order must be"),
        (lambda m: m.ravel_multi_index(([1, 2], [0, 1]), (2, 3)), None, "invalid entry"),
        (lambda m: m.ravel_multi_index(([1, 1],), (2, 3)), None, "sequence of length 2"),
        (lambda m: m.ravel_multi_index(([1.0, 1], [0, 0]), (2, 3)), None, "only int"),
        (lambda m: m.ravel_multi_index((1, 2), (2, 3), mode="bad"), None, "clipmode"),
        (lambda m: m.ravel_multi_index((0, 0), (2**40, 2**40)), None, "invalid dims"),
        (lambda m: m.ravel_multi_index((1, 2), (2, 0)), None, "zero entries"),
    ]:
        raises_like(lambda: g(gp), lambda: g(np), match=match)


# ---------------------------------------------------------------------------------------
# Diagonals and masks


def test_diag_indices_and_mask_indices(rng):
    check_tuple(gp.diag_indices(4), np.diag_indices(4))
    check_tuple(gp.diag_indices(3, ndim=3), np.diag_indices(3, ndim=3))
    a, g = random_pair(rng, (3, 3, 3), np.float32)
    check_tuple(gp.diag_indices_from(g), np.diag_indices_from(a))
    assert_equal_to_numpy(g[gp.diag_indices_from(g)], a[np.diag_indices_from(a)])
    raises_like(lambda: gp.diag_indices_from(gp.zeros(3)), lambda: np.diag_indices_from(np.zeros(3)), match="2-d")
    raises_like(lambda: gp.diag_indices_from(gp.zeros((2, 3))), lambda: np.diag_indices_from(np.zeros((2, 3))),
                match="equal length")
    for k in (-1, 0, 2):
        check_tuple(gp.mask_indices(4, gp.triu, k), np.mask_indices(4, np.triu, k))
        check_tuple(gp.mask_indices(3, gp.tril, k), np.mask_indices(3, np.tril, k))


@pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(4, 4), (7, 3), (3, 7), (3, 3, 3), (0, 0)], ids=str)
@pytest.mark.parametrize("wrap", [False, True])
def test_fill_diagonal(rng, dtype, shape, wrap):
    a, g = random_pair(rng, shape, dtype)
    v = random_array(rng, (), dtype)[()]
    np.fill_diagonal(a, v, wrap=wrap)
    assert gp.fill_diagonal(g, v, wrap=wrap) is None
    assert_equal_to_numpy(g, a)
    # An array of values, repeated cyclically; a non-contiguous target.
    vals = random_array(rng, (2,), dtype)
    np.fill_diagonal(a, vals, wrap=wrap)
    gp.fill_diagonal(g, gp.asarray(vals), wrap=wrap)
    assert_equal_to_numpy(g, a)
    if len(shape) == 2:
        b, gb = random_pair(rng, shape[::-1], dtype)
        np.fill_diagonal(b.T, vals, wrap=wrap)
        gp.fill_diagonal(gb.T, vals, wrap=wrap)
        assert_equal_to_numpy(gb, b)
    raises_like(lambda: gp.fill_diagonal(gp.zeros(3), 1), lambda: np.fill_diagonal(np.zeros(3), 1), match="2-d")
    raises_like(lambda: gp.fill_diagonal(gp.zeros((2, 2, 3)), 1), lambda: np.fill_diagonal(np.zeros((2, 2, 3)), 1),
                match="equal length")


# ---------------------------------------------------------------------------------------
# Along an axis, masked writes


@pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_take_put_along_axis(rng, dtype, axis):
    a, g = random_pair(rng, (4, 5), dtype)
    if axis is None:
        idx = rng.integers(-20, 20, size=7)
    else:
        n = a.shape[axis]
        ishape = [4, 5]
        ishape[axis] = 3
        idx = rng.integers(-n, n, size=ishape)
    assert_equal_to_numpy(gp.take_along_axis(g, gp.asarray(idx), axis=axis), np.take_along_axis(a, idx, axis=axis))
    # Sorting through argsort is the canonical use.
    if axis is not None and np.dtype(dtype).kind not in "bc":
        order = np.argsort(a, axis=axis, kind="stable")
        assert_equal_to_numpy(gp.take_along_axis(g, gp.argsort(g, axis=axis), axis=axis),
                              np.take_along_axis(a, order, axis=axis))
    # put: unique positions per slice (repeated ones write an unspecified one).
    if axis is None:
        pidx = rng.permutation(20)[:6]
    else:
        pidx = np.argsort(rng.random(a.shape), axis=axis).take(range(2), axis=axis)
    vals = random_array(rng, pidx.shape, dtype)
    np.put_along_axis(a, pidx, vals, axis=axis)
    assert gp.put_along_axis(g, gp.asarray(pidx), gp.asarray(vals), axis=axis) is None
    assert_equal_to_numpy(g, a)
    # A non-contiguous target.
    b, gb = random_pair(rng, (5, 4), dtype)
    gp.put_along_axis(gb.T, pidx, vals, axis=axis)
    if axis is None:
        # NumPy writes through ``np.array(arr.flat)``, a view only of a contiguous arr
        # (otherwise a read-only copy: "assignment destination is read-only"). gpupy
        # writes into any arr "as if a flattened 1d view had been created" (NumPy's
        # documented meaning): expected = NumPy's write into a C-contiguous copy.
        bt = b.T.copy()
        np.put_along_axis(bt, pidx, vals, axis=None)
        b[...] = bt.T
    else:
        np.put_along_axis(b.T, pidx, vals, axis=axis)
    assert_equal_to_numpy(gb, b)


def test_along_axis_errors(rng):
    a, g = random_pair(rng, (3, 4), np.float32)
    i2 = np.zeros((3, 4), int)
    raises_like(lambda: gp.take_along_axis(g, gp.asarray(i2), axis=None),
                lambda: np.take_along_axis(a, i2, axis=None), match="single dimension")
    raises_like(lambda: gp.take_along_axis(g, gp.zeros(3, dtype=int), axis=0),
                lambda: np.take_along_axis(a, np.zeros(3, int), axis=0), match="same number")
    raises_like(lambda: gp.take_along_axis(g, gp.zeros((3, 4)), axis=0),
                lambda: np.take_along_axis(a, np.zeros((3, 4)), axis=0), match="integer array")
    raises_like(lambda: gp.take_along_axis(g, gp.asarray(i2), axis=2),
                lambda: np.take_along_axis(a, i2, axis=2))
    raises_like(lambda: gp.put_along_axis(g, gp.asarray(i2), 1, axis=None),
                lambda: np.put_along_axis(a, i2, 1, axis=None), match="single dimension")


@pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
def test_place_putmask(rng, dtype):
    a, g = random_pair(rng, (4, 5), dtype)
    mask = rng.random((4, 5)) < 0.5
    vals = random_array(rng, (3,), dtype)
    np.place(a, mask, vals)
    assert gp.place(g, gp.asarray(mask), gp.asarray(vals)) is None
    assert_equal_to_numpy(g, a)
    np.putmask(a, ~mask, vals)
    assert gp.putmask(g, gp.asarray(~mask), vals) is None
    assert_equal_to_numpy(g, a)
    # Non-contiguous targets, values from the host.
    b, gb = random_pair(rng, (5, 4), dtype)
    np.putmask(b.T, mask, vals[:2])
    gp.putmask(gb.T, mask, vals[:2])
    assert_equal_to_numpy(gb, b)
    np.place(b.T, mask, vals)
    gp.place(gb.T, mask, vals)
    assert_equal_to_numpy(gb, b)
    raises_like(lambda: gp.place(g, [True, False], [1]), lambda: np.place(a, [True, False], [1]), match="same size")
    raises_like(lambda: gp.place(g, gp.asarray(mask), []), lambda: np.place(a, mask, []), match="empty array")
    raises_like(lambda: gp.putmask(g, [True, False], [1]), lambda: np.putmask(a, [True, False], [1]),
                match="same size")
    raises_like(lambda: gp.putmask([1, 2], [True, False], [1]), lambda: np.putmask([1, 2], [True, False], [1]))
    raises_like(lambda: gp.place([1, 2], [True, False], [3]), lambda: np.place([1, 2], [True, False], [3]))


# ---------------------------------------------------------------------------------------
# select, choose, piecewise


@pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
def test_select(rng, dtype):
    x, gx = random_pair(rng, (4, 5), dtype)
    y, gy = random_pair(rng, (5,), dtype)
    c1, c2 = rng.random((4, 5)) < 0.3, rng.random((5,)) < 0.5
    for default in (0, 1.5, y[0]):
        want = np.select([c1, c2], [x, y], default=default)
        got = gp.select([gp.asarray(c1), gp.asarray(c2)], [gx, gy], default=default)
        assert_equal_to_numpy(got, want)
    # A Python scalar choice, host conditions: weak in the result dtype, but NumPy then
    # writes it as an int64/float64 array under same_kind, which an unsigned result
    # refuses for an int (TypeError): gpupy does what the installed NumPy does.
    for scalar in (3, 2.5):
        equal_or_raises_as_numpy(lambda: gp.select([c2], [scalar], default=gy),
                                 lambda: np.select([c2], [scalar], default=y))
        equal_or_raises_as_numpy(lambda: gp.select([c2, c1], [gy, scalar], default=0),
                                 lambda: np.select([c2, c1], [y, scalar], default=0))
    raises_like(lambda: gp.select([], []), lambda: np.select([], []), match="empty condition")
    raises_like(lambda: gp.select([gp.asarray(c1)], [gx, gx]), lambda: np.select([c1], [x, x]), match="same length")
    raises_like(lambda: gp.select([gp.asarray(c1.astype(int))], [gx]), lambda: np.select([c1.astype(int)], [x]),
                match="invalid entry 0")


@pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose(rng, dtype, mode):
    choices = [random_array(rng, (3, 4), dtype), random_array(rng, (4,), dtype), random_array(rng, (3, 1), dtype)]
    lo, hi = (0, 3) if mode == "raise" else (-5, 8)
    a = rng.integers(lo, hi, size=(3, 4))
    want = np.choose(a, choices, mode=mode)
    assert_equal_to_numpy(gp.choose(gp.asarray(a), [gp.asarray(c) for c in choices], mode=mode), want)
    out = gp.empty((3, 4), dtype=want.dtype)
    assert gp.choose(a, choices, out=out, mode=mode) is out
    assert_equal_to_numpy(out, want)


def test_choose_errors_and_dtypes(rng):
    assert_equal_to_numpy(gp.choose(gp.asarray(np.array([0, 1], np.uint8)), [gp.zeros(2, dtype=np.float32), 2.5]),
                          np.choose(np.array([0, 1], np.uint8), [np.zeros(2, np.float32), 2.5]))
    raises_like(lambda: gp.choose([0, 3], [[1, 2], [3, 4]]), lambda: np.choose([0, 3], [[1, 2], [3, 4]]),
                match="invalid entry")
    raises_like(lambda: gp.choose([0.0, 1], [[1, 2], [3, 4]]), lambda: np.choose([0.0, 1], [[1, 2], [3, 4]]),
                match="Cannot cast")
    raises_like(lambda: gp.choose([0, 1], [[1, 2]], mode="x"), lambda: np.choose([0, 1], [[1, 2]], mode="x"),
                match="clipmode")
    raises_like(lambda: gp.choose([0, 1], []), lambda: np.choose([0, 1], []))


def test_piecewise(rng):
    x, gx = random_pair(rng, (4, 6), np.float64)
    # Constants and functions; one more function than conditions gives "otherwise".
    want = np.piecewise(x, [x < -0.3, x > 0.4], [-1.0, lambda v: v * 2, lambda v: v - 7])
    got = gp.piecewise(gx, [gx < -0.3, gx > 0.4], [-1.0, lambda v: v * 2, lambda v: v - 7])
    assert_equal_to_numpy(got, want)
    # A single condition array of a 1-d x (not in a list); extra args and keywords.
    x1, gx1 = x[1], gx[1]
    want = np.piecewise(x1, x1 > 0, [lambda v, s, t=0: v * s + t], 3.0, t=1.0)
    got = gp.piecewise(gx1, gx1 > 0, [lambda v, s, t=0: v * s + t], 3.0, t=1.0)
    assert_equal_to_numpy(got, want)
    # A 2-d condition array not in a list is one condition per row, as in NumPy.
    raises_like(lambda: gp.piecewise(gx, gx > 0, [lambda v: v]), lambda: np.piecewise(x, x > 0, [lambda v: v]),
                match="condition")
    i, gi = random_pair(rng, (7,), np.int32)
    assert_equal_to_numpy(gp.piecewise(gi, [gi > 0], [5, -5]), np.piecewise(i, [i > 0], [5, -5]))
    raises_like(lambda: gp.piecewise(gx, [gx > 0], [1, 2, 3]), lambda: np.piecewise(x, [x > 0], [1, 2, 3]),
                match="condition")


# ---------------------------------------------------------------------------------------
# Index objects


def test_r_c_s_index_exp():
    for key in [np.s_[1:7:2], np.s_[0:1:5j], np.s_[[1, 2, 3], 0, 4], np.s_["0,2", [1, 2], [3, 4]],
                np.s_["1,2,0", [1, 2], [3, 4]], np.s_[-1:1:6j, 0, 0, 0]]:
        gkey = tuple(gp.asarray(k) if isinstance(k, list) else k for k in key) if isinstance(key, tuple) else key
        assert_equal_to_numpy(gp.r_[gkey], np.r_[key])
    a = np.array([[1, 2, 3], [4, 5, 6]])
    assert_equal_to_numpy(gp.r_[gp.asarray(a), gp.asarray(a)], np.r_[a, a])
    assert_equal_to_numpy(gp.r_["-1", gp.asarray(a), gp.asarray(a)], np.r_["-1", a, a])
    assert_equal_to_numpy(gp.c_[gp.asarray([1, 2, 3]), gp.asarray([4, 5, 6])], np.c_[[1, 2, 3], [4, 5, 6]])
    assert_equal_to_numpy(gp.c_[gp.asarray(a[:1]), 0, 0, gp.asarray(a[1:])], np.c_[a[:1], 0, 0, a[1:]])
    raises_like(lambda: gp.r_[0, "1"], lambda: np.r_[0, "1"], match="first entry")
    with pytest.raises(NotImplementedError):
        gp.r_["r", [1, 2], [3, 4]]
    # s_ and index_exp build keys (NumPy's own objects).
    assert gp.s_[1:3, ::2] == np.s_[1:3, ::2]
    assert gp.index_exp[2:4] == np.index_exp[2:4]


@pytest.mark.parametrize("key", [np.s_[0:5], np.s_[-1:1:5j], np.s_[0:4, 0:3], np.s_[0:2:0.5, -1:1:3j],
                                 np.s_[1:4:2, 0:2, 3:0:-1]], ids=str)
def test_mgrid_ogrid(key):
    want = np.mgrid[key]
    assert_close(gp.mgrid[key].get(), want, 0)  # the same single multiply-add as NumPy
    assert gp.mgrid[key].dtype == want.dtype
    wo = np.ogrid[key]
    go = gp.ogrid[key]
    if isinstance(wo, tuple):
        assert isinstance(go, tuple) and len(go) == len(wo)
        for g, w in zip(go, wo):
            assert g.shape == w.shape and g.dtype == w.dtype
            assert_close(g.get(), w, 0)
    else:
        assert_close(go.get(), wo, 0)


def test_ndindex():
    assert list(gp.ndindex(2, 3)) == list(np.ndindex(2, 3))
    assert gp.ndindex is np.ndindex


# ---------------------------------------------------------------------------------------
# append, insert, delete, resize, trim_zeros, unstack, block, row_stack


@pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
def test_append(rng, dtype):
    a, g = random_pair(rng, (3, 4), dtype)
    b, gb = random_pair(rng, (2, 4), dtype)
    assert_equal_to_numpy(gp.append(g, gb), np.append(a, b))
    assert_equal_to_numpy(gp.append(g, gb, axis=0), np.append(a, b, axis=0))
    assert_equal_to_numpy(gp.append(g.T, gb.T, axis=1), np.append(a.T, b.T, axis=1))
    assert_equal_to_numpy(gp.append(g, [1, 2]), np.append(a, [1, 2]))
    raises_like(lambda: gp.append(g, gb, axis=1), lambda: np.append(a, b, axis=1))


OBJS = [0, -1, 3, [0, 2], [-1, 0, 0], slice(1, 4), slice(None, None, 2), slice(4, 0, -2),
        [True, False, True, False, False], [], np.array([1, 3])]


@pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("obj", OBJS, ids=repr)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_delete(rng, dtype, obj, axis):
    a, g = random_pair(rng, (5, 5), dtype)
    av, gv = a[:, ::-1], g[:, ::-1]  # a view
    for arr, garr in ((a, g), (av, gv)):
        if axis is None and isinstance(obj, list) and obj and isinstance(obj[0], bool):
            raises_like(lambda: gp.delete(garr, obj, axis=axis), lambda: np.delete(arr, obj, axis=axis))
            continue
        assert_equal_to_numpy(gp.delete(garr, obj, axis=axis), np.delete(arr, obj, axis=axis))
        if isinstance(obj, (list, np.ndarray)) and len(obj):
            # The positions as a device array.
            assert_equal_to_numpy(gp.delete(garr, gp.asarray(np.asarray(obj)), axis=axis),
                                  np.delete(arr, obj, axis=axis))


def test_delete_errors():
    a = np.arange(6.0)
    raises_like(lambda: gp.delete(gp.asarray(a), 6), lambda: np.delete(a, 6), match="out of bounds")
    raises_like(lambda: gp.delete(gp.asarray(a), [True, False]), lambda: np.delete(a, [True, False]),
                match="boolean array")
    raises_like(lambda: gp.delete(gp.asarray(a), gp.asarray(np.array([True, False]))),
                lambda: np.delete(a, np.array([True, False])), match="boolean array")
    raises_like(lambda: gp.delete(gp.asarray(a), 0, axis=1), lambda: np.delete(a, 0, axis=1))


@pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("obj", [0, 2, -1, 5, [1], [0, 2, 2], [-1, 4], slice(1, 3), [], np.array([3, 0])], ids=repr)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_insert(rng, dtype, obj, axis):
    a, g = random_pair(rng, (4, 5), dtype)
    v = random_array(rng, (), dtype)[()]
    # The array and its transposed view (5, 4): a scalar obj may be in bounds (-n <= obj
    # <= n, n the axis length) for one and out of bounds for the other.
    for arr, garr in ((a, g), (a.T, g.T)):
        n = arr.size if axis is None else arr.shape[axis]
        if isinstance(obj, int) and not -n <= obj <= n:
            raises_as_numpy(lambda: gp.insert(garr, obj, 1, axis=axis), lambda: np.insert(arr, obj, 1, axis=axis))
        else:
            assert_equal_to_numpy(gp.insert(garr, obj, v, axis=axis), np.insert(arr, obj, v, axis=axis))
    if axis is not None and (not isinstance(obj, int) or -a.shape[axis] <= obj <= a.shape[axis]):
        # Values broadcast along the other axis (NumPy's rules, including a scalar obj's
        # extra leading axis of values): a row for axis 0, a column for axis 1.
        vals = random_array(rng, (5,) if axis == 0 else (4, 1), dtype)
        assert_equal_to_numpy(gp.insert(g, obj, gp.asarray(vals), axis=axis), np.insert(a, obj, vals, axis=axis))
        if isinstance(obj, (list, np.ndarray)) and len(obj):
            assert_equal_to_numpy(gp.insert(g, gp.asarray(np.asarray(obj)), vals, axis=axis),
                                  np.insert(a, obj, vals, axis=axis))


def test_insert_errors():
    a = np.arange(6.0)
    raises_like(lambda: gp.insert(gp.asarray(a), [[0]], 1), lambda: np.insert(a, [[0]], 1), match="one dimensional")
    raises_like(lambda: gp.insert(gp.asarray(a), [0, 9], 1), lambda: np.insert(a, [0, 9], 1))


@pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("new_shape", [7, (2, 3), (3, 5), (0,), (1,), (4, 0)], ids=str)
def test_resize(rng, dtype, new_shape):
    a, g = random_pair(rng, (2, 3), dtype)
    assert_equal_to_numpy(gp.resize(g, new_shape), np.resize(a, new_shape))
    assert_equal_to_numpy(gp.resize(g.T, new_shape), np.resize(a.T, new_shape))
    assert_equal_to_numpy(gp.resize(g[:0], new_shape), np.resize(a[:0], new_shape))
    raises_like(lambda: gp.resize(g, (-1, 2)), lambda: np.resize(a, (-1, 2)), match="non-negative")


@pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("trim", ["fb", "f", "b", "BF"])
def test_trim_zeros(rng, dtype, trim):
    a = random_array(rng, (9,), dtype)
    a[a == 0] = 1
    a[:2] = 0
    a[-3:] = 0
    a[4] = 0
    assert_equal_to_numpy(gp.trim_zeros(gp.asarray(a), trim), np.trim_zeros(a, trim))
    assert_equal_to_numpy(gp.trim_zeros(gp.asarray(np.zeros(4, dtype)), trim), np.trim_zeros(np.zeros(4, dtype), trim))
    m = random_array(rng, (5, 6), dtype)
    m[m == 0] = 1
    m[:1] = 0
    m[:, -2:] = 0
    for axis in (None, 0, 1, -1, (0, 1)):
        assert_equal_to_numpy(gp.trim_zeros(gp.asarray(m), trim, axis=axis), np.trim_zeros(m, trim, axis=axis))
    raises_like(lambda: gp.trim_zeros(gp.asarray(a), "x"), lambda: np.trim_zeros(a, "x"), match="unexpected")


def test_unstack_block_row_stack(rng):
    a, g = random_pair(rng, (3, 4, 2), np.float32)
    for axis in (0, 1, -1):
        check_tuple(gp.unstack(g, axis=axis), np.unstack(a, axis=axis))
    raises_like(lambda: gp.unstack(gp.asarray(1.0)), lambda: np.unstack(np.asarray(1.0)), match="at least 1-d")
    raises_like(lambda: gp.unstack(g, axis=3), lambda: np.unstack(a, axis=3))
    A, gA = random_pair(rng, (2, 2), np.float64)
    B, gB = random_pair(rng, (2, 3), np.int16)
    C, gC = random_pair(rng, (1, 5), np.float32)
    assert_equal_to_numpy(gp.block([[gA, gB], [gC]]), np.block([[A, B], [C]]))
    assert_equal_to_numpy(gp.block([gA.T, gA]), np.block([A.T, A]))
    assert_equal_to_numpy(gp.block([[1, 2], [3, 4]]), np.block([[1, 2], [3, 4]]))
    assert_equal_to_numpy(gp.block(gA), np.block(A))
    assert_equal_to_numpy(gp.block([[[gA]], [[gA]]]), np.block([[[A]], [[A]]]))
    raises_like(lambda: gp.block([[gA], gA]), lambda: np.block([[A], A]), match="depths are mismatched")
    raises_like(lambda: gp.block((gA, gA)), lambda: np.block((A, A)), match="is a tuple")
    # A shape mismatch: NumPy's message is concatenate's for a small result, its own
    # "Mismatched array shapes" beyond 2 * 512 * 512 elements (it copies into slices).
    raises_as_numpy(lambda: gp.block([[gA, gC]]), lambda: np.block([[A, C]]))
    raises_as_numpy(lambda: gp.block([[gA], [gC]]), lambda: np.block([[A], [C]]))
    big1, big2 = np.ones((600, 300), np.float32), np.ones((500, 300), np.float32)
    gbig1, gbig2 = gp.asarray(big1), gp.asarray(big2)
    raises_as_numpy(lambda: gp.block([[gbig1, gbig2]]), lambda: np.block([[big1, big2]]))
    raises_like(lambda: gp.block([]), lambda: np.block([]), match="cannot be empty")
    # row_stack: deprecated by NumPy 2.0, removed in 2.5; gpupy has it when NumPy does.
    assert hasattr(gp, "row_stack") == hasattr(np, "row_stack")
    assert ("row_stack" in gp.__all__) == hasattr(np, "row_stack")
    if hasattr(np, "row_stack"):
        with pytest.warns(DeprecationWarning):
            got = gp.row_stack([gA, gA])
        assert_equal_to_numpy(got, np.vstack([A, A]))


def test_apply_along_over_axes(rng):
    a, g = random_pair(rng, (3, 4, 5), np.int32)
    for axis in (0, 1, 2, -1):
        assert_equal_to_numpy(gp.apply_along_axis(gp.sort, axis, g), np.apply_along_axis(np.sort, axis, a))
        assert_equal_to_numpy(gp.apply_along_axis(lambda v: v[:2] + v[-1], axis, g),
                              np.apply_along_axis(lambda v: v[:2] + v[-1], axis, a))
        assert_equal_to_numpy(gp.apply_along_axis(lambda v: v.max(), axis, g),
                              np.apply_along_axis(lambda v: v.max(), axis, a))
    raises_like(lambda: gp.apply_along_axis(gp.sort, 0, gp.zeros((2, 0))),
                lambda: np.apply_along_axis(np.sort, 0, np.zeros((2, 0))), match="iteration dimensions")
    for axes in ([0, 2], 1, [-1]):
        assert_equal_to_numpy(gp.apply_over_axes(gp.max, g, axes), np.apply_over_axes(np.max, a, axes))


# ---------------------------------------------------------------------------------------
# Creation


@pytest.mark.parametrize("dtype", [None, np.float32, np.float64, np.complex128, np.int64])
@pytest.mark.parametrize("endpoints", [(1, 1000), (-1, -1e-3), (2.5, 0.1), (1j, 1e3j), (8, 8)], ids=str)
@pytest.mark.parametrize("num", [0, 1, 7, 50])
def test_geomspace(dtype, endpoints, num):
    start, stop = endpoints
    if isinstance(start, complex) and dtype is not None and np.dtype(dtype).kind != "c":
        pytest.skip("complex endpoints into a real dtype: NumPy drops the imaginary part with a warning")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        want = np.geomspace(start, stop, num=num, dtype=dtype)
        got = gp.geomspace(start, stop, num=num, dtype=dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "iu":
        # Truncation of values a few ulp from an integer may differ by one.
        np.testing.assert_allclose(got.get(), want, rtol=0, atol=1)
    else:
        # power(10, log10 x) per point: log10 (1 ulp) and pow (2 ulp) of libdevice,
        # amplified by |log(x)| for the exponent's error, plus the sign rotation (1 ulp):
        # within 64 ulp over these ranges (|log10 x| <= 3).
        assert_close(got.get(), want, 64)
    # Array endpoints and axis.
    s = np.array([1.0, -2.0, 3.0])
    want = np.geomspace(s, 10 * s, num=5, axis=1)
    assert_close(gp.geomspace(gp.asarray(s), gp.asarray(10 * s), num=5, axis=1).get(), want, 64)
    raises_like(lambda: gp.geomspace(0, 5), lambda: np.geomspace(0, 5), match="cannot include zero")


def test_fromfunction_and_from_host(rng, tmp_path):
    f = lambda i, j: i * 10 + j  # noqa: E731
    assert_equal_to_numpy(gp.fromfunction(f, (3, 4)), np.fromfunction(f, (3, 4)))
    assert_equal_to_numpy(gp.fromfunction(f, (3, 4), dtype=np.int32), np.fromfunction(f, (3, 4), dtype=np.int32))
    x = random_array(rng, (10,), np.float32)
    buf = x.tobytes()
    assert_equal_to_numpy(gp.frombuffer(buf, dtype=np.float32), np.frombuffer(buf, dtype=np.float32))
    assert_equal_to_numpy(gp.frombuffer(buf, dtype=np.float32, count=3, offset=8),
                          np.frombuffer(buf, dtype=np.float32, count=3, offset=8))
    assert_equal_to_numpy(gp.fromiter(iter(x.tolist()), np.float64), np.fromiter(iter(x.tolist()), np.float64))
    assert_equal_to_numpy(gp.fromiter((v for v in range(5)), int, count=3), np.fromiter(range(5), int, count=3))
    assert_equal_to_numpy(gp.fromstring("1 2 3.5", sep=" "), np.fromstring("1 2 3.5", sep=" "))
    p = tmp_path / "raw.bin"
    x.tofile(p)
    assert_equal_to_numpy(gp.fromfile(p, dtype=np.float32), np.fromfile(p, dtype=np.float32))


@pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
def test_asanyarray_chkfinite_require(rng, dtype):
    a, g = random_pair(rng, (3, 4), dtype)
    assert gp.asanyarray(g) is g
    assert_equal_to_numpy(gp.asanyarray(a), a)
    assert_equal_to_numpy(gp.asanyarray(g, dtype=np.complex128), a.astype(np.complex128))
    assert gp.asanyarray(g, copy=True) is not g
    with pytest.raises(ValueError):
        gp.asanyarray(a, copy=False)  # a host array reaches the device only as a copy
    assert_equal_to_numpy(gp.asarray_chkfinite(g), a)
    if np.dtype(dtype).kind in "fc":
        bad = a.copy()
        bad[1, 2] = np.nan
        raises_like(lambda: gp.asarray_chkfinite(gp.asarray(bad)), lambda: np.asarray_chkfinite(bad),
                    match="infs or NaNs")
    t = g.T
    r = gp.require(t, requirements=["C"])
    assert r.flags.c_contiguous
    assert_equal_to_numpy(r, a.T)
    assert gp.require(g, requirements="C") is g
    assert gp.require(t, requirements=["F", "A", "W"]) is t
    assert gp.require(g[:, 1:], requirements=["O"]).flags.owndata
    assert_equal_to_numpy(gp.require(g, dtype=np.complex128, requirements="E"), np.require(a, np.complex128, "E"))
    raises_like(lambda: gp.require(g, requirements=["C", "F"]), lambda: np.require(a, requirements=["C", "F"]),
                match="both")
    raises_like(lambda: gp.require(g, requirements=["Q"]), lambda: np.require(a, requirements=["Q"]))


# ---------------------------------------------------------------------------------------
# Input and output


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_save_load(rng, tmp_path, dtype):
    a, g = random_pair(rng, (3, 5), dtype)
    p = tmp_path / "a.npy"
    gp.save(p, g.T)
    assert_equal_to_numpy(gp.load(p), a.T)
    assert_equal_to_numpy(gp.load(p, mmap_mode="r"), a.T)
    b, gb = random_pair(rng, (4,), dtype)
    for saver in (gp.savez, gp.savez_compressed):
        pz = tmp_path / f"{saver.__name__}.npz"
        saver(pz, g, named=gb)
        with gp.load(pz) as z:
            assert sorted(z.files) == ["arr_0", "named"]
            assert_equal_to_numpy(z["arr_0"], a)
            assert_equal_to_numpy(z["named"], b)


def test_text_io(rng, tmp_path):
    a, g = random_pair(rng, (4, 3), np.float64)
    p = tmp_path / "a.txt"
    gp.savetxt(p, g, delimiter=",")
    np.testing.assert_array_equal(np.loadtxt(p, delimiter=","), a)  # NumPy's text, round-trip exact (%.18e)
    assert_equal_to_numpy(gp.loadtxt(p, delimiter=","), np.loadtxt(p, delimiter=","))
    assert_equal_to_numpy(gp.loadtxt(p, delimiter=",", unpack=True), np.loadtxt(p, delimiter=",", unpack=True))
    assert_equal_to_numpy(gp.genfromtxt(p, delimiter=","), np.genfromtxt(p, delimiter=","))
    q = tmp_path / "missing.txt"
    q.write_text("1,2,\n4,,6\n")
    assert_equal_to_numpy(gp.genfromtxt(q, delimiter=",", filling_values=-1),
                          np.genfromtxt(q, delimiter=",", filling_values=-1))
    with pytest.raises(NotImplementedError):
        gp.genfromtxt(q, delimiter=",", usemask=True)


# ---------------------------------------------------------------------------------------
# Introspection


def test_shape_ndim_size_scalars(rng):
    a, g = random_pair(rng, (3, 4, 5), np.float32)
    for obj, host in ((g, a), (g[0], a[0]), (gp.asarray(1.0), np.asarray(1.0)), ([[1, 2]], [[1, 2]]), (3, 3)):
        assert gp.shape(obj) == np.shape(host)
        assert gp.ndim(obj) == np.ndim(host)
        assert gp.size(obj) == np.size(host)
    for axis in (0, -1, (0, 2)):
        assert gp.size(g, axis) == np.size(a, axis)
    raises_like(lambda: gp.size(g, 3), lambda: np.size(a, 3))
    assert gp.isscalar(1.0) and gp.isscalar(np.float32(1)) and not gp.isscalar(gp.asarray(1.0))
    assert gp.iterable(g) and gp.iterable([1]) and not gp.iterable(gp.asarray(1.0)) and not gp.iterable(1)
    assert gp.isfortran(g.T) == np.isfortran(a.T) is True
    assert gp.isfortran(g) == np.isfortran(a) is False
    assert gp.isfortran(gp.asarray(np.ones(3))) is False


def test_shares_memory(rng):
    a, g = random_pair(rng, (6, 8), np.float64)
    views = [lambda m: m, lambda m: m[:, ::2], lambda m: m[:, 1::2], lambda m: m[::-1], lambda m: m[3:],
             lambda m: m[:3], lambda m: m.T, lambda m: m[2, 2:5], lambda m: m[:0]]
    for f1 in views:
        for f2 in views:
            assert gp.shares_memory(f1(g), f2(g)) == np.shares_memory(f1(a), f2(a))
            assert gp.may_share_memory(f1(g), f2(g)) == np.may_share_memory(f1(a), f2(a))
    assert not gp.shares_memory(g, g.copy())
    assert not gp.may_share_memory(g, a)  # device and host memory never overlap
    assert gp.shares_memory(a, a[1:]) and not gp.shares_memory(a, a.copy())  # host objects: NumPy's answer
