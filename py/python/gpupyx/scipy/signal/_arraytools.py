"""Axis helpers for the signal functions on gpupy arrays: SciPy's
``scipy/signal/_arraytools.py`` (``axis_slice``, ``axis_reverse`` and the signal
extensions ``odd_ext``, ``even_ext``, ``const_ext``, ``zero_ext``, with SciPy's
arithmetic and messages) and ``sliding_frames``, the zero-copy view of overlapping
segments that the spectral functions and ``upfirdn`` read their frames through."""

import gpupy as gp
from gpupy.lib.stride_tricks import as_strided


def axis_slice(a, start=None, stop=None, step=None, axis=-1):
    """``a[..., start:stop:step, ...]`` with the slice on `axis` (a view)."""
    a_slice = [slice(None)] * a.ndim
    a_slice[axis] = slice(start, stop, step)
    return a[tuple(a_slice)]


def axis_reverse(a, axis=-1):
    """`a` reversed along `axis` (a view)."""
    return axis_slice(a, step=-1, axis=axis)


def _check_ext(x, n, axis):
    if n > x.shape[axis] - 1:
        raise ValueError(("The extension length n (%d) is too big. "
                          "It must not exceed x.shape[axis]-1, which is %d.") % (n, x.shape[axis] - 1))


def odd_ext(x, n, axis=-1):
    """`x` extended by `n` points at both ends of `axis` by point reflection about the
    end points (``2 x[0] - x[n:0:-1]``), as ``scipy.signal._arraytools.odd_ext``."""
    if n < 1:
        return x
    _check_ext(x, n, axis)
    left_end = axis_slice(x, start=0, stop=1, axis=axis)
    left_ext = axis_slice(x, start=n, stop=0, step=-1, axis=axis)
    right_end = axis_slice(x, start=-1, axis=axis)
    right_ext = axis_slice(x, start=-2, stop=-(n + 2), step=-1, axis=axis)
    return gp.concatenate((2 * left_end - left_ext, x, 2 * right_end - right_ext), axis=axis)


def even_ext(x, n, axis=-1):
    """`x` extended by `n` points at both ends of `axis` by mirror reflection about the
    end points (``x[n:0:-1]``), as ``scipy.signal._arraytools.even_ext``."""
    if n < 1:
        return x
    _check_ext(x, n, axis)
    left_ext = axis_slice(x, start=n, stop=0, step=-1, axis=axis)
    right_ext = axis_slice(x, start=-2, stop=-(n + 2), step=-1, axis=axis)
    return gp.concatenate((left_ext, x, right_ext), axis=axis)


def const_ext(x, n, axis=-1):
    """`x` extended by `n` copies of its end points along `axis`
    (``scipy.signal._arraytools.const_ext``)."""
    if n < 1:
        return x
    ones_shape = [1] * x.ndim
    ones_shape[axis] = n
    ones = gp.ones(ones_shape, dtype=x.dtype)
    left_ext = ones * axis_slice(x, start=0, stop=1, axis=axis)
    right_ext = ones * axis_slice(x, start=-1, axis=axis)
    return gp.concatenate((left_ext, x, right_ext), axis=axis)


def zero_ext(x, n, axis=-1):
    """`x` extended by `n` zeros at both ends of `axis` (``scipy.signal._arraytools.zero_ext``)."""
    if n < 1:
        return x
    zeros_shape = list(x.shape)
    zeros_shape[axis] = n
    zeros = gp.zeros(zeros_shape, dtype=x.dtype)
    return gp.concatenate((zeros, x, zeros), axis=axis)


def sliding_frames(x, length, step):
    """The segments ``x[..., k*step : k*step + length]``, ``k = 0 .. (n - length) // step``,
    of the last axis of `x` (``n = x.shape[-1] >= length``) as one array of shape
    ``x.shape[:-1] + (count, length)``: a read-only-by-convention view of `x`'s memory
    (overlapping when ``step < length``), as NumPy's ``sliding_window_view(x, length,
    axis=-1)[..., ::step, :]`` gives it. Nothing is copied; write into it and the
    frames that share elements all change."""
    n = x.shape[-1]
    count = (n - length) // step + 1
    shape = tuple(x.shape[:-1]) + (count, length)
    if x.size == 0 or count <= 0 or length == 0:
        return gp.empty(tuple(x.shape[:-1]) + (max(count, 0), length), dtype=x.dtype)
    item_stride = x.strides[-1]
    strides = tuple(x.strides[:-1]) + (step * item_stride, item_stride)
    return as_strided(x, shape, strides)


__all__ = ["axis_slice", "axis_reverse", "odd_ext", "even_ext", "const_ext", "zero_ext",
           "sliding_frames"]
