"""Formats with a ``data`` array (``scipy.sparse._data``): elementwise functions of the
stored values, and the ``max``/``min``/``argmax``/``argmin`` family.

Along an axis, the extremes come from the segment kernel over each row (or column,
through CSC) of the canonical matrix: the extreme of the stored values and its first
position, NaN winning as in NumPy; the implicit zeros of a row that is not full are
then taken in as SciPy does.
"""

import math

import numpy

import gpupy as gp
from gpupyx.scipy.sparse import _kernels
from gpupyx.scipy.sparse._base import _spbase, _ufuncs_with_fixed_point_at_zero, sparray
from gpupyx.scipy.sparse._sputils import getdtype, index_dtype_for, isscalarlike, validateaxis

__all__ = []


class _data_matrix(_spbase):
    def __init__(self, arg1, *, maxprint=None):
        _spbase.__init__(self, arg1, maxprint=maxprint)

    @property
    def dtype(self):
        return self.data.dtype

    @dtype.setter
    def dtype(self, newtype):
        self.data = self.data.view(newtype)

    def _deduped_data(self):
        if hasattr(self, "sum_duplicates"):
            self.sum_duplicates()
        return self.data

    def __abs__(self):
        return self._with_data(abs(self._deduped_data()))

    def __round__(self, ndigits=0):
        return self._with_data(gp.around(self._deduped_data(), decimals=ndigits))

    def _real(self):
        return self._with_data(self.data.real.copy() if self.dtype.kind == "c" else self.data.copy())

    def _imag(self):
        if self.dtype.kind == "c":
            return self._with_data(self.data.imag.copy())
        return self._with_data(gp.zeros_like(self.data))

    def __neg__(self):
        if self.dtype.kind == "b":
            raise NotImplementedError("negating a boolean sparse array is not supported")
        return self._with_data(-self.data)

    def __imul__(self, other):
        if isscalarlike(other):
            self.data *= other
            return self
        return NotImplemented

    def __itruediv__(self, other):
        if isscalarlike(other):
            recip = 1.0 / other
            self.data *= recip
            return self
        return NotImplemented

    def astype(self, dtype, casting="unsafe", copy=True):
        dtype = getdtype(dtype)
        if not numpy.can_cast(self.dtype, dtype, casting):
            raise TypeError(f"Cannot cast array data from {self.dtype!r} to {dtype!r} "
                            f"according to the rule {casting!r}")
        if self.dtype != dtype:
            matrix = self._with_data(self.data.astype(dtype, copy=True), copy=True)
            return matrix._with_data(matrix._deduped_data(), copy=False)
        if copy:
            return self.copy()
        return self

    astype.__doc__ = _spbase.astype.__doc__

    def conjugate(self, copy=True):
        if self.dtype.kind == "c":
            return self._with_data(self.data.conjugate(), copy=copy)
        return self.copy() if copy else self

    conjugate.__doc__ = _spbase.conjugate.__doc__

    def copy(self):
        return self._with_data(self.data.copy(), copy=True)

    copy.__doc__ = _spbase.copy.__doc__

    def power(self, n, dtype=None):
        """Element-wise power (`n` a nonzero scalar)."""
        if not isscalarlike(n):
            raise NotImplementedError("input is not scalar")
        if not n:
            raise NotImplementedError(
                "zero power is not supported as it would densify the matrix.\n"
                "Use `np.ones(A.shape, dtype=A.dtype)` for this case.")
        data = self._deduped_data()
        if dtype is not None:
            data = data.astype(dtype, copy=False)
        return self._with_data(data ** n)

    def _mul_scalar(self, other):
        return self._with_data(self.data * other)


def _fixed_point_method(name):
    def method(self):
        return self._with_data(getattr(gp, name)(self._deduped_data()), copy=True)
    method.__doc__ = f"Element-wise {name}.\n\nSee `numpy.{name}` for more information."
    method.__name__ = name
    return method


for _name in _ufuncs_with_fixed_point_at_zero:
    setattr(_data_matrix, _name, _fixed_point_method(_name))


# The extreme ops: NumPy's binary function (with the implicit zero), the segment op,
# and whether NaNs are skipped.
_EXTREMES = {
    "max": (gp.maximum, _kernels.SEG_MAX, False),
    "min": (gp.minimum, _kernels.SEG_MIN, False),
    "nanmax": (gp.fmax, _kernels.SEG_MAX, True),
    "nanmin": (gp.fmin, _kernels.SEG_MIN, True),
}


class _minmax_mixin:
    """``max``, ``min``, ``nanmax``, ``nanmin``, ``argmax``, ``argmin`` (CSR, CSC, COO)."""

    def _min_or_max_axis(self, axis, name, explicit):
        fn = _EXTREMES[name][0]
        N = self.shape[axis]
        M = self.shape[1 - axis]
        mat = self.tocsc() if axis == 0 else self.tocsr()
        mat.sum_duplicates()
        value, _ = mat._major_extremes(name)
        if not explicit:
            not_full = gp.diff(mat.indptr) < N
            value = gp.where(not_full, fn(value, gp.zeros((), dtype=value.dtype)), value)
        major_index = gp.flatnonzero(value != 0)
        value = value[major_index]
        idx_dtype = index_dtype_for(M)
        major_index = major_index.astype(idx_dtype)
        coo = self._coo_container
        if isinstance(self, sparray):
            return coo._new(value, (major_index,), (M,), canonical=True)
        zeros = gp.zeros(value.shape[0], dtype=idx_dtype)
        if axis == 0:
            return coo._new(value, (zeros, major_index), (1, M), canonical=True)
        return coo._new(value, (major_index, zeros), (M, 1), canonical=True)

    def _min_or_max(self, axis, out, name, explicit):
        if out is not None:
            raise ValueError("Sparse min/max does not support an 'out' parameter.")
        axis = validateaxis(axis, ndim=self.ndim)
        if axis is None:
            if 0 in self.shape:
                raise ValueError("zero-size array to reduction operation")
            zero = gp.zeros((), dtype=self.dtype)
            if self.nnz == 0:
                return zero
            fn = _EXTREMES[name][0]
            m = fn.reduce(self._deduped_data().ravel())
            if self.nnz != math.prod(self.shape) and not explicit:
                m = fn(zero, m)
            return m
        if any(self.shape[d] == 0 for d in axis):
            raise ValueError("zero-size array to reduction operation")
        return self._min_or_max_axis(axis[0], name, explicit)

    def _argminmax_axis(self, axis, name, explicit):
        mat = self.tocsc() if axis == 0 else self.tocsr()
        mat.sum_duplicates()
        ret_size, line_size = mat._swap(mat.shape)
        value, pos = mat._major_extremes(name)
        nonempty = pos >= 0
        safe = gp.where(nonempty, pos, 0)
        cols = mat.indices.astype(numpy.int64)[safe] if mat.nnz else gp.zeros(ret_size, numpy.int64)
        if explicit:
            ret = gp.where(nonempty, cols, 0)
        else:
            compare = gp.greater if name == "max" else gp.less
            counts = gp.diff(mat.indptr)
            zero = gp.zeros((), dtype=value.dtype)
            take_col = gp.logical_or(compare(value, zero), counts == line_size)
            ext_idx = pos - mat.indptr[:-1].astype(numpy.int64)
            zero_ind = mat._leading_matches()
            alt = gp.where(value == zero, gp.minimum(ext_idx, zero_ind), zero_ind)
            ret = gp.where(nonempty, gp.where(take_col, cols, alt), 0)
        ret = ret.astype(numpy.int64)
        if isinstance(self, sparray):
            return ret
        return ret.reshape(-1, 1) if axis == 1 else ret.reshape(1, -1)

    def _argminmax(self, axis, out, name, explicit):
        minmax = "arg" + name
        if out is not None:
            raise ValueError(f"Sparse {minmax} does not support an 'out' parameter.")
        axis = validateaxis(axis, ndim=self.ndim)
        if axis is not None:
            if any(self.shape[i] == 0 for i in axis):
                raise ValueError(f"Cannot apply {minmax} along a zero-sized dimension.")
            return self._argminmax_axis(axis[0], name, explicit)
        if 0 in self.shape:
            raise ValueError(f"Cannot apply {minmax} to an empty matrix.")
        if self.nnz == 0:
            if explicit:
                raise ValueError(f"Cannot apply {minmax} to zero matrix when explicit=True.")
            return 0
        mat = self.tocoo()
        mat.sum_duplicates()
        extreme_index = int((gp.argmax if name == "max" else gp.argmin)(mat.data))
        if explicit:
            return extreme_index
        extreme_value = mat.data[extreme_index].get()[()]
        zero = self.dtype.type(0)
        maxnnz = math.prod(self.shape)
        compare = numpy.greater if name == "max" else numpy.less
        if mat.ndim == 1:
            lin = mat.coords[0].astype(numpy.int64)
        else:
            lin = mat.coords[0].astype(numpy.int64) * mat.shape[1] + mat.coords[1].astype(numpy.int64)
        if compare(extreme_value, zero) or mat.nnz == maxnnz:
            return int(lin[extreme_index])
        first_missing = int(gp.count_nonzero(lin == gp.arange(mat.nnz, dtype=numpy.int64)))
        if extreme_value == zero:
            return min(first_missing, extreme_index)
        return first_missing

    def max(self, axis=None, out=None, *, explicit=False):
        """The maximum, or along an axis a sparse COO result (SciPy's)."""
        return self._min_or_max(axis, out, "max", explicit)

    def min(self, axis=None, out=None, *, explicit=False):
        """The minimum, or along an axis a sparse COO result (SciPy's)."""
        return self._min_or_max(axis, out, "min", explicit)

    def nanmax(self, axis=None, out=None, *, explicit=False):
        """The maximum ignoring NaNs."""
        return self._min_or_max(axis, out, "nanmax", explicit)

    def nanmin(self, axis=None, out=None, *, explicit=False):
        """The minimum ignoring NaNs."""
        return self._min_or_max(axis, out, "nanmin", explicit)

    def argmax(self, axis=None, out=None, *, explicit=False):
        """The index of the first maximum (implicit zeros count unless `explicit`)."""
        return self._argminmax(axis, out, "max", explicit)

    def argmin(self, axis=None, out=None, *, explicit=False):
        """The index of the first minimum (implicit zeros count unless `explicit`)."""
        return self._argminmax(axis, out, "min", explicit)
