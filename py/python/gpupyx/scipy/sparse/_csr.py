"""Compressed Sparse Row matrices and arrays (``scipy.sparse._csr``)."""

import numpy

import gpupy as gp
from gpupyx.scipy.sparse import _convert
from gpupyx.scipy.sparse._base import _spbase, register_containers, sparray, spmatrix
from gpupyx.scipy.sparse._compressed import _cs_matrix

__all__ = ["csr_array", "csr_matrix", "isspmatrix_csr"]


class _csr_base(_cs_matrix):
    _format = "csr"

    def transpose(self, axes=None, copy=False):
        if axes is not None and axes != (1, 0):
            raise ValueError("Sparse arrays/matrices do not support "
                             "an 'axes' parameter because swapping "
                             "dimensions is the only logical permutation.")
        M, N = self.shape
        data, indices, indptr = self.data, self.indices, self.indptr
        if copy:
            data, indices, indptr = data.copy(), indices.copy(), indptr.copy()
        out = self._csc_container._new(data, indices, indptr, (N, M))
        self._pass_sorted(out)
        return out

    transpose.__doc__ = _spbase.transpose.__doc__

    def tocsr(self, copy=False):
        return self.copy() if copy else self

    tocsr.__doc__ = _spbase.tocsr.__doc__

    def tocoo(self, copy=True):
        A = super().tocoo(copy=copy)
        if "_has_canonical_format" in self.__dict__:
            A.has_canonical_format = self._has_canonical_format
        return A

    tocoo.__doc__ = _spbase.tocoo.__doc__

    def tocsc(self, copy=False):
        M, N = self.shape
        indptr, indices, data = _convert.transpose_compressed(self.indptr, self.indices, self.data, M, N)
        return self._csc_container._new(data, indices, indptr, self.shape, sorted_indices=True)

    tocsc.__doc__ = _spbase.tocsc.__doc__

    @staticmethod
    def _swap(x):
        """(row, col) as (major, minor): CSR's are the same."""
        return x

    def __iter__(self):
        for r in range(self.shape[0]):
            yield self._getrow(r) if not isinstance(self, sparray) else self[r]

    def _getrow(self, i):
        M, N = self.shape
        i = int(i)
        if i < 0:
            i += M
        if i < 0 or i >= M:
            raise IndexError(f"index ({i}) out of range")
        return self._get_submatrix(major=i)

    def _getcol(self, i):
        M, N = self.shape
        i = int(i)
        if i < 0:
            i += N
        if i < 0 or i >= N:
            raise IndexError(f"index ({i}) out of range")
        return self._get_submatrix(minor=i)

    def _get_intXarray(self, row, col):
        return self._getrow(row)._minor_index_fancy(col)

    def _get_intXslice(self, row, col):
        if col.step in (1, None):
            return self._get_submatrix(row, col, copy=True)
        return self._getrow(row)._minor_slice(col)

    def _get_sliceXint(self, row, col):
        if row.step in (1, None):
            return self._get_submatrix(row, col, copy=True)
        return self._major_slice(row)._get_submatrix(minor=col)

    def _get_sliceXarray(self, row, col):
        return self._major_slice(row)._minor_index_fancy(col)

    def _get_arrayXint(self, row, col):
        res = self._major_index_fancy(row)._get_submatrix(minor=col)
        if row.ndim > 1:
            return res.reshape(row.shape)
        return res

    def _get_arrayXslice(self, row, col):
        if col.step not in (1, None):
            col = gp.arange(*col.indices(self.shape[1]), dtype=numpy.int64)
            return self._get_arrayXarray(row[:, None], col[None, :]) if row.ndim == 1 \
                else self._get_arrayXarray(row, col)
        return self._major_index_fancy(row)._get_submatrix(minor=col)


def isspmatrix_csr(x):
    """Is `x` of csr_matrix type?"""
    return isinstance(x, csr_matrix)


class csr_array(_csr_base, sparray):
    """Compressed Sparse Row array (SciPy's ``csr_array``, values on the GPU).

    ``csr_array(D)`` of a 2-d gpupy or NumPy array; ``csr_array(S)`` of a gpupy or SciPy
    sparse array/matrix; ``csr_array((M, N), [dtype])`` empty; ``csr_array((data,
    (row_ind, col_ind)), [shape])`` (duplicates summed); ``csr_array((data, indices,
    indptr), [shape])`` (validated on the GPU). ``*`` is elementwise; ``@`` the product.
    """


class csr_matrix(spmatrix, _csr_base):
    """Compressed Sparse Row matrix (SciPy's ``csr_matrix``, values on the GPU): as
    ``csr_array``, with ``*`` the matrix product and reductions that stay 2-d."""


register_containers(csr_array, csr_matrix)
