"""``scipy.signal.windows`` on gpupy arrays, under CuPy's ``cupyx.scipy.signal.windows``
names: every window of SciPy's module except ``dpss``, and ``get_window``; see
``_windows.py``.

    import gpupyx.scipy.signal.windows as w
    taper = w.kaiser(256, beta=8.6)                # float64 gpupy array, as SciPy's
    periodic = w.get_window(("tukey", 0.25), 512)  # fftbins=True: periodic
"""

from gpupyx.scipy.signal.windows._windows import (
    barthann,
    bartlett,
    blackman,
    blackmanharris,
    bohman,
    boxcar,
    chebwin,
    cosine,
    exponential,
    flattop,
    gaussian,
    general_cosine,
    general_gaussian,
    general_hamming,
    get_window,
    hamming,
    hann,
    kaiser,
    kaiser_bessel_derived,
    lanczos,
    nuttall,
    parzen,
    taylor,
    triang,
    tukey,
)

__all__ = ["boxcar", "triang", "parzen", "bohman", "blackman", "nuttall", "blackmanharris",
           "flattop", "bartlett", "barthann", "hamming", "kaiser", "kaiser_bessel_derived",
           "gaussian", "general_cosine", "general_gaussian", "general_hamming", "chebwin",
           "cosine", "hann", "exponential", "tukey", "taylor", "get_window", "lanczos"]
