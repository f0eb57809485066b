"""Array manipulation (NumPy's "Array manipulation routines"): shapes, axes, joins,
splits, tiling, repeats, flips, rolls and padding.

Results are views wherever NumPy's are (reshape when the strides allow it, transpose,
moveaxis, swapaxes, expand_dims, squeeze, broadcast_to, flips, rot90, split pieces);
everything else allocates one output and fills it with strided copies of views of the
input (``concatenate`` copies each input into its slice of the output, ``tile`` and
scalar ``repeat`` copy one broadcast view, ``pad`` and ``roll`` copy runs of slices).
"""

import itertools
import operator

import numpy

from gpupy import _gpupy, _indexing
from gpupy._creation import asarray, empty, empty_like
from gpupy._gpupy import ndarray

try:  # NumPy >= 2.0
    from numpy.exceptions import AxisError
except ImportError:  # pragma: no cover
    from numpy import AxisError


def _normalize_axis(axis, ndim, argname=None):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim, argname)
    return axis % ndim if ndim else axis


def _normalize_axis_tuple(axis, ndim, argname=None, allow_duplicate=False):
    if not isinstance(axis, (tuple, list)):
        try:
            axis = [operator.index(axis)]
        except TypeError:
            axis = list(axis)
    axes = tuple(_normalize_axis(a, ndim, argname) for a in axis)
    if not allow_duplicate and len(set(axes)) != len(axes):
        if argname:
            raise ValueError(f"repeated axis in `{argname}` argument")
        raise ValueError("repeated axis")
    return axes


def _slice_along(ndim, axis, sl):
    return (slice(None),) * axis + (sl,) + (slice(None),) * (ndim - axis - 1)


# ---------------------------------------------------------------------------------------
# Shapes and axes


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """``a`` with a new shape: a view when the strides allow it, else a copy (``copy=True``
    always copies, ``copy=False`` refuses to)."""
    if newshape is not None:
        if shape is not None:
            raise TypeError("You cannot specify 'newshape' and 'shape' arguments at the same time.")
        shape = newshape
    if shape is None:
        raise TypeError("reshape() missing 1 required positional argument: 'shape'")
    a = asarray(a)
    if copy:
        a = a.copy()
    r = a.reshape(shape, order=order)
    if copy is False and not _gpupy._shares_buffer(r, a):
        raise ValueError("Unable to avoid creating a copy while reshaping.")
    return r


def ravel(a, order="C"):
    return asarray(a).ravel(order)


def transpose(a, axes=None):
    a = asarray(a)
    return a.transpose() if axes is None else a.transpose(tuple(axes))


def moveaxis(a, source, destination):
    """Axes ``source`` moved to ``destination``; the others keep their order (a view)."""
    a = asarray(a)
    src = _normalize_axis_tuple(source, a.ndim, "source")
    dst = _normalize_axis_tuple(destination, a.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    return _gpupy._moveaxis(a, list(src), list(dst))


def swapaxes(a, axis1, axis2):
    return asarray(a).swapaxes(axis1, axis2)


def rollaxis(a, axis, start=0):
    a = asarray(a)
    n = a.ndim
    axis = _normalize_axis(axis, n)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return a.transpose(axes)


def expand_dims(a, axis):
    """New axes of length 1 at positions ``axis`` of the result (a view)."""
    a = asarray(a)
    if isinstance(axis, (tuple, list)):
        axes = list(axis)
    else:
        axes = [axis]
    out_ndim = a.ndim + len(axes)
    axes = _normalize_axis_tuple(axes, out_ndim)
    return _gpupy._expand_dims(a, list(axes))


def squeeze(a, axis=None):
    return asarray(a).squeeze(axis)


def broadcast_shapes(*args):
    return numpy.broadcast_shapes(*args)


def broadcast_to(array, shape, subok=False):
    """A view of ``array`` with ``shape`` (NumPy's is read-only; this one is not)."""
    a = asarray(array)
    shape = tuple(shape) if numpy.iterable(shape) else (shape,)
    shape = tuple(operator.index(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError("all elements of broadcast shape must be non-negative")
    return _gpupy._broadcast_to(a, list(shape))


def broadcast_arrays(*args, subok=False):
    """Views of the arrays with their common broadcast shape (a tuple, as NumPy 2)."""
    arrays = [asarray(a) for a in args]
    shape = numpy.broadcast_shapes(*(a.shape for a in arrays))
    if all(a.shape == shape for a in arrays):
        return tuple(arrays)
    return tuple(_gpupy._broadcast_to(a, list(shape)) for a in arrays)


def atleast_1d(*arys):
    res = []
    for ary in arys:
        ary = asarray(ary)
        res.append(ary.reshape(1) if ary.ndim == 0 else ary)
    return res[0] if len(res) == 1 else tuple(res)


def atleast_2d(*arys):
    res = []
    for ary in arys:
        ary = asarray(ary)
        if ary.ndim == 0:
            ary = ary.reshape(1, 1)
        elif ary.ndim == 1:
            ary = ary[None, :]
        res.append(ary)
    return res[0] if len(res) == 1 else tuple(res)


def atleast_3d(*arys):
    res = []
    for ary in arys:
        ary = asarray(ary)
        if ary.ndim == 0:
            ary = ary.reshape(1, 1, 1)
        elif ary.ndim == 1:
            ary = ary[None, :, None]
        elif ary.ndim == 2:
            ary = ary[:, :, None]
        res.append(ary)
    return res[0] if len(res) == 1 else tuple(res)


# ---------------------------------------------------------------------------------------
# Joining


def copyto(dst, src, casting="same_kind", where=True):
    """``dst[...] = src`` with broadcasting, if ``src``'s dtype casts to ``dst``'s under
    ``casting`` (Python scalars are weakly typed, as in NumPy 2)."""
    if not isinstance(dst, ndarray):
        raise TypeError(f"copyto() argument 1 must be gpupy.ndarray, not {type(dst).__name__}")
    if where is not True:
        raise NotImplementedError("gpupy.copyto supports where=True only")
    if isinstance(src, ndarray):
        src_dtype = src.dtype
    elif isinstance(src, (bool, int, float, complex)):
        src_dtype = numpy.result_type(src, dst.dtype)
    else:
        src = numpy.asarray(src)
        src_dtype = src.dtype
    if not numpy.can_cast(src_dtype, dst.dtype, casting):
        raise TypeError(
            f"Cannot cast array data from {src_dtype!r} to {dst.dtype!r} according to the rule {casting!r}"
        )
    if not isinstance(src, ndarray):
        src = asarray(numpy.asarray(src, dtype=dst.dtype) if src_dtype == dst.dtype else src)
    _gpupy._copyto(dst, src)


def _check_casting(arrays, dtype, casting):
    for a in arrays:
        if not numpy.can_cast(a.dtype, dtype, casting):
            raise TypeError(
                f"Cannot cast array data from {a.dtype!r} to {dtype!r} according to the rule {casting!r}"
            )


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """The arrays joined along ``axis`` (flattened first when ``axis`` is None): one output,
    each input copied (and converted) into its slice."""
    if dtype is not None and out is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an argument, but both were provided.")
    arrays = [asarray(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrays = [a.ravel() for a in arrays]
        axis = 0
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != ndim:
            raise ValueError(
                "all the input arrays must have same number of dimensions, but the array at index 0 "
                f"has {ndim} dimension(s) and the array at index {i} has {a.ndim} dimension(s)"
            )
    axis = _normalize_axis(axis, ndim)
    first = arrays[0].shape
    for i, a in enumerate(arrays[1:], 1):
        for d in range(ndim):
            if d != axis and a.shape[d] != first[d]:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis must match exactly, "
                    f"but along dimension {d}, the array at index 0 has size {first[d]} and the array "
                    f"at index {i} has size {a.shape[d]}"
                )
    shape = list(first)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("out must be a gpupy.ndarray")
        if list(out.shape) != shape:
            raise ValueError("Output array is the wrong shape")
        dt = out.dtype
    else:
        dt = numpy.result_type(*(a.dtype for a in arrays)) if dtype is None else numpy.dtype(dtype)
    _check_casting(arrays, dt, casting)
    if out is None:
        out = empty(shape, dt)
    start = 0
    for a in arrays:
        n = a.shape[axis]
        if n and a.size:
            _gpupy._copyto(out[_slice_along(ndim, axis, slice(start, start + n))], a)
        start += n
    return out


concat = concatenate


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """The arrays (all of one shape) joined along a new axis ``axis``."""
    arrays = [asarray(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    if len({a.shape for a in arrays}) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = _normalize_axis(axis, arrays[0].ndim + 1)
    expanded = [_gpupy._expand_dims(a, [axis]) for a in arrays]
    return concatenate(expanded, axis=axis, out=out, dtype=dtype, casting=casting)


def _as_sequence(tup, name):
    if isinstance(tup, ndarray) or not numpy.iterable(tup) or isinstance(tup, (str, bytes)):
        raise TypeError(f"arrays to {name} must be passed as a sequence type such as list or tuple.")
    return list(tup)


def hstack(tup, *, dtype=None, casting="same_kind"):
    arrs = atleast_1d(*_as_sequence(tup, "stack"))
    if not isinstance(arrs, tuple):
        arrs = (arrs,)
    if arrs and arrs[0].ndim == 1:
        return concatenate(arrs, 0, dtype=dtype, casting=casting)
    return concatenate(arrs, 1, dtype=dtype, casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    arrs = atleast_2d(*_as_sequence(tup, "stack"))
    if not isinstance(arrs, tuple):
        arrs = (arrs,)
    return concatenate(arrs, 0, dtype=dtype, casting=casting)


def dstack(tup):
    arrs = atleast_3d(*_as_sequence(tup, "stack"))
    if not isinstance(arrs, tuple):
        arrs = (arrs,)
    return concatenate(arrs, 2)


def column_stack(tup):
    arrays = []
    for v in _as_sequence(tup, "stack"):
        arr = asarray(v)
        if arr.ndim < 2:
            arr = atleast_2d(arr).T
        arrays.append(arr)
    return concatenate(arrays, 1)


# ---------------------------------------------------------------------------------------
# Splitting (every piece is a view)


def array_split(ary, indices_or_sections, axis=0):
    ary = asarray(ary)
    ntotal = ary.shape[axis]
    try:
        nsections = len(indices_or_sections) + 1
        div_points = [0] + list(indices_or_sections) + [ntotal]
    except TypeError:
        nsections = int(indices_or_sections)
        if nsections <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extras = divmod(ntotal, nsections)
        sizes = [0] + extras * [each + 1] + (nsections - extras) * [each]
        div_points = numpy.array(sizes, dtype=numpy.intp).cumsum().tolist()
    sary = swapaxes(ary, axis, 0)
    return [swapaxes(sary[div_points[i] : div_points[i + 1]], axis, 0) for i in range(nsections)]


def split(ary, indices_or_sections, axis=0):
    ary = asarray(ary)
    try:
        len(indices_or_sections)
    except TypeError:
        if ary.shape[axis] % indices_or_sections:
            raise ValueError("array split does not result in an equal division") from None
    return array_split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    ary = asarray(ary)
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    ary = asarray(ary)
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    ary = asarray(ary)
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


# ---------------------------------------------------------------------------------------
# Tiling and repeating


def _contiguous_copy(view):
    out = empty(view.shape, view.dtype)
    _gpupy._copyto(out, view)
    return out


def tile(A, reps):
    """``A`` repeated ``reps`` times along each axis: one copy of a broadcast view."""
    try:
        tup = tuple(reps)
    except TypeError:
        tup = (reps,)
    tup = tuple(operator.index(r) for r in tup)
    d = len(tup)
    A = asarray(A)
    if A.ndim < d:
        A = A.reshape((1,) * (d - A.ndim) + A.shape)
    if any(r < 0 for r in tup):
        raise ValueError("negative dimensions are not allowed")
    if all(r == 1 for r in tup):
        return A.copy()
    tup = (1,) * (A.ndim - d) + tup
    inter = []
    for s in A.shape:
        inter += [1, s]
    target = []
    for s, r in zip(A.shape, tup):
        target += [r, s]
    view = _gpupy._broadcast_to(A.reshape(inter), target)
    return _contiguous_copy(view).reshape([s * r for s, r in zip(A.shape, tup)])


def _repeat_counts(repeats, n):
    """The repeat counts as NumPy reads them: a scalar (an int), or one count per element
    (an intp array); values are truncated to integers as NumPy does."""
    if isinstance(repeats, ndarray):
        repeats = repeats.get()
    r = numpy.asarray(repeats)
    if r.ndim > 1:
        raise ValueError(
            "setting an array element with a sequence. The requested array would exceed the "
            "maximum number of dimension of 1."
        )
    r = r.astype(numpy.intp) if r.dtype.kind in "biuf" else numpy.array([int(v) for v in r.reshape(-1)], numpy.intp).reshape(r.shape)
    if r.size == 1:
        count = int(r.reshape(-1)[0])
        if count < 0:
            raise ValueError("negative dimensions are not allowed")
        return count
    if r.size != n:
        raise ValueError(f"operands could not be broadcast together with shape ({n},) ({r.size},)")
    if (r < 0).any():
        raise ValueError("repeats may not contain negative values.")
    return r


def repeat(a, repeats, axis=None):
    """Each element repeated ``repeats`` times along ``axis`` (the flattened array when
    None). A scalar count is one copy of a broadcast view; per-element counts copy each
    run of equal counts the same way."""
    a = asarray(a)
    if axis is None:
        a = a.ravel()
        axis = 0
    else:
        axis = _normalize_axis(axis, a.ndim)
    n = a.shape[axis]
    counts = _repeat_counts(repeats, n)
    shape = list(a.shape)
    if isinstance(counts, int):
        shape[axis] = n * counts
        src = a.reshape(a.shape[: axis + 1] + (1,) + a.shape[axis + 1 :])
        target = list(a.shape[: axis + 1]) + [counts] + list(a.shape[axis + 1 :])
        return _contiguous_copy(_gpupy._broadcast_to(src, target)).reshape(shape)
    shape[axis] = int(counts.sum())
    out = empty(shape, a.dtype)
    if out.size == 0:
        return out
    # Runs of equal counts: elements i0..i1 each repeated r times fill one block of the
    # output, which splits into (i1 - i0, r) along the axis.
    edges = numpy.flatnonzero(numpy.diff(counts)) + 1
    bounds = [0, *edges.tolist(), n]
    if len(bounds) - 1 > _MAX_RUN_COPIES:
        idx = numpy.repeat(numpy.arange(n, dtype=numpy.intp), counts)
        return _indexing.take(a, asarray(idx), axis=axis)
    o = 0
    for i0, i1 in zip(bounds[:-1], bounds[1:]):
        r = int(counts[i0])
        k = i1 - i0
        if r:
            dst = out[_slice_along(a.ndim, axis, slice(o, o + k * r))]
            split_shape = shape[:axis] + [k, r] + shape[axis + 1 :]
            src = a[_slice_along(a.ndim, axis, slice(i0, i1))]
            src = src.reshape(src.shape[: axis + 1] + (1,) + src.shape[axis + 1 :])
            _gpupy._copyto(dst.reshape(split_shape), _gpupy._broadcast_to(src, split_shape))
        o += k * r
    return out


# Beyond this many strided copies, the gather kernel (``take``) is used.
_MAX_RUN_COPIES = 32


def _runs(idx):
    """Maximal runs of constant step in ``idx``: (start position, end position, step)."""
    runs = []
    j = 0
    while j < len(idx):
        step = idx[j + 1] - idx[j] if j + 1 < len(idx) else 1
        end = j + 1
        while end < len(idx) and idx[end] - idx[end - 1] == step:
            end += 1
        runs.append((j, end, step))
        j = end
    return runs


def _take_runs(a, idx, axis):
    """``a`` gathered along ``axis`` at the host integer indices ``idx`` (all in range):
    runs of constant step are copied as strided views; many short runs go to ``take``."""
    idx = [int(i) for i in idx]
    runs = _runs(idx)
    if len(runs) > _MAX_RUN_COPIES:
        return _indexing.take(a, asarray(numpy.asarray(idx, dtype=numpy.intp)), axis=axis)
    return _copy_runs(a, idx, axis, runs)


def _copy_runs(a, idx, axis, runs):
    shape = list(a.shape)
    shape[axis] = len(idx)
    out = empty(shape, a.dtype)
    for j, end, step in runs:
        length = end - j
        dst = out[_slice_along(a.ndim, axis, slice(j, end))]
        first = idx[j]
        if step == 0:
            src = _gpupy._broadcast_to(a[_slice_along(a.ndim, axis, slice(first, first + 1))], dst.shape)
        else:
            last = first + (length - 1) * step
            stop = last + (1 if step > 0 else -1)
            src = a[_slice_along(a.ndim, axis, slice(first, stop if stop >= 0 else None, step))]
        _gpupy._copyto(dst, src)
    return out


# ---------------------------------------------------------------------------------------
# Rearranging


def flip(m, axis=None):
    """``m`` reversed along ``axis`` (all axes when None): a view."""
    m = asarray(m)
    if axis is None:
        return _gpupy._flip(m, None)
    return _gpupy._flip(m, list(_normalize_axis_tuple(axis, m.ndim)))


def fliplr(m):
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return _gpupy._flip(m, [1])


def flipud(m):
    m = asarray(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return _gpupy._flip(m, [0])


def roll(a, shift, axis=None):
    """Elements shifted cyclically along ``axis`` (of the flattened array when None)."""
    a = asarray(a)
    if axis is None:
        return roll(a.ravel(), shift, 0).reshape(a.shape)
    axes = _normalize_axis_tuple(axis, a.ndim, allow_duplicate=True)
    b = numpy.broadcast(numpy.asarray(shift), numpy.asarray(axes))
    if b.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    shifts = dict.fromkeys(range(a.ndim), 0)
    for sh, ax in b:
        shifts[int(ax)] += int(sh)
    rolls = [((slice(None), slice(None)),)] * a.ndim
    for ax, offset in shifts.items():
        offset %= a.shape[ax] or 1
        if offset:
            rolls[ax] = (
                (slice(None, -offset), slice(offset, None)),
                (slice(-offset, None), slice(None, offset)),
            )
    result = empty_like(a)
    for indices in itertools.product(*rolls):
        arr_index, res_index = zip(*indices)
        _gpupy._copyto(result[res_index], a[arr_index])
    return result


def rot90(m, k=1, axes=(0, 1)):
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``: a view."""
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    m = asarray(m)
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if axes[0] >= m.ndim or axes[0] < -m.ndim or axes[1] >= m.ndim or axes[1] < -m.ndim:
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k %= 4
    if k == 0:
        return m[:]
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    axes_list = list(range(m.ndim))
    axes_list[axes[0]], axes_list[axes[1]] = axes_list[axes[1]], axes_list[axes[0]]
    if k == 1:
        return transpose(flip(m, axes[1]), axes_list)
    return flip(transpose(m, axes_list), axes[1])


# ---------------------------------------------------------------------------------------
# Padding


def _as_pairs(x, ndim, as_index=False):
    """NumPy's ``_as_pairs``: ``x`` broadcast to ``ndim`` (before, after) pairs."""
    if x is None:
        return ((None, None),) * ndim
    x = numpy.array(x.get() if isinstance(x, ndarray) else x)
    if as_index:
        x = numpy.round(x).astype(numpy.intp, copy=False)
    if x.ndim < 3:
        if x.size == 1:
            x = x.ravel()
            if as_index and x < 0:
                raise ValueError("index can't contain negative values")
            return ((x[0], x[0]),) * ndim
        if x.size == 2 and x.shape != (2, 1):
            x = x.ravel()
            if as_index and (x[0] < 0 or x[1] < 0):
                raise ValueError("index can't contain negative values")
            return ((x[0], x[1]),) * ndim
    if as_index and x.min() < 0:
        raise ValueError("index can't contain negative values")
    return numpy.broadcast_to(x, (ndim, 2)).tolist()


_PAD_KWARGS = {
    "constant": {"constant_values"},
    "edge": set(),
    "reflect": {"reflect_type"},
    "symmetric": {"reflect_type"},
    "wrap": set(),
    "empty": set(),
    "linear_ramp": {"end_values"},
    "maximum": {"stat_length"},
    "mean": {"stat_length"},
    "median": {"stat_length"},
    "minimum": {"stat_length"},
}


def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` padded by ``pad_width`` (an int, a (before, after) pair, or one pair per
    axis) in mode ``constant``, ``edge``, ``reflect``, ``symmetric``, ``wrap`` or ``empty``."""
    a = asarray(array)
    if callable(mode) or mode not in _PAD_KWARGS:
        if callable(mode):
            raise NotImplementedError("gpupy.pad does not take a padding function")
        raise ValueError(f"mode '{mode}' is not supported")
    unsupported = set(kwargs) - _PAD_KWARGS[mode]
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if mode in ("linear_ramp", "maximum", "mean", "median", "minimum"):
        raise NotImplementedError(f"gpupy.pad does not implement mode '{mode}' yet")
    if kwargs.get("reflect_type", "even") != "even":
        if kwargs["reflect_type"] != "odd":
            raise ValueError("reflect_type must be 'even' or 'odd'")
        raise NotImplementedError("gpupy.pad supports reflect_type='even' only")
    widths = [(int(b), int(e)) for b, e in _as_pairs(pad_width, a.ndim, as_index=True)]
    shape = [n + b + e for n, (b, e) in zip(a.shape, widths)]
    if mode in ("constant", "empty") or a.size == 0:
        if a.size == 0 and mode not in ("constant", "empty"):
            for ax, (n, w) in enumerate(zip(a.shape, widths)):
                if n == 0 and any(w):
                    raise ValueError(
                        f"can't extend empty axis {ax} using modes other than 'constant' or 'empty'"
                    )
            return empty(shape, a.dtype)
        out = empty(shape, a.dtype)
        center = tuple(slice(b, b + n) for n, (b, _) in zip(a.shape, widths))
        if a.size:
            _gpupy._copyto(out[center], a)
        if mode == "constant":
            values = _as_pairs(kwargs.get("constant_values", 0), a.ndim)
            for ax, ((b, e), (vb, ve)) in enumerate(zip(widths, values)):
                # As NumPy: earlier axes over the original extent of later axes, so the
                # corners take the later axes' values.
                keep = tuple(slice(None) for _ in range(ax))
                rest = center[ax + 1 :]
                n = a.shape[ax]
                if b:
                    out[keep + (slice(0, b),) + rest].fill(vb)
                if e:
                    out[keep + (slice(b + n, b + n + e),) + rest].fill(ve)
        return out
    # edge, reflect, symmetric, wrap: the padded array is a[map_0][:, map_1]..., each axis's
    # map being NumPy's own padding of the indices 0..n-1; gathered axis by axis.
    cur = a
    for ax, (b, e) in enumerate(widths):
        if not (b or e):
            continue
        idx = numpy.pad(numpy.arange(a.shape[ax]), (b, e), mode=mode)
        cur = _take_runs(cur, idx, ax)
    return cur if cur is not a else a.copy()


__all__ = [
    "reshape", "ravel", "transpose", "moveaxis", "swapaxes", "rollaxis", "expand_dims",
    "squeeze", "broadcast_shapes", "broadcast_to", "broadcast_arrays", "atleast_1d",
    "atleast_2d", "atleast_3d", "copyto", "concatenate", "concat", "stack", "hstack", "vstack",
    "dstack", "column_stack", "array_split", "split", "hsplit", "vsplit", "dsplit", "tile",
    "repeat", "flip", "fliplr", "flipud", "roll", "rot90", "pad",
]
