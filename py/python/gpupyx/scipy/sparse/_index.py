"""Indexing of CSR and CSC matrices (``scipy.sparse._index``): SciPy's validation of
the key and its dispatch to the format's ``_get_*``/``_set_*`` methods.

Integer array indices may be host (NumPy, lists) or gpupy arrays; they are checked
against the extent (for a gpupy array: one reduction and one read for the bounds) and
handed on as int64 gpupy arrays. Boolean arrays become their ``nonzero()``.
"""

import numpy

import gpupy as gp
from gpupyx.scipy.sparse._base import issparse, sparray
from gpupyx.scipy.sparse._sputils import isintlike

INT_TYPES = (int, numpy.integer)


def _is_array(idx):
    return isinstance(idx, (gp.ndarray, numpy.ndarray))


class IndexMixin:
    """The dispatch of ``A[key]`` and ``A[key] = x``."""

    def __getitem__(self, key):
        index, new_shape = _validate_indices(key, self.shape)
        row, col = index
        if isinstance(row, INT_TYPES):
            if isinstance(col, INT_TYPES):
                res = self._get_intXint(row, col)
            elif isinstance(col, slice):
                res = self._get_intXslice(row, col)
            elif col.ndim in (1, 2):
                res = self._get_intXarray(row, col)
            else:
                raise IndexError("index results in >2 dimensions")
        elif isinstance(row, slice):
            if isinstance(col, INT_TYPES):
                res = self._get_sliceXint(row, col)
            elif isinstance(col, slice):
                if row == slice(None) and row == col:
                    res = self.copy()
                else:
                    res = self._get_sliceXslice(row, col)
            elif col.ndim == 1:
                res = self._get_sliceXarray(row, col)
            else:
                raise IndexError("index results in >2 dimensions")
        else:
            if isinstance(col, INT_TYPES):
                res = self._get_arrayXint(row, col)
            elif isinstance(col, slice):
                res = self._get_arrayXslice(row, col)
            elif row.ndim == 2 and row.shape[1] == 1 and (col.ndim == 1 or col.shape[0] == 1):
                res = self._get_columnXarray(row[:, 0], col.reshape(-1))
            else:
                row, col = _broadcast(row, col)
                if row.size == 0:
                    res = self.__class__(_atleast_2d_shape(row.shape), dtype=self.dtype)
                else:
                    res = self._get_arrayXarray(row, col)
        if not isinstance(self, sparray):
            if new_shape == () or (len(new_shape) == 1 and res.ndim != 0):
                return res
            if len(new_shape) == 1:
                new_shape = (1,) + new_shape
            return res if new_shape == tuple(res.shape) else res.reshape(new_shape)
        if tuple(res.shape) != new_shape:
            return res.reshape(new_shape)
        return res

    def __setitem__(self, key, x):
        index, _ = _validate_indices(key, self.shape)
        row, col = index
        if isinstance(row, INT_TYPES) and isinstance(col, INT_TYPES):
            if issparse(x):
                x = x.toarray()
            x = gp.asarray(x, dtype=self.dtype) if not isinstance(x, gp.ndarray) else x.astype(self.dtype)
            if x.size != 1:
                raise ValueError("Trying to assign a sequence to an item")
            self._set_intXint(row, col, x.reshape(()))
            return
        if isinstance(row, slice):
            row = gp.arange(*row.indices(self.shape[0]), dtype=numpy.int64)[:, None]
        else:
            row = gp.atleast_1d(gp.asarray(row, dtype=numpy.int64))
        if isinstance(col, slice):
            col = gp.arange(*col.indices(self.shape[1]), dtype=numpy.int64)[None, :]
            if row.ndim == 1:
                row = row[:, None]
        else:
            col = gp.atleast_1d(gp.asarray(col, dtype=numpy.int64))
        i, j = _broadcast(row, col)
        if issparse(x):
            x = x.toarray()
        x = gp.asarray(x, dtype=self.dtype) if not isinstance(x, gp.ndarray) else x.astype(self.dtype)
        if x.squeeze().shape != i.squeeze().shape:
            x = gp.broadcast_to(x, i.shape)
        if x.size == 0:
            return
        self._set_arrayXarray(i, j, x.reshape(i.shape))

    def _getrow(self, i):
        """Row `i` as a (1 x n) sparse matrix."""
        M, N = self.shape
        i = int(i)
        if i < -M or i >= M:
            raise IndexError(f"index ({i}) out of range")
        if i < 0:
            i += M
        return self._get_intXslice(i, slice(None))

    def _getcol(self, i):
        """Column `i` as an (m x 1) sparse matrix."""
        M, N = self.shape
        i = int(i)
        if i < -N or i >= N:
            raise IndexError(f"index ({i}) out of range")
        if i < 0:
            i += N
        return self._get_sliceXint(slice(None), i)


def _atleast_2d_shape(shape):
    shape = tuple(shape)
    return (1,) * (2 - len(shape)) + shape if len(shape) < 2 else shape


def _broadcast(a, b):
    """Both index arrays broadcast to one shape (SciPy's IndexError otherwise)."""
    try:
        shape = numpy.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        raise IndexError("number of row and column indices differ") from None
    return gp.broadcast_to(a, shape), gp.broadcast_to(b, shape)


def _validate_indices(key, self_shape):
    """(index, requested shape): ints and slices as they are, boolean arrays as their
    nonzero positions, integer arrays as bounds-checked int64 gpupy arrays, None and
    Ellipsis resolved."""
    self_ndim = len(self_shape)
    if key is Ellipsis:
        return (slice(None),) * self_ndim, tuple(self_shape)
    if not isinstance(key, tuple):
        key = [key]
    ellps_pos = None
    index_1st = []
    prelim_ndim = 0
    for i, idx in enumerate(key):
        if idx is Ellipsis:
            if ellps_pos is not None:
                raise IndexError("an index can only have a single ellipsis")
            ellps_pos = i
        elif idx is None:
            index_1st.append(idx)
        elif isinstance(idx, slice) or (not _is_array(idx) and isintlike(idx)):
            index_1st.append(idx)
            prelim_ndim += 1
        elif _is_array(idx) and idx.ndim == 0 and idx.dtype.kind in "iu":
            index_1st.append(int(idx))
            prelim_ndim += 1
        elif issparse(idx):
            raise IndexError("Indexing with sparse matrices is not supported "
                             "except boolean indexing where matrix and index are equal shapes.")
        else:
            ix = idx if _is_array(idx) else numpy.asarray(idx)
            index_1st.append(ix)
            prelim_ndim += ix.ndim if ix.dtype.kind == "b" else 1
    if prelim_ndim > self_ndim:
        raise IndexError("Too many indices for array or tuple index out of range. "
                         f"Key {key} needs {prelim_ndim}D. Array is {self_ndim}D")
    ellip_slices = (self_ndim - prelim_ndim) * [slice(None)]
    if ellip_slices:
        if ellps_pos is None:
            index_1st.extend(ellip_slices)
        else:
            index_1st = index_1st[:ellps_pos] + ellip_slices + index_1st[ellps_pos:]

    idx_shape = []
    index_ndim = 0
    index = []
    array_indices = []
    arr_int_pos = []
    for i, idx in enumerate(index_1st):
        if idx is None:
            idx_shape.append(1)
        elif isinstance(idx, slice):
            index.append(idx)
            idx_shape.append(len(range(*idx.indices(self_shape[index_ndim]))))
            index_ndim += 1
        elif not _is_array(idx):
            N = self_shape[index_ndim]
            if not (-N <= idx < N):
                raise IndexError(f"index ({idx}) out of range")
            index.append(int(idx + N if idx < 0 else idx))
            arr_int_pos.append(index_ndim)
            index_ndim += 1
        elif idx.dtype.kind == "b":
            tmp_ndim = index_ndim + idx.ndim
            mid_shape = tuple(self_shape[index_ndim:tmp_ndim])
            if tuple(idx.shape) != mid_shape:
                raise IndexError(f"bool index {i} has shape {mid_shape} instead of {tuple(idx.shape)}")
            index.extend(gp.nonzero(gp.asarray(idx)))
            array_indices.extend(range(index_ndim, tmp_ndim))
            arr_int_pos.extend(range(index_ndim, tmp_ndim))
            index_ndim = tmp_ndim
        else:
            N = self_shape[index_ndim]
            index.append(_asindices(idx, N))
            arr_int_pos.append(index_ndim)
            array_indices.append(index_ndim)
            index_ndim += 1
    if len(array_indices) > 1:
        arr_shapes = [tuple(index[i].shape) for i in array_indices]
        try:
            arr_shape = numpy.broadcast_shapes(*arr_shapes)
        except ValueError:
            shapes = " ".join(str(shp) for shp in arr_shapes)
            raise IndexError("shape mismatch: indexing arrays could not be broadcast "
                             f"together with shapes {shapes}") from None
        if len(arr_int_pos) != (arr_int_pos[-1] - arr_int_pos[0] + 1):
            idx_shape = list(arr_shape) + idx_shape
        else:
            arr_pos = arr_int_pos[0]
            idx_shape = idx_shape[:arr_pos] + list(arr_shape) + idx_shape[arr_pos:]
    elif len(array_indices) == 1:
        arr_shape = tuple(index[array_indices[0]].shape)
        arr_pos = arr_int_pos[0]
        idx_shape = idx_shape[:arr_pos] + list(arr_shape) + idx_shape[arr_pos:]
    return tuple(index), tuple(idx_shape)


def _asindices(idx, length):
    """`idx` as an int64 gpupy array of positions in an axis of `length` (negative
    positions counted from the end), with SciPy's IndexErrors."""
    if isinstance(idx, gp.ndarray):
        ix = idx
        if ix.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        if ix.ndim not in (1, 2):
            raise IndexError(f"Index dimension must be 1 or 2. Got {ix.ndim}")
        if ix.size == 0:
            return ix.astype(numpy.int64)
        lo, hi = (int(v) for v in gp.stack([ix.min().astype(numpy.int64),
                                            ix.max().astype(numpy.int64)]).get())
    else:
        try:
            ix = numpy.asarray(idx)
        except (ValueError, TypeError, MemoryError) as e:
            raise IndexError("invalid index") from e
        if ix.dtype.kind not in "iu":
            if ix.size == 0:
                ix = ix.astype(numpy.int64)
            else:
                raise IndexError("arrays used as indices must be of integer (or boolean) type")
        if ix.ndim not in (1, 2):
            raise IndexError(f"Index dimension must be 1 or 2. Got {ix.ndim}")
        if ix.size == 0:
            return gp.asarray(ix.astype(numpy.int64))
        lo, hi = int(ix.min()), int(ix.max())
    if hi >= length:
        raise IndexError(f"index ({hi}) out of range")
    if lo < -length:
        raise IndexError(f"index ({lo}) out of range")
    ix = gp.asarray(ix).astype(numpy.int64)
    if lo < 0:
        ix = gp.where(ix < 0, ix + length, ix)
    return ix


def _process_slice(sl, num):
    """(start, stop) of a slice of step 1 or an int, in an axis of `num`."""
    if sl is None:
        i0, i1 = 0, num
    elif isinstance(sl, slice):
        i0, i1, stride = sl.indices(num)
        if stride != 1:
            raise ValueError("slicing with step != 1 not supported")
        i0 = min(i0, i1)
    elif isintlike(sl):
        if sl < 0:
            sl += num
        i0, i1 = sl, sl + 1
        if i0 < 0 or i1 > num:
            raise IndexError(f"index out of bounds: 0 <= {i0} < {i1} <= {num}")
    else:
        raise TypeError("expected slice or scalar")
    return i0, i1
