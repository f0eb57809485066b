"""Factorizations: NumPy's ``linalg.cholesky`` and ``linalg.qr`` on the primitives
``_decomp.cholesky``, ``_decomp.qr_factor`` and ``_decomp.qr_q``."""

import warnings

from gpupy._creation import asarray, empty, zeros
from gpupy._matrices import triu
from gpupy.linalg import _decomp
from gpupy.linalg._util import (
    QRResult,
    as_working,
    assert_stacked_2d,
    identities,
    raise_if_info,
    square_operand,
    working_dtype,
)


def cholesky(a, /, *, upper=False):
    """NumPy's ``linalg.cholesky``: ``L`` with ``a = L @ L^H`` (zeros above the
    diagonal), or with ``upper=True`` ``U`` with ``a = U^H @ U``. Only the triangle of
    the factor is read (the lower one, or the upper one for ``upper=True``), as LAPACK's
    ``potrf``. Raises ``LinAlgError('Matrix is not positive definite')`` when any
    matrix of the batch is not; a NaN propagates into the factor instead (as the OpenBLAS
    LAPACK NumPy ships does)."""
    a, t = square_operand(a)
    if a.size == 0:
        return empty(a.shape, t)
    c, info = _decomp.cholesky(a, lower=not upper)
    raise_if_info(info, "Matrix is not positive definite")
    return c


_MODES = ("reduced", "complete", "r", "raw")


def qr(a, mode="reduced"):
    """NumPy's ``linalg.qr``: Householder QR (``_decomp.qr_factor``, LAPACK ``geqrf``'s
    layout), ``Q`` formed from the reflectors by ``_decomp.qr_q``.

    - ``'reduced'``: ``QRResult(Q (..., M, K), R (..., K, N))``, K = min(M, N);
    - ``'complete'``: ``Q (..., M, M)``, ``R (..., M, N)``;
    - ``'r'``: ``R`` alone (..., K, N);
    - ``'raw'``: ``(h, tau)`` as NumPy returns them: ``h`` (..., N, M) is LAPACK's
      Fortran-ordered array seen in C order, i.e. the factored matrix transposed (R in
      its upper triangle, read transposed; the reflectors below), ``tau`` (..., K).
    NumPy's deprecated modes ``'full'``/``'f'`` (= ``'reduced'``) and
    ``'economic'``/``'e'`` (the factored matrix itself, (..., M, N)) warn as NumPy's."""
    if mode not in _MODES:
        if mode in ("f", "full"):
            msg = "The 'full' option is deprecated in favor of 'reduced'.\nFor backward compatibility let mode default."
            warnings.warn(msg, DeprecationWarning, stacklevel=2)
            mode = "reduced"
        elif mode in ("e", "economic"):
            warnings.warn("The 'economic' option is deprecated.", DeprecationWarning, stacklevel=2)
            mode = "economic"
        else:
            raise ValueError(f"Unrecognized mode '{mode}'")
    a = asarray(a)
    assert_stacked_2d(a)
    m, n = a.shape[-2:]
    t = working_dtype(a)
    a = as_working(a, t)
    k = min(m, n)
    batch = a.shape[:-2]
    if a.size == 0:
        # No reflector: h is A itself (empty), Q the identity's first columns.
        h, tau = zeros(a.shape, t), zeros(batch + (k,), t)
    else:
        h, tau = _decomp.qr_factor(a)
    if mode == "r":
        return triu(h[..., :k, :])
    if mode == "raw":
        return h.mT, tau
    if mode == "economic":
        return h
    mc = m if (mode == "complete" and m > n) else k
    if a.size == 0:
        q = identities(batch, m, t, mc)
    else:
        q = _decomp.qr_q(h, tau, mc)
    return QRResult(q, triu(h[..., :mc, :]))


__all__ = ["cholesky", "qr"]
