"""``scipy.signal.windows`` on the GPU: SciPy's window functions with its signatures,
checks and messages, computed on the device (``arange``/``linspace``, elementwise
math, ``i0``, FFTs, ``cumsum``) and returned as float64 gpupy arrays, as SciPy returns
float64.

Each window follows SciPy's formula in SciPy's operation order, one gpupy kernel per
NumPy operation, so the arithmetic operations (``+ - * /``, ``sqrt``, ``square``) round
exactly as NumPy's do; the values differ from SciPy's only through the transcendental
functions (``cos``, ``sin``, ``exp``, ``cosh``, ``arccosh``, ``power``: CUDA's
libdevice against the host's libm, each within a few ulp), through FFTs (``chebwin``)
and through the scan order of ``cumsum`` (``kaiser_bessel_derived``). Scalars of a
window's design (``chebwin``'s ``beta``, ``taylor``'s ``nbar - 1`` coefficients) are
computed on the host with NumPy, as SciPy computes them.

``sym=True`` gives the symmetric window (filter design), ``sym=False`` the periodic
one (spectral analysis: the symmetric window of ``M + 1`` points without its last).
SciPy's ``xp=``/``device=`` keywords are not taken: the windows are gpupy arrays on
the current device. ``dpss`` is not provided (see ``get_window``).
"""

import math
import numbers
import operator
import warnings

import numpy

import gpupy as gp
from gpupyx.scipy import fft as sp_fft

_F64 = numpy.float64


def _len_guards(M):
    """SciPy's check of a window length; True when the window is trivial (``M <= 1``)."""
    if int(M) != M or M < 0:
        raise ValueError("Window length M must be a non-negative integer")
    return M <= 1


def _extend(M, sym):
    """One more point for a periodic (DFT-even) window, cut again by ``_truncate``."""
    return (M + 1, True) if not sym else (M, False)


def _truncate(w, needed):
    return w[:-1] if needed else w


def _ones(M):
    return gp.ones(int(M), dtype=_F64)


def _pow(x, exponent):
    """``x ** exponent`` for a Python exponent, exact where the result is a correctly
    rounded square, root or copy (as NumPy's ``power`` gives it), libdevice's ``pow``
    otherwise."""
    if exponent == 2:
        return gp.square(x)
    if exponent == 1:
        return x
    if exponent == 0.5:
        return gp.sqrt(x)
    return gp.power(x, float(exponent))


def _general_cosine_impl(M, a, sym=True):
    """``sum_k a[k] cos(k t)`` over ``t = linspace(-pi, pi, M)``, summed in ``k`` order."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    fac = gp.linspace(-numpy.pi, numpy.pi, M, dtype=_F64)
    w = gp.zeros(M, dtype=_F64)
    for k in range(len(a)):
        w = w + a[k] * gp.cos(k * fac)
    return _truncate(w, needs_trunc)


def general_cosine(M, a, sym=True):
    """Generic weighted sum of cosine terms window (``scipy.signal.windows.general_cosine``);
    host coefficients enter the kernels as Python scalars, device ones as 0-d arrays."""
    a = a if isinstance(a, gp.ndarray) else numpy.asarray(a).tolist()
    return _general_cosine_impl(M, a, sym=sym)


def boxcar(M, sym=True):
    """Boxcar or rectangular window (``scipy.signal.windows.boxcar``)."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    return _truncate(_ones(M), needs_trunc)


def triang(M, sym=True):
    """Triangular window (``scipy.signal.windows.triang``)."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    n = gp.arange(1, (M + 1) // 2 + 1, dtype=_F64)
    if M % 2 == 0:
        w = (2 * n - 1.0) / M
        w = gp.concatenate([w, gp.flip(w)])
    else:
        w = 2 * n / (M + 1.0)
        w = gp.concatenate([w, gp.flip(w[:-1])])
    return _truncate(w, needs_trunc)


def parzen(M, sym=True):
    """Parzen window (``scipy.signal.windows.parzen``)."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    n = gp.arange(-(M - 1) / 2.0, (M - 1) / 2.0 + 0.5, 1.0, dtype=_F64)
    r = gp.abs(n) / (M / 2.0)
    w = gp.where(gp.abs(n) <= (M - 1) / 4.0,
                 1 - 6 * _pow(r, 2.0) + 6 * _pow(r, 3.0),
                 2 * _pow(1 - r, 3.0))
    return _truncate(w, needs_trunc)


def bohman(M, sym=True):
    """Bohman window (``scipy.signal.windows.bohman``)."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    fac = gp.abs(gp.linspace(-1, 1, M, dtype=_F64)[1:-1])
    w = (1 - fac) * gp.cos(numpy.pi * fac) + 1.0 / numpy.pi * gp.sin(numpy.pi * fac)
    zero = gp.zeros(1, dtype=_F64)
    return _truncate(gp.concatenate([zero, w, zero]), needs_trunc)


def blackman(M, sym=True):
    """Blackman window (``scipy.signal.windows.blackman``)."""
    return _general_cosine_impl(M, [0.42, 0.5, 0.08], sym=sym)


def nuttall(M, sym=True):
    """Minimum 4-term Blackman-Harris window after Nuttall (``scipy.signal.windows.nuttall``)."""
    return _general_cosine_impl(M, [0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym)


def blackmanharris(M, sym=True):
    """Minimum 4-term Blackman-Harris window (``scipy.signal.windows.blackmanharris``)."""
    return _general_cosine_impl(M, [0.35875, 0.48829, 0.14128, 0.01168], sym=sym)


def flattop(M, sym=True):
    """Flat top window (``scipy.signal.windows.flattop``)."""
    a = [0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368]
    return _general_cosine_impl(M, a, sym=sym)


def bartlett(M, sym=True):
    """Bartlett window (``scipy.signal.windows.bartlett``): zero at both ends."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    n = gp.arange(0, M, dtype=_F64)
    w = gp.where(n <= (M - 1) / 2.0, 2.0 * n / (M - 1), 2.0 - 2.0 * n / (M - 1))
    return _truncate(w, needs_trunc)


def hann(M, sym=True):
    """Hann window (``scipy.signal.windows.hann``)."""
    return general_hamming(M, 0.5, sym)


def tukey(M, alpha=0.5, sym=True):
    """Tukey (tapered cosine) window (``scipy.signal.windows.tukey``)."""
    if _len_guards(M):
        return _ones(M)
    if alpha <= 0:
        return _ones(M)
    if alpha >= 1.0:
        return hann(M, sym=sym)
    M, needs_trunc = _extend(M, sym)
    n = gp.arange(0, M, dtype=_F64)
    width = int(math.floor(alpha * (M - 1) / 2.0))
    n1 = n[0:width + 1]
    n2 = n[width + 1:M - width - 1]
    n3 = n[M - width - 1:]
    w1 = 0.5 * (1 + gp.cos(numpy.pi * (-1 + 2.0 * n1 / alpha / (M - 1))))
    w2 = gp.ones(n2.shape, dtype=_F64)
    w3 = 0.5 * (1 + gp.cos(numpy.pi * (-2.0 / alpha + 1 + 2.0 * n3 / alpha / (M - 1))))
    return _truncate(gp.concatenate([w1, w2, w3]), needs_trunc)


def barthann(M, sym=True):
    """Modified Bartlett-Hann window (``scipy.signal.windows.barthann``)."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    n = gp.arange(0, M, dtype=_F64)
    fac = gp.abs(n / (M - 1.0) - 0.5)
    w = 0.62 - 0.48 * fac + 0.38 * gp.cos(2 * numpy.pi * fac)
    return _truncate(w, needs_trunc)


def general_hamming(M, alpha, sym=True):
    """Generalized Hamming window (``scipy.signal.windows.general_hamming``)."""
    return _general_cosine_impl(M, [float(alpha), 1.0 - alpha], sym=sym)


def hamming(M, sym=True):
    """Hamming window (``scipy.signal.windows.hamming``)."""
    return general_hamming(M, 0.54, sym)


def kaiser(M, beta, sym=True):
    """Kaiser window (``scipy.signal.windows.kaiser``): ``I0(beta sqrt(1 - (2n/(M-1) - 1)^2))
    / I0(beta)`` with ``gpupy.i0`` (Cephes' expansions, as ``scipy.special.i0``)."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    n = gp.arange(0, M, dtype=_F64)
    alpha = (M - 1) / 2.0
    arg = beta * gp.sqrt(1 - _pow((n - alpha) / alpha, 2.0))
    w = gp.i0(arg) / gp.i0(gp.asarray(beta, dtype=_F64))
    return _truncate(w, needs_trunc)


def kaiser_bessel_derived(M, beta, *, sym=True):
    """Kaiser-Bessel derived window (``scipy.signal.windows.kaiser_bessel_derived``)."""
    if not sym:
        raise ValueError("Kaiser-Bessel Derived windows are only defined for symmetric shapes")
    elif M < 1:
        return gp.asarray(numpy.asarray([]))
    elif M % 2:
        raise ValueError("Kaiser-Bessel Derived windows are only defined for even number of points")
    kaiser_window = kaiser(M // 2 + 1, beta)
    csum = gp.cumsum(kaiser_window)
    half_window = gp.sqrt(csum[:-1] / csum[-1])
    return gp.concatenate([half_window, gp.flip(half_window)])


def gaussian(M, std, sym=True):
    """Gaussian window (``scipy.signal.windows.gaussian``)."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    n = gp.arange(0, M, dtype=_F64) - (M - 1.0) / 2.0
    sig2 = 2 * std * std
    w = gp.exp(-gp.square(n) / sig2)
    return _truncate(w, needs_trunc)


def general_gaussian(M, p, sig, sym=True):
    """Generalized Gaussian window (``scipy.signal.windows.general_gaussian``)."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    n = gp.arange(0, M, dtype=_F64) - (M - 1.0) / 2.0
    w = gp.exp(-0.5 * _pow(gp.abs(n / sig), 2 * p))
    return _truncate(w, needs_trunc)


def chebwin(M, at, sym=True):
    """Dolph-Chebyshev window (``scipy.signal.windows.chebwin``): the Chebyshev polynomial
    of order ``M - 1`` sampled on the unit circle, then an FFT (``gpupyx.scipy.fft``)."""
    if abs(at) < 45:
        warnings.warn("This window is not suitable for spectral analysis for attenuation values "
                      "lower than about 45dB because the equivalent noise bandwidth of a "
                      "Chebyshev window does not grow monotonically with increasing sidelobe "
                      "attenuation when the attenuation is smaller than about 45 dB.", stacklevel=2)
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    order = M - 1.0
    beta = float(numpy.cosh(1.0 / order * numpy.arccosh(numpy.asarray(10 ** (abs(at) / 20.0), _F64))))
    k = gp.arange(M, dtype=_F64)
    x = beta * gp.cos(numpy.pi * k / M)
    # T_order(x): through cosh/arccosh outside [-1, 1] (odd orders change sign below -1),
    # through cos/arccos inside; `where` keeps each branch where SciPy assigns it.
    outside = gp.cosh(order * gp.arccosh(gp.abs(x)))
    p = gp.where(x > 1, outside,
                 gp.where(x < -1, (2 * (M % 2) - 1) * outside, gp.cos(order * gp.arccos(x))))
    if M % 2:
        w = gp.real(sp_fft.fft(p))
        n = (M + 1) // 2
        w = w[:n]
        w = gp.concatenate([gp.flip(w[1:n]), w])
    else:
        p = p * gp.exp(1j * numpy.pi / M * gp.arange(M, dtype=_F64))
        w = gp.real(sp_fft.fft(p))
        n = M // 2 + 1
        w = gp.concatenate([gp.flip(w[1:n]), w[1:n]])
    w = w / gp.max(w)
    return _truncate(w, needs_trunc)


def cosine(M, sym=True):
    """Window with a simple cosine shape (``scipy.signal.windows.cosine``)."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    w = gp.sin(numpy.pi / M * (gp.arange(M, dtype=_F64) + 0.5))
    return _truncate(w, needs_trunc)


def exponential(M, center=None, tau=1.0, sym=True):
    """Exponential (Poisson) window (``scipy.signal.windows.exponential``)."""
    if sym and center is not None:
        raise ValueError("If sym==True, center must be None.")
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    if center is None:
        center = (M - 1) / 2
    n = gp.arange(0, M, dtype=_F64)
    w = gp.exp(-gp.abs(n - center) / tau)
    return _truncate(w, needs_trunc)


def _taylor_coefficients(nbar, sll):
    """Taylor's ``F_m``, ``m = 1 .. nbar - 1``, on the host as SciPy computes them."""
    B = numpy.asarray(10 ** (sll / 20))
    A = numpy.arccosh(B) / numpy.pi
    s2 = nbar ** 2 / (A ** 2 + (nbar - 0.5) ** 2)
    ma = numpy.arange(1, nbar, dtype=_F64)
    Fm = numpy.empty(nbar - 1, dtype=_F64)
    signs = numpy.empty_like(ma)
    signs[::2] = 1
    signs[1::2] = -1
    m2 = ma * ma
    for mi in range(len(ma)):
        numer = signs[mi] * numpy.prod(1 - m2[mi] / s2 / (A ** 2 + (ma - 0.5) ** 2))
        denom = 2 * numpy.prod(1 - m2[mi] / m2[:mi]) * numpy.prod(1 - m2[mi] / m2[mi + 1:])
        Fm[mi] = numer / denom
    return Fm


def taylor(M, nbar=4, sll=30, norm=True, sym=True):
    """Taylor window (``scipy.signal.windows.taylor``): ``1 + 2 sum_m F_m cos(2 pi m (n -
    M/2 + 1/2) / M)`` as one matrix product on the device (``F_m`` from the host)."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)
    Fm = gp.asarray(_taylor_coefficients(nbar, sll))
    ma = gp.arange(1, nbar, dtype=_F64)

    def W(n):
        return 1 + 2 * gp.matmul(Fm, gp.cos(2 * numpy.pi * ma[:, None] * (n - M / 2.0 + 0.5) / M))

    w = W(gp.arange(M, dtype=_F64))
    if norm:
        w = w * (1.0 / W((M - 1) / 2))
    return _truncate(w, needs_trunc)


def lanczos(M, *, sym=True):
    """Lanczos (sinc) window (``scipy.signal.windows.lanczos``)."""
    if _len_guards(M):
        return _ones(M)
    M, needs_trunc = _extend(M, sym)

    def right_side(n, m):
        return gp.sinc(2.0 * gp.arange(n, m, dtype=_F64) / (m - 1) - 1.0)

    if M % 2 == 0:
        wh = right_side(M / 2, M)
        w = gp.concatenate([gp.flip(wh), wh])
    else:
        wh = right_side((M + 1) / 2, M)
        w = gp.concatenate([gp.flip(wh), gp.ones(1, dtype=_F64), wh])
    return _truncate(w, needs_trunc)


def _dpss(*args, **kwargs):
    raise NotImplementedError(
        "gpupyx.scipy.signal.windows has no dpss: SciPy computes it from a symmetric "
        "tridiagonal eigenproblem (LAPACK's stebz/stein), which gpupy has no device "
        "method for; use scipy.signal.windows.dpss on the host")


# SciPy's table of window names: (function, whether it takes parameters).
_WIN_FUNC_DATA = {
    ("barthann", "brthan", "bth"): (barthann, False),
    ("bartlett", "bart", "brt"): (bartlett, False),
    ("blackman", "black", "blk"): (blackman, False),
    ("blackmanharris", "blackharr", "bkh"): (blackmanharris, False),
    ("bohman", "bman", "bmn"): (bohman, False),
    ("boxcar", "box", "ones", "rect", "rectangular"): (boxcar, False),
    ("chebwin", "cheb"): (chebwin, True),
    ("cosine", "halfcosine"): (cosine, False),
    ("dpss",): (_dpss, True),
    ("exponential", "poisson"): (exponential, "OPTIONAL"),
    ("flattop", "flat", "flt"): (flattop, False),
    ("gaussian", "gauss", "gss"): (gaussian, True),
    ("general cosine", "general_cosine"): (general_cosine, True),
    ("general gaussian", "general_gaussian", "general gauss", "general_gauss", "ggs"): (general_gaussian, True),
    ("general hamming", "general_hamming"): (general_hamming, True),
    ("hamming", "hamm", "ham"): (hamming, False),
    ("hann", "han"): (hann, False),
    ("kaiser", "ksr"): (kaiser, True),
    ("kaiser bessel derived", "kaiser_bessel_derived", "kbd"): (kaiser_bessel_derived, True),
    ("lanczos", "sinc"): (lanczos, False),
    ("nuttall", "nutl", "nut"): (nuttall, False),
    ("parzen", "parz", "par"): (parzen, False),
    ("taylor", "taylorwin"): (taylor, "OPTIONAL"),
    ("triangle", "triang", "tri"): (triang, False),
    ("tukey", "tuk"): (tukey, "OPTIONAL"),
}
_WIN_FUNCS = {name: value for names, value in _WIN_FUNC_DATA.items() for name in names}


def get_window(window, Nx, fftbins=True):
    """A window of length `Nx` by name, ``(name, *parameters)`` tuple or Kaiser ``beta``
    (``scipy.signal.get_window``): periodic by default (``fftbins=True``), symmetric
    with ``fftbins=False``; a ``_symmetric`` or ``_periodic`` suffix on the name
    overrides `fftbins`. ``'dpss'`` raises NotImplementedError."""
    if not (Nx > 0 and isinstance(Nx, numbers.Integral)):
        raise ValueError(f"Parameter Nx={Nx!r} is not a positive integer")
    if not isinstance(fftbins, bool):
        raise ValueError(f"Parameter fftbins={fftbins!r} is not of type bool!")
    if not isinstance(window, str | tuple):
        try:
            beta = float(window)
        except Exception as float_exception:
            raise ValueError(f"Parameter window={window!r} must be a tuple, a string or a float!") \
                from float_exception
        return kaiser(Nx, beta, not fftbins)
    if isinstance(window, tuple) and not isinstance(window[0], str):
        raise ValueError(f"First tuple entry of parameter window={window!r} is not a str!")
    sym = not fftbins
    win_name = window if isinstance(window, str) else window[0]
    if win_name.endswith("_symmetric"):
        sym, win_name = True, win_name[:-10]
    elif win_name.endswith("_periodic"):
        sym, win_name = False, win_name[:-9]
    if win_name not in _WIN_FUNCS:
        raise ValueError(f"Invalid window name '{win_name}' in parameter window={window!r}!")
    func, has_args = _WIN_FUNCS[win_name]
    args = window[1:] if isinstance(window, tuple) else ()
    if len(args) > 0 and has_args is False:
        raise ValueError(f"'{win_name}' does not allow parameters, but window={window!r}!")
    if len(args) == 0 and has_args is True:
        raise ValueError(f"'{win_name}' must have parameters, but window={window!r}!")
    if func is _dpss and len(args) != 1:
        raise ValueError(f"Window {win_name} must have one parameter but window={window!r}")
    return func(operator.index(Nx), *args, sym=sym)


__all__ = ["boxcar", "triang", "parzen", "bohman", "blackman", "nuttall", "blackmanharris",
           "flattop", "bartlett", "barthann", "hamming", "kaiser", "kaiser_bessel_derived",
           "gaussian", "general_cosine", "general_gaussian", "general_hamming", "chebwin",
           "cosine", "hann", "exponential", "tukey", "taylor", "get_window", "lanczos"]
