"""``scipy.sparse.linalg`` on gpupy arrays, under CuPy's ``cupyx.scipy.sparse.linalg``
names.

    import gpupyx.scipy.sparse as sparse
    import gpupyx.scipy.sparse.linalg as sla

    A = sparse.csr_matrix(scipy_matrix)            # host to device
    x, info = sla.cg(A, b, rtol=1e-8, M=jacobi)     # as scipy.sparse.linalg.cg
    w, v = sla.eigsh(A, k=6, which="LA")

SciPy 1.18's signatures, defaults, results (``(x, info)`` and the least-squares
tuples), checks and messages. The operators may be ``gpupyx.scipy.sparse`` matrices,
gpupy arrays or LinearOperators; vectors are gpupy arrays (host data is copied to the
device). Everything runs on the device through gpupy's operations (sparse products,
matrix-vector products, dot products, norms); the few numbers an algorithm branches on
are read to the host, once per iteration (see ``_util``), and the small dense problems
(GMRES' Hessenberg matrix, Lanczos' projected matrix, ``svds``' ``k x k`` triangle) are
solved on the host with NumPy.

- ``_interface``: ``LinearOperator``, ``aslinearoperator``;
- ``_iterative``: ``cg``, ``cgs``, ``bicgstab``, ``gmres``; ``_minres``: ``minres``
  (real symmetric and complex Hermitian); ``_lsqr``: ``lsqr``; ``_lsmr``: ``lsmr``
  -- SciPy's algorithms step for step, so iterates and iteration counts agree with
  SciPy's to rounding;
- ``_eigen`` (over ``_lanczos``, thick-restart Lanczos): ``eigsh`` (no shift-invert),
  ``svds`` (``solver='arpack'``), ``ArpackError``, ``ArpackNoConvergence``;
- ``_norm``: ``norm`` of sparse matrices;
- ``_solve``: ``spsolve`` and ``factorized`` through a dense copy (orders up to
  16384), ``spsolve_triangular`` by level-scheduled sparse substitution
  (``_triangular``), ``MatrixRankWarning``.

Results are gpupy arrays; scalars the solvers return besides (``lsqr``'s norms, ...)
are host numbers, as SciPy's.

Not (yet) here: ``bicg``, ``qmr``, ``tfqmr``, ``lgmres``, ``gcrotmk``, ``eigs``,
``lobpcg``, ``splu``, ``spilu``, ``expm``, ``expm_multiply``, ``onenormest``,
``matrix_power``, ``is_sptriangular``, ``spbandwidth``; ``eigsh``'s shift-invert and
generalized modes; a sparse (non-densifying) LU for ``spsolve``/``factorized``.
"""

from gpupyx.scipy.sparse.linalg._eigen import ArpackError, ArpackNoConvergence, eigsh, svds
from gpupyx.scipy.sparse.linalg._interface import LinearOperator, aslinearoperator
from gpupyx.scipy.sparse.linalg._iterative import bicgstab, cg, cgs, gmres
from gpupyx.scipy.sparse.linalg._lsmr import lsmr
from gpupyx.scipy.sparse.linalg._lsqr import lsqr
from gpupyx.scipy.sparse.linalg._minres import minres
from gpupyx.scipy.sparse.linalg._norm import norm
from gpupyx.scipy.sparse.linalg._solve import MatrixRankWarning, factorized, spsolve, spsolve_triangular

__all__ = [
    "ArpackError",
    "ArpackNoConvergence",
    "LinearOperator",
    "MatrixRankWarning",
    "aslinearoperator",
    "bicgstab",
    "cg",
    "cgs",
    "eigsh",
    "factorized",
    "gmres",
    "lsmr",
    "lsqr",
    "minres",
    "norm",
    "spsolve",
    "spsolve_triangular",
    "svds",
]
