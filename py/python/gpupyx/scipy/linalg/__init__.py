"""``scipy.linalg`` on gpupy arrays, under CuPy's ``cupyx.scipy.linalg`` names.

    import gpupy as gp
    import gpupyx.scipy.linalg as sla

    x = sla.solve(A, b, assume_a="pos")          # as scipy.linalg.solve(A, b, ...)
    lu, piv = sla.lu_factor(A); y = sla.lu_solve((lu, piv), c)

SciPy 1.18's signatures, checks and messages, its result dtypes (float32 stays single
precision; bool and small integers compute in float32 and wider integers in float64, as
SciPy's LAPACK type rule picks them) and its batching over leading axes. The
factorizations are gpupy's kernels (``gpupy.linalg._decomp``); see each module:

- ``_basic``: ``solve`` (``assume_a=``, ``lower=``, ``transposed=``), ``solve_triangular``,
  ``inv``, ``det``, ``lstsq``;
- ``_decomp_lu``: ``lu``, ``lu_factor``, ``lu_solve``;
- ``_decomp_cholesky``: ``cholesky``, ``cho_factor``, ``cho_solve``;
- ``_decomp_qr``: ``qr`` (not ``pivoting=True``);
- ``_decomp_eigh``: ``eigh`` with generalized ``b=`` (types 1-3) and subsets;
- ``_decomp_svd``: ``svd``;
- ``_matfuncs``: ``expm`` (scaling and squaring, Pade degree up to 13);
- ``_special_matrices``: ``block_diag``, ``tril``, ``triu``.

``check_finite=True`` costs one reduction and one device-to-host read per input;
``overwrite_*`` and ``lwork`` are accepted and ignored (inputs are never written).
Inputs may be gpupy arrays or host data (copied to the device).
"""

from numpy.linalg import LinAlgError

from gpupyx.scipy.linalg._basic import det, inv, lstsq, solve, solve_triangular
from gpupyx.scipy.linalg._decomp_cholesky import cho_factor, cho_solve, cholesky
from gpupyx.scipy.linalg._decomp_eigh import eigh
from gpupyx.scipy.linalg._decomp_lu import lu, lu_factor, lu_solve
from gpupyx.scipy.linalg._decomp_qr import qr
from gpupyx.scipy.linalg._decomp_svd import svd
from gpupyx.scipy.linalg._matfuncs import expm
from gpupyx.scipy.linalg._special_matrices import block_diag, tril, triu
from gpupyx.scipy.linalg._util import LinAlgWarning

__all__ = [
    "LinAlgError",
    "LinAlgWarning",
    "block_diag",
    "cho_factor",
    "cho_solve",
    "cholesky",
    "det",
    "eigh",
    "expm",
    "inv",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_solve",
    "qr",
    "solve",
    "solve_triangular",
    "svd",
    "tril",
    "triu",
]
