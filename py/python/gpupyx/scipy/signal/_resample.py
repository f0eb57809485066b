"""``scipy.signal.resample`` (Fourier method) and ``resample_poly`` (polyphase) on
gpupy arrays, with SciPy's signatures, checks, messages and result dtypes.

- ``resample``: SciPy's algorithm step for step on ``gpupyx.scipy.fft`` (real input by
  ``rfft``/``irfft``, complex input and ``domain='freq'`` by ``fft``/``ifft``); the
  spectral window ``W`` is a gpupy array (``get_window`` on the device, a callable
  called with the device frequencies, or the caller's array).
- ``resample_poly``: SciPy's anti-aliasing FIR (``firwin`` of ``2 * 10 * max(up,
  down) + 1`` taps, designed on the device by ``_firwin_lowpass``, or the caller's
  taps), then ``upfirdn`` and SciPy's cut of the delay; the ``mean``/``median``/
  ``minimum``/``maximum`` pad types remove and restore that background as SciPy does.
"""

import math

import numpy

import gpupy as gp
from gpupyx.scipy import fft as sp_fft
from gpupyx.scipy.ndimage._util import as_device, normalize_axis
from gpupyx.scipy.signal._upfirdn import _output_len, _upfirdn_modes, upfirdn
from gpupyx.scipy.signal.windows import get_window


def resample(x, num, t=None, axis=0, window=None, domain="time"):
    """`x` resampled to `num` samples along `axis` by the Fourier method
    (``scipy.signal.resample``); with `t`, also the new sample positions."""
    if domain not in ("time", "freq"):
        raise ValueError(f"Parameter domain={domain!r} not in ('time', 'freq')!")
    x = as_device(x)
    if x.ndim > 1:
        x = gp.moveaxis(x, axis, -1)
    n_x = x.shape[-1]
    s_fac = n_x / num
    m = min(num, n_x)
    m2 = m // 2 + 1
    if window is None:
        W = None
    elif callable(window):
        W = as_device(window(sp_fft.fftfreq(n_x)))
    elif hasattr(window, "shape"):
        if window.shape != (n_x,):
            raise ValueError(f"window.shape={window.shape!r} != ({n_x},), i.e., window length "
                             "is not equal to number of frequency bins!")
        W = as_device(window).copy()
    else:
        W = sp_fft.fftshift(get_window(window, n_x)).astype(numpy.float64)
    if domain == "time" and x.dtype.kind != "c":
        X = sp_fft.rfft(x)
        if W is not None:
            n_X = X.shape[-1]
            if n_X > 1:
                # SciPy folds the negative frequencies' weights onto the positive ones.
                W = W.copy()
                W[1:n_X] = (W[1:n_X] + gp.flip(W[-n_X + 1:])) / 2
            X = (X * W[:n_X]).astype(X.dtype, copy=False)
        X = X[..., :m2]
        if m % 2 == 0 and num != n_x:
            X = X.copy()
            X[..., m // 2] = X[..., m // 2] * (2 if num < n_x else 0.5)
        x_r = sp_fft.irfft(X / s_fac, n=num)
    else:
        X = sp_fft.fft(x) if domain == "time" else x
        if W is not None:
            X = X * W
        Y = gp.zeros(tuple(X.shape[:-1]) + (num,), dtype=X.dtype)
        Y[..., :m2] = X[..., :m2]
        if m2 < m:
            Y[..., m2 - m:] = X[..., m2 - m:]
        if m % 2 == 0:
            if num < n_x:
                Y[..., -m // 2] = Y[..., -m // 2] + X[..., -m // 2]
            elif n_x < num:
                Y[..., m // 2] = Y[..., m // 2] / 2
                Y[..., num - m // 2] = Y[..., m // 2]
        x_r = sp_fft.ifft(Y / s_fac, n=num)
    if x_r.ndim > 1:
        x_r = gp.moveaxis(x_r, -1, axis)
    if t is not None:
        t = as_device(t)
        return x_r, t[0] + (t[1] - t[0]) * s_fac * gp.arange(num)
    return x_r


def _firwin_lowpass(numtaps, cutoff, window):
    """``scipy.signal.firwin(numtaps, cutoff, window=window)`` for one cutoff (a lowpass,
    scaled to unit gain at zero frequency), float64 on the device: the windowed sinc."""
    alpha = 0.5 * (numtaps - 1)
    m = gp.arange(0, numtaps, dtype=numpy.float64) - alpha
    h = cutoff * gp.sinc(cutoff * m)
    h = h * get_window(window, numtaps, fftbins=False)
    return h / gp.sum(h)


def resample_poly(x, up, down, axis=0, window=("kaiser", 5.0), padtype="constant", cval=None):
    """`x` resampled by ``up / down`` along `axis` with a polyphase FIR filter
    (``scipy.signal.resample_poly``): `window` names the anti-aliasing filter's window,
    or is the filter's taps; `padtype` extends the signal past its ends."""
    x = as_device(x)
    if up != int(up):
        raise ValueError("up must be an integer")
    if down != int(down):
        raise ValueError("down must be an integer")
    up = int(up)
    down = int(down)
    if up < 1 or down < 1:
        raise ValueError("up and down must be >= 1")
    if cval is not None and padtype != "constant":
        raise ValueError("cval has no effect when padtype is ", padtype)
    g_ = math.gcd(up, down)
    up //= g_
    down //= g_
    if up == down == 1:
        return x.copy()
    axis = normalize_axis(axis, x.ndim)
    n_in = x.shape[axis]
    n_out = n_in * up
    n_out = n_out // down + bool(n_out % down)
    if isinstance(window, (list, gp.ndarray, numpy.ndarray)):
        h = gp.asarray(window).copy()
        if h.ndim > 1:
            raise ValueError("window must be 1-D")
        half_len = (h.size - 1) // 2
    else:
        max_rate = max(up, down)
        f_c = 1.0 / max_rate
        half_len = 10 * max_rate
        h = _firwin_lowpass(2 * half_len + 1, f_c, window)
        if x.dtype.kind in "fc":
            h = h.astype(x.dtype)
    h = h * up
    n_pre_pad = down - half_len % down
    n_post_pad = 0
    n_pre_remove = (half_len + n_pre_pad) // down
    while _output_len(h.shape[0] + n_pre_pad + n_post_pad, n_in, up, down) < n_out + n_pre_remove:
        n_post_pad += 1
    h = gp.concatenate((gp.zeros(n_pre_pad, dtype=h.dtype), h, gp.zeros(n_post_pad, dtype=h.dtype)))
    n_pre_remove_end = n_pre_remove + n_out
    funcs = {"mean": gp.mean, "median": gp.median, "minimum": gp.min, "maximum": gp.max}
    upfirdn_kwargs = {"mode": "constant", "cval": 0}
    if padtype in funcs:
        background_values = funcs[padtype](x, axis=axis, keepdims=True)
    elif padtype in _upfirdn_modes:
        upfirdn_kwargs = {"mode": padtype}
        if padtype == "constant":
            if cval is None:
                cval = 0
            upfirdn_kwargs["cval"] = cval
    else:
        raise ValueError("padtype must be one of: maximum, mean, median, minimum, " +
                         ", ".join(_upfirdn_modes))
    if padtype in funcs:
        x = x - background_values
    y = upfirdn(h, x, up, down, axis=axis, **upfirdn_kwargs)
    keep = [slice(None)] * x.ndim
    keep[axis] = slice(n_pre_remove, n_pre_remove_end)
    y_keep = y[tuple(keep)]
    if padtype in funcs:
        y_keep = y_keep + background_values
    return y_keep


__all__ = ["resample", "resample_poly"]
