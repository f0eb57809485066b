"""``scipy.linalg.qr``, batched as SciPy's, on ``_decomp.qr_factor`` (LAPACK ``geqrf``'s
layout) and ``_decomp.qr_q`` (``orgqr``/``ungqr``)."""

import warnings

import gpupy as gp
from gpupy.linalg import _decomp
from gpupy.linalg._util import identities
from gpupyx.scipy.linalg._util import as_array, check_finite as _check_finite, lapack_dtype

_MODES = ("full", "qr", "r", "raw", "economic")  # SciPy's order, which its message lists
_NO_VALUE = object()


def qr(a, overwrite_a=False, lwork=_NO_VALUE, mode="full", pivoting=False, check_finite=True):
    """``scipy.linalg.qr``: Householder QR of each matrix (M, N), K = min(M, N).

    - ``'full'`` (and its alias ``'qr'``): ``(Q (M, M), R (M, N))``;
    - ``'economic'``: ``(Q (M, K), R (K, N))``;
    - ``'r'``: ``(R,)``, a one-element tuple as SciPy returns it, R (M, N);
    - ``'raw'``: ``((qr, tau), R)`` with LAPACK's ``geqrf`` output ``qr`` (M, N) (R on
      and above the diagonal, the reflectors below) and ``R`` (K, N).
    ``pivoting=True`` (column pivoting, LAPACK ``geqp3``) has no primitive yet and raises
    NotImplementedError; ``lwork`` is checked and deprecated as in SciPy 1.18 (no
    effect)."""
    if mode not in _MODES:
        raise ValueError(f"Mode argument should be one of {list(_MODES)}")
    if pivoting:
        raise NotImplementedError(
            "gpupyx.scipy.linalg.qr(pivoting=True) is not implemented: column-pivoted QR (LAPACK geqp3) "
            "has no gpupy primitive yet (issue #17)"
        )
    a1 = as_array(a)
    if check_finite:
        _check_finite(a1)
    if a1.ndim < 2:
        raise ValueError("Expected at least a 2-D array")
    if lwork is not _NO_VALUE:
        if lwork is not None and lwork != -1 and lwork <= a1.shape[-2]:
            raise ValueError(f"lwork should be None, -1 or > M, got {lwork}")
        warnings.warn(
            "scipy.linalg: the `lwork` keyword is deprecated and no longer in use as of SciPy 1.18.0 and will be "
            "removed in SciPy 1.20.0",
            DeprecationWarning,
            stacklevel=2,
        )
    t = lapack_dtype(a1)
    a1 = a1.astype(t, copy=False)
    batch = a1.shape[:-2]
    m, n = a1.shape[-2:]
    k = min(m, n)
    if a1.size == 0:
        # SciPy's empty results: Q the identity (full) or empty (economic, raw).
        if mode not in ("economic", "raw"):
            q, r = identities(batch, m, t), gp.empty(a1.shape, t)
        else:
            q, r = gp.empty(batch + (m, k), t), gp.empty(batch + (k, n), t)
        if mode == "r":
            return (r,)
        if mode == "raw":
            return (gp.empty(a1.shape, t), gp.zeros(batch + (k,), t)), r
        return q, r
    h, tau = _decomp.qr_factor(a1)
    if mode in ("economic", "raw") and m >= n:
        r = gp.triu(h[..., :n, :])
    else:
        r = gp.triu(h)
    if mode == "r":
        return (r,)
    if mode == "raw":
        return (h, tau), r
    if m < n or mode == "economic":
        q = _decomp.qr_q(h, tau, k)
    else:
        q = _decomp.qr_q(h, tau, m)
    return q, r


__all__ = ["qr"]
