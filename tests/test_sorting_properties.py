"""Property tests (hypothesis) of sort/argsort, searchsorted, unique and quantiles, with
the comparisons of ``test_sorting.py``. A separate module, so that a missing hypothesis
skips only these tests."""

import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import gpupy as gp  # noqa: E402
from helpers import ALL_DTYPES, examples  # noqa: E402
from test_sorting import _check_unique, assert_quantile_close, assert_same_bits  # noqa: E402

pytestmark = pytest.mark.gpu


def values(dtype, shape):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        elems = st.floats(-100, 100, width=dt.itemsize * 8) | st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0])
    elif dt.kind == "c":
        part = st.sampled_from([np.nan, -1.0, 0.0, -0.0, 2.5, np.inf])
        elems = st.builds(complex, part, part)
    elif dt.kind in "iu":
        elems = st.integers(0 if dt.kind == "u" else -4, 4) | st.integers(np.iinfo(dt).min, np.iinfo(dt).max)
    else:
        elems = None
    return hnp.arrays(dt, shape, elements=elems)


@settings(max_examples=examples(80), deadline=None)
@given(data=st.data(), dtype=st.sampled_from(ALL_DTYPES), shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=9))
def test_property_sort_argsort(data, dtype, shape):
    x = data.draw(values(dtype, shape))
    g = gp.asarray(x)
    axes = [None] + list(range(-x.ndim, x.ndim))
    axis = data.draw(st.sampled_from(axes))
    if x.ndim and data.draw(st.booleans()):
        key = tuple(slice(None, None, data.draw(st.sampled_from([1, -1, 2]))) for _ in range(x.ndim))
        x, g = x[key], g[key]
    assert_same_bits(gp.sort(g, axis=axis), np.sort(x, axis=axis, kind="stable"))
    assert_same_bits(gp.argsort(g, axis=axis), np.argsort(x, axis=axis, kind="stable"))


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data(), dtype=st.sampled_from(ALL_DTYPES), n=st.integers(0, 40), m=st.integers(0, 12))
def test_property_searchsorted(data, dtype, n, m):
    a = np.sort(data.draw(values(dtype, (n,))), kind="stable")
    v = data.draw(values(dtype, (m,)))
    side = data.draw(st.sampled_from(["left", "right"]))
    assert_same_bits(gp.searchsorted(gp.asarray(a), gp.asarray(v), side=side), np.searchsorted(a, v, side=side))


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data(), dtype=st.sampled_from(ALL_DTYPES), shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=8))
def test_property_unique(data, dtype, shape):
    x = data.draw(values(dtype, shape))
    flags = dict(
        return_index=data.draw(st.booleans()),
        return_inverse=data.draw(st.booleans()),
        return_counts=data.draw(st.booleans()),
        equal_nan=data.draw(st.booleans()),
    )
    _check_unique(x, **flags)


@settings(max_examples=examples(60), deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from([np.int16, np.uint8, np.int64, np.float32, np.float64]),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=7),
)
def test_property_quantiles(data, dtype, shape):
    x = data.draw(values(dtype, shape))
    g = gp.asarray(x)
    axis = data.draw(st.sampled_from([None] + list(range(x.ndim))))
    keepdims = data.draw(st.booleans())
    q = data.draw(st.floats(0, 1) | st.lists(st.floats(0, 1), min_size=1, max_size=3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want_q = np.quantile(x, q, axis=axis, keepdims=keepdims)
        want_m = np.median(x, axis=axis, keepdims=keepdims)
    assert_quantile_close(gp.quantile(g, q, axis=axis, keepdims=keepdims), want_q, x)
    assert_quantile_close(gp.median(g, axis=axis, keepdims=keepdims), want_m, x)
