"""``gpupy.linalg``: NumPy's ``numpy.linalg`` names that gpupy computes: products, norms
and singular values (``svdvals``, ``svd(compute_uv=False)``). Singular vectors, other
decompositions and solvers are not implemented yet."""

from gpupy._linalg import (
    einsum,
    inner,
    kron,
    linalg_matmul as matmul,
    matrix_norm,
    matrix_transpose,
    norm,
    outer,
    svd,
    svdvals,
    tensordot,
    trace,
    vdot,
    vecdot,
    vector_norm,
)
from gpupy._math import dot

__all__ = [
    "dot",
    "einsum",
    "inner",
    "kron",
    "matmul",
    "matrix_norm",
    "matrix_transpose",
    "norm",
    "outer",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vdot",
    "vecdot",
    "vector_norm",
]
