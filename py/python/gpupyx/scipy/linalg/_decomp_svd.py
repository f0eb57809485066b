"""``scipy.linalg.svd``, batched as SciPy's, on ``_decomp.svd``."""

import gpupy as gp
from gpupy.linalg import _decomp
from gpupy.linalg._util import identities
from gpupyx.scipy.linalg._util import as_array, check_finite as _check_finite, lapack_dtype, real_dtype


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True, lapack_driver="gesdd"):
    """``scipy.linalg.svd``: ``(U, s, Vh)`` with ``a = U @ diag(s) @ Vh``, ``s``
    descending; ``full_matrices=False`` gives the thin factors; ``compute_uv=False`` ``s``
    alone. ``lapack_driver`` ('gesdd' or 'gesvd') is checked as SciPy checks it and
    otherwise ignored (one SVD method)."""
    if not isinstance(lapack_driver, str):
        raise TypeError("lapack_driver must be a string")
    if lapack_driver not in ("gesdd", "gesvd"):
        raise ValueError(f'lapack_driver must be "gesdd" or "gesvd", not "{lapack_driver}"')
    a1 = as_array(a)
    if check_finite:
        _check_finite(a1)
    if a1.ndim < 2:
        raise ValueError(f"Expected at least ndim=2, got a1.ndim={a1.ndim!r}")
    t = lapack_dtype(a1)
    real = real_dtype(t)
    batch = a1.shape[:-2]
    m, n = a1.shape[-2:]
    if a1.size == 0:
        k = min(m, n)
        s = gp.empty(batch + (k,), real)
        if not compute_uv:
            return s
        if full_matrices:
            return identities(batch, m, t), s, identities(batch, n, t)
        return gp.empty(batch + (m, k), t), s, gp.empty(batch + (k, n), t)
    a1 = a1.astype(t, copy=False)
    if not compute_uv:
        return _decomp.svd(a1, full_matrices=False, compute_uv=False)
    u, s, vh = _decomp.svd(a1, full_matrices=bool(full_matrices), compute_uv=True)
    return u, s, vh



__all__ = ["svd"]
