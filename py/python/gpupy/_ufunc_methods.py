"""NumPy's ufunc methods for gpupy's ufuncs (``reduce``, ``accumulate``, ``outer``, ``at``,
``reduceat``) and the keywords of a ufunc call that the Rust fast path leaves out
(``where=``, ``casting=``, ``order=``, ``subok=``, ``signature=``): ``gpupy.ufunc``'s
methods (``py/src/ufunc.rs``) call the functions of this module.

Everything is composed of existing GPU operations: the reduction and scan kernels where
NumPy's ufunc has one (``add`` is ``sum``/``cumsum``, ``minimum`` is ``min``, ...), and
otherwise the ufunc's own elementwise kernel, applied

- as a pairwise tree (``log2 n`` launches) for reductions of associative, commutative
  ufuncs (``bitwise_*``, ``gcd``, ``hypot``, ``logaddexp``, ...);
- as a Hillis-Steele scan (``log2 n`` launches over the whole array) for accumulations
  and segmented reductions (``reduceat``, the duplicate indices of ``at``) of associative
  ufuncs: each step combines ``x[j - d]`` with ``x[j]``, so the left-to-right order of
  the operands is kept;
- sequentially along the axis (one launch per element of the axis: slow for long axes,
  but NumPy's exact order of operations) for the others (``divide``, ``power``,
  ``arctan2``, ...). ``subtract`` is ``x0 - sum(x1, ...)`` (exact for integers; for
  floats the sum's rounding differs from NumPy's serial loop).

Argument checks, errors and result dtypes are NumPy's own: the NumPy ufunc method runs
first on stand-ins, host arrays of the same dtypes whose every length is clipped to 1
(a zero length stays zero, so NumPy's errors about empty reductions are the same), or
the Python and NumPy scalars themselves. No data of a gpupy array goes to the host,
except the indices of ``reduceat`` (NumPy checks them one by one) and one count per
``at`` call (how many times the most repeated index occurs).
"""

import warnings

import numpy

from gpupy import _gpupy, _math
from gpupy._creation import _new_like, asarray, empty, full, zeros
from gpupy._gpupy import ndarray
from gpupy._indexing import flatnonzero, take, where as _select
from gpupy._manipulation import _normalize_axis, _normalize_axis_tuple, broadcast_to, concatenate, moveaxis
from gpupy._ranges import arange
from gpupy._reduction import all as _all, any as _any, count_nonzero, max as _max, min as _min
from gpupy._reduction import nanmax, nanmin, prod, sum as _sum
from gpupy._scan import cumprod, cumsum
from gpupy._sorting import argsort

__all__ = ["call", "reduce", "accumulate", "outer", "at", "reduceat"]

_NO_VALUE = numpy._NoValue

# Ufuncs whose operation is associative and commutative (exactly for integers, min/max
# and logic; up to rounding for hypot and logaddexp, as NumPy's pairwise add is): their
# reductions may be evaluated as a tree and their repeated ``at`` indices grouped. Not
# lcm: once a partial result wraps (NumPy's lcm overflows silently) the next lcm takes
# its absolute value, so the grouping changes the result; it folds left as NumPy does.
_ASSOCIATIVE = frozenset([
    "add", "multiply", "minimum", "maximum", "fmin", "fmax", "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "hypot", "logaddexp", "logaddexp2",
])
# Ufuncs with f(x, x) == x: a masked-out element may be replaced by ``initial``.
_IDEMPOTENT = frozenset(["minimum", "maximum", "fmin", "fmax", "logical_and", "logical_or", "bitwise_and",
                         "bitwise_or", "gcd"])
# On booleans NumPy's add is logical or, and multiply logical and.
_BOOL_NAMES = {"add": "logical_or", "multiply": "logical_and"}


# ---------------------------------------------------------------------------------------
# NumPy's answers on stand-ins


def _np_ufunc(ufunc):
    return getattr(numpy, ufunc.__name__)


def _clipped(shape):
    return tuple(min(n, 1) for n in shape)


def _stand_in(x):
    """What NumPy sees of an operand: a host array of its dtype with every length
    clipped to 1 (gpupy and NumPy arrays, sequences), or the scalar itself."""
    if x is None or isinstance(x, (bool, int, float, complex, numpy.generic)):
        return x
    if isinstance(x, ndarray):
        return numpy.ones(_clipped(x.shape), x.dtype)
    h = numpy.asarray(x)
    return numpy.ones(_clipped(h.shape), h.dtype)


def _ask_numpy(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` on stand-ins, with NumPy's floating-point warnings off
    (stand-in values are not the data); NumPy's errors propagate as they are."""
    with numpy.errstate(all="ignore"):
        return fn(*args, **kwargs)


def _device(x):
    """An operand on the device: gpupy arrays as they are, scalars as they are (weakly
    typed Python scalars stay so), NumPy arrays and sequences copied over."""
    if isinstance(x, ndarray) or isinstance(x, (bool, int, float, complex, numpy.generic)):
        return x
    return asarray(x)


def _as_array(x, dtype=None):
    """``x`` as a gpupy array (a 0-d one for a scalar), of ``dtype`` when given."""
    if isinstance(x, ndarray):
        return x if dtype is None else x.astype(dtype, copy=False)
    h = numpy.asarray(x) if dtype is None else numpy.asarray(x).astype(dtype)
    return asarray(h)


def _single_out(out, name):
    """``out`` as one array or None (NumPy's methods take a 1-tuple too)."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError(f"The 'out' tuple must have exactly one entry per ufunc output ({name} has 1)")
        out = out[0]
    if out is not None and not isinstance(out, ndarray):
        raise TypeError("return arrays must be of ArrayType (a gpupy.ndarray)")
    return out


def _store(out, r):
    """``r`` written into ``out`` (cast unsafely: NumPy has checked the casting rule on
    the stand-ins), or ``r`` itself."""
    if out is None:
        return r
    if tuple(out.shape) != tuple(r.shape):
        raise ValueError(f"output parameter has shape {out.shape}, the result has shape {r.shape}")
    if r.dtype != out.dtype:
        r = r.astype(out.dtype)
    _gpupy._copyto(out, r)
    return out


def _identity(np_ufunc, dtype):
    """The ufunc's identity in ``dtype`` as a NumPy scalar (NumPy's own reduction of an
    empty array), or None."""
    if np_ufunc.identity is None:
        return None
    return _scalar(np_ufunc.identity, dtype)


def _scalar(value, dtype):
    """``value`` as a NumPy scalar of ``dtype`` (cast unsafely, as NumPy casts an
    identity or an ``initial``: -1 is 255 in uint8)."""
    with numpy.errstate(all="ignore"):
        return numpy.asarray(value).astype(dtype)[()]


def _binary(ufunc, dtype):
    """``ufunc`` as a binary function whose result stays in ``dtype``."""
    def op(x, y):
        r = ufunc(x, y)
        return r if r.dtype == dtype else r.astype(dtype)
    return op


# ---------------------------------------------------------------------------------------
# Building blocks along the last axis


def _tree_last(op, x):
    """``op`` folded over the last axis as a pairwise tree (associative, commutative
    ``op``); the last axis is removed. ``x.shape[-1]`` must be at least 1."""
    while x.shape[-1] > 1:
        n = x.shape[-1]
        h = n // 2
        y = op(x[..., :h], x[..., h:2 * h])
        x = concatenate([y, x[..., 2 * h:]], axis=-1) if n % 2 else y
    return x[..., 0]


def _serial_last(op, x, start=None, mask=None):
    """``op`` folded left to right over the last axis, from ``start`` when given: NumPy's
    own order, one launch per element. With ``mask`` (``start`` given: NumPy requires
    ``initial`` with a mask when there is no identity), elements where it is False are
    skipped."""
    acc = x[..., 0].copy() if start is None else start
    for j in range(0 if start is not None else 1, x.shape[-1]):
        new = op(acc, x[..., j])
        acc = new if mask is None else _select(mask[..., j], new, acc)
    return acc


def _scan_last(op, x, segments=None):
    """Inclusive scan of ``op`` along the last axis (Hillis-Steele: ``log2 n`` steps, each
    combining ``x[j - d]`` with ``x[j]``, so associativity is all it needs). With
    ``segments`` (a 1-d int64 array of segment numbers, non-decreasing), the scan restarts
    where the number changes."""
    n = x.shape[-1]
    d = 1
    while d < n:
        comb = op(x[..., :-d], x[..., d:])
        if segments is not None:
            comb = _select(_math.equal(segments[:-d], segments[d:]), comb, x[..., d:])
        y = x.copy()
        y[..., d:] = comb
        x = y
        d *= 2
    return x


def _serial_scan_last(op, x):
    """Inclusive scan of ``op`` along the last axis in NumPy's serial order."""
    r = x.copy()
    for j in range(1, x.shape[-1]):
        r[..., j] = op(r[..., j - 1], x[..., j])
    return r


# ---------------------------------------------------------------------------------------
# reduce


def _reduce_axes(x, axes, keepdims):
    """``x`` with ``axes`` moved to the end and merged into one, and the result shape."""
    ndim = x.ndim
    keep = [d for d in range(ndim) if d not in axes]
    moved = x.transpose(keep + list(axes))
    k = 1
    for d in axes:
        k *= x.shape[d]
    flat = moved.reshape(tuple(x.shape[d] for d in keep) + (k,))
    if keepdims:
        shape = tuple(1 if d in axes else n for d, n in enumerate(x.shape))
    else:
        shape = tuple(x.shape[d] for d in keep)
    return flat, shape


def reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """``ufunc.reduce``: ``ufunc`` applied along ``axis`` (a tuple of axes, or None for all,
    for reorderable ufuncs), starting from ``initial`` when given, over the elements
    where ``where`` is true."""
    name = ufunc.__name__
    np_uf = _np_ufunc(ufunc)
    a = _as_array(_device(array))
    out = _single_out(out, name)
    masked = not (where is True or (isinstance(where, (bool, numpy.bool_)) and where))
    kw = dict(axis=axis, dtype=dtype, keepdims=keepdims, where=_stand_in(where) if masked else True)
    if initial is not _NO_VALUE:
        kw["initial"] = initial
    rdt = _ask_numpy(np_uf.reduce, _stand_in(a), **kw).dtype
    if out is not None:
        _ask_numpy(np_uf.reduce, _stand_in(a), out=_stand_in(out), **kw)
    if a.ndim == 0 or axis is None:
        axes = tuple(range(a.ndim))  # NumPy takes axis=0 of a 0-d array as no axis
    else:
        axes = tuple(sorted(_normalize_axis_tuple(axis, a.ndim)))
    ident = _identity(np_uf, rdt)
    mask = None
    if masked:
        # Masked-out elements become a value that leaves the result unchanged: the
        # identity, ``initial`` for idempotent ufuncs, 0 for subtract's right operands;
        # other ufuncs skip them in their serial loop.
        mask = broadcast_to(_as_array(where), a.shape)
        if ident is not None:
            fill = ident
        elif name in _IDEMPOTENT:
            fill = _scalar(initial, rdt)
        elif name == "subtract":
            fill = _scalar(0, rdt)
        else:
            fill = None
        if fill is not None:
            a = _select(mask, a.astype(rdt, copy=False), fill)
            mask = None
    return _store(out, _reduce_values(ufunc, name, a, axes, rdt, keepdims, initial, ident, mask))


def _reduce_values(ufunc, name, a, axes, rdt, keepdims, initial, ident, mask=None):
    """The reduction of ``a`` over ``axes`` in the result dtype ``rdt`` (arguments already
    checked by NumPy); ``mask``: elements to skip (the serial loop's only)."""
    k = 1
    for d in axes:
        k *= a.shape[d]
    has_initial = initial is not _NO_VALUE
    if rdt.kind == "b":
        name = _BOOL_NAMES.get(name, name)
    op = _binary(ufunc, rdt)
    flat, shape = _reduce_axes(a, axes, keepdims)
    if k == 0:
        # (No identity and no initial: NumPy has raised unless the result is empty too.)
        value = _scalar(initial, rdt) if has_initial else (ident if ident is not None else _scalar(0, rdt))
        return full(shape, value, dtype=rdt)
    ax = list(axes)
    if name == "add":
        r = _sum(a, ax, dtype=rdt, keepdims=keepdims)
    elif name == "multiply":
        r = prod(a, ax, dtype=rdt, keepdims=keepdims)
    elif name in ("minimum", "maximum"):
        r = (_min if name == "minimum" else _max)(a.astype(rdt, copy=False), ax, keepdims=keepdims)
    elif name in ("fmin", "fmax") and rdt.kind == "f":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices: NaN, silently as fmin
            r = (nanmin if name == "fmin" else nanmax)(a.astype(rdt, copy=False), ax, keepdims=keepdims)
    elif name == "logical_and":
        r = _all(a, ax, keepdims=keepdims)
    elif name == "logical_or":
        r = _any(a, ax, keepdims=keepdims)
    elif name == "logical_xor":
        r = _math.not_equal(_math.bitwise_and(count_nonzero(a, ax, keepdims=keepdims), 1), 0)
    elif name == "subtract" and mask is None:
        x = flat.astype(rdt, copy=False)
        start = op(_scalar(initial, rdt), x[..., 0]) if has_initial else x[..., 0]
        rest = _sum(x[..., 1:], -1, dtype=rdt) if k > 1 else zeros(start.shape, rdt)
        return op(start, rest).reshape(shape)
    elif name in _ASSOCIATIVE and mask is None:
        r = _tree_last(op, flat.astype(rdt, copy=False)).reshape(shape)
    else:
        x = flat.astype(rdt, copy=False)
        start = broadcast_to(_as_array(_scalar(initial, rdt)), x.shape[:-1]).copy() if has_initial else None
        skip = None if mask is None else _reduce_axes(mask, axes, keepdims)[0]
        return _serial_last(op, x, start, skip).reshape(shape)
    r = _as_array(r, rdt)
    if has_initial:
        r = op(r, _scalar(initial, rdt))
    return r


# ---------------------------------------------------------------------------------------
# accumulate


def accumulate(ufunc, array, axis=0, dtype=None, out=None):
    """``ufunc.accumulate``: the running ``ufunc`` along ``axis``."""
    name = ufunc.__name__
    np_uf = _np_ufunc(ufunc)
    a = _as_array(_device(array))
    out = _single_out(out, name)
    rdt = _ask_numpy(np_uf.accumulate, _stand_in(a), axis=axis, dtype=dtype).dtype
    if out is not None:
        _ask_numpy(np_uf.accumulate, _stand_in(a), axis=axis, dtype=dtype, out=_stand_in(out))
    axis = _normalize_axis(axis, a.ndim)
    if a.size == 0:
        return _store(out, empty(a.shape, rdt))
    if rdt.kind == "b":
        name = _BOOL_NAMES.get(name, name)
    if name == "add":
        return _store(out, cumsum(a, axis, dtype=rdt))
    if name == "multiply":
        return _store(out, cumprod(a, axis, dtype=rdt))
    x = moveaxis(a, axis, -1).astype(rdt, copy=False)
    op = _binary(ufunc, rdt)
    if name == "logical_or":
        r = _math.greater(cumsum(_math.not_equal(x, 0), -1), 0)
    elif name == "logical_and":
        r = _math.equal(cumsum(_math.equal(x, 0), -1), 0)
    elif name == "subtract":
        r = x.copy()
        if x.shape[-1] > 1:
            r[..., 1:] = op(x[..., :1], cumsum(x[..., 1:], -1, dtype=rdt))
    elif name in _ASSOCIATIVE:
        r = _scan_last(op, x)
    else:
        r = _serial_scan_last(op, x)
    return _store(out, moveaxis(r.astype(rdt, copy=False), -1, axis))


# ---------------------------------------------------------------------------------------
# outer


def outer(ufunc, A, B, /, **kwargs):
    """``ufunc.outer``: ``ufunc(A[..., None, ...], B)``, every pair of elements."""
    if ufunc.nin != 2:
        raise ValueError("outer product only supported for binary functions")
    a = _as_array(_device(A))
    b = _as_array(_device(B))
    return ufunc(a.reshape(a.shape + (1,) * b.ndim), b, **kwargs)


# ---------------------------------------------------------------------------------------
# at


def at(ufunc, a, indices, b=None, /):
    """``ufunc.at``: unbuffered in place, ``a[indices] = ufunc(a[indices], b)`` with every
    repeated index applied once per occurrence, in order.

    The positions are sorted (stably) so that repeats sit together. For associative,
    commutative ufuncs (and ``subtract``, through ``add``), the values of each repeated
    position are combined by a segmented scan first, then applied once; otherwise the
    updates run in rounds, the k-th occurrence of every position in round k (as many
    rounds as the most repeated position has occurrences)."""
    name = ufunc.__name__
    np_uf = _np_ufunc(ufunc)
    if ufunc.nin == 2 and b is None:
        raise ValueError("second operand needed for ufunc")
    if ufunc.nin == 1 and b is not None:
        raise ValueError("second operand provided when ufunc is unary")
    if not isinstance(a, ndarray):
        raise TypeError(f"{name}.at needs a gpupy.ndarray to update in place, not {type(a).__name__}")
    if ufunc.nin == 2:
        b = _device(b)
        _ask_numpy(np_uf.at, numpy.ones(1, a.dtype), [0], _stand_in(b) if not isinstance(b, ndarray)
                   else numpy.ones((), b.dtype))
    else:
        _ask_numpy(np_uf.at, numpy.ones(1, a.dtype), [0])  # NumPy's error for a dtype with no loop
    # Flat positions of the selected elements, by gpupy's own indexing (its bounds errors).
    pos = arange(a.size, dtype=numpy.int64).reshape(a.shape)[indices]
    if pos.size == 0:
        return None
    p = pos.reshape(-1)
    order = argsort(p)
    ps = take(p, order)
    grouping = False
    if ufunc.nin == 2:
        loop = np_uf.resolve_dtypes((a.dtype, _operand_type(b), None))
        in_dt = numpy.dtype(loop[1])
        v = broadcast_to(_as_array(b, in_dt), pos.shape).reshape(-1)
        vs = take(v, order)
        # Combining the repeats first is NumPy's result only when each step's result
        # needs no cast back into ``a`` (int8 + 0.5 + 0.5 truncates twice in NumPy).
        grouping = (name in _ASSOCIATIVE or name == "subtract") and numpy.dtype(loop[2]) == a.dtype \
            and in_dt == a.dtype
    first = concatenate([full((1,), True, dtype=bool), _math.not_equal(ps[1:], ps[:-1])])
    starts = flatnonzero(first)
    groups = _math.subtract(cumsum(first), 1)
    if grouping:
        combine = _math.add if name == "subtract" else ufunc
        last = concatenate([starts[1:], full((1,), ps.size, dtype=numpy.int64)])
        grouped = take(_scan_last(_binary(combine, in_dt), vs, groups), _math.subtract(last, 1))
        targets = take(ps, starts)
        _gpupy._put(a, targets, ufunc(take(a, targets), grouped).astype(a.dtype, copy=False))
        return None
    rank = _math.subtract(arange(ps.size, dtype=numpy.int64), take(starts, groups))
    rounds = int(_max(rank)) + 1
    for k in range(rounds):
        sel = flatnonzero(_math.equal(rank, k)) if rounds > 1 else None
        pk = ps if sel is None else take(ps, sel)
        cur = take(a, pk)
        if ufunc.nin == 2:
            new = ufunc(cur, vs if sel is None else take(vs, sel))
        else:
            new = ufunc(cur)
        _gpupy._put(a, pk, new.astype(a.dtype, copy=False))
    return None


# ---------------------------------------------------------------------------------------
# reduceat


def _host_indices(indices):
    """``reduceat``'s indices on the host, as int64 (NumPy checks them one by one, and
    casts non-integer ones unsafely: 1.5 is 1)."""
    if isinstance(indices, ndarray):
        indices = indices.get()
    idx = numpy.asarray(indices)
    if idx.ndim > 1:
        numpy.add.reduceat(numpy.zeros(1), idx)  # raises NumPy's own error for the shape
    return idx.astype(numpy.int64).reshape(-1)


def reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    """``ufunc.reduceat``: reductions over the slices ``[indices[i], indices[i+1])`` along
    ``axis``; where ``indices[i] >= indices[i+1]`` the result is ``a[indices[i]]``, and the
    last slice runs to the end of the axis (NumPy's rules).

    Slices that do not overlap (the usual case: increasing indices) are reduced together
    by one segmented scan (``log2 n`` launches) read at each slice's end; overlapping
    slices, and ufuncs with no scan, one reduction per distinct slice."""
    name = ufunc.__name__
    np_uf = _np_ufunc(ufunc)
    a = _as_array(_device(array))
    out = _single_out(out, name)
    idx = _host_indices(indices)
    stand_idx = numpy.zeros(min(idx.size, 1), numpy.intp)
    rdt = _ask_numpy(np_uf.reduceat, _stand_in(a), stand_idx, axis=axis, dtype=dtype).dtype
    axis = _normalize_axis(axis, a.ndim)
    n = a.shape[axis]
    for i in idx.tolist():
        if not 0 <= i < n:
            raise IndexError(f"index {i} out-of-bounds in {name}.reduceat [0, {n})")
    m = idx.size
    shape = list(a.shape)
    shape[axis] = m
    if out is not None:
        stand_out = numpy.ones(_clipped(out.shape), out.dtype)
        _ask_numpy(np_uf.reduceat, _stand_in(a), stand_idx, axis=axis, dtype=dtype, out=stand_out)
        if tuple(out.shape) != tuple(shape):
            raise ValueError(f"output parameter has shape {out.shape}, the result has shape {tuple(shape)}")
    if m == 0:
        return _store(out, empty(tuple(shape), rdt))
    if rdt.kind == "b":
        name = _BOOL_NAMES.get(name, name)
    x = moveaxis(a, axis, -1).astype(rdt, copy=False)
    ends = numpy.empty(m, numpy.int64)
    ends[:-1] = numpy.where(idx[:-1] < idx[1:], idx[1:], idx[:-1] + 1)
    ends[-1] = n
    spans = sorted(set(zip(idx.tolist(), ends.tolist())))
    overlapping = any(e > s2 for (_, e), (s2, _) in zip(spans, spans[1:]))
    last = x.ndim - 1
    if overlapping or not (name in _ASSOCIATIVE or name == "subtract"):
        r = _segments_one_by_one(ufunc, name, x, idx, ends, rdt)
    else:
        starts = numpy.zeros(n, bool)
        starts[idx] = True
        segments = cumsum(asarray(starts))
        if name == "subtract":
            # x[s] - sum(x[s+1:e]): a segmented sum with each segment's first element zeroed.
            rest = _select(asarray(starts), _scalar(0, rdt), x)
            sums = take(_scan_last(_binary(_math.add, rdt), rest, segments), ends - 1, axis=last)
            r = _math.subtract(take(x, idx, axis=last), sums)
        else:
            r = take(_scan_last(_binary(ufunc, rdt), x, segments), ends - 1, axis=last)
    return _store(out, moveaxis(r.astype(rdt, copy=False), -1, axis))


def _segments_one_by_one(ufunc, name, x, idx, ends, rdt):
    """Each slice reduced by itself along the last axis (overlapping slices, or ufuncs
    with no scan): one reduction per distinct slice."""
    cols = []
    done = {}
    for s, e in zip(idx.tolist(), ends.tolist()):
        if (s, e) not in done:
            done[(s, e)] = _reduce_values(ufunc, name, x[..., s:e], (x.ndim - 1,), rdt, True, _NO_VALUE, None)
        cols.append(done[(s, e)])
    return concatenate(cols, axis=-1)


# ---------------------------------------------------------------------------------------
# A call with where=, casting=, order=, subok= or signature=


def _operand_type(x):
    """What ``resolve_dtypes`` takes for an operand: its dtype, or a Python int's,
    float's or complex's type (weak, NEP 50); a Python bool is a bool."""
    if isinstance(x, (ndarray, numpy.generic)):
        return x.dtype
    if isinstance(x, bool):
        return numpy.dtype(bool)
    if isinstance(x, (int, float, complex)):
        return type(x)
    return numpy.asarray(x).dtype


def _cast_operand(x, dtype):
    """An operand in the loop's input dtype (unsafely: NumPy has checked ``casting``)."""
    if isinstance(x, ndarray):
        return x.astype(dtype, copy=False)
    return _scalar(x, dtype)


def _loop_dtypes(np_uf, inputs, signature, dtype, casting):
    """The loop NumPy runs for these operands: its input dtypes and output dtype."""
    types = tuple(_operand_type(x) for x in inputs) + (None,)
    if signature is None and dtype is not None:
        signature = (None,) * len(inputs) + (numpy.dtype(dtype),)
    loop = np_uf.resolve_dtypes(types, signature=signature, casting=casting)
    return [numpy.dtype(d) for d in loop[:len(inputs)]], numpy.dtype(loop[len(inputs)])


def _arrange(r, order, inputs):
    """``r`` in the memory layout that ``order`` asks of a new result (NumPy's 'K', 'A',
    'C', 'F'): 'K' follows the first array input of the result's shape; 'A' is Fortran
    order when every array input is Fortran-contiguous and not C-contiguous."""
    arrays = [x for x in inputs if isinstance(x, ndarray)]
    order = "K" if order is None else str(order).upper()
    if order == "A":
        fortran = bool(arrays) and all(x.flags.f_contiguous and not x.flags.c_contiguous for x in arrays)
        order = "F" if fortran else "C"
    if r.ndim <= 1:
        return r
    if order == "K":
        like = [x for x in arrays if tuple(x.shape) == tuple(r.shape)]
        if not like:
            return r
        proto = like[0]
    elif (order == "C" and r.flags.c_contiguous) or (order == "F" and r.flags.f_contiguous):
        return r
    else:
        proto = r
    new = _new_like(proto, r.dtype, order, None)[0]
    if new.strides == r.strides:
        return r
    _gpupy._copyto(new, r)
    return new


def call(ufunc, args, kwargs):
    """``ufunc(*args, **kwargs)`` with NumPy's ``where=``, ``casting=``, ``order=``,
    ``subok=`` and ``signature=``. NumPy checks the call on stand-ins (its errors:
    casting rules, unknown loops, bad keywords and values); the loop it picks runs as a
    plain gpupy call on the operands cast to the loop's input dtypes; then the mask, the
    cast into ``out`` and the layout apply. Where ``where`` is False and no ``out`` is
    given, the result holds zeros (NumPy leaves those elements uninitialized and warns,
    as it does here). ``subok`` has no effect: gpupy has no array subclasses."""
    name = ufunc.__name__
    np_uf = _np_ufunc(ufunc)
    nin = ufunc.nin
    kw = dict(kwargs)
    args = tuple(args)
    if len(args) == nin + 1:
        if kw.get("out") is not None:
            raise TypeError("cannot specify 'out' as both a positional and keyword argument")
        kw["out"] = args[nin]
        args = args[:nin]
    elif len(args) != nin:
        raise TypeError(f"{name}() takes from {nin} to {nin + 1} positional arguments but {len(args)} were given")
    inputs = tuple(_device(x) for x in args)
    out = _single_out(kw.pop("out", None), name)
    where = kw.get("where", True)
    masked = not (where is True or (isinstance(where, (bool, numpy.bool_)) and where))
    if masked:
        where = _as_array(_device(where))
        kw["where"] = _stand_in(where)
    stands = [_stand_in(x) for x in inputs]
    if out is not None:
        _ask_numpy(np_uf, *stands, out=_stand_in(out), **kw)
    else:
        _ask_numpy(np_uf, *stands, **kw)  # NumPy's errors, and its where-without-out warning
    try:
        in_dts, out_dt = _loop_dtypes(np_uf, inputs, kw.get("signature"), kw.get("dtype"),
                                      kw.get("casting", "same_kind"))
    except TypeError:
        # resolve_dtypes refuses what the call accepted: the plain call's own loop.
        in_dts = None
        out_dt = _ask_numpy(np_uf, *stands, **{k: v for k, v in kw.items() if k != "where"}).dtype
    if in_dts is not None:
        r = ufunc(*(_cast_operand(x, dt) for x, dt in zip(inputs, in_dts)))
    else:
        r = ufunc(*inputs, dtype=kw.get("dtype"))
    if r.dtype != out_dt:
        r = r.astype(out_dt)
    if masked:
        if out is not None:
            _gpupy._copyto(out, _select(where, r.astype(out.dtype, copy=False), out))
            return out
        shape = numpy.broadcast_shapes(tuple(r.shape), tuple(where.shape))
        r = _select(where, r, _scalar(0, r.dtype))
        if tuple(r.shape) != shape:
            r = broadcast_to(r, shape).copy()
    if out is not None:
        _gpupy._copyto(out, r if r.dtype == out.dtype else r.astype(out.dtype))
        return out
    return _arrange(r, kw.get("order", "K"), inputs)
