"""NumPy's numeric functions composed in Python (comparisons, ldexp/frexp/modf, fix,
sinc, i0, type checks, gradient, ediff1d, trapezoid, unwrap, interp, digitize,
convolve/correlate, cross, matvec/vecmat, windows) against NumPy.

Exact where gpupy performs NumPy's operations in NumPy's order (comparisons, frexp,
ldexp, modf, fix, digitize, integer results); otherwise within a few ulps of the
result's dtype: ``RTOL_FEW`` is 8 units of rounding (each result is at most ~4 IEEE
operations or one libdevice call of <= 2 ulp away from NumPy's evaluation)."""

import warnings

import numpy as np
import pytest

import gpupy as gp
from helpers import (ALL_DTYPES, assert_equal_to_numpy, dtype_id, numpy_error, raises_as_numpy, raises_like,
                     random_array)

pytestmark = pytest.mark.gpu

FLOATS = [np.float16, np.float32, np.float64]
SHAPES = [(0,), (1,), (7,), (3, 5)]


def _rtol(dtype, ulps=8):
    return ulps * np.finfo(dtype).eps


def _close(g, w, ulps=8, atol=0.0):
    w = np.asarray(w)
    got = g.get() if isinstance(g, gp.ndarray) else np.asarray(g)
    assert got.shape == w.shape and got.dtype == w.dtype, (got.shape, got.dtype, w.shape, w.dtype)
    np.testing.assert_allclose(got, w, rtol=_rtol(w.dtype if w.dtype.kind in "fc" else np.float64, ulps), atol=atol,
                               equal_nan=True)


def _within(g, w, bound):
    """``|g - w| <= bound`` elementwise (``bound`` an array of ``w``'s shape, derived by
    the caller), same shape and dtype."""
    w = np.asarray(w)
    got = g.get()
    assert got.shape == w.shape and got.dtype == w.dtype, (got.shape, got.dtype, w.shape, w.dtype)
    wide = np.complex128 if w.dtype.kind == "c" else np.float64
    err = np.abs(got.astype(wide) - w.astype(wide))
    assert np.all(err <= bound), f"error beyond the bound by up to {np.max(err - bound)!r}"


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_isclose_allclose_array_equal_equiv(rng, dtype):
    a = random_array(rng, (4, 6), dtype)
    b = a.copy()
    b[0, :3] = random_array(rng, 3, dtype)
    ga, gb = gp.asarray(a), gp.asarray(b)
    assert_equal_to_numpy(gp.isclose(ga, gb), np.isclose(a, b))
    assert_equal_to_numpy(gp.isclose(ga[:, ::-2], gb[:, ::-2]), np.isclose(a[:, ::-2], b[:, ::-2]))
    assert gp.allclose(ga, ga) is True and gp.allclose(ga, gb) == np.allclose(a, b)
    assert gp.array_equal(ga, gb) == np.array_equal(a, b)
    assert gp.array_equal(ga, ga[:3]) is False
    assert gp.array_equiv(ga[0], gp.asarray(np.broadcast_to(a[0], (3, 6)).copy())) is True
    assert gp.array_equiv(ga, ga[:, :2]) is False


def test_isclose_nan_inf_and_scalars():
    a = np.array([np.nan, np.inf, -np.inf, 1.0, 1e10, 0.0])
    b = np.array([np.nan, np.inf, np.inf, 1.0 + 1e-9, 1.00001e10, 1e-9])
    for en in (False, True):
        assert_equal_to_numpy(gp.isclose(gp.asarray(a), gp.asarray(b), equal_nan=en), np.isclose(a, b, equal_nan=en))
        assert gp.array_equal(gp.asarray(a), gp.asarray(a), equal_nan=en) == np.array_equal(a, a, equal_nan=en)
    assert_equal_to_numpy(gp.isclose(gp.asarray(a), 1), np.asarray(np.isclose(a, 1)))
    assert bool(gp.isclose(1.0, 1.0 + 1e-9)) is True


@pytest.mark.parametrize("dtype", FLOATS + [np.int8, np.int32], ids=dtype_id)
def test_frexp_ldexp_modf_fix_exact(rng, dtype):
    x = random_array(rng, 64, dtype)
    if np.dtype(dtype).kind == "f":
        fi = np.finfo(dtype)
        x = (x * np.exp2(rng.integers(-30, 30, 64)).astype(dtype)).astype(dtype)
        x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, fi.smallest_subnormal, -fi.tiny, fi.max]
    gx = gp.asarray(x)
    with np.errstate(all="ignore"):
        for g, w in zip(gp.frexp(gx[::-1]), np.frexp(x[::-1])):
            assert_equal_to_numpy(g, w)
        for g, w in zip(gp.modf(gx), np.modf(x)):
            assert_equal_to_numpy(g, w)
        for e in (np.int32, np.int64):
            ex = rng.integers(-40, 40, 64).astype(e)
            ex[:4] = [2000, -2000, 1, -1]
            assert_equal_to_numpy(gp.ldexp(gx, gp.asarray(ex)), np.ldexp(x, ex))
        assert_equal_to_numpy(gp.ldexp(gx, 3), np.ldexp(x, 3))
    # NumPy 2.5 deprecated fix: gpupy warns exactly when the installed NumPy does.
    with warnings.catch_warnings(record=True) as np_warned:
        warnings.simplefilter("always", DeprecationWarning)
        want = np.fix(x)
    with warnings.catch_warnings(record=True) as gp_warned:
        warnings.simplefilter("always", DeprecationWarning)
        got = gp.fix(gx)
    assert [str(w.message) for w in gp_warned] == [str(w.message) for w in np_warned]
    assert_equal_to_numpy(got, want)
    raises_like(lambda: gp.ldexp(gx, gx.astype(np.float64)), lambda: np.ldexp(x, x.astype(np.float64)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.complex128], ids=dtype_id)
def test_sinc_i0(rng, dtype):
    x = random_array(rng, (5, 4), dtype) * (3 if np.dtype(dtype).kind != "b" else 1)
    x.flat[0] = 0
    _close(gp.sinc(gp.asarray(x)), np.sinc(x), ulps=16)
    if np.dtype(dtype).kind == "c":
        raises_like(lambda: gp.i0(gp.asarray(x)), lambda: np.i0(x))
    else:
        y = (x * 5).astype(dtype)  # both branches of the expansion (|x| <= 8 and beyond)
        _close(gp.i0(gp.asarray(y)), np.i0(y), ulps=64)


@pytest.mark.parametrize("dtype", [np.float64, np.complex64, np.int8], ids=dtype_id)
def test_type_checks_and_sort_complex(rng, dtype):
    x = random_array(rng, (3, 4), dtype)
    if np.dtype(dtype).kind == "c":
        x[0] = x[0].real
    g = gp.asarray(x)
    assert_equal_to_numpy(gp.iscomplex(g), np.iscomplex(x))
    assert_equal_to_numpy(gp.isreal(g), np.isreal(x))
    assert gp.iscomplexobj(g) == np.iscomplexobj(x) and gp.isrealobj(g) == np.isrealobj(x)
    assert gp.iscomplexobj([1j]) and gp.isrealobj([1.0])
    assert_equal_to_numpy(gp.sort_complex(g), np.sort_complex(x))
    assert_equal_to_numpy(gp.real_if_close(g[:1]), np.real_if_close(x[:1]))
    assert_equal_to_numpy(gp.real_if_close(g), np.real_if_close(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex128], ids=dtype_id)
@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient(rng, dtype, edge_order):
    f = random_array(rng, (6, 5), dtype)
    if np.dtype(dtype).kind in "iu":
        f = (f % 100).astype(dtype)
    g = gp.asarray(f)
    xs = np.cumsum(rng.uniform(0.5, 1.5, 6))
    for args, kw in [((), {}), ((0.5,), {}), ((xs, 2.0), {}), ((xs,), {"axis": 0}), ((), {"axis": -1})]:
        want = np.gradient(f, *args, edge_order=edge_order, **kw)
        got = gp.gradient(g, *[gp.asarray(a) if isinstance(a, np.ndarray) else a for a in args],
                          edge_order=edge_order, **kw)
        for gg, ww in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            _close(gg, ww, ulps=32, atol=32 * np.finfo(ww.dtype).eps * np.abs(ww).max())
    raises_like(lambda: gp.gradient(g[:2], edge_order=2), lambda: np.gradient(f[:2], edge_order=2))


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.uint8], ids=dtype_id)
def test_ediff1d_trapezoid_unwrap(rng, dtype):
    x = random_array(rng, (4, 7), dtype)
    g = gp.asarray(x)
    assert_equal_to_numpy(gp.ediff1d(g), np.ediff1d(x))
    # to_begin/to_end must cast to ary's dtype under same_kind, judged on their dtypes:
    # Python ints are int64 arrays there, refused by an unsigned ary (NumPy's TypeError).
    for kw in ({"to_begin": [1, 2], "to_end": 3}, {"to_begin": np.array([1, 2], dtype), "to_end": np.array(3, dtype)},
               {"to_end": [4]}):
        if numpy_error(lambda: np.ediff1d(x[:, ::-2], **kw)) is None:
            assert_equal_to_numpy(gp.ediff1d(g[:, ::-2], **kw), np.ediff1d(x[:, ::-2], **kw))
        else:
            raises_as_numpy(lambda: gp.ediff1d(g[:, ::-2], **kw), lambda: np.ediff1d(x[:, ::-2], **kw))
    raises_like(lambda: gp.ediff1d(g, to_begin=[1.5]) if np.dtype(dtype).kind != "f" else gp.ediff1d(g, to_begin=[1j]),
                lambda: np.ediff1d(x, to_begin=[1.5]) if np.dtype(dtype).kind != "f" else np.ediff1d(x, to_begin=[1j]))
    xs = np.cumsum(rng.uniform(0.1, 1.0, 7))
    _close(gp.trapezoid(g), np.trapezoid(x), ulps=64, atol=1e-6 * np.abs(x).sum())
    _close(gp.trapezoid(g, gp.asarray(xs), axis=1), np.trapezoid(x, xs, axis=1), ulps=64, atol=1e-5 * np.abs(x).sum())
    p = (np.cumsum(rng.uniform(-4, 4, (3, 9)), axis=1))
    _close(gp.unwrap(gp.asarray(p)), np.unwrap(p), ulps=64)
    pi = rng.integers(-20, 20, 12)
    assert_equal_to_numpy(gp.unwrap(gp.asarray(pi), period=6), np.unwrap(pi, period=6))


@pytest.mark.parametrize("complex_fp", [False, True])
def test_interp_digitize(rng, complex_fp):
    xp = np.sort(rng.uniform(-1, 1, 9))
    fp = random_array(rng, 9, np.complex128 if complex_fp else np.float64)
    x = rng.uniform(-1.5, 1.5, 40)
    x[:3] = [xp[0], xp[-1], np.nan]
    gx, gxp, gfp = gp.asarray(x), gp.asarray(xp), gp.asarray(fp)
    # fp[i] + slope (x - xp[i]) rounds to a few ulps of the fp values, not of the result
    # (which cancellation can make much smaller): an absolute part of 8 ulps of max |fp|.
    atol = 8 * np.finfo(np.float64).eps * np.abs(fp).max()
    _close(gp.interp(gx, gxp, gfp), np.interp(x, xp, fp), atol=atol)
    _close(gp.interp(gx[::-2], gxp, gfp, left=-5, right=7), np.interp(x[::-2], xp, fp, left=-5, right=7), atol=atol)
    _close(gp.interp(gx, gxp[::-1] * 3, gfp, period=2.5), np.interp(x, xp[::-1] * 3, fp, period=2.5), atol=atol)
    _close(gp.interp(gx, gxp[:1], gfp[:1]), np.interp(x, xp[:1], fp[:1]))
    raises_like(lambda: gp.interp(gx, gxp[:0], gfp[:0]), lambda: np.interp(x, xp[:0], fp[:0]))
    for bins in (xp, xp[::-1]):
        for right in (False, True):
            assert_equal_to_numpy(gp.digitize(gx, gp.asarray(bins), right), np.digitize(x, bins, right))
    raises_like(lambda: gp.digitize(gx, gp.asarray(fp.real)), lambda: np.digitize(x, fp.real))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128, np.int16, np.bool_], ids=dtype_id)
@pytest.mark.parametrize("n,m", [(1, 1), (7, 3), (4, 6), (10, 10), (300, 100), (90, 257)])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate(rng, dtype, n, m, mode):
    a, v = random_array(rng, n, dtype), random_array(rng, m, dtype)
    if np.dtype(dtype).kind in "iu":
        a, v = a % 50, v % 50
    for gf, nf in ((gp.convolve, np.convolve), (gp.correlate, np.correlate)):
        want = nf(a, v, mode)
        got = gf(gp.asarray(a), gp.asarray(v), mode)
        if want.dtype.kind in "fc":
            bound = np.convolve(np.abs(a), np.abs(v)).max() * 8 * max(n, m) * np.finfo(want.dtype).eps
            _close(got, want, ulps=0, atol=bound)
        else:
            assert_equal_to_numpy(got, want)
    raises_like(lambda: gp.convolve(gp.asarray(a), gp.asarray(v), "x"), lambda: np.convolve(a, v, "x"))
    raises_like(lambda: gp.correlate(gp.asarray(a[:0]), gp.asarray(v)), lambda: np.correlate(a[:0], v))


def _unit_roundoff(dtype):
    return np.finfo(dtype).eps / 2


def _abs_wide(x):
    """|x| computed in float64/complex128 (no rounding of its own at x's precision)."""
    return np.abs(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))


def _check_cross(a, b, axisa=-1, axisb=-1, axisc=-1):
    """gpupy's cross of ``a`` and ``b`` against the installed NumPy's: the same error
    (NumPy 2.5 refuses 2-vectors, earlier versions take them with a DeprecationWarning),
    or the same result: exact for integers; for inexact dtypes within the bound below.

    A component is ``x*y - z*t``. Real: both libraries do one correctly rounded multiply
    per product and one subtraction, in the same order, but the bound covers any
    evaluation. A complex product's real (imaginary) part is ``xr*yr - xi*yi`` with at
    most 2 roundings (an FMA included): error <= 2u |x||y|; the subtraction adds <= u
    (|x||y| + |z||t|). So each library is within 3u S of the exact value per part, with
    S = |x||y| + |z||t|; the two within 6u S per part, 6 sqrt(2) u S in modulus. The
    error is relative to S, not to the result: with cancellation a few ulps of the
    result are not a valid bound."""
    kw = {"axisa": axisa, "axisb": axisb, "axisc": axisc}
    ga, gb = gp.asarray(a), gp.asarray(b)
    if numpy_error(lambda: np.cross(a, b, **kw)) is not None:
        raises_as_numpy(lambda: gp.cross(ga, gb, **kw), lambda: np.cross(a, b, **kw))
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        want = np.cross(a, b, **kw)
        got = gp.cross(ga, gb, **kw)
    if want.dtype.kind in "iub":
        assert_equal_to_numpy(got, want)
        return
    # S per component, from |a| and |b| in float64 (2-vectors padded with a zero).
    A = np.moveaxis(_abs_wide(a), axisa, -1)
    B = np.moveaxis(_abs_wide(b), axisb, -1)
    both_2 = A.shape[-1] == 2 and B.shape[-1] == 2
    A = np.concatenate([A, np.zeros(A.shape[:-1] + (3 - A.shape[-1],))], axis=-1)
    B = np.concatenate([B, np.zeros(B.shape[:-1] + (3 - B.shape[-1],))], axis=-1)
    a0, a1, a2 = A[..., 0], A[..., 1], A[..., 2]
    b0, b1, b2 = B[..., 0], B[..., 1], B[..., 2]
    S = np.stack(np.broadcast_arrays(a1 * b2 + a2 * b1, a2 * b0 + a0 * b2, a0 * b1 + a1 * b0), axis=-1)
    S = S[..., 2] if both_2 else np.moveaxis(S, -1, axisc)
    u = _unit_roundoff(want.dtype)
    _within(got, want, 6 * np.sqrt(2) * u / (1 - 3 * u) * S)  # / (1 - 3u): the O(u^2) terms


def _check_dot_products(got, want, terms, scale):
    """Results of ``terms``-term dot products against NumPy: exact for integers; otherwise
    each library is within sqrt(2) gamma_{k+2} sum_j |x_j||y_j| of the exact value
    (Higham, complex inner products, any summation order; gamma_k for real ones), so
    the two within twice that. ``scale``: sum_j |x_j||y_j| per result (k = ``terms``)."""
    want = np.asarray(want)
    if want.dtype.kind in "iub":
        assert_equal_to_numpy(got, want)
        return
    u = _unit_roundoff(want.dtype)
    _within(got, want, 2 * np.sqrt(2) * (terms + 2) * u / (1 - (terms + 2) * u) * scale)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex64], ids=dtype_id)
def test_cross_matvec_vecmat(rng, dtype):
    a, b = random_array(rng, (4, 3), dtype), random_array(rng, (2, 1, 3), dtype)
    if np.dtype(dtype).kind in "iu":
        a, b = a % 100, b % 100
    _check_cross(a, b)
    _check_cross(a.T, b, axisa=0, axisc=0)
    # 2-vectors: taken by NumPy < 2.5 (deprecated), refused by 2.5: as the installed one.
    _check_cross(a[:, :2], b)
    _check_cross(a[:, :2], b[..., :2])
    _check_cross(a, b[..., :2])
    raises_like(lambda: gp.cross(gp.asarray(a[:, :1]), gp.asarray(b)), lambda: np.cross(a[:, :1], b))
    m, v = random_array(rng, (2, 5, 4), dtype), random_array(rng, (4,), dtype)
    if np.dtype(dtype).kind in "iu":
        m, v = m % 100, v % 100
    _check_dot_products(gp.matvec(gp.asarray(m), gp.asarray(v)), np.matvec(m, v), 4, _abs_wide(m) @ _abs_wide(v))
    w = random_array(rng, (5,), dtype)
    _check_dot_products(gp.vecmat(gp.asarray(w), gp.asarray(m)), np.vecmat(w, m), 5, _abs_wide(w) @ _abs_wide(m))
    raises_like(lambda: gp.matvec(gp.asarray(m), gp.asarray(w)), lambda: np.matvec(m, w))


@pytest.mark.parametrize("M", [0, 1, 2, 7, 50])
def test_windows(M):
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        _close(getattr(gp, name)(M), getattr(np, name)(M), ulps=16, atol=4e-16)
    _close(gp.kaiser(M, 5.0), np.kaiser(M, 5.0), ulps=64)
