"""``scipy.signal.detrend`` on gpupy arrays: SciPy's signature, checks, messages and
result dtypes (``'constant'`` keeps the input's float type, as NumPy's mean does;
``'linear'`` computes in float32/float64/complex64/complex128 and turns every other
type into float64).

The linear trend of each piece between breakpoints is its least-squares line, as
SciPy's ``lstsq`` fits it, but computed in closed form with reductions over the axis
(every column of the data at once): with ``t`` the sample index centred on the piece
(``t - mean(t)``, exact half-integers, so the line's two basis vectors are
orthogonal), the residual is ``(y - mean(y)) - b t`` with ``b = sum(t (y - mean(y))) /
sum(t^2)`` and ``sum(t^2) = N (N^2 - 1) / 12``. Both are the orthogonal projection of
``y`` off the same two-dimensional space, so they agree to rounding; a piece of one
sample detrends to zero, as SciPy's minimum-norm solution does. The breakpoints' pieces
are one pass each (a Python loop over the pieces, not over the data).
"""

import numpy

import gpupy as gp
from gpupyx.scipy.ndimage._util import as_device, normalize_axis
from gpupyx.scipy.signal._arraytools import axis_slice


def _fit_dtype(dtype):
    """The dtype ``detrend(type='linear')`` computes and returns in (SciPy's ``'dfDF'`` rule)."""
    return dtype if dtype.char in "dfDF" else numpy.dtype(numpy.float64)


def _remove_line(y, axis):
    """`y` less its least-squares line along `axis` (see the module docstring)."""
    n = y.shape[axis]
    if n < 2:
        return gp.zeros_like(y)
    real = numpy.dtype(y.dtype.char.lower())
    shape = [1] * y.ndim
    shape[axis] = n
    t = (gp.arange(n, dtype=real) - (n - 1) / 2).reshape(shape)
    d = y - gp.mean(y, axis=axis, keepdims=True)
    slope = gp.sum(t * d, axis=axis, keepdims=True) / (n * (n * n - 1) / 12)
    return d - slope * t


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=False):
    """`data` less its mean (``type='constant'``) or its least-squares line, piecewise
    between the breakpoints `bp` (``type='linear'``), along `axis`
    (``scipy.signal.detrend``). ``overwrite_data=True`` writes a linear detrend of a
    float32/float64/complex gpupy array into it and returns it."""
    if type not in ["linear", "l", "constant", "c"]:
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    data = as_device(data)
    if type in ["constant", "c"]:
        return data - gp.mean(data, axis, keepdims=True)
    axis = normalize_axis(axis, data.ndim)
    N = data.shape[axis]
    if isinstance(bp, gp.ndarray):
        bp = gp.asnumpy(bp)
    bp = numpy.sort(numpy.unique(numpy.concatenate(numpy.atleast_1d(0, bp, N))))
    if numpy.any(bp > N):
        raise ValueError("Breakpoints must be less than length of data along given axis.")
    dtype = _fit_dtype(data.dtype)
    work = data.astype(dtype, copy=False)
    pieces = [(int(a), int(b)) for a, b in zip(bp[:-1], bp[1:])]
    if len(pieces) == 1 and pieces[0] == (0, N):
        result = _remove_line(work, axis)
    else:
        result = work.copy()
        for a, b in pieces:
            index = [slice(None)] * data.ndim
            index[axis] = slice(a, b)
            result[tuple(index)] = _remove_line(axis_slice(result, a, b, axis=axis), axis)
    if overwrite_data and work is data:
        data[...] = result
        return data
    return result


__all__ = ["detrend"]
