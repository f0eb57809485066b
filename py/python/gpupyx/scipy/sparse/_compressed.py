"""What CSR and CSC share (``scipy.sparse._compressed``): construction and validation,
products, elementwise operations of two matrices, reductions, canonical form.

A compressed matrix is ``indptr`` (major extent + 1), ``indices`` and ``data``, all
gpupy arrays; ``_swap`` turns (row, col) into (major, minor): identity for CSR, swapped
for CSC, whose arrays are the CSR arrays of the transpose. So:

- ``A @ x`` is the SpMV kernel on CSR (schedule planned once per ``indptr`` and kept
  on the matrix), the transposed product (atomic adds) on CSC;
- ``A @ B`` is the SpGEMM kernel on CSR (and, for CSC, on the operands swapped:
  ``(A B)^T = B^T A^T``);
- ``A + B``, ``A.multiply(B)``, comparisons: the merge kernel on canonical operands.

User-given ``(data, indices, indptr)`` are validated on the device in one pass with one
read (SciPy's ``check_format(full_check=True)``; the same pass tells whether the rows are
sorted and free of duplicates).
"""

from warnings import warn

import numpy

import gpupy as gp
from gpupyx.scipy.sparse import _convert, _kernels
from gpupyx.scipy.sparse._base import SparseEfficiencyWarning, _is_scipy_sparse, issparse, sparray
from gpupyx.scipy.sparse._data import _EXTREMES, _data_matrix, _minmax_mixin
from gpupyx.scipy.sparse._index import IndexMixin, _process_slice
from gpupyx.scipy.sparse._sputils import (
    as_device, broadcast_shapes, check_shape, get_index_dtype, get_sum_dtype, getdtype,
    index_dtype_for, isshape, kernel_dtype, upcast, values_of,
)

_as = _convert.as_dtype


class _cs_matrix(_data_matrix, _minmax_mixin, IndexMixin):
    """The base of the CSR and CSC formats."""

    def __init__(self, arg1, shape=None, dtype=None, copy=False, *, maxprint=None):
        _data_matrix.__init__(self, arg1, maxprint=maxprint)
        is_array = isinstance(self, sparray)
        validate = False
        if issparse(arg1):
            if arg1.format == self.format and copy:
                arg1 = arg1.copy()
            else:
                arg1 = arg1.asformat(self.format)
            self.indptr, self.indices, self.data, self._shape = (
                arg1.indptr, arg1.indices, arg1.data, arg1._shape)
            self._copy_flags(arg1)
        elif _is_scipy_sparse(arg1):
            self._from_scipy(arg1)
        elif isinstance(arg1, tuple):
            if isshape(arg1):
                self._shape = check_shape(arg1)
                M, N = self._swap(self._shape)
                idx_dtype = index_dtype_for(max(self._shape))
                self.data = gp.zeros(0, getdtype(dtype, default=float))
                self.indices = gp.zeros(0, idx_dtype)
                self.indptr = gp.zeros(M + 1, dtype=idx_dtype)
                self.has_canonical_format = True
            elif len(arg1) == 2:
                coo = self._coo_container(arg1, shape=shape, dtype=dtype)
                arrays = coo._coo_to_compressed(self._swap)
                self.indptr, self.indices, self.data, self._shape = arrays
                self.has_canonical_format = True
            elif len(arg1) == 3:
                data, indices, indptr = arg1
                indices = as_device(indices)
                indptr = as_device(indptr)
                data = as_device(data)
                for name, a in (("indices", indices), ("indptr", indptr)):
                    if a.dtype.kind not in "iu":
                        raise ValueError(f"{name} array has non-integer dtype ({a.dtype.name})")
                if shape is not None and 0 not in shape:
                    maxval = max(shape)
                else:
                    maxval = None
                if is_array or maxval is None:
                    # Arrays keep their index dtype (SciPy's sparray); without a shape
                    # the extents are not known yet, so nothing is narrowed.
                    idx_dtype = get_index_dtype((indices, indptr), maxval=maxval)
                else:
                    idx_dtype = index_dtype_for(maxval, indices.shape[0] if indices.ndim else 0)
                self.indices = _as(indices, idx_dtype) if not copy else indices.astype(idx_dtype)
                self.indptr = _as(indptr, idx_dtype) if not copy else indptr.astype(idx_dtype)
                self.data = data.copy() if copy and data.dtype == getdtype(dtype, data) else data
                validate = True
            else:
                raise ValueError(f"unrecognized {self.__class__.__name__} constructor input: {arg1}")
        else:
            try:
                dense = as_device(arg1)
            except Exception as e:
                raise ValueError(f"unrecognized {self.__class__.__name__} "
                                 f"constructor input: {arg1}") from e
            if is_array and dense.ndim != 2 and self.format == "csc":
                raise ValueError(f"CSC arrays don't support {dense.ndim}D input. Use 2D")
            if dense.ndim > 2:
                raise ValueError(f"CSR arrays don't yet support {dense.ndim}D.")
            if is_array and dense.ndim < 2:
                raise ValueError(f"gpupyx.scipy.sparse's {self.format.upper()} arrays are 2-D; "
                                 "1-d sparse arrays are COO (coo_array), or reshape the input")
            coo = self._coo_container(dense, dtype=dtype)
            arrays = coo._coo_to_compressed(self._swap)
            self.indptr, self.indices, self.data, self._shape = arrays
            self.has_canonical_format = True

        if shape is not None:
            self._shape = check_shape(shape)
        elif self.shape is None:
            try:
                M = self.indptr.shape[0] - 1
                N = int(self.indices.max()) + 1
            except Exception as e:
                raise ValueError("unable to infer matrix dimensions") from e
            self._shape = check_shape(self._swap((M, N)))

        if dtype is not None:
            newdtype = getdtype(dtype)
            if self.data.dtype != newdtype:
                self.data = self.data.astype(newdtype)
        else:
            getdtype(None, self.data)
        self.check_format(full_check=validate)

    @classmethod
    def _new(cls, data, indices, indptr, shape, *, canonical=None, sorted_indices=None):
        """A matrix of arrays the package made (valid by construction): no checks, no
        validation pass."""
        self = cls.__new__(cls)
        _data_matrix.__init__(self, None)
        self.data, self.indices, self.indptr = data, indices, indptr
        self._shape = tuple(shape)
        if canonical is not None:
            self.has_canonical_format = canonical
        if sorted_indices is not None:
            self._has_sorted_indices = bool(sorted_indices)
        return self

    def _copy_flags(self, other):
        for attr in ("_has_sorted_indices", "_has_canonical_format"):
            if attr in other.__dict__:
                self.__dict__[attr] = other.__dict__[attr]

    def _from_scipy(self, m):
        """Arrays of a SciPy sparse matrix, converted to this format on the host."""
        m = m.asformat(self.format)
        self._shape = check_shape(m.shape)
        canonical = bool(m.has_canonical_format)
        self.data = gp.asarray(m.data)
        self.indices = gp.asarray(m.indices)
        self.indptr = gp.asarray(m.indptr)
        idx_dtype = numpy.result_type(m.indices.dtype, m.indptr.dtype)
        self.indices = _as(self.indices, idx_dtype)
        self.indptr = _as(self.indptr, idx_dtype)
        self.has_sorted_indices = bool(m.has_sorted_indices)
        self.has_canonical_format = canonical

    def _getnnz(self, axis=None):
        if axis is None:
            return int(self.indices.shape[0])
        if axis < 0:
            axis += 2
        axis, _ = self._swap((axis, 1 - axis))
        _, N = self._swap(self.shape)
        if axis == 0:
            return gp.bincount(self.indices, minlength=N)
        if axis == 1:
            return gp.diff(self.indptr)
        raise ValueError("axis out of bounds")

    def count_nonzero(self, axis=None):
        """Number of stored values that are not zero (duplicates summed first)."""
        self.sum_duplicates()
        if axis is None:
            return gp.count_nonzero(self.data)
        if axis < 0:
            axis += 2
        axis, _ = self._swap((axis, 1 - axis))
        mask = self.data != 0
        if axis == 0:
            _, N = self._swap(self.shape)
            return gp.bincount(self.indices[mask], minlength=N)
        if axis == 1:
            counts = _convert.segment_sum(self.indptr, mask.astype(numpy.float64))
            return counts.astype(numpy.int64)
        raise ValueError("axis out of bounds")

    def check_format(self, full_check=True):
        """Check the CSR/CSC structure: shapes and lengths on the host; with
        `full_check`, every index and the order of ``indptr`` on the device (one pass,
        one read), with SciPy's messages."""
        for x in (self.data.ndim, self.indices.ndim, self.indptr.ndim):
            if x != 1:
                raise ValueError("data, indices, and indptr should be 1-D")
        M, N = self._swap(self._shape_as_2d)
        if self.indptr.shape[0] != M + 1:
            raise ValueError(f"index pointer size {self.indptr.shape[0]} should be {M + 1}")
        if self.indices.shape[0] != self.data.shape[0]:
            raise ValueError("indices and data should have the same size")
        if self.indices.dtype != self.indptr.dtype:
            idx_dtype = get_index_dtype((self.indices, self.indptr))
            self.indices = _as(self.indices, idx_dtype)
            self.indptr = _as(self.indptr, idx_dtype)
        if self.indptr.dtype.kind == "u" or self.indptr.dtype.itemsize < 4:
            idx_dtype = index_dtype_for(M, N, self.indices.shape[0])
            self.indices = _as(self.indices, idx_dtype)
            self.indptr = _as(self.indptr, idx_dtype)
        if not full_check:
            return
        flags, last = _kernels.validate(self.indptr, self.indices, M, N)
        if flags & _kernels.VALID_START:
            raise ValueError("index pointer should start with 0")
        if flags & _kernels.VALID_LAST_OVER:
            raise ValueError("Last value of index pointer should be less than "
                             "the size of index and data arrays")
        if flags & _kernels.VALID_TOO_LARGE:
            raise ValueError(f"indices must be < {N}")
        if flags & _kernels.VALID_NEGATIVE:
            raise ValueError("indices must be >= 0")
        if flags & _kernels.VALID_DECREASING:
            raise ValueError("indptr must be a non-decreasing sequence")
        if last < self.indices.shape[0]:
            self.indices = self.indices[:last]
            self.data = self.data[:last]
        self.has_sorted_indices = not flags & _kernels.VALID_UNSORTED
        self.has_canonical_format = not flags & (_kernels.VALID_UNSORTED | _kernels.VALID_DUPLICATE)

    # -----------------------------------------------------------------------------------
    # The arrays as the kernels take them

    def _arrays(self, dtype=None):
        """(data, indices, indptr) with the data as `dtype` (a kernel dtype)."""
        data = self.data if dtype is None else _as(self.data, dtype)
        return (data, self.indices, self.indptr)

    def _plan(self):
        """The SpMV schedule, found once per ``indptr`` (one reduction, one read)."""
        cached = self.__dict__.get("_spmv_plan")
        nnz = self.indices.shape[0]
        if cached is not None and cached[0] is self.indptr and cached[1] == nnz:
            return cached[2]
        plan = _kernels.spmv_plan(self.indptr, nnz)
        self._spmv_plan = (self.indptr, nnz, plan)
        return plan

    def _product(self, x):
        """``A x`` (x 1-d or 2-d, of the kernel dtype of the data it is given with)."""
        kd = x.dtype
        M, N = self._swap(self.shape)
        arrays = self._arrays(kd)
        if self.format == "csr":
            if x.ndim == 1:
                return _kernels.spmv(arrays, M, N, x, self._plan())
            return _kernels.spmm(arrays, M, N, x)
        return _kernels.spmm_t(arrays, M, N, x)

    def _matmul_vector(self, other):
        res = upcast(self.dtype, other.dtype)
        kd = kernel_dtype(res)
        y = self._product(_as(other, kd))
        return y if kd == res else _as(y, res)

    def _matmul_multivector(self, other):
        res = upcast(self.dtype, other.dtype)
        kd = kernel_dtype(res)
        y = self._product(_as(other, kd))
        return y if kd == res else _as(y, res)

    def _matmul_sparse(self, other):
        M, K1 = self.shape
        K2, N = other.shape
        res = upcast(self.dtype, other.dtype)
        kd = kernel_dtype(res)
        other = self.__class__(other)
        idx_dtype = numpy.promote_types(self.indices.dtype, other.indices.dtype)
        a = (_as(self.data, kd), _as(self.indices, idx_dtype), _as(self.indptr, idx_dtype))
        b = (_as(other.data, kd), _as(other.indices, idx_dtype), _as(other.indptr, idx_dtype))
        if self.format == "csr":
            indptr, indices, data, is_sorted = _spgemm(a, b, M, K1, N)
        else:
            indptr, indices, data, is_sorted = _spgemm(b, a, N, K1, M)
        if kd != res:
            data = data != 0 if res.kind == "b" else _as(data, res)
        out = self._new(data, indices, indptr, (M, N), sorted_indices=is_sorted)
        if not is_sorted:
            out.sort_indices()
        # A row's hash table holds each column once: no duplicates.
        out.has_canonical_format = True
        return out

    # -----------------------------------------------------------------------------------
    # Elementwise

    def _scalar_binopt(self, other, op):
        """``op(A, scalar)`` where ``op(0, scalar)`` is false or zero: canonical result."""
        self.sum_duplicates()
        res = self._with_data(op(self.data, other), copy=True)
        res.eliminate_zeros()
        return res

    def _add_dense(self, other):
        if tuple(other.shape) != self.shape:
            raise ValueError(f"Incompatible shapes ({self.shape} and {tuple(other.shape)})")
        dtype = upcast(self.dtype, other.dtype)
        return self._container(_as(other, dtype) + _as(self.toarray(), dtype))

    def _add_sparse(self, other):
        return self._binopt(other, "_plus_")

    def _sub_sparse(self, other):
        return self._binopt(other, "_minus_")

    def _multiply_2d_with_broadcasting(self, other):
        """Element-wise multiplication by a sparse or dense matrix, broadcasting rows
        and columns as SciPy does."""
        if issparse(other):
            if self.shape == other.shape:
                return self._binopt(other, "_elmul_")
            if other.shape == (1, 1):
                return self._mul_scalar(other.toarray()[0, 0])
            if self.shape == (1, 1):
                return other._mul_scalar(self.data.sum())
            sM, sN = self.shape
            oM, oN = other.shape
            if sM == 1 and oN == 1:
                return other._matmul_sparse(self.tocsc())
            if sN == 1 and oM == 1:
                return self._matmul_sparse(other.tocsc())
            if oM == 1 and sN == oN:
                return self._matmul_sparse(_make_diagonal_csr(other.toarray().ravel(), self._csr_container))
            if sM == 1 and sN == oN:
                return other._matmul_sparse(_make_diagonal_csr(self.toarray().ravel(), self._csr_container))
            if oN == 1 and sM == oM:
                return _make_diagonal_csr(other.toarray().ravel(), self._csr_container)._matmul_sparse(self)
            if sN == 1 and sM == oM:
                return _make_diagonal_csr(self.toarray().ravel(), self._csr_container)._matmul_sparse(other)
            raise ValueError(f"inconsistent shapes {self.shape} and {other.shape}")
        if isinstance(other, (gp.ndarray, numpy.ndarray)):
            other = as_device(other)
        else:
            a = numpy.asanyarray(other)
            if a.dtype == numpy.object_:
                return NotImplemented
            other = gp.asarray(a)
        if other.ndim > 2:
            return gp.multiply(self.toarray(), other)
        if other.size == 1:
            bshape = broadcast_shapes(self.shape, tuple(other.shape))
            return self._mul_scalar(other.reshape(()).get()[()]).reshape(bshape)
        if self.shape == (1, 1):
            bshape = broadcast_shapes(self.shape, tuple(other.shape))
            return gp.multiply(self.data.sum(), other).reshape(bshape)
        ret = self.tocoo()
        if self.shape == tuple(other.shape):
            ret.data = values_of(gp.multiply(ret.data, other[ret.row, ret.col]))
            return ret
        other2d = other.reshape(1, -1) if other.ndim == 1 else other
        if self.shape[0] == 1:
            if other2d.shape[1] == 1:
                data = gp.multiply(ret.data, other2d)
            elif other2d.shape[1] == self.shape[1]:
                data = gp.multiply(ret.data, other2d[:, ret.col])
            else:
                raise ValueError(f"inconsistent shapes {self.shape} and {tuple(other.shape)}")
            k = other2d.shape[0]
            idx_dtype = index_dtype_for(ret.nnz * k, self.shape[1], k)
            row = gp.repeat(gp.arange(k, dtype=idx_dtype), ret.nnz)
            col = gp.tile(_as(ret.col, idx_dtype), k)
            return self._coo_container._new(values_of(data.ravel()), (row, col), (k, self.shape[1]))
        if self.shape[1] == 1:
            if other2d.shape[0] == 1:
                data = gp.multiply(ret.data[:, None], other2d)
            elif other2d.shape[0] == self.shape[0]:
                data = gp.multiply(ret.data[:, None], other2d[ret.row])
            else:
                raise ValueError(f"inconsistent shapes {self.shape} and {tuple(other.shape)}")
            k = other2d.shape[1]
            idx_dtype = index_dtype_for(ret.nnz * k, self.shape[0], k)
            row = gp.repeat(_as(ret.row, idx_dtype), k)
            col = gp.tile(gp.arange(k, dtype=idx_dtype), ret.nnz)
            return self._coo_container._new(values_of(data.ravel()), (row, col), (self.shape[0], k))
        if other2d.shape[0] == 1 and self.shape[1] == other2d.shape[1]:
            data = gp.multiply(ret.data, other2d[:, ret.col].ravel())
        elif other2d.shape[1] == 1 and self.shape[0] == other2d.shape[0]:
            data = gp.multiply(ret.data, other2d[ret.row].ravel())
        else:
            raise ValueError(f"inconsistent shapes {self.shape} and {tuple(other.shape)}")
        ret.data = values_of(data.ravel())
        return ret

    def _binopt(self, other, op):
        """``op(self, other)`` (a `_kernels.OPS` name) by the merge kernel: canonical."""
        other = self.__class__(other)
        self.sum_duplicates()
        other.sum_duplicates()
        bool_ops = ("_ne_", "_lt_", "_gt_", "_le_", "_ge_")
        res = upcast(self.dtype, other.dtype)
        kd = kernel_dtype(res)
        M, N = self._swap(self.shape)
        idx_dtype = numpy.promote_types(self.indices.dtype, other.indices.dtype)
        if self.nnz + other.nnz > numpy.iinfo(numpy.int32).max:
            idx_dtype = numpy.dtype(numpy.int64)
        a = (_as(self.data, kd), _as(self.indices, idx_dtype), _as(self.indptr, idx_dtype))
        b = (_as(other.data, kd), _as(other.indices, idx_dtype), _as(other.indptr, idx_dtype))
        indptr, indices, data = _kernels.binop(op, a, b, M, N)
        if op in bool_ops or res.kind == "b":
            data = data != 0
        elif kd != res:
            data = _as(data, res)
        return self._new(data, indices, indptr, self.shape, canonical=True)

    def _divide_sparse(self, other):
        """``self / other`` for a sparse `other`: dense (NaN where both are zero)."""
        if other.shape != self.shape:
            raise ValueError(f"inconsistent shapes {self.shape} and {other.shape}")
        r = self._binopt(other, "_eldiv_")
        out = gp.full(self.shape, numpy.nan, dtype=r.dtype)
        row, col = other.nonzero()
        out[row, col] = 0
        r = r.tocoo()
        out[r.row, r.col] = r.data
        return self._container(out)

    # -----------------------------------------------------------------------------------
    # Reductions

    def diagonal(self, k=0):
        """The `k`-th diagonal (duplicates summed)."""
        rows, cols = self.shape
        if k <= -rows or k >= cols:
            return gp.empty(0, dtype=self.data.dtype)
        length = min(rows + min(k, 0), cols - max(k, 0))
        M, N = self._swap(self.shape)
        nnz = self.indices.shape[0]
        major = _kernels.expand_rows(self.indptr, nnz)
        # Element (r, c) lies on diagonal k when c - r == k; here (major, minor).
        diff = self.indices.astype(numpy.int64) - major.astype(numpy.int64)
        if self.format == "csc":
            diff = -diff
        on = diff == k
        vals = gp.where(on, self.data, gp.zeros((), dtype=self.data.dtype))
        per_major = _convert.segment_sum(self.indptr, vals)
        # The diagonal's i-th element is in row i - min(k, 0) (CSR), column i + max(k, 0)
        # (CSC).
        first = -min(k, 0) if self.format == "csr" else max(k, 0)
        return per_major[first:first + length].copy()

    def _sum_axis(self, axis, dtype):
        """Sums along `axis` (0: per column, 1: per row) as a 1-d array of `dtype`."""
        acc = get_sum_dtype(self.dtype)
        kd = kernel_dtype(numpy.float64 if acc.kind in "iub" else acc)
        major_axis = self._swap((0, 1))[0]
        M, N = self._swap(self.shape)
        if axis != major_axis:
            out = _convert.segment_sum(self.indptr, _as(self.data, kd))
        else:
            ones = gp.ones(M, dtype=kd)
            out = _kernels.spmm_t(self._arrays(kd), M, N, ones)
        return _as(out, dtype)

    def _major_extremes(self, name):
        """Per major line of the canonical matrix: the extreme of its stored values
        (`_EXTREMES` name; 0 for an empty line) and its position (-1 when empty)."""
        _, op, skip_nan = _EXTREMES[name]
        kd = kernel_dtype(self.dtype)
        data = _as(self.data, kd)
        if skip_nan and kd.kind in "fc":
            nan = gp.isnan(data)
            fill = -numpy.inf if op == _kernels.SEG_MAX else numpy.inf
            value, pos = _kernels.segment(self.indptr, gp.where(nan, gp.asarray(fill, dtype=kd), data), op)
            counts = gp.diff(self.indptr)
            nans = _convert.segment_sum(self.indptr, nan.astype(kd)).real.astype(numpy.int64)
            all_nan = gp.logical_and(nans == counts, counts > 0)
            value = gp.where(all_nan, gp.asarray(numpy.nan, dtype=kd), value)
        else:
            value, pos = _kernels.segment(self.indptr, data, op)
        if kd != self.dtype:
            value = value != 0 if self.dtype.kind == "b" else _as(value, self.dtype)
        return value, pos

    def _leading_matches(self):
        """Per major line of the canonical matrix: how many of its first indices are
        0, 1, 2, ... (the first implicit zero of the line, when it is not full)."""
        nnz = self.indices.shape[0]
        if nnz == 0:
            return gp.zeros(self.indptr.shape[0] - 1, dtype=numpy.int64)
        major = _kernels.expand_rows(self.indptr, nnz)
        within = gp.arange(nnz, dtype=numpy.int64) - self.indptr.astype(numpy.int64)[major]
        match = (self.indices.astype(numpy.int64) == within).astype(numpy.float64)
        return _convert.segment_sum(self.indptr, match).astype(numpy.int64)

    # -----------------------------------------------------------------------------------
    # Indexing (see `_index.py` for the dispatch)

    def _major_index_fancy(self, idx):
        """Rows (CSR; columns for CSC) `idx` (a 1-d gpupy int array), in that order."""
        idx_dtype = self.indptr.dtype
        idx = _as(idx.ravel(), numpy.int64)
        N = self._swap(self.shape)[1]
        M = idx.shape[0]
        new_shape = self._swap((M, N))
        if M == 0:
            return self.__class__(new_shape, dtype=self.dtype)
        starts = self.indptr[idx].astype(numpy.int64)
        counts = self.indptr[idx + 1].astype(numpy.int64) - starts
        res_indptr = gp.zeros(M + 1, dtype=numpy.int64)
        res_indptr[1:] = gp.cumsum(counts)
        nnz = int(res_indptr[-1])
        res_indptr = _as(res_indptr, idx_dtype)
        if nnz == 0:
            return self._new(gp.zeros(0, self.dtype), gp.zeros(0, idx_dtype), res_indptr, new_shape,
                             canonical=True)
        rows = _kernels.expand_rows(res_indptr, nnz)
        src = gp.arange(nnz, dtype=numpy.int64) + (starts - res_indptr[:-1].astype(numpy.int64))[rows]
        out = self._new(self.data[src], self.indices[src], res_indptr, new_shape)
        self._pass_sorted(out)
        return out

    def _pass_sorted(self, out):
        """Rows taken whole keep their order and duplicates."""
        if "_has_canonical_format" in self.__dict__:
            out._has_canonical_format = self._has_canonical_format
        if "_has_sorted_indices" in self.__dict__:
            out._has_sorted_indices = self._has_sorted_indices

    def _major_slice(self, idx, copy=False):
        """Rows (CSR; columns for CSC) by a slice."""
        if idx == slice(None):
            return self.copy() if copy else self
        M, N = self._swap(self.shape)
        start, stop, step = idx.indices(M)
        M2 = len(range(start, stop, step))
        new_shape = self._swap((M2, N))
        if M2 == 0:
            return self.__class__(new_shape, dtype=self.dtype)
        if step == 1:
            return self._get_submatrix(major=slice(start, stop), copy=copy)
        return self._major_index_fancy(gp.arange(start, stop, step, dtype=numpy.int64))

    def _minor_index_fancy(self, idx):
        """Columns (CSR; rows for CSC) `idx` (1-d gpupy ints, any order, repeats
        allowed): entry (r, c) appears once for each j with ``idx[j] == c``."""
        idx_dtype = self.indptr.dtype
        idx = _as(idx.ravel(), numpy.int64)
        M, N = self._swap(self.shape)
        k = idx.shape[0]
        new_shape = self._swap((M, k))
        if k == 0:
            return self.__class__(new_shape, dtype=self.dtype)
        if max(k, self.nnz * k) > numpy.iinfo(idx_dtype).max:
            idx_dtype = index_dtype_for(k, self.nnz * k)
        perm = gp.argsort(idx)
        sorted_idx = idx[perm]
        cols = self.indices.astype(numpy.int64)
        left = gp.searchsorted(sorted_idx, cols, side="left")
        right = gp.searchsorted(sorted_idx, cols, side="right")
        counts = right - left
        ends = gp.cumsum(counts)
        total = int(ends[-1]) if ends.shape[0] else 0
        res_indptr = gp.zeros(M + 1, dtype=numpy.int64)
        if ends.shape[0]:
            excl = gp.concatenate([gp.zeros(1, numpy.int64), ends])
            res_indptr = excl[self.indptr.astype(numpy.int64)]
        res_indptr = _as(res_indptr, idx_dtype)
        if total == 0:
            return self._new(gp.zeros(0, self.dtype), gp.zeros(0, idx_dtype), res_indptr, new_shape,
                             canonical=True)
        q = gp.arange(total, dtype=numpy.int64)
        entry = gp.searchsorted(ends, q, side="right")
        offset = q - (ends - counts)[entry]
        new_indices = _as(perm[left[entry] + offset], idx_dtype)
        return self._new(self.data[entry], new_indices, res_indptr, new_shape)

    def _minor_slice(self, idx, copy=False):
        """Columns (CSR; rows for CSC) by a slice."""
        if idx == slice(None):
            return self.copy() if copy else self
        M, N = self._swap(self.shape)
        start, stop, step = idx.indices(N)
        N2 = len(range(start, stop, step))
        if N2 == 0:
            return self.__class__(self._swap((M, N2)), dtype=self.dtype)
        if step == 1:
            return self._get_submatrix(minor=slice(start, stop), copy=copy)
        return self._minor_index_fancy(gp.arange(start, stop, step, dtype=numpy.int64))

    def _get_submatrix(self, major=None, minor=None, copy=False):
        """The submatrix of major and minor slices of step 1 (or ints)."""
        M, N = self._swap(self.shape)
        i0, i1 = _process_slice(major, M)
        j0, j1 = _process_slice(minor, N)
        if i0 == 0 and j0 == 0 and i1 == M and j1 == N:
            return self.copy() if copy else self
        bounds = self.indptr[[i0, i1]].get() if i1 > i0 else numpy.zeros(2, numpy.int64)
        p0, p1 = int(bounds[0]), int(bounds[1])
        indptr = self.indptr[i0:i1 + 1] - self.indptr[i0] if i1 > i0 else gp.zeros(1, self.indptr.dtype)
        indices = self.indices[p0:p1]
        data = self.data[p0:p1]
        shape = self._swap((i1 - i0, j1 - j0))
        if j0 == 0 and j1 == N:
            out = self._new(data.copy(), indices.copy(), indptr.copy(), shape)
            self._pass_sorted(out)
            return out
        keep = gp.logical_and(indices >= j0, indices < j1)
        indptr, indices, data = _convert.compact(_as(indptr, self.indptr.dtype), indices, data, keep)
        indices = indices - indices.dtype.type(j0)
        out = self._new(data.copy(), indices, indptr.copy(), shape)
        self._pass_sorted(out)
        return out

    def _get_intXint(self, row, col):
        major, minor = self._swap((row, col))
        sub = self._get_submatrix(major=major, minor=minor)
        return sub.data.sum(dtype=self.dtype)

    def _get_sliceXslice(self, row, col):
        major, minor = self._swap((row, col))
        if major.step in (1, None) and minor.step in (1, None):
            return self._get_submatrix(major, minor, copy=True)
        return self._major_slice(major)._minor_slice(minor)

    def _get_arrayXarray(self, row, col):
        """Elements at the pairs (row[k], col[k]) (duplicates summed)."""
        M, N = self._swap(self.shape)
        major, minor = self._swap((row, col))
        shape = major.shape
        vals = self._sample(major.ravel(), minor.ravel())
        if len(shape) == 1:
            return self._ascontainer(vals)
        return self.__class__(vals.reshape(shape))

    def _sample(self, major, minor):
        """The values at (major[k], minor[k]), 0 where nothing is stored."""
        self.sum_duplicates()
        M, N = self._swap(self.shape)
        if self.nnz == 0:
            return gp.zeros(major.shape[0], dtype=self.dtype)
        rows = _kernels.expand_rows(self.indptr, self.nnz).astype(numpy.int64)
        keys = rows * N + self.indices.astype(numpy.int64)
        want = _as(major, numpy.int64) * N + _as(minor, numpy.int64)
        pos = gp.searchsorted(keys, want, side="left")
        safe = gp.minimum(pos, self.nnz - 1)
        found = keys[safe] == want
        return gp.where(found, self.data[safe], gp.zeros((), dtype=self.dtype))

    def _get_columnXarray(self, row, col):
        major, minor = self._swap((row, col))
        return self._major_index_fancy(major)._minor_index_fancy(minor)

    # -----------------------------------------------------------------------------------
    # Setting

    def _set_many(self, i, j, x):
        """Sets (i[k], j[k]) (major, minor; 1-d int64 gpupy arrays) to x[k]: stored
        entries in place, new ones inserted (with SciPy's efficiency warning)."""
        M, N = self._swap(self.shape)
        self.sum_duplicates()
        x = _as(as_device(x), self.dtype).ravel()
        keys_new = i * N + j
        # The last assignment to a position wins (NumPy's and SciPy's rule).
        order = gp.argsort(keys_new)
        keys_sorted = keys_new[order]
        n = keys_sorted.shape[0]
        last = gp.ones(n, dtype=numpy.bool_)
        if n > 1:
            last[:-1] = keys_sorted[1:] != keys_sorted[:-1]
        sel = gp.flatnonzero(last)
        keys_new = keys_sorted[sel]
        x = x[order[sel]]
        if self.nnz:
            rows = _kernels.expand_rows(self.indptr, self.nnz).astype(numpy.int64)
            keys = rows * N + self.indices.astype(numpy.int64)
            pos = gp.searchsorted(keys, keys_new, side="left")
            safe = gp.minimum(pos, self.nnz - 1)
            found = keys[safe] == keys_new
        else:
            found = gp.zeros(keys_new.shape[0], dtype=numpy.bool_)
            safe = gp.zeros(keys_new.shape[0], dtype=numpy.int64)
        hit = gp.flatnonzero(found)
        if hit.shape[0]:
            self.data[safe[hit]] = x[hit]
        miss = gp.flatnonzero(gp.logical_not(found))
        if miss.shape[0] == 0:
            return
        warn(f"Changing the sparsity structure of a {self.__class__.__name__} is expensive."
             " lil and dok are more efficient.", SparseEfficiencyWarning, stacklevel=3)
        new_major = keys_new[miss] // N if N else keys_new[miss]
        new_minor = keys_new[miss] - new_major * N
        rows = _kernels.expand_rows(self.indptr, self.nnz).astype(numpy.int64)
        idx_dtype = index_dtype_for(M, N, self.nnz + int(miss.shape[0]))
        major = gp.concatenate([rows, new_major])
        minor = gp.concatenate([self.indices.astype(numpy.int64), new_minor])
        data = gp.concatenate([self.data, x[miss]])
        self.indptr, self.indices, self.data = _convert.coo_to_compressed(
            major, minor, data, M, N, idx_dtype, sum_duplicates=False)
        self.has_canonical_format = True

    def _set_arrayXarray(self, row, col, x):
        i, j = self._swap((row, col))
        self._set_many(_as(i.ravel(), numpy.int64), _as(j.ravel(), numpy.int64), x.ravel())

    def _set_intXint(self, row, col, x):
        i, j = self._swap((row, col))
        self._set_many(gp.asarray([i], dtype=numpy.int64), gp.asarray([j], dtype=numpy.int64),
                       gp.asarray([x]) if not isinstance(x, gp.ndarray) else x.reshape(1))

    def _setdiag(self, values, k):
        if 0 in self.shape:
            return
        coo = self.tocoo()
        coo._setdiag(values, k)
        M, N = self._swap(self.shape)
        arrays = coo._coo_to_compressed(self._swap)
        self.indptr, self.indices, self.data, _ = arrays
        self.has_canonical_format = True

    # -----------------------------------------------------------------------------------
    # Conversions

    def tocoo(self, copy=True):
        major_dim, _ = self._swap(self.shape)
        nnz = self.indices.shape[0]
        major = _kernels.expand_rows(self.indptr, nnz)
        minor = self.indices.copy() if copy else self.indices
        row, col = self._swap((major, minor))
        return self._coo_container._new(self.data.copy() if copy else self.data, (row, col),
                                        self.shape, canonical=False)

    def toarray(self, order=None, out=None):
        """The dense gpupy array (duplicates summed), in `order` ('C' for CSR and 'F'
        for CSC by default, as SciPy)."""
        out = self._process_toarray_args(order, out)
        if order is None:
            order = self._swap("CF")[0]
        kd = kernel_dtype(self.dtype)
        M, N = self._swap(self.shape)
        # CSR's dense is C order of its arrays; CSC's arrays give the transpose.
        fortran = (order.upper() == "F") if self.format == "csr" else (order.upper() != "F")
        dense = _kernels.todense(self._arrays(kd), M, N, fortran, self._known_canonical())
        if self.format == "csc":
            dense = dense.T
        if kd != self.dtype:
            dense = dense != 0 if self.dtype.kind == "b" else _as(dense, self.dtype)
        if out is not None:
            out[...] = dense
            return out
        return dense

    def _known_canonical(self):
        """Whether the rows are known to hold no duplicates (without a check)."""
        return bool(self.__dict__.get("_has_canonical_format", False))

    def _to_scipy(self, cls):
        m = cls((self.data.get(), self.indices.get(), self.indptr.get()), shape=self.shape)
        if "_has_sorted_indices" in self.__dict__:
            m.has_sorted_indices = self._has_sorted_indices
        return m

    # -----------------------------------------------------------------------------------
    # Canonical form

    def eliminate_zeros(self):
        """Removes stored zeros, in place."""
        if self.nnz == 0:
            return
        self.indptr, self.indices, self.data = _convert.compact(
            self.indptr, self.indices, self.data, self.data != 0)

    def _flags(self):
        """Sorted and canonical, from the validation kernel (one read), cached."""
        M, N = self._swap(self.shape)
        flags, _ = _kernels.validate(self.indptr, self.indices, M, N)
        self._has_sorted_indices = not flags & _kernels.VALID_UNSORTED
        self._has_canonical_format = not flags & (_kernels.VALID_UNSORTED | _kernels.VALID_DUPLICATE)

    @property
    def has_canonical_format(self):
        """Whether the indices are sorted and free of duplicates."""
        if not self.__dict__.get("_has_sorted_indices", True):
            self._has_canonical_format = False
        elif "_has_canonical_format" not in self.__dict__:
            self._flags()
        return self._has_canonical_format

    @has_canonical_format.setter
    def has_canonical_format(self, val):
        self._has_canonical_format = bool(val)
        if val:
            self.has_sorted_indices = True

    def sum_duplicates(self):
        """Sums duplicate entries, in place (and sorts the indices)."""
        if self.has_canonical_format:
            return
        self.sort_indices()
        self.indptr, self.indices, self.data = _convert.sum_duplicates_sorted(
            self.indptr, self.indices, self.data)
        self.has_canonical_format = True

    @property
    def has_sorted_indices(self):
        """Whether the indices are sorted."""
        if "_has_sorted_indices" not in self.__dict__:
            self._flags()
        return self._has_sorted_indices

    @has_sorted_indices.setter
    def has_sorted_indices(self, val):
        self._has_sorted_indices = bool(val)

    def sorted_indices(self):
        """A copy with sorted indices."""
        A = self.copy()
        A.sort_indices()
        return A

    def sort_indices(self):
        """Sorts the indices, in place."""
        if not self.has_sorted_indices:
            M, N = self._swap(self.shape)
            self.indices, self.data = _convert.sort_compressed(self.indptr, self.indices, self.data, M, N)
            self.has_sorted_indices = True

    def prune(self):
        """Removes space after the stored entries."""
        major_dim = self._swap(self.shape)[0]
        if self.indptr.shape[0] != major_dim + 1:
            raise ValueError("index pointer has invalid length")
        nnz = int(self.indptr[-1])
        if self.indices.shape[0] < nnz:
            raise ValueError("indices array has fewer than nnz elements")
        if self.data.shape[0] < nnz:
            raise ValueError("data array has fewer than nnz elements")
        self.indices = self.indices[:nnz]
        self.data = self.data[:nnz]

    def resize(self, *shape):
        """Resizes in place: entries outside the new shape are dropped."""
        shape = check_shape(shape)
        new_M, new_N = self._swap(shape)
        M, N = self._swap(self.shape)
        if new_M < M:
            nnz = int(self.indptr[new_M])
            self.indices = self.indices[:nnz]
            self.data = self.data[:nnz]
            self.indptr = self.indptr[:new_M + 1]
        elif new_M > M:
            last = self.indptr[-1:]
            self.indptr = gp.concatenate([self.indptr, gp.broadcast_to(last, (new_M - M,))])
        if new_N < N and self.nnz:
            self.indptr, self.indices, self.data = _convert.compact(
                self.indptr, self.indices, self.data, self.indices < new_N)
        self._shape = shape

    def _with_data(self, data, copy=True):
        """A matrix of this structure with `data` (structure arrays copied unless not
        `copy`)."""
        data = values_of(data)
        getdtype(None, data)
        if copy:
            out = self._new(data, self.indices.copy(), self.indptr.copy(), self.shape)
        else:
            out = self._new(data, self.indices, self.indptr, self.shape)
        self._pass_sorted(out)
        return out


def _spgemm(a, b, m, k, n):
    return _kernels.spgemm(a, b, m, k, n)


def _make_diagonal_csr(data, cls):
    """A diagonal CSR matrix of class `cls` (a CSR container) of the 1-d gpupy array
    `data`."""
    N = data.shape[0]
    idx_dtype = index_dtype_for(N)
    indptr = gp.arange(N + 1, dtype=idx_dtype)
    return cls._new(data, indptr[:-1].copy(), indptr, (N, N), canonical=True)

