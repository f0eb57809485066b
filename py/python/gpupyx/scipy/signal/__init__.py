"""``scipy.signal`` on gpupy arrays, under CuPy's ``cupyx.scipy.signal`` names.

    import gpupyx.scipy.signal as sig
    blurred = sig.convolve2d(image, kernel, mode="same", boundary="symm")

This first part of the module has the convolutions: ``convolve2d``, ``correlate2d``
(every ``mode`` and ``boundary``, ``fillvalue``), ``convolve`` and ``correlate`` (n-d,
``method`` auto/direct/fft), ``fftconvolve`` (``axes=``) and ``choose_conv_method``;
see ``_signaltools.py``; the order filters ``medfilt``, ``medfilt2d`` and
``order_filter`` (``_order_filters.py``); and the recursive filters ``lfilter``,
``lfiltic``, ``lfilter_zi``, ``sosfilt``, ``sosfilt_zi``, ``filtfilt`` and
``sosfiltfilt`` (``_iir.py``, on the ``iir`` kernels).
"""

from gpupyx.scipy.signal._signaltools import (
    choose_conv_method,
    convolve,
    convolve2d,
    correlate,
    correlate2d,
    fftconvolve,
)
from gpupyx.scipy.signal._order_filters import medfilt, medfilt2d, order_filter
from gpupyx.scipy.signal._iir import (
    filtfilt,
    lfilter,
    lfilter_zi,
    lfiltic,
    sosfilt,
    sosfilt_zi,
    sosfiltfilt,
)

__all__ = ["choose_conv_method", "convolve", "convolve2d", "correlate", "correlate2d", "fftconvolve",
           "medfilt", "medfilt2d", "order_filter", "lfilter", "lfiltic", "lfilter_zi", "sosfilt",
           "sosfilt_zi", "filtfilt", "sosfiltfilt"]
