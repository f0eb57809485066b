"""Differences, derivatives and integrals of sampled data (NumPy's "Sums, products,
differences"): ``gradient``, ``ediff1d``, ``trapezoid`` and ``unwrap``, ported from
NumPy's own formulas onto slices and ufuncs, so that every element goes through the same
operations in the same order as NumPy's."""

import numpy

from gpupy import _math
from gpupy._creation import asarray, empty_like
from gpupy._gpupy import ndarray
from gpupy._indexing import where
from gpupy._manipulation import _normalize_axis, _normalize_axis_tuple, concatenate
from gpupy._reduction import all as _all, sum as _sum
from gpupy._scan import cumsum, diff

__all__ = ["gradient", "ediff1d", "trapezoid", "unwrap"]


def _spacing(distances, n_axis):
    """One axis's spacing as NumPy's gradient takes it: a scalar as itself, a 1-d array of
    coordinates as their differences (a 0-d array when they are all equal: uniform)."""
    if not isinstance(distances, ndarray) and numpy.ndim(distances) == 0:
        return distances
    d = asarray(distances)
    if d.ndim == 0:
        return d
    if d.ndim != 1:
        raise ValueError("distances must be either scalars or 1d")
    if d.shape[0] != n_axis:
        raise ValueError("when 1d, distances must match the length of the corresponding dimension")
    if d.dtype.kind in "iu":
        d = d.astype(numpy.float64)
    dx = diff(d)
    if dx.size and bool(_all(_math.equal(dx, dx[0]))):
        return dx[0]
    return dx


def _uniform(ax_dx):
    return not isinstance(ax_dx, ndarray) or ax_dx.ndim == 0


def gradient(f, *varargs, axis=None, edge_order=1):
    """Second-order accurate central differences inside, first or second order one-sided
    differences at the ends (``edge_order``), along each axis of ``axis``; spacing as
    scalars or coordinates per axis. One array for one axis, a tuple otherwise.

    .. seealso:: numpy.gradient"""
    f = asarray(f)
    N = f.ndim
    axes = tuple(range(N)) if axis is None else _normalize_axis_tuple(axis, N)
    len_axes = len(axes)
    n = len(varargs)
    if n == 0:
        dx = [1.0] * len_axes
    elif n == 1 and numpy.ndim(varargs[0]) == 0 and not (isinstance(varargs[0], ndarray) and varargs[0].ndim):
        dx = list(varargs) * len_axes
    elif n == len_axes:
        dx = [_spacing(d, f.shape[axes[i]]) for i, d in enumerate(varargs)]
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")

    otype = f.dtype
    if otype.kind not in "fc":
        if otype.kind in "iu":
            f = f.astype(numpy.float64)
        otype = numpy.dtype(numpy.float64)

    outvals = []
    for ax, ax_dx in zip(axes, dx):
        if f.shape[ax] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        out = empty_like(f, dtype=otype)

        def sl(s, _ax=ax):
            return (slice(None),) * _ax + (s,)

        uniform = _uniform(ax_dx)
        if uniform:
            out[sl(slice(1, -1))] = _math.divide(_math.subtract(f[sl(slice(2, None))], f[sl(slice(None, -2))]),
                                                 _math.multiply(2.0, ax_dx))
        else:
            dx1, dx2 = ax_dx[0:-1], ax_dx[1:]
            a = _math.divide(_math.negative(dx2), _math.multiply(dx1, _math.add(dx1, dx2)))
            b = _math.divide(_math.subtract(dx2, dx1), _math.multiply(dx1, dx2))
            c = _math.divide(dx1, _math.multiply(dx2, _math.add(dx1, dx2)))
            shape = [1] * N
            shape[ax] = -1
            a, b, c = a.reshape(shape), b.reshape(shape), c.reshape(shape)
            out[sl(slice(1, -1))] = _three(a, f[sl(slice(None, -2))], b, f[sl(slice(1, -1))], c, f[sl(slice(2, None))])
        if edge_order == 1:
            dx_0 = ax_dx if uniform else ax_dx[0]
            out[sl(0)] = _math.divide(_math.subtract(f[sl(1)], f[sl(0)]), dx_0)
            dx_n = ax_dx if uniform else ax_dx[-1]
            out[sl(-1)] = _math.divide(_math.subtract(f[sl(-1)], f[sl(-2)]), dx_n)
        else:
            if uniform:
                a, b, c = _math.divide(-1.5, ax_dx), _math.divide(2.0, ax_dx), _math.divide(-0.5, ax_dx)
            else:
                dx1, dx2 = ax_dx[0], ax_dx[1]
                s12 = _math.add(dx1, dx2)
                a = _math.divide(_math.negative(_math.add(_math.multiply(2.0, dx1), dx2)), _math.multiply(dx1, s12))
                b = _math.divide(s12, _math.multiply(dx1, dx2))
                c = _math.divide(_math.negative(dx1), _math.multiply(dx2, s12))
            out[sl(0)] = _three(a, f[sl(0)], b, f[sl(1)], c, f[sl(2)])
            if uniform:
                a, b, c = _math.divide(0.5, ax_dx), _math.divide(-2.0, ax_dx), _math.divide(1.5, ax_dx)
            else:
                dx1, dx2 = ax_dx[-2], ax_dx[-1]
                s12 = _math.add(dx1, dx2)
                a = _math.divide(dx2, _math.multiply(dx1, s12))
                b = _math.divide(_math.negative(_math.add(dx2, dx1)), _math.multiply(dx1, dx2))
                c = _math.divide(_math.add(_math.multiply(2.0, dx2), dx1), _math.multiply(dx2, s12))
            out[sl(-1)] = _three(a, f[sl(-3)], b, f[sl(-2)], c, f[sl(-1)])
        outvals.append(out)
    return outvals[0] if len_axes == 1 else tuple(outvals)


def _three(a, x, b, y, c, z):
    """``a * x + b * y + c * z``, left to right as NumPy evaluates it."""
    return _math.add(_math.add(_math.multiply(a, x), _math.multiply(b, y)), _math.multiply(c, z))


def _edge(value, dtype, name):
    v = asarray(value)
    if not numpy.can_cast(v.dtype, dtype, casting="same_kind"):
        raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the `same_kind` rule.")
    return v.ravel()


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of consecutive elements of the flattened ``ary``, with ``to_begin``
    and ``to_end`` (cast to ``ary``'s dtype under ``same_kind``) around them.

    .. seealso:: numpy.ediff1d"""
    ary = asarray(ary).ravel()
    d = _math.subtract(ary[1:], ary[:-1])  # NumPy's TypeError for bool, even when empty
    if to_begin is None and to_end is None:
        return d
    dtype_req = ary.dtype
    parts = [d if v is None else _edge(v, dtype_req, name)
             for v, name in ((to_begin, "to_begin"), (None, None), (to_end, "to_end"))
             if v is not None or name is None]
    return concatenate([x.astype(dtype_req, copy=False) for x in parts])


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule, with sample points
    ``x`` (1-d along the axis, or ``y``'s shape) or the spacing ``dx``.

    .. seealso:: numpy.trapezoid"""
    y = asarray(y)
    nd = y.ndim
    if x is None:
        d = dx
    else:
        x = asarray(x)
        if x.ndim == 1:
            d = diff(x)
            shape = [1] * nd
            shape[axis] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = diff(x, axis=axis)
    ax = _normalize_axis(axis, nd)
    upper = (slice(None),) * ax + (slice(1, None),)
    lower = (slice(None),) * ax + (slice(None, -1),)
    return _sum(_math.divide(_math.multiply(d, _math.add(y[upper], y[lower])), 2.0), axis=ax)


def unwrap(p, discont=None, axis=-1, *, period=2 * numpy.pi):
    """``p`` with jumps larger than ``discont`` between neighbours along ``axis`` replaced
    by their complement modulo ``period`` (NumPy's formula, integer periods included).

    .. seealso:: numpy.unwrap"""
    p = asarray(p)
    nd = p.ndim
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    ax = _normalize_axis(axis, nd)
    slice1 = (slice(None),) * ax + (slice(1, None),)
    dtype = numpy.result_type(dd.dtype, period)
    if dtype.kind in "iu":
        interval_high, rem = divmod(period, 2)
        boundary_ambiguous = rem == 0
    else:
        interval_high = period / 2
        boundary_ambiguous = True
    interval_low = -interval_high
    ddmod = _math.add(_math.remainder(_math.subtract(dd, interval_low), period), interval_low)
    if boundary_ambiguous:
        at_low = _math.logical_and(_math.equal(ddmod, interval_low), _math.greater(dd, 0))
        ddmod = where(at_low, interval_high, ddmod).astype(ddmod.dtype, copy=False)
    ph_correct = _math.subtract(ddmod, dd)
    ph_correct = where(_math.less(_math.absolute(dd), discont), 0, ph_correct).astype(ph_correct.dtype, copy=False)
    up = p.astype(dtype, copy=True)
    up[slice1] = _math.add(p[slice1], cumsum(ph_correct, axis=ax))
    return up
