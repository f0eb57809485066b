"""gpupyx.scipy.signal's spectral analysis against scipy.signal (on the CPU):
``periodogram``, ``welch``, ``csd``, ``coherence``, ``spectrogram`` (every mode),
``stft``, ``istft``, ``check_COLA``, ``check_NOLA``: windows, segment lengths,
overlaps, ``nfft``, detrending (constant, linear, none, a callable), scalings, one-
and two-sided spectra, averages, boundaries and padding, axes of 1-d to 3-d data,
non-contiguous and reversed views, dtypes (float32 stays float32), empty input, SciPy's
errors and warnings. Frequencies and segment times are NumPy's own formulas on both
sides: compared exactly.

Tolerances, from the FFT's normwise error bound. A transform of length ``N`` of a
windowed, detrended segment ``s`` is within ``c eps log2 N ||X||_2`` of the exact one
in every element, ``||X||_2 = sqrt(N) ||s||_2``; we state ``c = 16`` for both
libraries' errors together with the detrending and windowing roundings (gpupy's FFTs
are within ``5 eps log2 N`` of pocketfft's, each within a few ``eps log2 N`` of the
exact). With ``B = max over segments of ||X||_2``:

- a complex spectrum (``stft``, ``spectrogram`` complex/magnitude) scaled by ``sqrt(S)``
  is off by at most ``c eps log2 N sqrt(S) B``;
- a power spectrum ``S |X|^2`` (one segment, or a mean or median of segments: both
  move by at most the largest per-segment error) by ``3 c eps log2 N S B^2``, doubled
  on the one-sided spectrum's inner frequencies (``2 |X| |dX| + |dX|^2 <= 3 B |dX|``);
  a cross spectrum by ``3 c eps log2 N S B_x B_y``;
- the coherence ``|Pxy|^2 / (Pxx Pyy)`` to first order by ``2 |Pxy| dPxy / (Pxx Pyy) +
  C (dPxx / Pxx + dPyy / Pyy)``, with the three spectra's bounds above;
- angles only where ``|Z|`` is above 1e4 times its error bound, within twice the
  relative error (``|d angle| <= |dZ| / |Z|``), compared modulo 2 pi;
- ``istft``: the inverse FFT's bound times the overlap count and the window's largest
  value, over the smallest window-squared sum it divides by.

``eps`` is float32's where the data (or SciPy's computation) is single precision: gpupy
transforms float32 data in float32, as SciPy's ``_spectral_helper`` does (SciPy's
``csd`` computes in float64, so its results are the more accurate, and the bound is
gpupy's).
"""

import re
import warnings

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.signal as gsig
from helpers import dtype_id

sig = pytest.importorskip("scipy.signal")

pytestmark = pytest.mark.gpu

C = 16


def eps_of(*dtypes):
    single = all(np.dtype(d) in (np.float32, np.complex64, np.float16, np.int8, np.int16, np.uint8, np.uint16,
                                 np.bool_) for d in dtypes)
    return np.finfo(np.float32 if single else np.float64).eps


def data(rng, shape, dtype):
    """Random data with a mean offset and a trend (so detrending matters)."""
    t = np.linspace(0, 1, shape[-1]) if shape else 0
    x = rng.standard_normal(shape) + 0.5 + 2 * t
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if np.dtype(dtype).kind in "iu":
        x = np.round(x * 20)
    return x.astype(dtype)


def segment_norms(x, win, nperseg, noverlap, nfft, axis=-1):
    """``B``: the largest ``||X||_2 = sqrt(nfft) ||w s||_2`` over the segments of `x`
    along `axis` (undetrended: detrending only lowers it), per outer index."""
    x = np.abs(np.moveaxis(np.asarray(x, dtype=np.complex128), axis, -1))
    frames = np.lib.stride_tricks.sliding_window_view(x, nperseg, axis=-1)[..., ::nperseg - noverlap, :]
    energy = (np.abs(win) ** 2 * frames ** 2).sum(-1)
    return np.sqrt(nfft * energy.max(-1))


def window_of(window, nperseg):
    return np.asarray(window) if not isinstance(window, (str, tuple)) else sig.get_window(window, nperseg)


def check(got, want, bound):
    assert isinstance(got, gp.ndarray)
    g = got.get()
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype, g.shape, want.shape)
    diff = np.abs(g.astype(np.complex128) - want)
    bound = np.broadcast_to(bound, diff.shape)
    assert (diff <= bound).all(), f"worst {diff.max():.3e} at {np.unravel_index(diff.argmax(), diff.shape)} " \
                                  f"(bound there {bound.flat[diff.argmax()]:.3e})"


def check_exact(got, want):
    assert isinstance(got, gp.ndarray)
    g = got.get()
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype, g.shape, want.shape)
    np.testing.assert_array_equal(g, want)


def psd_scale(win, fs, scaling):
    return 1.0 / (fs * (win * win).sum()) if scaling == "density" else 1.0 / win.sum() ** 2


def expand(bound, out_shape, axis):
    """A per-outer-index bound broadcast along the frequency axis `axis` of the output."""
    return np.expand_dims(bound, axis % len(out_shape)) if np.ndim(bound) else bound


# ---------------------------------------------------------------------------------------
# welch, periodogram, csd, coherence

WELCH_CASES = [
    dict(),
    dict(nperseg=100),
    dict(nperseg=128, noverlap=100, nfft=300),
    dict(window="hamming", nperseg=64, detrend="linear"),
    dict(window=("tukey", 0.3), nperseg=99, noverlap=0, scaling="spectrum"),
    dict(nperseg=50, average="median"),
    dict(nperseg=64, return_onesided=False),
    dict(nperseg=10, noverlap=3, detrend=False),
    dict(window=np.hanning(40)),
    dict(fs=1000.0, nperseg=77, noverlap=11, detrend=lambda d: d - d.mean(axis=-1, keepdims=True)),
]


@pytest.mark.parametrize("case", range(len(WELCH_CASES)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128], ids=dtype_id)
def test_welch_periodogram(rng, case, dtype):
    kw = WELCH_CASES[case]
    for shape, axis in [((1000,), -1), ((3, 517), -1), ((301, 2), 0), ((2, 257, 3), 1)]:
        x = data(rng, shape, dtype)
        nperseg = kw.get("nperseg", 256 if not isinstance(kw.get("window", ""), np.ndarray) else 40)
        nperseg = min(nperseg, shape[axis])
        nfft = kw.get("nfft", nperseg)
        noverlap = kw.get("noverlap", nperseg // 2)
        win = window_of(kw.get("window", "hann_periodic"), nperseg)
        f, want = sig.welch(x, axis=axis, **kw)
        gf, got = gsig.welch(gp.asarray(x), axis=axis, **kw)
        check_exact(gf, f)
        B = segment_norms(x, win, nperseg, noverlap, nfft, axis)
        S = psd_scale(win, kw.get("fs", 1.0), kw.get("scaling", "density"))
        eps = eps_of(dtype)
        check(got, want, expand(6 * C * eps * np.log2(nfft) * S * B ** 2, want.shape, axis))
        # periodogram: one segment of the whole axis, boxcar by default.
        pkw = {k: v for k, v in kw.items() if k in ("fs", "detrend", "scaling", "return_onesided")}
        f, want = sig.periodogram(x, axis=axis, **pkw)
        gf, got = gsig.periodogram(gp.asarray(x), axis=axis, **pkw)
        check_exact(gf, f)
        n = shape[axis]
        B = segment_norms(x, np.ones(n), n, 0, n, axis)
        S = psd_scale(np.ones(n), pkw.get("fs", 1.0), pkw.get("scaling", "density"))
        check(got, want, expand(6 * C * eps * np.log2(max(n, 2)) * S * B ** 2, want.shape, axis))


@pytest.mark.parametrize("dtype", [np.int16, np.float16, np.int64], ids=dtype_id)
def test_welch_dtypes(rng, dtype):
    """Integer and half inputs: the result dtypes SciPy gives (float32 for the small types).
    float16 data are not detrended here: both libraries would detrend in float16, where a
    one-ulp difference of the mean is 1e-3 of the data."""
    x = data(rng, (2, 400), dtype)
    detrend = False if dtype == np.float16 else "constant"
    f, want = sig.welch(x, nperseg=64, detrend=detrend)
    _, got = gsig.welch(gp.asarray(x), nperseg=64, detrend=detrend)
    win = sig.get_window("hann_periodic", 64)
    B = segment_norms(x.astype(np.float64), win, 64, 32, 64)
    check(got, want, expand(6 * C * eps_of(want.dtype) * np.log2(64) * psd_scale(win, 1.0, "density") * B ** 2,
                            want.shape, -1))


def test_periodogram_nfft_and_window(rng):
    x = data(rng, (3, 200), np.float64)
    for kw in [dict(nfft=256), dict(nfft=150), dict(nfft=200), dict(window="hann"), dict(window=None),
               dict(window=np.hamming(200)), dict(nfft=64, window="flattop", scaling="spectrum")]:
        f, want = sig.periodogram(x, **kw)
        gf, got = gsig.periodogram(gp.asarray(x), **{k: (gp.asarray(v) if isinstance(v, np.ndarray) else v)
                                                    for k, v in kw.items()})
        check_exact(gf, f)
        n = min(200, kw.get("nfft", 200))
        nfft = kw.get("nfft", 200)
        win = window_of("boxcar" if kw.get("window") is None else kw["window"], n)
        B = segment_norms(x[:, :n], win, n, 0, nfft)
        check(got, want, expand(6 * C * np.finfo(float).eps * np.log2(nfft) * psd_scale(win, 1.0, kw.get(
            "scaling", "density")) * B ** 2, want.shape, -1))
    with pytest.raises(ValueError, match="the size of the window must be the same size"):
        gsig.periodogram(gp.asarray(x), window=gp.ones(7))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex64], ids=dtype_id)
def test_csd_coherence(rng, dtype):
    for sx, sy, axis, kw in [((1000,), (1000,), -1, dict(nperseg=128)),
                             ((2, 600), (2, 500), -1, dict(nperseg=100, noverlap=30, nfft=128)),
                             ((2, 500), (1, 500), -1, dict(nperseg=100, noverlap=30)),
                             ((400, 3), (400, 1), 0, dict(nperseg=64, window="blackman", detrend="linear")),
                             ((700,), (3, 700), -1, dict(nperseg=50, average="median")),
                             ((500,), (500,), -1, dict(nperseg=64, return_onesided=False, scaling="spectrum"))]:
        x, y = data(rng, sx, dtype), data(rng, sy, dtype)
        f, want = sig.csd(x, y, axis=axis, **kw)
        gf, got = gsig.csd(gp.asarray(x), gp.asarray(y), axis=axis, **kw)
        check_exact(gf, f)
        nperseg, nfft = kw["nperseg"], kw.get("nfft", kw["nperseg"])
        noverlap = kw.get("noverlap", nperseg // 2)
        win = window_of(kw.get("window", "hann_periodic"), nperseg)
        n = max(sx[axis], sy[axis])
        pad = [(0, 0)] * len(sx)
        pad[axis] = (0, n - sx[axis])
        Bx = segment_norms(np.pad(x, pad), win, nperseg, noverlap, nfft, axis)
        pad[axis] = (0, n - sy[axis])
        By = segment_norms(np.pad(y, pad), win, nperseg, noverlap, nfft, axis)
        S = psd_scale(win, 1.0, kw.get("scaling", "density"))
        eps = eps_of(dtype)
        dPxy = expand(6 * C * eps * np.log2(nfft) * S * Bx * By, want.shape, axis)
        check(got, want, dPxy)
        if "average" in kw or "scaling" in kw or "return_onesided" in kw:
            continue
        ckw = {k: v for k, v in kw.items() if k != "return_onesided"}
        f, want = sig.coherence(x, y, axis=axis, **ckw)
        gf, got = gsig.coherence(gp.asarray(x), gp.asarray(y), axis=axis, **ckw)
        check_exact(gf, f)
        _, Pxx = sig.welch(x, axis=axis, **ckw)
        _, Pyy = sig.welch(y, axis=axis, **ckw)
        _, Pxy = sig.csd(x, y, axis=axis, **ckw)
        dPxx = expand(6 * C * eps * np.log2(nfft) * S * Bx ** 2, Pxx.shape, axis)
        dPyy = expand(6 * C * eps * np.log2(nfft) * S * By ** 2, Pyy.shape, axis)
        bound = 2 * np.abs(Pxy) * dPxy / (Pxx * Pyy) + want * (dPxx / Pxx + dPyy / Pyy)
        check(got, want, 2 * bound)


def test_welch_views_and_empty(rng):
    x = data(rng, (4, 900), np.float64)
    gx = gp.asarray(x)
    win = sig.get_window("hann_periodic", 64)
    for view in (lambda a: a[:, ::2], lambda a: a[::-1, ::-1], lambda a: a[1:, ::-3]):
        f, want = sig.welch(view(x), nperseg=64)
        _, got = gsig.welch(view(gx), nperseg=64)
        B = segment_norms(view(x), win, 64, 32, 64)
        check(got, want, expand(6 * C * np.finfo(float).eps * np.log2(64) * psd_scale(win, 1.0, "density") * B ** 2,
                                want.shape, -1))
    for shape in [(0,), (3, 0), (0, 5)]:
        f, want = sig.welch(np.zeros(shape))
        gf, got = gsig.welch(gp.zeros(shape))
        assert got.shape == want.shape and gf.shape == f.shape and got.dtype == want.dtype
        other = (1, 4) if len(shape) == 2 else (4,)
        f, want = sig.csd(np.zeros(shape), np.ones(other))
        gf, got = gsig.csd(gp.zeros(shape), gp.ones(other))
        assert got.shape == want.shape and got.dtype == want.dtype


def raises_like(call, expected_call):
    """`call` raises what `expected_call` (SciPy's) raises: same type and message."""
    with pytest.raises(Exception) as want:
        expected_call()
    with pytest.raises(type(want.value), match=re.escape(str(want.value))):
        call()


def test_csd_welch_errors_and_warnings(rng):
    x, y = data(rng, (300,), np.float64), data(rng, (2, 300), np.complex128)
    gx, gy = gp.asarray(x), gp.asarray(y)
    for kw in [dict(nperseg=0), dict(nperseg=64, nfft=32), dict(nperseg=64, noverlap=64), dict(scaling="foo"),
               dict(nperseg=64, average="foo"), dict(fs=-1.0), dict(detrend=True), dict(detrend="quadratic"),
               dict(window=np.ones((2, 3))), dict(window=np.array([1.0, np.nan, 1.0])),
               dict(window=np.ones(400)), dict(window=np.ones(700)), dict(window="hann", nperseg=32, noverlap=40)]:
        gkw = {k: (gp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        raises_like(lambda: gsig.welch(gx, **gkw), lambda: sig.welch(x, **kw))
    raises_like(lambda: gsig.csd(gx, gy), lambda: sig.csd(x, y))  # complex y, one-sided
    raises_like(lambda: gsig.csd(gp.ones((2, 50)), gp.ones((3, 50))),
                lambda: sig.csd(np.ones((2, 50)), np.ones((3, 50))))
    with pytest.warns(UserWarning, match=re.escape("nperseg=256 is greater than signal length max(len(x), "
                                                   "len(y)) = 100, using nperseg = 100")):
        gsig.welch(gp.asarray(x[:100]))
    # A complex x switches to two-sided spectra without a warning, as SciPy's csd does.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gf, got = gsig.welch(gp.asarray(y), nperseg=64)
    f, want = sig.welch(y, nperseg=64)
    assert got.shape == want.shape and got.dtype == want.dtype
    check_exact(gf, f)


# ---------------------------------------------------------------------------------------
# spectrogram, stft, istft

SPECTROGRAM_CASES = [
    dict(),
    dict(nperseg=100),
    dict(nperseg=128, noverlap=100, nfft=300),
    dict(window="hamming", nperseg=64, detrend="linear", scaling="spectrum"),
    dict(nperseg=64, return_onesided=False),
    dict(window=np.hanning(40), detrend=False),
    dict(nperseg=50, axis=0),
]


def _spectrogram_params(kw, n):
    window = kw.get("window", ("tukey_periodic", 0.25))
    nperseg = kw.get("nperseg", len(window) if isinstance(window, np.ndarray) else 256)
    nperseg = min(nperseg, n)
    return window_of(window, nperseg), nperseg, kw.get("noverlap", nperseg // 8), kw.get("nfft", nperseg)


@pytest.mark.parametrize("mode", ["psd", "complex", "magnitude", "angle", "phase"])
@pytest.mark.parametrize("case", range(len(SPECTROGRAM_CASES)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128], ids=dtype_id)
def test_spectrogram(rng, mode, case, dtype):
    kw = dict(SPECTROGRAM_CASES[case])
    axis = kw.pop("axis", -1)
    x = data(rng, (2, 700) if axis == -1 else (400, 2), dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex input: the one-sided switch warning
        f, t, want = sig.spectrogram(x, mode=mode, axis=axis, **kw)
        gf, gt, got = gsig.spectrogram(gp.asarray(x), mode=mode, axis=axis, **kw)
    check_exact(gf, f)
    check_exact(gt, t)
    win, nperseg, noverlap, nfft = _spectrogram_params(kw, x.shape[axis])
    S = psd_scale(win, 1.0, kw.get("scaling", "density"))
    B = segment_norms(x, win, nperseg, noverlap, nfft, axis)[..., None, None]
    if axis == 0:
        B = np.moveaxis(B, 0, 1)
    eps = eps_of(dtype)
    dZ = C * eps * np.log2(nfft) * np.sqrt(S) * B
    if mode == "psd":
        check(got, want, 6 * C * eps * np.log2(nfft) * S * B ** 2)
    elif mode in ("complex", "magnitude"):
        check(got, want, dZ)
    else:
        # Angles: only where |Z| is well above its error; compared modulo 2 pi.
        _, _, Z = _ignore_warnings(sig.spectrogram, x, mode="complex", axis=axis, **kw)
        g = got.get()
        assert g.dtype == want.dtype and g.shape == want.shape
        ok = np.abs(Z) > 100 * np.broadcast_to(dZ, Z.shape)
        assert ok.mean() > 0.3
        wrapped = np.angle(np.exp(1j * (g - want)))
        assert (np.abs(wrapped[ok]) <= 2 * (np.broadcast_to(dZ, Z.shape)[ok] / np.abs(Z[ok])) + 8 * eps).all()


def _ignore_warnings(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


@pytest.mark.parametrize("boundary", ["zeros", "even", "odd", "constant", None])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex64], ids=dtype_id)
def test_stft(rng, boundary, dtype):
    for shape, axis, kw in [((1000,), -1, dict(nperseg=128)), ((2, 333), -1, dict(nperseg=64, noverlap=48)),
                            ((300, 2), 0, dict(nperseg=50, window="hamming", detrend="constant")),
                            ((2, 3, 200), 1, dict(nperseg=32, nfft=50, scaling="psd"))]:
        x = data(rng, shape, dtype)
        for padded in (True, False):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                f, t, want = sig.stft(x, boundary=boundary, padded=padded, axis=axis, **kw)
                gf, gt, got = gsig.stft(gp.asarray(x), boundary=boundary, padded=padded, axis=axis, **kw)
            check_exact(gf, f)
            check_exact(gt, t)
            nperseg = kw["nperseg"]
            nfft = kw.get("nfft", nperseg)
            win = window_of(kw.get("window", "hann_periodic"), nperseg)
            # Every segment sample is a sample, a zero or an extension (|ext| <= 3 max|x|:
            # odd's 2 x0 - x), so ||X||_2 <= sqrt(nfft) ||w||_2 3 max|x|.
            B = np.sqrt(nfft) * np.linalg.norm(win) * 3 * np.abs(x).max()
            S = psd_scale(win, 1.0, "density" if kw.get("scaling") == "psd" else "spectrum")
            check(got, want, C * eps_of(want.dtype) * np.log2(nfft) * np.sqrt(S) * B)


def istft_bound(Z, nperseg, noverlap, nfft, win, scaling, onesided, boundary, eps):
    """The bound of the module docstring: each inverse transform's per-sample error (at
    most ``c eps log2 N`` times its segment's 2-norm) times the overlap count and max|w|,
    over the smallest window-squared sum divided by (or 1, where SciPy divides by 1)."""
    subs = (np.fft.irfft if onesided else np.fft.ifft)(Z, n=nfft, axis=-2)[..., :nperseg, :]
    subs = subs * (win.sum() if scaling == "spectrum" else np.sqrt((win ** 2).sum()))
    B = np.linalg.norm(subs, axis=-2).max()
    step = nperseg - noverlap
    norm = np.zeros(nperseg + (Z.shape[-1] - 1) * step)
    for i in range(Z.shape[-1]):
        norm[i * step:i * step + nperseg] += win ** 2
    if boundary:
        norm = norm[nperseg // 2:-(nperseg // 2)]
    floor = min(1.0, norm[norm > 1e-10].min())
    return C * eps * np.log2(nfft) * B * -(-nperseg // step) * np.abs(win).max() / floor


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=dtype_id)
def test_istft(rng, dtype):
    x = data(rng, (2, 500), dtype)
    for kw in [dict(), dict(nperseg=64), dict(nperseg=64, noverlap=48), dict(window="boxcar", nperseg=32, noverlap=0),
               dict(nperseg=30, noverlap=29), dict(nperseg=64, scaling="psd"), dict(nperseg=50, nfft=64)]:
        for onesided, boundary in [(True, True), (True, False), (False, True)]:
            _, _, Z = sig.stft(x, return_onesided=onesided, **kw)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # NOLA without the boundary
                t, want = sig.istft(Z, input_onesided=onesided, boundary=boundary, **kw)
                gt, got = gsig.istft(gp.asarray(Z), input_onesided=onesided, boundary=boundary, **kw)
            check_exact(gt, t)
            nperseg = kw.get("nperseg", 256)
            win = window_of(kw.get("window", "hann_periodic"), nperseg)
            check(got, want, istft_bound(Z, nperseg, kw.get("noverlap", nperseg // 2), kw.get("nfft", nperseg), win,
                                         kw.get("scaling", "spectrum"), onesided, boundary, eps_of(dtype)))


def test_istft_axes_and_errors(rng):
    x = data(rng, (3, 400), np.float64)
    _, _, Z = sig.stft(x, nperseg=64)
    Zt = np.moveaxis(Z, -1, 0)  # (segments, 3, frequencies)
    t, want = sig.istft(Zt, nperseg=64, time_axis=0, freq_axis=-1)
    gt, got = gsig.istft(gp.asarray(Zt), nperseg=64, time_axis=0, freq_axis=-1)
    check_exact(gt, t)
    win = sig.get_window("hann_periodic", 64)
    check(got, want, istft_bound(Z, 64, 32, 64, win, "spectrum", True, True, np.finfo(float).eps))
    for kw in [dict(nperseg=0), dict(nperseg=64, noverlap=64), dict(nperseg=64, nfft=32), dict(time_axis=1, freq_axis=1),
               dict(nperseg=64, window=np.ones(30)), dict(nperseg=64, window=np.ones((2, 32))),
               dict(nperseg=64, scaling="foo")]:
        gkw = {k: (gp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        raises_like(lambda: gsig.istft(gp.asarray(Z), **gkw), lambda: sig.istft(Z, **kw))
    raises_like(lambda: gsig.istft(gp.ones(5)), lambda: sig.istft(np.ones(5)))
    with pytest.warns(UserWarning, match="NOLA condition failed"):
        gsig.istft(gp.asarray(Z), nperseg=64, window="bartlett", boundary=False)


def test_spectrogram_stft_errors(rng):
    x = data(rng, (300,), np.float64)
    gx = gp.asarray(x)
    for f, gf, kw in [(sig.spectrogram, gsig.spectrogram, dict(mode="foo")),
                      (sig.spectrogram, gsig.spectrogram, dict(nperseg=0)),
                      (sig.spectrogram, gsig.spectrogram, dict(nperseg=64, nfft=32)),
                      (sig.spectrogram, gsig.spectrogram, dict(nperseg=64, noverlap=64)),
                      (sig.spectrogram, gsig.spectrogram, dict(scaling="foo")),
                      (sig.spectrogram, gsig.spectrogram, dict(window=np.ones(400))),
                      (sig.spectrogram, gsig.spectrogram, dict(window=np.ones(30), nperseg=20)),
                      (sig.stft, gsig.stft, dict(scaling="foo")),
                      (sig.stft, gsig.stft, dict(boundary="foo"))]:
        gkw = {k: (gp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        raises_like(lambda: gf(gx, **gkw), lambda: f(x, **kw))
    with pytest.warns(UserWarning, match=re.escape("nperseg = 256 is greater than input length  = 100")):
        gsig.spectrogram(gp.asarray(x[:100]))
    with pytest.warns(UserWarning, match="Input data is complex, switching to return_onesided=False"):
        gsig.spectrogram(gp.asarray(x + 1j))


# ---------------------------------------------------------------------------------------
# COLA and NOLA

def test_check_cola_nola():
    cases = [("hann", 256, 128), ("hann", 256, 100), (("tukey", 0.3), 100, 33), ("boxcar", 10, 0),
             (np.ones(8), 8, 3), ("hann_symmetric", 64, 32), ("bartlett", 51, 25), ("hamming", 64, 48),
             ("blackman", 120, 80), (np.r_[np.zeros(4), np.ones(4)], 8, 2)]
    for window, nperseg, noverlap in cases:
        gw = gp.asarray(window) if isinstance(window, np.ndarray) else window
        assert gsig.check_COLA(gw, nperseg, noverlap) == sig.check_COLA(window, nperseg, noverlap)
        assert gsig.check_NOLA(gw, nperseg, noverlap) == sig.check_NOLA(window, nperseg, noverlap)
    for f, gf in [(sig.check_COLA, gsig.check_COLA), (sig.check_NOLA, gsig.check_NOLA)]:
        for args in [("hann", 0, 0), ("hann", 16, 16), (np.ones((2, 8)), 8, 2), (np.ones(7), 8, 2)]:
            gargs = tuple(gp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
            raises_like(lambda: gf(*gargs), lambda: f(*args))
    raises_like(lambda: gsig.check_NOLA("hann", 16, -1), lambda: sig.check_NOLA("hann", 16, -1))
