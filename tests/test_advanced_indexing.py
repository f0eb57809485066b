"""Advanced indexing (integer and boolean arrays in keys) and the indexing routines
(take, put, where, nonzero, argwhere, flatnonzero, compress, extract), against NumPy.

Every key is applied to a NumPy array and to its device copy, with the index arrays given
as NumPy arrays, lists or gpupy arrays: results must agree in shape, dtype and bits, or
both must raise the same exception type (and, for index errors, the same message).

Assignments through repeated indices write an unspecified one of the values on the GPU
(NumPy: the last), so assignment tests either use distinct indices or values that are a
function of the destination.
"""

import re

import gpupy as gp
import numpy as np
import pytest
from helpers import VIEW_FUNCS_2D, VIEW_IDS_2D, assert_equal_to_numpy, dtype_id, random_array

pytestmark = pytest.mark.gpu

DTYPES = [np.bool_, np.int32, np.float32, np.float64, np.complex64]
# Every element size the gather/scatter kernels move: 1, 2 (float16, int16), 4, 8 and 16
# (complex128) bytes.
ITEMSIZE_DTYPES = DTYPES + [np.float16, np.int16, np.complex128]
S = slice


def to_device_key(key):
    """``key`` with every NumPy array in it replaced by its gpupy copy."""
    if isinstance(key, tuple):
        return tuple(to_device_key(k) for k in key)
    if isinstance(key, np.ndarray) and key.ndim > 0:
        return gp.asarray(key)
    return key


def numpy_outcome(call):
    try:
        return call(), None
    except Exception as e:  # noqa: BLE001 - gpupy must raise the same type
        return None, e


def check_get(x, key, g=None, device_key=False):
    """``g[key]`` agrees with ``x[key]`` (``g`` defaults to ``x``'s device copy)."""
    g = gp.asarray(x) if g is None else g
    gkey = to_device_key(key) if device_key else key
    want, exc = numpy_outcome(lambda: x[key])
    if exc is not None:
        # no match=: random keys; out-of-bounds messages are compared below
        with pytest.raises(type(exc)) as info:
            g[gkey]
        if isinstance(exc, IndexError) and "out of bounds" in str(exc):
            assert str(info.value) == str(exc)
        return
    got = g[gkey]
    assert isinstance(got, gp.ndarray)
    assert_equal_to_numpy(got, np.asarray(want))


def changed(v):
    """A value derived from ``v`` elementwise (so repeated destinations agree) that differs
    from it."""
    v = np.asarray(v)
    if v.dtype.kind == "b":
        return ~v
    if v.dtype.kind in "iu":
        return v ^ v.dtype.type(1)
    return (v * 2 + 1).astype(v.dtype)


def check_set(x, key, device_key=False, source="numpy"):
    """``g[key] = f(g[key])`` changes ``g`` as NumPy changes ``x``."""
    g = gp.asarray(x)
    gkey = to_device_key(key) if device_key else key
    x = x.copy()
    sel, exc = numpy_outcome(lambda: x[key])
    if exc is not None:
        words = re.escape(str(exc)) if isinstance(exc, IndexError) and "out of bounds" in str(exc) else None
        with pytest.raises(type(exc), match=words):  # other messages vary with the random key
            g[gkey] = 0
        assert_equal_to_numpy(g, x)  # a failed assignment writes nothing
        return
    new = changed(sel)
    x[key] = new
    g[gkey] = gp.asarray(new) if source == "gpupy" else new
    assert_equal_to_numpy(g, x)


# --- getitem with integer arrays ---------------------------------------------------------

INT_KEYS = [
    [0, 2, -1],
    np.array([3, 0, 3, 1]),
    np.array([[1, 0], [2, -4]]),
    ([1, -1], [0, 2]),
    (S(None), [[0, 1], [2, 0]]),
    (S(None), [0, 1], [1, 2]),  # adjacent: the index axes stay in place
    ([0, 1], S(None), [1, 0]),  # separated: the index axes go first
    (0, S(None), [1, 2]),  # an integer counts as an advanced index
    (S(None), 0, [1, 2]),
    ([[1], [2]], S(1, 3), [0, 2, 1]),  # broadcast index arrays
    (None, [0, 2], None, 1),
    (Ellipsis, [2, 0]),
    ([1, 0], Ellipsis, [0, 1]),
    (S(None), [0, 1], Ellipsis, [1, 0]),  # an empty ellipsis still separates
    (S(None, None, -1), np.array([4, 0], dtype=np.int8), S(1, None, 2)),
    (np.array([1], dtype=np.uint16), np.array([2, 3], dtype=np.uint64), np.array(-1)),
    (np.int64(1), [0, 1]),
    [[0, 1, 2]],  # a nested list is a 2-d index array
    ([], S(None)),  # an empty list indexes nothing
    (np.zeros((0, 2), dtype=np.int64),),
    (np.array(2), S(None), [0]),  # a 0-d array counts as an integer
]


@pytest.mark.parametrize("dtype", ITEMSIZE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("device_key", [False, True], ids=["host_index", "device_index"])
def test_getitem_integer_arrays(rng, dtype, device_key):
    x = random_array(rng, (4, 5, 6), dtype)
    g = gp.asarray(x)
    for key in INT_KEYS:
        check_get(x, key, g, device_key)


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_getitem_of_non_contiguous_views(rng, view):
    x = random_array(rng, (9, 8), np.float32)
    xv, gv = view(x), view(gp.asarray(x))
    n0, n1 = xv.shape
    keys = [
        [n0 - 1, 0, -1],
        (S(None), [n1 - 1, 0]),
        ([0, -1], [-1, 0]),
        (rng.integers(0, 2, n0).astype(bool),),
        (rng.integers(0, 2, (n0, n1)).astype(bool),),
        (S(None, None, -1), rng.integers(0, 2, n1).astype(bool)),
    ]
    for key in keys:
        check_get(xv, key, gv)
        check_get(xv, key, gv, device_key=True)


# --- getitem with boolean masks ----------------------------------------------------------


@pytest.mark.parametrize("dtype", ITEMSIZE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("device_key", [False, True], ids=["host_mask", "device_mask"])
def test_getitem_boolean_masks(rng, dtype, device_key):
    x = random_array(rng, (4, 5, 6), dtype)
    g = gp.asarray(x)

    def m(*shape):
        return rng.integers(0, 2, shape).astype(bool)

    keys = [
        m(4),
        m(4, 5),
        m(4, 5, 6),
        np.zeros((4, 5), bool),
        np.ones((4, 5, 6), bool),
        (S(None), m(5)),
        (Ellipsis, m(6)),
        (m(4), 1, S(None, None, -2)),
        (m(4), [0, 2, 1]),
        (S(1, 3), m(5, 6)),
        (m(4, 5), [3]),
        (None, m(4), None),
        [True, False, True, True],  # a list of booleans is a mask
    ]
    for key in keys:
        check_get(x, key, g, device_key)


def test_mask_of_a_large_array_spans_many_blocks(rng):
    # More than one tile per block on any GPU: exercises the chunked compaction.
    x = random_array(rng, (1_000_003,), np.float32)
    g = gp.asarray(x)
    for density in [0.0, 0.001, 0.5, 1.0]:
        mask = rng.uniform(size=x.shape) < density
        assert_equal_to_numpy(g[gp.asarray(mask)], x[mask])
        assert_equal_to_numpy(g[g > 0.25], x[x > 0.25])


def test_getitem_scalar_booleans(rng):
    x = random_array(rng, (3, 4), np.float64)
    g = gp.asarray(x)
    for key in [
        True,
        False,
        np.True_,
        np.False_,
        (0, True),
        (True, 1),
        (S(None), True, [0, 2]),
        ([0, 1], True),
        (None, False),
        (Ellipsis, True),
        np.array(True),
    ]:
        check_get(x, key, g)
    assert_equal_to_numpy(g[gp.asarray(np.array(True))], x[np.array(True)])
    assert_equal_to_numpy(g[gp.asarray(np.array(False))], x[np.array(False)])


def test_getitem_on_0d_and_empty_arrays(rng):
    s = random_array(rng, (), np.complex64)
    for key in [True, False, (None, True), (True, None), np.array(True)]:
        check_get(s, key)
    check_get(s, [0])  # IndexError: too many indices
    e = random_array(rng, (0, 3), np.int32)
    for key in [(S(None), [2, 0]), [[]], ([],), np.zeros(0, bool), (S(None), np.ones(3, bool))]:
        check_get(e, key)
    check_get(e, [0])  # out of bounds for an empty axis
    t = random_array(rng, (3, 0), np.float32)
    check_get(t, [0, 2, 2])
    check_get(t, (S(None), []))


def random_advanced_key(rng, shape):
    """A random key mixing ints, slices, integer arrays (broadcastable shapes), masks,
    ``None`` and ``...``; sometimes out of range."""
    parts = []
    axis = 0
    for _ in range(int(rng.integers(1, len(shape) + 2))):
        r = rng.uniform()
        if r < 0.2:
            parts.append(int(rng.integers(-5, 5)))
            axis += 1
        elif r < 0.45:
            parts.append(
                slice(
                    *[None if rng.uniform() < 0.4 else int(rng.integers(-5, 6)) for _ in range(2)],
                    int(rng.choice([-2, -1, 1, 2])),
                )
            )
            axis += 1
        elif r < 0.85:
            ishape = [(3,), (2, 1), (1, 3), (), (2, 3)][int(rng.integers(0, 5))]
            parts.append(rng.integers(-4, 4, ishape))
            axis += 1
        else:
            n = shape[axis] if axis < len(shape) else 2
            parts.append(rng.integers(0, 2, n).astype(bool))
            axis += 1
        if rng.uniform() < 0.15:
            parts.append(None)
    if rng.uniform() < 0.3:
        parts.insert(int(rng.integers(0, len(parts) + 1)), Ellipsis)
    return tuple(parts)


@pytest.mark.parametrize("shape", [(5,), (4, 6), (3, 4, 5), (2, 3, 2, 4)], ids=lambda s: "x".join(map(str, s)))
def test_random_advanced_keys(rng, shape):
    x = random_array(rng, shape, np.float64)
    g = gp.asarray(x)
    for _ in range(40):
        key = random_advanced_key(rng, shape)
        device_key = bool(rng.integers(0, 2))
        check_get(x, key, g, device_key)
        check_set(x, key, device_key)


# --- index errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        [5],
        [0, -6],
        ([0, 1], [0, 7]),
        (S(None), [4, 4, 9]),
        (0, [0, -8]),
        np.array([[0], [5]]),
        ([0, 1], [0, 1, 2]),  # shape mismatch
        np.array([True, False]),  # wrong mask length
        (S(None), np.ones((4, 2), bool)),  # mask of the wrong shape
        np.array([0.0, 1.0]),  # not an integer array
        [0, 1.5],
        (0, 0, [0]),  # too many indices
        [[0, 1], [2]],  # ragged
    ],
    ids=repr,
)
def test_index_errors_match_numpy(rng, key):
    x = random_array(rng, (5, 7), np.float32)
    g = gp.asarray(x)
    _, exc = numpy_outcome(lambda: x[key])
    assert exc is not None
    # NumPy's type and whole message (the same for assignment): IndexError, or the ragged
    # list's ValueError from converting the key.
    words = f"^{re.escape(str(exc))}$"
    with pytest.raises(type(exc), match=words):
        g[key]
    with pytest.raises(type(exc), match=words):
        g[key] = 1.0
    assert_equal_to_numpy(g, x)  # a failed assignment writes nothing
    if isinstance(key, np.ndarray) and key.dtype.kind in "iub":
        with pytest.raises(IndexError, match=words):
            g[gp.asarray(key)]


def test_gpupy_float_array_is_not_an_index(rng):
    g = gp.asarray(random_array(rng, (5,), np.float32))
    with pytest.raises(IndexError, match="integer"):
        g[gp.asarray(np.array([0.0, 1.0]))]


# --- setitem -----------------------------------------------------------------------------

SET_KEYS = [
    [0, 3, -1],
    ([1, 2], [0, 4]),
    (S(None), [[4], [0]]),
    (0, S(None), [5, 1]),
    (S(1, None), [2, 0], S(None, None, -1)),
    (Ellipsis, [2, 3]),
]


@pytest.mark.parametrize("dtype", ITEMSIZE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("source", ["numpy", "gpupy"])
def test_setitem_integer_arrays(rng, dtype, source):
    x = random_array(rng, (4, 5, 6), dtype)
    for key in SET_KEYS:
        check_set(x, key, device_key=False, source=source)
        check_set(x, key, device_key=True, source=source)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_setitem_scalars_and_broadcast_values(rng, dtype):
    x = random_array(rng, (4, 5, 6), dtype)
    g = gp.asarray(x)
    mask = rng.integers(0, 2, (4, 5)).astype(bool)
    for key in [
        [2, 0],
        ([0, 3], S(None), [1, 5]),
        mask,
        (mask, Ellipsis),
        (S(None), mask[0]),
        np.ones((4, 5, 6), bool),
    ]:
        sel_shape = x[key].shape
        values = [
            random_array(rng, (), dtype).item(),  # Python scalar
            random_array(rng, (), dtype),  # NumPy 0-d
            random_array(rng, (1,), dtype),  # one element: the masked fill path
            random_array(rng, sel_shape[-1:], dtype),  # broadcast along the last axis
        ]
        if not (isinstance(key, np.ndarray) and key.ndim == x.ndim):  # NumPy refuses 2-d values for a full-rank mask
            values.append(random_array(rng, (1,) + sel_shape, dtype))  # a leading length-1 axis
        for v in values:
            x[key] = v
            g[key] = v
            assert_equal_to_numpy(g, x)
            w = random_array(rng, np.shape(v), dtype)
            x[key] = w
            g[key] = gp.asarray(w)
            assert_equal_to_numpy(g, x)


def test_setitem_converts_the_value_like_numpy(rng):
    x = random_array(rng, (6, 5), np.int32)
    g = gp.asarray(x)
    idx = [4, 1]
    v = rng.uniform(-100, 100, (2, 5))
    x[idx] = v
    g[idx] = v  # float64 NumPy value into int32
    assert_equal_to_numpy(g, x)
    v = rng.uniform(-100, 100, (5,)).astype(np.float32)
    x[x > 0] = 7.9
    g[g > 0] = 7.9
    assert_equal_to_numpy(g, x)
    x[idx, 0] = v[:2]
    g[idx, 0] = gp.asarray(v[:2])  # a float32 gpupy value into int32
    assert_equal_to_numpy(g, x)


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_setitem_through_non_contiguous_views(rng, view):
    x = random_array(rng, (9, 8), np.float64)
    g = gp.asarray(x)
    xv, gv = view(x), view(g)
    n0, n1 = xv.shape
    mask = rng.integers(0, 2, (n0, n1)).astype(bool)
    for key, value in [
        ([n0 - 1, 0], random_array(rng, (2, n1), np.float64)),
        ((S(None), [n1 - 1, 1]), random_array(rng, (n0, 1), np.float64)),
        (mask, random_array(rng, (int(mask.sum()),), np.float64)),
        (mask, 2.5),
        (mask[:, 0], random_array(rng, (n1,), np.float64)),
    ]:
        xv[key] = value
        gv[key] = value
        assert_equal_to_numpy(g, x)


def test_setitem_value_overlapping_the_target(rng):
    # NumPy reads the whole value before writing.
    x = random_array(rng, (10,), np.float32)
    g = gp.asarray(x)
    x[[0, 1, 2, 3]] = x[2:6]
    g[[0, 1, 2, 3]] = g[2:6]
    assert_equal_to_numpy(g, x)
    mask = rng.integers(0, 2, 10).astype(bool)
    x[mask] = x[3]  # a one-element view of the target: the masked fill path
    g[gp.asarray(mask)] = g[3]
    assert_equal_to_numpy(g, x)
    y = random_array(rng, (4, 4), np.float32)
    h = gp.asarray(y)
    y[[0, 1]] = y[::-1][1:3]
    h[[0, 1]] = h[::-1][1:3]
    assert_equal_to_numpy(h, y)


def test_setitem_value_shape_mismatch(rng):
    x = random_array(rng, (5, 4), np.float32)
    g = gp.asarray(x)
    for key, bad in [([0, 1], (3, 4)), ([0, 1], (2, 1, 4)), (x[:, 0] > 0, (7,))]:
        value = random_array(rng, bad, np.float32)
        with pytest.raises(ValueError) as want:  # no match=: NumPy's message is the reference
            x[key] = value
        with pytest.raises(ValueError) as got:  # no match=: compared with NumPy's below
            g[key] = value
        assert str(got.value) == str(want.value)
        assert_equal_to_numpy(g, x)


def test_setitem_with_repeated_indices_writes_one_of_the_values(rng):
    g = gp.asarray(np.zeros(4, np.float32))
    g[[1, 1, 1, 2]] = np.array([5.0, 6.0, 7.0, 8.0], np.float32)
    got = g.get()
    assert got[1] in (5.0, 6.0, 7.0) and got[2] == 8.0 and got[0] == 0.0 and got[3] == 0.0


def test_augmented_assignment_through_indices(rng):
    x = random_array(rng, (6, 7), np.float32)
    g = gp.asarray(x)
    n = np.zeros((6, 7), np.int64)
    h = gp.asarray(n)
    mask = x > 0
    x[mask] *= 3
    g[g > 0] *= 3
    assert_equal_to_numpy(g, x)
    n[mask] += 1
    h[gp.asarray(mask)] += 1
    assert_equal_to_numpy(h, n)
    x[[0, 5], 1:] -= 1
    g[[0, 5], 1:] -= 1
    assert_equal_to_numpy(g, x)


# --- the CuPy Mandelbrot example ---------------------------------------------------------


def assert_mandelbrot_step(got, z_prev, c, mask):
    """``got`` is one step ``z[mask] = z[mask] * z[mask] + c[mask]`` from the device's own
    previous state ``z_prev`` (so chaotic growth of earlier last-bit differences cannot
    enter): unmasked elements bit-identical; masked ones within the bound of the step.

    Derivation: a complex square rounds twice per component (sqrt(2) gamma_2 |z|^2 for
    the modulus, with or without a fused multiply-add) and the sum once (sqrt(2) u |z^2 + c|
    <= sqrt(2) u (|z|^2 + |c|)); gpupy's and NumPy's each err by that much, so they
    differ by at most twice it."""
    want = z_prev.copy()
    want[mask] = z_prev[mask] * z_prev[mask] + c[mask]
    g = got.get()
    assert g.dtype == want.dtype
    assert_equal_to_numpy(gp.asarray(g[~mask]), want[~mask])
    u = float(np.finfo(want.dtype).eps) / 2
    az2, ac = np.abs(z_prev[mask]).astype(np.float64) ** 2, np.abs(c[mask]).astype(np.float64)
    bound = 2 * np.sqrt(2) * ((2 * u / (1 - 2 * u)) * az2 + u * (az2 + ac))
    err = np.abs(g[mask].astype(np.complex128) - want[mask].astype(np.complex128))
    assert np.all(err <= bound), f"max error {np.max(err - bound)} over the step's bound"


def test_mandelbrot_with_masks(rng):
    """``z[mask] = z[mask] * z[mask] + c[mask]`` and ``n[esc] = i``, step by step; NumPy
    repeats each step from the device's state, so last-bit differences cannot diverge."""
    w, h, steps = 96, 64, 25
    xs = np.linspace(-2.2, 0.8, w)
    ys = np.linspace(-1.2, 1.2, h)
    c = (xs[None, :] + 1j * ys[:, None]).astype(np.complex128)
    n = np.zeros(c.shape, np.int32)
    gc, gz, gn = gp.asarray(c), gp.zeros(c.shape, np.complex128), gp.asarray(n)
    for i in range(steps):
        z_prev = gz.get()
        gmask = abs(gz) < 2.0
        mask = gmask.get()
        gz[gmask] = gz[gmask] * gz[gmask] + gc[gmask]
        assert_mandelbrot_step(gz, z_prev, c, mask)
        gesc = abs(gz) >= 2.0
        esc = gesc.get() & mask
        gn[gesc & gmask] = i
        n[esc] = i
    assert_equal_to_numpy(gn, n)
    assert 0 < int((n > 0).sum()) < n.size


def test_mandelbrot_complex64(rng):
    w, h, steps = 64, 48, 12
    c = (np.linspace(-2.0, 0.5, w)[None, :] + 1j * np.linspace(-1.0, 1.0, h)[:, None]).astype(np.complex64)
    gc = gp.asarray(c)
    gz = gp.zeros(c.shape, np.complex64)
    for _ in range(steps):
        z_prev = gz.get()
        gmask = abs(gz) <= 2.0
        mask = gmask.get()
        gz[gmask] = gz[gmask] * gz[gmask] + gc[gmask]
        assert_mandelbrot_step(gz, z_prev, c, mask)


# --- take and put ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ITEMSIZE_DTYPES, ids=dtype_id)
def test_take(rng, dtype):
    x = random_array(rng, (4, 5, 6), dtype)
    g = gp.asarray(x)
    cases = [
        ([0, 7, -1, 119], None),
        (np.array([[3, 0], [1, 1]]), 0),
        ([4, -5, 2], 1),
        ([5, 0], -1),
        (2, 1),  # a scalar index drops the axis
        ([], 2),
        (np.array([1], np.uint8), 0),
    ]
    for indices, axis in cases:
        want = np.take(x, indices, axis=axis)
        assert_equal_to_numpy(gp.take(g, indices, axis=axis), want)
        if isinstance(indices, (list, np.ndarray)) and np.size(indices):
            assert_equal_to_numpy(g.take(gp.asarray(np.asarray(indices)), axis=axis), want)
    xv = x[::-1, 1:, ::2]
    assert_equal_to_numpy(gp.take(g[::-1, 1:, ::2], [2, 0], axis=2), np.take(xv, [2, 0], axis=2))
    assert_equal_to_numpy(gp.take(g[::-1, 1:, ::2], [5, 1]), np.take(xv, [5, 1]))


def test_take_modes_out_and_errors(rng):
    x = random_array(rng, (3, 5), np.float32)
    g = gp.asarray(x)
    idx = np.array([-7, 0, 4, 12])
    for mode in ["wrap", "clip"]:
        assert_equal_to_numpy(gp.take(g, idx, axis=1, mode=mode), np.take(x, idx, axis=1, mode=mode))
        assert_equal_to_numpy(gp.take(g, gp.asarray(idx), mode=mode), np.take(x, idx, mode=mode))
    out = gp.zeros((3, 2), np.float32)
    r = gp.take(g, [4, 1], axis=1, out=out)
    assert r is out
    assert_equal_to_numpy(out, np.take(x, [4, 1], axis=1))
    with pytest.raises(IndexError) as got:  # no match=: compared with NumPy's below
        gp.take(g, [5], axis=1)
    with pytest.raises(IndexError) as want:  # no match=: NumPy's message is the reference
        np.take(x, [5], axis=1)
    assert str(got.value) == str(want.value)
    with pytest.raises(IndexError, match="out of bounds"):
        gp.take(g, [15])
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for array of dimension 2"):
        np.take(x, [0], axis=2)
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for array of dimension 2"):
        gp.take(g, [0], axis=2)
    # NumPy 2.4 takes a list of floats (casting it unsafely) and refuses a float array
    # "according to the rule 'same_kind'"; gpupy refuses both with NumPy 1.x's 'safe' text.
    with pytest.raises(TypeError, match=r"Cannot cast array data from dtype\('float64'\) to dtype\('int64'\)"):
        gp.take(g, [0.5])
    with pytest.raises(ValueError, match="clipmode must be one of 'clip', 'raise', or 'wrap'"):
        gp.take(g, [0], mode="bogus")


@pytest.mark.parametrize("dtype", ITEMSIZE_DTYPES, ids=dtype_id)
def test_put(rng, dtype):
    x = random_array(rng, (4, 6), dtype)
    g = gp.asarray(x)
    ind = rng.permutation(24)[:7]
    v = random_array(rng, (7,), dtype)
    np.put(x, ind, v)
    gp.put(g, ind, v)
    assert_equal_to_numpy(g, x)
    ind = rng.permutation(24)[:5] - 24  # negative indices
    v = random_array(rng, (2,), dtype)  # repeated cyclically
    np.put(x, ind, v)
    g.put(gp.asarray(ind), gp.asarray(v))
    assert_equal_to_numpy(g, x)
    s = random_array(rng, (), dtype).item()
    np.put(x, [3, 9], s)
    gp.put(g, [3, 9], s)
    assert_equal_to_numpy(g, x)


def test_put_modes_views_and_errors(rng):
    x = random_array(rng, (5, 6), np.float64)
    g = gp.asarray(x)
    for mode in ["wrap", "clip"]:
        np.put(x, [-40, 33], [1.0, 2.0], mode=mode)
        gp.put(g, [-40, 33], [1.0, 2.0], mode=mode)
        assert_equal_to_numpy(g, x)
    # A non-contiguous target: put writes through its C-order flattening.
    xv, gv = x[::2, 1::2], g[::2, 1::2]
    np.put(xv, [0, 4, 8], [7.0, 8.0, 9.0])
    gp.put(gv, [0, 4, 8], [7.0, 8.0, 9.0])
    assert_equal_to_numpy(g, x)
    with pytest.raises(IndexError) as got:  # no match=: compared with NumPy's below
        gp.put(g, [30], 1.0)
    with pytest.raises(IndexError) as want:  # no match=: NumPy's message is the reference
        np.put(x, [30], 1.0)
    assert str(got.value) == str(want.value)
    assert_equal_to_numpy(g, x)


# --- where, nonzero and friends ------------------------------------------------------------


def test_where_dtypes_follow_numpy(rng):
    cond = rng.integers(0, 2, (4, 5)).astype(bool)
    gcond = gp.asarray(cond)
    f32, f64 = random_array(rng, (4, 5), np.float32), random_array(rng, (5,), np.float64)
    i32, u8 = random_array(rng, (4, 1), np.int32), random_array(rng, (4, 5), np.uint8)
    c64, b = random_array(rng, (), np.complex64), random_array(rng, (4, 5), np.bool_)
    dev = {id(a): gp.asarray(a) for a in [f32, f64, i32, u8, c64, b]}

    def d(a):
        return dev.get(id(a), a)

    pairs = [
        (f32, 0.5),
        (0.5, f32),
        (i32, f32),
        (u8, 3),
        (f32, f64),
        (b, b),
        (c64, 1.5),
        (i32, u8),
        (True, f32),
        (2, 3.5),
        (b, 7),
    ]
    for x, y in pairs:
        want = np.where(cond, x, y)
        assert_equal_to_numpy(gp.where(gcond, d(x), d(y)), want)
    # NumPy values mix with gpupy ones.
    assert_equal_to_numpy(gp.where(gcond, f32, d(f64)), np.where(cond, f32, f64))


def test_where_broadcasts_and_tests_any_condition_dtype(rng):
    x = random_array(rng, (1, 5), np.float64)
    y = random_array(rng, (4, 1), np.float64)
    for cond in [
        rng.integers(-2, 3, (4, 5)).astype(np.int32),
        rng.uniform(-1, 1, (4, 1)) > 0,
        random_array(rng, (5,), np.complex64),
        np.array(True),
    ]:
        assert_equal_to_numpy(gp.where(gp.asarray(cond), gp.asarray(x), gp.asarray(y)), np.where(cond, x, y))
    assert_equal_to_numpy(
        gp.where([True, False, True], 1.0, gp.asarray(np.arange(3.0))),
        np.where([True, False, True], 1.0, np.arange(3.0)),
    )
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        gp.where(gp.asarray(np.ones(3, bool)), gp.asarray(np.ones(4)), 0.0)
    with pytest.raises(ValueError, match="either both or neither of x and y should be given"):
        gp.where(gp.asarray(np.ones(3, bool)), 1.0)


def test_where_non_contiguous_operands(rng):
    x = random_array(rng, (6, 8), np.complex64)
    y = random_array(rng, (8, 6), np.complex64)
    cond = rng.integers(0, 2, (6, 8)).astype(bool)
    got = gp.where(gp.asarray(cond)[::-1], gp.asarray(x)[:, ::-1], gp.asarray(y).T)
    assert_equal_to_numpy(got, np.where(cond[::-1], x[:, ::-1], y.T))


@pytest.mark.parametrize("dtype", DTYPES + [np.float16, np.uint64], ids=dtype_id)
@pytest.mark.parametrize("shape", [(0,), (7,), (4, 0), (5, 6), (3, 4, 5), (2, 1, 3, 1, 2)], ids=str)
def test_nonzero(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    if x.size:
        x.flat[rng.integers(0, x.size, x.size // 2)] = 0  # zeros of every dtype
    g = gp.asarray(x)
    for got, want in [(gp.nonzero(g), np.nonzero(x)), (g.nonzero(), x.nonzero()), (gp.where(g), np.where(x))]:
        assert isinstance(got, tuple) and len(got) == len(want)
        for a, b in zip(got, want):
            assert_equal_to_numpy(a, b)
    assert_equal_to_numpy(gp.argwhere(g), np.argwhere(x))
    assert_equal_to_numpy(gp.flatnonzero(g), np.flatnonzero(x))


def test_nonzero_of_views_nan_and_large_arrays(rng):
    x = random_array(rng, (9, 8), np.float32)
    x[2, 3] = np.nan
    x[4, :] = -0.0
    g = gp.asarray(x)
    for view in VIEW_FUNCS_2D:
        for a, b in zip(gp.nonzero(view(g)), np.nonzero(view(x))):
            assert_equal_to_numpy(a, b)
        assert_equal_to_numpy(gp.flatnonzero(view(g)), np.flatnonzero(view(x)))
    big = rng.uniform(size=(1001, 1003)) < 0.3
    for a, b in zip(gp.nonzero(gp.asarray(big)), np.nonzero(big)):
        assert_equal_to_numpy(a, b)


def test_nonzero_of_0d_raises_and_argwhere_of_0d(rng):
    for v in [np.array(0.0), np.array(3)]:
        with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
            np.nonzero(v)
        with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
            gp.nonzero(gp.asarray(v))
        assert_equal_to_numpy(gp.argwhere(gp.asarray(v)), np.argwhere(v))
        assert_equal_to_numpy(gp.flatnonzero(gp.asarray(v)), np.flatnonzero(v))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_compress_and_extract(rng, dtype):
    x = random_array(rng, (4, 5), dtype)
    g = gp.asarray(x)
    for cond, axis in [
        ([True, False, True], 0),
        ([0, 1, 1, 0, 1], 1),
        ([1, 0, 0, 1], None),
        (np.zeros(4, bool), 0),
        ([False, True], -1),
    ]:
        want = np.compress(cond, x, axis=axis)
        assert_equal_to_numpy(gp.compress(cond, g, axis=axis), want)
        assert_equal_to_numpy(g.compress(gp.asarray(np.asarray(cond)), axis=axis), want)
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        gp.compress([1, 1, 1, 1, 1], g, axis=0)
    with pytest.raises(ValueError, match="condition must be a 1-d array"):
        gp.compress(np.ones((2, 2), bool), g)
    out = gp.empty((4, 2), dtype)
    assert gp.compress([0, 1, 0, 0, 1], g, axis=1, out=out) is out
    assert_equal_to_numpy(out, np.compress([0, 1, 0, 0, 1], x, axis=1))
    cond = random_array(rng, (4, 5), np.int32) % 3 == 0
    assert_equal_to_numpy(gp.extract(gp.asarray(cond), g), np.extract(cond, x))
    assert_equal_to_numpy(
        gp.extract(gp.asarray(cond.astype(np.float32)), g.T), np.extract(cond.astype(np.float32), x.T)
    )
