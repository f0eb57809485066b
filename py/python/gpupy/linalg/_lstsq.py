"""What the singular value decomposition answers: NumPy's ``linalg.lstsq``, ``pinv``,
``matrix_rank`` and ``cond`` (``cond`` with p other than None/2/-2 from ``inv``).

Tolerances. NumPy computes float32 problems in float64, so its default cut-offs
(``lstsq``'s ``rcond = eps * max(M, N)``) use float64's eps. gpupy computes in float32
(see ``_util``), where singular values below float32's rounding level are noise: its
default cut-off uses the working dtype's eps, as CuPy does. For float64 and complex128
inputs the two agree.
"""

import numpy

from gpupy import _gpupy, _reduction
from gpupy._creation import asarray, empty, zeros
from gpupy._gpupy import ndarray
from gpupy._indexing import where
from gpupy._linalg import norm
from gpupy.linalg import _decomp
from gpupy.linalg._eig_svd import svd
from gpupy.linalg._util import (
    LinAlgError,
    as_working,
    assert_2d,
    assert_stacked_square,
    conj_t,
    is_empty_2d,
    materialize,
    real_dtype,
    working_dtype,
)

_NoValue = numpy._NoValue


def _abs2_colsum(r):
    """``sum(|r|^2, axis=0)`` for a matrix (real result)."""
    sq = _gpupy.absolute(r) if r.dtype.kind == "c" else r
    return _reduction.sum(_gpupy.multiply(sq, sq), axis=0)


def lstsq(a, b, rcond=None):
    """NumPy's ``linalg.lstsq``: ``(x, residuals, rank, s)`` minimizing ``||b - a x||_2``
    for one matrix ``a`` (M, N) and ``b`` (M,) or (M, K), through the thin SVD
    ``a = U diag(s) Vh``: ``x = Vh^H diag(1/s) U^H b`` over the singular values above
    ``rcond * s_max`` (the others count as zero, as LAPACK's ``gelsd``; negative
    ``rcond``: the working dtype's eps). ``residuals``: the squared 2-norm of each
    column of ``b - a x`` when ``rank == N < M``, else empty. ``rank`` is a NumPy int32
    (one device-to-host read), ``s`` the singular values (descending)."""
    a = asarray(a)
    b = asarray(b)
    is_1d = b.ndim == 1
    if is_1d:
        b = b[:, None]
    assert_2d(a, b)
    m, n = a.shape
    m2, n_rhs = b.shape
    if m != m2:
        raise LinAlgError("Incompatible dimensions")
    t = working_dtype(a, b)
    real = real_dtype(t)
    eps = float(numpy.finfo(t).eps)
    if rcond is None:
        rcond = eps * max(n, m)
    elif rcond < 0:
        rcond = eps
    a, b = as_working(a, t), as_working(b, t)
    if min(m, n) == 0:
        x = zeros((n, n_rhs), t)
        s = empty((0,), real)
        rank = 0
    else:
        u, s, vh = _decomp.svd(a, full_matrices=False, compute_uv=True)
        cutoff = _gpupy.multiply(s[0], float(rcond))
        large = _gpupy.greater(s, cutoff)
        rank = int(_reduction.count_nonzero(large))
        sinv = where(large, 1 / s, 0).astype(real, copy=False)
        c = _gpupy.matmul(conj_t(u), b)  # (K, n_rhs): b in the basis of U
        x = _gpupy.matmul(conj_t(vh), _gpupy.multiply(c, sinv[:, None]))
    if rank == n and m > n:
        r = b if n == 0 else _gpupy.subtract(b, _gpupy.matmul(a, x))
        resids = _abs2_colsum(r).astype(real, copy=False)
    else:
        resids = empty((0,), real)
    if is_1d:
        x = materialize(x[:, 0])
    return x, resids, numpy.int32(rank), s


def _scalar_or_batched(v):
    """A cut-off argument as NumPy broadcasts it against (..., K) singular values: a
    Python float for a scalar, else a device array with a new last axis."""
    if not isinstance(v, ndarray) and numpy.ndim(v) == 0:
        return float(v)
    return asarray(v)[..., None]


def pinv(a, rcond=None, hermitian=False, *, rtol=_NoValue):
    """NumPy's ``linalg.pinv``: ``Vh^H diag(1/s) U^H`` from the thin SVD of ``a``
    (``hermitian=True``: from ``eigh``), singular values at or below
    ``rcond * s_max`` dropped. ``rcond`` default 1e-15 (NumPy's), or ``rtol`` (None:
    ``max(M, N) * eps``)."""
    a = asarray(a)
    if rcond is None:
        if rtol is _NoValue:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(a.shape[-2:]) * numpy.finfo(a.dtype).eps
        else:
            rcond = rtol
    elif rtol is not _NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if is_empty_2d(a):
        m, n = a.shape[-2:]
        return empty(a.shape[:-2] + (n, m), a.dtype)
    if a.dtype.kind == "c":
        a = _gpupy.conjugate(a)
    u, s, vt = svd(a, full_matrices=False, hermitian=hermitian)
    smax = _reduction.max(s, axis=-1, keepdims=True)
    cutoff = _gpupy.multiply(smax, _scalar_or_batched(rcond))
    large = _gpupy.greater(s, cutoff)
    sinv = where(large, 1 / s, 0).astype(s.dtype, copy=False)
    # pinv(conj(a)) = V^H^T diag(1/s) U^T with conj(a) = U diag(s) V^H: NumPy's formula.
    return _gpupy.matmul(vt.mT, _gpupy.multiply(sinv[..., None], u.mT))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """NumPy's ``linalg.matrix_rank``: the number of singular values above ``tol``
    (default ``S.max() * rtol``, ``rtol`` default ``max(M, N) * eps``). 1-D and 0-D
    inputs: 1 unless all zero (a Python int, as NumPy's)."""
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = asarray(A)
    if A.ndim < 2:
        return int(not bool(_reduction.all(A == 0)))
    S = svd(A, compute_uv=False, hermitian=hermitian)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * float(numpy.finfo(S.dtype).eps)
        smax = _reduction.max(S, axis=-1, keepdims=True, initial=0)
        tol = _gpupy.multiply(smax, _scalar_or_batched(rtol))
    else:
        tol = _scalar_or_batched(tol)
    return _reduction.count_nonzero(_gpupy.greater(S, tol), axis=-1)


def cond(x, p=None):
    """NumPy's ``linalg.cond``: ``s_max / s_min`` (p None or 2; ``s_min / s_max`` for
    -2) from the singular values, else ``norm(x, p) * norm(inv(x), p)`` for square
    matrices. Singular matrices give inf (NaN only where ``x`` has a NaN), as NumPy's."""
    x = asarray(x)
    if is_empty_2d(x):
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or p in (2, -2):
        s = svd(x, compute_uv=False)
        if p == -2:
            r = _gpupy.divide(s[..., -1], s[..., 0])
        else:
            r = _gpupy.divide(s[..., 0], s[..., -1])
    else:
        assert_stacked_square(x)
        t = working_dtype(x)
        xw = as_working(x, t)
        invx, info = _decomp.inv(xw)
        r = _gpupy.multiply(norm(xw, p, axis=(-2, -1)), norm(invx, p, axis=(-2, -1)))
        if numpy.any(numpy.asarray(info) != 0):
            # NumPy's inverse of a singular matrix is NaN (its loop's error value).
            r = where(asarray(numpy.asarray(info) != 0), numpy.nan, r)
        r = r.astype(real_dtype(t), copy=False)
    # NaN from 0/0 or inf/inf is an infinite condition number unless x itself has a NaN.
    nan = _gpupy.isnan(r)
    if x.dtype.kind in "fc":
        nan = _gpupy.logical_and(nan, _gpupy.logical_not(_reduction.any(_gpupy.isnan(x), axis=(-2, -1))))
    return where(nan, numpy.inf, r).astype(r.dtype, copy=False)


__all__ = ["lstsq", "pinv", "matrix_rank", "cond"]
