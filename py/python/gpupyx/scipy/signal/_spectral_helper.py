"""The shared core of the spectral functions (``periodogram``, ``welch``, ``csd``,
``coherence``, ``spectrogram``, ``stft``): SciPy's ``_spectral_helper`` and
``_fft_helper`` on the GPU.

A signal's segments are one strided view of it (``sliding_frames``: no copy, no
Python loop over segments); detrending, the window and the FFT (``gpupyx.scipy.fft``)
then run over all segments at once. The dtypes follow SciPy's helper: the window is
cast to the output's precision, so float32 signals are transformed in single precision
(and in double where SciPy's zero padding widens them to float64: ``padded=True``, or
``x`` and ``y`` of different lengths). A one-sided power spectrum is formed as
``re^2 + im^2`` in a real array (SciPy's ``conj(X) X``, whose real part rounds the
same way); a real window multiplies real segments in real arithmetic (SciPy's complex
copy of the window has zero imaginary parts, so the products are the same).

``_spectral_helper`` keeps SciPy's argument checks and messages; ``csd`` (in
``_spectral.py``) has SciPy 1.18's own checks (it validates as its ``ShortTimeFFT``
does) and calls ``_segment_spectra`` directly.
"""

import warnings

import numpy

import gpupy as gp
from gpupyx.scipy import fft as sp_fft
from gpupyx.scipy.ndimage._util import as_device
from gpupyx.scipy.signal._arraytools import const_ext, even_ext, odd_ext, sliding_frames, zero_ext
from gpupyx.scipy.signal._detrend import detrend as _detrend
from gpupyx.scipy.signal.windows import get_window


def triage_segments(window, nperseg, input_length, stacklevel=4):
    """SciPy's ``_triage_segments``: the window (a gpupy array) and the segment length."""
    if isinstance(window, str) or isinstance(window, tuple):
        if nperseg is None:
            nperseg = 256
        if nperseg > input_length:
            warnings.warn(f"nperseg = {nperseg:d} is greater than input length  = {input_length:d}, "
                          f"using nperseg = {input_length:d}", stacklevel=stacklevel)
            nperseg = input_length
        win = get_window(window, nperseg)
    else:
        win = as_device(window)
        if len(win.shape) != 1:
            raise ValueError("window must be 1-D")
        if input_length < win.shape[-1]:
            raise ValueError("window is longer than input signal")
        if nperseg is None:
            nperseg = win.shape[0]
        elif nperseg != win.shape[0]:
            raise ValueError("value specified for nperseg is different from length of window")
    return win, nperseg


def detrend_function(detrend, axis):
    """SciPy's segment detrender for `detrend` (False, a type name or a callable). A
    callable gets a copy of the segments (``(..., segments, nperseg)``), never the view
    that shares the signal's memory."""
    if not detrend:
        return lambda d: d
    if not callable(detrend):
        return lambda d: _detrend(d, type=detrend, axis=-1)
    if axis != -1:
        def detrend_func(d):
            d = gp.moveaxis(d.copy(), -1, axis)
            d = detrend(d)
            return gp.moveaxis(d, axis, -1)
        return detrend_func
    return lambda d: detrend(d.copy())


def median_bias(n):
    """The bias of the median of `n` chi-squared(2) periodograms (SciPy's ``_median_bias``)."""
    ii_2 = 2 * numpy.arange(1.0, (n - 1) // 2 + 1)
    return 1 + numpy.sum(1.0 / (ii_2 + 1) - 1.0 / ii_2)


def _fft_helper(x, win, detrend_func, nperseg, noverlap, nfft, sides):
    """The FFTs of the windowed, detrended segments of the last axis of `x`:
    ``(..., segments, frequencies)``."""
    if nperseg == 1 and noverlap == 0:
        result = x[..., None]
    else:
        result = sliding_frames(x, nperseg, nperseg - noverlap)
    result = detrend_func(result)
    result = win * result
    if sides == "twosided":
        return sp_fft.fft(result, n=nfft)
    return sp_fft.rfft(gp.real(result), n=nfft)


def segment_spectra(x, y, win, nperseg, noverlap, nfft, detrend_func, sides, scaling, fs, mode,
                    outdtype):
    """Per-segment spectra of the last axis of `x` (and `y`, None for the same data),
    scaled (``'density'``/``'spectrum'``), the one-sided power spectra doubled:
    ``(..., segments, frequencies)``; complex for ``mode='stft'`` and cross spectra, real
    power spectra otherwise. `win` is cast to `outdtype`'s precision as SciPy casts it."""
    real_out = numpy.dtype(numpy.dtype(outdtype).char.lower())
    complex_win = win.dtype.kind == "c"
    if complex_win:
        win = win.astype(outdtype, copy=False)
        wsum, wsq = gp.sum(win), gp.sum(win * win)
    else:
        win = win.astype(real_out, copy=False)
        wsum, wsq = gp.sum(win), gp.sum(gp.square(win))
    if scaling == "density":
        scale = 1.0 / (fs * wsq)
    elif scaling == "spectrum":
        scale = 1.0 / gp.square(wsum)
    else:
        raise ValueError(f"Unknown scaling: {scaling!r}")
    if mode == "stft":
        scale = gp.sqrt(scale)
    result = _fft_helper(x, win, detrend_func, nperseg, noverlap, nfft, sides)
    if y is not None:
        result = gp.conj(result) * _fft_helper(y, win, detrend_func, nperseg, noverlap, nfft, sides)
    elif mode == "psd":
        if complex_win:
            result = gp.conj(result) * result
        else:
            result = gp.square(result.real) + gp.square(result.imag)
    if complex_win:
        result = result * scale
    else:
        result = result * scale.astype(numpy.dtype(result.dtype.char.lower()), copy=False)
    if sides == "onesided" and mode == "psd":
        last = None if nfft % 2 else -1
        result[..., 1:last] = result[..., 1:last] * 2
    return result


_BOUNDARY_FUNCS = {"even": even_ext, "odd": odd_ext, "constant": const_ext, "zeros": zero_ext, None: None}


def spectral_helper(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
                    detrend="constant", return_onesided=True, scaling="density", axis=-1,
                    mode="psd", boundary=None, padded=False):
    """SciPy's ``_spectral_helper``: frequencies, segment times and the per-segment
    spectra of `x` (cross spectra with `y`; ``y is x`` for one signal), the frequency
    axis at `axis` and the segments last."""
    if mode not in ["psd", "stft"]:
        raise ValueError(f"Unknown value for mode {mode}, must be one of: {{'psd', 'stft'}}")
    if boundary not in _BOUNDARY_FUNCS:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         f"{list(_BOUNDARY_FUNCS.keys())}")
    same_data = y is x
    if not same_data and mode != "psd":
        raise ValueError("x and y must be equal if mode is 'stft'")
    axis = int(axis)
    x = as_device(x)
    if not same_data:
        y = as_device(y)
        outdtype = numpy.result_type(x.dtype, y.dtype, numpy.complex64)
        xouter, youter = list(x.shape), list(y.shape)
        xouter.pop(axis)
        youter.pop(axis)
        try:
            outershape = numpy.broadcast_shapes(tuple(xouter), tuple(youter))
        except ValueError as e:
            raise ValueError("x and y cannot be broadcast together.") from e
    else:
        outdtype = numpy.result_type(x.dtype, numpy.complex64)
    if same_data:
        if x.size == 0:
            return gp.empty(x.shape), gp.empty(x.shape), gp.empty(x.shape)
    elif x.size == 0 or y.size == 0:
        outshape = outershape + (min([x.shape[axis], y.shape[axis]]),)
        emptyout = gp.moveaxis(gp.empty(outshape), -1, axis)
        return emptyout, emptyout, emptyout
    if x.ndim > 1 and axis != -1:
        x = gp.moveaxis(x, axis, -1)
        if not same_data and y.ndim > 1:
            y = gp.moveaxis(y, axis, -1)
    if not same_data and x.shape[-1] != y.shape[-1]:
        # SciPy pads with float64 zeros, which widens float32 data to float64.
        if x.shape[-1] < y.shape[-1]:
            x = gp.concatenate((x, gp.zeros(tuple(x.shape[:-1]) + (y.shape[-1] - x.shape[-1],))), -1)
        else:
            y = gp.concatenate((y, gp.zeros(tuple(y.shape[:-1]) + (x.shape[-1] - y.shape[-1],))), -1)
    if nperseg is not None:
        nperseg = int(nperseg)
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg = triage_segments(window, nperseg, input_length=x.shape[-1], stacklevel=4)
    if nfft is None:
        nfft = nperseg
    elif nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    else:
        nfft = int(nfft)
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    nstep = nperseg - noverlap
    if boundary is not None:
        ext_func = _BOUNDARY_FUNCS[boundary]
        x = ext_func(x, nperseg // 2, axis=-1)
        if not same_data:
            y = ext_func(y, nperseg // 2, axis=-1)
    if padded:
        # Zero-pad to fit an integer number of segments (float64 zeros, as SciPy's).
        nadd = (-(x.shape[-1] - nperseg) % nstep) % nperseg
        x = gp.concatenate((x, gp.zeros(tuple(x.shape[:-1]) + (nadd,))), axis=-1)
        if not same_data:
            y = gp.concatenate((y, gp.zeros(tuple(y.shape[:-1]) + (nadd,))), axis=-1)
    detrend_func = detrend_function(detrend, axis)
    if scaling not in ("density", "spectrum"):
        raise ValueError(f"Unknown scaling: {scaling!r}")
    if return_onesided:
        if x.dtype.kind == "c":
            sides = "twosided"
            warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=3)
        else:
            sides = "onesided"
            if not same_data and y.dtype.kind == "c":
                sides = "twosided"
                warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=3)
    else:
        sides = "twosided"
    if sides == "twosided":
        freqs = sp_fft.fftfreq(nfft, 1 / fs)
    else:
        freqs = sp_fft.rfftfreq(nfft, 1 / fs)
    result = segment_spectra(x, None if same_data else y, win, nperseg, noverlap, nfft, detrend_func,
                             sides, scaling, fs, mode, outdtype)
    # NumPy's arange (gpupy's is bit-identical) of the segment centres, in seconds.
    time = gp.arange(nperseg / 2, x.shape[-1] - nperseg / 2 + 1, nperseg - noverlap) / float(fs)
    if boundary is not None:
        time = time - nperseg / 2 / fs
    result = result.astype(outdtype if result.dtype.kind == "c" else numpy.dtype(outdtype).char.lower())
    if same_data and mode != "stft":
        result = gp.real(result)
    if axis < 0:
        axis -= 1
    return freqs, time, gp.moveaxis(result, -1, axis)


__all__ = ["triage_segments", "detrend_function", "median_bias", "segment_spectra", "spectral_helper"]
