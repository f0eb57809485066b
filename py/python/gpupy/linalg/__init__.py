"""``gpupy.linalg``: NumPy 2's ``numpy.linalg`` on the GPU, which is also the array API's
``linalg`` extension (batched over leading axes wherever NumPy batches, NumPy's dtypes,
errors and messages, ``numpy.linalg.LinAlgError`` itself).

- Solvers and inverses (``_solve``): ``solve``, ``inv``, ``det``, ``slogdet``,
  ``matrix_power``, ``tensorsolve``, ``tensorinv``;
- factorizations (``_decompositions``): ``cholesky`` (``upper=``), ``qr`` (modes
  reduced, complete, r, raw);
- eigenvalues and singular values (``_eig_svd``): ``eigh``, ``eigvalsh``, ``eig``,
  ``eigvals`` (Hermitian input through the Hermitian solver, the rest through
  Hessenberg reduction and shifted QR), ``svd`` (``U, S, Vh``; ``hermitian=``),
  ``svdvals``;
- through the SVD (``_lstsq``): ``lstsq``, ``pinv``, ``matrix_rank``, ``cond``;
- products and views (``_misc``, ``gpupy._linalg``): ``multi_dot``, ``matmul``,
  ``tensordot``, ``vecdot``, ``outer``, ``cross``, ``diagonal``, ``trace``,
  ``matrix_transpose``, and the norms ``norm``, ``vector_norm``, ``matrix_norm``.

The factorizations are the Rust kernels behind ``gpupy.linalg._decomp`` (LU with partial
pivoting, Cholesky, Householder QR, Hermitian and general eigensolvers, SVD); everything
else is composed from them and gpupy's ordinary operations. float32 and complex64 inputs are
computed in their own precision (NumPy computes them in double and rounds), bool and
integers in float64, float16 raises NumPy's TypeError. A failed factorization anywhere
in a batch raises NumPy's ``LinAlgError`` after one device-to-host read.

``dot``, ``einsum``, ``inner``, ``kron`` and ``vdot`` are gpupy's top-level functions,
kept here for code that looked for them in ``linalg``. ``trace`` and ``outer`` are
``numpy.linalg``'s (the last two axes; 1-D vectors), not the top-level ones.
"""

from numpy.linalg import LinAlgError

from gpupy._linalg import (
    einsum,
    inner,
    kron,
    linalg_matmul as matmul,
    matrix_norm,
    matrix_transpose,
    norm,
    svdvals,
    tensordot,
    vdot,
    vecdot,
    vector_norm,
)
from gpupy._math import dot
from gpupy.linalg._decompositions import cholesky, qr
from gpupy.linalg._eig_svd import eig, eigh, eigvals, eigvalsh, svd
from gpupy.linalg._lstsq import cond, lstsq, matrix_rank, pinv
from gpupy.linalg._misc import cross, diagonal, multi_dot, outer, trace
from gpupy.linalg._solve import det, inv, matrix_power, slogdet, solve, tensorinv, tensorsolve

__all__ = [
    "LinAlgError",
    "cholesky",
    "cond",
    "cross",
    "det",
    "diagonal",
    "dot",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "einsum",
    "inner",
    "inv",
    "kron",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "multi_dot",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "tensorinv",
    "tensorsolve",
    "trace",
    "vdot",
    "vecdot",
    "vector_norm",
]
