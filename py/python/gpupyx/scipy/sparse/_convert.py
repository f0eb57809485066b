"""Format conversions and canonicalization on the device, composed of gpupy's sort,
search, gather and compaction kernels and the sparse family's segment sums.

- COO to compressed: one stable key sort of ``major * minor_extent + minor`` (gpupy's
  radix argsort), the values gathered in that order, duplicates found as changes of
  key and summed per run (segment sums), ``indptr`` by a binary search of each row's
  first entry in the sorted majors (``searchsorted``, where ``bincount`` + ``cumsum``
  would first read the largest index back to size its output);
- compressed transpose (CSR <-> CSC): each entry's major index (``expand_rows``), one
  stable sort by the minor index; the result is sorted (and keeps duplicates, as
  SciPy's ``csr_tocsc``);
- sorting the indices, summing duplicates, dropping entries (``eliminate_zeros``,
  masks): a new ``indptr`` is the number of kept entries before each old row start, one
  ``searchsorted`` of the old ``indptr`` in the kept positions.

Each data-dependent size (the number of distinct entries, of kept entries) is one read.
"""

import numpy

import gpupy as gp
from gpupyx.scipy.sparse import _kernels
from gpupyx.scipy.sparse._sputils import kernel_dtype

_INT64_MAX = numpy.iinfo(numpy.int64).max


def as_dtype(a, dtype):
    """`a` as `dtype` (itself when it already is)."""
    return a if a.dtype == numpy.dtype(dtype) else a.astype(dtype)


def segment_sum(starts, values):
    """Per segment ``values[starts[s]:starts[s + 1]]``: the sum (bool: any), in `values`'
    dtype."""
    kd = kernel_dtype(values.dtype)
    out, _ = _kernels.segment(starts, as_dtype(values, kd), _kernels.SEG_SUM)
    if values.dtype.kind == "b":
        return out != 0
    return out


def indptr_of_sorted(major, M, idx_dtype):
    """``indptr`` (M + 1 of `idx_dtype`) of entries whose major indices `major` are
    sorted: where each row's first entry goes."""
    bounds = gp.arange(M + 1, dtype=major.dtype)
    return as_dtype(gp.searchsorted(major, bounds, side="left"), idx_dtype)


def remap_indptr(indptr, kept, idx_dtype):
    """``indptr`` after keeping the entries at the sorted positions `kept`: each row
    starts at the number of kept entries before its old start."""
    if kept.size == 0:
        return gp.zeros(indptr.shape[0], dtype=idx_dtype)
    return as_dtype(gp.searchsorted(kept, as_dtype(indptr, kept.dtype), side="left"), idx_dtype)


def _fits_key(M, N):
    """Whether ``major * N + minor`` of an M x N matrix fits int64."""
    return M == 0 or N == 0 or (M - 1) * N + (N - 1) <= _INT64_MAX


def sort_entries(major, minor, data, M, N):
    """The entries sorted by (major, minor), stably: (major, minor, data)."""
    return _sorted_entries(major, minor, data, M, N)[:3]


def _sorted_entries(major, minor, data, M, N):
    """(major, minor, data, key): the entries sorted by (major, minor), stably, and
    each sorted entry's key ``major * N + minor`` (int64; None when it would not fit)."""
    if _fits_key(M, N):
        key = major.astype(numpy.int64) * N + minor.astype(numpy.int64)
        order = gp.argsort(key)
        return major[order], minor[order], data[order], key[order]
    order = gp.lexsort((minor, major))
    return major[order], minor[order], data[order], None


def coo_to_compressed(major, minor, data, M, N, idx_dtype, sum_duplicates=True):
    """COO entries (any order, duplicates allowed) of an M x N matrix (major x minor) as
    compressed arrays (indptr, indices, data), sorted, and with duplicates summed when
    `sum_duplicates` (then canonical)."""
    nnz = data.shape[0]
    if nnz == 0:
        return (gp.zeros(M + 1, dtype=idx_dtype), gp.zeros(0, dtype=idx_dtype), data.copy())
    major, minor, data, key = _sorted_entries(major, minor, data, M, N)
    if sum_duplicates and nnz > 1:
        new = gp.empty(nnz, dtype=numpy.bool_)
        new[:1] = True
        if key is not None:
            new[1:] = key[1:] != key[:-1]
        else:
            new[1:] = gp.logical_or(major[1:] != major[:-1], minor[1:] != minor[:-1])
        starts = gp.flatnonzero(new)
        if starts.shape[0] != nnz:
            bounds = gp.concatenate([starts, gp.asarray([nnz], dtype=starts.dtype)])
            data = segment_sum(as_dtype(bounds, idx_dtype), data)
            major, minor = major[starts], minor[starts]
    indptr = indptr_of_sorted(major, M, idx_dtype)
    return indptr, as_dtype(minor, idx_dtype), data


def transpose_compressed(indptr, indices, data, M, N):
    """The compressed arrays of the transpose of an M x N (major x minor) matrix: the
    same arrays sorted by minor index, stably (each new row's indices come out sorted;
    duplicates stay)."""
    idx_dtype = indptr.dtype
    nnz = indices.shape[0]
    if nnz == 0:
        return gp.zeros(N + 1, dtype=idx_dtype), gp.zeros(0, dtype=idx_dtype), data.copy()
    major = _kernels.expand_rows(indptr, nnz)
    order = gp.argsort(indices)
    minor_sorted = indices[order]
    new_indptr = indptr_of_sorted(minor_sorted, N, idx_dtype)
    return new_indptr, major[order], data[order]


def sort_compressed(indptr, indices, data, M, N):
    """Each row's indices sorted (stably), with its data."""
    nnz = indices.shape[0]
    if nnz == 0:
        return indices, data
    major = _kernels.expand_rows(indptr, nnz)
    if _fits_key(M, N):
        order = gp.argsort(major.astype(numpy.int64) * N + indices.astype(numpy.int64))
    else:
        order = gp.lexsort((indices, major))
    return indices[order], data[order]


def sum_duplicates_sorted(indptr, indices, data):
    """Canonical arrays from rows with sorted indices: runs of one index summed."""
    nnz = indices.shape[0]
    if nnz < 2:
        return indptr, indices, data
    major = _kernels.expand_rows(indptr, nnz)
    new = gp.empty(nnz, dtype=numpy.bool_)
    new[:1] = True
    new[1:] = gp.logical_or(major[1:] != major[:-1], indices[1:] != indices[:-1])
    starts = gp.flatnonzero(new)
    if starts.shape[0] == nnz:
        return indptr, indices, data
    idx_dtype = indptr.dtype
    bounds = gp.concatenate([starts, gp.asarray([nnz], dtype=starts.dtype)])
    data = segment_sum(as_dtype(bounds, idx_dtype), data)
    return remap_indptr(indptr, starts, idx_dtype), indices[starts], data


def compact(indptr, indices, data, keep):
    """The entries where the boolean `keep` holds: (indptr, indices, data)."""
    kept = gp.flatnonzero(keep)
    if kept.shape[0] == indices.shape[0]:
        return indptr, indices, data
    return remap_indptr(indptr, kept, indptr.dtype), indices[kept], data[kept]


def dense_to_coo(a):
    """The nonzero entries of a 2-d gpupy array in C order: (row, col, data), int64
    coordinates."""
    row, col = gp.nonzero(a)
    return row, col, a[row, col]
