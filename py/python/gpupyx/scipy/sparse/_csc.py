"""Compressed Sparse Column matrices and arrays (``scipy.sparse._csc``): the arrays are
those of the CSR form of the transpose."""

from gpupyx.scipy.sparse import _convert
from gpupyx.scipy.sparse._base import _spbase, register_containers, sparray, spmatrix
from gpupyx.scipy.sparse._compressed import _cs_matrix

__all__ = ["csc_array", "csc_matrix", "isspmatrix_csc"]


class _csc_base(_cs_matrix):
    _format = "csc"

    def transpose(self, axes=None, copy=False):
        if axes is not None and axes != (1, 0):
            raise ValueError("Sparse arrays/matrices do not support "
                             "an 'axes' parameter because swapping "
                             "dimensions is the only logical permutation.")
        M, N = self.shape
        data, indices, indptr = self.data, self.indices, self.indptr
        if copy:
            data, indices, indptr = data.copy(), indices.copy(), indptr.copy()
        out = self._csr_container._new(data, indices, indptr, (N, M))
        self._pass_sorted(out)
        return out

    transpose.__doc__ = _spbase.transpose.__doc__

    def __iter__(self):
        yield from self.tocsr()

    def tocsc(self, copy=False):
        return self.copy() if copy else self

    tocsc.__doc__ = _spbase.tocsc.__doc__

    def tocsr(self, copy=False):
        M, N = self.shape
        indptr, indices, data = _convert.transpose_compressed(self.indptr, self.indices, self.data, N, M)
        return self._csr_container._new(data, indices, indptr, self.shape, sorted_indices=True)

    tocsr.__doc__ = _spbase.tocsr.__doc__

    def nonzero(self):
        """The (row, col) indices of the stored nonzero values, in C order."""
        A = self.tocsr()
        A.sort_indices()
        return A.nonzero()

    @staticmethod
    def _swap(x):
        """(row, col) as (major, minor): CSC's are swapped."""
        return x[1], x[0]

    def _getrow(self, i):
        M, N = self.shape
        i = int(i)
        if i < 0:
            i += M
        if i < 0 or i >= M:
            raise IndexError(f"index ({i}) out of range")
        return self._get_submatrix(minor=i).tocsr()

    def _getcol(self, i):
        M, N = self.shape
        i = int(i)
        if i < 0:
            i += N
        if i < 0 or i >= N:
            raise IndexError(f"index ({i}) out of range")
        return self._get_submatrix(major=i, copy=True)

    def _get_intXarray(self, row, col):
        return self._major_index_fancy(col)._get_submatrix(minor=row)

    def _get_intXslice(self, row, col):
        if col.step in (1, None):
            return self._get_submatrix(major=col, minor=row, copy=True)
        return self._major_slice(col)._get_submatrix(minor=row)

    def _get_sliceXint(self, row, col):
        if row.step in (1, None):
            return self._get_submatrix(major=col, minor=row, copy=True)
        return self._get_submatrix(major=col)._minor_slice(row)

    def _get_sliceXarray(self, row, col):
        return self._major_index_fancy(col)._minor_slice(row)

    def _get_arrayXint(self, row, col):
        res = self._get_submatrix(major=col)._minor_index_fancy(row)
        if row.ndim > 1:
            return res.reshape(row.shape)
        return res

    def _get_arrayXslice(self, row, col):
        return self._major_slice(col)._minor_index_fancy(row)


def isspmatrix_csc(x):
    """Is `x` of csc_matrix type?"""
    return isinstance(x, csc_matrix)


class csc_array(_csc_base, sparray):
    """Compressed Sparse Column array (SciPy's ``csc_array``, values on the GPU): the
    constructors of ``csr_array``; ``A @ x`` runs the transposed product on the same
    arrays (atomic adds), ``A.T`` is a CSR array of the same arrays."""


class csc_matrix(spmatrix, _csc_base):
    """Compressed Sparse Column matrix (SciPy's ``csc_matrix``, values on the GPU)."""


register_containers(csc_array, csc_matrix)
