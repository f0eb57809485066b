"""Functions to extract parts of sparse matrices (``scipy.sparse._extract``)."""

from gpupyx.scipy.sparse._base import sparray, spmatrix
from gpupyx.scipy.sparse._coo import coo_array, coo_matrix
from gpupyx.scipy.sparse._construct import _warn_dense_inputs

__all__ = ["find", "tril", "triu"]


def find(A):
    """The (row, col, value) of the nonzero entries of `A` (duplicates summed, C order),
    as gpupy arrays."""
    A = coo_array(A, copy=True)
    A.sum_duplicates()
    nz_mask = A.data != 0
    return A.row[nz_mask], A.col[nz_mask], A.data[nz_mask]


def _coo_class(A, name):
    if isinstance(A, sparray):
        return coo_array
    if isinstance(A, spmatrix):
        return coo_matrix
    _warn_dense_inputs(name, f"{name}(coo_matrix(A))", f"{name}(coo_array(A))")
    return coo_matrix


def _triangle(A, k, format, lower, name):
    coo_sparse = _coo_class(A, name)
    A = coo_sparse(A, copy=False)
    if lower:
        mask = A.row.astype("int64") + k >= A.col.astype("int64")
    else:
        mask = A.row.astype("int64") + k <= A.col.astype("int64")
    keep = mask.nonzero()[0]
    out = coo_sparse._new(A.data[keep], (A.row[keep], A.col[keep]), A.shape,
                          canonical=A.has_canonical_format)
    return out.asformat(format)


def tril(A, k=0, format=None):
    """The lower triangle of `A` (on and below the `k`-th diagonal), COO unless
    `format`."""
    return _triangle(A, k, format, True, "tril")


def triu(A, k=0, format=None):
    """The upper triangle of `A` (on and above the `k`-th diagonal), COO unless
    `format`."""
    return _triangle(A, k, format, False, "triu")
