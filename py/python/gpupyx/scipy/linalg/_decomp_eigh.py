"""``scipy.linalg.eigh`` (standard and generalized), batched as SciPy's, on
``_decomp.eigh``, ``_decomp.cholesky`` and ``_decomp.solve_triangular``.

The generalized problems reduce to a standard one with the Cholesky factor of
``B = L L^H`` (LAPACK ``sygst``/``hegst``'s reduction):

- type 1, ``A x = w B x``: ``C = L^-1 A L^-H``, ``x = L^-H y``;
- type 2, ``A B x = w x``: ``C = L^H A L``, ``x = L^-H y``;
- type 3, ``B A x = w x``: ``C = L^H A L``, ``x = L y``;

where ``C y = w y``; the eigenvectors come out normalized as LAPACK's: ``X^H B X = I``
(types 1 and 2), ``X^H B^-1 X = I`` (type 3). Only the ``lower`` (or upper) triangles of
``a`` and ``b`` are read.

``driver`` is checked as SciPy checks it and otherwise ignored (one eigensolver);
``subset_by_index``/``subset_by_value`` select from the full spectrum.
"""

import math

import numpy
from numpy.linalg import LinAlgError

import gpupy as gp
from gpupy.linalg import _decomp
from gpupy.linalg._util import conj_t, materialize
from gpupyx.scipy.linalg._util import (
    as_array,
    batch_shape,
    broadcast,
    check_finite as _check_finite,
    lapack_dtype,
    real_dtype,
)

_DRIVERS = [None, "ev", "evd", "evr", "evx", "gv", "gvd", "gvx"]


def _hermitian_from(a, lower):
    """The Hermitian matrix that LAPACK sees in ``a``'s ``lower`` (or upper) triangle:
    that triangle, its mirror conjugated, the diagonal's real part."""
    strict = gp.tril(a, -1) if lower else gp.triu(a, 1)
    full = gp.add(strict, conj_t(strict))
    d = a.diagonal(0, -2, -1)
    gp.copyto(full.diagonal(0, -2, -1), d.real)
    return full


def _check_driver(driver, b, subset):
    if driver not in _DRIVERS:
        raise ValueError('"{}" is unknown. Possible values are "None", "{}".'.format(driver, '", "'.join(_DRIVERS[1:])))
    if driver:
        if b is None and driver in ("gv", "gvd", "gvx"):
            raise ValueError(f"{driver} requires input b array to be supplied for generalized eigenvalue problems.")
        if b is not None and driver in ("ev", "evd", "evr", "evx"):
            raise ValueError(f'"{driver}" does not accept input b array for standard eigenvalue problems.')
        if subset and driver in ("ev", "evd", "gv", "gvd"):
            raise ValueError(f'"{driver}" cannot compute subsets of eigenvalues')


def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, type=1,
         check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """``scipy.linalg.eigh``: eigenvalues ``w`` (ascending, real) and eigenvectors ``v``
    (columns) of the Hermitian ``a``, or of the generalized problem with the Hermitian
    positive definite ``b`` (``type`` 1, 2 or 3, see the module docstring).
    ``subset_by_index=[lo, hi]`` keeps eigenvalues lo..hi (inclusive),
    ``subset_by_value=(lo, hi)`` those in the half-open interval (lo, hi]."""
    a1 = as_array(a)
    b1 = None if b is None else as_array(b)
    batch = batch_shape((a1, 2), *([(b1, 2)] if b1 is not None else []))
    if check_finite:
        _check_finite(a1, b1)
    if a1.ndim < 2 or a1.shape[-1] != a1.shape[-2]:
        raise ValueError('expected square "a" matrix')
    n = a1.shape[-1]
    arrays = [a1]
    if b1 is not None:
        if b1.ndim < 2 or b1.shape[-1] != b1.shape[-2]:
            raise ValueError('expected square "b" matrix')
        if b1.shape[-2:] != a1.shape[-2:]:
            raise ValueError(f"wrong b dimensions {tuple(b1.shape[-2:])}, should be {tuple(a1.shape[-2:])}")
        if type not in (1, 2, 3):
            raise ValueError('"type" keyword only accepts 1, 2, and 3.')
        arrays.append(b1)
    subset = subset_by_index is not None or subset_by_value is not None
    if subset_by_index and subset_by_value:
        raise ValueError("Either index or value subset can be requested.")
    lo_i = hi_i = None
    if subset_by_index:
        lo_i, hi_i = (int(x) for x in subset_by_index)
        if not 0 <= lo_i <= hi_i < n:
            raise ValueError(
                f"Requested eigenvalue indices are not valid. Valid range is [0, {n - 1}] and start <= end, but "
                f"start={lo_i}, end={hi_i} is given"
            )
    if subset_by_value:
        lo_v, hi_v = subset_by_value
        if not -numpy.inf <= lo_v < hi_v <= numpy.inf:
            raise ValueError(
                "Requested eigenvalue bounds are not valid. Valid range is (-inf, inf) and low < high, but "
                f"low={lo_v}, high={hi_v} is given"
            )
    _check_driver(driver, b1, subset)
    # SciPy computes a standard problem in a's LAPACK type, a generalized one in the
    # type of a and b together.
    t = lapack_dtype(*arrays)
    real = real_dtype(t)
    if n == 0 or math.prod(batch) == 0:
        w = gp.empty(batch + (n,), real)
        return w if eigvals_only else (w, gp.empty(batch + (n, n), t))
    a1 = broadcast(a1.astype(t, copy=False), batch, 2)
    vectors = not eigvals_only
    if b1 is None:
        w, v = _decomp.eigh(a1, lower=lower, vectors=vectors)
    else:
        w, v = _generalized(a1, broadcast(b1.astype(t, copy=False), batch, 2), lower, type, vectors)
    if subset_by_index:
        w = w[..., lo_i:hi_i + 1]
        v = None if v is None else v[..., lo_i:hi_i + 1]
    elif subset_by_value:
        w, v = _select_by_value(w, v, lo_v, hi_v)
    w = materialize(w) if subset else w
    if eigvals_only:
        return w
    return w, (materialize(v) if subset else v)


def _generalized(a, b, lower, kind, vectors):
    """Eigenpairs of the generalized problem of ``kind`` through the Cholesky factor of
    ``b`` (lower, whichever triangle ``b`` is read from: ``B = L L^H``)."""
    c, info = _decomp.cholesky(b, lower=lower)
    flat = numpy.asarray(info).ravel()
    bad = numpy.flatnonzero(flat)
    if bad.size:
        raise LinAlgError(
            f"The leading minor of order {int(flat[bad[0]])} of B is not positive definite. The factorization "
            "of B could not be completed and no eigenvalues or eigenvectors were computed."
        )
    L = c if lower else conj_t(c)  # B = U^H U = L L^H with L = U^H
    full = _hermitian_from(a, lower)
    if kind == 1:
        # C = L^-1 A L^-H = L^-1 (L^-1 A)^H, A Hermitian.
        w1 = _decomp.solve_triangular(L, full, True, trans=0)
        cmat = _decomp.solve_triangular(L, conj_t(w1), True, trans=0)
    else:
        cmat = gp.matmul(conj_t(L), gp.matmul(full, L))
    w, y = _decomp.eigh(cmat, lower=True, vectors=vectors)
    if not vectors:
        return w, None
    if kind == 3:
        return w, gp.matmul(L, y)
    return w, _decomp.solve_triangular(L, y, True, trans=2)


def _select_by_value(w, v, lo, hi):
    """The eigenpairs with ``lo < w <= hi`` (LAPACK's range 'V'). The eigenvalues are
    ascending, so the selection is a run of columns; every matrix of a batch must select
    as many (SciPy stacks the per-matrix results, which fails otherwise)."""
    first = gp.asnumpy(gp.count_nonzero(w <= lo, axis=-1)).reshape(-1)
    last = gp.asnumpy(gp.count_nonzero(w <= hi, axis=-1)).reshape(-1)
    counts = last - first
    if counts.size and not numpy.all(counts == counts[0]):
        raise ValueError(
            f"subset_by_value selects different numbers of eigenvalues in the matrices of the batch "
            f"({sorted(set(counts.tolist()))}); SciPy cannot stack such results either"
        )
    count = int(counts[0]) if counts.size else 0
    if counts.size and numpy.all(first == first[0]):
        s = slice(int(first[0]), int(first[0]) + count)
        return w[..., s], (None if v is None else v[..., s])
    # Different starting positions: one slice per matrix, stacked.
    batch = w.shape[:-1]
    wf = w.reshape((-1, w.shape[-1]))
    ws = gp.stack([wf[i, int(f):int(f) + count] for i, f in enumerate(first)]).reshape(batch + (count,))
    if v is None:
        return ws, None
    vf = v.reshape((-1,) + v.shape[-2:])
    vs = gp.stack([vf[i, :, int(f):int(f) + count] for i, f in enumerate(first)])
    return ws, vs.reshape(batch + v.shape[-2:-1] + (count,))


__all__ = ["eigh"]
