"""gpupyx.scipy.signal's detrend, hilbert, hilbert2, resample, resample_poly, upfirdn,
oaconvolve, sepfir2d and wiener against scipy.signal (on the CPU): their parameters,
1-d to 3-d data along each axis, non-contiguous and reversed views, empty data, every
dtype each accepts (result dtypes as SciPy's), SciPy's errors.

Tolerances (``eps`` of the computing precision: float32 for float32/complex64 results,
float64 otherwise):

- ``detrend``: the mean: ``4 (log2 n + 2) eps max|x|`` (two summation orders); the
  least-squares line: SciPy's ``lstsq`` and gpupy's closed form (see ``_detrend.py``)
  are both backward stable, each within a few ``(log2 n + 2) eps max|y|`` of the exact
  residual: ``16 (log2 n + 2) eps max|y|`` per piece.
- FFT-based results, from the FFTs' normwise bound (gpupy's within ``5 eps log2 N`` of
  pocketfft, pocketfft within a few ``eps log2 N`` of exact; we state ``c = 16`` per
  transform pair): ``hilbert``: ``2 c eps log2 N ||x||_2`` (the spectrum is weighted by
  at most 2), ``hilbert2``: ``4 c eps log2(N0 N1) ||x||_F``; ``resample``: ``2 c eps
  (log2 n + log2 num) sqrt(num / n) ||x||_2 max(1, max|W|)`` (the output's norm is at most
  ``sqrt(num / n) ||x||_2`` times the window's and the Nyquist term's factor 2);
  ``oaconvolve``: ``2^d c eps log2 N ||x||_2 ||w||_2`` (each output sums at most ``2^d``
  blocks' products, ``d`` the convolved axes, ``N`` the full output's size).
- Direct sums of ``k`` products (``upfirdn``: ``k = P = ceil(len(h) / up)`` per output;
  ``sepfir2d``: the taps of both passes) agree within ``2 k eps sum|h||x|``: each side's
  sum is within ``gamma_k`` of exact. ``upfirdn`` bounds ``|x|`` of the extended signal
  by ``max|x| (5 + 2 L) + |cval|`` (``L = P - 1`` extension samples: the extrapolating
  modes grow by at most ``2 max|x|`` per sample, ``antireflect`` per period); complex data
  doubles the bound. ``resample_poly`` adds its filter's design (the same formulas, the
  sine, cosine and Bessel values within a few ulp: ``16 eps`` relative per tap) and the
  background of the ``mean``/``median``/``minimum``/``maximum`` pads
  (``8 (log2 n + 2) eps max|x|``).
- ``wiener``: its window sums are exact sums in float64 on both sides (the cases are
  ones where SciPy's ``correlate`` picks its direct method, asserted), so they agree
  within ``2 k eps`` of the sums of magnitudes; the result's first-order sensitivity to
  the local mean, variance and the noise estimate is evaluated from SciPy's
  intermediate values.
"""

import re

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.signal as gsig
from helpers import dtype_id

sig = pytest.importorskip("scipy.signal")

pytestmark = pytest.mark.gpu

C = 16


def eps_of(dtype):
    return np.finfo(np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64).eps


def check(got, want, bound):
    assert isinstance(got, gp.ndarray)
    g = got.get()
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype, g.shape, want.shape)
    if want.size == 0:
        return
    diff = np.abs(g.astype(np.complex128) - want)
    bound = np.broadcast_to(bound, diff.shape)
    both_nan = np.isnan(g) & np.isnan(want) if want.dtype.kind in "fc" else False
    diff = np.where(both_nan, 0, diff)
    assert (diff <= bound).all(), f"worst {diff.max():.3e} at {np.unravel_index(diff.argmax(), diff.shape)} " \
                                  f"(bound there {bound.flat[diff.argmax()]:.3e})"


def raises_like(call, expected_call):
    """`call` raises what `expected_call` (SciPy's) raises: same type and message."""
    with pytest.raises(Exception) as want:
        expected_call()
    with pytest.raises(type(want.value), match=re.escape(str(want.value))):
        call()


def data(rng, shape, dtype, offset=0.0):
    x = rng.standard_normal(shape) * 3 + offset
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if np.dtype(dtype).kind in "iu":
        x = np.abs(np.round(x * 10)) if np.dtype(dtype).kind == "u" else np.round(x * 10)
    return x.astype(dtype)


VIEWS = [lambda a: a, lambda a: a[..., ::2], lambda a: a[::-1]]


# ---------------------------------------------------------------------------------------
# detrend

@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.complex128, np.float16], ids=dtype_id)
def test_detrend(rng, dtype):
    for shape in [(37,), (5, 64), (3, 4, 21)]:
        x = data(rng, shape, dtype, offset=10.0) + (np.arange(shape[-1]) * 0.3).astype(dtype)
        for view in VIEWS:
            xv = view(x)
            gx = view(gp.asarray(x))
            for axis in range(-1, -xv.ndim - 1, -1):
                n = xv.shape[axis]
                eps = np.finfo(np.float16).eps if dtype == np.float16 else eps_of(dtype)
                scale = np.abs(xv.astype(np.complex128)).max() if xv.size else 0
                want = sig.detrend(xv, axis=axis, type="constant")
                check(gsig.detrend(gx, axis=axis, type="constant"), want, 4 * (np.log2(n) + 2) * eps * scale)
                eps = eps_of(want.dtype)
                for bp in [0, [n // 3], [n // 4, n // 2, n // 2, n - 1]]:
                    want = sig.detrend(xv, axis=axis, type="linear", bp=bp)
                    got = gsig.detrend(gx, axis=axis, type="linear", bp=bp)
                    check(got, want, 16 * (np.log2(n) + 2) * eps * scale)


def test_detrend_overwrite_and_errors(rng):
    x = data(rng, (4, 50), np.float64, offset=3.0)
    gx = gp.asarray(x)
    want = sig.detrend(x)
    got = gsig.detrend(gx, overwrite_data=True)
    check(got, want, 16 * (np.log2(50) + 2) * np.finfo(float).eps * np.abs(x).max())
    check(gx, want, 16 * (np.log2(50) + 2) * np.finfo(float).eps * np.abs(x).max())  # written in place
    gx = gp.asarray(x)
    gsig.detrend(gx, type="constant", overwrite_data=True)
    np.testing.assert_array_equal(gx.get(), x)  # SciPy writes in place only for 'linear'
    raises_like(lambda: gsig.detrend(gp.asarray(x), type="quadratic"), lambda: sig.detrend(x, type="quadratic"))
    raises_like(lambda: gsig.detrend(gp.asarray(x), bp=[60]), lambda: sig.detrend(x, bp=[60]))
    for shape in [(0,), (3, 0)]:
        want = sig.detrend(np.zeros(shape), type="constant")
        assert gsig.detrend(gp.zeros(shape), type="constant").shape == want.shape


# ---------------------------------------------------------------------------------------
# hilbert, hilbert2

@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16], ids=dtype_id)
def test_hilbert(rng, dtype):
    for shape in [(64,), (3, 65), (2, 7, 1)]:
        x = data(rng, shape, dtype)
        for view in VIEWS:
            xv, gx = view(x), view(gp.asarray(x))
            for axis in range(xv.ndim):
                for N in [None, xv.shape[axis] + 5, 2 * xv.shape[axis]]:
                    want = sig.hilbert(xv, N, axis=axis)
                    got = gsig.hilbert(gx, N, axis=axis)
                    n = N or xv.shape[axis]
                    norm = np.linalg.norm(xv.astype(np.float64), axis=axis, keepdims=True)
                    check(got, want, 2 * C * eps_of(want.dtype) * np.log2(max(n, 2)) * norm)
    raises_like(lambda: gsig.hilbert(gp.ones(4, dtype=np.complex64)), lambda: sig.hilbert(np.ones(4, np.complex64)))
    raises_like(lambda: gsig.hilbert(gp.ones(4), 0), lambda: sig.hilbert(np.ones(4), 0))


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=dtype_id)
def test_hilbert2(rng, dtype):
    for shape, axes in [((16, 17), (-2, -1)), ((9,), (-2, -1)), ((3, 8, 6), (0, 2)), ((5, 6, 7), (2, 1))]:
        x = data(rng, shape, dtype)
        for view in VIEWS[:2]:
            xv, gx = view(x), view(gp.asarray(x))
            for N in [None, 12, (7, 10)]:
                want = sig.hilbert2(xv, N, axes=axes)
                got = gsig.hilbert2(gx, N, axes=axes)
                xa = np.atleast_2d(xv).astype(np.float64)
                norm = np.sqrt((xa ** 2).sum(axis=axes, keepdims=True))
                size = np.prod([want.shape[a] for a in axes])
                check(got, want, 4 * C * eps_of(want.dtype) * np.log2(max(size, 2)) * norm)
    x = np.ones((4, 4))
    for kw in [dict(axes=(0,)), dict(axes=(1, 1)), dict(N=0), dict(N=(3,)), dict(N=(3, -1))]:
        raises_like(lambda: gsig.hilbert2(gp.asarray(x), **kw), lambda: sig.hilbert2(x, **kw))
    raises_like(lambda: gsig.hilbert2(gp.asarray(x + 0j)), lambda: sig.hilbert2(x + 0j))


# ---------------------------------------------------------------------------------------
# resample

@pytest.mark.parametrize("domain", ["time", "freq"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128], ids=dtype_id)
def test_resample(rng, dtype, domain):
    for n, num in [(16, 7), (16, 33), (15, 15), (15, 8), (10, 40), (9, 4), (64, 63)]:
        x = data(rng, (n, 3), dtype)
        for window in [None, "hann", ("kaiser", 3.0), np.linspace(0.5, 1.0, n)]:
            want = sig.resample(x, num, window=window, domain=domain)
            gwin = gp.asarray(window) if isinstance(window, np.ndarray) else window
            got = gsig.resample(gp.asarray(x), num, window=gwin, domain=domain)
            wmax = 1.0 if window is None else np.abs(np.asarray(sig.get_window(window, n) if not isinstance(
                window, np.ndarray) else window)).max()
            norm = np.linalg.norm(x.astype(np.complex128), axis=0)
            if domain == "freq":
                norm = norm / np.sqrt(n)  # x is a spectrum: the signal's norm is ||x|| / sqrt(n)
            bound = 2 * C * eps_of(want.dtype) * (np.log2(n) + np.log2(num)) * np.sqrt(num / n) * norm * max(1, wmax)
            check(got, want, bound)
    # along axis 1, a callable window, t
    x = data(rng, (2, 20, 3), dtype)
    want, want_t = sig.resample(x, 13, t=np.arange(20) * 0.5, axis=1, window=lambda f: np.exp(-np.abs(f)))
    got, got_t = gsig.resample(gp.asarray(x), 13, t=gp.arange(20) * 0.5, axis=1, window=lambda f: gp.exp(-gp.abs(f)))
    check(got, want, 2 * C * eps_of(want.dtype) * (np.log2(20) + np.log2(13)) *
          np.linalg.norm(x.astype(np.complex128), axis=1, keepdims=True))
    check(got_t, want_t, 4 * np.finfo(float).eps * np.abs(want_t))


def test_resample_errors():
    x = np.ones(10)
    raises_like(lambda: gsig.resample(gp.asarray(x), 5, domain="foo"), lambda: sig.resample(x, 5, domain="foo"))
    raises_like(lambda: gsig.resample(gp.asarray(x), 5, window=gp.ones(7)),
                lambda: sig.resample(x, 5, window=np.ones(7)))


# ---------------------------------------------------------------------------------------
# upfirdn

MODES = ["constant", "wrap", "edge", "smooth", "symmetric", "reflect", "antisymmetric", "antireflect", "line"]


def upfirdn_bound(h, x, up, mode, cval, eps):
    P = -(-len(h) // up)
    L = P - 1
    xmax = np.abs(x).max() if x.size else 0.0
    ext = xmax * (5 + 2 * L) + (abs(cval) if mode == "constant" else 0.0)
    factor = 2 if np.iscomplexobj(x) or np.iscomplexobj(h) else 1
    return factor * 2 * P * eps * np.abs(h).sum() * ext


@pytest.mark.parametrize("mode", MODES)
def test_upfirdn_modes(rng, mode):
    for n in [2, 3, 7, 30]:
        for lh in [1, 2, 5, 13, 40]:
            for up, down in [(1, 1), (2, 1), (1, 3), (3, 2), (5, 7), (4, 6)]:
                x, h = rng.standard_normal(n), rng.standard_normal(lh)
                want = sig.upfirdn(h, x, up, down, mode=mode, cval=2.5)
                got = gsig.upfirdn(h, gp.asarray(x), up, down, mode=mode, cval=2.5)
                check(got, want, upfirdn_bound(h, x, up, mode, 2.5, np.finfo(float).eps))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex64, np.int16, np.bool_], ids=dtype_id)
def test_upfirdn_dtypes_axes_views(rng, dtype):
    x = data(rng, (4, 9, 5), dtype) if dtype != np.bool_ else rng.integers(0, 2, (4, 9, 5)).astype(bool)
    for h in [np.array([1.0, 2.0, 3.0]), np.array([0.5, -1, 2, 1], np.float32), np.array([1, 2j, 3])]:
        for view in VIEWS:
            xv, gx = view(x), view(gp.asarray(x))
            for axis, mode in [(0, "constant"), (1, "antireflect"), (-1, "symmetric"), (1, "line")]:
                want = sig.upfirdn(h, xv, 3, 2, axis=axis, mode=mode)
                got = gsig.upfirdn(gp.asarray(h), gx, 3, 2, axis=axis, mode=mode)
                check(got, want, upfirdn_bound(h, xv.astype(np.complex128), 3, mode, 0, eps_of(want.dtype)))


def test_upfirdn_edge_cases_and_errors(rng):
    x = rng.standard_normal(5)
    # An empty signal in constant mode: the filter's tail over the constant.
    want = sig.upfirdn([1.0, 2.0, 3.0], np.zeros(0), 2, 1, mode="constant", cval=1.5)
    check(gsig.upfirdn([1.0, 2.0, 3.0], gp.zeros(0), 2, 1, mode="constant", cval=1.5), want, 0)
    # One sample: the modes that need only it.
    for mode in ["constant", "edge", "wrap", "symmetric", "antisymmetric", "line"]:
        want = sig.upfirdn([1.0, 2, 3, 4, 5], [2.0], 1, 1, mode=mode)
        check(gsig.upfirdn([1.0, 2, 3, 4, 5], gp.asarray([2.0]), 1, 1, mode=mode), want, 0)
    # SciPy divides by zero (a crash) or reads past the array for these on one sample.
    for mode in ["reflect", "antireflect", "smooth"]:
        with pytest.raises(ValueError, match="at least two samples"):
            gsig.upfirdn([1.0, 2.0, 3.0], gp.asarray([2.0]), mode=mode)
    for h, kw in [(np.ones((2, 2)), {}), (np.zeros(0), {}), ([1.0], dict(up=0)), ([1.0], dict(down=0)),
                  ([1.0, 1.0], dict(mode="foo"))]:
        raises_like(lambda: gsig.upfirdn(h, gp.asarray(x), **kw), lambda: sig.upfirdn(h, x, **kw))


# ---------------------------------------------------------------------------------------
# resample_poly

PADTYPES = ["constant", "line", "mean", "median", "maximum", "minimum", "reflect", "wrap", "edge", "smooth",
            "antireflect", "symmetric", "antisymmetric"]


@pytest.mark.parametrize("padtype", PADTYPES)
def test_resample_poly(rng, padtype):
    for n in [5, 31, 100]:
        for up, down in [(1, 1), (2, 1), (1, 3), (3, 2), (10, 7), (4, 6)]:
            x = data(rng, (n, 3), np.float64, offset=2.0)
            want = sig.resample_poly(x, up, down, padtype=padtype)
            got = gsig.resample_poly(gp.asarray(x), up, down, padtype=padtype)
            g = np.gcd(up, down)
            u, d = up // g, down // g
            if u == d == 1:
                check(got, want, 0)
                continue
            h = sig.firwin(2 * 10 * max(u, d) + 1, 1.0 / max(u, d), window=("kaiser", 5.0)) * u
            eps = np.finfo(float).eps
            P = -(-len(h) // u)
            bound = upfirdn_bound(h, 2 * x, u, padtype, 0, eps) * (1 + 8 / P) + 8 * (np.log2(n) + 2) * eps * np.abs(x).max()
            check(got, want, bound)


def test_resample_poly_dtypes_windows_and_errors(rng):
    for dtype in [np.float32, np.complex128, np.int32]:
        x = data(rng, (3, 50), dtype)
        for window, axis, cval in [(("kaiser", 5.0), -1, None), ("hamming", 1, 1.5), ([1, 2, 3, 2, 1], 0, None),
                                   (np.array([0.25, 0.5, 0.25]), -1, 2.0)]:
            gwindow = gp.asarray(window) if isinstance(window, np.ndarray) else window
            want = sig.resample_poly(x, 3, 5, axis=axis, window=window, cval=cval)
            got = gsig.resample_poly(gp.asarray(x), 3, 5, axis=axis, window=gwindow, cval=cval)
            h = np.asarray(window, float) * 3 if isinstance(window, (list, np.ndarray)) else \
                sig.firwin(2 * 10 * 5 + 1, 1 / 5, window=window) * 3
            eps = eps_of(want.dtype)
            P = -(-len(h) // 3)
            check(got, want, upfirdn_bound(h, x.astype(np.complex128), 3, "constant", cval or 0, eps) * (1 + 8 / P))
    x = np.ones(20)
    for kw in [dict(up=1.5, down=1), dict(up=1, down=2.5), dict(up=0, down=1), dict(up=2, down=1, padtype="line", cval=1.0),
               dict(up=2, down=1, padtype="foo"), dict(up=2, down=1, window=np.ones((2, 3)))]:
        raises_like(lambda: gsig.resample_poly(gp.asarray(x), **kw), lambda: sig.resample_poly(x, **kw))


# ---------------------------------------------------------------------------------------
# oaconvolve

OA_CASES = [((100,), (7,), None), ((7,), (100,), None), ((50, 60), (5, 9), None), ((200, 3), (11, 3), [0]),
            ((30, 40, 5), (4, 3, 5), None), ((300,), (40,), None), ((64, 64), (64, 64), None),
            ((200, 70), (9, 1), None), ((200, 70), (9, 70), 0), ((1, 200), (1, 13), None)]


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64], ids=dtype_id)
def test_oaconvolve(rng, mode, dtype):
    for s1, s2, axes in OA_CASES:
        a, b = data(rng, s1, dtype), data(rng, s2, dtype)
        if mode == "valid" and not (all(p >= q for p, q in zip(s1, s2)) or all(q >= p for p, q in zip(s1, s2))):
            raises_like(lambda: gsig.oaconvolve(gp.asarray(a), gp.asarray(b), mode, axes),
                        lambda: sig.oaconvolve(a, b, mode, axes))
            continue
        want = sig.oaconvolve(a, b, mode, axes)
        got = gsig.oaconvolve(gp.asarray(a), gp.asarray(b), mode, axes)
        full = np.prod([p + q - 1 for p, q in zip(s1, s2)])
        d = len(s1) if axes is None else len(np.atleast_1d(axes))
        bound = 2 ** d * C * eps_of(want.dtype) * np.log2(max(full, 2)) * \
            np.linalg.norm(a.astype(np.complex128).ravel()) * np.linalg.norm(b.astype(np.complex128).ravel())
        check(got, want, bound)


def test_oaconvolve_special_cases_and_errors(rng):
    a, b = data(rng, (5,), np.float64), data(rng, (3,), np.float64)
    check(gsig.oaconvolve(gp.asarray(a[0]), gp.asarray(b[0])), sig.oaconvolve(a[0], b[0]), 0)
    assert gsig.oaconvolve(gp.zeros(0), gp.asarray(b)).shape == sig.oaconvolve(np.zeros(0), b).shape
    x, w = np.ones((4, 3)), np.ones((2, 3))
    for kw in [dict(axes=[]), dict(axes=[2]), dict(axes=[0, 0]), dict(axes=[1.5]), dict(mode="foo")]:
        raises_like(lambda: gsig.oaconvolve(gp.asarray(x), gp.asarray(w), **kw),
                    lambda: sig.oaconvolve(x, w, **kw))
    raises_like(lambda: gsig.oaconvolve(gp.ones((4, 3)), gp.ones(3)), lambda: sig.oaconvolve(np.ones((4, 3)), np.ones(3)))
    raises_like(lambda: gsig.oaconvolve(gp.ones((4, 3)), gp.ones((2, 2)), axes=[0]),
                lambda: sig.oaconvolve(np.ones((4, 3)), np.ones((2, 2)), axes=[0]))


# ---------------------------------------------------------------------------------------
# sepfir2d, wiener

@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.int64, np.complex64, np.uint8],
                         ids=dtype_id)
def test_sepfir2d(rng, dtype):
    x = data(rng, (13, 17), dtype)
    taps = np.float32 if np.promote_types(dtype, np.float32) in (np.float32, np.complex64) else np.float64
    for hr, hc in [(rng.standard_normal(5), rng.standard_normal(3)), (rng.standard_normal(1), rng.standard_normal(7)),
                   (np.array([1.0, 4, 6, 4, 1]) / 16, np.array([1.0, 4, 6, 4, 1]) / 16)]:
        hr, hc = hr.astype(taps), hc.astype(taps)
        for view in VIEWS[:2] + [lambda a: a[::-1, ::-1]]:
            xv, gx = view(x), view(gp.asarray(x))
            want = sig.sepfir2d(xv, hr, hc)
            got = gsig.sepfir2d(gx, gp.asarray(hr), hc)
            scale = sig.sepfir2d(np.abs(xv.astype(np.complex128)), np.abs(hr).astype(np.float64),
                                 np.abs(hc).astype(np.float64))
            k = len(hr) + len(hc)
            eps = eps_of(want.dtype)
            check(got, want, 2 * (k + 2) * eps * scale * (2 if want.dtype.kind == "c" else 1))


def test_sepfir2d_errors():
    x = np.ones((5, 5))
    for args in [(x, np.ones(2), np.ones(3)), (np.ones(5), np.ones(3), np.ones(3)), (np.ones((2, 5, 5)), np.ones(3), np.ones(3)),
                 (x.astype(np.float32), np.ones(3), np.ones(3, np.float32)), (x, np.ones((1, 3)), np.ones(3))]:
        raises_like(lambda: gsig.sepfir2d(*(gp.asarray(a) for a in args)), lambda: sig.sepfir2d(*args))


def wiener_bound(x, mysize, noise):
    """The first-order bound of the module docstring, from SciPy's float64 intermediates."""
    ones = np.ones(mysize)
    k = ones.size
    eps = np.finfo(float).eps
    box = lambda a: sig.correlate(a, ones, "same", method="direct") / k  # noqa: E731
    mean, mean_abs, mean_sq = box(x), box(np.abs(x)), box(x * x)
    var = mean_sq - mean ** 2
    d_mean = 2 * k * eps * mean_abs + 2 * eps * np.abs(mean)
    d_var = 2 * k * eps * mean_sq + 2 * np.abs(mean) * d_mean + 4 * eps * mean_sq
    if noise is None:
        noise, d_noise = var.mean(), d_var.max() + 2 * eps * np.log2(var.size) * np.abs(var).mean()
    else:
        d_noise = 0.0
    with np.errstate(all="ignore"):
        factor = np.abs(1 - noise / var)
        sens = np.abs(x - mean) * (d_noise / var + noise * d_var / var ** 2)
    # A window of equal values (integer data) has a variance of exactly 0, below any
    # noise: the output there is the local mean, and the terms above are 0 * inf.
    flat = var == 0
    factor, sens = np.where(flat, 0.0, factor), np.where(flat, 0.0, sens)
    return d_mean * (1 + factor) + sens + 8 * eps * (np.abs(x) + np.abs(mean))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32], ids=dtype_id)
def test_wiener(rng, dtype):
    for shape, mysize, noise in [((20, 30), None, None), ((40,), 5, None), ((20, 30), [3, 4], 0.3),
                                 ((5, 6, 7), 2, None), ((15, 16), [1, 5], 2.0)]:
        x = data(rng, shape, dtype)
        size = [3] * x.ndim if mysize is None else ([mysize] * x.ndim if np.ndim(mysize) == 0 else mysize)
        for a in (x, x * x):
            assert sig.choose_conv_method(a, np.ones(size), "same") == "direct"
        want = sig.wiener(x, mysize, noise)
        got = gsig.wiener(gp.asarray(x), mysize, noise)
        check(got, want, wiener_bound(x.astype(np.float64), size, noise))
