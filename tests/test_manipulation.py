"""Shape manipulation, joining, splitting, tiling, repeating, flipping, rolling and
padding against NumPy: values, dtypes, strides of views, memory shared where NumPy
shares it (written through the view, checked on the base), and NumPy's exception types."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import gpupy as gp
from helpers import (
    raises_like,
    random_pair,
    SAMPLE_DTYPES,
    VIEW_FUNCS_2D,
    VIEW_IDS_2D,
    assert_equal_to_numpy,
    assert_same_attributes,
    dtype_id,
    examples,
    random_array,
)

pytestmark = pytest.mark.gpu

DTYPES = SAMPLE_DTYPES

AxisError = np.exceptions.AxisError


pair = random_pair


def check_view(g_view, x_view, g_base, x_base, rng):
    """``g_view`` matches ``x_view`` (values and strides) and, like it, writes through to
    its base."""
    assert_equal_to_numpy(g_view, x_view)
    assert_same_attributes(g_view, x_view)
    if x_view.size:
        assert np.shares_memory(x_view, x_base)
        v = random_array(rng, (), x_view.dtype)[()]
        g_view[...] = v
        x_view[...] = v
        assert_equal_to_numpy(g_base, x_base)


# ---------------------------------------------------------------------------------------
# Views of shapes and axes


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_axis_views(rng, view):
    x, g = pair(rng, (4, 6), np.float32)
    x3, g3 = pair(rng, (2, 3, 4), np.int16)
    cases = [
        (lambda m, a: m.transpose(a), [view(g), view(x)]),
        (lambda m, a: m.moveaxis(a, 0, -1), [view(g), view(x)]),
        (lambda m, a: m.moveaxis(a, [0, 2], [2, 0]), [g3, x3]),
        (lambda m, a: m.moveaxis(a, -1, 0), [g3[:, ::-1], x3[:, ::-1]]),
        (lambda m, a: m.swapaxes(a, 0, -1), [view(g), view(x)]),
        (lambda m, a: m.expand_dims(a, 0), [view(g), view(x)]),
        (lambda m, a: m.expand_dims(a, (0, 2, -1)), [view(g), view(x)]),
        (lambda m, a: m.squeeze(m.expand_dims(a, 1)), [view(g), view(x)]),
        (lambda m, a: m.transpose(a, (1, 2, 0)), [g3[::2, :, 1:], x3[::2, :, 1:]]),
        (lambda m, a: m.rollaxis(a, 2), [g3, x3]),
        (lambda m, a: m.rollaxis(a, 0, 3), [g3, x3]),
        (lambda m, a: m.broadcast_to(a, (3,) + a.shape), [view(g), view(x)]),
        (lambda m, a: m.ravel(a), [g3, x3]),
        (lambda m, a: m.reshape(a, (4, -1)), [g3, x3]),
    ]
    for f, (ga, xa) in cases:
        gv, xv = f(gp, ga), f(np, xa)
        assert_equal_to_numpy(gv, xv)
        assert_same_attributes(gv, xv)
    # Writes through views reach the base.
    for f in [lambda m, a: m.transpose(a), lambda m, a: m.moveaxis(a, 1, 0), lambda m, a: m.expand_dims(a, 1)]:
        check_view(f(gp, view(g)), f(np, view(x)), g, x, rng)


def test_axis_errors(rng):
    x, g = pair(rng, (2, 3, 4))
    calls = [
        lambda m, a: m.moveaxis(a, 3, 0),
        lambda m, a: m.moveaxis(a, 0, -4),
        lambda m, a: m.moveaxis(a, [0, 0], [1, 2]),
        lambda m, a: m.moveaxis(a, [0, 1], [1]),
        lambda m, a: m.expand_dims(a, 4),
        lambda m, a: m.expand_dims(a, (0, 0)),
        lambda m, a: m.swapaxes(a, 0, 3),
        lambda m, a: m.squeeze(a, 0),
        lambda m, a: m.squeeze(a, 5),
        lambda m, a: m.transpose(a, (0, 1)),
        lambda m, a: m.transpose(a, (0, 1, 1)),
        lambda m, a: m.broadcast_to(a, (3, 4)),
        lambda m, a: m.broadcast_to(a, (2, 5, 4)),
        lambda m, a: m.broadcast_to(a, (-1, 3, 4)),
        lambda m, a: m.rollaxis(a, 5),
    ]
    for f in calls:
        raises_like(lambda: f(gp, g), lambda: f(np, x))
    for f, words in [
        (lambda m, a: m.moveaxis(a, 3, 0), "source: axis 3 is out of bounds for array of dimension 3"),
        (lambda m, a: m.expand_dims(a, 4), "axis 4 is out of bounds for array of dimension 4"),
        (lambda m, a: m.squeeze(a, 5), "axis 5 is out of bounds for array of dimension 3"),
    ]:
        with pytest.raises(AxisError, match=words):
            f(gp, g)


def test_broadcast_arrays(rng):
    x, g = pair(rng, (3, 1), np.complex64)
    y, h = pair(rng, (4,), np.int8)
    got = gp.broadcast_arrays(g, h, gp.asarray(np.float32(2)))
    want = np.broadcast_arrays(x, y, np.float32(2))
    assert isinstance(got, tuple) and len(got) == 3
    for gg, ww in zip(got, want):
        assert_equal_to_numpy(gg, ww)
        assert_same_attributes(gg, ww)
    same = gp.broadcast_arrays(g, g)
    assert same[0] is g
    raises_like(lambda: gp.broadcast_arrays(g, gp.zeros((2, 2))), lambda: np.broadcast_arrays(x, np.zeros((2, 2))))
    assert gp.broadcast_shapes((3, 1), (4,)) == np.broadcast_shapes((3, 1), (4,))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4), (0,)])
def test_atleast(rng, shape):
    x, g = pair(rng, shape, np.uint16)
    for name in ["atleast_1d", "atleast_2d", "atleast_3d"]:
        got, want = getattr(gp, name)(g), getattr(np, name)(x)
        assert_equal_to_numpy(got, want)
        assert_same_attributes(got, want)
        pair_got = getattr(gp, name)(g, g.T)
        pair_want = getattr(np, name)(x, x.T)
        assert isinstance(pair_got, tuple)
        for a, b in zip(pair_got, pair_want):
            assert_equal_to_numpy(a, b)
    if len(shape) >= 1:
        check_view(gp.atleast_3d(g), np.atleast_3d(x), g, x, rng)


# ---------------------------------------------------------------------------------------
# Joining


@pytest.mark.parametrize(
    "dtypes",
    [
        (np.float32, np.float32),
        (np.int8, np.uint16),
        (np.bool_, np.int64),
        (np.float16, np.int8),
        (np.float32, np.complex64, np.float64),
        (np.uint16, np.float16),
        (np.int64, np.complex128),
    ],
    ids=lambda ds: "-".join(np.dtype(d).name for d in ds),
)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concatenate_promotes(rng, dtypes, axis):
    xs = []
    for i, d in enumerate(dtypes):
        shape = [3, 4]
        if axis is not None:
            shape[axis] = i + 1
        xs.append(random_array(rng, tuple(shape), d))
    gs = [gp.asarray(x) for x in xs]
    assert_equal_to_numpy(gp.concatenate(gs, axis=axis), np.concatenate(xs, axis=axis))
    # Non-contiguous inputs (transposed, reversed).
    want = np.concatenate([x.T[::-1] for x in xs], axis=None if axis is None else 1 - (axis % 2))
    got = gp.concatenate([g.T[::-1] for g in gs], axis=None if axis is None else 1 - (axis % 2))
    assert_equal_to_numpy(got, want)


def test_concatenate_options(rng):
    x, g = pair(rng, (2, 3), np.float64)
    y, h = pair(rng, (4, 3), np.float64)
    e, f = pair(rng, (0, 3), np.float64)
    assert_equal_to_numpy(gp.concatenate([g, f, h, f]), np.concatenate([x, e, y, e]))
    assert_equal_to_numpy(gp.concatenate((g, h), dtype=np.float32), np.concatenate((x, y), dtype=np.float32))
    assert_equal_to_numpy(
        gp.concatenate([g, h], dtype=np.int8, casting="unsafe"), np.concatenate([x, y], dtype=np.int8, casting="unsafe")
    )
    out = gp.empty((6, 3), np.complex128)
    r = gp.concatenate([g, h], out=out)
    assert r is out
    assert_equal_to_numpy(out, np.concatenate([x, y], out=np.empty((6, 3), np.complex128)))
    # NumPy arrays and lists are accepted too.
    assert_equal_to_numpy(gp.concatenate([x, [[1, 2, 3]]]), np.concatenate([x, [[1, 2, 3]]]))
    assert_equal_to_numpy(gp.concat([g, h]), np.concatenate([x, y]))


def test_concatenate_errors(rng):
    x, g = pair(rng, (2, 3))
    y, h = pair(rng, (3,))
    i, j = pair(rng, (2, 3), np.int64)
    calls = [
        (lambda: gp.concatenate([]), lambda: np.concatenate([])),
        (lambda: gp.concatenate([g, h]), lambda: np.concatenate([x, y])),
        (lambda: gp.concatenate([g, g.T]), lambda: np.concatenate([x, x.T])),
        (lambda: gp.concatenate([g[0, 0]]), lambda: np.concatenate([x[0, 0, ...]])),
        (lambda: gp.concatenate([g, g], axis=2), lambda: np.concatenate([x, x], axis=2)),
        (lambda: gp.concatenate([g, j], dtype=np.int64), lambda: np.concatenate([x, i], dtype=np.int64)),
        (lambda: gp.concatenate([g], out=gp.empty((2, 3)), dtype=np.float64),
         lambda: np.concatenate([x], out=np.empty((2, 3)), dtype=np.float64)),
        (lambda: gp.concatenate([g], out=gp.empty((3, 3))), lambda: np.concatenate([x], out=np.empty((3, 3)))),
        (lambda: gp.stack([]), lambda: np.stack([])),
        (lambda: gp.stack([g, g.T]), lambda: np.stack([x, x.T])),
        (lambda: gp.stack([g, g], axis=3), lambda: np.stack([x, x], axis=3)),
    ]
    for gc, nc in calls:
        raises_like(gc, nc)
    with pytest.raises(AxisError, match="axis 2 is out of bounds for array of dimension 2"):
        gp.concatenate([g, g], axis=2)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_stacks(rng, dtype):
    for shape in [(), (3,), (2, 3), (2, 3, 2)]:
        xs = [random_array(rng, shape, dtype) for _ in range(3)]
        gs = [gp.asarray(x) for x in xs]
        for axis in range(-len(shape) - 1, len(shape) + 1):
            assert_equal_to_numpy(gp.stack(gs, axis=axis), np.stack(xs, axis=axis))
        for name in ["hstack", "vstack", "dstack", "column_stack"]:
            if name == "column_stack" and len(shape) > 2:
                continue
            assert_equal_to_numpy(getattr(gp, name)(gs), getattr(np, name)(xs))
    x, g = pair(rng, (2, 3), dtype)
    y, h = pair(rng, (2, 5), np.float32)
    assert_equal_to_numpy(gp.hstack([g, h.T.T]), np.hstack([x, y]))
    assert_equal_to_numpy(gp.vstack((g.T, h[:, :2].T)), np.vstack((x.T, y[:, :2].T)))
    assert_equal_to_numpy(gp.hstack([g, h], dtype=np.complex128), np.hstack([x, y], dtype=np.complex128))
    assert_equal_to_numpy(gp.stack([g, g[::-1]], dtype=np.complex64), np.stack([x, x[::-1]], dtype=np.complex64))
    raises_like(lambda: gp.dstack([]), lambda: np.dstack([]))


# ---------------------------------------------------------------------------------------
# Splitting


@pytest.mark.parametrize(
    "func,args",
    [
        ("split", (3,)),
        ("split", ([1, 4],)),
        ("split", ([2, 2, 9],)),
        ("split", (2, 1)),
        ("split", ([1], -1)),
        ("array_split", (4,)),
        ("array_split", (7, 1)),
        ("array_split", ([3, 1],)),
        ("hsplit", (2,)),
        ("hsplit", ([1, 3],)),
        ("vsplit", (3,)),
        ("dsplit", (2,)),
    ],
)
def test_splits_are_views(rng, func, args):
    x, g = pair(rng, (6, 4, 2), np.int64)
    got = getattr(gp, func)(g, *args)
    want = getattr(np, func)(x, *args)
    assert isinstance(got, list) and len(got) == len(want)
    for gv, xv in zip(got, want):
        assert_equal_to_numpy(gv, xv)
        if xv.size:
            assert_same_attributes(gv, xv)
    for gv, xv in zip(got, want):
        if xv.size:
            check_view(gv, xv, g, x, rng)


def test_split_errors(rng):
    x, g = pair(rng, (5, 3))
    calls = [
        lambda m, a: m.split(a, 2),
        lambda m, a: m.array_split(a, 0),
        lambda m, a: m.split(a, 2, axis=3),
        lambda m, a: m.hsplit(a[0, 0, ...], 2),
        lambda m, a: m.vsplit(a[0], 1),
        lambda m, a: m.dsplit(a, 1),
    ]
    for f in calls:
        raises_like(lambda: f(gp, g), lambda: f(np, x))
    one = np.arange(5.0)
    assert [p.get().tolist() for p in gp.hsplit(gp.asarray(one), [2])] == [p.tolist() for p in np.hsplit(one, [2])]


# ---------------------------------------------------------------------------------------
# Tiling and repeating


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float16, np.complex128], ids=dtype_id)
@pytest.mark.parametrize("reps", [2, (2, 1), (1, 3), (2, 2, 2), (0, 2), (1, 1), 1, (3,)])
def test_tile(rng, dtype, reps):
    x, g = pair(rng, (2, 3), dtype)
    assert_equal_to_numpy(gp.tile(g, reps), np.tile(x, reps))
    assert_equal_to_numpy(gp.tile(g.T[::-1], reps), np.tile(x.T[::-1], reps))
    x0, g0 = pair(rng, (), dtype)
    assert_equal_to_numpy(gp.tile(g0, reps), np.tile(x0, reps))
    # tile always copies.
    t = gp.tile(g, 1)
    t[...] = x[0, 0]
    assert_equal_to_numpy(g, x)
    raises_like(lambda: gp.tile(g, -1), lambda: np.tile(x, -1))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_repeat(rng, dtype):
    x, g = pair(rng, (3, 4), dtype)
    for repeats, axis in [
        (2, None),
        (3, 0),
        (2, 1),
        (0, 1),
        (1, -1),
        ([1, 0, 2], 0),
        ([2, 2, 1, 3], 1),
        ([3], 1),
        (np.array([1, 2, 3, 0]), -1),
        (gp.asarray(np.array([2, 0, 1])), 0),
        (2.7, 0),
        ([1.5, 2.5, 0.5, 3.9], 1),
    ]:
        want = np.repeat(x, repeats.get() if isinstance(repeats, gp.ndarray) else repeats, axis=axis)
        assert_equal_to_numpy(gp.repeat(g, repeats, axis=axis), want)
        assert_equal_to_numpy(g.repeat(repeats, axis=axis), want)
    assert_equal_to_numpy(gp.repeat(g.T[::-1], [1, 2, 0, 1], axis=0), np.repeat(x.T[::-1], [1, 2, 0, 1], axis=0))
    assert_equal_to_numpy(gp.repeat(g[0, 0], 3), np.repeat(x[0, 0, ...], 3))


def test_repeat_many_runs(rng):
    # Random per-element counts: many short runs (the gather path when there is one).
    x, g = pair(rng, (200, 3), np.float32)
    counts = rng.integers(0, 4, size=200)
    assert_equal_to_numpy(gp.repeat(g, counts, axis=0), np.repeat(x, counts, axis=0))
    assert_equal_to_numpy(gp.repeat(g.T, counts, axis=1), np.repeat(x.T, counts, axis=1))


def test_repeat_errors(rng):
    x, g = pair(rng, (3, 4))
    for repeats, axis in [(-1, None), ([-1], 0), ([1, 2], 0), ([1, -1, 1], 0), ([[1, 2, 3]], 0), ("a", 0), (2, 2)]:
        raises_like(lambda: gp.repeat(g, repeats, axis=axis), lambda: np.repeat(x, repeats, axis=axis))


# ---------------------------------------------------------------------------------------
# Flips, rolls, rotations


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_flips_are_views(rng, view):
    x, g = pair(rng, (5, 6), np.complex64)
    for f in [
        lambda m, a: m.flip(a),
        lambda m, a: m.flip(a, 0),
        lambda m, a: m.flip(a, -1),
        lambda m, a: m.flip(a, (0, 1)),
        lambda m, a: m.fliplr(a),
        lambda m, a: m.flipud(a),
        lambda m, a: m.rot90(a),
        lambda m, a: m.rot90(a, 2),
        lambda m, a: m.rot90(a, -1),
        lambda m, a: m.rot90(a, 4),
        lambda m, a: m.rot90(a, 1, axes=(1, 0)),
    ]:
        check_view(f(gp, view(g)), f(np, view(x)), g, x, rng)


def test_flip_rot90_nd_and_errors(rng):
    x, g = pair(rng, (2, 3, 4), np.int8)
    for k in range(-2, 4):
        for axes in [(0, 1), (2, 0), (1, -1)]:
            got, want = gp.rot90(g, k, axes), np.rot90(x, k, axes)
            assert_equal_to_numpy(got, want)
            assert_same_attributes(got, want)
    for f in [
        lambda m, a: m.flip(a, 3),
        lambda m, a: m.flip(a, (0, 0)),
        lambda m, a: m.fliplr(a[0, 0]),
        lambda m, a: m.flipud(a[0, 0, 0, ...]),
        lambda m, a: m.rot90(a, axes=(0, 0)),
        lambda m, a: m.rot90(a, axes=(0, 3)),
        lambda m, a: m.rot90(a, axes=(0,)),
        lambda m, a: m.rot90(a[0, 0], 1),
    ]:
        raises_like(lambda: f(gp, g), lambda: f(np, x))
    x0, g0 = pair(rng, (), np.float32)
    assert_equal_to_numpy(gp.flip(g0), np.flip(x0))
    e, h = pair(rng, (0, 3), np.float32)
    assert_equal_to_numpy(gp.flip(h), np.flip(e))


@pytest.mark.parametrize(
    "shift,axis",
    [
        (2, None),
        (-7, None),
        (1, 0),
        (-1, 1),
        (13, -1),
        ((1, 2), (0, 1)),
        ((1, -3), (1, 1)),
        (2, (0, 2)),
        ((1, 1), 0),
        (0, 1),
    ],
)
@pytest.mark.parametrize("view", [lambda a: a, lambda a: a.transpose(2, 1, 0)[::-1]], ids=["contiguous", "strided"])
def test_roll(rng, shift, axis, view):
    x, g = pair(rng, (4, 5, 3), np.float16)
    got = gp.roll(view(g), shift, axis)
    want = np.roll(view(x), shift, axis)
    assert_equal_to_numpy(got, want)
    got[...] = 0
    assert_equal_to_numpy(g, x)  # a copy


def test_roll_edge_cases(rng):
    e, h = pair(rng, (0, 3), np.int64)
    assert_equal_to_numpy(gp.roll(h, 2, 0), np.roll(e, 2, 0))
    assert_equal_to_numpy(gp.roll(h, 2), np.roll(e, 2))
    x, g = pair(rng, (3, 4))
    raises_like(lambda: gp.roll(g, [[1, 2]], 0), lambda: np.roll(x, [[1, 2]], 0))
    raises_like(lambda: gp.roll(g, 1, 2), lambda: np.roll(x, 1, 2))
    raises_like(lambda: gp.roll(g, (1, 2, 3), (0, 1)), lambda: np.roll(x, (1, 2, 3), (0, 1)))


# ---------------------------------------------------------------------------------------
# Padding

PAD_WIDTHS = [1, (2, 3), ((1, 0), (0, 2)), ((3, 3), (1, 4)), 0, ((7, 1), (0, 9)), [[2], [5]]]


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("width", PAD_WIDTHS, ids=[str(w) for w in PAD_WIDTHS])
def test_pad(rng, mode, width):
    x, g = pair(rng, (4, 3), np.float32)
    want = np.pad(x, width, mode=mode)
    assert_equal_to_numpy(gp.pad(g, width, mode=mode), want)
    assert_equal_to_numpy(gp.pad(g.T[::-1], width, mode=mode), np.pad(x.T[::-1], width, mode=mode))
    p = gp.pad(g, width, mode=mode)
    p[...] = 0
    assert_equal_to_numpy(g, x)  # a copy


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_pad_dtypes_and_constants(rng, dtype):
    x, g = pair(rng, (3, 2, 4), dtype)
    for kw in [{}, {"constant_values": 1}, {"constant_values": ((1, 0), (0, 1), (1, 1))}, {"constant_values": (0, 1)}]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.pad(x, ((1, 2), (0, 1), (2, 0)), **kw)
            got = gp.pad(g, ((1, 2), (0, 1), (2, 0)), **kw)
        assert_equal_to_numpy(got, want)
    for mode in ["edge", "reflect", "symmetric", "wrap"]:
        assert_equal_to_numpy(gp.pad(g, ((1, 2), (3, 0), (0, 5)), mode=mode), np.pad(x, ((1, 2), (3, 0), (0, 5)), mode=mode))
    x1, g1 = pair(rng, (1,), dtype)
    for mode in ["edge", "reflect", "symmetric", "wrap"]:
        assert_equal_to_numpy(gp.pad(g1, 3, mode=mode), np.pad(x1, 3, mode=mode))
    assert gp.pad(g, 2, mode="empty").shape == np.pad(x, 2, mode="empty").shape


def test_pad_empty_and_errors(rng):
    e, h = pair(rng, (0, 3), np.float64)
    assert_equal_to_numpy(gp.pad(h, 1), np.pad(e, 1))
    assert_equal_to_numpy(gp.pad(h, ((0, 0), (1, 1)), mode="edge"), np.pad(e, ((0, 0), (1, 1)), mode="edge"))
    x0, g0 = pair(rng, (), np.float64)
    assert_equal_to_numpy(gp.pad(g0, 3), np.pad(x0, 3))
    x, g = pair(rng, (3, 4))
    calls = [
        lambda m, a: m.pad(e if m is np else h, 1, mode="reflect"),
        lambda m, a: m.pad(a, -1),
        lambda m, a: m.pad(a, ((1, 2), (3, -1))),
        lambda m, a: m.pad(a, 1, mode="bogus"),
        lambda m, a: m.pad(a, 1, mode="edge", constant_values=3),
        lambda m, a: m.pad(a, ((1, 2, 3),)),
    ]
    for f in calls:
        raises_like(lambda: f(gp, g), lambda: f(np, x))
    with pytest.raises(NotImplementedError, match="gpupy.pad does not implement mode 'mean'"):
        gp.pad(g, 1, mode="mean")


@settings(max_examples=examples(25), deadline=None)
@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    data=st.data(),
    mode=st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap"]),
)
def test_pad_hypothesis(shape, data, mode):
    widths = [tuple(data.draw(st.lists(st.integers(0, 7), min_size=2, max_size=2))) for _ in shape]
    x = np.arange(np.prod(shape), dtype=np.int32).reshape(shape) * 7 + 3
    assert_equal_to_numpy(gp.pad(gp.asarray(x), widths, mode=mode), np.pad(x, widths, mode=mode))


@settings(max_examples=examples(25), deadline=None)
@given(
    shapes=st.lists(st.lists(st.integers(0, 4), min_size=2, max_size=2), min_size=1, max_size=4),
    axis=st.sampled_from([0, 1, -1, None]),
    flip=st.booleans(),
)
def test_concatenate_hypothesis(shapes, axis, flip):
    rng = np.random.default_rng(len(shapes))
    xs = []
    for s in shapes:
        s = list(s)
        if axis is not None:
            s[1 - (axis % 2)] = shapes[0][1 - (axis % 2)]
        x = random_array(rng, tuple(s), np.int16)
        xs.append(x[::-1] if flip else x)
    assert_equal_to_numpy(gp.concatenate([gp.asarray(x) for x in xs], axis=axis), np.concatenate(xs, axis=axis))


def test_copyto(rng):
    x, g = pair(rng, (3, 4), np.float64)
    y, h = pair(rng, (4,), np.float32)
    gp.copyto(g, h)
    np.copyto(x, y)
    assert_equal_to_numpy(g, x)
    gp.copyto(g.T[::-1], 2.5)
    np.copyto(x.T[::-1], 2.5)
    assert_equal_to_numpy(g, x)
    i = gp.zeros(3, np.int64)
    raises_like(lambda: gp.copyto(i, gp.ones(3)), lambda: np.copyto(np.zeros(3, np.int64), np.ones(3)))
    gp.copyto(i, gp.ones(3) * 2.7, casting="unsafe")
    assert_array_equal(i.get(), np.full(3, 2))
