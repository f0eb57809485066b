"""Piecewise-linear interpolation and binning (``interp``, ``digitize``): a binary
search for each value (``searchsorted``), gathers of the neighbouring sample points, and
NumPy's own interpolation formula, NaN fallbacks included (``compiled_base.c``)."""

import numpy

from gpupy import _math
from gpupy._creation import asarray, empty
from gpupy._gpupy import ndarray
from gpupy._indexing import take, where
from gpupy._manipulation import concatenate
from gpupy._reduction import all as _all
from gpupy._scan import diff
from gpupy._sorting import argsort, searchsorted

__all__ = ["interp", "digitize"]


def _lerp_component(x, x0, x1, y0, y1):
    """NumPy's ``slope * (x - x0) + y0`` with ``slope = (y1 - y0) / (x1 - x0)``; where
    that is NaN, ``slope * (x - x1) + y1``; where that is NaN and ``y0 == y1``, ``y0``."""
    slope = _math.divide(_math.subtract(y1, y0), _math.subtract(x1, x0))
    r = _math.add(_math.multiply(slope, _math.subtract(x, x0)), y0)
    other = _math.add(_math.multiply(slope, _math.subtract(x, x1)), y1)
    other = where(_math.logical_and(_math.isnan(other), _math.equal(y0, y1)), y0, other)
    return where(_math.isnan(r), other, r)


def _bound(value, default, dtype):
    return default if value is None else (value.astype(dtype) if isinstance(value, ndarray)
                                          else numpy.asarray(value, dtype=dtype)[()])


def interp(x, xp, fp, left=None, right=None, period=None):
    """The piecewise-linear interpolant through ``(xp, fp)`` (``xp`` increasing) at ``x``:
    float64, or complex128 for complex ``fp``; ``left``/``right`` (default ``fp[0]``,
    ``fp[-1]``) outside; with ``period``, ``xp`` wraps around (any order).

    .. seealso:: numpy.interp"""
    fp = asarray(fp)
    dtype = numpy.dtype(numpy.complex128 if fp.dtype.kind == "c" else numpy.float64)
    x = asarray(x).astype(numpy.float64)
    xp = asarray(xp).astype(numpy.float64)
    fp = fp.astype(dtype)
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = right = None
        if xp.ndim != 1 or fp.ndim != 1:
            raise ValueError("Data points must be 1-D sequences")
        if xp.shape[0] != fp.shape[0]:
            raise ValueError("fp and xp are not of the same length")
        x = _math.remainder(x, period)
        xp = _math.remainder(xp, period)
        order = argsort(xp)
        xp = take(xp, order)
        fp = take(fp, order)
        xp = concatenate([_math.subtract(xp[-1:], period), xp, _math.add(xp[0:1], period)])
        fp = concatenate([fp[-1:], fp, fp[0:1]])
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("object too deep for desired array")
    n = xp.shape[0]
    if n == 0:
        raise ValueError("array of sample points is empty")
    if fp.shape[0] != n:
        raise ValueError("fp and xp are not of the same length.")
    lval = _bound(left, fp[0], dtype)
    rval = _bound(right, fp[n - 1], dtype)
    if n == 1:
        r = where(_math.less(x, xp[0]), lval, where(_math.greater(x, xp[0]), rval, fp[0]))
        return r.astype(dtype, copy=False)
    # j: the last sample point <= x (-1 before the first), as NumPy's binary search.
    j = _math.subtract(searchsorted(xp, x, side="right"), 1)
    jc = _math.minimum(_math.maximum(j, 0), n - 2)
    x0, x1 = take(xp, jc), take(xp, _math.add(jc, 1))
    y0, y1 = take(fp, jc), take(fp, _math.add(jc, 1))
    if dtype.kind == "c":
        r = empty(x.shape, dtype)
        r.real[...] = _lerp_component(x, x0, x1, y0.real, y1.real)
        r.imag[...] = _lerp_component(x, x0, x1, y0.imag, y1.imag)
    else:
        r = _lerp_component(x, x0, x1, y0, y1)
    # At a sample point the value is the sample (no arithmetic); at or past the last one,
    # fp[-1] or right; before the first, left; NaN stays NaN.
    r = where(_math.equal(x, x0), y0, r)
    r = where(_math.equal(x, xp[n - 1]), fp[n - 1], r)
    r = where(_math.greater(x, xp[n - 1]), rval, r)
    r = where(_math.less(x, xp[0]), lval, r)
    r = where(_math.isnan(x), x.astype(dtype), r)
    return r.astype(dtype, copy=False)


def digitize(x, bins, right=False):
    """The index of the bin of each value of ``x`` (``bins`` monotonic, increasing or
    decreasing; ``right``: intervals closed on the right), as int64.

    .. seealso:: numpy.digitize"""
    x = asarray(x)
    bins = asarray(bins)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if bins.ndim != 1:
        raise ValueError("object too deep for desired array" if bins.ndim > 1 else
                         "object of too small depth for desired array")
    d = diff(bins) if bins.shape[0] > 1 else None
    if d is None:
        mono = 1
    else:
        # Bins with NaNs count as neither (NumPy accepts a few such orders; gpupy does not).
        increasing = bool(_all(_math.greater_equal(d, 0)))
        mono = 1 if increasing else (-1 if bool(_all(_math.less_equal(d, 0))) else 0)
    if mono == 0:
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if mono == -1:
        return _math.subtract(bins.shape[0], searchsorted(bins[::-1], x, side=side))
    return searchsorted(bins, x, side=side)
