"""``scipy.sparse`` on the GPU, under CuPy's ``cupyx.scipy.sparse`` names: sparse
matrices and arrays whose arrays are gpupy arrays and whose products, conversions and
reductions run in gpupy's Rust kernels (``kernels/src/sparse/``).

    import gpupy as gp
    import gpupyx.scipy.sparse as sp
    A = sp.coo_matrix((gp.asarray(vals), (rows, cols)), shape=(3, 3)).tocsr()
    y = A.dot(gp.asarray([1, 2, 3], dtype=gp.float32))   # SpMV on the GPU
    B = A @ A.T                                           # SpGEMM
    m = A.get()                                           # a SciPy matrix on the host

Formats: ``csr_matrix``/``csr_array``, ``csc_matrix``/``csc_array``,
``coo_matrix``/``coo_array``, ``dia_matrix``/``dia_array`` with SciPy 1.18's
constructors, methods, operators and messages. The ``*_array`` forms follow SciPy's
array semantics (``*`` elementwise, reductions along an axis 1-d); the ``*_matrix``
forms its matrix semantics (``*`` the product, reductions 2-d), where SciPy's
``numpy.matrix`` results are 2-d gpupy arrays (as in CuPy).

Values are bool, float32, float64, complex64 or complex128 (CuPy's set; an operation
whose SciPy result would be an integer matrix gives float64); indices int32 while
they fit, else int64. Dense operands may be gpupy or NumPy arrays; dense results are
gpupy arrays. Construction from ``(data, indices, indptr)`` checks the arrays on the
GPU (one pass, one read) and raises SciPy's errors.

Kernels: SpMV on a schedule chosen from the row lengths (groups of lanes per row, or
merge path for skewed rows; planned once per matrix), SpMM, the transposed products
(CSC) by atomic adds, SpGEMM by per-row hash tables in two passes, elementwise
operations of two matrices by merging sorted rows, segment reductions, conversions by
gpupy's radix sort. Results that sum in an order the GPU decides (transposed products,
SpGEMM) may differ between runs by rounding.
"""

from gpupyx.scipy.sparse._base import (
    SparseEfficiencyWarning, SparseWarning, issparse, isspmatrix, sparray, spmatrix,
)
from gpupyx.scipy.sparse._construct import (
    block_array, block_diag, bmat, diags, diags_array, eye, eye_array, hstack, identity, kron,
    kronsum, rand, random, random_array, spdiags, vstack,
)
from gpupyx.scipy.sparse._coo import coo_array, coo_matrix, isspmatrix_coo
from gpupyx.scipy.sparse._csc import csc_array, csc_matrix, isspmatrix_csc
from gpupyx.scipy.sparse._csr import csr_array, csr_matrix, isspmatrix_csr
from gpupyx.scipy.sparse._dia import dia_array, dia_matrix, isspmatrix_dia
from gpupyx.scipy.sparse._extract import find, tril, triu
from gpupyx.scipy.sparse._sputils import get_index_dtype

__all__ = [
    "SparseEfficiencyWarning", "SparseWarning", "block_array", "block_diag", "bmat",
    "coo_array", "coo_matrix", "csc_array", "csc_matrix", "csr_array", "csr_matrix",
    "dia_array", "dia_matrix", "diags", "diags_array", "eye", "eye_array", "find",
    "get_index_dtype", "hstack", "identity", "issparse", "isspmatrix", "isspmatrix_coo",
    "isspmatrix_csc", "isspmatrix_csr", "isspmatrix_dia", "kron", "kronsum", "rand",
    "random", "random_array", "spdiags", "sparray", "spmatrix", "tril", "triu", "vstack",
]


def __getattr__(name):
    """``gpupyx.scipy.sparse.linalg`` on first use (another part of the package)."""
    if name == "linalg":
        import importlib
        return importlib.import_module("gpupyx.scipy.sparse.linalg")
    raise AttributeError(f"module 'gpupyx.scipy.sparse' has no attribute '{name}'")
