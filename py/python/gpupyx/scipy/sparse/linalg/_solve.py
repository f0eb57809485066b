"""Direct solvers: ``spsolve``, ``spsolve_triangular`` and ``factorized``, with SciPy
1.18's signatures, checks, messages, warnings and result dtypes and shapes.

``spsolve`` and ``factorized`` (for now): the matrix is densified on the device
(``A.toarray()``) and factored by gpupy's LU with partial pivoting
(``gpupy.linalg._decomp``'s ``lu_factor``/``lu_solve``, as
``gpupyx.scipy.linalg.lu_factor``). That costs ``n^2`` memory and ``O(n^3)`` work, so
it is limited to order ``MAX_DENSE_ORDER`` (16384: 2 GiB in float64); a larger matrix
raises NotImplementedError pointing to the iterative solvers. SciPy's sparse LU
(SuperLU) and its options (``permc_spec``, ``use_umfpack``) are accepted and ignored.

``spsolve_triangular`` stays sparse: level-scheduled substitution (``_triangular``),
no size limit.

Differences from SciPy: an exactly singular matrix is found by LU's zero pivot, as
SuperLU's; ``spsolve_triangular`` reads only the named triangle (SciPy's result is
undefined when the other triangle holds entries); ``overwrite_A``/``overwrite_b`` are
accepted and ignored (inputs are never written).
"""

import warnings

import numpy

import gpupy as gp
from gpupy.linalg import LinAlgError, _decomp
from gpupyx.scipy.sparse.linalg._sparse_access import efficiency_warning, issparse, sparse_module
from gpupyx.scipy.sparse.linalg._triangular import LevelSchedule
from gpupyx.scipy.sparse.linalg._util import as_device

__all__ = ["MatrixRankWarning", "factorized", "spsolve", "spsolve_triangular"]

# The largest order solved through a dense copy (2 GiB in float64, 4 GiB complex128).
MAX_DENSE_ORDER = 16384


class MatrixRankWarning(UserWarning):
    """SciPy's ``MatrixRankWarning``: ``spsolve`` found the matrix exactly singular."""


def _fp_dtype(dtype):
    """SciPy's ``_asfptype``: float32, float64, complex64 and complex128 as they are,
    other dtypes the first of those they cast to safely (bool and 8/16-bit integers
    to float32, wider integers to float64)."""
    dtype = numpy.dtype(dtype)
    if dtype.char in "fdFD":
        return dtype
    for fp in "fdFD":
        if numpy.can_cast(dtype, fp):
            return numpy.dtype(fp)
    raise ValueError(f"cannot upcast type {dtype} to a floating point format")


def _check_order(n, name):
    if n > MAX_DENSE_ORDER:
        raise NotImplementedError(
            f"{name}: gpupyx solves sparse systems through a dense copy, up to order {MAX_DENSE_ORDER}; "
            f"this matrix has order {n}. Use an iterative solver (cg, gmres, bicgstab, minres) instead."
        )


def _dense(A, dtype):
    """``A`` (sparse or dense) as a dense gpupy matrix of ``dtype``."""
    a = A.toarray() if issparse(A) else as_device(A)
    return a.astype(dtype, copy=False)


def spsolve(A, b, permc_spec=None, use_umfpack=True):
    """Solve ``A x = b`` for a square sparse ``A``; ``b`` a vector ``(n,)``/``(n, 1)``
    (the result is 1-d), a matrix (dense result) or a sparse matrix (sparse result of
    ``A``'s format). An exactly singular ``A`` warns SciPy's MatrixRankWarning and
    gives NaNs. Densifies ``A`` (see the module docstring: orders up to
    ``MAX_DENSE_ORDER``).

    .. seealso:: scipy.sparse.linalg.spsolve
    """
    if not (issparse(A) and A.format in ("csc", "csr")):
        warnings.warn("spsolve requires A be CSC or CSR matrix format", efficiency_warning(), stacklevel=2)
        if not issparse(A):
            A = as_device(A)
    b_is_sparse = issparse(b)
    if not b_is_sparse:
        b = as_device(b)
    b_is_vector = (b.ndim == 1) or (b.ndim == 2 and b.shape[1] == 1)

    result_dtype = numpy.promote_types(_fp_dtype(A.dtype), b.dtype)
    M, N = A.shape
    if M != N:
        raise ValueError(f"matrix must be square (has shape {(M, N)})")
    if M != b.shape[0]:
        raise ValueError(f"matrix - rhs dimension mismatch ({A.shape} - {b.shape[0]})")
    _check_order(N, "spsolve")

    rhs = _dense(b, result_dtype).reshape((N, -1))
    lu, piv, info = _decomp.lu_factor(_dense(A, result_dtype))
    if numpy.any(info):
        warnings.warn("Matrix is exactly singular", MatrixRankWarning, stacklevel=2)
        x = gp.full(rhs.shape, numpy.nan, dtype=result_dtype)
    else:
        x = _decomp.lu_solve(lu, piv, rhs)
    if b_is_vector:
        return x.ravel()
    if not b_is_sparse:
        return x
    sp = sparse_module()
    cls = type(A) if issparse(A) and A.format in ("csc", "csr") else getattr(sp, "csc_array", sp.csc_matrix)
    return cls(x)


def spsolve_triangular(A, b, lower=True, overwrite_A=False, overwrite_b=False, unit_diagonal=False):
    """Solve ``A x = b`` for a triangular ``A`` (its ``lower`` triangle, or the upper
    one; with ``unit_diagonal`` the diagonal is taken as ones). ``b`` is ``(n,)`` or
    ``(n, k)``; the result has ``b``'s shape. A zero (or missing) diagonal entry raises
    SciPy's LinAlgError.

    A sparse ``A`` is solved by level-scheduled substitution (``_triangular``: no size
    limit; the time grows with the number of dependency levels, not with the order); a
    dense one (which SciPy converts to CSC, with its warning) by the dense triangular
    solver, up to order ``MAX_DENSE_ORDER``.

    .. seealso:: scipy.sparse.linalg.spsolve_triangular
    """
    if not (issparse(A) and A.format in ("csc", "csr")):
        warnings.warn("CSC or CSR matrix format is required. Converting to CSC matrix.", efficiency_warning(),
                      stacklevel=2)
        if not issparse(A):
            A = as_device(A)
    M, N = A.shape
    if M != N:
        # SciPy solves a CSR matrix as the transpose of a CSC one, and names that shape.
        shape = A.shape[::-1] if issparse(A) and A.format == "csr" else A.shape
        raise ValueError(f"A must be a square matrix but its shape is {shape}.")
    a_dtype = numpy.promote_types(A.dtype, numpy.float32)
    if issparse(A):
        schedule = LevelSchedule(A, lower, unit_diagonal, a_dtype)
        singular = schedule.has_zero_diagonal()
    else:
        _check_order(N, "spsolve_triangular")
        a = _dense(A, a_dtype)
        singular = not unit_diagonal and bool(gp.any(a.diagonal() == 0))
    if singular:
        raise LinAlgError("A is singular: zero entry on diagonal.")

    b = as_device(b)
    if b.ndim not in [1, 2]:
        raise ValueError(f"b must have 1 or 2 dims but its shape is {b.shape}.")
    if M != b.shape[0]:
        raise ValueError(
            "The size of the dimensions of A must be equal to "
            "the size of the first dimension of b but the shape of A is "
            f"{A.shape} and the shape of b is {b.shape}."
        )
    result_dtype = numpy.promote_types(a_dtype, b.dtype)
    rhs = b.astype(result_dtype).reshape((N, -1))
    if issparse(A):
        x = schedule.solve(rhs)
    else:
        x = _decomp.solve_triangular(a.astype(result_dtype, copy=False), rhs, lower, 0, unit_diagonal)
    return x.reshape(b.shape)


def factorized(A):
    """A function ``solve(b)`` solving ``A x = b`` with ``A`` factored once (LU with
    partial pivoting of the dense copy; orders up to ``MAX_DENSE_ORDER``). ``A`` is
    upcast to a floating dtype as SciPy's; ``b`` must cast safely to it. An exactly
    singular ``A`` raises SciPy's RuntimeError('Factor is exactly singular').

    .. seealso:: scipy.sparse.linalg.factorized
    """
    if not (issparse(A) and A.format == "csc"):
        warnings.warn("splu converted its input to CSC format", efficiency_warning(), stacklevel=2)
        if not issparse(A):
            A = as_device(A)
    dtype = _fp_dtype(A.dtype)
    M, N = A.shape
    if M != N:
        raise ValueError("can only factor square matrices")
    _check_order(N, "factorized")
    lu, piv, info = _decomp.lu_factor(_dense(A, dtype))
    if numpy.any(info):
        raise RuntimeError("Factor is exactly singular")

    def solve(b, trans="N"):
        """``x`` with ``A x = b`` (``trans`` 'N'), ``A^T x = b`` ('T') or ``A^H x = b``
        ('H'); ``b`` of shape ``(n,)`` or ``(n, k)``."""
        b = as_device(b)
        if not numpy.can_cast(b.dtype, dtype, "safe"):
            raise TypeError(f"Cannot cast array data from {b.dtype!r} to {dtype!r} according to the rule 'safe'")
        if b.ndim not in (1, 2) or b.shape[0] != N:
            raise ValueError("b is of incompatible size")
        op = {"N": 0, "T": 1, "H": 2}.get(trans)
        if op is None:
            raise ValueError("trans must be N, T, or H")
        x = _decomp.lu_solve(lu, piv, b.astype(dtype).reshape((N, -1)), op)
        return x.reshape(b.shape)

    return solve
