"""The base of every sparse format (``scipy.sparse._base``): dispatch of the operators,
conversions, reductions and products that formats share, most of them through CSR.

Dense operands and results are gpupy arrays (host NumPy operands are copied to the
device). Where SciPy returns a ``numpy.matrix`` (``todense``, ``sum`` along an axis of
an ``spmatrix``), gpupy returns a 2-d gpupy array, as CuPy does; full reductions
return 0-d gpupy arrays.
"""

import math
import operator
from warnings import warn

import numpy

import gpupy as gp
from gpupyx.scipy.sparse._sputils import (
    as_device, check_reshape_kwargs, check_shape, get_sum_dtype, getdtype, isdense,
    isscalarlike, validateaxis,
)

__all__ = ["isspmatrix", "issparse", "sparray", "spmatrix", "SparseWarning",
           "SparseEfficiencyWarning"]


class SparseWarning(Warning):
    """General warning for ``gpupyx.scipy.sparse``."""


class SparseFormatWarning(SparseWarning):
    pass


class SparseEfficiencyWarning(SparseWarning):
    """The warning emitted when the operation is inefficient for sparse matrices."""


_formats = {"csc": "Compressed Sparse Column", "csr": "Compressed Sparse Row",
            "coo": "COOrdinate", "dia": "DIAgonal", "und": "Undefined"}

# The unary ufuncs with f(0) = 0, which a sparse matrix applies to its stored values.
_ufuncs_with_fixed_point_at_zero = ("sin", "tan", "arcsin", "arctan", "sinh", "tanh", "arcsinh",
                                    "arctanh", "rint", "sign", "expm1", "log1p", "deg2rad",
                                    "rad2deg", "floor", "ceil", "trunc", "sqrt")

MAXPRINT = 50

# The format classes by name, registered by their modules when the package loads (so
# that this base module, which they import, need not import them back).
_CONTAINERS = {}


def register_containers(*classes):
    """Makes format classes reachable from the base class (``_csr_container``, ...)."""
    for cls in classes:
        _CONTAINERS[cls.__name__] = cls

_VALUE_DTYPES = [numpy.dtype(t) for t in (numpy.bool_, numpy.float32, numpy.float64,
                                          numpy.complex64, numpy.complex128)]

op_neg = {operator.eq: operator.ne, operator.ne: operator.eq, operator.lt: operator.ge,
          operator.ge: operator.lt, operator.gt: operator.le, operator.le: operator.gt}
op_sym = {operator.eq: "==", operator.ge: ">=", operator.le: "<=", operator.ne: "!=",
          operator.gt: ">", operator.lt: "<"}


def _is_scipy_sparse(x):
    """Whether `x` is a SciPy sparse matrix or array (without importing SciPy)."""
    return type(x).__module__.startswith("scipy.sparse") and hasattr(x, "tocoo")


def _host_scalar(x):
    """A scalar operand on the host: Python scalars stay weakly typed (NEP 50), 0-d
    arrays become NumPy scalars of their dtype."""
    if isinstance(x, gp.ndarray):
        return x.get()[()]
    if isinstance(x, numpy.ndarray):
        return x[()]
    return x


def _dense_operand(x):
    """A dense operand as a gpupy array (host arrays and lists copied to the device),
    or None when `x` is not array-like."""
    if isinstance(x, gp.ndarray):
        return x
    if isinstance(x, numpy.ndarray):
        return gp.asarray(x)
    a = numpy.asanyarray(x)
    if a.dtype == numpy.object_:
        return None
    return gp.asarray(a)


class _spbase:
    """The base class of gpupy's sparse arrays and matrices; see the formats."""

    __array_priority__ = 10.1
    # NumPy defers binary operators with a sparse operand to its reflected methods.
    __array_ufunc__ = None
    _format = "und"
    _allow_nd = (2,)

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def _shape_as_2d(self):
        s = self._shape
        return (1, s[-1]) if len(s) == 1 else s

    @property
    def _coo_container(self):
        return _CONTAINERS["coo_array"]

    @property
    def _csc_container(self):
        return _CONTAINERS["csc_array"]

    @property
    def _csr_container(self):
        return _CONTAINERS["csr_array"]

    @property
    def _dia_container(self):
        return _CONTAINERS["dia_array"]

    def __init__(self, arg1, *, maxprint=None):
        self._shape = None
        if self.__class__.__name__ == "_spbase":
            raise ValueError("This class is not intended to be instantiated directly.")
        if isinstance(self, sparray) and numpy.isscalar(arg1):
            raise ValueError("scipy sparse array classes do not support instantiation from a scalar")
        self.maxprint = MAXPRINT if maxprint is None else maxprint

    @property
    def shape(self):
        return self._shape

    def reshape(self, *args, **kwargs):
        """A sparse matrix of `shape` with this one's values in `order` (C or F)."""
        shape = check_shape(args, self.shape, allow_nd=(1, 2) if isinstance(self, sparray) else (2,))
        order, copy = check_reshape_kwargs(kwargs)
        if shape == self.shape:
            return self.copy() if copy else self
        return self.tocoo(copy=copy).reshape(shape, order=order, copy=False)

    def resize(self, shape):
        raise NotImplementedError(f"{type(self).__name__}.resize is not implemented")

    def astype(self, dtype, casting="unsafe", copy=True):
        """The matrix with its values cast to `dtype`."""
        dtype = getdtype(dtype)
        if self.dtype != dtype:
            return self.tocsr().astype(dtype, casting=casting, copy=copy).asformat(self.format)
        if copy:
            return self.copy()
        return self

    @classmethod
    def _ascontainer(cls, X, **kwargs):
        return gp.asarray(X, **kwargs)

    @classmethod
    def _container(cls, X, **kwargs):
        return gp.array(X, **kwargs)

    def _asfptype(self):
        """Upcast to a floating point format (if necessary)."""
        if self.dtype.kind in "fc":
            return self
        return self.astype(numpy.float32 if self.dtype.kind == "b" else numpy.float64, copy=False)

    def __iter__(self):
        for r in range(self.shape[0]):
            yield self[r]

    def _getmaxprint(self):
        return self.maxprint

    def count_nonzero(self, axis=None):
        clsname = self.__class__.__name__
        raise NotImplementedError(f"count_nonzero not implemented for {clsname}.")

    def _getnnz(self, axis=None):
        clsname = self.__class__.__name__
        raise NotImplementedError(f"getnnz not implemented for {clsname}.")

    @property
    def nnz(self):
        """Number of stored values, including explicit zeros."""
        return self._getnnz()

    @property
    def size(self):
        """Number of stored values."""
        return self._getnnz()

    @property
    def format(self):
        """Format string for matrix."""
        return self._format

    @property
    def T(self):
        """Transpose."""
        return self.transpose()

    @property
    def mT(self):
        """Matrix transpose (SciPy 1.18's ``mT``)."""
        if (n := self.ndim) < 2:
            raise ValueError(f"Array must be at least 2-dimensional, but it is {n}-D")
        return self.transpose()

    @property
    def H(self):
        """The conjugate transpose."""
        return self.conjugate().transpose()

    @property
    def real(self):
        return self._real()

    @property
    def imag(self):
        return self._imag()

    def __repr__(self):
        format_name = _formats[self.format]
        sparse_cls = "array" if isinstance(self, sparray) else "matrix"
        return (f"<{format_name} sparse {sparse_cls} of dtype '{self.dtype}'\n"
                f"\twith {self.nnz} stored elements and shape {self.shape}>")

    def __str__(self):
        maxprint = self._getmaxprint()
        A = self.tocoo()
        out = repr(self)
        if self.nnz == 0:
            return out
        coords = [gp.asnumpy(c) for c in A.coords]
        data = gp.asnumpy(A.data)

        def tostr(sl):
            pairs = zip(zip(*(c[sl].tolist() for c in coords)), data[sl])
            return "\n".join(f"  {idx}\t{val}" for idx, val in pairs)

        out += "\n  Coords\tValues\n"
        if self.nnz > maxprint:
            half = maxprint // 2
            out += tostr(slice(None, half))
            out += "\n  :\t:\n"
            out += tostr(slice(-(maxprint - half), None))
        else:
            out += tostr(slice(None))
        return out

    def __bool__(self):
        if self.shape == (1, 1):
            return self.nnz != 0
        raise ValueError("The truth value of an array with more than one "
                         "element is ambiguous. Use a.any() or a.all().")

    def __len__(self):
        raise TypeError("sparse array length is ambiguous; use getnnz() or shape[0]")

    def asformat(self, format, copy=False):
        """This matrix in `format` ('csr', 'csc', 'coo', 'dia'; None: as it is)."""
        if format is None or format == self.format:
            return self.copy() if copy else self
        try:
            convert_method = getattr(self, "to" + format)
        except AttributeError as e:
            raise ValueError(f"Format {format} is unknown.") from e
        try:
            return convert_method(copy=copy)
        except TypeError:
            return convert_method()

    # -----------------------------------------------------------------------------------
    # Arithmetic: every format goes through CSR unless it overrides a handler.

    def multiply(self, other):
        """Element-wise multiplication by another array/matrix (or a scalar)."""
        if isscalarlike(other):
            return self._mul_scalar(other)
        try:
            return self._multiply_2d_with_broadcasting(other)
        except AttributeError:
            return self.tocsr()._multiply_2d_with_broadcasting(other)

    def _maximum_minimum(self, other, np_op):
        name = np_op.__name__
        if not (issparse(other) or isdense(other) or isscalarlike(other)):
            other_a = numpy.asanyarray(other)
            if other_a.ndim == 0 and other_a.dtype == numpy.object_:
                raise NotImplementedError("maximum or minimum with an unrecognized "
                                          "array type is not supported")
            other = gp.asarray(other_a)
        if isscalarlike(other):
            other = _host_scalar(other)
            if np_op(0, other):
                pos_neg = "positive" if name == "maximum" else "negative"
                warn(f"Taking {name} with a {pos_neg} number results in a dense matrix.",
                     SparseEfficiencyWarning, stacklevel=3)
                gp_op = gp.maximum if name == "maximum" else gp.minimum
                return self.__class__(gp_op(self.toarray(), other))
            cs_self = self if self.format in ("csr", "csc") else self.tocsr()
            return cs_self._scalar_binopt(other, getattr(gp, name))
        if isdense(other):
            gp_op = gp.maximum if name == "maximum" else gp.minimum
            return gp_op(self.todense(), as_device(other))
        if issparse(other):
            if self.shape != other.shape:
                raise ValueError(f"inconsistent shapes {self.shape=} {other.shape=}")
            cs_self = self if self.format in ("csr", "csc") else self.tocsr()
            return cs_self._binopt(other, f"_{name}_")
        raise ValueError("Operands not compatible.")

    def maximum(self, other):
        """Element-wise maximum between this and another array/matrix."""
        return self._maximum_minimum(other, numpy.maximum)

    def minimum(self, other):
        """Element-wise minimum between this and another array/matrix."""
        return self._maximum_minimum(other, numpy.minimum)

    def dot(self, other):
        """Ordinary dot product."""
        if numpy.isscalar(other):
            return self * other
        return self @ other

    def power(self, n, dtype=None):
        """Element-wise power."""
        return self.tocsr().power(n, dtype=dtype)

    def _comparison(self, other, op):
        if not (issparse(other) or isdense(other) or isscalarlike(other)):
            other_a = numpy.asanyarray(other)
            if other_a.ndim == 0 and other_a.dtype == numpy.object_:
                return NotImplemented
            other = gp.asarray(other_a)
        if isscalarlike(other):
            other = _host_scalar(other)
            cs_self = self if self.format in ("csc", "csr") else self.tocsr()
            if not op(0, other):
                if numpy.isnan(other):
                    return self.__class__(self.shape, dtype=numpy.bool_)
                return cs_self._scalar_binopt(other, op)
            warn(f"Comparing a sparse matrix with {other} using {op_sym[op]} "
                 f"is inefficient. Try using {op_sym[op_neg[op]]} instead.",
                 SparseEfficiencyWarning, stacklevel=3)
            if numpy.isnan(other):
                return self.__class__(gp.ones(self.shape, dtype=numpy.bool_))
            inv = cs_self._scalar_binopt(other, op_neg[op])
            all_true = cs_self.__class__(gp.ones(cs_self.shape, dtype=numpy.bool_))
            return all_true - inv
        if isdense(other):
            return op(self.todense(), as_device(other))
        if issparse(other):
            if self.shape != other.shape:
                if op in (operator.eq, operator.ne):
                    return op is operator.ne
                raise ValueError("inconsistent shape")
            cs_self = self if self.format in ("csc", "csr") else self.tocsr()
            if not op(0, 0):
                return cs_self._binopt(other, f"_{op.__name__}_")
            warn(f"Comparing two sparse matrices using {op_sym[op]} "
                 f"is inefficient. Try using {op_sym[op_neg[op]]} instead.",
                 SparseEfficiencyWarning, stacklevel=3)
            inv = cs_self._binopt(other, f"_{op_neg[op].__name__}_")
            all_true = cs_self.__class__(gp.ones(cs_self.shape, dtype=numpy.bool_))
            return all_true - inv
        return NotImplemented

    def __eq__(self, other):
        return self._comparison(other, operator.eq)

    def __ne__(self, other):
        return self._comparison(other, operator.ne)

    def __lt__(self, other):
        return self._comparison(other, operator.lt)

    def __gt__(self, other):
        return self._comparison(other, operator.gt)

    def __le__(self, other):
        return self._comparison(other, operator.le)

    def __ge__(self, other):
        return self._comparison(other, operator.ge)

    __hash__ = None

    def __abs__(self):
        return abs(self.tocsr())

    def __round__(self, ndigits=0):
        return round(self.tocsr(), ndigits=ndigits)

    def _add_sparse(self, other):
        return self.tocsr()._add_sparse(other)

    def _add_dense(self, other):
        return self.tocsr()._add_dense(other)

    def _sub_sparse(self, other):
        return self.tocsr()._sub_sparse(other)

    def _sub_dense(self, other):
        return self.todense() - other

    def _rsub_dense(self, other):
        return other - self.todense()

    def __add__(self, other):
        if isscalarlike(other):
            if other == 0:
                return self.copy()
            raise NotImplementedError("adding a nonzero scalar to a sparse array is not supported")
        if issparse(other):
            if other.shape != self.shape:
                raise ValueError("inconsistent shapes")
            return self._add_sparse(other)
        if isdense(other):
            other = gp.broadcast_to(as_device(other), self.shape)
            return self._add_dense(other)
        return NotImplemented

    def __radd__(self, other):
        return self.__add__(other)

    def __sub__(self, other):
        if isscalarlike(other):
            if other == 0:
                return self.copy()
            raise NotImplementedError("subtracting a nonzero scalar from a sparse array is not supported")
        if issparse(other):
            if other.shape != self.shape:
                raise ValueError("inconsistent shapes")
            return self._sub_sparse(other)
        if isdense(other):
            other = gp.broadcast_to(as_device(other), self.shape)
            return self._sub_dense(other)
        return NotImplemented

    def __rsub__(self, other):
        if isscalarlike(other):
            if other == 0:
                return -self.copy()
            raise NotImplementedError("subtracting a sparse array from a nonzero scalar is not supported")
        if isdense(other):
            other = gp.broadcast_to(as_device(other), self.shape)
            return self._rsub_dense(other)
        return NotImplemented

    def _matmul_dispatch(self, other):
        """``self @ other`` (NumPy's matmul rules, 2-d sparse), or NotImplemented."""
        M, N = self._shape_as_2d
        if isscalarlike(other):
            return self._mul_scalar(other)
        err_prefix = "matmul: dimension mismatch with signature"
        if issparse(other):
            if N != other.shape[0]:
                raise ValueError(f"{err_prefix} (n,k={N}),(k={other.shape[0]},m)->(n,m)")
            return self._matmul_sparse(other)
        if _is_scipy_sparse(other):
            raise TypeError("a SciPy sparse matrix must be moved to the GPU first "
                            "(gpupyx.scipy.sparse.csr_matrix(m), ...)")
        x = _dense_operand(other)
        if x is None:
            return NotImplemented
        if x.ndim == 1 or (x.ndim == 2 and x.shape[1] == 1):
            if x.shape[0] != N:
                raise ValueError(f"{err_prefix} (n,k={N}),(k={x.shape[0]},1?)->(n,1?)")
            result = self._matmul_vector(x.reshape(-1))
            if x.ndim == 2:
                result = result.reshape(-1, 1)
            return result
        if x.ndim == 2:
            if x.shape[0] != N:
                raise ValueError(f"{err_prefix} (n,k={N}),(k={x.shape[0]},m)->(n,m)")
            return self._matmul_multivector(x)
        raise ValueError("could not interpret dimensions")

    def __mul__(self, other):
        return self.multiply(other)

    def __rmul__(self, other):
        return self.multiply(other)

    def _mul_scalar(self, other):
        return self.tocsr()._mul_scalar(other)

    def _matmul_vector(self, other):
        return self.tocsr()._matmul_vector(other)

    def _matmul_multivector(self, other):
        return self.tocsr()._matmul_multivector(other)

    def _matmul_sparse(self, other):
        return self.tocsr()._matmul_sparse(other)

    def _rmatmul_dispatch(self, other):
        """``other @ self`` as ``(self.T @ other.T).T``."""
        if isscalarlike(other):
            return self._mul_scalar(other)
        x = _dense_operand(other)
        if x is None:
            return NotImplemented
        ret = self.transpose()._matmul_dispatch(x.T)
        if ret is NotImplemented:
            return NotImplemented
        return ret.T

    def __matmul__(self, other):
        if isscalarlike(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self._matmul_dispatch(other)

    def __rmatmul__(self, other):
        if isscalarlike(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self._rmatmul_dispatch(other)

    def _divide(self, other, *, rdivide=False):
        if not (issparse(other) or isdense(other) or isscalarlike(other)):
            other_a = numpy.asanyarray(other)
            if other_a.ndim == 0 and other_a.dtype == numpy.object_:
                return NotImplemented
            other = gp.asarray(other_a)
        if isscalarlike(other):
            if rdivide:
                return gp.divide(other, self.todense())
            if numpy.can_cast(self.dtype, numpy.float64):
                return self.astype(numpy.float64, copy=False)._mul_scalar(1 / other)
            return self._mul_scalar(1 / other)
        if isdense(other):
            other = as_device(other)
            if rdivide:
                return gp.divide(other, self.todense())
            return self.multiply(gp.divide(1, other))
        if issparse(other):
            if rdivide:
                return other._divide(self, rdivide=False)
            csr_self = self.tocsr()
            if numpy.can_cast(self.dtype, numpy.float64):
                csr_self = csr_self.astype(numpy.float64, copy=False)
            return csr_self._divide_sparse(other.tocsr())
        return NotImplemented

    def __truediv__(self, other):
        return self._divide(other)

    def __rtruediv__(self, other):
        return NotImplemented

    def __neg__(self):
        return -self.tocsr()

    def __iadd__(self, other):
        return NotImplemented

    def __isub__(self, other):
        return NotImplemented

    def __imul__(self, other):
        return NotImplemented

    def __itruediv__(self, other):
        return NotImplemented

    def __pow__(self, *args, **kwargs):
        return self.power(*args, **kwargs)

    def transpose(self, axes=None, copy=False):
        """The transpose (a CSR matrix becomes CSC and back, sharing the arrays)."""
        return self.tocsr(copy=copy).transpose(axes=axes, copy=False)

    def conjugate(self, copy=True):
        """Element-wise complex conjugation."""
        if self.dtype.kind == "c":
            return self.tocsr(copy=copy).conjugate(copy=False)
        return self.copy() if copy else self

    def conj(self, copy=True):
        return self.conjugate(copy=copy)

    conj.__doc__ = conjugate.__doc__

    def _real(self):
        return self.tocsr()._real()

    def _imag(self):
        return self.tocsr()._imag()

    def nonzero(self):
        """The (row, col) indices of the stored nonzero values."""
        A = self.tocoo()
        nz_mask = A.data != 0
        return tuple(idx[nz_mask] for idx in A.coords)

    def _getcol(self, j):
        return self.tocsc()._getcol(j)

    def _getrow(self, i):
        return self.tocsr()._getrow(i)

    def todense(self, order=None, out=None):
        """The dense matrix: a 2-d gpupy array (SciPy's ``numpy.matrix`` for spmatrix)."""
        return self._ascontainer(self.toarray(order=order, out=out))

    def toarray(self, order=None, out=None):
        """The dense array (a gpupy array; duplicates summed)."""
        return self.tocsr(copy=False).toarray(order=order, out=out)

    def get(self, stream=None):
        """This matrix as the SciPy sparse matrix (or array) of its format, on the host
        (CuPy's ``get``)."""
        import scipy.sparse

        kind = "array" if isinstance(self, sparray) else "matrix"
        cls = getattr(scipy.sparse, f"{self.format}_{kind}")
        return self._to_scipy(cls)

    def tocsr(self, copy=False):
        """This matrix in Compressed Sparse Row format."""
        return self.tocoo(copy=copy).tocsr(copy=False)

    def tocoo(self, copy=False):
        """This matrix in COOrdinate format."""
        return self.tocsr(copy=False).tocoo(copy=copy)

    def todia(self, copy=False):
        """This matrix in DIAgonal format."""
        return self.tocoo(copy=copy).todia(copy=False)

    def tocsc(self, copy=False):
        """This matrix in Compressed Sparse Column format."""
        return self.tocsr(copy=copy).tocsc(copy=False)

    def _no_format(self, name):
        raise NotImplementedError(f"gpupyx.scipy.sparse has no {name} format "
                                  "(CSR, CSC, COO and DIA are available)")

    def todok(self, copy=False):
        self._no_format("DOK")

    def tolil(self, copy=False):
        self._no_format("LIL")

    def tobsr(self, blocksize=None, copy=False):
        self._no_format("BSR")

    def copy(self):
        """A copy sharing no arrays with this one."""
        return self.__class__(self, copy=True)

    def sum(self, axis=None, dtype=None, out=None):
        """The sum over `axis` (all elements: a 0-d gpupy array)."""
        axis = validateaxis(axis, ndim=self.ndim)
        res_dtype = get_sum_dtype(self.dtype)
        if dtype is not None and axis is not None and numpy.dtype(dtype) in _VALUE_DTYPES:
            # SciPy 1.18: duplicates summed, then the matrix cast to `dtype` and summed
            # in it.
            if hasattr(self, "sum_duplicates"):
                self.sum_duplicates()
            temp = self.astype(dtype, copy=False).sum(axis=axis, out=out)
            return temp.astype(dtype, copy=False)
        if axis is None:
            # Duplicates summed first (in place, as SciPy's ``_todata``).
            data = self._deduped_data() if hasattr(self, "_deduped_data") else self.tocoo()._deduped_data()
            total = gp.sum(data, dtype=dtype or res_dtype)
            if out is not None:
                out[...] = total
                return out
            return total
        if isspmatrix(self):
            new_shape = (1, self.shape[1]) if axis == (0,) else (self.shape[0], 1)
        else:
            new_shape = tuple(self.shape[i] for i in range(self.ndim) if i not in axis)
        if out is not None and tuple(out.shape) != new_shape:
            raise ValueError("out dimensions do not match shape")
        res = self._sum_axis(axis[0], numpy.dtype(dtype or res_dtype)).reshape(new_shape)
        if out is not None:
            out[...] = res
            return out
        return res

    def _sum_axis(self, axis, dtype):
        return self.tocsr()._sum_axis(axis, dtype)

    def mean(self, axis=None, dtype=None, out=None):
        """The arithmetic mean over `axis` (float64 for bool)."""
        axis = validateaxis(axis, ndim=self.ndim)
        integral = self.dtype.kind in "biu"
        inter_dtype = numpy.float64 if integral else self.dtype
        inter_self = self.astype(inter_dtype, copy=False)
        if axis is None:
            denom = math.prod(self.shape)
        else:
            denom = math.prod(self.shape[ax] for ax in axis)
        res = inter_self._mul_scalar(1.0 / denom).sum(axis=axis, dtype=inter_dtype, out=out)
        if dtype is not None and out is None:
            return res.astype(dtype, copy=False)
        return res

    def diagonal(self, k=0):
        """The `k`-th diagonal (elements ``a[i, i + k]``) as a gpupy array."""
        return self.tocsr().diagonal(k=k)

    def trace(self, offset=0):
        """The sum along a diagonal."""
        return self.diagonal(k=offset).sum()

    def setdiag(self, values, k=0):
        """Sets the `k`-th diagonal to `values` (a scalar, or as many values as fit)."""
        M, N = self.shape
        if (k > 0 and k >= N) or (k < 0 and -k >= M):
            raise ValueError("k exceeds array dimensions")
        self._setdiag(values, k)

    def _process_toarray_args(self, order, out):
        if out is not None:
            if order is not None:
                raise ValueError("order cannot be specified if out is not None")
            if tuple(out.shape) != self.shape or out.dtype != self.dtype:
                raise ValueError("out array must be same dtype and shape as sparse array")
            return out
        return None


class sparray:
    """A namespace class to separate sparray from spmatrix."""


class spmatrix:
    """The base class of the sparse matrix classes (``*_matrix``): ``*`` is the matrix
    product, ``**`` the matrix power, and reductions along an axis stay 2-d."""

    @property
    def _coo_container(self):
        return _CONTAINERS["coo_matrix"]

    @property
    def _csc_container(self):
        return _CONTAINERS["csc_matrix"]

    @property
    def _csr_container(self):
        return _CONTAINERS["csr_matrix"]

    @property
    def _dia_container(self):
        return _CONTAINERS["dia_matrix"]

    @classmethod
    def _ascontainer(cls, X, **kwargs):
        """SciPy's ``numpy.matrix`` results as 2-d gpupy arrays (a 1-d one as a row)."""
        return gp.atleast_2d(gp.asarray(X, **kwargs))

    def __mul__(self, other):
        return self._matmul_dispatch(other)

    def __rmul__(self, other):
        return self._rmatmul_dispatch(other)

    def __pow__(self, power):
        """The matrix power (repeated squaring by sparse products)."""
        M, N = self.shape
        if M != N:
            raise TypeError("sparse matrix is not square")
        if not isinstance(power, (int, numpy.integer)) or isinstance(power, bool):
            raise ValueError("exponent must be an integer")
        if power < 0:
            raise ValueError("exponent must be >= 0")
        if power == 0:
            idx = gp.arange(M + 1, dtype=numpy.int32 if M < 2**31 else numpy.int64)
            return self._csr_container._new(gp.ones(M, dtype=self.dtype), idx[:-1].copy(), idx, (M, M),
                                            canonical=True)
        result = None
        base = self.tocsr()
        while power:
            if power & 1:
                result = base if result is None else result @ base
            power >>= 1
            if power:
                base = base @ base
        return result

    def set_shape(self, shape):
        """Set the shape of the matrix in place."""
        new_self = self.reshape(shape, copy=False).asformat(self.format)
        self.__dict__ = new_self.__dict__

    def get_shape(self):
        """The shape of the matrix."""
        return self._shape

    shape = property(fget=get_shape, fset=set_shape, doc="Shape of the matrix")

    def asfptype(self):
        """Upcast the matrix to a floating point format (if necessary)."""
        return self._asfptype()

    def getmaxprint(self):
        return self._getmaxprint()

    def getformat(self):
        return self.format

    def getnnz(self, axis=None):
        """Number of stored values, including explicit zeros (per column or row with
        `axis`)."""
        return self._getnnz(axis=axis)

    def getH(self):
        """The Hermitian transpose of this matrix."""
        return self.conjugate().transpose()

    def getcol(self, j):
        """Column `j` as an (m x 1) sparse matrix."""
        return self._getcol(j)

    def getrow(self, i):
        """Row `i` as a (1 x n) sparse matrix."""
        return self._getrow(i)


def issparse(x):
    """Is `x` a gpupy sparse array or matrix?"""
    return isinstance(x, _spbase)


def isspmatrix(x):
    """Is `x` a gpupy sparse matrix (not a sparse array)?"""
    return isinstance(x, spmatrix)
