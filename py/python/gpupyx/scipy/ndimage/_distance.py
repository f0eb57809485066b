"""``scipy.ndimage.distance_transform_edt`` on gpupy arrays: SciPy's signature, checks,
messages and results.

The feature transform is SciPy's own algorithm (Maurer, Qi and Raghavan's, in
``kernels/src/measure/edt.rs``): a pass along each axis in turn, a GPU thread per
line, each line's sites kept on a stack whose parabolas form the lower envelope of the
distances, in SciPy's floating-point operations. So the indices are SciPy's, ties
included, and the distances, computed from them as SciPy computes them (the
differences in int32, scaled by `sampling`, squared, summed in axis order, square
root), are bit for bit SciPy's.

The kernels keep a feature (one int32 per axis) in registers, for up to 8 axes; an
array of more dimensions runs on its axes of extent above 1 (the others add exact
zeros), at most 8 of them.

A thread per line is slow on few long lines (each thread walks its line alone). A 1-d
input, one line, takes another route: SciPy's single pass there gives each element the
nearest background element, the earlier one on a tie (its envelope keeps every site
and its sweep stops at the first nearest), which scans find in parallel: the count of
background elements up to each element (``cumsum``) indexes their positions
(``flatnonzero``) before and after it, compared in SciPy's arithmetic. That holds for
samplings between 1e-100 and 1e100 (squares of distinct distances stay distinct and
finite); others take the kernel. Elongated n-d arrays (a few lines of millions of
elements along some axis) stay slow in that axis's pass.
"""

import numpy

import gpupy as gp
from gpupy import _gpupy
from gpupyx.scipy.ndimage._util import as_device, normalize_sequence

# kernels::measure::EDT_DIMS.
_EDT_DIMS = 8


def _arg_check(distances_out, indices_out, return_distances, return_indices):
    """SciPy's ``_distance_transform_arg_check``."""
    error_msgs = []
    if (not return_distances) and (not return_indices):
        error_msgs.append("at least one of return_distances/return_indices must be True")
    if distances_out and not return_distances:
        error_msgs.append("return_distances must be True if distances is supplied")
    if indices_out and not return_indices:
        error_msgs.append("return_indices must be True if indices is supplied")
    if error_msgs:
        raise RuntimeError(", ".join(error_msgs))


def _line_features(mask, s):
    """SciPy's features of a 1-d bool `mask` (int32, ``(1, n)``) by scans, for a
    sampling `s` in [1e-100, 1e100] (see the module docstring)."""
    n = mask.size
    background = gp.logical_not(mask)
    positions = gp.flatnonzero(background)
    m = positions.size
    if m == 0:
        return gp.full((1, n), -1, numpy.int32)  # no background: SciPy's -1
    count = gp.cumsum(background)  # background elements up to each element
    before = count - 1  # the last at or before it, as an index into positions
    after = count - background.astype(numpy.int64)  # the first at or after it
    prev = positions[gp.maximum(before, 0)]
    nxt = positions[gp.minimum(after, m - 1)]
    i = gp.arange(n)
    t1 = (prev - i).astype(numpy.float64) * s
    t2 = (nxt - i).astype(numpy.float64) * s
    take_prev = (before >= 0) & ((after >= m) | (t1 * t1 <= t2 * t2))
    return gp.where(take_prev, prev, nxt).astype(numpy.int32).reshape(1, n)


def _features(mask, sampling, init):
    """SciPy's features of the bool `mask` (int32, ``(ndim, *shape)``) from the
    initial features `init` (None: zeros)."""
    if mask.ndim == 1 and 1e-100 <= sampling[0] <= 1e100:
        return _line_features(mask, sampling[0])
    if mask.ndim <= _EDT_DIMS:
        return _gpupy._feature_transform(mask, sampling, init)
    kept = [k for k, n in enumerate(mask.shape) if n > 1]
    if len(kept) > _EDT_DIMS:
        raise ValueError(f"gpupy's distance transform takes at most {_EDT_DIMS} axes of extent "
                         f"above 1, got {len(kept)}")
    ft = gp.zeros((mask.ndim,) + mask.shape, numpy.int32) if init is None else init.copy()
    if bool(mask.all()):
        # No background: SciPy leaves the initial features, plane 0 set to -1.
        ft[0] = -1
        return ft
    ft[...] = 0  # every feature's coordinate along an axis of extent 1
    if kept:
        squeezed = mask.reshape(tuple(mask.shape[k] for k in kept))
        part = _gpupy._feature_transform(squeezed, [sampling[k] for k in kept], None)
        for i, k in enumerate(kept):
            ft[k] = part[i].reshape(mask.shape)
    return ft


def _distances(ft, sampling):
    """SciPy's distances from the features `ft`: float64 of ``ft.shape[1:]``."""
    shape = ft.shape[1:]
    if len(shape) <= _EDT_DIMS:
        return _gpupy._feature_distances(ft, sampling)
    kept = [k for k, n in enumerate(shape) if n > 1]
    if kept and int(ft[0].reshape(-1)[0]) >= 0:
        # Features of a transform with background: the other axes add exact zeros.
        part = ft[kept].reshape((len(kept),) + tuple(shape[k] for k in kept))
        return _gpupy._feature_distances(part, [sampling[k] for k in kept]).reshape(shape)
    # SciPy's expression, term by term in axis order (no background, or a single
    # element).
    total = None
    for k, n in enumerate(shape):
        coord = gp.arange(n, dtype=numpy.int32).reshape((1,) * k + (n,) + (1,) * (len(shape) - k - 1))
        t = (ft[k] - coord).astype(numpy.float64) * sampling[k]
        total = t * t if total is None else total + t * t
    return gp.sqrt(total)


def distance_transform_edt(input, sampling=None, return_distances=True, return_indices=False,
                           distances=None, indices=None):
    """The exact Euclidean distance from every nonzero element of `input` to the
    nearest zero element (``scipy.ndimage.distance_transform_edt``), and with
    `return_indices` the nearest zero's coordinates; `sampling` gives the spacing
    along each axis. `distances` (float64) and `indices` (int32, shape ``(ndim,) +
    input.shape``) gpupy arrays receive the results in place.

    .. seealso:: :func:`scipy.ndimage.distance_transform_edt`"""
    ft_inplace = isinstance(indices, gp.ndarray)
    dt_inplace = isinstance(distances, gp.ndarray)
    _arg_check(dt_inplace, ft_inplace, return_distances, return_indices)
    mask = gp.atleast_1d(as_device(input) != 0)
    ndim = mask.ndim
    if sampling is not None:
        sampling = numpy.asarray(normalize_sequence(sampling, ndim), dtype=numpy.float64)
    if ft_inplace:
        if indices.shape != (ndim,) + mask.shape:
            raise RuntimeError("indices array has wrong shape")
        if indices.dtype.type != numpy.int32:
            raise RuntimeError("indices array must be int32")
    scale = [1.0] * ndim if sampling is None else [float(s) for s in sampling]
    if mask.size == 0:
        ft = indices if ft_inplace else gp.zeros((ndim,) + mask.shape, numpy.int32)
    else:
        ft = _features(mask, scale, indices if ft_inplace else None)
        if ft_inplace:
            indices[...] = ft
            ft = indices
    dt = None
    if return_distances:
        dt = gp.empty(mask.shape, numpy.float64) if mask.size == 0 else _distances(ft, scale)
        if dt_inplace:
            if distances.shape != dt.shape:
                raise RuntimeError("distances array has wrong shape")
            if distances.dtype.type != numpy.float64:
                raise RuntimeError("distances array must be float64")
            distances[...] = dt
    result = []
    if return_distances and not dt_inplace:
        result.append(dt)
    if return_indices and not ft_inplace:
        result.append(ft)
    if len(result) == 2:
        return tuple(result)
    if len(result) == 1:
        return result[0]
    return None


__all__ = ["distance_transform_edt"]
