"""The sparse kernels (``kernels/src/sparse/``, through ``gpupy._gpupy._sparse_*``): the
one place the package calls them.

A compressed matrix goes in as ``(data, indices, indptr)`` with its major extent `rows`
(CSR rows, CSC columns) and minor extent `cols`. The kernels take int32 or int64
indices (one dtype for both arrays) and float32, float64, complex64 or complex128
values; callers convert other value dtypes (``_sputils.kernel_dtype``).
"""

from gpupy import _gpupy

# `validate`'s flags (gpupy_kernels::sparse::VALID_*).
VALID_START = 1
VALID_LAST_OVER = 2
VALID_DECREASING = 4
VALID_NEGATIVE = 8
VALID_TOO_LARGE = 16
VALID_UNSORTED = 32
VALID_DUPLICATE = 64

# Segment reductions.
SEG_SUM, SEG_MAX, SEG_MIN = 0, 1, 2

# Two-matrix operations (gpupy_kernels::sparse::merge::OP_*).
OPS = {"_plus_": 0, "_minus_": 1, "_elmul_": 2, "_eldiv_": 3, "_maximum_": 4,
       "_minimum_": 5, "_ne_": 6, "_lt_": 7, "_gt_": 8}

#: The SpMV schedule to use instead of the planned one (tests and benchmarks): None, or
#: lanes per row (1, 2, 4, ..., 32), or 0 for the merge path.
force_schedule = None


def validate(indptr, indices, rows, cols):
    """The format flags of `indptr`/`indices` and ``indptr[rows]`` (one read)."""
    return _gpupy._sparse_validate(indptr, indices, rows, cols)


def spmv_plan(indptr, nnz):
    """The SpMV schedule: lanes per row, or 0 for the merge path (one read)."""
    if force_schedule is not None:
        return force_schedule
    return _gpupy._sparse_spmv_plan(indptr, nnz)


def spmv(m, rows, cols, x, plan):
    """``A x`` for ``m = (data, indices, indptr)`` and a vector of its dtype."""
    return _gpupy._sparse_spmv(m, rows, cols, x, plan)


def spmm(m, rows, cols, x):
    """``A X`` for a 2-d `x` of the matrix's dtype (C-contiguous result)."""
    return _gpupy._sparse_spmm(m, rows, cols, x)


def spmm_t(m, rows, cols, x):
    """``A^T x`` (1-d) or ``A^T X`` (2-d) by atomic adds."""
    return _gpupy._sparse_spmm_t(m, rows, cols, x)


def todense(m, rows, cols, fortran, canonical):
    """The dense ``rows x cols`` matrix, duplicates summed."""
    return _gpupy._sparse_todense(m, rows, cols, fortran, canonical)


def expand_rows(indptr, nnz):
    """Each entry's major index (indptr's dtype)."""
    return _gpupy._sparse_expand_rows(indptr, nnz)


def segment(starts, values, op):
    """Per segment ``values[starts[s]:starts[s + 1]]``: (sums or extremes, positions of
    the extremes or None); `starts` int32 or int64, `values` a kernel dtype."""
    return _gpupy._sparse_segment(starts, values, op)


def spgemm(a, b, m, k, n):
    """``A B`` for CSR ``a`` (m x k) and ``b`` (k x n) of one value and index dtype:
    (indptr, indices, data, sorted)."""
    return _gpupy._sparse_spgemm(a, b, m, k, n)


def binop(op, a, b, rows, cols):
    """``op(A, B)`` (an `OPS` name) of canonical matrices of one shape and dtypes:
    (indptr, indices, data), results that are zero left out."""
    return _gpupy._sparse_binop(OPS[op], a, b, rows, cols)
