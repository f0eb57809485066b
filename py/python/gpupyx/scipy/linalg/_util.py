"""SciPy's argument rules for ``scipy.linalg`` (SciPy 1.18): which dtype LAPACK computes
in, ``check_finite``, the batch rule of its ``_apply_over_batch`` decorator, and its
singular-matrix message.

Dtypes. SciPy picks the LAPACK routine by a score of the input dtypes
(``scipy.linalg.blas.find_best_blas_type``): bool, int8, uint8, int16, uint16 and
float16 compute in float32; wider integers and float64 in float64; complex64 in
complex64 unless a float64 or wider operand is present (then complex128). ``solve``
uses another rule (``_ensure_dtype_cdsz``: the NumPy result type, integers to float64,
32-bit and narrower floats to float32), ``det`` and ``expm`` their own; each module says
which it uses.
"""

import numpy
from numpy.linalg import LinAlgError

import gpupy as gp

# SciPy's scores: 1 float32 ('s'), 2 float64 ('d'), 3 complex64 ('c'), 4 complex128 ('z').
_SCORE = {c: 1 for c in "?bBhHef"}
_SCORE.update({c: 2 for c in "iIlLqQd"})
_SCORE.update({"F": 3, "D": 4, "g": 2, "G": 4})
_BY_SCORE = {
    1: numpy.dtype(numpy.float32),
    2: numpy.dtype(numpy.float64),
    3: numpy.dtype(numpy.complex64),
    4: numpy.dtype(numpy.complex128),
}


class LinAlgWarning(RuntimeWarning):
    """SciPy's ``scipy.linalg.LinAlgWarning`` (a RuntimeWarning): emitted where SciPy
    warns that a result may be inaccurate (``lu_factor`` of an exactly singular matrix).
    gpupy does not estimate condition numbers, so ``solve``'s ill-conditioning warning
    is never emitted."""


def lapack_dtype(*arrays):
    """The dtype SciPy's LAPACK wrappers compute ``arrays`` in (``find_best_blas_type``)."""
    scores = [_SCORE.get(a.dtype.char, 5) for a in arrays]
    best = max(scores)
    if best == 3 and 2 in scores:  # float64 with complex64: complex128, not a lossy complex64
        best = 4
    return _BY_SCORE.get(best, numpy.dtype(numpy.float64))


def solve_dtype(*arrays):
    """``scipy.linalg._basic._ensure_dtype_cdsz``: NumPy's result type, integers and bool
    to float64, floats of 32 bits or fewer to float32/complex64, wider to 64/128."""
    dtype = numpy.result_type(*[a.dtype for a in arrays])
    if dtype.kind not in "fc":
        return numpy.dtype(numpy.float64)
    complex_ = dtype.kind == "c"
    if numpy.finfo(dtype).bits <= 32:
        return numpy.dtype(numpy.complex64 if complex_ else numpy.float32)
    return numpy.dtype(numpy.complex128 if complex_ else numpy.float64)


def real_dtype(dtype):
    return numpy.dtype(numpy.float32 if numpy.dtype(dtype).char in "fF" else numpy.float64)


def as_array(a):
    """``a`` as a gpupy array (host data is copied over)."""
    return gp.asarray(a)


def check_finite(*arrays):
    """SciPy's ``asarray_chkfinite``: ValueError when an array has an inf or a NaN (one
    reduction and one device-to-host read per float array)."""
    for a in arrays:
        if a is not None and a.dtype.kind in "fc" and a.size and not bool(gp.all(gp.isfinite(a))):
            raise ValueError("array must not contain infs or NaNs")


def validated(a, finite):
    """SciPy's ``_asarray_validated``: a gpupy array, checked for infs and NaNs when
    ``finite``."""
    a = as_array(a)
    if finite:
        check_finite(a)
    return a


def core_ndim(a, spec):
    """The number of core axes of ``a`` under SciPy's batch rule: ``spec`` an int, or
    ``'1|2'`` (a right-hand side: 2 when ``a`` has at least two axes, else 1)."""
    if spec == "1|2":
        return 2 if a.ndim >= 2 else 1
    return spec


def batch_shape(*pairs):
    """The broadcast batch shape of (array, core ndim) pairs, with NumPy's
    ``broadcast_shapes`` error (SciPy's decorator calls it)."""
    shapes = [a.shape[: a.ndim - c] if c else a.shape for a, c in pairs]
    return tuple(numpy.broadcast_shapes(*shapes))


def broadcast(a, batch, core):
    """``a`` broadcast to ``batch`` + its ``core`` trailing axes (a view)."""
    shape = tuple(batch) + tuple(a.shape[a.ndim - core:] if core else ())
    return a if a.shape == shape else gp.broadcast_to(a, shape)


def singular_error(positions):
    """SciPy 1.18's error for singular matrices in ``solve``/``inv``: ``positions`` are
    the flat batch indices of the singular ones (SciPy's message names slice 0 for an
    unbatched call)."""
    return LinAlgError(f"A singular matrix detected: slice(s) {list(positions)} are singular.")


def flat_nonzero(info):
    """The flat batch positions where the host array ``info`` is nonzero."""
    return [int(i) for i in numpy.flatnonzero(numpy.asarray(info).ravel())]


def zero_diagonal_positions(a):
    """(flat batch position, first zero index) of each matrix of ``a`` with an exact
    zero on its diagonal, in C order; one device-to-host read when there is none."""
    d = a.diagonal(0, -2, -1)
    zero = d == 0
    if not bool(gp.any(zero)):
        return []
    z = gp.asnumpy(zero).reshape(-1, d.shape[-1])
    return [(int(b), int(numpy.argmax(z[b]))) for b in numpy.flatnonzero(z.any(axis=1))]


__all__ = [
    "LinAlgWarning", "lapack_dtype", "solve_dtype", "real_dtype", "as_array", "check_finite", "validated",
    "core_ndim", "batch_shape", "broadcast", "singular_error", "flat_nonzero", "zero_diagonal_positions",
]
