"""Sorting, searching and order statistics (NumPy's "Sorting, searching, and counting"
and the quantiles of "Statistics"): ``sort``, ``argsort``, ``partition``,
``argpartition``, ``searchsorted``, ``unique`` and the array API's ``unique_*``,
``median``, ``percentile`` and ``quantile``.

Every sort is the stable LSD radix sort of the Rust extension (``_gpupy._sort``), so all
``kind`` values give NumPy's ``kind='stable'`` result, which also satisfies what NumPy
promises for the other kinds. A full stable sort is a valid partition, so ``partition``
and ``argpartition`` sort. The rest is composed here from the sort, the binary-search
kernel behind ``searchsorted``, gathers (``take``), compaction (``flatnonzero``) and
ufuncs, all on the GPU; only NumPy's argument checks and a few scalars (``q``,
``kth``) stay on the host.
"""

import operator
import warnings
from collections import namedtuple

import numpy

from gpupy import _gpupy, _math, _methods
from gpupy._creation import asarray, empty, full
from gpupy._gpupy import ndarray
from gpupy._indexing import flatnonzero, take, where
from gpupy._manipulation import _normalize_axis_tuple, concatenate, moveaxis
from gpupy._ranges import arange

try:
    from numpy.exceptions import AxisError
except ImportError:  # NumPy < 1.25
    from numpy import AxisError

__all__ = [
    "sort",
    "argsort",
    "partition",
    "argpartition",
    "searchsorted",
    "unique",
    "unique_values",
    "unique_counts",
    "unique_inverse",
    "unique_all",
    "median",
    "percentile",
    "quantile",
]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _normalize_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)
    return axis % ndim


def _check_kind(kind, stable, order):
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. Use only one of them.")
    if kind is None:
        return
    if not isinstance(kind, str):
        raise TypeError(f"sort kind must be str, not {type(kind).__name__}")
    if not kind or kind[0].lower() not in "qhms":
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")


def _sort(a, axis, argsort):
    a = asarray(a)
    if axis is None:
        return _gpupy._sort(a, None, argsort)
    if a.ndim == 0 and argsort:
        # NumPy's argsort of a 0-d array is the 1-d array [0].
        return _gpupy._sort(a, None, True)
    return _gpupy._sort(a, _normalize_axis(axis, a.ndim), argsort)


def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """A sorted copy of ``a`` along ``axis`` (flattened when ``None``). NaNs sort last,
    also with ``descending=True`` (NumPy 2.5's and the array API's keyword); the sort is
    stable whatever ``kind`` says.

    .. seealso:: numpy.sort"""
    _check_kind(kind, stable, order)
    if descending:
        return _reverse_order(_sort(_reverse_order(asarray(a)), axis, False))
    return _sort(a, axis, False)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """The int64 indices that sort ``a`` along ``axis``, stable: equal values keep their
    order, as NumPy's ``kind='stable'``, also with ``descending=True`` (NaNs last).

    .. seealso:: numpy.argsort"""
    _check_kind(kind, stable, order)
    if descending:
        return _sort(_reverse_order(asarray(a)), axis, True)
    return _sort(a, axis, True)


def _reverse_order(a):
    """An order-reversing bijection of ``a``'s values that is its own inverse, so that an
    ascending stable sort of it is a descending stable sort of ``a`` (equal values keep
    their order, which flipping an ascending sort would reverse): ``~x`` for integers (no
    overflow, unlike ``-x`` at the minimum), ``not x`` for booleans, ``-x`` for floating
    and complex values (a NaN stays a NaN, so NaNs stay last)."""
    kind = a.dtype.kind
    if kind == "b":
        return _math.logical_not(a)
    if kind in "iu":
        return _math.invert(a)
    return _math.negative(a)


def _check_kth(kth, a, axis, kind, order):
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got {kind!r})")
    if isinstance(kth, ndarray):
        kth = kth.get()
    k = numpy.asarray(kth)
    if k.dtype.kind == "b":
        raise ValueError("Booleans unacceptable as partition index")
    if k.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    if axis is None:
        n = a.size
    else:
        if a.ndim == 0:
            raise AxisError(axis, 0)
        n = a.shape[_normalize_axis(axis, a.ndim)]
    for v in k.ravel().tolist():
        if not -n <= v < n:
            raise ValueError(f"kth(={v}) out of bounds ({n})")


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """``a`` with the elements at positions ``kth`` where a full sort puts them, smaller
    ones before and larger ones after. gpupy sorts fully (a valid partition).

    .. seealso:: numpy.partition"""
    a = asarray(a)
    _check_kth(kth, a, axis, kind, order)
    return _sort(a, axis, False)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """The indices that partition ``a`` (see ``partition``): a full stable argsort.

    .. seealso:: numpy.argpartition"""
    a = asarray(a)
    if a.ndim == 0 and axis is not None:
        # NumPy partitions a 0-d array as the 1-d array [a].
        return argpartition(a.reshape(1), kth, 0, kind, order)
    _check_kth(kth, a, axis, kind, order)
    return _sort(a, axis, True)


def _as_device(x):
    """``x`` as a gpupy array, Python and NumPy scalars keeping NumPy's weak or strong type."""
    return x if isinstance(x, ndarray) else asarray(x)


def searchsorted(a, v, side="left", sorter=None):
    """Int64 indices where the values ``v`` go into the sorted 1-d ``a`` to keep it sorted:
    before equal values (``side='left'``) or after them (``'right'``). ``sorter``: the
    indices that sort ``a`` (``argsort(a)``). NaNs and complex numbers order as in
    ``sort``.

    .. seealso:: numpy.searchsorted"""
    if side not in ("left", "right"):
        raise ValueError(f"search side must be 'left' or 'right' (got {side!r})")
    a = asarray(a)
    if a.ndim != 1:
        raise ValueError("object too deep for desired array")
    host_v = v if isinstance(v, ndarray) else numpy.asarray(v)
    # NumPy compares in the common dtype of a and v (a Python scalar's type is weak).
    dtype = numpy.result_type(a.dtype, v if isinstance(v, (int, float, complex)) else host_v.dtype)
    if dtype.kind not in "biufc" and dtype.name != "bfloat16":
        raise TypeError(f"searchsorted: gpupy has no kernels for dtype {dtype}")
    values = asarray(host_v) if not isinstance(host_v, ndarray) else host_v
    if sorter is not None:
        s = sorter if isinstance(sorter, ndarray) else numpy.asarray(sorter)
        if s.dtype.kind not in "iu":
            raise TypeError("sorter must only contain integers")
        if s.size != a.size:
            raise ValueError("sorter.size must equal a.size")
        try:
            a = take(a, s.reshape(-1) if isinstance(s, ndarray) else s.ravel())
        except IndexError:
            raise ValueError("Sorter index out of range.") from None
    if a.dtype != dtype:
        a = a.astype(dtype)
    if values.dtype != dtype:
        values = values.astype(dtype)
    return _gpupy._searchsorted(a, values, side == "right")


def _unique_sorted(ar, need_perm):
    """The flattened ``ar`` sorted stably, and the permutation when asked for."""
    flat = ar.reshape(-1)
    if not need_perm:
        return _gpupy._sort(flat, None, False), None
    perm = _gpupy._sort(flat, None, True)
    return take(flat, perm), perm


def _run_starts(s, equal_nan):
    """Positions in the sorted 1-d ``s`` where a new value starts (int64). With
    ``equal_nan``, all NaNs (for complex: values with a NaN part, which sort last) are one
    value, as in NumPy 2."""
    n = s.size
    mask = empty(n, dtype=numpy.bool_)
    mask[:1] = True
    if n > 1:
        new = _math.not_equal(s[1:], s[:-1])
        if equal_nan and s.dtype.kind in "fc":
            both_nan = _math.logical_and(_math.isnan(s[1:]), _math.isnan(s[:-1]))
            new = _math.logical_and(new, _math.logical_not(both_nan))
        mask[1:] = new
    return flatnonzero(mask)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True, sorted=True):
    """The sorted unique values of ``ar`` (flattened), with optionally the index of each
    one's first occurrence, the inverse (``ar``'s shape, as NumPy 2 returns it) and the
    counts. NaNs count as one value unless ``equal_nan=False``.

    .. seealso:: numpy.unique"""
    ar = asarray(ar)
    if axis is not None:
        raise NotImplementedError("gpupy.unique supports axis=None (the flattened array) so far")
    n = ar.size
    s, perm = _unique_sorted(ar, return_index or return_inverse)
    starts = _run_starts(s, equal_nan) if n else empty(0, dtype=numpy.int64)
    values = take(s, starts) if n else s
    extra = []
    if return_index:
        extra.append(take(perm, starts) if n else empty(0, dtype=numpy.int64))
    if return_inverse:
        inv = empty(n, dtype=numpy.int64)
        if n:
            # Sorted position p belongs to the last run starting at or before p.
            ids = searchsorted(starts, arange(n, dtype=numpy.int64), side="right") - 1
            inv[perm] = ids
        extra.append(inv.reshape(ar.shape))
    if return_counts:
        if n:
            ends = concatenate([starts[1:], asarray(numpy.array([n], dtype=numpy.int64))])
            extra.append(ends - starts)
        else:
            extra.append(empty(0, dtype=numpy.int64))
    return (values, *extra) if extra else values


def unique_values(x, /):
    """The unique values of ``x``, NaNs distinct (array API; gpupy returns them sorted)."""
    return unique(x, equal_nan=False)


def unique_counts(x, /):
    r = unique(x, return_counts=True, equal_nan=False)
    return UniqueCountsResult(*r)


def unique_inverse(x, /):
    r = unique(x, return_inverse=True, equal_nan=False)
    return UniqueInverseResult(*r)


def unique_all(x, /):
    r = unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)
    return UniqueAllResult(*r)


# --- order statistics ----------------------------------------------------------------


def _rows_last(a, axis):
    """``a`` with the reduced axes moved last and merged into one, sorted along it, and
    the shape of the kept axes. ``axis`` None, an int or a tuple of ints."""
    if axis is None:
        axes = tuple(range(a.ndim))
    else:
        axes = _normalize_axis_tuple(axis, a.ndim)
    keep = [d for d in range(a.ndim) if d not in axes]
    kept_shape = tuple(a.shape[d] for d in keep)
    n = 1
    for d in axes:
        n *= a.shape[d]
    moved = a.transpose(tuple(keep) + tuple(axes)).reshape(kept_shape + (n,))
    return _gpupy._sort(moved, -1, False), kept_shape, axes, n


def _keepdims_shape(shape_front, ndim, axes, kept_shape):
    """The result shape with ``keepdims``: the reduced axes kept as 1s."""
    full = []
    it = iter(kept_shape)
    for d in range(ndim):
        full.append(1 if d in axes else next(it))
    return tuple(shape_front) + tuple(full)


def _finish(result, out, keepdims, front, a, axes, kept_shape):
    if keepdims:
        result = result.reshape(_keepdims_shape(front, a.ndim, axes, kept_shape))
    if out is not None:
        out[...] = result
        return out
    return result


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median along ``axis`` (None, int or tuple): the middle value of each sorted
    slice, or the mean of the two middle ones; NaN where a slice has a NaN.

    .. seealso:: numpy.median"""
    a = asarray(a)
    with numpy.errstate(all="ignore"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            dtype = numpy.median(numpy.ones(2, dtype=a.dtype)).dtype  # NumPy's result dtype
    s, kept_shape, axes, n = _rows_last(a, axis)
    if n == 0:
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
        result = full(kept_shape, numpy.nan, dtype=dtype)
        return _finish(result, out, keepdims, (), a, axes, kept_shape)
    h = n // 2
    # Averages in NumPy's mean accumulator: float32 for float16, else the result dtype.
    acc = numpy.float32 if dtype == numpy.float16 else dtype
    hi = s[..., h].astype(acc)
    if n % 2:
        result = hi
    else:
        lo = s[..., h - 1].astype(acc)
        result = _math.true_divide(_math.add(lo, hi), 2)
    result = result.astype(dtype)
    if a.dtype.kind in "fc":
        last = s[..., n - 1]
        result = where(_math.isnan(last), last.astype(dtype), result)
    return _finish(result, out, keepdims, (), a, axes, kept_shape)


def _check_method(method, interpolation):
    if interpolation is not None:
        method = interpolation
    if method != "linear":
        raise NotImplementedError(f"gpupy's quantiles support method='linear' so far, not {method!r}")


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None, interpolation=None):
    """The ``q``-th quantiles (``q`` in [0, 1], scalar or 1-d) along ``axis``, linearly
    interpolated between the sorted values as NumPy's ``method='linear'``; NaN where a
    slice has a NaN. ``q``'s dimensions come first in the result.

    .. seealso:: numpy.quantile"""
    _check_method(method, interpolation)
    if weights is not None:
        raise NotImplementedError("gpupy's quantiles take no weights so far")
    weak_q = type(q) in (int, float)
    qh = q.get() if isinstance(q, ndarray) else numpy.asanyarray(q)
    if qh.size and not (numpy.all(qh >= 0) and numpy.all(qh <= 1)):
        raise ValueError("Quantiles must be in the range [0, 1]")
    return _quantile(a, q if weak_q else qh, qh, axis, out, keepdims)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None, interpolation=None):
    """The ``q``-th percentiles (``q`` in [0, 100]): ``quantile(a, q / 100)``.

    .. seealso:: numpy.percentile"""
    _check_method(method, interpolation)
    if weights is not None:
        raise NotImplementedError("gpupy's quantiles take no weights so far")
    weak_q = type(q) in (int, float)
    qh = numpy.asanyarray(numpy.true_divide(q.get() if isinstance(q, ndarray) else q, 100))
    if weak_q:
        q = q / 100
    if qh.size and not (numpy.all(qh >= 0) and numpy.all(qh <= 1)):
        raise ValueError("Percentiles must be in the range [0, 100]")
    return _quantile(a, q if weak_q else qh, qh, axis, out, keepdims)


def _quantile(a, q, qh, axis, out, keepdims):
    a = asarray(a)
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    if qh.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    # NumPy's result dtype (and its TypeError for bool) from the same call on two values.
    dtype = numpy.quantile(numpy.ones(2, dtype=a.dtype), q).dtype
    s, kept_shape, axes, n = _rows_last(a, axis)
    if n == 0:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    # Virtual indices, their neighbours and weights, on the host as NumPy computes them.
    virtual = numpy.asanyarray((n - 1) * q)
    if virtual.dtype.kind in "iu":
        prev = nxt = virtual.astype(numpy.intp)
        gamma = None
    else:
        # NumPy's _get_indexes: past the last value both neighbours are -1 (the last),
        # before the first both 0; gamma is taken from those, as NumPy does.
        prev = numpy.floor(virtual)
        nxt = prev + 1
        above = virtual >= n - 1
        prev = numpy.where(above, -1, prev)
        nxt = numpy.where(above, -1, nxt)
        below = virtual < 0
        prev = numpy.where(below, 0, prev).astype(numpy.intp)
        nxt = numpy.where(below, 0, nxt).astype(numpy.intp)
        gamma = numpy.asanyarray(virtual - prev, dtype=virtual.dtype)
    qshape = qh.shape
    front = qshape

    def gather(idx):
        # (kept..., nq) -> (q..., kept...)
        g = take(s, asarray(idx.reshape(-1).astype(numpy.int64)), axis=-1)
        g = moveaxis(g, -1, 0)
        return g.reshape(qshape + kept_shape)

    lo = gather(prev)
    if gamma is None:
        result = lo
    else:
        hi = gather(nxt)
        if q is not qh:  # a Python scalar q: NumPy's weak float gamma
            t = float(gamma)
            omt = 1 - t
            use_hi = t >= 0.5
        else:
            rs = qshape + (1,) * len(kept_shape)
            t = asarray(gamma.reshape(rs))
            omt = asarray((1 - gamma).reshape(rs))
            use_hi = asarray((gamma >= 0.5).reshape(rs))
        diff = hi - lo
        low_side = lo + diff * t
        rd = low_side.dtype
        high_side = _math.subtract(hi.astype(rd), (diff * omt).astype(rd))
        result = where(use_hi, high_side, low_side)
    result = result.astype(dtype)
    if a.dtype.kind in "fc":
        last = s[..., n - 1]
        result = where(_math.isnan(last), last.astype(dtype), result)
    return _finish(result, out, keepdims, front, a, axes, kept_shape)


# --- ndarray methods ------------------------------------------------------------------


def _method_sort(self, axis=-1, kind=None, order=None, *, stable=None):
    """``a.sort()``: sorts in place along ``axis`` (an int)."""
    _check_kind(kind, stable, order)
    axis = _normalize_axis(axis, self.ndim) if self.ndim else _normalize_axis(axis, 0)
    self[...] = _gpupy._sort(self, axis, False)


def _method_argsort(self, axis=-1, kind=None, order=None, *, stable=None):
    return argsort(self, axis, kind, order, stable=stable)


def _method_partition(self, kth, axis=-1, kind="introselect", order=None):
    """``a.partition(kth)``: partitions in place (by sorting)."""
    _check_kth(kth, self, axis, kind, order)
    self[...] = _gpupy._sort(self, _normalize_axis(axis, self.ndim), False)


def _method_argpartition(self, kth, axis=-1, kind="introselect", order=None):
    return argpartition(self, kth, axis, kind, order)


def _method_searchsorted(self, v, side="left", sorter=None):
    return searchsorted(self, v, side, sorter)


_methods.attach({"sort": _method_sort, "argsort": _method_argsort, "partition": _method_partition,
                 "argpartition": _method_argpartition, "searchsorted": _method_searchsorted})
