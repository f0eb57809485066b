"""``scipy.linalg``'s Cholesky functions: ``cholesky``, ``cho_factor`` and ``cho_solve``,
batched as SciPy's, on ``_decomp.cholesky`` and ``_decomp.solve_triangular``."""

import math

import numpy
from numpy.linalg import LinAlgError

import gpupy as gp
from gpupy.linalg import _decomp
from gpupy.linalg._util import materialize, solve_batched
from gpupyx.scipy.linalg._util import (
    as_array,
    batch_shape,
    check_finite as _check_finite,
    core_ndim,
    lapack_dtype,
    validated,
)


def _factor(a, lower, check_finite):
    """SciPy 1.18's ``_cholesky``: the checks, then the factor of the ``lower`` (or upper)
    triangle of each matrix; a matrix that is not positive definite raises SciPy's
    ``LinAlgError('Internal potrf return info = [...] for slices [...].')`` naming
    LAPACK's ``info`` (the order of the first leading minor that is not positive
    definite) and the flat batch position of each such matrix."""
    a1 = validated(a, check_finite)
    a1 = gp.atleast_2d(a1)
    if a1.shape[-1] != a1.shape[-2]:
        raise ValueError(f"Expected a square matrix or batch thereof, got a1.shape={a1.shape!r}")
    t = lapack_dtype(a1)
    a1 = a1.astype(t, copy=False)
    if a1.shape[-1] == 0:
        return gp.zeros(a1.shape[:-2] + (0, 0), t), a1
    c, info = _decomp.cholesky(a1, lower=lower)
    flat = numpy.asarray(info).ravel()
    bad = numpy.flatnonzero(flat)
    if bad.size:
        raise LinAlgError(
            f"Internal potrf return info = {[int(flat[i]) for i in bad]} for slices {[int(i) for i in bad]}."
        )
    return c, a1


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """``scipy.linalg.cholesky``: the upper factor ``U`` (``a = U^H U``, SciPy's
    default) or with ``lower=True`` ``L`` (``a = L L^H``), zeros in the other
    triangle."""
    c, _ = _factor(a, lower, check_finite)
    return c


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """``scipy.linalg.cho_factor``: ``(c, lower)`` for ``cho_solve``. As LAPACK's
    ``potrf`` leaves it, the triangle of ``c`` that is not the factor holds ``a``'s
    entries (SciPy calls them arbitrary). ``lower`` comes back as SciPy 1.18 returns
    it: a NumPy bool array of ``a``'s batch shape (0-d for one matrix)."""
    c, a1 = _factor(a, lower, check_finite)
    if c.size:
        n = c.shape[-1]
        mask = gp.tri(n, n, 0, dtype=bool) if lower else gp.logical_not(gp.tri(n, n, -1, dtype=bool))
        c = gp.where(mask, c, a1)
    return c, numpy.tile(lower, reps=tuple(numpy.shape(a)[:-2]))


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """``scipy.linalg.cho_solve``: ``x`` with ``A x = b`` from ``cho_factor``'s
    ``(c, lower)``, two triangular solves reading only the factor's triangle."""
    c, lower = c_and_lower
    lower = bool(numpy.all(lower))  # a bool, or cho_factor's array of them
    c = as_array(c)
    b = as_array(b)
    cb = core_ndim(b, "1|2")
    batch = batch_shape((c, 2), (b, cb))
    if check_finite:
        _check_finite(b, c)
    if c.ndim < 2 or c.shape[-1] != c.shape[-2]:
        raise ValueError("The factored matrix c is not square.")
    core_b = tuple(b.shape[b.ndim - cb:])
    if c.shape[-1] != core_b[0]:
        raise ValueError(f"incompatible dimensions ({tuple(c.shape[-2:])} and {core_b})")
    t = lapack_dtype(c, b)
    if math.prod(batch + core_b) == 0:
        return gp.empty(batch + core_b, t)
    c, b = c.astype(t, copy=False), b.astype(t, copy=False)
    b2 = b[..., None] if cb == 1 else b
    first, second = (0, 2) if lower else (2, 0)  # L L^H: L^-1 then L^-H; U^H U: U^-H then U^-1

    def run(cc, bb):
        y = _decomp.solve_triangular(cc, bb, lower, trans=first)
        return _decomp.solve_triangular(cc, y, lower, trans=second)

    x = solve_batched(run, c, b2, batch)
    return materialize(x[..., 0]) if cb == 1 else x


__all__ = ["cholesky", "cho_factor", "cho_solve"]
