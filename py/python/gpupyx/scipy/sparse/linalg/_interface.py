"""SciPy 1.18's ``LinearOperator`` and ``aslinearoperator`` over gpupy arrays.

A LinearOperator is a lazy matrix: anything that can apply ``A @ x`` (and, for some
solvers, ``A^H @ x``). Operators compose lazily: ``A + B``, ``A @ B``, ``A * B``,
``alpha * A``, ``A / alpha``, ``-A``, ``A ** p``, ``A.T``, ``A.H``; nothing is multiplied
out. The class, its subclasses, their shape and dtype rules, their checks and messages
follow ``scipy/sparse/linalg/_interface.py`` of SciPy 1.18, including its batch
dimensions (``shape`` ``(..., M, N)``) and its FutureWarning for column vectors
``(N, 1)`` given to ``matvec``.

Differences from SciPy, all about where arrays live: array inputs are gpupy arrays, and
host data (NumPy arrays, lists, NumPy matrices) is copied to the device first, so the
functions a user gives (``matvec=``, ...) are called with gpupy arrays; a SciPy sparse
matrix given to ``aslinearoperator`` becomes a ``gpupyx.scipy.sparse.csr_matrix``. A
dtype found by calling ``matvec`` on an int8 zero vector (when ``dtype`` is None) costs
one such call, as in SciPy. ``MatrixLinearOperator.matvec`` multiplies a 1-d vector
directly (SciPy goes through a one-column ``matmat``; same values, and sparse matrices
have a faster vector product).
"""

import os
import sys
import types
import warnings

import numpy

import gpupy as gp
from gpupyx.scipy.sparse.linalg._sparse_access import is_scipy_sparse, issparse, to_device_sparse

__all__ = ["LinearOperator", "aslinearoperator"]


def _isscalar(x):
    """SciPy's ``xp_isscalar``: a Python or NumPy scalar, or a 0-d array."""
    return numpy.isscalar(x) or (isinstance(x, (gp.ndarray, numpy.ndarray)) and x.ndim == 0)


def _isintlike(x):
    """SciPy's ``isintlike``: an integer-valued scalar."""
    if numpy.ndim(x) != 0:
        return False
    try:
        return bool(int(x) == x)
    except (TypeError, ValueError):
        return False


def _isshape(shape):
    """SciPy's ``isshape(check_nd=False)``: a tuple of non-negative integers."""
    return all(_isintlike(d) and d >= 0 for d in shape)


def _warn_outside_package(msg, category):
    """A warning attributed to the first caller outside this subpackage (SciPy's
    ``skip_file_prefixes``, which Python 3.11 lacks: there, the caller of ``matvec``)."""
    if sys.version_info >= (3, 12):
        warnings.warn(msg, category, skip_file_prefixes=(os.path.dirname(__file__),))
    else:
        warnings.warn(msg, category, stacklevel=4)


def _as_array(x):
    """``x`` as a gpupy array (host data copied to the device); sparse matrices as they are."""
    if isinstance(x, gp.ndarray) or issparse(x):
        return x
    if isinstance(x, numpy.matrix):
        x = numpy.asarray(x)
    return gp.asarray(x)


class LinearOperator:
    """Common interface for performing matrix vector products (SciPy's
    ``scipy.sparse.linalg.LinearOperator``).

    Construct one from callables, ``LinearOperator(shape, matvec, rmatvec=None,
    matmat=None, dtype=None, rmatmat=None)``, or subclass it and implement ``_matvec``
    or ``_matmat`` (each implies the other) and optionally ``_rmatvec``/``_adjoint``.
    The callables receive and return gpupy arrays. With ``dtype=None`` the dtype is that
    of ``matvec`` applied to an int8 zero vector.

    .. seealso:: scipy.sparse.linalg.LinearOperator
    """

    # NumPy's binary operators defer to ours (``x @ A`` with a NumPy ``x``).
    __array_ufunc__ = None

    __class_getitem__ = classmethod(types.GenericAlias)

    def __new__(cls, *args, **kwargs):
        if cls is LinearOperator:
            # Operate as _CustomLinearOperator factory.
            return super().__new__(_CustomLinearOperator)
        obj = super().__new__(cls)
        if type(obj)._matvec == LinearOperator._matvec and type(obj)._matmat == LinearOperator._matmat:
            warnings.warn("LinearOperator subclass should implement at least one of _matvec and _matmat.",
                          category=RuntimeWarning, stacklevel=2)
        return obj

    def __init__(self, dtype, shape):
        """Initialize this LinearOperator. To be called by subclasses: ``dtype`` may be
        None; ``shape`` must be convertible to a tuple of at least 2 integers."""
        if dtype is not None:
            dtype = numpy.dtype(dtype)
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError(f"invalid shape {shape!r} (must be at least 2-d)")
        if not _isshape(shape):
            raise ValueError(f"invalid shape {shape!r}")
        self.dtype = dtype
        self.shape = tuple(int(d) for d in shape)
        self.ndim = len(shape)

    def _init_dtype(self):
        """The dtype of ``matvec`` applied to an int8 zero vector (int64 if that call
        raises OverflowError, TypeError or RuntimeError), when none was given."""
        if self.dtype is None:
            v = gp.zeros(self.shape[-1], dtype=numpy.int8)
            try:
                matvec_v = _as_array(self.matvec(v))
            except (OverflowError, TypeError, RuntimeError):
                self.dtype = numpy.dtype(numpy.int64)
            else:
                self.dtype = matvec_v.dtype

    def _matmat(self, X, /):
        """Default matrix-matrix product: ``_matvec`` column by column."""
        return gp.stack([self._matvec(X[..., :, i]) for i in range(X.shape[-1])], axis=-1)

    def _matvec(self, x):
        """Default matrix-vector product: ``_matmat`` of one column."""
        return self._matmat(x[..., None])[..., 0]

    def _shared_matvec(self, x, adjoint=False):
        x = _as_array(x)
        *self_broadcast_dims, M, N = self.shape
        inner_dim, outer_dim = (M, N) if adjoint else (N, M)

        x_broadcast_dims = ()
        row_vector = False
        column_vector = x.shape == (inner_dim, 1)
        if column_vector:
            func_name = "`rmatvec`" if adjoint else "`matvec`"
            matmat_func_name = "`rmatmat`" if adjoint else "`matmat`"
            msg = (
                f"Calling {func_name} on 'column vectors' of shape "
                f"`({inner_dim}, 1)` was deprecated in SciPy 1.18.0 and will no "
                f"longer be possible in SciPy 1.20.0. "
                f"Please call {matmat_func_name} instead for identical behaviour."
            )
            _warn_outside_package(msg, FutureWarning)
            x = x.reshape((inner_dim,))
        elif x.ndim >= 1 and x.shape[-1] == inner_dim:
            row_vector = True
            x_broadcast_dims = x.shape[:-1]

        if not (row_vector or column_vector):
            msg = (
                f"Dimension mismatch: `x` must have a shape ending in "
                f"`({inner_dim},)`, or shape `({inner_dim}, 1)`. "
                f"Given shape: {x.shape}"
            )
            raise ValueError(msg)

        y = self._rmatvec(x) if adjoint else self._matvec(x)
        y = _as_array(y)
        broadcasted_dims = numpy.broadcast_shapes(tuple(self_broadcast_dims), tuple(x_broadcast_dims))
        if row_vector:
            y = y.reshape((*broadcasted_dims, outer_dim))
        else:
            y = y.reshape((*broadcasted_dims, outer_dim, 1))
        return y

    def matvec(self, x):
        """``A @ x`` for a vector ``x`` of shape ``(..., N)``: shape ``(..., M)``. A
        column ``(N, 1)`` gives ``(M, 1)`` with SciPy 1.18's FutureWarning."""
        return self._shared_matvec(x)

    def rmatvec(self, x):
        """``A^H @ x`` for a vector ``x`` of shape ``(..., M)``: shape ``(..., N)``."""
        return self._shared_matvec(x, adjoint=True)

    def _rmatvec(self, x):
        """Default ``_rmatvec``: through ``_rmatmat`` or the adjoint."""
        if type(self)._adjoint == LinearOperator._adjoint:
            # _adjoint not overridden, prevent infinite recursion
            if hasattr(self, "_rmatmat") and type(self)._rmatmat != LinearOperator._rmatmat:
                return self._rmatmat(x[..., None])[..., 0]
            raise NotImplementedError
        return self.H._matvec(x)

    def _shared_matmat(self, X, adjoint=False):
        X = _as_array(X)
        if X.ndim < 2:
            raise ValueError(f"Expected at least 2-d ndarray or matrix, not {X.ndim}-d")
        if X.shape[-2] != (self.shape[-2] if adjoint else self.shape[-1]):
            raise ValueError(f"Dimension mismatch: {self.shape}, {X.shape}")
        try:
            return self._rmatmat(X) if adjoint else self._matmat(X)
        except Exception as e:
            if issparse(X):
                raise TypeError(
                    "Multipliying LinearOperator with a sparse matrix failed."
                    " Try wrapping the matrix with `aslinearoperator` first,"
                    " or ensuring the operator's `matmat` function"
                    " supports sparse input."
                ) from e
            raise

    def matmat(self, X):
        """``A @ X`` for a matrix ``X`` of shape ``(..., N, K)``: shape ``(..., M, K)``."""
        return self._shared_matmat(X)

    def rmatmat(self, X):
        """``A^H @ X`` for a matrix ``X`` of shape ``(..., M, K)``: shape ``(..., N, K)``."""
        return self._shared_matmat(X, adjoint=True)

    def _rmatmat(self, X, /):
        """Default ``_rmatmat``: ``_rmatvec`` column by column, or the adjoint."""
        if type(self)._adjoint == LinearOperator._adjoint:
            return gp.stack([self._rmatvec(X[..., :, i]) for i in range(X.shape[-1])], axis=-1)
        return self.H._matmat(X)

    def __call__(self, x):
        return self @ x

    def __mul__(self, x):
        return self.dot(x)

    def __truediv__(self, other):
        if not _isscalar(other):
            raise ValueError("Can only divide a linear operator by a scalar.")
        return _ScaledLinearOperator(self, 1.0 / other)

    def dot(self, x):
        """A LinearOperator: the lazy product; a scalar: the lazily scaled operator; a
        vector ``(N,)``: ``matvec``; an array ``(..., N, K)``: ``matmat``."""
        if isinstance(x, LinearOperator):
            return _ProductLinearOperator(self, x)
        if _isscalar(x):
            return _ScaledLinearOperator(self, x)
        x = _as_array(x)
        N = self.shape[-1]
        vector = x.shape == (N,)
        matrix = x.ndim >= 2 and x.shape[-2] == N
        if not (vector or matrix):
            msg = (
                f"Dimension mismatch: array input `x` must have shape `({N},)` "
                f"or a shape ending in `({N}, K)` for some integer `K`. "
                f"Given shape: {x.shape}"
            )
            raise ValueError(msg)
        return self.matvec(x) if vector else self.matmat(x)

    def __matmul__(self, other):
        if _isscalar(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self.__mul__(other)

    def __rmatmul__(self, other):
        if _isscalar(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self.__rmul__(other)

    def __rmul__(self, x):
        return self.rdot(x)

    def rdot(self, x):
        """``x A`` (not the adjoint product): a LinearOperator, a scalar, a vector
        ``(M,)`` or an array ``(..., K, M)``, as ``dot`` from the left."""
        if isinstance(x, LinearOperator):
            return _ProductLinearOperator(x, self)
        if _isscalar(x):
            return _ScaledLinearOperator(self, x)
        x = _as_array(x)
        M = self.shape[-2]
        vector = x.shape == (M,)
        matrix = x.ndim >= 2 and x.shape[-1] == M
        if not (vector or matrix):
            msg = (
                f"Dimension mismatch: `x` must have shape `({M},)` "
                f"or a shape ending in `(K, {M})` for some integer `K`. "
                f"Given shape: {x.shape}."
            )
            raise ValueError(msg)
        # The transpose, not rmatvec/rmatmat, avoids needless conjugations (SciPy's choice).
        if vector:
            return self.T.matvec(x)
        return _swap_last(self.T.matmat(_swap_last(x)))

    def __pow__(self, p):
        if _isscalar(p):
            return _PowerLinearOperator(self, p)
        return NotImplemented

    def __add__(self, x):
        if isinstance(x, LinearOperator):
            return _SumLinearOperator(self, x)
        return NotImplemented

    def __neg__(self):
        return _ScaledLinearOperator(self, -1)

    def __sub__(self, x):
        return self.__add__(-x)

    def __repr__(self):
        dt = "unspecified dtype" if self.dtype is None else "dtype=" + str(self.dtype)
        shape = "x".join(str(dim) for dim in self.shape)
        return f"<{shape} {self.__class__.__name__} with {dt}>"

    def adjoint(self):
        """The Hermitian adjoint (conjugate transpose), a LinearOperator."""
        return self._adjoint()

    @property
    def H(self):
        """The Hermitian adjoint."""
        return self.adjoint()

    def transpose(self):
        """The transpose, a LinearOperator."""
        return self._transpose()

    @property
    def T(self):
        """The transpose."""
        return self.transpose()

    def _adjoint(self):
        return _AdjointLinearOperator(self)

    def _transpose(self):
        return _TransposedLinearOperator(self)


def _swap_last(x):
    """``x`` with its last two axes swapped (a view); 0-d and 1-d unchanged."""
    if x.ndim < 2:
        return x
    return gp.swapaxes(x, -1, -2)


def _conj(x):
    """The complex conjugate (real arrays as they are: no copy)."""
    return gp.conj(x) if x.dtype.kind == "c" else x


class _CustomLinearOperator(LinearOperator):
    """Linear operator defined in terms of user-specified operations."""

    def __init__(self, shape, matvec, rmatvec=None, matmat=None, dtype=None, rmatmat=None):
        super().__init__(dtype, shape)
        self.args = ()
        self.__matvec_impl = matvec
        self.__rmatvec_impl = rmatvec
        self.__rmatmat_impl = rmatmat
        self.__matmat_impl = matmat
        self._init_dtype()

    def _matmat(self, X):
        if self.__matmat_impl is not None:
            return self.__matmat_impl(X)
        return super()._matmat(X)

    def _matvec(self, x):
        return self.__matvec_impl(x)

    def _rmatvec(self, x):
        func = self.__rmatvec_impl
        if func is None:
            raise NotImplementedError("rmatvec is not defined")
        return self.__rmatvec_impl(x)

    def _rmatmat(self, X):
        if self.__rmatmat_impl is not None:
            return self.__rmatmat_impl(X)
        return super()._rmatmat(X)

    def _adjoint(self):
        return _CustomLinearOperator(
            shape=(*self.shape[:-2], self.shape[-1], self.shape[-2]),
            matvec=self.__rmatvec_impl,
            rmatvec=self.__matvec_impl,
            matmat=self.__rmatmat_impl,
            rmatmat=self.__matmat_impl,
            dtype=self.dtype,
        )


class _AdjointLinearOperator(LinearOperator):
    """Adjoint of arbitrary Linear Operator"""

    def __init__(self, A):
        super().__init__(A.dtype, (*A.shape[:-2], A.shape[-1], A.shape[-2]))
        self.A = A
        self.args = (A,)

    def _matvec(self, x):
        return self.A._rmatvec(x)

    def _rmatvec(self, x):
        return self.A._matvec(x)

    def _matmat(self, x):
        return self.A._rmatmat(x)

    def _rmatmat(self, x):
        return self.A._matmat(x)


class _TransposedLinearOperator(LinearOperator):
    """Transposition of arbitrary Linear Operator"""

    def __init__(self, A):
        super().__init__(A.dtype, (*A.shape[:-2], A.shape[-1], A.shape[-2]))
        self.A = A
        self.args = (A,)

    def _matvec(self, x):
        return _conj(self.A._rmatvec(_conj(x)))

    def _rmatvec(self, x):
        return _conj(self.A._matvec(_conj(x)))

    def _matmat(self, x):
        return _conj(self.A._rmatmat(_conj(x)))

    def _rmatmat(self, x):
        return _conj(self.A._matmat(_conj(x)))


def _get_dtype(operators, dtypes=None):
    """The promoted dtype of the operators' dtypes and ``dtypes`` (Python scalars weak,
    as NEP 50 and SciPy 1.18's ``xp_result_type``)."""
    dtypes = [] if dtypes is None else list(dtypes)
    for obj in operators:
        if obj is not None and hasattr(obj, "dtype"):
            dtypes.append(obj.dtype)
    return numpy.result_type(*dtypes)


class _SumLinearOperator(LinearOperator):
    """Representing ``A + B``"""

    def __init__(self, A, B):
        if not isinstance(A, LinearOperator) or not isinstance(B, LinearOperator):
            raise ValueError("both operands have to be a LinearOperator")
        *A_broadcast_dims, A_M, A_N = A.shape
        *B_broadcast_dims, B_M, B_N = B.shape
        if (A_M, A_N) != (B_M, B_N):
            raise ValueError(f"cannot add {A} and {B}: shape mismatch")
        broadcasted_dims = numpy.broadcast_shapes(tuple(A_broadcast_dims), tuple(B_broadcast_dims))
        self.args = (A, B)
        super().__init__(_get_dtype([A, B]), (*broadcasted_dims, A_M, A_N))

    def _matvec(self, x):
        return self.args[0].matvec(x) + self.args[1].matvec(x)

    def _rmatvec(self, x):
        return self.args[0].rmatvec(x) + self.args[1].rmatvec(x)

    def _rmatmat(self, x):
        return self.args[0].rmatmat(x) + self.args[1].rmatmat(x)

    def _matmat(self, x):
        return self.args[0].matmat(x) + self.args[1].matmat(x)

    def _adjoint(self):
        A, B = self.args
        return A.H + B.H


class _ProductLinearOperator(LinearOperator):
    """Representing ``A @ B``"""

    def __init__(self, A, B):
        if not isinstance(A, LinearOperator) or not isinstance(B, LinearOperator):
            raise ValueError("both operands have to be a LinearOperator")
        *A_broadcast_dims, A_M, A_N = A.shape
        *B_broadcast_dims, B_M, B_N = B.shape
        if A_N != B_M:
            raise ValueError(f"cannot multiply {A} and {B}: shape mismatch")
        broadcasted_dims = numpy.broadcast_shapes(tuple(A_broadcast_dims), tuple(B_broadcast_dims))
        super().__init__(_get_dtype([A, B]), (*broadcasted_dims, A_M, B_N))
        self.args = (A, B)

    def _matvec(self, x):
        return self.args[0].matvec(self.args[1].matvec(x))

    def _rmatvec(self, x):
        return self.args[1].rmatvec(self.args[0].rmatvec(x))

    def _rmatmat(self, x):
        return self.args[1].rmatmat(self.args[0].rmatmat(x))

    def _matmat(self, x):
        return self.args[0].matmat(self.args[1].matmat(x))

    def _adjoint(self):
        A, B = self.args
        return B.H @ A.H


class _ScaledLinearOperator(LinearOperator):
    """Representing ``alpha * A``"""

    def __init__(self, A, alpha):
        if not isinstance(A, LinearOperator):
            raise ValueError("LinearOperator expected as A")
        if not numpy.isscalar(alpha):
            raise ValueError("scalar expected as alpha")
        if isinstance(A, _ScaledLinearOperator):
            A, alpha_original = A.args
            # Not in place: the original prefactor must not change.
            alpha = alpha * alpha_original
        super().__init__(_get_dtype([A], [alpha]), A.shape)
        self.args = (A, alpha)

    def _matvec(self, x):
        return self.args[1] * self.args[0].matvec(x)

    def _rmatvec(self, x):
        return self.args[1].conjugate() * self.args[0].rmatvec(x)

    def _rmatmat(self, x):
        return self.args[1].conjugate() * self.args[0].rmatmat(x)

    def _matmat(self, x):
        return self.args[1] * self.args[0].matmat(x)

    def _adjoint(self):
        A, alpha = self.args
        return A.H * alpha.conjugate()


class _PowerLinearOperator(LinearOperator):
    """Representing ``A ** p``"""

    def __init__(self, A, p):
        if not isinstance(A, LinearOperator):
            raise ValueError("LinearOperator expected as A")
        if A.shape[-2] != A.shape[-1]:
            raise ValueError(f"square core-dimensions of LinearOperator expected, got {A!r}")
        if not _isintlike(p) or p < 0:
            raise ValueError("non-negative integer expected as p")
        super().__init__(_get_dtype([A]), A.shape)
        self.args = (A, p)

    def _power(self, fun, x):
        res = x.copy()
        for _ in range(self.args[1]):
            res = fun(res)
        return res

    def _matvec(self, x):
        return self._power(self.args[0].matvec, x)

    def _rmatvec(self, x):
        return self._power(self.args[0].rmatvec, x)

    def _rmatmat(self, x):
        return self._power(self.args[0].rmatmat, x)

    def _matmat(self, x):
        return self._power(self.args[0].matmat, x)

    def _adjoint(self):
        A, p = self.args
        return A.H**p


class MatrixLinearOperator(LinearOperator):
    """Operator defined by a matrix ``A`` (a gpupy array or a gpupyx sparse matrix)
    which implements ``@``."""

    def __init__(self, A):
        super().__init__(A.dtype, A.shape)
        self.A = A
        self.__adj = None
        self.args = (A,)

    def _matmat(self, X):
        return self.A @ X

    def _matvec(self, x):
        if x.ndim == 1:
            return self.A @ x  # a vector product (SpMV/GEMV), not a one-column matmat
        return super()._matvec(x)

    def _adjoint(self):
        if self.__adj is None:
            self.__adj = _AdjointMatrixOperator(self.A)
        return self.__adj


class _AdjointMatrixOperator(MatrixLinearOperator):
    """Representing ``A.H``, for `MatrixLinearOperator` `A`."""

    def __init__(self, A):
        if A.ndim > 2:
            A_T = gp.swapaxes(A, -1, -2)
        else:
            A_T = A.T
        if A.dtype.kind == "c":
            A_T = A_T.conj()
        super().__init__(A_T)
        self.args = (A,)  # override to ensure `self.args[0]` is accurate

    def _adjoint(self):
        return MatrixLinearOperator(self.args[0])


class IdentityOperator(LinearOperator):
    """The identity of ``shape`` (square): every product returns its input itself."""

    def __init__(self, shape, dtype=None):
        super().__init__(dtype, shape)

    def _matvec(self, x):
        return x

    def _rmatvec(self, x):
        return x

    def _rmatmat(self, x):
        return x

    def _matmat(self, x):
        return x

    def _adjoint(self):
        return self


def aslinearoperator(A):
    """``A`` as a LinearOperator: a LinearOperator itself; a gpupy array (at least 2-d,
    as SciPy's ``atleast_nd``), a NumPy array or matrix (copied to the device) or a
    ``gpupyx.scipy.sparse`` matrix wrapped as a ``MatrixLinearOperator``; a SciPy sparse
    matrix copied to the device as a ``gpupyx.scipy.sparse.csr_matrix``; an object with
    ``shape`` and ``matvec`` (and optionally ``rmatvec``, ``rmatmat``, ``dtype``). Other
    objects raise SciPy's TypeError('type not understood').

    .. seealso:: scipy.sparse.linalg.aslinearoperator
    """
    if isinstance(A, LinearOperator):
        return A
    if isinstance(A, numpy.ndarray):
        A = gp.asarray(numpy.asarray(A))
    if isinstance(A, gp.ndarray):
        if A.ndim < 2:
            A = A.reshape((1,) * (2 - A.ndim) + A.shape)
        return MatrixLinearOperator(A)
    if issparse(A):
        return MatrixLinearOperator(A)
    if is_scipy_sparse(A):
        return MatrixLinearOperator(to_device_sparse(A))
    if hasattr(A, "shape") and hasattr(A, "matvec"):
        rmatvec = getattr(A, "rmatvec", None)
        rmatmat = getattr(A, "rmatmat", None)
        dtype = getattr(A, "dtype", None)
        return LinearOperator(A.shape, A.matvec, rmatvec=rmatvec, rmatmat=rmatmat, dtype=dtype)
    raise TypeError("type not understood")
