"""``scipy.linalg``'s linear systems (SciPy 1.18's ``_basic``): ``solve``,
``solve_triangular``, ``inv``, ``det`` and ``lstsq``, batched over leading axes as
SciPy's (its batch rule: ``a`` has two core axes, a right-hand side one when it is 1-D
and two otherwise), on the primitives of ``gpupy.linalg._decomp``.

``solve``'s ``assume_a`` picks the factorization: LU with partial pivoting (``None``,
'gen'/'general', 'banded' (the band is the matrix's nonzero pattern), and
'sym'/'her' on the matrix rebuilt from the ``lower`` or
upper triangle, since no symmetric-indefinite primitive exists: LU is backward stable
on it too), Cholesky ('pos'), triangular solves ('upper triangular', 'lower
triangular'), a division ('diagonal'), LU of the tridiagonal band ('tridiagonal').
``assume_a=None`` does not inspect the matrix (SciPy looks for structure on the CPU;
that would cost a pass over the matrix and gains nothing over LU on the GPU). SciPy's
ill-conditioning ``LinAlgWarning`` is not emitted: gpupy estimates no condition number.

``overwrite_a``/``overwrite_b`` are accepted and ignored (inputs are never written).
"""

import math

import numpy

import gpupy as gp
from gpupy.linalg import _decomp
from gpupy.linalg._util import conj_t, identities, materialize, solve_batched
from gpupyx.scipy.linalg._util import (
    LinAlgError,
    as_array,
    batch_shape,
    broadcast,
    check_finite as _check_finite,
    core_ndim,
    flat_nonzero,
    lapack_dtype,
    real_dtype,
    singular_error,
    solve_dtype,
    validated,
    zero_diagonal_positions,
)

_STRUCTURES = {
    None: "general",
    "general": "general",
    "gen": "general",
    "diagonal": "diagonal",
    "tridiagonal": "tridiagonal",
    "upper triangular": "upper",
    "lower triangular": "lower",
    "pos": "pos",
    "positive definite": "pos",
    "sym": "sym",
    "symmetric": "sym",
    "her": "her",
    "hermitian": "her",
    "banded": "general",  # the band is the matrix's nonzero pattern: LU of the whole
}


def _full_from_triangle(a, lower, hermitian):
    """The symmetric (Hermitian) matrix whose ``lower`` (or upper) triangle is ``a``'s,
    as LAPACK's ``sysv``/``hesv`` read it: the other triangle is ignored, and a
    Hermitian matrix's diagonal is taken as real."""
    strict = gp.tril(a, -1) if lower else gp.triu(a, 1)
    mirrored = conj_t(strict) if hermitian else strict.mT
    full = gp.add(strict, mirrored)  # a new array, zero on the diagonal
    d = a.diagonal(0, -2, -1)
    gp.copyto(full.diagonal(0, -2, -1), d.real if hermitian else d)
    return full


def _band(a, below, above):
    """``a`` with the entries outside the band (``below`` subdiagonals, ``above``
    superdiagonals) zeroed."""
    keep = gp.logical_and(gp.tri(*a.shape[-2:], k=above, dtype=bool), gp.logical_not(gp.tri(*a.shape[-2:], k=-below - 1, dtype=bool)))
    return gp.where(keep, a, gp.zeros(1, a.dtype))


def _lu_solver():
    """The LU solve primitive on one batch shape, raising SciPy's singular-matrix error."""

    def run(a, b):
        x, info = _decomp.solve(a, b)
        bad = flat_nonzero(info)
        if bad:
            raise singular_error(bad)
        return x

    return run


def _cholesky_solver(lower):
    """A x = b through A = L L^H (or U^H U): two triangular solves."""

    def run(a, b):
        c, info = _decomp.cholesky(a, lower=lower)
        bad = flat_nonzero(info)
        if bad:
            raise singular_error(bad)
        first, second = (0, 2) if lower else (2, 0)
        y = _decomp.solve_triangular(c, b, lower, trans=first)
        return _decomp.solve_triangular(c, y, lower, trans=second)

    return run


def _triangular_solver(lower, trans, unit_diagonal=False):
    def run(a, b):
        return _decomp.solve_triangular(a, b, lower, trans=trans, unit_diagonal=unit_diagonal)

    return run


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
          transposed=False):
    """``scipy.linalg.solve``: ``x`` with ``a @ x == b`` (``a.T @ x == b`` with
    ``transposed``, real matrices only), ``a`` (..., N, N), ``b`` (N,) or (..., N, K) with
    broadcast batch shapes. See the module docstring for ``assume_a``. Singular
    matrices raise SciPy's ``LinAlgError('A singular matrix detected: slice(s) [...] are
    singular.')`` naming the flat batch positions (for 'pos' a matrix that is not
    positive definite, as SciPy's)."""
    structure = _STRUCTURES.get(assume_a, "unknown")
    if structure == "unknown":
        raise ValueError(f"{assume_a} is not a recognized matrix structure")
    a1 = gp.atleast_2d(validated(a, check_finite))
    b1 = gp.atleast_1d(validated(b, check_finite))
    t = solve_dtype(a1, b1)
    if a1.shape[-1] != a1.shape[-2]:
        raise ValueError(f"Expected square matrix, got a1.shape={a1.shape!r}")
    if t.kind == "c" and transposed:
        raise NotImplementedError(
            "scipy.linalg.solve can currently not solve a^T x = b or a^H x = b for complex matrices."
        )
    b_is_1d = b1.ndim == 1
    if b_is_1d:
        b1 = b1[:, None]
    a_is_scalar = a1.size == 1
    if b1.shape[-2] != a1.shape[-1] and not a_is_scalar:
        raise ValueError(f"incompatible shapes: a1.shape={a1.shape!r} and b1.shape={b1.shape!r}")
    batch = tuple(numpy.broadcast_shapes(a1.shape[:-2], b1.shape[:-2]))
    a1, b1 = a1.astype(t, copy=False), b1.astype(t, copy=False)
    n = a1.shape[-1]
    if math.prod(batch) * n == 0 or math.prod(batch + b1.shape[-2:]) == 0:
        x = gp.empty(batch + b1.shape[-2:], t)
        return x[..., 0] if b_is_1d else x
    if a_is_scalar:
        if bool(a1.reshape(()) == 0):
            raise LinAlgError("A singular matrix detected.")
        out = gp.divide(broadcast(b1, batch, 2), broadcast(a1, batch, 2))
        return materialize(out[..., 0]) if b_is_1d else out
    if structure == "her" and t.kind != "c":
        structure = "sym"
    if structure == "general":
        x = solve_batched(_lu_solver(), a1.mT if transposed else a1, b1, batch)
    elif structure in ("sym", "her"):
        full = _full_from_triangle(a1, lower, structure == "her")
        x = solve_batched(_lu_solver(), full, b1, batch)  # symmetric: A^T = A
    elif structure == "pos":
        x = solve_batched(_cholesky_solver(lower), a1, b1, batch)
    elif structure == "tridiagonal":
        band = _band(a1, 1, 1)
        x = solve_batched(_lu_solver(), band.mT if transposed else band, b1, batch)
    elif structure == "diagonal":
        bad = zero_diagonal_positions(broadcast(a1, batch, 2))
        if bad:
            raise singular_error([p for p, _ in bad])
        d = a1.diagonal(0, -2, -1)
        x = gp.divide(broadcast(b1, batch, 2), d[..., :, None])
    else:  # upper / lower triangular
        bad = zero_diagonal_positions(broadcast(a1, batch, 2))
        if bad:
            raise singular_error([p for p, _ in bad])
        x = solve_batched(_triangular_solver(structure == "lower", 1 if transposed else 0), a1, b1, batch)
    return materialize(x[..., 0]) if b_is_1d else x


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    """``scipy.linalg.solve_triangular``: ``x`` with ``a x = b`` (``trans`` 0/'N'),
    ``a^T x = b`` (1/'T') or ``a^H x = b`` (2/'C'), reading only the ``lower`` (or
    upper) triangle of ``a`` (and not its diagonal with ``unit_diagonal``). An exact
    zero on the diagonal raises SciPy's ``LinAlgError('singular matrix: resolution
    failed at diagonal j')`` for the first such matrix of the batch."""
    a = as_array(a)
    b = as_array(b)
    cb = core_ndim(b, "1|2")
    batch = batch_shape((a, 2), (b, cb))
    if check_finite:
        _check_finite(a, b)
    ca = tuple(a.shape[-2:])
    core_b = tuple(b.shape[b.ndim - cb:])
    if len(ca) != 2 or ca[0] != ca[1]:
        raise ValueError("expected square matrix")
    if ca[0] != core_b[0]:
        raise ValueError(f"shapes of a {ca} and b {core_b} are incompatible")
    t = lapack_dtype(a, b)
    if math.prod(batch + core_b) == 0:
        return gp.empty(batch + core_b, t)
    trans = {"N": 0, "T": 1, "C": 2}.get(trans, trans)
    if trans not in (0, 1, 2):
        raise ValueError(f"trans must be 0, 1, 2 or 'N', 'T', 'C', not {trans!r}")
    a, b = a.astype(t, copy=False), b.astype(t, copy=False)
    if not unit_diagonal:
        bad = zero_diagonal_positions(broadcast(a, batch, 2))
        if bad:
            raise LinAlgError(f"singular matrix: resolution failed at diagonal {bad[0][1]}")
    b2 = b[..., None] if cb == 1 else b
    x = solve_batched(_triangular_solver(lower, trans, unit_diagonal), a, b2, batch)
    return materialize(x[..., 0]) if cb == 1 else x


def _inverse_of_triangular(t_, lower):
    return _decomp.solve_triangular(t_, identities(t_.shape[:-2], t_.shape[-1], t_.dtype), lower, trans=0)


_INV_STRUCTURES = {None: "general", "general": "general", "gen": "general", "diagonal": "diagonal",
                   "upper triangular": "upper", "lower triangular": "lower", "pos": "pos", "sym": "sym",
                   "her": "her"}


def inv(a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    """``scipy.linalg.inv`` (SciPy 1.18, ``assume_a`` and ``lower`` included): LU
    (``_decomp.inv``), or by structure: Cholesky ('pos'), triangular solves, a
    reciprocal diagonal; 'sym'/'her' read the ``lower`` or upper triangle."""
    a1 = validated(a, check_finite)
    if a1.ndim < 2:
        raise ValueError(f"Expected at least ndim=2, got a1.ndim={a1.ndim!r}")
    if a1.shape[-1] != a1.shape[-2]:
        raise ValueError(f"Expected square matrix, got a1.shape={a1.shape!r}")
    t = lapack_dtype(a1)
    if a1.size == 0:
        return gp.empty(a1.shape, t)
    structure = _INV_STRUCTURES[assume_a]  # SciPy's lookup: a KeyError for other values
    a1 = a1.astype(t, copy=False)
    if structure == "her" and t.kind != "c":
        structure = "sym"
    if structure in ("general", "sym", "her"):
        m = a1 if structure == "general" else _full_from_triangle(a1, lower, structure == "her")
        ainv, info = _decomp.inv(m)
        bad = flat_nonzero(info)
        if bad:
            raise singular_error(bad)
        return ainv
    if structure == "pos":
        c, info = _decomp.cholesky(a1, lower=lower)
        bad = flat_nonzero(info)
        if bad:
            raise singular_error(bad)
        cinv = _inverse_of_triangular(c, lower)
        # (L L^H)^-1 = L^-H L^-1; (U^H U)^-1 = U^-1 U^-H.
        return gp.matmul(conj_t(cinv), cinv) if lower else gp.matmul(cinv, conj_t(cinv))
    bad = zero_diagonal_positions(a1)
    if bad:
        raise singular_error([p for p, _ in bad])
    if structure == "diagonal":
        d = a1.diagonal(0, -2, -1)
        return gp.multiply(identities(a1.shape[:-2], a1.shape[-1], t), (1 / d)[..., None, :])
    return _inverse_of_triangular(a1, structure == "lower")


def det(a, overwrite_a=False, check_finite=True):
    """``scipy.linalg.det``: the determinant of each matrix from one LU factorization
    (in float32/complex64 for inputs that cast safely to them, as SciPy's), its pivots
    multiplied in float64/complex128, the dtype SciPy returns."""
    a1 = as_array(a)
    if check_finite:
        _check_finite(a1)
    if a1.ndim < 2:
        raise ValueError("The input array must be at least two-dimensional.")
    if a1.shape[-1] != a1.shape[-2]:
        raise ValueError(f"Last 2 dimensions of the array must be square but received shape {a1.shape}.")
    work = next((numpy.dtype(c) for c in "fdFD" if numpy.can_cast(a1.dtype, c)), None)
    if work is None:
        raise TypeError(f"The dtype {a1.dtype} cannot be cast to float(32, 64) or complex(64, 128).")
    out = numpy.dtype(numpy.complex128 if work.kind == "c" else numpy.float64)
    if min(a1.shape) == 0:
        return gp.ones(a1.shape[:-2], out)
    lu, piv, _ = _decomp.lu_factor(a1.astype(work, copy=False))
    n = a1.shape[-1]
    swaps = gp.count_nonzero(piv != gp.arange(n, dtype=piv.dtype), axis=-1)
    parity = (1 - 2 * (swaps % 2)).astype(out)
    d = lu.diagonal(0, -2, -1).astype(out)
    return gp.multiply(gp.prod(d, axis=-1), parity)


_LSTSQ_DRIVERS = ("gelsd", "gelsy", "gelss")


def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True, lapack_driver=None):
    """``scipy.linalg.lstsq`` (SciPy 1.18): ``(x, residues, rank, s)`` of
    ``min ||b - a x||`` through the thin SVD, singular values at or below
    ``cond * s_max`` (default ``cond``: the dtype's eps) treated as zero; batched over
    leading axes, ``b`` 1-D or a stack of matrices.

    ``residues``: the squared norm of each column of ``b - a x`` (in ``x``'s dtype, as
    SciPy's) when ``M > N``, NaN for a rank-deficient matrix, empty when ``M <= N`` or
    with 'gelsy'; ``rank`` an int (an int array for a batch); ``s`` the singular values.
    ``lapack_driver`` is checked and otherwise ignored (one SVD method)."""
    driver = "gelsd" if lapack_driver is None else lapack_driver
    if driver not in _LSTSQ_DRIVERS:
        raise ValueError(f'LAPACK driver "{driver}" is not found')
    a = as_array(a)
    b = as_array(b)
    if a.ndim < 2:
        raise ValueError("Input array a should be at least 2D, got {a.shape = }")  # SciPy's text, verbatim
    a1 = gp.atleast_2d(validated(a, check_finite))
    b1 = gp.atleast_1d(validated(b, check_finite))
    t = solve_dtype(a1, b1)
    real = real_dtype(t)
    a1, b1 = a1.astype(t, copy=False), b1.astype(t, copy=False)
    m, n = a1.shape[-2:]
    if m == 0 or n == 0:
        x = gp.zeros((n,) + b1.shape[1:], t)
        if n == 0:
            mag = gp.absolute(b1) if t.kind == "c" else b1
            residues = gp.sum(gp.multiply(mag, mag), axis=0)
        else:
            residues = gp.empty((0,), numpy.float64)
        return x, residues, 0, gp.empty((0,), numpy.float64)
    b_is_1d = b1.ndim == 1
    if b_is_1d:
        b1 = b1[:, None]
    if m != b1.shape[-2]:
        raise ValueError(f"Shape mismatch: a and b should have the same number of rows ({m} != {b1.shape[-2]}).")
    batch = tuple(numpy.broadcast_shapes(a1.shape[:-2], b1.shape[:-2]))
    eps = float(numpy.finfo(t).eps)
    cond = eps if cond is None else float(cond)
    if cond < 0:  # LAPACK's gelsd: a negative cut-off means machine precision
        cond = eps
    aa = broadcast(a1, batch, 2)
    bb = broadcast(b1, batch, 2)
    u, s, vh = _decomp.svd(aa, full_matrices=False, compute_uv=True)
    large = gp.greater(s, gp.multiply(s[..., :1], cond))
    sinv = gp.where(large, 1 / s, 0).astype(real, copy=False)
    x = gp.matmul(conj_t(vh), gp.multiply(gp.matmul(conj_t(u), bb), sinv[..., :, None]))
    ranks = gp.asnumpy(gp.count_nonzero(large, axis=-1))
    rank = int(ranks) if ranks.ndim == 0 else ranks.astype(numpy.int64)
    if m > n and driver != "gelsy":
        r = gp.subtract(bb, gp.matmul(aa, x))
        mag = gp.absolute(r) if t.kind == "c" else r
        residues = gp.sum(gp.multiply(mag, mag), axis=-2)
        deficient = ranks < n
        if numpy.any(deficient):
            residues = gp.where(gp.asarray(deficient)[..., None], numpy.nan, residues)
        residues = residues.astype(t)
        if b_is_1d:
            residues = materialize(residues[..., 0])
    else:
        residues = gp.zeros(batch + (0,), t)
    if b_is_1d:
        x = materialize(x[..., 0])
    return x, residues, rank, s


__all__ = ["solve", "solve_triangular", "inv", "det", "lstsq"]
