"""Indexing routines (NumPy's "Indexing routines"): ``take``, ``put``, ``where``,
``nonzero``, ``argwhere``, ``flatnonzero``, ``compress`` and ``extract``.

The kernels behind them (gathers, scatters, a select and a two-pass stream compaction)
live in the Rust extension; this module gives them NumPy's signatures and dtype rules.

Notes on the GPU semantics:

- Index checks happen on the device; an out-of-range index raises NumPy's IndexError
  before anything is written. The check costs one small device-to-host read (a
  synchronization) per operation with integer index arrays.
- ``nonzero`` (and boolean-mask indexing, which is built on it) must learn how many
  elements are selected before it can allocate its result: one synchronization each.
  ``a[mask] = scalar`` needs none: it runs as an in-place select.
- Assigning through repeated indices (``a[[0, 0]] = [1, 2]``, ``put`` with repeats) writes
  one of the values, which one is unspecified (as in CuPy); NumPy writes the last.
"""

import operator

import numpy

from gpupy import _gpupy
from gpupy._creation import asarray
from gpupy._gpupy import ndarray

__all__ = ["argwhere", "compress", "extract", "flatnonzero", "nonzero", "put", "take", "where"]


def _check_mode(mode):
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")


def _normalize_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        exceptions = getattr(numpy, "exceptions", numpy)  # NumPy < 1.25 has numpy.AxisError
        raise exceptions.AxisError(axis, ndim)
    return axis % ndim if ndim else axis


def _indices(indices, n, mode):
    """``indices`` as an integer index array for an axis of ``n``, wrapped or clipped into
    range for ``mode='wrap'``/``'clip'``. Host indices stay on the host (adjusted by NumPy)
    and are copied once by the kernel call."""
    _check_mode(mode)
    if isinstance(indices, ndarray):
        if indices.dtype.kind == "b":
            indices = indices.astype(numpy.int64)  # a safe cast, as NumPy's
        if indices.dtype.kind not in "iu":
            raise TypeError(
                f"Cannot cast array data from {indices.dtype!r} to dtype('int64') according to the rule 'safe'"
            )
        if mode != "raise" and indices.size:
            if n == 0:
                raise IndexError("cannot do a non-empty take from an empty axes.")
            if mode == "wrap":
                indices = _gpupy.remainder(indices, n)
            else:  # clip, as gpupy.clip(indices, 0, n - 1) computes it
                indices = _gpupy.minimum(_gpupy.maximum(indices, 0), n - 1)
        return indices
    idx = numpy.asarray(indices)
    if (idx.size == 0 and idx.dtype.kind not in "iu") or idx.dtype.kind == "b":
        idx = idx.astype(numpy.intp)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"Cannot cast array data from {idx.dtype!r} to dtype('int64') according to the rule 'safe'")
    if mode != "raise" and idx.size:
        if n == 0:
            raise IndexError("cannot do a non-empty take from an empty axes.")
        idx = numpy.mod(idx, n) if mode == "wrap" else numpy.clip(idx, 0, n - 1)
    return idx


def _into(out, r):
    if out is None:
        return r
    if not isinstance(out, ndarray):
        raise TypeError("output must be a gpupy.ndarray")
    if out.shape != r.shape:
        raise ValueError(f"output array does not match result of ndarray.take: {out.shape} vs {r.shape}")
    out[...] = r
    return out


def take(a, indices, axis=None, out=None, mode="raise"):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened array when
    ``None``), as ``numpy.take``; always a new array."""
    a = asarray(a)
    if axis is None:
        n = a.size
    else:
        axis = _normalize_axis(axis, a.ndim)
        n = a.shape[axis]
    idx = _indices(indices, n, mode)
    return _into(out, _gpupy._take(a, idx, axis))


def put(a, ind, v, mode="raise"):
    """``a.flat[ind] = v`` in place, repeating ``v`` when it is shorter, as ``numpy.put``."""
    if not isinstance(a, ndarray):
        raise TypeError(f"put() needs a gpupy.ndarray as its first argument, not {type(a).__name__}")
    _gpupy._put(a, _indices(ind, a.size, mode), v)


def _result_dtype_arg(v):
    """What ``numpy.result_type`` should see for a value of ``where``: the dtype of arrays
    (gpupy or NumPy) and NumPy scalars; Python scalars as themselves (weak, NEP 50)."""
    if isinstance(v, ndarray):
        return v.dtype
    if isinstance(v, (bool, int, float, complex, numpy.generic, numpy.ndarray)):
        return v if not isinstance(v, numpy.ndarray) else v.dtype
    return numpy.asarray(v).dtype


def _as(v, dtype):
    if isinstance(v, ndarray):
        return v.astype(dtype, copy=False)
    return _gpupy._from_host(numpy.asarray(v, dtype=dtype), None)


def where(condition, x=None, y=None):
    """``x`` where ``condition`` holds, else ``y`` (broadcast together; the result dtype is
    ``numpy.result_type`` of ``x`` and ``y``). With only ``condition``: ``nonzero(condition)``."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    dtype = numpy.result_type(_result_dtype_arg(x), _result_dtype_arg(y))
    cond = condition if isinstance(condition, ndarray) else _gpupy._from_host(numpy.asarray(condition), None)
    return _gpupy._where(cond, _as(x, dtype), _as(y, dtype))


def nonzero(a):
    """The indices of the nonzero elements of ``a``: one int64 array per axis, in C order."""
    a = asarray(a)
    r = _gpupy._nonzero(a)
    return tuple(r[k] for k in range(a.ndim))


def argwhere(a):
    """The indices of the nonzero elements of ``a`` as an ``(N, a.ndim)`` array."""
    a = asarray(a)
    if a.ndim == 0:
        # NumPy: argwhere(atleast_1d(a))[:, :0].
        return _gpupy._nonzero(_gpupy._flat(a)).T[:, :0]
    return _gpupy._nonzero(a).T


def flatnonzero(a):
    """The indices of the nonzero elements of the flattened ``a``."""
    return _gpupy._nonzero(_gpupy._flat(asarray(a)))[0]


def compress(condition, a, axis=None, out=None):
    """The slices of ``a`` along ``axis`` (the flattened ``a`` when ``None``) where the 1-d
    ``condition`` is true, as ``numpy.compress``."""
    cond = asarray(condition)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    return take(a, _gpupy._nonzero(cond)[0], axis=axis, out=out)


def extract(condition, arr):
    """The elements of ``arr`` where ``condition`` is true, both flattened, as
    ``numpy.extract``."""
    cond = _gpupy._flat(asarray(condition))
    return take(_gpupy._flat(asarray(arr)), _gpupy._nonzero(cond)[0])
