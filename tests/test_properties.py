"""Property-based tests (hypothesis): ufuncs on random shapes, dtypes, broadcasting and
views (negative steps, offsets, transposes) agree with NumPy."""

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import gpupy as gp  # noqa: E402
from helpers import assert_exact, examples  # noqa: E402
from test_ufuncs import compare, numpy_outcome  # noqa: E402

pytestmark = pytest.mark.gpu

DTYPES = [np.bool_, np.int8, np.int32, np.uint16, np.uint64, np.int64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "fmin", "less_equal", "not_equal", "logical_or", "bitwise_xor", "floor_divide", "hypot"]
UNARY = ["negative", "absolute", "sqrt", "exp", "sin", "isfinite", "sign", "floor", "logical_not", "square"]


@st.composite
def views(draw, shape):
    """A random basic-indexing key that keeps ndim: slices with any step per axis."""
    key = []
    for n in shape:
        step = draw(st.sampled_from([1, 1, 2, -1, -2, 3]))
        start = draw(st.integers(0, max(n - 1, 0)))
        key.append(slice(start, None, step) if draw(st.booleans()) else slice(None, None, step))
    return tuple(key)


def values(dtype, shape):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        finite = st.floats(-100, 100, width=dt.itemsize * 8)
        elems = finite | st.sampled_from([np.nan, np.inf, -np.inf, -0.0])
    elif dt.kind == "c":
        elems = st.complex_numbers(max_magnitude=100, width=dt.itemsize * 8)
    else:
        elems = None
    return hnp.arrays(dt, shape, elements=elems)


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data(), name=st.sampled_from(BINARY), dtype=st.sampled_from(DTYPES), shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=6))
def test_binary_ufuncs(data, name, dtype, shapes):
    s1, s2 = shapes.input_shapes
    x = data.draw(values(dtype, s1))
    y = data.draw(values(dtype, s2))
    gx, gy = gp.asarray(x), gp.asarray(y)
    if x.ndim and data.draw(st.booleans()):
        key = data.draw(views(x.shape))
        gx, x = gx[key], x[key]
    if y.ndim >= 2 and data.draw(st.booleans()):
        # The same values through a transposed (F-ordered) device array.
        gy = gp.asarray(np.ascontiguousarray(y.T)).T
    hypothesis.assume(_broadcastable(x.shape, y.shape))
    want, exc = numpy_outcome(lambda: getattr(np, name)(x, y))
    if exc is not None:
        with pytest.raises(exc):  # no match=: generated inputs; numpy_outcome keeps only the type
            getattr(gp, name)(gx, gy)
        return
    compare(getattr(gp, name)(gx, gy), want, name, inputs=(x, y))


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data(), name=st.sampled_from(UNARY), dtype=st.sampled_from(DTYPES), shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7))
def test_unary_ufuncs(data, name, dtype, shape):
    x = data.draw(values(dtype, shape))
    g = gp.asarray(x)
    if x.ndim and data.draw(st.booleans()):
        key = data.draw(views(x.shape))
        g, x = g[key], x[key]
    if x.ndim >= 2 and data.draw(st.booleans()):
        g, x = g.T, x.T
    want, exc = numpy_outcome(lambda: getattr(np, name)(x))
    if exc is not None:
        with pytest.raises(exc):  # no match=: generated inputs; numpy_outcome keeps only the type
            getattr(gp, name)(g)
        return
    compare(getattr(gp, name)(g), want, name, inputs=(x,))


@settings(max_examples=examples(40), deadline=None)
@given(data=st.data(), src=st.sampled_from(DTYPES), dst=st.sampled_from(DTYPES), shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=9))
def test_astype_between_all_dtypes(data, src, dst, shape):
    x = data.draw(values(src, shape))
    if np.dtype(src).kind in "fc" and np.dtype(dst).kind in "iub":
        # Out-of-range float to integer casts are undefined in C (NumPy) and saturate here.
        x = np.nan_to_num(x.real if np.dtype(src).kind == "c" else x, nan=0.0, posinf=0.0, neginf=0.0).astype(src)
        x = np.clip(x, -100, 100).astype(src) if np.dtype(src).kind != "c" else x.astype(src)
        if np.dtype(dst).kind == "u":
            x = np.abs(x).astype(src)
    g = gp.asarray(x)
    if x.ndim and data.draw(st.booleans()):
        key = data.draw(views(x.shape))
        g, x = g[key], x[key]
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = x.astype(dst)
    # A cast is exact or one correct rounding in both: bit-identical, -0.0 and NaN kept.
    assert_exact(g.astype(dst).get(), want, err_msg=f"astype {np.dtype(src)} -> {np.dtype(dst)}")


REDUCTIONS = ["sum", "prod", "mean", "var", "std", "min", "max", "argmin", "argmax", "any", "all",
              "count_nonzero", "nansum", "nanmean", "nanvar", "nanmin", "nanmax", "nanargmax", "ptp"]


@st.composite
def reduction_axis(draw, ndim, single):
    if ndim == 0 or draw(st.booleans()):
        return None
    if single or draw(st.booleans()):
        return draw(st.integers(-ndim, ndim - 1))
    return tuple(draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim)))


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), name=st.sampled_from(REDUCTIONS), dtype=st.sampled_from(DTYPES),
       shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7), keepdims=st.booleans())
def test_reductions(data, name, dtype, shape, keepdims):
    from test_reduction import assert_matches_numpy

    x = data.draw(values(dtype, shape))
    if np.dtype(dtype).kind in "fc":
        # Moderate magnitudes: float16 sums of +-100s overflow in NumPy's float16 too,
        # but the tolerances are relative to sum(|x|), which must stay finite.
        x = np.where(np.isinf(x), np.nan, x).astype(dtype)
    if name in ("prod", "nanprod") and np.dtype(dtype) == np.float16:
        # gpupy multiplies float16 in float32 (rounding once); NumPy rounds every partial
        # product to float16, which overflows to inf past 65504 and makes inf * 0 = NaN
        # where the exact product is 0. Only products whose partials stay in range compare.
        # Every partial product is at most the product of the factors >= 1 in magnitude.
        m = np.abs(np.nan_to_num(x.astype(np.float64)))
        assume(np.prod(np.maximum(m, 1.0), initial=1.0) <= 65504)
    if name in ("prod", "nanprod") and np.dtype(dtype).kind == "c":
        # Once a partial product overflows, which parts come out NaN depends on the
        # association order: left to right (NumPy), (inf+0j)(48+0j) is inf+nanj; in a
        # tree (gpupy) the overflow may happen only in the last product, inf+0j. Only
        # products whose partials stay finite compare (|a b| bounds every part).
        m = np.abs(np.nan_to_num(x.astype(np.complex128)))
        assume(np.prod(np.maximum(m, 1.0), initial=1.0) <= np.finfo(dtype).max)
    g = gp.asarray(x)
    if x.ndim and data.draw(st.booleans()):
        key = data.draw(views(x.shape))
        g, x = g[key], x[key]
    axis = data.draw(reduction_axis(x.ndim, name.startswith(("arg", "nanarg"))))
    kw = {"axis": axis}
    if name not in ("count_nonzero",):
        kw["keepdims"] = keepdims
    assert_matches_numpy(name, x, g, **kw)
