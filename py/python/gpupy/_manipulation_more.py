"""More array manipulation (NumPy's "Adding and removing elements", ``block``,
``unstack``, ``row_stack`` where the installed NumPy still has it, and the functional
helpers ``apply_along_axis`` and ``apply_over_axes``), composed from ``_manipulation``'s
joins and copies.

Where the positions to insert or delete come from the caller as host objects (ints,
slices, lists, NumPy arrays), the index bookkeeping is NumPy's own, done on the host
with NumPy on those positions (never on array data); the data moves on the GPU as
strided copies and gathers. Positions given as gpupy arrays: ``delete`` scatters them
into a device mask; ``insert`` reads them back (one small device-to-host copy).
``trim_zeros`` reads back the bounding box of the nonzero elements (one small copy).
"""

import functools
import operator
import warnings

import numpy

from gpupy import _gpupy, _math
from gpupy._creation import array, asarray, empty, ones, zeros
from gpupy._gpupy import ndarray
from gpupy._indexing import argwhere, compress
from gpupy._manipulation import (
    _normalize_axis,
    _normalize_axis_tuple,
    _take_runs,
    concatenate,
    expand_dims,
    moveaxis,
    transpose,
    vstack,
)
from gpupy._reduction import max as _max, min as _min

__all__ = [
    "append", "insert", "delete", "resize", "trim_zeros", "unstack", "block",
    "apply_along_axis", "apply_over_axes",
]


def _flat_or_axis(arr, axis):
    """``arr`` (flattened when ``axis`` is None) and the normalized axis."""
    if axis is None:
        if arr.ndim != 1:
            arr = arr.ravel()
        return arr, arr.ndim - 1
    return arr, _normalize_axis(axis, arr.ndim)


def append(arr, values, axis=None):
    """A copy of ``arr`` with ``values`` joined at the end of ``axis`` (both flattened when
    ``axis`` is None).

    .. seealso:: numpy.append"""
    arr = asarray(arr)
    if axis is None:
        if arr.ndim != 1:
            arr = arr.ravel()
        values = asarray(values).ravel()
        axis = arr.ndim - 1
    return concatenate((arr, values), axis=axis)


def delete(arr, obj, axis=None):
    """A copy of ``arr`` without the entries ``obj`` (an int, slice, integer or boolean
    array) along ``axis`` (of the flattened ``arr`` when None).

    .. seealso:: numpy.delete"""
    arr, axis = _flat_or_axis(asarray(arr), axis)
    n = arr.shape[axis]
    if isinstance(obj, ndarray) and obj.ndim > 0:
        if obj.dtype.kind == "b":
            if obj.shape != (n,):
                raise ValueError(
                    f"boolean array argument obj to delete must be one dimensional and match the axis length of {n}"
                )
            keep = _math.logical_not(obj)
        else:
            keep = ones(n, dtype=numpy.bool_)
            if obj.size:
                keep[obj] = False  # indices checked on the device: IndexError as NumPy
        return compress(keep, arr, axis=axis)
    if isinstance(obj, ndarray):  # a 0-d device index: its value
        obj = obj.get()[()]
    # The kept positions, worked out by NumPy on the positions alone (its errors too).
    kept = numpy.delete(numpy.arange(n), obj)
    return _take_runs(arr, kept, axis) if arr.size else empty(
        arr.shape[:axis] + (kept.size,) + arr.shape[axis + 1 :], arr.dtype
    )


def insert(arr, obj, values, axis=None):
    """A copy of ``arr`` with ``values`` inserted before the positions ``obj`` along
    ``axis`` (of the flattened ``arr`` when None), with NumPy's broadcasting rules for
    ``values`` (a single int position inserts along a new leading axis of ``values``).

    .. seealso:: numpy.insert"""
    arr, axis = _flat_or_axis(asarray(arr), axis)
    ndim = arr.ndim
    n = arr.shape[axis]
    newshape = list(arr.shape)
    if isinstance(obj, ndarray):
        obj = obj.get()  # positions are bookkeeping: read back once
    if isinstance(obj, slice):
        indices = numpy.arange(*obj.indices(n), dtype=numpy.intp)
    else:
        indices = numpy.array(obj)
        if indices.dtype == bool:
            if indices.ndim != 1:
                raise ValueError("boolean array argument obj to insert must be one dimensional")
            indices = numpy.flatnonzero(indices)
        elif indices.ndim > 1:
            raise ValueError("index array argument obj to insert must be one dimensional or scalar")
    slobj = [slice(None)] * ndim
    if indices.size == 1:
        index = indices.item()
        if index < -n or index > n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        if index < 0:
            index += n
        values = array(values, copy=False, ndmin=ndim, dtype=arr.dtype)
        if indices.ndim == 0:
            values = moveaxis(values, 0, axis)
        numnew = values.shape[axis]
        newshape[axis] += numnew
        new = empty(newshape, arr.dtype)
        slobj[axis] = slice(None, index)
        new[tuple(slobj)] = arr[tuple(slobj)]
        slobj[axis] = slice(index, index + numnew)
        new[tuple(slobj)] = values
        slobj[axis] = slice(index + numnew, None)
        slobj2 = [slice(None)] * ndim
        slobj2[axis] = slice(index, None)
        new[tuple(slobj)] = arr[tuple(slobj2)]
        return new
    if indices.size == 0 and not isinstance(obj, numpy.ndarray):
        indices = indices.astype(numpy.intp)
    if indices.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    indices = indices.astype(numpy.intp)
    indices[indices < 0] += n
    numnew = len(indices)
    order = indices.argsort(kind="stable")
    indices[order] += numpy.arange(numnew)
    newshape[axis] += numnew
    old_mask = numpy.ones(newshape[axis], dtype=bool)
    old_mask[indices] = False  # NumPy's IndexError for positions out of bounds
    new = empty(newshape, arr.dtype)
    slobj2 = [slice(None)] * ndim
    slobj[axis] = indices
    slobj2[axis] = numpy.flatnonzero(old_mask)
    if numnew:
        new[tuple(slobj)] = values
    if arr.size:
        new[tuple(slobj2)] = arr
    return new


def resize(a, new_shape):
    """A new array of ``new_shape`` filled with ``a``'s elements (C order), repeated as
    often as needed; zeros when ``a`` is empty. (The method ``a.resize`` differs.)

    .. seealso:: numpy.resize"""
    if isinstance(new_shape, (int, numpy.integer)):
        new_shape = (new_shape,)
    a = asarray(a).ravel()
    new_size = 1
    for dim in new_shape:
        new_size *= dim
        if dim < 0:
            raise ValueError("all elements of `new_shape` must be non-negative")
    if a.size == 0 or new_size == 0:
        return zeros(new_shape, dtype=a.dtype)
    repeats = -(-new_size // a.size)
    return concatenate((a,) * repeats)[:new_size].reshape(new_shape)


def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without its leading (``'f'``) and/or trailing (``'b'``) zeros along
    ``axis`` (every axis when None): a view, as NumPy's slice.

    .. seealso:: numpy.trim_zeros"""
    filt_ = asarray(filt)
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    if axis is None:
        axis_tuple = tuple(range(filt_.ndim))
    else:
        axis_tuple = _normalize_axis_tuple(axis, filt_.ndim, argname="axis")
    if not axis_tuple:
        return filt
    nz = argwhere(filt_)
    if nz.shape[0] == 0:
        start = stop = [0] * filt_.ndim
    else:
        # The bounding box of the nonzero elements: two small reads.
        start = _min(nz, axis=0).get().tolist()
        stop = (_max(nz, axis=0).get() + 1).tolist()
        if "f" not in trim:
            start = [None] * filt_.ndim
        if "b" not in trim:
            stop = [None] * filt_.ndim
    sl = tuple(slice(start[ax], stop[ax]) if ax in axis_tuple else slice(None) for ax in range(filt_.ndim))
    return filt_[sl]


def unstack(x, /, *, axis=0):
    """The views of ``x`` along ``axis``, as a tuple (the array API's ``unstack``).

    .. seealso:: numpy.unstack"""
    x = asarray(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    m = moveaxis(x, axis, 0)
    return tuple(m[i] for i in range(m.shape[0]))


# NumPy deprecated ``row_stack`` in 2.0 and removed it in 2.5 (CuPy 14 has none):
# gpupy has the alias, with NumPy's warning, exactly when the installed NumPy has it.
if hasattr(numpy, "row_stack"):

    def row_stack(tup, *, dtype=None, casting="same_kind"):
        """``vstack`` under its old name, deprecated (only with a NumPy that still has it).

        .. seealso:: numpy.vstack"""
        warnings.warn(
            "`row_stack` alias is deprecated. Use `np.vstack` directly.", DeprecationWarning, stacklevel=2
        )
        return vstack(tup, dtype=dtype, casting=casting)

    __all__.append("row_stack")


# ---------------------------------------------------------------------------------------
# block: NumPy's algorithm (its "slicing" path: one output, each block copied into place)


def _block_format_index(index):
    return "arrays" + "".join(f"[{i}]" for i in index if i is not None)


def _block_check_depths_match(arrays, parent_index=()):
    parent_index = list(parent_index)
    if isinstance(arrays, tuple):
        raise TypeError(
            f"{_block_format_index(parent_index)} is a tuple. Only lists can be used to arrange blocks, "
            "and np.block does not allow implicit conversion from tuple to ndarray."
        )
    if isinstance(arrays, list) and len(arrays) > 0:
        idxs_ndims = (_block_check_depths_match(arr, parent_index + [i]) for i, arr in enumerate(arrays))
        first_index, max_arr_ndim, final_size = next(idxs_ndims)
        for index, ndim, size in idxs_ndims:
            final_size += size
            max_arr_ndim = max(max_arr_ndim, ndim)
            if len(index) != len(first_index):
                raise ValueError(
                    "List depths are mismatched. First element was at "
                    f"depth {len(first_index)}, but there is an element at "
                    f"depth {len(index)} ({_block_format_index(index)})"
                )
            if index[-1] is None:
                first_index = index
        return first_index, max_arr_ndim, final_size
    if isinstance(arrays, list):
        return parent_index + [None], 0, 0
    if isinstance(arrays, ndarray):
        return parent_index, arrays.ndim, arrays.size
    return parent_index, numpy.ndim(arrays), numpy.size(arrays)


# NumPy's ``block`` joins blocks by repeated ``concatenate`` unless the result is large
# (``list_ndim * size > 2 * 512 * 512``: then it copies into slices, as gpupy always
# does); a shape mismatch raises the error of the path NumPy takes.
_BLOCK_SLICING_MIN = 2 * 512 * 512


def _concatenate_shapes(shapes, axis, slicing_error):
    shape_at_axis = [shape[axis] for shape in shapes]
    first = shapes[0]
    for i, s in enumerate(shapes[1:], 1):
        if s[:axis] != first[:axis] or s[axis + 1 :] != first[axis + 1 :]:
            if slicing_error:
                raise ValueError(f"Mismatched array shapes in block along axis {axis}.")
            d = next(d for d in range(len(first)) if d != axis and s[d] != first[d])
            raise ValueError(
                "all the input array dimensions except for the concatenation axis must match exactly, "
                f"but along dimension {d}, the array at index 0 has size {first[d]} and the array "
                f"at index {i} has size {s[d]}"
            )
    shape = first[:axis] + (sum(shape_at_axis),) + first[axis + 1 :]
    offsets, total = [], 0
    for n in shape_at_axis:
        offsets.append((total, total + n))
        total += n
    return shape, [(slice(a, b),) for a, b in offsets]


def _block_info(arrays, max_depth, result_ndim, slicing_error, depth=0):
    if depth < max_depth:
        shapes, slices, arrs = zip(
            *[_block_info(a, max_depth, result_ndim, slicing_error, depth + 1) for a in arrays]
        )
        axis = result_ndim - max_depth + depth
        shape, prefixes = _concatenate_shapes(shapes, axis, slicing_error)
        slices = [p + s for p, inner in zip(prefixes, slices) for s in inner]
        return shape, slices, functools.reduce(operator.add, arrs)
    arr = array(arrays, copy=False, ndmin=result_ndim)
    return arr.shape, [()], [arr]


def block(arrays):
    """An array assembled from nested lists of blocks: the innermost lists join along
    the last axis, the outer ones along earlier axes (NumPy's ``block``).

    .. seealso:: numpy.block"""
    bottom_index, arr_ndim, final_size = _block_check_depths_match(arrays)
    list_ndim = len(bottom_index)
    if bottom_index and bottom_index[-1] is None:
        raise ValueError(f"List at {_block_format_index(bottom_index)} cannot be empty")
    result_ndim = max(arr_ndim, list_ndim)
    slicing_error = list_ndim * final_size > _BLOCK_SLICING_MIN
    shape, slices, arrs = _block_info(arrays, list_ndim, result_ndim, slicing_error)
    dtype = numpy.result_type(*[a.dtype for a in arrs])
    result = empty(shape, dtype)
    for sl, a in zip(slices, arrs):
        if a.size:
            _gpupy._copyto(result[(Ellipsis,) + sl], a.astype(dtype, copy=False))
    return result


# ---------------------------------------------------------------------------------------
# Applying functions


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to each 1-d slice of ``arr`` along ``axis`` (one Python call
    per slice; the function receives gpupy arrays), its results stacked in the place of
    that axis.

    .. seealso:: numpy.apply_along_axis"""
    arr = asarray(arr)
    nd = arr.ndim
    axis = _normalize_axis(axis, nd)
    in_dims = list(range(nd))
    view = transpose(arr, in_dims[:axis] + in_dims[axis + 1 :] + [axis])
    inds = iter(numpy.ndindex(view.shape[:-1]))
    try:
        ind0 = next(inds)
    except StopIteration:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0") from None
    res = asarray(func1d(view[ind0 + (Ellipsis,)], *args, **kwargs))
    buff = zeros(view.shape[:-1] + res.shape, dtype=res.dtype)
    buff_dims = list(range(buff.ndim))
    buff_permute = buff_dims[:axis] + buff_dims[buff.ndim - res.ndim :] + buff_dims[axis : buff.ndim - res.ndim]
    buff[ind0 + (Ellipsis,)] = res
    for ind in inds:
        buff[ind + (Ellipsis,)] = asarray(func1d(view[ind + (Ellipsis,)], *args, **kwargs))
    return transpose(buff, buff_permute)


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied repeatedly over ``axes``, each result's reduced axis kept
    as length 1 (``func`` such as ``gpupy.sum``).

    .. seealso:: numpy.apply_over_axes"""
    val = asarray(a)
    n = val.ndim
    if numpy.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        if axis < 0:
            axis = n + axis
        res = func(val, axis)
        if res.ndim == val.ndim:
            val = res
        else:
            res = expand_dims(res, axis)
            if res.ndim == val.ndim:
                val = res
            else:
                raise ValueError("function is not returning an array of the correct shape")
    return val
