"""SciPy's spectral analysis on gpupy arrays: ``periodogram``, ``welch``, ``csd``,
``coherence``, ``spectrogram`` (every ``mode``), ``stft``, ``istft``, ``check_COLA``
and ``check_NOLA``, with SciPy 1.18's signatures, defaults (``'hann_periodic'``
windows, ``('tukey_periodic', 0.25)`` for ``spectrogram``), checks, messages, warnings
and result dtypes. Frequencies and times are gpupy arrays too.

``csd`` (and ``welch``, ``periodogram``, ``coherence`` through it) checks its
arguments as SciPy 1.18's ``csd`` and its ``ShortTimeFFT`` do, then computes with the
shared segment machinery of ``_spectral_helper.py``, in the data's own precision
(SciPy's ``ShortTimeFFT`` always computes in float64; the results keep SciPy's dtypes).
A callable ``detrend`` gets all segments at once, ``(..., segments, nperseg)``, as
``spectrogram``'s and ``stft``'s detrenders do under SciPy (SciPy's ``csd`` calls it
once per segment). ``istft`` overlaps and adds the segments with one shifted sum per
``ceil(nperseg / hop)`` part of a segment (not a loop over segments), adding each
output sample's terms in SciPy's order.
"""

import warnings

import numpy

import gpupy as gp
from gpupyx.scipy import fft as sp_fft
from gpupyx.scipy.ndimage._util import as_device
from gpupyx.scipy.signal._detrend import detrend as _detrend
from gpupyx.scipy.signal._spectral_helper import (
    detrend_function,
    median_bias,
    segment_spectra,
    spectral_helper,
    triage_segments,
)
from gpupyx.scipy.signal.windows import get_window


# ---------------------------------------------------------------------------------------
# csd and the functions built on it (SciPy 1.18 computes these with ShortTimeFFT)

def _segment_range_error(win, hop, n, p1):
    """The ValueError of ``ShortTimeFFT.p_range`` for a signal of `n` samples too short for
    one segment (SciPy's message, with the window's padding bounds)."""
    w2 = numpy.abs(gp.asnumpy(win)) ** 2
    m, mid = len(w2), len(w2) // 2
    p_min = 0
    for p_, n_ in enumerate(range(-mid, -mid - m - 1, -hop)):
        n_next = n_ - hop
        if n_next + m <= 0 or numpy.all(w2[n_next:] == 0):
            p_min = -p_
            break
    p_max = None
    q1 = n // hop
    for q_, k_ in enumerate(range(q1 * hop - mid, n + m, hop), start=q1):
        n_next = k_ + hop
        if n_next >= n or numpy.all(w2[:n - n_next] == 0):
            p_max = q_ + 1
            break
    return ValueError(f"Invalid Parameter p0=0, p1={p1}, i.e., self.p_min={p_min} <= p0 < p1 <= "
                      f"p_max={p_max} does not hold for signal length n={n}!")


def csd(x, y, fs=1.0, window="hann_periodic", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean"):
    """The cross power spectral density of `x` and `y` by Welch's method
    (``scipy.signal.csd``): frequencies and ``Pxy``."""
    same_data, axis = y is x, int(axis)
    x = as_device(x)
    if not same_data:
        y = as_device(y)
        x_outer, y_outer = list(x.shape), list(y.shape)
        x_outer.pop(axis)
        y_outer.pop(axis)
        try:
            outer_shape = numpy.broadcast_shapes(tuple(x_outer), tuple(y_outer))
        except ValueError as e:
            raise ValueError("x and y cannot be broadcast together.") from e
        if x.size == 0 or y.size == 0:
            out_shape = outer_shape + (min([x.shape[axis], y.shape[axis]]),)
            empty_out = gp.moveaxis(gp.empty(out_shape), -1, axis)
            return empty_out, empty_out
        out_dtype = numpy.result_type(x.dtype, y.dtype, numpy.complex64)
    else:
        if x.size == 0:
            return gp.empty(x.shape), gp.empty(x.shape)
        out_dtype = numpy.result_type(x.dtype, numpy.complex64)
    n = x.shape[axis] if same_data else max(x.shape[axis], y.shape[axis])
    if isinstance(window, str) or isinstance(window, tuple):
        nperseg = int(nperseg) if nperseg is not None else 256
        if nperseg < 1:
            raise ValueError(f"Parameter nperseg={nperseg!r} is not a positive integer!")
        elif n < nperseg:
            warnings.warn(f"nperseg={nperseg!r} is greater than signal length max(len(x), "
                          f"len(y)) = {n}, using nperseg = {n}", stacklevel=3)
            nperseg = n
        win = get_window(window, nperseg)
    else:
        win = as_device(window)
        if nperseg is None:
            nperseg = len(win)
    if nperseg != len(win):
        raise ValueError(f"nperseg={nperseg!r} does not equal len(win)={len(win)!r}")
    nfft = int(nfft) if nfft is not None else nperseg
    if nfft < nperseg:
        raise ValueError(f"nfft={nfft!r} must be greater than or equal to nperseg={nperseg!r}!")
    noverlap = int(noverlap) if noverlap is not None else nperseg // 2
    if noverlap >= nperseg:
        raise ValueError(f"noverlap={noverlap!r} must be less than nperseg={nperseg!r}!")
    if x.dtype.kind == "c" and return_onesided:
        return_onesided = False
    if not same_data and x.shape[axis] != y.shape[axis]:
        # SciPy pads the shorter signal with float64 zeros.
        if x.shape[axis] < y.shape[axis]:
            z_shape = list(y.shape)
            z_shape[axis] = y.shape[axis] - x.shape[axis]
            x = gp.concatenate((x, gp.zeros(tuple(z_shape))), axis=axis)
        else:
            z_shape = list(x.shape)
            z_shape[axis] = x.shape[axis] - y.shape[axis]
            y = gp.concatenate((y, gp.zeros(tuple(z_shape))), axis=axis)
    sides = "onesided" if return_onesided else "twosided"
    scales = {"spectrum": "magnitude", "density": "psd"}
    if scaling not in scales:
        raise ValueError(f"Parameter scaling={scaling!r} not in {scales}!")
    # ShortTimeFFT's checks of its window, sampling rate and mode.
    if not (win.ndim == 1 and win.size > 0):
        raise ValueError(f"Parameter win must be 1d, but win.shape={tuple(win.shape)!r}!")
    if not bool(gp.all(gp.isfinite(win))):
        raise ValueError("Parameter win must have finite entries!")
    if not fs > 0:
        raise ValueError(f"Sampling frequency fs={fs} must be positive!")
    if sides == "onesided" and win.dtype.kind == "c":
        raise ValueError("One-sided spectra, i.e., fft_mode='onesided', are not allowed for "
                         "complex-valued windows!")
    detr = None if detrend is False else detrend
    hop = nperseg - noverlap
    for signal in ((x,) if same_data else (y, x)):
        if sides == "onesided" and signal.dtype.kind == "c":
            raise ValueError("Complex-valued `x` not allowed for self.fft_mode='onesided''! Set "
                             "property `fft_mode` to 'twosided' or 'centered'.")
        if not (detr is None or isinstance(detr, str) or callable(detr)):
            raise ValueError(f"Parameter detr={detr!r} is not a str, function or None!")
        m2p = nperseg - nperseg // 2
        if not n >= m2p:
            e_str = f"len(x)={n!r}" if signal.ndim == 1 else f"of axis={axis!r} of {tuple(signal.shape)}"
            raise ValueError(f"{e_str} must be >= ceil(m_num/2) = {m2p}!")
        p1 = (n - noverlap) // hop
        if p1 <= 0:
            raise _segment_range_error(win, hop, n, p1)
    freqs = sp_fft.rfftfreq(nfft, 1 / fs) if return_onesided else sp_fft.fftfreq(nfft, 1 / fs)
    if x.ndim > 1:
        x = gp.moveaxis(x, axis, -1)
    if not same_data and y.ndim > 1:
        y = gp.moveaxis(y, axis, -1)
    if detr is None:
        detrend_func = detrend_function(False, -1)
    elif isinstance(detr, str):
        detrend_func = lambda d: _detrend(d, type=detr, axis=-1)  # noqa: E731
    else:
        detrend_func = detrend_function(detr, -1)
    Pxy = segment_spectra(x, None if same_data else y, win, nperseg, noverlap, nfft, detrend_func,
                          sides, scaling, fs, "psd", out_dtype)
    # (..., segments, frequencies) -> the frequencies at `axis`, the segments last.
    Pxy = gp.moveaxis(Pxy, -1, axis - 1 if axis < 0 else axis)
    if Pxy.shape[-1] > 1:
        if average == "median":
            bias = median_bias(Pxy.shape[-1])
            if Pxy.dtype.kind == "c":
                Pxy = gp.median(gp.real(Pxy), axis=-1) + gp.median(gp.imag(Pxy), axis=-1) * 1j
            else:
                Pxy = gp.median(Pxy, axis=-1)
            Pxy = Pxy / float(bias)
        elif average == "mean":
            Pxy = gp.mean(Pxy, axis=-1)
        else:
            raise ValueError(f"Parameter average={average!r} must be 'median' or 'mean'!")
    else:
        Pxy = Pxy.reshape(tuple(Pxy.shape[:-1]))
    real_out = numpy.dtype(out_dtype.char.lower())
    Pxy = Pxy.astype(out_dtype if Pxy.dtype.kind == "c" else real_out, copy=False)
    if same_data:
        Pxy = gp.real(Pxy)
    return freqs, Pxy


def welch(x, fs=1.0, window="hann_periodic", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean"):
    """The power spectral density of `x` by Welch's method (``scipy.signal.welch``)."""
    freqs, Pxx = csd(x, x, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                     detrend=detrend, return_onesided=return_onesided, scaling=scaling, axis=axis,
                     average=average)
    return freqs, gp.real(Pxx)


def periodogram(x, fs=1.0, window="boxcar", nfft=None, detrend="constant", return_onesided=True,
                scaling="density", axis=-1):
    """The power spectral density of `x` from one segment (``scipy.signal.periodogram``)."""
    x = as_device(x)
    if x.size == 0:
        return gp.empty(x.shape), gp.empty(x.shape)
    if window is None:
        window = "boxcar"
    if nfft is None:
        nperseg = x.shape[axis]
    elif nfft == x.shape[axis]:
        nperseg = nfft
    elif nfft > x.shape[axis]:
        nperseg = x.shape[axis]
    elif nfft < x.shape[axis]:
        s = [slice(None)] * len(x.shape)
        s[axis] = slice(None, nfft)
        x = x[tuple(s)]
        nperseg = nfft
        nfft = None
    if hasattr(window, "size"):
        if window.size != nperseg:
            raise ValueError("the size of the window must be the same size of the input on the "
                             "specified axis")
    return welch(x, fs=fs, window=window, nperseg=nperseg, noverlap=0, nfft=nfft, detrend=detrend,
                 return_onesided=return_onesided, scaling=scaling, axis=axis)


def coherence(x, y, fs=1.0, window="hann_periodic", nperseg=None, noverlap=None, nfft=None,
              detrend="constant", axis=-1):
    """The magnitude squared coherence of `x` and `y` by Welch's method
    (``scipy.signal.coherence``)."""
    freqs, Pxx = welch(x, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                       detrend=detrend, axis=axis)
    _, Pyy = welch(y, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                   detrend=detrend, axis=axis)
    _, Pxy = csd(x, y, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                 detrend=detrend, axis=axis)
    return freqs, gp.square(gp.abs(Pxy)) / Pxx / Pyy


# ---------------------------------------------------------------------------------------
# spectrogram, stft, istft (SciPy's _spectral_helper)

def spectrogram(x, fs=1.0, window=("tukey_periodic", 0.25), nperseg=None, noverlap=None, nfft=None,
                detrend="constant", return_onesided=True, scaling="density", axis=-1, mode="psd"):
    """A spectrogram of `x` from consecutive Fourier transforms (``scipy.signal.spectrogram``):
    frequencies, segment times and ``Sxx`` (``mode``: psd, complex, magnitude, angle,
    phase)."""
    modelist = ["psd", "complex", "magnitude", "angle", "phase"]
    if mode not in modelist:
        raise ValueError(f"unknown value for mode {mode}, must be one of {modelist}")
    x = as_device(x)
    window, nperseg = triage_segments(window, nperseg, input_length=x.shape[axis], stacklevel=3)
    if noverlap is None:
        noverlap = nperseg // 8
    if mode == "psd":
        freqs, time, Sxx = spectral_helper(x, x, fs, window, nperseg, noverlap, nfft, detrend,
                                           return_onesided, scaling, axis, mode="psd")
    else:
        freqs, time, Sxx = spectral_helper(x, x, fs, window, nperseg, noverlap, nfft, detrend,
                                           return_onesided, scaling, axis, mode="stft")
        if mode == "magnitude":
            Sxx = gp.abs(Sxx)
        elif mode in ["angle", "phase"]:
            Sxx = gp.angle(Sxx)
            if mode == "phase":
                if axis < 0:
                    axis -= 1
                Sxx = gp.unwrap(Sxx, axis=axis)
    return freqs, time, Sxx


def stft(x, fs=1.0, window="hann_periodic", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1, scaling="spectrum"):
    """The short-time Fourier transform of `x` (``scipy.signal.stft``): frequencies,
    segment times and ``Zxx``."""
    if scaling == "psd":
        scaling = "density"
    elif scaling != "spectrum":
        raise ValueError(f"Parameter scaling={scaling!r} not in ['spectrum', 'psd']!")
    x = as_device(x)
    return spectral_helper(x, x, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                           scaling=scaling, axis=axis, mode="stft", boundary=boundary,
                           padded=padded)


def _overlap_add(frames, nstep, length):
    """``out[k nstep + j] += frames[..., k, j]`` over the frames ``(..., count, nperseg)``,
    cut to `length`: each frame split into ``ceil(nperseg / nstep)`` parts of `nstep`,
    part ``r`` of every frame added at once, ``r`` from the last part to the first, so
    each output sample sums its terms from the earliest frame on, as SciPy's loop."""
    count, nperseg = frames.shape[-2], frames.shape[-1]
    parts = -(-nperseg // nstep)
    batch = tuple(frames.shape[:-2])
    if parts * nstep != nperseg:
        pad = gp.zeros(batch + (count, parts * nstep - nperseg), dtype=frames.dtype)
        frames = gp.concatenate((frames, pad), axis=-1)
    frames = frames.reshape(batch + (count, parts, nstep))
    out = gp.zeros(batch + (count + parts - 1, nstep), dtype=frames.dtype)
    for r in reversed(range(parts)):
        out[..., r:r + count, :] = out[..., r:r + count, :] + frames[..., r, :]
    return out.reshape(batch + ((count + parts - 1) * nstep,))[..., :length]


def istft(Zxx, fs=1.0, window="hann_periodic", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2, scaling="spectrum"):
    """The inverse short-time Fourier transform (``scipy.signal.istft``): times and the
    signal."""
    Zxx = as_device(Zxx) + 0j
    freq_axis = int(freq_axis)
    time_axis = int(time_axis)
    if Zxx.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    nseg = Zxx.shape[time_axis]
    n_default = 2 * (Zxx.shape[freq_axis] - 1) if input_onesided else Zxx.shape[freq_axis]
    if nperseg is None:
        nperseg = n_default
    else:
        nperseg = int(nperseg)
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft = nperseg if (input_onesided and nperseg == n_default + 1) else n_default
    elif nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    else:
        nfft = int(nfft)
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    nstep = nperseg - noverlap
    if time_axis != Zxx.ndim - 1 or freq_axis != Zxx.ndim - 2:
        if freq_axis < 0:
            freq_axis = Zxx.ndim + freq_axis
        if time_axis < 0:
            time_axis = Zxx.ndim + time_axis
        zouter = list(range(Zxx.ndim))
        for ax in sorted([time_axis, freq_axis], reverse=True):
            zouter.pop(ax)
        Zxx = gp.transpose(Zxx, zouter + [freq_axis, time_axis])
    if isinstance(window, str) or type(window) is tuple:
        win = get_window(window, nperseg)
    else:
        win = as_device(window)
        if len(win.shape) != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg:
            raise ValueError(f"window must have length of {nperseg}")
    ifunc = sp_fft.irfft if input_onesided else sp_fft.ifft
    xsubs = ifunc(Zxx, axis=-2, n=nfft)[..., :nperseg, :]
    outputlength = nperseg + (nseg - 1) * nstep
    if numpy.result_type(win.dtype, xsubs.dtype) != xsubs.dtype:
        win = win.astype(xsubs.dtype)
    if scaling == "spectrum":
        xsubs = xsubs * gp.sum(win)
    elif scaling == "psd":
        xsubs = xsubs * gp.sqrt(fs * gp.sum(gp.square(win)))
    else:
        raise ValueError(f"Parameter scaling={scaling!r} not in ['spectrum', 'psd']!")
    # (..., nperseg, segments) -> (..., segments, nperseg), each segment windowed.
    frames = gp.moveaxis(xsubs, -1, -2) * win
    x = _overlap_add(frames, nstep, outputlength)
    w2 = gp.square(win)
    norm = _overlap_add(gp.broadcast_to(w2.real if w2.dtype.kind == "c" else w2, (nseg, nperseg)),
                        nstep, outputlength)
    if boundary:
        x = x[..., nperseg // 2:-(nperseg // 2)]
        norm = norm[..., nperseg // 2:-(nperseg // 2)]
    nola = norm > 1e-10
    if not bool(gp.all(nola)):
        warnings.warn("NOLA condition failed, STFT may not be invertible." +
                      (" Possibly due to missing boundary" if not boundary else ""), stacklevel=2)
    x = x / gp.where(nola, norm, 1.0)
    if input_onesided:
        x = gp.real(x)
    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        if freq_axis < time_axis:
            time_axis -= 1
        x = gp.moveaxis(x, -1, time_axis)
    time = gp.arange(x.shape[0]) / float(fs)
    return time, x


# ---------------------------------------------------------------------------------------
# COLA and NOLA

def _window_for_check(window, nperseg):
    if isinstance(window, str) or type(window) is tuple:
        return get_window(window, nperseg)
    win = as_device(window)
    if len(win.shape) != 1:
        raise ValueError("window must be 1-D")
    if win.shape[0] != nperseg:
        raise ValueError("window must have length of nperseg")
    return win


def _bin_sums(w, nperseg, step):
    """SciPy's ``binsums``: the sum of `w`'s consecutive parts of `step` samples, the
    last partial part added onto the first samples."""
    parts = nperseg // step
    binsums = gp.sum(w[:parts * step].reshape(parts, step), axis=0)
    rest = nperseg % step
    if rest:
        binsums[:rest] = binsums[:rest] + w[-rest:]
    return binsums


def check_COLA(window, nperseg, noverlap, tol=1e-10):
    """Whether the constant overlap-add constraint holds (``scipy.signal.check_COLA``)."""
    nperseg = int(nperseg)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    noverlap = int(noverlap)
    win = _window_for_check(window, nperseg)
    binsums = _bin_sums(win, nperseg, nperseg - noverlap)
    deviation = binsums - gp.median(binsums)
    return bool(gp.max(gp.abs(deviation)) < tol)


def check_NOLA(window, nperseg, noverlap, tol=1e-10):
    """Whether the nonzero overlap-add constraint holds (``scipy.signal.check_NOLA``)."""
    nperseg = int(nperseg)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg")
    if noverlap < 0:
        raise ValueError("noverlap must be a nonnegative integer")
    noverlap = int(noverlap)
    win = _window_for_check(window, nperseg)
    binsums = _bin_sums(gp.square(win), nperseg, nperseg - noverlap)
    return bool(gp.min(binsums) > tol)


__all__ = ["periodogram", "welch", "csd", "coherence", "spectrogram", "stft", "istft",
           "check_COLA", "check_NOLA"]
