"""``scipy.signal`` on gpupy arrays, under CuPy's ``cupyx.scipy.signal`` names.

    import gpupyx.scipy.signal as sig
    blurred = sig.convolve2d(image, kernel, mode="same", boundary="symm")
    f, Pxx = sig.welch(x, fs=1e3, nperseg=1024)
    peaks, props = sig.find_peaks(x, prominence=1.0, width=3)

SciPy's signatures, defaults, checks, messages and result dtypes. The module has

- convolutions: ``convolve2d``, ``correlate2d`` (every ``mode`` and ``boundary``,
  ``fillvalue``), ``convolve``, ``correlate`` (n-d, ``method`` auto/direct/fft),
  ``fftconvolve`` (``axes=``), ``choose_conv_method`` (``_signaltools.py``) and
  ``oaconvolve`` (overlap-add, ``_oaconvolve.py``);
- filters: ``medfilt``, ``medfilt2d``, ``order_filter`` (``_order_filters.py``),
  ``sepfir2d``, ``wiener`` (``_smoothing.py``), ``upfirdn`` (``_upfirdn.py``);
- resampling and the analytic signal: ``resample``, ``resample_poly``
  (``_resample.py``), ``hilbert``, ``hilbert2`` (``_hilbert.py``), ``detrend``
  (``_detrend.py``);
- spectral analysis: ``periodogram``, ``welch``, ``csd``, ``coherence``,
  ``spectrogram``, ``stft``, ``istft``, ``check_COLA``, ``check_NOLA``
  (``_spectral.py`` over the segment machinery of ``_spectral_helper.py``);
- peak finding: ``find_peaks``, ``peak_prominences``, ``peak_widths``, ``argrelmin``,
  ``argrelmax``, ``argrelextrema`` (``_peak_finding.py``, ``_peak_search.py``);
- recursive filters: ``lfilter``, ``lfiltic``, ``lfilter_zi``, ``sosfilt``,
  ``sosfilt_zi``, ``filtfilt``, ``sosfiltfilt`` (``_iir.py``, on the ``iir`` kernels);
- window functions: the ``windows`` subpackage (every SciPy window but ``dpss``) and
  ``get_window``.

Everything runs on the device except the inherently sequential ``distance``
condition of ``find_peaks`` (see ``_peak_finding.py``).
"""

from gpupyx.scipy.signal import windows
from gpupyx.scipy.signal._detrend import detrend
from gpupyx.scipy.signal._hilbert import hilbert, hilbert2
from gpupyx.scipy.signal._oaconvolve import oaconvolve
from gpupyx.scipy.signal._order_filters import medfilt, medfilt2d, order_filter
from gpupyx.scipy.signal._peak_finding import (
    argrelextrema,
    argrelmax,
    argrelmin,
    find_peaks,
    peak_prominences,
    peak_widths,
)
from gpupyx.scipy.signal._resample import resample, resample_poly
from gpupyx.scipy.signal._signaltools import (
    choose_conv_method,
    convolve,
    convolve2d,
    correlate,
    correlate2d,
    fftconvolve,
)
from gpupyx.scipy.signal._iir import (
    filtfilt,
    lfilter,
    lfilter_zi,
    lfiltic,
    sosfilt,
    sosfilt_zi,
    sosfiltfilt,
)
from gpupyx.scipy.signal._smoothing import sepfir2d, wiener
from gpupyx.scipy.signal._spectral import (
    check_COLA,
    check_NOLA,
    coherence,
    csd,
    istft,
    periodogram,
    spectrogram,
    stft,
    welch,
)
from gpupyx.scipy.signal._upfirdn import upfirdn
from gpupyx.scipy.signal.windows import get_window

__all__ = [
    "choose_conv_method", "convolve", "convolve2d", "correlate", "correlate2d", "fftconvolve",
    "oaconvolve", "medfilt", "medfilt2d", "order_filter", "sepfir2d", "wiener", "upfirdn",
    "resample", "resample_poly", "hilbert", "hilbert2", "detrend",
    "periodogram", "welch", "csd", "coherence", "spectrogram", "stft", "istft", "check_COLA",
    "check_NOLA",
    "find_peaks", "peak_prominences", "peak_widths", "argrelmin", "argrelmax", "argrelextrema",
    "windows", "get_window", "lfilter", "lfiltic", "lfilter_zi", "sosfilt", "sosfilt_zi", "filtfilt",
    "sosfiltfilt",
]
