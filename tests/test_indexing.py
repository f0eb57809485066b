"""Basic indexing (ints, slices, ``...``, ``None``) and assignment, against NumPy.

Every key is applied to a NumPy array and to its device copy: the results must agree in
shape, strides and values, or both must raise the same exception type. Results are
views: writing through one changes the base array.
"""

import re

import numpy as np
import pytest

import gpupy as gp
from helpers import FLOAT_DTYPES, assert_equal_to_numpy, assert_same_attributes, dtype_id, examples, random_array

try:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
except ImportError:  # the explicit and rng-generated keys below still run
    st = None

pytestmark = pytest.mark.gpu

SHAPES = [(), (11,), (6, 7), (4, 5, 6), (3, 0, 4)]


def shape_id(shape):
    return "x".join(map(str, shape)) if shape else "0d"


def check_key(rng, x, key):
    """``g[key]`` agrees with ``x[key]``, and writing through the view changes ``g`` the
    way ``x[key] = new`` changes ``x``."""
    g = gp.asarray(x)
    try:
        want = x[key]
    except Exception as e:  # noqa: BLE001 - gpupy must raise the same type
        # no match=: generated keys; test_index_errors_match_numpy compares the messages
        with pytest.raises(type(e)):
            g[key]
        return
    v = g[key]
    assert isinstance(v, gp.ndarray)
    assert_same_attributes(v, np.asarray(want))
    assert_equal_to_numpy(v, want)
    # A view: writing through it changes the base.
    new = random_array(rng, v.shape, x.dtype)
    x = x.copy()
    x[key] = new
    v[...] = new
    assert_equal_to_numpy(g, x)


S = slice
EXPLICIT_KEYS = [
    0,
    -1,
    3,
    np.int64(2),
    (1, 2),
    (-1, -2, -3),
    (0, 0, 0, 0),  # too many for every shape here
    S(None),
    S(1, 3),
    S(None, None, 2),
    S(None, None, -1),
    S(-2, None, -2),
    S(5, 1, -1),
    S(10, -10, -3),
    S(3, 3),
    S(-100, 100),
    S(None, None, 7),
    S(np.int32(1), None, np.int64(-2)),
    ...,
    (..., 0),
    (0, ...),
    (..., None),
    (None, 1, ..., S(None, None, -2)),
    (1, None, S(None, None, 3), None),
    (S(1, None), ..., S(None, 2)),
    (S(None, None, -1), S(1, -1), -1),
    (),
    None,
    (None, None),
    (None, ..., None),
    (..., ...),  # IndexError
    5,  # out of range for some shapes
    -7,
    (0, 6),
    1.5,  # not an index
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
def test_explicit_keys(rng, shape, dtype):
    x = random_array(rng, shape, dtype)
    for key in EXPLICIT_KEYS:
        check_key(rng, x, key)


def random_basic_key(rng, ndim):
    """A random basic index: up to ndim (sometimes ndim + 1) ints and slices, with
    ``None`` and at most one ``...`` mixed in; no zero steps."""
    parts = []
    n = int(rng.integers(0, ndim + 2))
    for _ in range(n):
        r = rng.uniform()
        if r < 0.3:
            parts.append(int(rng.integers(-8, 8)))
        else:

            def bound():
                return None if rng.uniform() < 0.3 else int(rng.integers(-10, 11))

            step = None if rng.uniform() < 0.3 else int(rng.choice([-4, -3, -2, -1, 1, 2, 3, 4]))
            parts.append(slice(bound(), bound(), step))
    for _ in range(int(rng.integers(0, 3))):
        parts.insert(int(rng.integers(0, len(parts) + 1)), None)
    if rng.uniform() < 0.4:
        parts.insert(int(rng.integers(0, len(parts) + 1)), Ellipsis)
    if len(parts) == 1 and rng.uniform() < 0.5:
        return parts[0]
    return tuple(parts)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(9,), (5, 8), (3, 4, 7), (2, 3, 2, 5)], ids=shape_id)
def test_random_keys(rng, shape, dtype):
    x = random_array(rng, shape, dtype)
    for _ in range(40):
        check_key(rng, x, random_basic_key(rng, len(shape)))


if st is not None:

    @st.composite
    def shapes_and_keys(draw):
        shape = tuple(draw(st.lists(st.integers(0, 6), min_size=0, max_size=4)))
        items = []
        bound = st.one_of(st.none(), st.integers(-9, 9))
        step = st.one_of(st.none(), st.integers(-4, 4).filter(lambda s: s != 0))
        for _ in range(draw(st.integers(0, len(shape) + 1))):
            items.append(
                draw(
                    st.one_of(
                        st.integers(-8, 7),
                        st.builds(slice, bound, bound, step),
                    )
                )
            )
        for _ in range(draw(st.integers(0, 2))):
            items.insert(draw(st.integers(0, len(items))), None)
        if draw(st.booleans()):
            items.insert(draw(st.integers(0, len(items))), Ellipsis)
        key = tuple(items) if len(items) != 1 or draw(st.booleans()) else items[0]
        return shape, key

    @settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(case=shapes_and_keys(), dtype=st.sampled_from(FLOAT_DTYPES), seed=st.integers(0, 2**63 - 1))
    def test_hypothesis_keys(case, dtype, seed):
        shape, key = case
        rng = np.random.default_rng(seed)
        check_key(rng, random_array(rng, shape, dtype), key)

else:

    def test_hypothesis_keys():
        pytest.skip("hypothesis is not installed (pip install hypothesis); explicit and random keys still ran")


# --- errors --------------------------------------------------------------------------


def numpy_error(x, key):
    with pytest.raises(Exception) as info:  # no match=: NumPy's own error, the reference
        x[key]
    return info.value


@pytest.mark.parametrize(
    "key",
    [5, -6, (0, 5), (0, -5), (0, 0, 0), (1, ..., 2, 3), (..., ...)],
    ids=["row", "negrow", "col", "negcol", "too_many", "too_many_ellipsis", "two_ellipses"],
)
def test_index_errors_match_numpy(rng, key):
    x = random_array(rng, (5, 4), np.float32)
    g = gp.asarray(x)
    want = numpy_error(x, key)
    assert isinstance(want, IndexError)
    with pytest.raises(IndexError) as got:  # no match=: compared with NumPy's below
        g[key]
    assert str(got.value) == str(want)
    with pytest.raises(IndexError, match=re.escape(str(want))):  # NumPy's setitem says the same
        g[key] = 1.0
    assert_equal_to_numpy(g, x)  # a failed assignment writes nothing


def test_index_error_on_0d(rng):
    x = random_array(rng, (), np.float64)
    g = gp.asarray(x)
    with pytest.raises(IndexError, match="too many indices for array: array is 0-dimensional, but 1 were indexed"):
        g[0]
    with pytest.raises(IndexError, match="too many indices for array: array is 0-dimensional, but 1 were indexed"):
        g[:]


@pytest.mark.parametrize("key", [S(None, None, 0), (S(1, None), S(None, None, 0)), (..., S(2, 0, 0))])
def test_zero_step_raises_value_error(rng, key):
    x = random_array(rng, (5, 4), np.float64)
    g = gp.asarray(x)
    want = numpy_error(x, key)
    assert isinstance(want, ValueError)
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        g[key]


@pytest.mark.parametrize("key", [1.5, "a", (0, 1.0)], ids=["float", "str", "float_in_tuple"])
def test_non_index_keys_raise_index_error(rng, key):
    x = random_array(rng, (5, 4), np.float32)
    assert isinstance(numpy_error(x, key), IndexError)
    with pytest.raises(IndexError, match=r"only integers, slices \(`:`\), ellipsis \(`\.\.\.`\)"):
        gp.asarray(x)[key]


# --- assignment ------------------------------------------------------------------------

DEST_KEYS = [
    (S(1, None), S(None, None, 2)),
    (S(None, None, -1), S(1, -1, 3)),
    ...,
    2,
    (1, 3),
    (S(None), -1),
    (None, S(2, 5)),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("key", DEST_KEYS, ids=repr)
def test_setitem_scalar(rng, dtype, key):
    x = random_array(rng, (6, 7), dtype)
    g = gp.asarray(x)
    for value in [float(rng.uniform(-5, 5)), int(rng.integers(-50, 50)), bool(rng.integers(0, 2))]:
        x[key] = value
        g[key] = value
        assert_equal_to_numpy(g, x)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("source", ["gpupy", "numpy"])
@pytest.mark.parametrize("key", DEST_KEYS, ids=repr)
def test_setitem_array_with_broadcasting(rng, dtype, source, key):
    x = random_array(rng, (6, 7), dtype)
    g = gp.asarray(x)
    dst_shape = x[key].shape
    candidates = [dst_shape, dst_shape[1:], (1,) * len(dst_shape), ()]
    if len(dst_shape) == 2:
        candidates.append((dst_shape[0], 1))
    for value_shape in candidates:
        value = random_array(rng, value_shape, dtype)
        x[key] = value
        g[key] = gp.asarray(value) if source == "gpupy" else value
        assert_equal_to_numpy(g, x)


@pytest.mark.parametrize("src", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("dst", FLOAT_DTYPES, ids=dtype_id)
def test_setitem_converts_dtype_like_numpy(rng, src, dst):
    x = random_array(rng, (5, 6), dst)
    g = gp.asarray(x)
    value = random_array(rng, (3, 6), src)
    x[1:4] = value
    g[1:4] = gp.asarray(value)
    assert_equal_to_numpy(g, x)
    value = random_array(rng, (5, 2), src)
    x[:, ::-3] = value
    g[:, ::-3] = value  # a NumPy array of the other dtype
    assert_equal_to_numpy(g, x)


def test_setitem_from_a_non_contiguous_gpupy_view(rng):
    x = random_array(rng, (8, 9), np.float32)
    y = random_array(rng, (9, 8), np.float32)
    g, h = gp.asarray(x), gp.asarray(y)
    x[::2, 1:5] = y.T[::-2, 2:6]
    g[::2, 1:5] = h.T[::-2, 2:6]
    assert_equal_to_numpy(g, x)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_, np.complex64, np.float16], ids=dtype_id)
def test_setitem_on_other_dtypes(rng, dtype):
    x = random_array(rng, (7, 5), dtype)
    g = gp.asarray(x)
    value = random_array(rng, (4, 5), dtype)
    x[::-2] = value
    g[::-2] = value
    assert_equal_to_numpy(g, x)
    s = random_array(rng, (), dtype).item()
    x[2, 1:] = s
    g[2, 1:] = s
    assert_equal_to_numpy(g, x)
    row = random_array(rng, (5,), dtype)
    x[1:3] = row
    g[1:3] = gp.asarray(row)
    assert_equal_to_numpy(g, x)


def test_setitem_shape_mismatch_raises_value_error(rng):
    x = random_array(rng, (5, 4), np.float32)
    g = gp.asarray(x)
    bad = random_array(rng, (3,), np.float32)
    # NumPy: "could not broadcast input array from shape (3,) into shape (4,4)".
    with pytest.raises(ValueError, match="broadcast"):
        x[1:] = bad
    with pytest.raises(ValueError, match="broadcast"):
        g[1:] = bad
    with pytest.raises(ValueError, match="broadcast"):
        g[1:] = gp.asarray(bad)
    assert_equal_to_numpy(g, x)  # a failed assignment writes nothing


@pytest.mark.parametrize("n", [33, 100003])
def test_setitem_from_an_overlapping_view_of_itself(rng, n):
    # NumPy reads the whole source before writing (as if through a temporary copy).
    x = random_array(rng, (n,), np.float32)
    g = gp.asarray(x)
    x[1:] = x[:-1]
    g[1:] = g[:-1]
    assert_equal_to_numpy(g, x)
    x[:-3] = x[3:]
    g[:-3] = g[3:]
    assert_equal_to_numpy(g, x)
    x[::2] = x[::-2][: x[::2].size]
    g[::2] = g[::-2][: g[::2].size]
    assert_equal_to_numpy(g, x)


# --- views share memory ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_views_share_memory_with_the_base(rng, dtype):
    x = random_array(rng, (6, 8), dtype)
    g = gp.asarray(x)
    views = [
        (lambda a: a[::2, 1:]),
        (lambda a: a.T),
        (lambda a: a.T[::-1][2:5]),
        (lambda a: a[1]),
        (lambda a: a[None, ..., ::-3]),
        (lambda a: a[2:4][:, 3:][::-1]),
    ]
    for view in views:
        v = view(g)
        new = random_array(rng, v.shape, dtype)
        v[...] = new
        view(x)[...] = new
        assert_equal_to_numpy(g, x)
        # and the other way: writing the base shows through the view
        base_new = random_array(rng, x.shape, dtype)
        g[...] = base_new
        x[...] = base_new
        assert_equal_to_numpy(v, view(x))


def test_view_keeps_the_base_memory_alive(rng):
    x = random_array(rng, (50, 40), np.float64)
    g = gp.asarray(x)
    v = g[3:, ::-2]
    del g
    filler = [gp.asarray(random_array(rng, (50, 40), np.float64)) for _ in range(4)]
    assert_equal_to_numpy(v, x[3:, ::-2])
    del filler
