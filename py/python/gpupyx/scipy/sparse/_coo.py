"""COOrdinate matrices and arrays (``scipy.sparse._coo``): (data, (row, col)) triplets,
duplicates allowed. Conversions to CSR and CSC sort the keys on the GPU and sum the
duplicates (see ``_convert.py``); products and reductions go through CSR.

Sparse arrays may be 1-d here (``coo_array`` of shape ``(n,)``): SciPy returns them
from reductions along an axis and from integer indexing of sparse arrays. They
support construction, ``toarray``/``todense``, ``get``, ``reshape``, ``sum``,
``max``/``min``, ``copy``, ``astype``, scalar arithmetic and the elementwise methods;
other operations need a 2-d array (``A.reshape(1, -1)``).
"""

import math
from warnings import warn

import numpy

import gpupy as gp
from gpupyx.scipy.sparse import _convert, _kernels
from gpupyx.scipy.sparse._base import (
    SparseEfficiencyWarning, _is_scipy_sparse, _spbase, issparse, register_containers, sparray, spmatrix,
)
from gpupyx.scipy.sparse._data import _data_matrix, _minmax_mixin
from gpupyx.scipy.sparse._sputils import (
    as_device, check_reshape_kwargs, check_shape, get_index_dtype, get_sum_dtype, getdtype,
    index_dtype_for, isshape, upcast, validateaxis, values_of,
)

__all__ = ["coo_array", "coo_matrix", "isspmatrix_coo"]

_as = _convert.as_dtype


class _coo_base(_data_matrix, _minmax_mixin):
    _format = "coo"

    def __init__(self, arg1, shape=None, dtype=None, copy=False, *, maxprint=None):
        _data_matrix.__init__(self, arg1, maxprint=maxprint)
        allow_nd = self._allow_nd
        if isinstance(arg1, tuple):
            if isshape(arg1, allow_nd=allow_nd):
                self._shape = check_shape(arg1, allow_nd=allow_nd)
                idx_dtype = index_dtype_for(max(self._shape))
                data_dtype = getdtype(dtype, default=float)
                self.coords = tuple(gp.zeros(0, dtype=idx_dtype) for _ in self._shape)
                self.data = gp.zeros(0, dtype=data_dtype)
                self.has_canonical_format = True
            else:
                try:
                    obj, coords = arg1
                except (TypeError, ValueError) as e:
                    raise TypeError("invalid input format") from e
                coords = tuple(as_device(c) for c in coords)
                data = as_device(obj)
                if dtype is not None:
                    data = _as(data, getdtype(dtype))
                elif copy:
                    data = data.copy()
                if shape is None:
                    if any(c.shape[0] == 0 for c in coords):
                        raise ValueError("cannot infer dimensions from zero sized index arrays")
                    shape = tuple(int(v) + 1 for v in gp.stack([c.max().astype(numpy.int64)
                                                                for c in coords]).get())
                self._shape = check_shape(shape, allow_nd=allow_nd)
                self.coords = coords
                self.data = data
                self.has_canonical_format = False
                self._check(copy)
                return
        elif issparse(arg1):
            if arg1.format == self.format and copy:
                self.coords = tuple(c.copy() for c in arg1.coords)
                self.data = arg1.data.astype(getdtype(dtype, arg1))
                self._shape = check_shape(arg1.shape, allow_nd=allow_nd)
                self.has_canonical_format = arg1.has_canonical_format
            else:
                coo = arg1.tocoo(copy=copy)
                self.coords = tuple(coo.coords)
                self.data = _as(coo.data, getdtype(dtype, coo))
                self._shape = check_shape(coo.shape, allow_nd=allow_nd)
                self.has_canonical_format = coo.has_canonical_format
        elif _is_scipy_sparse(arg1):
            m = arg1.tocoo()
            self._shape = check_shape(m.shape, allow_nd=allow_nd)
            self.coords = tuple(gp.asarray(c) for c in m.coords)
            self.data = gp.asarray(m.data)
            if dtype is not None:
                self.data = _as(self.data, getdtype(dtype))
            self.has_canonical_format = bool(m.has_canonical_format)
        else:
            M = as_device(arg1)
            if not isinstance(self, sparray):
                M = gp.atleast_2d(M)
                if M.ndim != 2:
                    raise TypeError(f"expected 2D array or matrix, not {M.ndim}D")
            self._shape = check_shape(tuple(M.shape), allow_nd=allow_nd)
            if shape is not None and check_shape(shape, allow_nd=allow_nd) != self._shape:
                raise ValueError(f"inconsistent shapes: {shape} != {self._shape}")
            index_dtype = index_dtype_for(max(self._shape))
            coords = gp.nonzero(M)
            self.coords = tuple(_as(c, index_dtype) for c in coords)
            data = M[coords]
            self.data = _as(data, getdtype(dtype, data))
            self.has_canonical_format = True
        getdtype(None, self.data)

    @classmethod
    def _new(cls, data, coords, shape, *, canonical=False):
        """A COO matrix of arrays the package made (in range by construction)."""
        self = cls.__new__(cls)
        _data_matrix.__init__(self, None)
        self.data = data
        self.coords = tuple(coords)
        self._shape = tuple(shape)
        self.has_canonical_format = canonical
        return self

    @property
    def _allow_nd(self):
        return (1, 2) if isinstance(self, sparray) else (2,)

    @property
    def row(self):
        if self.ndim > 1:
            return self.coords[-2]
        return gp.zeros_like(self.col)

    @row.setter
    def row(self, new_row):
        if self.ndim < 2:
            raise ValueError("cannot set row attribute of a 1-dimensional sparse array")
        new_row = _as(as_device(new_row), self.coords[-2].dtype)
        self.coords = self.coords[:-2] + (new_row,) + self.coords[-1:]

    @property
    def col(self):
        return self.coords[-1]

    @col.setter
    def col(self, new_col):
        new_col = _as(as_device(new_col), self.coords[-1].dtype)
        self.coords = self.coords[:-1] + (new_col,)

    def _check(self, copy=False):
        """SciPy's checks of the coordinates (one read for their bounds)."""
        if self.ndim != len(self.coords):
            raise ValueError("mismatching number of index arrays for shape; "
                             f"got {len(self.coords)}, expected {self.ndim}")
        for i, idx in enumerate(self.coords):
            if idx.dtype.kind not in "iu":
                raise ValueError(f"index array {i} has non-integer dtype ({idx.dtype.name})")
        nnz = self.data.shape[0]
        if self.data.ndim != 1 or any(idx.ndim != 1 for idx in self.coords):
            raise ValueError("coordinates and data arrays must be 1-D")
        if any(idx.shape[0] != nnz for idx in self.coords):
            raise ValueError("all index and data arrays must have the same length")
        if isinstance(self, sparray):
            idx_dtype = get_index_dtype(self.coords, maxval=max(self.shape))
        else:
            idx_dtype = index_dtype_for(max(self.shape))
        self.coords = tuple(idx.astype(idx_dtype) if copy or idx.dtype != idx_dtype else idx
                            for idx in self.coords)
        if nnz > 0:
            bounds = gp.stack([gp.stack([idx.max(), idx.min()]).astype(numpy.int64)
                               for idx in self.coords]).get()
            for i, (hi, lo) in enumerate(bounds):
                if hi >= self.shape[i]:
                    raise ValueError(f"axis {i} index {hi} exceeds matrix dimension {self.shape[i]}")
                if lo < 0:
                    raise ValueError(f"negative axis {i} index: {lo}")

    def reshape(self, *args, **kwargs):
        allow = (1, 2) if isinstance(self, sparray) else (2,)
        shape = check_shape(args, self.shape, allow_nd=allow)
        order, copy = check_reshape_kwargs(kwargs)
        if shape == self.shape:
            return self.copy() if copy else self
        flat = _ravel_coords(self.coords, self.shape, order)
        if len(shape) == 2:
            if order == "C":
                new = (flat // shape[1], flat % shape[1])
            else:
                new = (flat % shape[0], flat // shape[0])
        else:
            new = (flat,)
        idx_dtype = index_dtype_for(max(shape))
        new = tuple(_as(c, idx_dtype) for c in new)
        data = self.data.copy() if copy else self.data
        return self._new(data, new, shape, canonical=False)

    def _getnnz(self, axis=None):
        if axis is None or (axis == 0 and self.ndim == 1):
            return int(self.data.shape[0])
        if axis < 0:
            axis += self.ndim
        if axis >= self.ndim:
            raise ValueError("axis out of bounds")
        return gp.bincount(self.coords[1 - axis], minlength=self.shape[1 - axis])

    def count_nonzero(self, axis=None):
        self.sum_duplicates()
        if axis is None:
            return gp.count_nonzero(self.data)
        if axis < 0:
            axis += self.ndim
        if axis < 0 or axis >= self.ndim:
            raise ValueError("axis out of bounds")
        mask = self.data != 0
        return gp.bincount(self.coords[1 - axis][mask], minlength=self.shape[1 - axis])

    def transpose(self, axes=None, copy=False):
        if axes is None:
            axes = range(self.ndim)[::-1]
        elif isinstance(self, sparray):
            if not hasattr(axes, "__len__") or len(axes) != self.ndim:
                raise ValueError("axes don't match matrix dimensions")
            if len(set(axes)) != self.ndim:
                raise ValueError("repeated axis in transpose")
        elif tuple(axes) != (1, 0):
            raise ValueError("Sparse matrices do not support an 'axes' parameter because "
                             "swapping dimensions is the only logical permutation.")
        shape = tuple(self._shape[i] for i in axes)
        coords = tuple(self.coords[i].copy() if copy else self.coords[i] for i in axes)
        return self._new(self.data.copy() if copy else self.data, coords, shape)

    def _need_2d(self, what):
        if self.ndim != 2:
            raise NotImplementedError(f"{what} of a 1-d sparse array: reshape it to 2-d first "
                                      "(A.reshape(1, -1))")

    def toarray(self, order=None, out=None):
        if self.ndim == 1:
            dense = self.reshape(1, self.shape[0]).toarray().reshape(self.shape)
            if out is not None:
                out[...] = dense
                return out
            return dense
        return self.tocsr().toarray(order=order, out=out)

    def tocsc(self, copy=False):
        self._need_2d("tocsc")
        indptr, indices, data, shape = self._coo_to_compressed(lambda x: (x[1], x[0]), copy=copy)
        return self._csc_container._new(data, indices, indptr, shape, canonical=True)

    def tocsr(self, copy=False):
        self._need_2d("tocsr")
        indptr, indices, data, shape = self._coo_to_compressed(lambda x: x, copy=copy)
        return self._csr_container._new(data, indices, indptr, shape, canonical=True)

    def _coo_to_compressed(self, swap, copy=False):
        """(indptr, indices, data, shape) of the compressed form whose (major, minor) is
        `swap((row, col))`: sorted, duplicates summed."""
        M, N = swap(self.shape)
        nnz = self.data.shape[0]
        idx_dtype = index_dtype_for(M, N, nnz)
        major, minor = swap(self.coords)
        if self.has_canonical_format and swap((0, 1)) == (0, 1):
            # Already sorted by (row, col) without duplicates.
            indptr = _convert.indptr_of_sorted(major, M, idx_dtype)
            data = self.data.copy() if copy else self.data
            return indptr, _as(minor, idx_dtype), data, self.shape
        indptr, indices, data = _convert.coo_to_compressed(major, minor, self.data, M, N, idx_dtype)
        return indptr, indices, data, self.shape

    def tocoo(self, copy=False):
        return self.copy() if copy else self

    tocoo.__doc__ = _spbase.tocoo.__doc__

    def todia(self, copy=False):
        self._need_2d("todia")
        self.sum_duplicates()
        ks = self.col.astype(numpy.int64) - self.row.astype(numpy.int64)
        diags, diag_idx = gp.unique(ks, return_inverse=True)
        if diags.shape[0] > 100:
            warn(f"Constructing a DIA matrix with {diags.shape[0]} diagonals is inefficient",
                 SparseEfficiencyWarning, stacklevel=2)
        if self.data.shape[0] == 0:
            data = gp.zeros((0, 0), dtype=self.dtype)
        else:
            data = gp.zeros((diags.shape[0], int(self.col.max()) + 1), dtype=self.dtype)
            data[diag_idx, self.col] = self.data
        return self._dia_container((data, diags), shape=self.shape)

    def diagonal(self, k=0):
        self._need_2d("diagonal")
        return self.tocsr().diagonal(k)

    def _setdiag(self, values, k):
        self._need_2d("setdiag")
        M, N = self.shape
        values = values if isinstance(values, gp.ndarray) else numpy.asarray(values)
        if values.ndim and not values.shape[0]:
            return
        idx_dtype = self.row.dtype
        full_keep = (self.col.astype(numpy.int64) - self.row.astype(numpy.int64)) != k
        if k < 0:
            max_index = min(M + k, N)
            if values.ndim:
                max_index = min(max_index, values.shape[0])
            keep = gp.logical_or(full_keep, self.col >= max_index)
            new_row = gp.arange(-k, -k + max_index, dtype=idx_dtype)
            new_col = gp.arange(max_index, dtype=idx_dtype)
        else:
            max_index = min(M, N - k)
            if values.ndim:
                max_index = min(max_index, values.shape[0])
            keep = gp.logical_or(full_keep, self.row >= max_index)
            new_row = gp.arange(max_index, dtype=idx_dtype)
            new_col = gp.arange(k, k + max_index, dtype=idx_dtype)
        if values.ndim:
            new_data = _as(gp.asarray(values[:max_index]), self.dtype)
        else:
            new_data = gp.full(max_index, values[()], dtype=self.dtype)
        kept = gp.flatnonzero(keep)
        self.coords = (gp.concatenate((self.row[kept], new_row)),
                       gp.concatenate((self.col[kept], new_col)))
        self.data = gp.concatenate((self.data[kept], new_data))
        self.has_canonical_format = False

    def _with_data(self, data, copy=True):
        data = values_of(data)
        getdtype(None, data)
        coords = tuple(c.copy() for c in self.coords) if copy else self.coords
        return self._new(data, coords, self.shape, canonical=self.has_canonical_format)

    def sum_duplicates(self):
        """Sums duplicate entries and sorts them in C order, in place."""
        if self.has_canonical_format:
            return
        nnz = self.data.shape[0]
        if self.ndim == 1:
            major = gp.zeros(nnz, dtype=self.col.dtype)
            minor, M, N = self.col, 1, self.shape[0]
        else:
            major, minor = self.coords
            M, N = self.shape
        idx_dtype = index_dtype_for(M, N, nnz)
        indptr, indices, data = _convert.coo_to_compressed(major, minor, self.data, M, N, idx_dtype)
        rows = _kernels.expand_rows(indptr, indices.shape[0])
        coords_dtype = self.coords[0].dtype
        if self.ndim == 1:
            self.coords = (_as(indices, coords_dtype),)
        else:
            self.coords = (_as(rows, coords_dtype), _as(indices, coords_dtype))
        self.data = data
        self.has_canonical_format = True

    def eliminate_zeros(self):
        """Removes stored zeros, in place."""
        keep = gp.flatnonzero(self.data != 0)
        if keep.shape[0] == self.data.shape[0]:
            return
        self.data = self.data[keep]
        self.coords = tuple(idx[keep] for idx in self.coords)

    def _add_dense(self, other):
        if tuple(other.shape) != self.shape:
            raise ValueError(f"Incompatible shapes ({self.shape} and {tuple(other.shape)})")
        dtype = upcast(self.dtype, other.dtype)
        return self._container(_as(other, dtype) + _as(self.toarray(), dtype))

    def sum(self, axis=None, dtype=None, out=None):
        if self.ndim == 1:
            validateaxis(axis, ndim=1)
            total = gp.sum(self.data, dtype=dtype or get_sum_dtype(self.dtype))
            if out is not None:
                out[...] = total
                return out
            return total
        return _spbase.sum(self, axis=axis, dtype=dtype, out=out)

    def _to_scipy(self, cls):
        m = cls((self.data.get(), tuple(c.get() for c in self.coords)), shape=self.shape)
        m.has_canonical_format = bool(self.has_canonical_format)
        return m

    def __getitem__(self, key):
        return self.tocsr()[key]

    def __setitem__(self, key, x):
        raise TypeError(f"'{type(self).__name__}' object does not support item assignment "
                        "(convert it to CSR first: A.tocsr())")


def _ravel_coords(coords, shape, order="C"):
    """The linear (C or F order) index of each entry, int64."""
    if len(coords) == 1:
        return coords[0].astype(numpy.int64)
    if math.prod(shape) > numpy.iinfo(numpy.int64).max:
        raise ValueError("the array is too large to reshape")
    row, col = (c.astype(numpy.int64) for c in coords)
    if order == "C":
        return row * shape[1] + col
    return col * shape[0] + row


def isspmatrix_coo(x):
    """Is `x` of coo_matrix type?"""
    return isinstance(x, coo_matrix)


class coo_array(_coo_base, sparray):
    """A sparse array in COOrdinate format (SciPy's ``coo_array``, values on the GPU).

    ``coo_array(D)``, ``coo_array(S)``, ``coo_array((M, N), [dtype])``, ``coo_array((data,
    (row, col)), [shape])``; duplicates stay until a conversion or ``sum_duplicates``.
    1-d arrays (shape ``(n,)``) are supported for construction and the operations listed in
    the module's documentation.
    """


class coo_matrix(spmatrix, _coo_base):
    """A sparse matrix in COOrdinate format (SciPy's ``coo_matrix``, values on the GPU)."""


register_containers(coo_array, coo_matrix)
