"""What the modules of ``gpupy.linalg`` (and ``gpupyx.scipy.linalg``) share: NumPy's dtype
rule for linear algebra, its shape checks and messages, ``LinAlgError`` from the
primitives' ``info`` arrays, the result tuples, and small array helpers (batched
identities, gathers along the last axis, one factorization for many right-hand sides).

Dtypes. NumPy computes every float32/complex64 problem in double precision and rounds
the result back (``_commonType``: ``t`` double, ``result_t`` single). gpupy computes in
the result dtype itself, as cuSOLVER (CuPy) and SciPy do: that is the speed of a GPU
and the rounding NumPy's result has anyway, with a backward error of float32's
precision instead of float64's. ``working_dtype`` is that dtype: ``result_t``.
"""

import math
from typing import Any, NamedTuple

import numpy
from numpy.linalg import LinAlgError

from gpupy import _gpupy, _reduction
from gpupy._creation import asarray, empty, eye
from gpupy._indexing import take
from gpupy._manipulation import broadcast_to, moveaxis
from gpupy._ranges import arange

__all__ = ["LinAlgError"]


# --- NumPy's result tuples (numpy.linalg._linalg's NamedTuples, same names and fields) --


class EigResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class QRResult(NamedTuple):
    Q: Any
    R: Any


class SlogdetResult(NamedTuple):
    sign: Any
    logabsdet: Any


class SVDResult(NamedTuple):
    U: Any
    S: Any
    Vh: Any


# --- dtypes ----------------------------------------------------------------------------

_SINGLE = (numpy.dtype(numpy.float32), numpy.dtype(numpy.complex64))
_DOUBLE = (numpy.dtype(numpy.float64), numpy.dtype(numpy.complex128))


def working_dtype(*arrays):
    """NumPy's ``_commonType(*arrays)[1]`` (the result dtype), which is also the dtype
    gpupy computes in: float32 unless an operand is float64/complex128 or not inexact
    (bool and integers count as float64), complex when an operand is complex. Other
    inexact dtypes (float16, long double) raise NumPy's TypeError."""
    double = False
    complex_ = False
    for a in arrays:
        dt = a.dtype
        if dt.kind in "fc":
            complex_ = complex_ or dt.kind == "c"
            if dt in _DOUBLE:
                double = True
            elif dt not in _SINGLE:
                raise TypeError(f"array type {dt.name} is unsupported in linalg")
        else:
            double = True
    if complex_:
        return numpy.dtype(numpy.complex128 if double else numpy.complex64)
    return numpy.dtype(numpy.float64 if double else numpy.float32)


def real_dtype(dtype):
    """The real dtype of the same precision (float32 for complex64)."""
    dtype = numpy.dtype(dtype)
    return {"F": numpy.dtype(numpy.float32), "D": numpy.dtype(numpy.float64)}.get(dtype.char, dtype)


def as_working(a, dtype):
    """``a`` in ``dtype`` (``a`` itself when it has it already: the primitives never
    write their inputs)."""
    return a if a.dtype == dtype else a.astype(dtype)


# --- NumPy's shape checks, in its words ------------------------------------------------


def assert_stacked_2d(*arrays):
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")


def assert_stacked_square(*arrays):
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
        if a.shape[-1] != a.shape[-2]:
            raise LinAlgError("Last 2 dimensions of the array must be square")


def square_operand(a):
    """The prologue of the functions of one stack of square matrices: ``a`` as a gpupy
    array checked square (NumPy's LinAlgError otherwise) and converted to its working
    dtype, and that dtype: ``(a, t)``."""
    a = asarray(a)
    assert_stacked_square(a)
    t = working_dtype(a)
    return as_working(a, t), t


def assert_2d(*arrays):
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")


def is_empty_2d(a):
    """NumPy's ``_is_empty_2d``: no element, and none in the last two axes."""
    return a.size == 0 and math.prod(a.shape[-2:]) == 0


def all_finite(a):
    """Whether every element of ``a`` is finite: one reduction and one device-to-host
    read (integers and booleans are finite without either)."""
    if a.dtype.kind not in "fc" or a.size == 0:
        return True
    return bool(_reduction.all(_gpupy.isfinite(a)))


def assert_finite(*arrays):
    """NumPy's ``_assert_finite`` (eig, eigvals)."""
    for a in arrays:
        if not all_finite(a):
            raise LinAlgError("Array must not contain infs or NaNs")


def raise_if_info(info, message):
    """NumPy raises for a whole batch when one matrix fails: ``info`` is the primitive's
    host array (batch shape), nonzero where a factorization failed."""
    if numpy.any(numpy.asarray(info) != 0):
        raise LinAlgError(message)


def gufunc_broadcast_error(shapes_cores, out_core):
    """NumPy's message when the loop (batch) dimensions of a generalized ufunc's operands
    do not broadcast: ``shapes_cores`` lists (shape, number of core axes) per operand,
    ``out_core`` the output's core shape."""

    def fmt(dims):
        return "(" + ",".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"

    parts = []
    for shape, core in shapes_cores:
        loop = list(shape[: len(shape) - core])
        parts.append(f"{fmt(shape)}->({','.join([str(d) for d in loop] + ['newaxis'] * core)})")
    return ValueError(
        "operands could not be broadcast together with remapped shapes [original->remapped]: "
        + " ".join(parts)
        + f"  and requested shape {fmt(out_core)}"
    )


# --- array helpers ---------------------------------------------------------------------


def conj(x):
    """``x`` conjugated (a new array), or ``x`` itself when real."""
    return _gpupy.conjugate(x) if x.dtype.kind == "c" else x


def conj_t(x):
    """The conjugate transpose of each matrix (the transpose for real dtypes): a view for
    real arrays, a new array for complex ones."""
    return conj(x.mT)


def materialize(x):
    """A new C-contiguous array with the values of the view ``x`` (a broadcast view
    too)."""
    out = empty(x.shape, x.dtype)
    if out.size:
        _gpupy._copyto(out, x)
    return out


def identities(batch, n, dtype, m=None):
    """Identity matrices (``n`` x ``m``, ones on the diagonal) for each index of ``batch``."""
    m = n if m is None else m
    return materialize(broadcast_to(eye(n, m, dtype=dtype), tuple(batch) + (n, m)))


def take_last(x, idx):
    """``numpy.take_along_axis(x, idx, axis=-1)`` for ``x`` (..., n) and device indices
    ``idx`` (..., r) of the same batch shape: one gather from the flattened ``x``, each
    matrix's indices offset by its start."""
    batch = x.shape[:-1]
    b = math.prod(batch)
    n, r = x.shape[-1], idx.shape[-1]
    if b == 0 or r == 0:
        return empty(tuple(batch) + (r,), x.dtype)
    offsets = (arange(b, dtype=numpy.int64) * n).reshape(tuple(batch) + (1,))
    flat = _gpupy.add(idx.astype(numpy.int64, copy=False), offsets)
    return take(x.reshape(-1), flat.reshape(-1)).reshape(tuple(batch) + (r,))


def take_columns(x, idx):
    """``x[..., :, idx]`` per matrix for ``x`` (..., m, n) and device indices ``idx``
    (..., r): the rows of the transpose gathered in one launch."""
    batch = x.shape[:-2]
    b = math.prod(batch)
    m, r = x.shape[-2], idx.shape[-1]
    if b == 0 or r == 0 or m == 0:
        return empty(tuple(batch) + (m, r), x.dtype)
    rows = x.mT.reshape((b * x.shape[-1], m))  # one row per column of each matrix
    offsets = (arange(b, dtype=numpy.int64) * x.shape[-1]).reshape(tuple(batch) + (1,))
    flat = _gpupy.add(idx.astype(numpy.int64, copy=False), offsets).reshape(-1)
    return take(rows, flat, axis=0).reshape(tuple(batch) + (r, m)).mT


def solve_batched(solve2d, a, b, batch):
    """``solve2d(a, b)`` for ``a`` (..., n, n) and ``b`` (..., n, k) whose batch shapes
    broadcast to ``batch``; ``solve2d`` takes operands of one batch shape.

    When ``a`` holds one matrix and ``b`` many (``solve(A, B)`` with ``B`` a stack), the
    right-hand sides become the columns of one (n, B*k) right-hand side: one
    factorization of ``A`` instead of a broadcast copy factorized B times."""
    n, k = b.shape[-2], b.shape[-1]
    if math.prod(a.shape[:-2]) == 1 and math.prod(batch) > 1:
        bb = broadcast_to(b, tuple(batch) + (n, k))
        cols = moveaxis(bb, -2, 0).reshape((n, -1))
        x = solve2d(a.reshape((n, n)), cols)
        return materialize(moveaxis(x.reshape((n,) + tuple(batch) + (k,)), 0, -2))
    aa = a if a.shape[:-2] == tuple(batch) else broadcast_to(a, tuple(batch) + (n, n))
    bb = b if b.shape[:-2] == tuple(batch) else broadcast_to(b, tuple(batch) + (n, k))
    return solve2d(aa, bb)
