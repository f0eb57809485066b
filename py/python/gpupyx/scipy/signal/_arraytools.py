"""SciPy's ``scipy/signal/_arraytools.py`` on gpupy arrays: slices along one axis and
the edge extensions ``filtfilt`` pads with (views and ``concatenate``, no kernels of
their own). Same arguments, results and messages as SciPy's."""

import gpupy as gp


def axis_slice(a, start=None, stop=None, step=None, axis=-1):
    """``a[..., start:stop:step, ...]`` along `axis` (the axis is kept)."""
    a_slice = [slice(None)] * a.ndim
    a_slice[axis] = slice(start, stop, step)
    return a[tuple(a_slice)]


def axis_reverse(a, axis=-1):
    """`a` reversed along `axis` (a view)."""
    return axis_slice(a, step=-1, axis=axis)


def _check_length(x, n, axis):
    if n > x.shape[axis] - 1:
        raise ValueError(("The extension length n (%d) is too big. "
                          "It must not exceed x.shape[axis]-1, which is %d.")
                         % (n, x.shape[axis] - 1))


def odd_ext(x, n, axis=-1):
    """`x` extended by `n` samples at both ends of `axis`, point-symmetric about the end
    samples (``2 x[0] - x[n:0:-1]`` before, likewise after)."""
    if n < 1:
        return x
    _check_length(x, n, axis)
    left_end = axis_slice(x, start=0, stop=1, axis=axis)
    left_ext = axis_slice(x, start=n, stop=0, step=-1, axis=axis)
    right_end = axis_slice(x, start=-1, axis=axis)
    right_ext = axis_slice(x, start=-2, stop=-(n + 2), step=-1, axis=axis)
    return gp.concatenate((2 * left_end - left_ext, x, 2 * right_end - right_ext), axis=axis)


def even_ext(x, n, axis=-1):
    """`x` extended by `n` samples at both ends of `axis`, mirrored about the end
    samples."""
    if n < 1:
        return x
    _check_length(x, n, axis)
    left_ext = axis_slice(x, start=n, stop=0, step=-1, axis=axis)
    right_ext = axis_slice(x, start=-2, stop=-(n + 2), step=-1, axis=axis)
    return gp.concatenate((left_ext, x, right_ext), axis=axis)


def const_ext(x, n, axis=-1):
    """`x` extended by `n` copies of its end samples at both ends of `axis`."""
    if n < 1:
        return x
    left_end = axis_slice(x, start=0, stop=1, axis=axis)
    ones_shape = [1] * x.ndim
    ones_shape[axis] = n
    ones = gp.ones(ones_shape, dtype=x.dtype)
    right_end = axis_slice(x, start=-1, axis=axis)
    return gp.concatenate((ones * left_end, x, ones * right_end), axis=axis)


__all__ = ["axis_slice", "axis_reverse", "odd_ext", "even_ext", "const_ext"]
