"""gpupyx.scipy.signal.windows against scipy.signal.windows (on the CPU): every window
(symmetric and periodic, lengths 0, 1, 2, odd and even, small and long), result dtype
float64 and shape, ``get_window``'s name, tuple, float (Kaiser) and suffix forms, and
SciPy's errors and warnings.

Tolerances, per window, from how it is computed (gpupy follows SciPy's formula in
SciPy's operation order, one NumPy operation per kernel, so ``+ - * /``, ``sqrt`` and
``square`` round exactly as NumPy's; only the transcendental functions differ:
CUDA's libdevice against the host libm or NumPy's SIMD loops, each within 4 ulp):

- exact (bit for bit): ``boxcar``, ``triang``, ``bartlett`` (arithmetic only);
- absolute ``8 eps sum|terms|`` for sums of cosine terms (``general_cosine`` and its
  family ``blackman``, ``nuttall``, ``blackmanharris``, ``flattop``, ``hamming``,
  ``hann``, ``general_hamming``; ``tukey``, ``barthann``, ``bohman``, ``parzen``):
  each term's function value is within 4 ulp on either side, the arguments are
  identical, the sum of at most 5 terms rounds within 4 eps of its terms' magnitude;
- relative ``8 eps`` for one function of an identical argument (``cosine``: sin;
  ``gaussian``, ``exponential``: exp; ``lanczos``: sin over an exact division);
  ``general_gaussian``: ``pow`` then ``exp``, the exponent's relative error ``4 eps``
  scaled by the exponent ``v``: relative ``(8 + 4 v) eps``;
- ``kaiser``: a ratio of two Cephes ``I0`` values (the same Chebyshev recurrence,
  ``exp`` differing): relative ``16 eps``; ``kaiser_bessel_derived``: its cumulative
  sum is a scan on the GPU (a different order than NumPy's sequential one, each
  partial sum within ``M eps`` relative): relative ``(M + 16) eps``;
- ``chebwin``: the Chebyshev polynomial through cosh/arccosh (or cos/arccos), then an
  FFT: the FFT's error bound ``5 eps log2 M`` per library times ``sum|p|`` plus the
  polynomial's (within ``4 eps`` relative, and ``order^2 eps`` absolute where
  ``|x|`` is near 1, where arccos/arccosh are ill-conditioned), over the normalizing
  maximum ``max W``, whose own error moves every ``|w| <= 1`` as much again:
  ``32 eps ((log2 M + 1) sum|p| + M order^2) / max W``;
- ``taylor``: ``1 + 2 F.cos(...)`` (a matrix product of ``nbar - 1`` terms) normalized:
  absolute ``32 eps (1 + 2 sum|F|)``.
"""

import re

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.signal as gsig
import gpupyx.scipy.signal.windows as gwin

sw = pytest.importorskip("scipy.signal.windows")
sig = pytest.importorskip("scipy.signal")

pytestmark = pytest.mark.gpu

EPS = np.finfo(np.float64).eps
LENGTHS = [0, 1, 2, 3, 8, 17, 64, 257]


def _cosine_scale(a):
    return lambda M, want, sym=True: np.full(want.shape, sum(abs(c) for c in a))


def _relative(c):
    return lambda M, want, sym=True: c * np.abs(want) / 8


def _general_gaussian_scale(p, sigma):
    def scale(M, want, sym=True):
        # The exponent v = |n / sig|^(2p) of each sample (periodic windows: of M + 1 points).
        m = M if sym else M + 1
        n = np.arange(len(want)) - (m - 1.0) / 2.0
        v = np.abs(n / sigma) ** (2 * p)
        return (8 + 4 * v) * np.abs(want) / 8

    return scale


def _kbd_scale(M, want, sym=True):
    return (M + 16) * np.abs(want) / 8


def _chebwin_scale(at):
    def scale(M, want, sym=True):
        M = M if sym else M + 1
        if M < 2:
            return np.zeros(want.shape)
        order = M - 1.0
        beta = np.cosh(1.0 / order * np.arccosh(10 ** (abs(at) / 20.0)))
        x = beta * np.cos(np.pi * np.arange(M) / M)
        with np.errstate(invalid="ignore"):
            p = np.where(np.abs(x) > 1, np.cosh(order * np.arccosh(np.abs(x))),
                         np.cos(order * np.arccos(np.clip(x, -1, 1))))
        W = np.abs(np.fft.fft(p * np.exp(1j * np.pi / M * np.arange(M)) if M % 2 == 0 else p))
        return np.full(want.shape, 4 * ((np.log2(M) + 1) * np.abs(p).sum() + M * order ** 2) / W.max())

    return scale


def _taylor_scale(nbar, sll):
    def scale(M, want, sym=True):
        B = 10 ** (sll / 20)
        A = np.arccosh(B) / np.pi
        s2 = nbar ** 2 / (A ** 2 + (nbar - 0.5) ** 2)
        ma = np.arange(1, nbar)
        F = [np.prod(1 - m * m / s2 / (A ** 2 + (ma - 0.5) ** 2)) /
             (2 * np.prod([1 - m * m / k ** 2 for k in ma if k != m])) for m in ma]
        return np.full(want.shape, 4 * (1 + 2 * np.abs(F).sum()))

    return scale


# name -> (extra arguments, scale(M, want) for |got - want| <= 8 eps scale, or None: exact)
WINDOWS = {
    "boxcar": ((), None),
    "triang": ((), None),
    "bartlett": ((), None),
    "parzen": ((), _cosine_scale([1, 6, 6, 2])),
    "bohman": ((), _cosine_scale([1, 1 / np.pi])),
    "blackman": ((), _cosine_scale([0.42, 0.5, 0.08])),
    "nuttall": ((), _cosine_scale([0.3635819, 0.4891775, 0.1365995, 0.0106411])),
    "blackmanharris": ((), _cosine_scale([0.35875, 0.48829, 0.14128, 0.01168])),
    "flattop": ((), _cosine_scale([0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368])),
    "barthann": ((), _cosine_scale([0.62, 0.48, 0.38])),
    "hamming": ((), _cosine_scale([0.54, 0.46])),
    "hann": ((), _cosine_scale([0.5, 0.5])),
    "general_hamming": ((0.63,), _cosine_scale([0.63, 0.37])),
    "general_cosine": (([1.0, 1.942604, 1.340318, 0.440811, 0.043097],),
                       _cosine_scale([1.0, 1.942604, 1.340318, 0.440811, 0.043097])),
    "tukey": ((0.3,), _cosine_scale([1.0])),
    "cosine": ((), _relative(8)),
    "gaussian": ((7.3,), _relative(8)),
    "exponential": ((), _relative(8)),
    "lanczos": ((), _relative(8)),
    "general_gaussian": ((1.5, 7.0), _general_gaussian_scale(1.5, 7.0)),
    "kaiser": ((8.6,), _relative(16)),
    "kaiser_bessel_derived": ((5.0,), _kbd_scale),
    "chebwin": ((80,), _chebwin_scale(80)),
    "taylor": ((5, 35), _taylor_scale(5, 35)),
}


def assert_window(got, want, scale):
    assert isinstance(got, gp.ndarray)
    g = got.get()
    assert g.dtype == want.dtype == np.float64 and g.shape == want.shape, (g.dtype, g.shape, want.shape)
    if scale is None:
        np.testing.assert_array_equal(g, want)
        return
    bound = 8 * EPS * scale
    diff = np.abs(g - want)
    assert (diff <= bound).all(), f"worst {diff.max():.3e} at {diff.argmax()} (bound {bound.flat[diff.argmax()]:.3e})"


@pytest.mark.parametrize("sym", [True, False], ids=["sym", "periodic"])
@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_window(name, sym):
    args, scale = WINDOWS[name]
    for M in LENGTHS:
        if name == "kaiser_bessel_derived" and (not sym or M % 2):
            continue
        want = getattr(sw, name)(M, *args, sym=sym)
        got = getattr(gwin, name)(M, *args, sym=sym)
        assert_window(got, want, None if scale is None else scale(M, want, sym))


def test_window_parameters():
    """Windows whose shape depends on a parameter, over the parameter's range."""
    for alpha in [-0.5, 0.0, 0.01, 0.5, 0.99, 1.0, 2.0]:
        want = sw.tukey(51, alpha)
        assert_window(gwin.tukey(51, alpha), want, np.ones(51))
    for beta in [0.0, 1.0, 14.0, 40.0]:
        want = sw.kaiser(40, beta)
        assert_window(gwin.kaiser(40, beta), want, 2 * np.abs(want))
    for center, tau in [(None, 1.0), (3.0, 2.5), (0.0, 10.0)]:
        want = sw.exponential(33, center, tau, sym=center is None)
        assert_window(gwin.exponential(33, center, tau, sym=center is None), want, np.abs(want))
    for nbar, sll, norm in [(2, 20, True), (4, 30, False), (8, 60, True)]:
        want = sw.taylor(101, nbar, sll, norm)
        assert_window(gwin.taylor(101, nbar, sll, norm), want, _taylor_scale(nbar, sll)(101, want))
    for at in [45, 100, -60]:
        for M in [31, 32]:
            for sym in [True, False]:
                want = sw.chebwin(M, at, sym=sym)
                assert_window(gwin.chebwin(M, at, sym=sym), want, _chebwin_scale(at)(M, want, sym))


GET_WINDOW_FORMS = [
    "hann", "hann_periodic", "hann_symmetric", "hamming", "boxcar", "rect", "triang", "blackmanharris",
    "nuttall", "cosine", "lanczos", "sinc", "bartlett", "bohman", "flattop", "parzen", "barthann",
    ("tukey", 0.2), ("tukey_periodic",), ("exponential", None, 3.0), ("taylor", 5, 40), "taylor",
    ("kaiser", 3), ("kaiser_symmetric", 3), ("gaussian", 2.5), ("general_gaussian", 2, 3.0),
    ("general_hamming", 0.7), ("general_cosine", [1, 0.5]), ("chebwin", 60), ("kbd", 4.0), 8.6, 0,
]


@pytest.mark.parametrize("fftbins", [True, False])
def test_get_window(fftbins):
    for window in GET_WINDOW_FORMS:
        for n in [16, 17]:
            if window == ("kbd", 4.0) and (fftbins or n % 2):
                continue
            want = sig.get_window(window, n, fftbins=fftbins)
            if isinstance(window, tuple) and window[0] == "chebwin":
                scale = _chebwin_scale(window[1])(n, want, not fftbins)
            else:  # the loosest bound of the other windows above: 8 eps sum|terms| <= 64 eps
                scale = np.full(want.shape, 8.0)
            for got in (gsig.get_window(window, n, fftbins=fftbins), gwin.get_window(window, n, fftbins=fftbins)):
                assert_window(got, want, scale)


def raises_like(call, expected_call):
    """`call` raises what `expected_call` (SciPy's) raises: same type and message."""
    with pytest.raises(Exception) as want:
        expected_call()
    with pytest.raises(type(want.value), match=re.escape(str(want.value))):
        call()


def test_window_errors():
    for M in [-1, 2.5]:
        raises_like(lambda: gwin.hann(M), lambda: sw.hann(M))
        raises_like(lambda: gwin.kaiser(M, 3), lambda: sw.kaiser(M, 3))
    raises_like(lambda: gwin.kaiser_bessel_derived(8, 3, sym=False),
                lambda: sw.kaiser_bessel_derived(8, 3, sym=False))
    raises_like(lambda: gwin.kaiser_bessel_derived(7, 3), lambda: sw.kaiser_bessel_derived(7, 3))
    assert gwin.kaiser_bessel_derived(0, 3).shape == sw.kaiser_bessel_derived(0, 3).shape
    raises_like(lambda: gwin.exponential(8, 2.0), lambda: sw.exponential(8, 2.0))
    with pytest.warns(UserWarning, match="not suitable for spectral analysis"):
        gwin.chebwin(16, 30)


def test_get_window_errors():
    cases = [("hann", 0), ("hann", 2.0), ("hann", 8, 1), ([1, 2], 8), ((3,), 8), ("blah", 8),
             (("blah",), 8), (("hann", 3), 8), ("kaiser", 8), (("dpss", 3, 4), 8), (object(), 8)]
    for case in cases:
        window, n = case[:2]
        fftbins = case[2] if len(case) > 2 else True
        raises_like(lambda: gsig.get_window(window, n, fftbins=fftbins),
                    lambda: sig.get_window(window, n, fftbins=fftbins))
    # dpss has no device method in gpupy (SciPy solves a tridiagonal eigenproblem on the host).
    for window in [("dpss", 3), "dpss"]:
        with pytest.raises((NotImplementedError, ValueError)):
            gsig.get_window(window, 16)
    with pytest.raises(NotImplementedError, match="dpss"):
        gsig.get_window(("dpss", 3), 16)


def test_windows_namespace():
    """Every SciPy window but dpss, under its name."""
    names = set(sw.__all__) - {"dpss"}
    assert names <= set(gwin.__all__)
    for name in names:
        assert callable(getattr(gwin, name))
    assert gsig.windows is gwin
