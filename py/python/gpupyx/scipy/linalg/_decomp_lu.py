"""``scipy.linalg``'s LU functions: ``lu_factor``, ``lu_solve`` and ``lu``, batched as
SciPy's, on ``_decomp.lu_factor`` and ``_decomp.lu_solve`` (LAPACK ``getrf``/``getrs``
semantics: 0-based pivot indices ``piv``, row ``i`` interchanged with row ``piv[i]``).

``lu``'s permutation is worked out on the host from the pivots (``k`` interchanges per
matrix, vectorized over the batch): one device-to-host copy of ``piv``, small next to
the matrix, then the permutation matrix or row gather on the device.
"""

import math
import warnings

import numpy

import gpupy as gp
from gpupy.linalg import _decomp
from gpupy.linalg._util import identities, materialize
from gpupyx.scipy.linalg._util import (
    LinAlgWarning,
    as_array,
    batch_shape,
    broadcast,
    check_finite as _check_finite,
    core_ndim,
    flat_nonzero,
    lapack_dtype,
)


def lu_factor(a, overwrite_a=False, check_finite=True):
    """``scipy.linalg.lu_factor``: ``(lu, piv)`` of each matrix (M, N), ``lu`` holding
    U on and above the diagonal and L's multipliers below (unit diagonal implied),
    ``piv`` int32 (..., min(M, N)). An exactly singular matrix warns as SciPy's
    (``LinAlgWarning('Diagonal number k is exactly zero. Singular matrix.')``)."""
    a1 = as_array(a)
    if check_finite:
        _check_finite(a1)
    if a1.ndim < 2:
        raise ValueError(f"expected a matrix (at least two dimensions), got a1.ndim={a1.ndim}")
    if a1.size == 0:
        return gp.empty(a1.shape, a1.dtype), gp.empty(a1.shape[:-2] + (min(a1.shape[-2:]),), numpy.int32)
    t = lapack_dtype(a1)
    lu, piv, info = _decomp.lu_factor(a1.astype(t, copy=False))
    flat = numpy.asarray(info).ravel()
    for pos in flat_nonzero(info):
        warnings.warn(f"Diagonal number {int(flat[pos])} is exactly zero. Singular matrix.", LinAlgWarning,
                      stacklevel=2)
    return lu, piv


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """``scipy.linalg.lu_solve``: ``x`` with ``A x = b`` (``trans`` 0), ``A^T x = b`` (1)
    or ``A^H x = b`` (2) from ``lu_factor``'s output; batch shapes of ``lu``/``piv`` and
    ``b`` broadcast. One factorization with a stack of right-hand sides is one solve
    with their columns side by side."""
    lu, piv = lu_and_piv
    lu = as_array(lu)
    piv = as_array(piv).astype(numpy.int32, copy=False)
    b = as_array(b)
    cb = core_ndim(b, "1|2")
    batch = batch_shape((lu, 2), (piv, 1), (b, cb))
    if check_finite:
        _check_finite(b)
    core_lu = tuple(lu.shape[-2:])
    core_b = tuple(b.shape[b.ndim - cb:])
    if core_lu[0] != core_b[0]:
        raise ValueError(f"Shapes of lu {core_lu} and b {core_b} are incompatible")
    t = lapack_dtype(lu, b)
    if math.prod(batch + core_b) == 0:
        return gp.empty(batch + core_b, t)
    trans = {"N": 0, "T": 1, "C": 2}.get(trans, trans)
    lu, b = lu.astype(t, copy=False), b.astype(t, copy=False)
    b2 = b[..., None] if cb == 1 else b
    n, k = b2.shape[-2:]
    if math.prod(lu.shape[:-2]) == 1 and math.prod(piv.shape[:-1]) == 1 and math.prod(batch) > 1:
        # One factorization: the right-hand sides of the batch become columns.
        cols = gp.moveaxis(broadcast(b2, batch, 2), -2, 0).reshape((n, -1))
        x = _decomp.lu_solve(lu.reshape((n, n)), piv.reshape((n,)), cols, trans)
        x = materialize(gp.moveaxis(x.reshape((n,) + batch + (k,)), 0, -2))
    else:
        x = _decomp.lu_solve(broadcast(lu, batch, 2), broadcast(piv, batch, 1), broadcast(b2, batch, 2), trans)
    return materialize(x[..., 0]) if cb == 1 else x


def _inverse_permutations(piv, m):
    """Host arrays (B, m): for each matrix the row order ``p`` with ``A = L[p] @ U``,
    i.e. the inverse of the order LAPACK's interchanges give (row ``i`` of ``P^T A`` is
    row ``perm[i]`` of ``A``)."""
    ph = gp.asnumpy(piv)
    k = ph.shape[-1]
    ph = ph.reshape(-1, k).astype(numpy.int64)
    rows = numpy.arange(ph.shape[0])
    perm = numpy.tile(numpy.arange(m), (ph.shape[0], 1))
    for i in range(k):  # the interchanges in LAPACK's order
        j = ph[:, i]
        pi = perm[:, i].copy()
        perm[:, i] = perm[rows, j]
        perm[rows, j] = pi
    inverse = numpy.empty_like(perm)
    inverse[rows[:, None], perm] = numpy.arange(m)
    return inverse


def _gather_rows(x, p):
    """``x[b, p[b], :]`` for each matrix ``b`` of the stack ``x`` (..., m, c), ``p`` a
    host array (B, m)."""
    batch = x.shape[:-2]
    m, c = x.shape[-2:]
    bsz = math.prod(batch)
    flat = gp.asarray((p + numpy.arange(bsz)[:, None] * m).reshape(-1))
    return gp.take(x.reshape((bsz * m, c)), flat, axis=0).reshape(batch + (m, c))


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """``scipy.linalg.lu``: ``(P, L, U)`` with ``a = P @ L @ U``, ``L`` (..., M, K) unit
    lower trapezoidal, ``U`` (..., K, N) upper trapezoidal; ``p_indices=True`` gives
    ``P`` as int32 row indices (``a = L[P] @ U``), ``permute_l=True`` returns
    ``(P @ L, U)``. ``P`` (a matrix) has the real dtype of the computation, as SciPy's."""
    a1 = as_array(a)
    if check_finite:
        _check_finite(a1)
    if a1.ndim < 2:
        raise ValueError("The input array must be at least two-dimensional.")
    t = lapack_dtype(a1)
    a1 = a1.astype(t, copy=False)
    nd = a1.shape[:-2]
    m, n = a1.shape[-2:]
    k = min(m, n)
    real = numpy.dtype(numpy.float32 if t.char in "fF" else numpy.float64)
    if min(a1.shape) == 0:
        L, U = gp.empty(nd + (m, k), t), gp.empty(nd + (k, n), t)
        if permute_l:
            return L, U
        P = gp.empty(nd + (0,), numpy.int32) if p_indices else gp.empty(nd + (0, 0), real)
        return P, L, U
    if (m, n) == (1, 1):
        # SciPy's shortcut, dtypes included (integer indices of the default int type).
        ones = gp.ones(a1.shape, t)
        if permute_l:
            return ones, a1.copy()
        P = gp.zeros(nd + (m,), int) if p_indices else gp.ones(a1.shape, t)
        return P, ones, a1.copy()
    lu_, piv, _ = _decomp.lu_factor(a1)
    L = gp.add(gp.tril(lu_[..., :, :k], -1), identities((), m, t, k))
    U = gp.triu(lu_[..., :k, :])
    p = _inverse_permutations(piv, m)
    if permute_l:
        return _gather_rows(L, p), U
    if p_indices:
        return gp.asarray(p.reshape(nd + (m,)).astype(numpy.int32)), L, U
    pd = gp.asarray(p.reshape(nd + (m,)))
    P = (pd[..., :, None] == gp.arange(m)).astype(real)
    return P, L, U


__all__ = ["lu_factor", "lu_solve", "lu"]
