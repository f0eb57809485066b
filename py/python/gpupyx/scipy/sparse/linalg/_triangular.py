"""Level-scheduled triangular solves of sparse matrices (``spsolve_triangular``'s
method): forward or backward substitution, one level of rows at a time.

Analysis (host, NumPy, once per call: the matrix's index arrays are read back, O(nnz)).
Row ``i`` of a lower triangular ``L`` depends on the rows ``j < i`` where ``L[i, j]``
is stored; its level is 0 without dependencies, else one more than the deepest row it
depends on (Kahn's algorithm, one vectorized pass per level). The rows of one level
depend only on earlier levels, so they are solved together. The rows are ordered by
level, and their off-diagonal entries by row in that order, so that each level owns
contiguous slices of the entry arrays (uploaded once).

Solve (device, per level): gather the solved values the level's entries refer to,
multiply by the entries, sum each row's products (``bincount`` with the products as
weights: float64 sums, in an order the GPU picks; real and imaginary parts apart),
subtract from the right-hand side, divide by the diagonal, scatter into ``x``: about
eight gpupy launches per level, whatever the level's width. This is substitution
itself (the arithmetic of LAPACK's ``trsv``, its row sums in wider precision),
backward stable as it is.

The cost is the number of levels, not the order: the lower triangle of a 2-d grid
Laplacian (``nx x ny``) has ``nx + ny - 1`` levels; a bidiagonal matrix has one row
per level, and solves a row per ten launches.
"""

import numpy

import gpupy as gp


def _levels(dep_row, dep_col, n):
    """The level of every row (host int64 array) and the number of levels: row
    ``dep_row[e]`` depends on row ``dep_col[e]``."""
    indegree = numpy.bincount(dep_row, minlength=n)
    # For each row, the rows that depend on it, contiguous (a CSR of the reverse edges).
    dependents = dep_row[numpy.argsort(dep_col, kind="stable")]
    ptr = numpy.zeros(n + 1, dtype=numpy.int64)
    numpy.cumsum(numpy.bincount(dep_col, minlength=n), out=ptr[1:])
    level = numpy.zeros(n, dtype=numpy.int64)
    frontier = numpy.flatnonzero(indegree == 0)
    depth = 0
    while frontier.size:
        level[frontier] = depth
        depth += 1
        starts = ptr[frontier]
        counts = ptr[frontier + 1] - starts
        total = int(counts.sum())
        if total == 0:
            break
        # The positions starts[f] .. starts[f] + counts[f] - 1 of every frontier row f.
        offsets = numpy.cumsum(counts) - counts
        positions = numpy.repeat(starts - offsets, counts) + numpy.arange(total)
        hit, times = numpy.unique(dependents[positions], return_counts=True)
        indegree[hit] -= times
        frontier = hit[indegree[hit] == 0]
    return level, depth


class LevelSchedule:
    """A sparse triangular matrix analysed for level-scheduled substitution.

    ``A``: a gpupyx sparse matrix (duplicates summed here), read as ``lower`` or upper
    triangular (entries of the other triangle are ignored); ``dtype``: the solve's
    dtype. ``diagonal`` (device, in level order) is None with ``unit_diagonal``."""

    def __init__(self, A, lower, unit_diagonal, dtype):
        c = A.tocsr().copy()
        c.sum_duplicates()
        n = c.shape[0]
        indptr = gp.asnumpy(c.indptr).astype(numpy.int64)
        indices = gp.asnumpy(c.indices).astype(numpy.int64)
        rows = numpy.repeat(numpy.arange(n, dtype=numpy.int64), numpy.diff(indptr))
        strict = indices < rows if lower else indices > rows
        strict_pos = numpy.flatnonzero(strict)
        level, depth = _levels(rows[strict_pos], indices[strict_pos], n)

        self.n = n
        self.perm = numpy.argsort(level, kind="stable")  # rows in level order
        rank = numpy.empty(n, dtype=numpy.int64)
        rank[self.perm] = numpy.arange(n)
        self.level_ptr = numpy.zeros(depth + 1, dtype=numpy.int64)
        numpy.cumsum(numpy.bincount(level, minlength=depth), out=self.level_ptr[1:])

        # The strict entries grouped by row, rows in level order.
        entry_rank = rank[rows[strict_pos]]
        order = numpy.argsort(entry_rank, kind="stable")
        entries = strict_pos[order]
        entry_rank = entry_rank[order]
        self.entry_ptr = numpy.searchsorted(entry_rank, self.level_ptr)
        # Each entry's row within its level.
        entry_level = numpy.searchsorted(self.level_ptr, entry_rank, side="right") - 1
        self.entry_row = gp.asarray(entry_rank - self.level_ptr[entry_level])

        data = c.data.astype(dtype, copy=False)
        self.cols = gp.asarray(indices[entries])
        self.vals = data[gp.asarray(entries)]
        self.perm_dev = gp.asarray(self.perm)
        self.diagonal = None
        if not unit_diagonal:
            diag = gp.zeros(n, dtype=dtype)
            on_diag = numpy.flatnonzero(indices == rows)
            if on_diag.size:
                diag[gp.asarray(rank[rows[on_diag]])] = data[gp.asarray(on_diag)]
            self.diagonal = diag

    def has_zero_diagonal(self):
        """Whether a diagonal entry is zero or missing (one device read)."""
        return self.diagonal is not None and bool(gp.any(self.diagonal == 0))

    def solve(self, b):
        """``x`` with ``op(A) x = b`` for ``b`` of shape (n, k) (device, the solve's
        dtype)."""
        k = b.shape[1]
        x = gp.zeros(b.shape, dtype=b.dtype)
        rhs = b[self.perm_dev]
        # The (row within level, column) position of each product, flattened.
        slots = (self.entry_row[:, None] * k + gp.arange(k)).ravel()
        for level in range(len(self.level_ptr) - 1):
            s, e = int(self.level_ptr[level]), int(self.level_ptr[level + 1])
            es, ee = int(self.entry_ptr[level]), int(self.entry_ptr[level + 1])
            xl = rhs[s:e]
            if ee > es:
                products = self.vals[es:ee, None] * x[self.cols[es:ee]]
                sums = _sums(slots[es * k:ee * k], products.ravel(), (e - s) * k)
                xl = xl - sums.reshape((e - s, k))
            if self.diagonal is not None:
                xl = xl / self.diagonal[s:e, None]
            x[self.perm_dev[s:e]] = xl
        return x


def _sums(slots, values, length):
    """``sums[i] = sum(values[slots == i])`` (device, ``values``' dtype), ``length`` long."""
    if values.dtype.kind == "c":
        re = gp.bincount(slots, weights=values.real, minlength=length)
        im = gp.bincount(slots, weights=values.imag, minlength=length)
        return (re + 1j * im).astype(values.dtype)
    return gp.bincount(slots, weights=values, minlength=length).astype(values.dtype)
