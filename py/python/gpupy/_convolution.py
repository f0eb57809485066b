"""One-dimensional discrete convolution and correlation (``convolve``, ``correlate``)
with NumPy's modes ``'full'``, ``'same'``, ``'valid'`` (or 2, 1, 0) and result dtypes.

Short filters and integer or bool data go the direct way: a gather builds the sliding
windows of the zero-padded signal (a block of rows at a time, to bound the memory), and
each output is a sum of products (``any`` of ``and`` for bool, as NumPy's dot of bools).
Long float and complex problems go through the FFT (``gpupy.fft``), as CuPy does for
large inputs; its error is that of the transform, ``O(eps log n)`` relative to
``sum |a| |v|``, where the direct sum has ``O(eps m)``."""

import numpy

from gpupy import _math
from gpupy._creation import asarray, zeros
from gpupy._indexing import take
from gpupy._manipulation import concatenate
from gpupy._ranges import arange
from gpupy._reduction import any as _any, sum as _sum
from gpupy.fft import fft, ifft, irfft, rfft

__all__ = ["convolve", "correlate"]

_MODES = {"valid": 0, "same": 1, "full": 2, 0: 0, 1: 1, 2: 2}
_WINDOW_ELEMENTS = 1 << 22  # elements of one block of sliding windows (32 MiB of float64)
_FFT_MIN_FILTER = 64  # shorter filters are summed directly (and exactly ordered)


def _mode(mode):
    if isinstance(mode, str):
        if mode not in _MODES:
            if mode.lower() in ("valid", "same", "full") or mode[:1] in ("v", "s", "f"):
                raise ValueError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode")
            raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
        return _MODES[mode]
    if isinstance(mode, int) and not isinstance(mode, bool) and mode in _MODES:
        return _MODES[mode]
    raise TypeError("convolve/correlate mode not understood")


def _full_direct(a, v, dtype, start, length):
    """Entries ``start .. start+length`` of the full correlation
    ``c[k] = sum_j a[k + j - (m - 1)] v[j]`` (no conjugation here)."""
    m = v.shape[0]
    padded = concatenate([zeros(m - 1, dtype), a.astype(dtype), zeros(m - 1, dtype)])
    vv = v.astype(dtype)
    cols = arange(m, dtype=numpy.int64)
    rows_per_block = max(1, _WINDOW_ELEMENTS // m)
    pieces = []
    for first in range(start, start + length, rows_per_block):
        count = min(rows_per_block, start + length - first)
        idx = _math.add(arange(first, first + count, dtype=numpy.int64)[:, None], cols[None, :])
        windows = take(padded, idx)
        if dtype == numpy.bool_:
            pieces.append(_any(_math.logical_and(windows, vv), axis=-1))
        else:
            pieces.append(_sum(_math.multiply(windows, vv), axis=-1, dtype=dtype))
    if not pieces:
        return zeros(0, dtype)
    return pieces[0] if len(pieces) == 1 else concatenate(pieces)


def _full_fft(a, v, dtype, start, length):
    """The same entries through the FFT: the full correlation is the convolution of ``a``
    with ``v`` reversed."""
    n, m = a.shape[0], v.shape[0]
    size = n + m - 1
    nfft = 1 << (size - 1).bit_length()
    vr = v[::-1]
    if dtype.kind == "c":
        c = ifft(_math.multiply(fft(a.astype(dtype), nfft), fft(vr.astype(dtype), nfft)), nfft)
    else:
        c = irfft(_math.multiply(rfft(a.astype(dtype), nfft), rfft(vr.astype(dtype), nfft)), nfft)
    return c[start:start + length].astype(dtype)


def _window(n_a, n_v, mode):
    """(start, length) of the part of the full correlation (length ``n_a + n_v - 1``)
    that NumPy's ``mode`` keeps. When ``a`` is the shorter, NumPy correlates ``v`` with
    ``a`` and reverses the result: the same values, but its 'same' window (centred on the
    shorter operand, rounding down) sits one place over for an even length."""
    if mode == 2:
        return 0, n_a + n_v - 1
    if n_a >= n_v:
        return (n_v - 1, n_a - n_v + 1) if mode == 0 else (n_v - 1 - n_v // 2, n_a)
    return (n_a - 1, n_v - n_a + 1) if mode == 0 else (n_a // 2, n_v)


def _correlate_raw(a, v, mode):
    """The kept part of ``c[k] = sum_j a[k + j - (len(v) - 1)] v[j]`` (no conjugation)."""
    dtype = numpy.result_type(a.dtype, v.dtype)
    start, length = _window(a.shape[0], v.shape[0], mode)
    if dtype.kind in "fc" and min(a.shape[0], v.shape[0]) >= _FFT_MIN_FILTER and dtype != numpy.float16:
        return _full_fft(a, v, dtype, start, length)
    return _full_direct(a, v, dtype, start, length)


def _as_1d(x, ndmin):
    x = asarray(x)
    if ndmin and x.ndim == 0:
        x = x.reshape(1)
    if x.ndim > 1:
        raise ValueError("object too deep for desired array")
    if x.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    return x


def correlate(a, v, mode="valid"):
    """The cross-correlation ``c[k] = sum_n a[n + k] conj(v[n])`` of two 1-d sequences,
    over the positions ``mode`` keeps (NumPy's ``correlate``; the shorter operand may
    come first).

    .. seealso:: numpy.correlate"""
    a, v = _as_1d(a, False), _as_1d(v, False)
    mode = _mode(mode)
    if a.shape[0] == 0:
        raise ValueError("first array argument cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("second array argument cannot be empty")
    if v.dtype.kind == "c":
        v = _math.conjugate(v)
    return _correlate_raw(a, v, mode)


def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-d sequences over the positions ``mode``
    keeps (NumPy's ``convolve``: the correlation of the longer with the shorter reversed,
    no conjugation).

    .. seealso:: numpy.convolve"""
    a, v = _as_1d(a, True), _as_1d(v, True)
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    if a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    return _correlate_raw(a, v[::-1], _mode(mode))
