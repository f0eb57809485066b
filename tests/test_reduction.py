"""Reductions and statistics against NumPy: every function, every dtype, axes (None, int,
negative, tuples), keepdims, views, NaNs, empty slices, dtype=/out=/initial=.

Exact results (integers, bool, min/max, arg*, any/all, counts) must equal NumPy's bit for
bit with the same dtype. Float results are compared with a float64 (complex128) reference
computed by NumPy from the same values, within ``TOL[result dtype] * scale``, where scale
is the same reduction of ``|x|`` (for var/std, the mean of ``|x|^2``): the error a
rounding-correct summation may make. gpupy accumulates float32 in float64, so its float32
results are closer to the reference than NumPy's own.
"""

import warnings

import numpy as np
import pytest

import gpupy as gp
from helpers import ALL_DTYPES, VIEW_FUNCS_2D, VIEW_IDS_2D, dtype_id, random_array

pytestmark = pytest.mark.gpu

TOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-13}

# (shape, axis): every kernel path. Short rows go to the serial kernel, long ones to
# blocks or warps; few long rows split their slices; axis=0 of C arrays reads columns.
CASES = [
    ((), None),
    ((1,), None),
    ((7,), 0),
    ((7,), None),
    ((1025,), -1),
    ((100003,), None),
    ((17, 33), 0),
    ((17, 33), 1),
    ((17, 33), -2),
    ((17, 33), None),
    ((17, 33), (0, 1)),
    ((3, 0, 2), 1),
    ((3, 0, 2), 0),
    ((5, 6, 7), (0, 2)),
    ((5, 6, 7), 1),
    ((4, 5, 6), (1, 2)),
    ((4, 5, 6), (2, 0)),
    ((1000, 3), 1),
    ((3, 2000), 0),
    ((257, 129), 1),
    ((64, 4099), 1),
    ((4099, 64), 0),
    ((2, 3, 4, 5), (1, 3)),
    ((6, 1, 5), 1),
    ((4, 5), ()),
]
BIG_CASES = [((2**20 + 3,), None), ((1536, 1031), 0), ((1031, 1536), 1)]

ROUNDED = ["sum", "prod", "mean", "var", "std", "nansum", "nanprod", "nanmean", "nanvar", "nanstd"]
EXACT = ["min", "max", "ptp", "any", "all", "count_nonzero", "nanmin", "nanmax"]
ARG = ["argmin", "argmax", "nanargmin", "nanargmax"]
FUNCS = ROUNDED + EXACT + ARG


def case_id(case):
    shape, axis = case
    return f"{'x'.join(map(str, shape)) or '0d'}-axis{axis}"


def data(rng, shape, dtype, func, nan=False):
    """Random input for ``func``: products get values near 1 (no underflow); NaN-aware
    functions (and ``nan=True``) get some NaNs in float and complex input."""
    dt = np.dtype(dtype)
    x = random_array(rng, shape, dt)
    if "prod" in func and dt.kind in "fc":
        mag = rng.uniform(0.9, 1.1, size=shape) * rng.choice([-1, 1], size=shape)
        turn = np.exp(1j * rng.uniform(-0.5, 0.5, size=shape)) if dt.kind == "c" else 1
        x = np.asarray(mag * turn).astype(dt)
    if (nan or func.startswith("nan")) and dt.kind in "fc" and x.size:
        mask = rng.random(shape) < 0.2
        x = np.where(mask, np.array(np.nan, dt), x).astype(dt)
    return x


def numpy_call(func, x, **kw):
    """NumPy's result or exception for ``func(x, **kw)``, warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return getattr(np, func)(x, **kw), None
        except Exception as e:  # noqa: BLE001 - compared with gpupy's exception below
            return None, e


def expected_error(exc):
    """The class gpupy must raise for NumPy's exception ``exc``: NumPy's private
    subclasses (``UFuncTypeError``) count as their public base."""
    return next(c for c in type(exc).__mro__ if c.__module__ in ("builtins", "numpy.exceptions"))


def gpupy_call(func, g, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(gp, func)(g, **kw)


def scale_of(func, x, **kw):
    """What bounds the rounding error of ``func(x)``: the same reduction of |x|."""
    wide = np.abs(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))
    base = func.replace("nan", "") if func.startswith("nan") else func
    kw = {k: v for k, v in kw.items() if k in ("axis", "keepdims")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if base in ("var", "std"):
            m2 = np.nanmean(wide**2, **kw) if func.startswith("nan") else np.mean(wide**2, **kw)
            return np.sqrt(m2) if base == "std" else m2
        f = {"sum": np.nansum, "prod": np.nanprod, "mean": np.nanmean}[base]
        return np.abs(f(wide, **kw))


def reference(func, x, **kw):
    """float64/complex128 reference of a rounded reduction of float or complex x."""
    wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    return numpy_call(func, wide, **kw)[0]


def assert_matches_numpy(func, x, g, **kw):
    want, exc = numpy_call(func, x, **kw)
    if exc is not None:
        with pytest.raises(expected_error(exc)):
            gpupy_call(func, g, **kw)
        return
    got = gpupy_call(func, g, **kw)
    assert isinstance(got, gp.ndarray), type(got)
    want = np.asarray(want)
    h = got.get()
    assert h.dtype == want.dtype, f"{func}{kw}: dtype {h.dtype}, NumPy {want.dtype}"
    assert h.shape == want.shape, f"{func}{kw}: shape {h.shape}, NumPy {want.shape}"
    rounded = func in ROUNDED and (x.dtype.kind in "fc" or func in ("mean", "var", "std", "nanmean", "nanvar", "nanstd"))
    if not rounded:
        np.testing.assert_array_equal(h, want, err_msg=f"{func}{kw}", strict=True)
        return
    ref = np.asarray(reference(func, x, **kw))
    tol = TOL[np.dtype(h.real.dtype if h.dtype.kind == "c" else h.dtype)]
    scale = np.asarray(scale_of(func, x, **kw))
    err = np.abs(h.astype(ref.dtype) - ref)
    ok = (err <= tol * scale + np.finfo(h.real.dtype).tiny) | (np.isnan(h) & np.isnan(ref)) | (h == ref)
    assert ok.all(), (
        f"{func}{kw}: worst |got - ref| {np.nanmax(np.where(ok, 0, err))} over tolerance; "
        f"got {h.ravel()[:5]}, ref {ref.ravel()[:5]}"
    )


def kwargs_for(func, axis):
    if func in ARG and isinstance(axis, tuple):
        return None  # argmin/argmax take one axis
    return {"axis": axis}


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("func", FUNCS)
def test_reductions_match_numpy(rng, func, dtype):
    for shape, axis in CASES:
        kw = kwargs_for(func, axis)
        if kw is None:
            continue
        x = data(rng, shape, dtype, func)
        assert_matches_numpy(func, x, gp.asarray(x), **kw)


@pytest.mark.parametrize("case", BIG_CASES, ids=case_id)
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint32, np.int64, np.float16, np.float32, np.float64, np.complex64], ids=dtype_id)
@pytest.mark.parametrize("func", ["sum", "mean", "std", "max", "argmin", "any", "nanmax", "nanargmax", "count_nonzero"])
def test_large_reductions_match_numpy(rng, func, dtype, case):
    shape, axis = case
    x = data(rng, shape, dtype, func)
    assert_matches_numpy(func, x, gp.asarray(x), axis=axis)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64, np.complex128], ids=dtype_id)
@pytest.mark.parametrize("func", ["sum", "mean", "var", "min", "max", "argmin", "argmax", "prod"])
def test_nan_propagates(rng, func, dtype):
    for shape, axis in [((1001,), None), ((40, 33), 0), ((33, 40), 1), ((9,), 0)]:
        x = data(rng, shape, dtype, func, nan=True)
        assert_matches_numpy(func, x, gp.asarray(x), axis=axis)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64], ids=dtype_id)
@pytest.mark.parametrize("func", ["nanmin", "nanmax", "nanmean", "nansum", "nanvar", "nanstd", "nanprod"])
def test_all_nan_slices(rng, func, dtype):
    x = data(rng, (6, 50), dtype, func)
    x[2] = np.nan
    x[:, 7] = np.nan
    g = gp.asarray(x)
    for axis in (0, 1, None):
        assert_matches_numpy(func, x, g, axis=axis)


@pytest.mark.parametrize("func", ["nanargmin", "nanargmax"])
def test_nanarg_of_all_nan_slice_raises(rng, func):
    x = random_array(rng, (4, 9), np.float64)
    x[1] = np.nan
    g = gp.asarray(x)
    with pytest.raises(ValueError, match="All-NaN slice"):
        getattr(gp, func)(g, axis=1)
    np.testing.assert_array_equal(getattr(gp, func)(g, axis=0).get(), getattr(np, func)(x, axis=0))


@pytest.mark.parametrize("func", FUNCS)
def test_keepdims_and_methods(rng, func):
    x = data(rng, (5, 6, 7), np.float32, func)
    g = gp.asarray(x)
    for axis in (None, 0, 2, -1, (0, 2)):
        kw = kwargs_for(func, axis)
        if kw is None:
            continue
        assert_matches_numpy(func, x, g, keepdims=True, **kw)
        assert_matches_numpy(func, x, g, keepdims=False, **kw)
    if func in ("sum", "prod", "mean", "var", "std", "min", "max", "argmin", "argmax", "any", "all"):
        for axis in (None, 1):
            want = np.asarray(getattr(x, func)(axis=axis))
            got = getattr(g, func)(axis=axis)
            assert got.dtype == want.dtype and got.shape == want.shape
            if func in EXACT + ARG:
                np.testing.assert_array_equal(got.get(), want, strict=True)
            else:
                np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("func", ["sum", "var", "max", "argmax", "all", "nanmean", "count_nonzero"])
def test_reductions_of_views(rng, func, view):
    for dtype in (np.float32, np.int16, np.complex128):
        base = data(rng, (257, 129), dtype, func)
        x, g = view(base), view(gp.asarray(base))
        for axis in (None, 0, 1):
            assert_matches_numpy(func, x, g, axis=axis)


@pytest.mark.parametrize("func", ["sum", "mean", "max", "argmax", "var"])
def test_reductions_of_views_3d(rng, func):
    base = random_array(rng, (6, 40, 9), np.float64)
    g = gp.asarray(base)
    for key in [(slice(None), slice(None, None, -3), slice(1, None)), (slice(None, None, 2),)]:
        x, v = base[key], g[key]
        for t in [(0, 1, 2), (2, 0, 1), (1, 2, 0)]:
            xt, vt = x.transpose(t), v.transpose(t)
            for axis in (None, 0, 1, 2, (0, 2), (1, 2)):
                kw = kwargs_for(func, axis)
                if kw is not None:
                    assert_matches_numpy(func, xt, vt, **kw)


@pytest.mark.parametrize("func", ["sum", "prod", "mean", "var", "std", "nansum", "nanmean"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.complex64, np.int64, np.uint8, np.bool_], ids=dtype_id)
def test_dtype_argument(rng, func, dtype):
    # Products of small integers: no overflow, whose result depends on the accumulator.
    x = data(rng, (33, 17), np.float32, func) if func != "prod" else rng.integers(-3, 4, (33, 17)).astype(np.int8)
    g = gp.asarray(x)
    for axis in (None, 0):
        want, exc = numpy_call(func, x, axis=axis, dtype=dtype)
        if exc is not None:
            with pytest.raises(expected_error(exc)):
                gpupy_call(func, g, axis=axis, dtype=dtype)
            continue
        got = gpupy_call(func, g, axis=axis, dtype=dtype)
        assert got.dtype == np.asarray(want).dtype
        if np.dtype(dtype).kind in "biu":
            if func in ("sum", "prod", "nansum"):
                np.testing.assert_array_equal(got.get(), want, strict=True)
            else:
                # mean/var through an integer dtype truncate NumPy's float result.
                np.testing.assert_allclose(got.get(), want, atol=1)
        else:
            # NumPy rounds float32/complex64 partial sums as it goes (a few ulps off for
            # sums that cancel); gpupy accumulates in float64 and rounds once. Both are
            # measured against the float64 computation.
            wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
            ref, _ = numpy_call(func, x.astype(np.float64), axis=axis, dtype=wide)
            np.testing.assert_allclose(got.get(), ref, rtol=2e-6 if np.dtype(dtype).itemsize <= 8 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("func", ["sum", "max", "mean", "argmin", "any", "std", "nanmin", "count_nonzero"])
def test_out_argument(rng, func):
    x = data(rng, (9, 11), np.float64, func)
    g = gp.asarray(x)
    want = getattr(np, func)(x, axis=1)
    if func == "count_nonzero":
        return  # NumPy's count_nonzero has no out=
    out = gp.asarray(random_array(rng, want.shape, want.dtype))
    r = getattr(gp, func)(g, axis=1, out=out)
    assert r is out
    np.testing.assert_allclose(out.get(), want, rtol=1e-12)
    # A full reduction into a 0-d array; another dtype casts like NumPy.
    out0 = gp.empty((), dtype=np.float32)
    getattr(gp, func)(g, out=out0)
    np.testing.assert_allclose(float(out0), np.float32(getattr(np, func)(x)), rtol=1e-6)
    with pytest.raises(ValueError):
        getattr(gp, func)(g, axis=0, out=gp.empty((3,), dtype=want.dtype))


@pytest.mark.parametrize("func", ["sum", "prod", "min", "max", "nansum", "nanmax"])
def test_initial(rng, func):
    x = data(rng, (4, 7), np.float64, func)
    g = gp.asarray(x)
    for axis in (None, 0, 1):
        got = getattr(gp, func)(g, axis=axis, initial=0.25)
        want = getattr(np, func)(x, axis=axis, initial=0.25)
        np.testing.assert_allclose(got.get(), want, rtol=1e-13)
    if func in ("min", "max"):
        empty = np.empty((0, 3))
        got = getattr(gp, func)(gp.asarray(empty), axis=0, initial=5.0)
        np.testing.assert_array_equal(got.get(), getattr(np, func)(empty, axis=0, initial=5.0), strict=True)


@pytest.mark.parametrize("func", ["min", "max", "nanmin", "nanmax", "argmin", "argmax", "ptp"])
def test_empty_reductions_without_identity_raise(func):
    for shape, axis in [((0,), None), ((0, 3), 0), ((4, 0), 1), ((0, 0), 0)]:
        x = np.empty(shape)
        _, exc = numpy_call(func, x, axis=axis)
        assert exc is not None
        with pytest.raises(expected_error(exc)) as info:
            getattr(gp, func)(gp.asarray(x), axis=axis)
        if isinstance(exc, ValueError) and "zero-size" in str(exc):
            assert str(info.value) == str(exc)
    # ... while reducing the non-empty axis of an empty array is fine.
    x = np.empty((0, 3))
    assert getattr(gp, func)(gp.asarray(x), axis=1).shape == (0,)


@pytest.mark.parametrize("func", ["sum", "prod", "mean", "var", "any", "all", "count_nonzero", "nansum"])
def test_empty_reductions_with_identity(func):
    for shape, axis in [((0,), None), ((0, 3), 0), ((4, 0), 1), ((2, 0, 3), (0, 1)), ((0, 2), 1)]:
        for dtype in (np.float32, np.int32, np.bool_, np.complex64):
            assert_matches_numpy(func, np.empty(shape, dtype), gp.empty(shape, dtype=dtype), axis=axis)


def test_mean_of_empty_slice_warns():
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        r = gp.mean(gp.empty((0,), dtype=np.float32))
    assert np.isnan(float(r))


def test_var_ddof_and_correction(rng):
    x = random_array(rng, (13, 8), np.float64)
    g = gp.asarray(x)
    for ddof in (0, 1, 2.5, 8, 13):
        for axis in (None, 0, 1):
            for func in ("var", "std", "nanvar", "nanstd"):
                assert_matches_numpy(func, x, g, axis=axis, ddof=ddof)
    np.testing.assert_allclose(gp.var(g, correction=1).get(), np.var(x, ddof=1), rtol=1e-13)
    with pytest.raises(ValueError):
        gp.var(g, ddof=1, correction=1)


def test_axis_errors(rng):
    g = gp.asarray(random_array(rng, (3, 4), np.float32))
    with pytest.raises(np.exceptions.AxisError):
        gp.sum(g, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        gp.max(g, axis=(0, -3))
    with pytest.raises(ValueError, match="repeated axis"):
        gp.sum(g, axis=(1, -1))
    with pytest.raises(TypeError):
        gp.argmax(g, axis=(0, 1))
    with pytest.raises(NotImplementedError):
        gp.sum(g, where=gp.asarray(np.ones((3, 4), bool)))
    assert float(gp.sum(g)) == pytest.approx(float(np.sum(g.get(), dtype=np.float64)), rel=1e-6)  # still usable


def test_full_reductions_are_0d_arrays(rng):
    x = random_array(rng, (1000,), np.float64)
    g = gp.asarray(x)
    for func in ("sum", "mean", "max", "argmax", "any", "std"):
        r = getattr(gp, func)(g)
        assert isinstance(r, gp.ndarray) and r.shape == ()
    assert float(gp.sum(g)) == pytest.approx(float(np.sum(x)), rel=1e-13)
    assert int(gp.argmax(g)) == int(np.argmax(x))
    assert bool(gp.any(g > 0.5)) == bool(np.any(x > 0.5))


def test_float32_sum_of_64Mi_values_is_accurate(rng):
    # The target: within 1e-6 relative of the float64 sum of the same values.
    x = rng.random(64 * 2**20, dtype=np.float32)
    ref = np.sum(x, dtype=np.float64)
    got = float(gp.asarray(x).sum())
    assert abs(got - ref) <= 1e-6 * ref, (got, ref)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32], ids=dtype_id)
def test_average(rng, dtype):
    x = random_array(rng, (7, 9), dtype)
    w1 = rng.uniform(0.1, 2.0, 9)
    w2 = rng.uniform(0.1, 2.0, (7, 9))
    g = gp.asarray(x)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    # Averages of values in [-1, 1) can cancel to near zero: an absolute floor of the
    # same size as the rounding of the terms.
    atol = 0 if dtype == np.int32 else tol
    for axis in (None, 0, 1):
        np.testing.assert_allclose(gp.average(g, axis=axis).get(), np.average(x, axis=axis), rtol=tol, atol=atol)
        np.testing.assert_allclose(gp.average(g, axis=axis, weights=gp.asarray(w2)).get(), np.average(x, axis=axis, weights=w2), rtol=tol, atol=atol)
    got = gp.average(g, axis=1, weights=gp.asarray(w1), keepdims=True)
    np.testing.assert_allclose(got.get(), np.average(x, axis=1, weights=w1, keepdims=True), rtol=tol, atol=atol)
    avg, scl = gp.average(g, axis=0, weights=gp.asarray(w2), returned=True)
    wavg, wscl = np.average(x, axis=0, weights=w2, returned=True)
    np.testing.assert_allclose(avg.get(), wavg, rtol=tol)
    np.testing.assert_allclose(scl.get(), wscl, rtol=1e-12)
    with pytest.raises(ZeroDivisionError):
        gp.average(g, axis=1, weights=gp.zeros(9))
    with pytest.raises(TypeError):
        gp.average(g, weights=gp.asarray(w1))
    with pytest.raises(ValueError):
        gp.average(g, axis=0, weights=gp.asarray(w1))


def test_ptp_and_count_nonzero(rng):
    x = random_array(rng, (50, 3), np.int16)
    x[::3] = 0
    g = gp.asarray(x)
    for axis in (None, 0, 1):
        np.testing.assert_array_equal(gp.ptp(g, axis=axis).get(), np.ptp(x, axis=axis), strict=True)
        np.testing.assert_array_equal(gp.count_nonzero(g, axis=axis).get(), np.asarray(np.count_nonzero(x, axis=axis)).astype(np.int64))
    with pytest.raises(TypeError):
        gp.ptp(gp.asarray(x > 0))  # NumPy: no subtract for bool
