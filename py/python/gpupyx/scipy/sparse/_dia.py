"""DIAgonal matrices and arrays (``scipy.sparse._dia``): ``data[k, j]`` is the element
``(j - offsets[k], j)``. Conversion to CSR keeps the stored elements inside the shape
that are not zero (as SciPy's ``dia_tocsr``), sorted by one key sort; products and
elementwise operations go through CSR.
"""

import numpy

import gpupy as gp
from gpupyx.scipy.sparse import _convert
from gpupyx.scipy.sparse._base import (
    _formats, _is_scipy_sparse, _spbase, issparse, register_containers, sparray, spmatrix,
)
from gpupyx.scipy.sparse._data import _data_matrix
from gpupyx.scipy.sparse._sputils import (
    as_device, check_shape, getdtype, index_dtype_for, isscalarlike, isshape, upcast, validateaxis,
    values_of,
)

__all__ = ["dia_array", "dia_matrix", "isspmatrix_dia"]

_as = _convert.as_dtype


class _dia_base(_data_matrix):
    _format = "dia"

    def __init__(self, arg1, shape=None, dtype=None, copy=False, *, maxprint=None):
        _data_matrix.__init__(self, arg1, maxprint=maxprint)
        if issparse(arg1):
            if arg1.format == "dia":
                if copy:
                    arg1 = arg1.copy()
                self.data, self.offsets = arg1.data, arg1.offsets
                self._shape = check_shape(arg1.shape)
            else:
                A = arg1.todia()
                self.data, self.offsets = A.data, A.offsets
                self._shape = check_shape(A.shape)
        elif _is_scipy_sparse(arg1):
            m = arg1.todia()
            self.data, self.offsets = gp.asarray(m.data), gp.asarray(m.offsets)
            self._shape = check_shape(m.shape)
        elif isinstance(arg1, tuple):
            if isshape(arg1):
                self._shape = check_shape(arg1)
                self.data = gp.zeros((0, 0), getdtype(dtype, default=float))
                self.offsets = gp.zeros(0, dtype=index_dtype_for(max(self.shape)))
            else:
                try:
                    data, offsets = arg1
                except Exception as e:
                    raise ValueError("unrecognized form for dia_array constructor") from e
                if shape is None:
                    raise ValueError("expected a shape argument")
                data = as_device(data, dtype)
                self.data = gp.atleast_2d(data.copy() if copy else data)
                self.offsets = gp.atleast_1d(as_device(offsets).astype(index_dtype_for(max(shape))))
                self._shape = check_shape(shape)
        else:
            try:
                arg1 = as_device(arg1)
            except Exception as e:
                raise ValueError(f"unrecognized form for {self.format}_matrix constructor") from e
            if isinstance(self, sparray) and arg1.ndim != 2:
                raise ValueError(f"DIA arrays don't support {arg1.ndim}D input. Use 2D")
            A = self._coo_container(arg1, dtype=dtype, shape=shape).todia()
            self.data, self.offsets = A.data, A.offsets
            self._shape = check_shape(A.shape)
        if dtype is not None:
            newdtype = getdtype(dtype)
            self.data = _as(self.data, newdtype)
        getdtype(None, self.data)
        if self.offsets.ndim != 1:
            raise ValueError("offsets array must have rank 1")
        if self.data.ndim != 2:
            raise ValueError("data array must have rank 2")
        if self.data.shape[0] != self.offsets.shape[0]:
            raise ValueError(f"number of diagonals ({self.data.shape[0]}) does not match the number "
                             f"of offsets ({self.offsets.shape[0]})")
        host = self._host_offsets()
        if len(numpy.unique(host)) != len(host):
            raise ValueError("offset array contains duplicate values")

    def _host_offsets(self):
        """The offsets on the host (a small read)."""
        return gp.asnumpy(self.offsets).astype(numpy.int64)

    def __repr__(self):
        fmt = _formats[self.format]
        sparse_cls = "array" if isinstance(self, sparray) else "matrix"
        d = self.data.shape[0]
        return (f"<{fmt} sparse {sparse_cls} of dtype '{self.dtype}'\n"
                f"\twith {self.nnz} stored elements ({d} diagonals) and shape {self.shape}>")

    def _data_mask(self):
        """Where ``data`` holds an element inside the shape."""
        num_rows, num_cols = self.shape
        offset_inds = gp.arange(self.data.shape[1], dtype=numpy.int64)
        row = offset_inds[None, :] - self.offsets.astype(numpy.int64)[:, None]
        mask = gp.logical_and(row >= 0, row < num_rows)
        return gp.logical_and(mask, (offset_inds < num_cols)[None, :])

    def count_nonzero(self, axis=None):
        if axis is not None:
            raise NotImplementedError("count_nonzero over an axis is not implemented for DIA format")
        return gp.count_nonzero(gp.logical_and(self._data_mask(), self.data != 0))

    def _getnnz(self, axis=None):
        if axis is not None:
            raise NotImplementedError("_getnnz over an axis is not implemented for DIA format")
        M, N = self.shape
        L = min(self.data.shape[1], N)
        off = self._host_offsets()
        return int(numpy.maximum(numpy.minimum(M + off, L) - numpy.maximum(off, 0), 0).sum())

    def sum(self, axis=None, dtype=None, out=None):
        validateaxis(axis)
        return self.tocsr().sum(axis=axis, dtype=dtype, out=out)

    def _mul_scalar(self, other):
        return self._with_data(self.data * other)

    def _add_sparse(self, other, sub=False):
        """DIA + DIA stays DIA (SciPy's): the diagonals of the union of the offsets."""
        if not isinstance(other, _dia_base):
            return other._add_sparse(self) if not sub else self.tocsr()._sub_sparse(other)
        so, oo = self._host_offsets(), other._host_offsets()
        dtype = numpy.result_type(self.data.dtype, other.data.dtype)
        new_offsets = numpy.union1d(so, oo)
        self_idx = numpy.searchsorted(new_offsets, so)
        other_idx = numpy.searchsorted(new_offsets, oo)
        d = max(self.data.shape[1], other.data.shape[1])
        if len(new_offsets):
            d = max(0, min(d, self.shape[0] + int(new_offsets[-1]), self.shape[1]))
        new_data = gp.zeros((len(new_offsets), d), dtype=dtype)
        sd, od = min(self.data.shape[1], d), min(other.data.shape[1], d)
        for i, r in enumerate(self_idx.tolist()):
            new_data[r, :sd] += _as(self.data[i, :sd], dtype)
        for i, r in enumerate(other_idx.tolist()):
            if sub:
                new_data[r, :od] -= _as(other.data[i, :od], dtype)
            else:
                new_data[r, :od] += _as(other.data[i, :od], dtype)
        return self._dia_container((new_data, new_offsets), shape=self.shape)

    def _sub_sparse(self, other):
        if not isinstance(other, _dia_base):
            return self.tocsr()._sub_sparse(other)
        return self._add_sparse(other, sub=True)

    def multiply(self, other):
        """Elementwise product: DIA for a scalar, a dense operand of the shape (or a row),
        or another DIA matrix of the shape (SciPy's); otherwise through CSR."""
        if isscalarlike(other):
            return self._mul_scalar(other)
        if isinstance(other, (gp.ndarray, numpy.ndarray)):
            other = as_device(other)
            if other.ndim > 2:
                return self.toarray() * other
            if 0 in self.shape or 1 in self.shape or 0 in other.shape:
                return super().multiply(other)
            other = gp.atleast_2d(other)
            other_rows, other_cols = other.shape
            rows, cols = self.shape
            L = min(self.data.shape[1], cols)
            data = self.data[:, :L].astype(numpy.result_type(self.data.dtype, other.dtype))
            if other_rows == 1:
                data *= other[0, :L]
            elif other_rows != rows:
                raise ValueError("inconsistent shapes")
            else:
                j = gp.arange(L, dtype=numpy.int64)[None, :]
                off = self.offsets.astype(numpy.int64)[:, None]
                i = (j - off) % rows
                if other_cols == 1:
                    j = gp.zeros_like(j)
                elif other_cols != cols:
                    raise ValueError("inconsistent shapes")
                data *= other[i, gp.broadcast_to(j, i.shape)]
            return self._with_data(data)
        if not isinstance(other, _dia_base) or other.shape != self.shape:
            return super().multiply(other)
        offsets, self_idx, other_idx = numpy.intersect1d(
            self._host_offsets(), other._host_offsets(), assume_unique=True, return_indices=True)
        L = min(self.data.shape[1], other.data.shape[1])
        data = self.data[gp.asarray(self_idx), :L] * other.data[gp.asarray(other_idx), :L]
        return self._dia_container((data, offsets), shape=self.shape)

    def _matmul_sparse(self, other):
        """DIA @ DIA stays DIA (through CSR here); other formats through CSR."""
        if not isinstance(other, _dia_base):
            return super()._matmul_sparse(other)
        if 0 in self.shape or 0 in other.shape:
            return self._dia_container((self.shape[0], other.shape[1]), dtype=upcast(self.dtype, other.dtype))
        return self._dia_container((self.tocsr() @ other.tocsr()).todia())

    def _matmul_vector(self, other):
        return self._dia_product(other)

    def _matmul_multivector(self, other):
        return self._dia_product(other)

    def _dia_product(self, x):
        """``A @ x`` diagonal by diagonal (SciPy's ``dia_matvec``): for offset ``k``,
        ``y[j - k] += data[d, j] * x[j]`` over the columns ``j`` the diagonal holds."""
        M, N = self.shape
        dtype = upcast(self.dtype, x.dtype)
        y = gp.zeros((M,) + tuple(x.shape[1:]), dtype=dtype)
        L = self.data.shape[1]
        data = _as(self.data, dtype)
        xd = _as(x, dtype)
        for d, k in enumerate(self._host_offsets().tolist()):
            j0, j1 = max(0, k), min(N, M + k, L)
            if j1 <= j0:
                continue
            band = data[d, j0:j1]
            if x.ndim == 2:
                band = band[:, None]
            y[j0 - k:j1 - k] += band * xd[j0:j1]
        return y

    def _setdiag(self, values, k=0):
        M, N = self.shape
        values = values if isinstance(values, gp.ndarray) else numpy.asarray(values)
        values_n = numpy.inf if values.ndim == 0 else values.shape[0]
        if k < 0:
            n = min(M + k, N, values_n)
            min_index, max_index = 0, n
        else:
            n = min(M, N - k, values_n)
            min_index, max_index = k, k + n
        if values.ndim != 0:
            values = gp.asarray(values[:n])
        data_rows, data_cols = self.data.shape
        off = self._host_offsets()
        if k in off:
            if max_index > data_cols:
                data = gp.zeros((data_rows, max_index), dtype=self.data.dtype)
                data[:, :data_cols] = self.data
                self.data = data
            row = int(numpy.flatnonzero(off == k)[0])
            self.data[row, min_index:max_index] = values
        else:
            self.offsets = gp.concatenate([self.offsets, gp.asarray([k], dtype=self.offsets.dtype)])
            m = max(max_index, data_cols)
            data = gp.zeros((data_rows + 1, m), dtype=self.data.dtype)
            data[:-1, :data_cols] = self.data
            data[-1, min_index:max_index] = values
            self.data = data

    def todia(self, copy=False):
        return self.copy() if copy else self

    todia.__doc__ = _spbase.todia.__doc__

    def transpose(self, axes=None, copy=False):
        if axes is not None and axes != (1, 0):
            raise ValueError("Sparse arrays/matrices do not support "
                             "an 'axes' parameter because swapping "
                             "dimensions is the only logical permutation.")
        num_rows, num_cols = self.shape
        max_dim = max(self.shape)
        offsets = -self.offsets
        r = gp.arange(offsets.shape[0], dtype=numpy.int64)[:, None]
        c = gp.arange(num_rows, dtype=numpy.int64)[None, :] - (offsets.astype(numpy.int64) % max_dim)[:, None]
        pad = max(0, max_dim - self.data.shape[1])
        data = gp.concatenate([self.data, gp.zeros((self.data.shape[0], pad), dtype=self.data.dtype)], axis=1)
        c = gp.where(c < 0, c + data.shape[1], c)
        data = data[r, c]
        return self._dia_container((data, offsets), shape=(num_cols, num_rows), copy=copy)

    def diagonal(self, k=0):
        rows, cols = self.shape
        if k <= -rows or k >= cols:
            return gp.empty(0, dtype=self.data.dtype)
        idx = numpy.flatnonzero(self._host_offsets() == k)
        first_col = max(0, k)
        last_col = min(rows + k, cols)
        result_size = last_col - first_col
        if idx.size == 0:
            return gp.zeros(result_size, dtype=self.data.dtype)
        result = self.data[int(idx[0]), first_col:last_col]
        padding = result_size - result.shape[0]
        if padding > 0:
            result = gp.concatenate([result, gp.zeros(padding, dtype=result.dtype)])
        return result.copy()

    def tocoo(self, copy=False):
        """The stored elements inside the shape that are not zero, as COO (C order)."""
        M, N = self.shape
        if 0 in self.shape or self.offsets.shape[0] == 0 or self.data.size == 0:
            return self._coo_container(self.shape, dtype=self.dtype)
        L = self.data.shape[1]
        col = gp.broadcast_to(gp.arange(L, dtype=numpy.int64)[None, :], self.data.shape)
        row = col - self.offsets.astype(numpy.int64)[:, None]
        keep = gp.logical_and(self._data_mask(), self.data != 0)
        sel = gp.flatnonzero(keep.ravel())
        row, col, data = row.ravel()[sel], col.ravel()[sel], self.data.ravel()[sel]
        idx_dtype = index_dtype_for(M, N, sel.shape[0])
        row, col, data = _convert.sort_entries(row, col, data, M, N)
        return self._coo_container._new(data, (_as(row, idx_dtype), _as(col, idx_dtype)),
                                        self.shape, canonical=True)

    def tocsr(self, copy=False):
        return self.tocoo().tocsr()

    def tocsc(self, copy=False):
        return self.tocoo().tocsc()

    def _with_data(self, data, copy=True):
        data = values_of(data)
        offsets = self.offsets.copy() if copy else self.offsets
        return self._dia_container((data, offsets), shape=self.shape)

    def resize(self, *shape):
        shape = check_shape(shape)
        M, N = shape
        self.data = self.data[:, :N]
        if M > self.shape[0]:
            clear = (self.offsets.astype(numpy.int64)[:, None] + self.shape[0]
                     <= gp.arange(self.data.shape[1], dtype=numpy.int64)[None, :])
            self.data = gp.where(clear, gp.zeros((), dtype=self.data.dtype), self.data)
        self._shape = shape

    def _to_scipy(self, cls):
        return cls((self.data.get(), self.offsets.get()), shape=self.shape)


def isspmatrix_dia(x):
    """Is `x` of dia_matrix type?"""
    return isinstance(x, dia_matrix)


class dia_array(_dia_base, sparray):
    """Sparse array with DIAgonal storage (SciPy's ``dia_array``, values on the GPU).

    ``dia_array(D)``, ``dia_array(S)``, ``dia_array((M, N), [dtype])``, ``dia_array((data,
    offsets), shape=(M, N))`` with ``data[k, :]`` the diagonal ``offsets[k]``."""


class dia_matrix(spmatrix, _dia_base):
    """Sparse matrix with DIAgonal storage (SciPy's ``dia_matrix``, values on the GPU)."""


register_containers(dia_array, dia_matrix)
