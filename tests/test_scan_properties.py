"""Property tests (hypothesis) of scans, bincount and histogram against NumPy, with the
comparisons of ``test_scan.py``. A separate module, so that a missing hypothesis skips
only these tests, not the whole of test_scan.py."""

import re
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import gpupy as gp  # noqa: E402
from helpers import examples  # noqa: E402
from test_scan import SCANS, assert_bincount_weights, assert_histogram, assert_scan_close  # noqa: E402

pytestmark = pytest.mark.gpu

PROP_DTYPES = [np.bool_, np.int8, np.int32, np.uint16, np.uint64, np.int64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


def prop_values(dtype, shape, prod):
    """Random values; floats include inf, NaN and -0.0 for sums. Products use magnitudes
    near 1 without specials: float16 (float32) overflow or underflow inside NumPy's
    per-step rounding but not inside gpupy's wider accumulator, after which inf * 0 and
    0 * inf differ; that difference is the point of the wide accumulator, not a bug."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        width = dt.itemsize * 8
        if prod:
            elems = st.floats(0.96875, 1.03125, width=width) | st.floats(-1.03125, -0.96875, width=width)
        else:
            elems = st.floats(-100, 100, width=width) | st.sampled_from([np.nan, np.inf, -np.inf, -0.0])
    elif dt.kind == "c":
        elems = st.complex_numbers(min_magnitude=0.96875 if prod else 0, max_magnitude=1.03125 if prod else 100, width=dt.itemsize * 8)
    else:
        elems = None
    return hnp.arrays(dt, shape, elements=elems)


@settings(max_examples=examples(80), deadline=None)
@given(data=st.data(), name=st.sampled_from(SCANS), dtype=st.sampled_from(PROP_DTYPES), shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6))
def test_property_scans(data, name, dtype, shape):
    x = data.draw(prop_values(dtype, shape, "prod" in name))
    axis = data.draw(st.sampled_from([None] + list(range(-x.ndim, x.ndim))) if x.ndim else st.sampled_from([None, 0]))
    g = gp.asarray(x)
    if x.ndim and data.draw(st.booleans()):
        step = data.draw(st.sampled_from([-1, 2, -2]))
        g, x = g[::step], x[::step]
    assert_scan_close(getattr(gp, name)(g, axis=axis), name, x, axis)


@settings(max_examples=examples(60), deadline=None)
@given(x=hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=1, min_side=0, max_side=300), elements=st.integers(0, 5000)), minlength=st.integers(0, 20), weighted=st.booleans())
def test_property_bincount(x, minlength, weighted):
    w = np.linspace(-1, 1, x.size) if weighted else None
    got = gp.bincount(gp.asarray(x), weights=None if w is None else gp.asarray(w), minlength=minlength).get()
    want = np.bincount(x, weights=w, minlength=minlength)
    if w is None:
        np.testing.assert_array_equal(got, want, strict=True)
    else:
        assert_bincount_weights(got, want, x, w, minlength)


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data(), dtype=st.sampled_from([np.float16, np.float32, np.float64, np.int16, np.int64]), bins=st.integers(1, 40))
def test_property_histogram(data, dtype, bins):
    x = data.draw(hnp.arrays(np.dtype(dtype), st.integers(1, 200), elements=(st.floats(-1e3, 1e3, width=np.dtype(dtype).itemsize * 8) if np.dtype(dtype).kind == "f" else st.integers(-1000, 1000))))
    use_range = data.draw(st.booleans())
    kwargs = {"bins": bins}
    if use_range:
        lo = data.draw(st.floats(-1e3, 1e3))
        kwargs["range"] = (lo, lo + data.draw(st.floats(0, 1e3)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = np.histogram(x, **kwargs)
        except ValueError as e:
            with pytest.raises(ValueError, match=re.escape(str(e))):
                gp.histogram(gp.asarray(x), **kwargs)
            return
    assert_histogram(gp.histogram(gp.asarray(x), **kwargs), want)
