"""Index generation and index-based filling (NumPy's "Indexing routines" beyond the
gathers of ``_indexing``): ``indices``, ``ix_``, ``unravel_index``,
``ravel_multi_index``, ``diag_indices(_from)``, ``fill_diagonal``, ``mask_indices``,
``take_along_axis``, ``put_along_axis``, ``place``, ``putmask``, ``select``,
``choose``, ``piecewise`` and the index objects ``r_``, ``c_``, ``s_``, ``index_exp``,
``mgrid``, ``ogrid`` and ``ndindex``.

Index arithmetic runs on the GPU (ufuncs over ``arange``, gathers and scatters through
advanced indexing). What depends on shapes only stays on the host: the positions
``fill_diagonal`` writes, and ``s_``, ``index_exp`` and ``ndindex``, which are NumPy's own
objects (they never touch array data). Bounds checks that NumPy reports as errors
(``unravel_index``, ``ravel_multi_index``, ``choose``) cost one small device-to-host
read each. ``ndenumerate`` is not provided: it yields Python scalars one element at a
time, which on a GPU array means one host read per element (use ``asnumpy`` first).
"""

import math
import operator

import numpy
from numpy import index_exp, ndindex, s_  # data-independent: NumPy's own objects

from gpupy import _gpupy, _math, _methods
from gpupy._creation import array, asarray, empty, full, ones, zeros_like
from gpupy._gpupy import ndarray
from gpupy._indexing import _result_dtype_arg, flatnonzero, nonzero, put, where
from gpupy._manipulation import _normalize_axis, broadcast_arrays, concatenate, stack, tile
from gpupy._ranges import arange, linspace
from gpupy._reduction import any as _any

__all__ = [
    "indices", "ix_", "unravel_index", "ravel_multi_index", "diag_indices", "diag_indices_from",
    "fill_diagonal", "mask_indices", "take_along_axis", "put_along_axis", "place", "putmask",
    "select", "choose", "piecewise", "r_", "c_", "s_", "index_exp", "mgrid", "ogrid", "ndindex",
]

_INTP_MAX = numpy.iinfo(numpy.intp).max


def _device(x):
    return x if isinstance(x, ndarray) else asarray(x)


def _int_index_array(x):
    """``x`` as a device int64 index array; NumPy's TypeError for non-integer input
    (booleans count as integers here, as in NumPy's ``unravel_index``)."""
    a = x if isinstance(x, ndarray) else numpy.asarray(x)
    if a.dtype.kind not in "iub":
        raise TypeError("only int indices permitted")
    return _device(a).astype(numpy.int64, copy=False)


def _shape_tuple(shape):
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        return (operator.index(shape),)


def _check_c_or_f(order):
    if order not in ("C", "F", "A", "K"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")


def _first_true_value(mask, values):
    """``int(values[mask][0])``, read back to the host, or None when no mask is set."""
    bad = flatnonzero(mask)
    if bad.size == 0:
        return None
    return int(values.reshape(-1)[bad[:1]].get()[0])


# ---------------------------------------------------------------------------------------
# Index grids


def indices(dimensions, dtype=int, sparse=False):
    """The index grid of shape ``dimensions``: an array of shape ``(N, *dimensions)``
    whose slice ``k`` holds the index along axis ``k`` (with ``sparse``, a tuple of
    broadcastable ranges instead).

    .. seealso:: numpy.indices"""
    dimensions = tuple(dimensions)
    n = len(dimensions)
    ones_shape = (1,) * n
    res = () if sparse else empty((n,) + dimensions, dtype=dtype)
    for i, dim in enumerate(dimensions):
        idx = arange(dim, dtype=dtype).reshape(ones_shape[:i] + (dim,) + ones_shape[i + 1 :])
        if sparse:
            res = res + (idx,)
        elif res.size:
            res[i] = idx
    return res


def ix_(*args):
    """Open-mesh index arrays from 1-d sequences (boolean ones as their nonzero
    positions): ``a[ix_(rows, cols)]`` is the cross product.

    .. seealso:: numpy.ix_"""
    out = []
    nd = len(args)
    for k, new in enumerate(args):
        if not isinstance(new, ndarray):
            host = numpy.asarray(new)
            if host.size == 0:
                host = host.astype(numpy.intp)  # an empty list is an index, not floats
            new = asarray(host)
        if new.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if new.dtype.kind == "b":
            (new,) = nonzero(new)
        out.append(new.reshape((1,) * k + (new.size,) + (1,) * (nd - k - 1)))
    return tuple(out)


def unravel_index(indices, shape, order="C"):
    """The coordinate arrays (int64, ``indices``' shape) of the flat ``indices`` into an
    array of ``shape``; ValueError for an index out of bounds, as NumPy.

    .. seealso:: numpy.unravel_index"""
    _check_c_or_f(order)
    dims = _shape_tuple(shape)
    idx = _int_index_array(indices)
    size = math.prod(dims)
    if size > _INTP_MAX:
        raise ValueError("dimensions are too large")
    if idx.size:
        bad = _math.logical_or(_math.less(idx, 0), _math.greater_equal(idx, size))
        v = _first_true_value(bad, idx)
        if v is not None:
            raise ValueError(f"index {v} is out of bounds for array with size {size}")
    coords = [None] * len(dims)
    rest = idx
    axes = range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))
    for ax in axes:
        d = dims[ax]
        coords[ax] = _math.remainder(rest, d)
        rest = _math.floor_divide(rest, d)
    return tuple(coords)


def _clip_modes(mode, n):
    modes = [mode] * n if isinstance(mode, str) else list(mode)
    if len(modes) != n:
        raise ValueError(f"mode must be a string or a sequence of length {n}")
    for m in modes:
        if m not in ("raise", "wrap", "clip"):
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {m!r})")
    return modes


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """The flat (int64) indices of the coordinate arrays ``multi_index`` into an array
    of shape ``dims``; coordinates out of bounds raise ValueError (``mode='raise'``),
    wrap or clip, per axis when ``mode`` is a sequence.

    .. seealso:: numpy.ravel_multi_index"""
    dims = _shape_tuple(dims)
    if order not in ("C", "F"):
        _check_c_or_f(order)
    size = math.prod(dims)
    if size > _INTP_MAX:
        raise ValueError("invalid dims: array size defined by dims is larger than the maximum possible size.")
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = _clip_modes(mode, len(dims))
    coords = broadcast_arrays(*[_int_index_array(c) for c in multi_index])
    shape = coords[0].shape if coords else ()
    if coords and coords[0].size and 0 in dims:
        raise ValueError("cannot unravel if shape has zero entries (is empty).")
    strides = [0] * len(dims)
    s = 1
    for ax in (range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))):
        strides[ax] = s
        s *= dims[ax]
    flat = full(shape, 0, dtype=numpy.int64)
    for c, d, m, st in zip(coords, dims, modes, strides):
        if m == "wrap":
            c = _math.remainder(c, d)
        elif m == "clip":
            c = _math.minimum(_math.maximum(c, 0), d - 1)
        elif c.size:
            bad = _math.logical_or(_math.less(c, 0), _math.greater_equal(c, d))
            if bool(_any(bad)):
                raise ValueError("invalid entry in coordinates array")
        flat = flat + c * st
    return flat


# ---------------------------------------------------------------------------------------
# Diagonals and masks


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an ``n`` x ... x ``n`` array (``ndim`` copies
    of ``arange(n)``).

    .. seealso:: numpy.diag_indices"""
    idx = arange(n)
    return (idx,) * ndim


def diag_indices_from(arr):
    """``diag_indices`` for the shape of ``arr`` (at least 2-d, all sides equal).

    .. seealso:: numpy.diag_indices_from"""
    if not arr.ndim >= 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def _cyclic(values, n, dtype):
    """The flattened ``values`` repeated cyclically to length ``n``, in ``dtype`` (how
    NumPy's flat assignment repeats a short right-hand side)."""
    v = _device(values if isinstance(values, ndarray) else numpy.asarray(values, dtype=dtype)).reshape(-1)
    v = v.astype(dtype, copy=False)
    if v.size == n or v.size == 0:
        return v
    return tile(v, -(-n // v.size))[:n]


def fill_diagonal(a, val, wrap=False):
    """Writes ``val`` (repeated cyclically when an array) onto the main diagonal of ``a``
    in place; for a tall 2-d ``a`` with ``wrap``, the diagonal restarts below each
    square block, as NumPy's.

    .. seealso:: numpy.fill_diagonal"""
    if not isinstance(a, ndarray):
        raise TypeError(f"fill_diagonal() needs a gpupy.ndarray to write to, not {type(a).__name__}")
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    end = None
    if a.ndim == 2:
        step = a.shape[1] + 1
        if not wrap:
            end = a.shape[1] * a.shape[1]
    else:
        if len(set(a.shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + int(numpy.cumprod(a.shape[:-1]).sum())
    # The flat positions depend on the shape only: NumPy's a.flat[:end:step].
    positions = numpy.arange(a.size)[:end:step]
    if positions.size == 0:
        return
    scalar = not isinstance(val, ndarray) and numpy.ndim(val) == 0
    if scalar:
        values = val
    else:
        values = _cyclic(val, positions.size, a.dtype)
        if values.size == 0:
            return
    flat = a.reshape(-1)
    if _gpupy._shares_buffer(flat, a):  # a flat view: one strided write
        flat[:end:step] = values
    else:
        a[numpy.unravel_index(positions, a.shape)] = values


def mask_indices(n, mask_func, k=0):
    """The indices where ``mask_func(ones((n, n)), k)`` is nonzero (``mask_func`` such as
    ``gpupy.triu``).

    .. seealso:: numpy.mask_indices"""
    m = ones((n, n), dtype=int)
    a = mask_func(m, k)
    return nonzero(_math.not_equal(a, 0))


# ---------------------------------------------------------------------------------------
# Along an axis


def _along_axis_index(arr_shape, indices, axis):
    """NumPy's ``_make_along_axis_idx``: ``indices`` on ``axis``, aranges elsewhere."""
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if len(arr_shape) != indices.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    ones_shape = (1,) * indices.ndim
    fancy = []
    for dim, n in enumerate(arr_shape):
        if dim == axis:
            fancy.append(indices)
        else:
            fancy.append(arange(n).reshape(ones_shape[:dim] + (-1,) + ones_shape[dim + 1 :]))
    return tuple(fancy)


def take_along_axis(arr, indices, axis=-1):
    """``arr`` gathered at ``indices`` along ``axis`` (matching 1-d slices), as
    NumPy's ``take_along_axis``; ``axis=None`` works on the flattened ``arr``.

    .. seealso:: numpy.take_along_axis"""
    arr = _device(arr)
    indices = _device(indices)
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        arr = arr.reshape(-1)
        axis = 0
    else:
        axis = _normalize_axis(axis, arr.ndim)
    return arr[_along_axis_index(arr.shape, indices, axis)]


def put_along_axis(arr, indices, values, axis):
    """``arr`` written in place at ``indices`` along ``axis`` with ``values``
    (broadcast), as NumPy's ``put_along_axis``. With repeated indices one of the values
    lands (which one is unspecified, as in gpupy's scatters).

    .. seealso:: numpy.put_along_axis"""
    if not isinstance(arr, ndarray):
        raise TypeError(f"put_along_axis() needs a gpupy.ndarray to write to, not {type(arr).__name__}")
    indices = _device(indices)
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        flat = arr.reshape(-1)
        flat[_along_axis_index(flat.shape, indices, 0)] = values
        if not _gpupy._shares_buffer(flat, arr):  # no flat view: copy the written copy back
            arr[...] = flat.reshape(arr.shape)
        return
    axis = _normalize_axis(axis, arr.ndim)
    arr[_along_axis_index(arr.shape, indices, axis)] = values


# ---------------------------------------------------------------------------------------
# Masked writes


def place(arr, mask, vals):
    """Writes the first values of ``vals`` (repeated cyclically) into ``arr`` where the
    flattened ``mask`` is true, in place.

    .. seealso:: numpy.place"""
    if not isinstance(arr, ndarray):
        raise TypeError(f"place() argument 1 must be gpupy.ndarray, not {type(arr).__name__}")
    m = _device(mask).reshape(-1)
    if m.size != arr.size:
        raise ValueError("place: mask and data must be the same size")
    pos = flatnonzero(m)
    if pos.size == 0:
        return
    v = vals.reshape(-1) if isinstance(vals, ndarray) else numpy.asarray(vals).reshape(-1)
    if v.size == 0:
        raise ValueError("Cannot insert from an empty array!")
    put(arr, pos, v)  # the first pos.size values, repeated when fewer; cast to arr's dtype


def putmask(a, /, mask, values):
    """``a.flat[i] = values.flat[i % values.size]`` where ``mask.flat[i]`` is true, in
    place (values are taken by position, not by count as in ``place``).

    .. seealso:: numpy.putmask"""
    if not isinstance(a, ndarray):
        raise TypeError("putmask: first argument must be an array")
    m = _device(mask).reshape(-1)
    if m.size != a.size:
        raise ValueError("putmask: mask and data must be the same size")
    if m.dtype.kind != "b":
        m = _math.not_equal(m, 0)
    v = values if isinstance(values, ndarray) else numpy.asarray(values)
    if v.size == 0 or a.size == 0:
        return
    full_values = _cyclic(v, a.size, a.dtype)
    r = where(m, full_values, a.reshape(-1))
    a[...] = r.reshape(a.shape)


# ---------------------------------------------------------------------------------------
# Choosing among arrays


def select(condlist, choicelist, default=0):
    """Elements of ``choicelist[i]`` where ``condlist[i]`` is the first true condition,
    ``default`` where none is (all broadcast together; the dtype is the choices' and
    default's ``result_type``).

    .. seealso:: numpy.select"""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    py_scalar = (int, float, complex)
    choices = [c if type(c) in py_scalar else (c if isinstance(c, ndarray) else numpy.asarray(c)) for c in choicelist]
    dflt = default if type(default) in py_scalar else (default if isinstance(default, ndarray) else numpy.asarray(default))
    try:
        dtype = numpy.result_type(*[_result_dtype_arg(c) for c in choices + [dflt]])
    except TypeError as e:
        raise TypeError(f"Choicelist and default value do not have a common dtype: {e}") from None
    conds = [c if isinstance(c, ndarray) else numpy.asarray(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != numpy.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    # The Python scalars among the choices are weak in the result dtype, but NumPy then
    # writes each choice as an array (int64, float64, complex128) with ``copyto``'s
    # ``same_kind`` rule: a Python int choice into an unsigned result raises there.
    # (The default is filled in unchecked, as NumPy's ``full`` does.)
    for choice in choices[::-1]:
        if type(choice) in py_scalar:
            src = numpy.asarray(choice).dtype
            if not numpy.can_cast(src, dtype, "same_kind"):
                raise TypeError(f"Cannot cast array data from {src!r} to {dtype!r} according to the rule 'same_kind'")
    result = _device(numpy.asarray(dflt, dtype=dtype)) if not isinstance(dflt, ndarray) else dflt.astype(dtype)
    for cond, choice in zip(conds[::-1], choices[::-1]):
        c = choice.astype(dtype) if isinstance(choice, ndarray) else asarray(numpy.asarray(choice, dtype=dtype))
        result = where(_device(cond), c, result)
    # NumPy's result has the broadcast shape even where no condition picks a choice.
    shapes = [c.shape if isinstance(c, ndarray) else numpy.shape(c) for c in conds + choices + [dflt]]
    shape = numpy.broadcast_shapes(*shapes)
    if result.shape != shape:
        result = _gpupy._broadcast_to(result, list(shape)).copy()
    return result.astype(dtype, copy=False)


def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for every ``i`` (``a`` and the choices broadcast together):
    ``mode`` ``'raise'`` (ValueError for an index out of range), ``'wrap'`` or
    ``'clip'``.

    .. seealso:: numpy.choose"""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    idx = a if isinstance(a, ndarray) else numpy.asarray(a)
    if not numpy.can_cast(idx.dtype, numpy.intp, "safe"):
        raise TypeError(f"Cannot cast array data from {idx.dtype!r} to dtype('int64') according to the rule 'safe'")
    if isinstance(choices, ndarray):
        choices = [choices[i] for i in range(choices.shape[0])]
    else:
        choices = list(choices)
    n = len(choices)
    if n == 0:
        raise ValueError("0-length sequence.")
    dtype = numpy.result_type(*[_result_dtype_arg(c) for c in choices])
    dev = [c.astype(dtype, copy=False) if isinstance(c, ndarray) else asarray(numpy.asarray(c, dtype=dtype))
           for c in choices]
    idx = _device(idx).astype(numpy.int64, copy=False)
    idx, *dev = broadcast_arrays(idx, *dev)
    if mode == "wrap":
        idx = _math.remainder(idx, n)
    elif mode == "clip":
        idx = _math.minimum(_math.maximum(idx, 0), n - 1)
    elif idx.size and bool(_any(_math.logical_or(_math.less(idx, 0), _math.greater_equal(idx, n)))):
        raise ValueError("invalid entry in choice array")
    stacked = stack(dev)  # (n, *shape): one gather along the first axis picks each element
    r = take_along_axis(stacked, idx.reshape((1,) + idx.shape), axis=0)[0]
    if out is None:
        return r
    if not isinstance(out, ndarray):
        raise TypeError("out must be a gpupy.ndarray")
    out[...] = r
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i](x[condlist[i]])`` (or the constant ``funclist[i]``) where condition
    ``i`` holds, zero elsewhere; one more function than conditions gives the value
    where none holds. The functions receive gpupy arrays.

    .. seealso:: numpy.piecewise"""
    x = _device(x)
    n2 = len(funclist)

    def is_scalar_cond(c):
        return (isinstance(c, ndarray) and c.ndim == 0) or numpy.isscalar(c)

    if is_scalar_cond(condlist) or (
        not isinstance(condlist[0], (list, numpy.ndarray)) and not (isinstance(condlist[0], ndarray) and condlist[0].ndim)
        and x.ndim != 0
    ):
        condlist = [condlist]
    if isinstance(condlist, ndarray):
        cl = condlist.astype(numpy.bool_)
    else:
        cl = stack([_device(c if isinstance(c, ndarray) else numpy.asarray(c)) for c in condlist]).astype(numpy.bool_)
    n = len(cl)
    if n == n2 - 1:  # the "otherwise" condition
        condelse = _math.logical_not(_any(cl, axis=0, keepdims=True))
        cl = concatenate([cl, condelse], axis=0)
        n += 1
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = zeros_like(x)
    for i, func in enumerate(funclist):
        cond = cl[i]
        if not callable(func):
            y[cond] = func
        else:
            vals = x[cond]
            if vals.size > 0:
                y[cond] = func(vals, *args, **kw)
    return y


# ---------------------------------------------------------------------------------------
# Index objects: r_, c_, mgrid, ogrid


class AxisConcatenator:
    """NumPy's ``AxisConcatenator`` (behind ``r_`` and ``c_``) building gpupy arrays:
    slices become ``arange``/``linspace``, values and arrays are joined with
    ``concatenate``; the directive strings ``'axis'``, ``'axis,ndmin[,trans1d]'`` work.
    The matrix directives ``'r'``/``'c'`` are refused (gpupy has no matrix class)."""

    __slots__ = ("axis", "matrix", "ndmin", "trans1d")

    def __init__(self, axis=0, matrix=False, ndmin=1, trans1d=-1):
        self.axis = axis
        self.matrix = matrix
        self.trans1d = trans1d
        self.ndmin = ndmin

    def __getitem__(self, key):
        if isinstance(key, str):
            raise NotImplementedError("gpupy has no matrix class: r_/c_ take no matrix strings")
        if not isinstance(key, tuple):
            key = (key,)
        trans1d = self.trans1d
        ndmin = self.ndmin
        axis = self.axis
        objs = []
        type_objs = []
        for k, item in enumerate(key):
            scalar = False
            if isinstance(item, slice):
                step, start, stop = item.step, item.start, item.stop
                if start is None:
                    start = 0
                if step is None:
                    step = 1
                if isinstance(step, (numpy.complexfloating, complex)):
                    newobj = linspace(start, stop, num=int(abs(step)))
                else:
                    newobj = arange(start, stop, step)
                if ndmin > 1:
                    newobj = array(newobj, copy=False, ndmin=ndmin)
                    if trans1d != -1:
                        newobj = newobj.swapaxes(-1, trans1d)
            elif isinstance(item, str):
                if k != 0:
                    raise ValueError("special directives must be the first entry.")
                if item in ("r", "c"):
                    raise NotImplementedError("gpupy has no matrix class: r_/c_ take no 'r'/'c' directive")
                if "," in item:
                    vec = item.split(",")
                    try:
                        axis, ndmin = [int(v) for v in vec[:2]]
                        if len(vec) == 3:
                            trans1d = int(vec[2])
                        continue
                    except Exception as e:
                        raise ValueError(f"unknown special directive {item!r}") from e
                try:
                    axis = int(item)
                    continue
                except (ValueError, TypeError) as e:
                    raise ValueError("unknown special directive") from e
            elif type(item) in numpy.ScalarType:
                scalar = True
                newobj = item
            else:
                item_ndim = item.ndim if isinstance(item, ndarray) else numpy.ndim(item)
                newobj = array(item, copy=False, ndmin=ndmin)
                if trans1d != -1 and item_ndim < ndmin:
                    k2 = ndmin - item_ndim
                    k1 = trans1d
                    if k1 < 0:
                        k1 += k2 + 1
                    defaxes = list(range(ndmin))
                    axes = defaxes[:k1] + defaxes[k2:] + defaxes[k1:k2]
                    newobj = newobj.transpose(axes)
            objs.append(newobj)
            type_objs.append(item if scalar else newobj.dtype)
        if type_objs:
            final_dtype = numpy.result_type(*type_objs)
            objs = [array(obj, dtype=final_dtype, copy=False, ndmin=ndmin) for obj in objs]
        return concatenate(tuple(objs), axis=axis)

    def __len__(self):
        return 0


class RClass(AxisConcatenator):
    """``r_[...]``: joins slices, scalars and arrays along the first axis."""

    __slots__ = ()

    def __init__(self):
        AxisConcatenator.__init__(self, 0)


class CClass(AxisConcatenator):
    """``c_[...]``: joins along the last axis, 1-d items as columns."""

    __slots__ = ()

    def __init__(self):
        AxisConcatenator.__init__(self, -1, ndmin=2, trans1d=0)


r_ = RClass()
c_ = CClass()


class nd_grid:
    """NumPy's ``nd_grid`` (behind ``mgrid`` and ``ogrid``) building gpupy arrays: a
    slice's complex step is a number of points (``linspace``), a real one a step."""

    __slots__ = ("sparse",)

    def __init__(self, sparse=False):
        self.sparse = sparse

    def __getitem__(self, key):
        try:
            size = []
            num_list = [0]  # as arange: a dtype at least as wide as the default integer
            for k in range(len(key)):
                step, start, stop = key[k].step, key[k].start, key[k].stop
                if start is None:
                    start = 0
                if step is None:
                    step = 1
                if isinstance(step, (numpy.complexfloating, complex)):
                    step = abs(step)
                    size.append(int(step))
                else:
                    size.append(math.ceil((stop - start) / step))
                num_list += [start, stop, step]
            typ = numpy.result_type(*num_list)
            if self.sparse:
                nn = [arange(s, dtype=typ) for s in size]
            else:
                nn = indices(size, typ)
            for k, kk in enumerate(key):
                step, start = kk.step, kk.start
                if start is None:
                    start = 0
                if step is None:
                    step = 1
                if isinstance(step, (numpy.complexfloating, complex)):
                    step = int(abs(step))
                    if step != 1:
                        step = (kk.stop - start) / float(step - 1)
                nn[k] = nn[k] * step + start
            if self.sparse:
                slobj = [None] * len(size)
                for k in range(len(size)):
                    slobj[k] = slice(None, None)
                    nn[k] = nn[k][tuple(slobj)]
                    slobj[k] = None
                return tuple(nn)
            return nn
        except (IndexError, TypeError):
            step, stop, start = key.step, key.stop, key.start
            if start is None:
                start = 0
            if isinstance(step, (numpy.complexfloating, complex)):
                step_float = abs(step)
                step = length = int(step_float)
                if step != 1:
                    step = (key.stop - start) / float(step - 1)
                typ = numpy.result_type(start, stop, step_float)
                return arange(0, length, 1, dtype=typ) * step + start
            return arange(start, stop, step)

    def __len__(self):
        return 0


class MGridClass(nd_grid):
    """``mgrid[...]``: a dense mesh grid (one array, the coordinates first)."""

    __slots__ = ()

    def __init__(self):
        super().__init__(sparse=False)


class OGridClass(nd_grid):
    """``ogrid[...]``: an open mesh grid (a tuple of broadcastable arrays)."""

    __slots__ = ()

    def __init__(self):
        super().__init__(sparse=True)


mgrid = MGridClass()
ogrid = OGridClass()

_methods.attach({"choose": choose})
