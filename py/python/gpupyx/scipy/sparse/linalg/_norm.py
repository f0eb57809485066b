"""``norm`` of a sparse matrix: SciPy 1.18's ``scipy.sparse.linalg.norm`` (its orders,
axes, checks and messages) on the device.

SciPy computes every norm of the canonical matrix (duplicate entries summed first:
``abs`` and ``power`` act on ``_deduped_data``), so this module takes the matrix's
canonical entries once -- ``x.tocsr().copy()``, ``sum_duplicates()``, ``tocoo()``: row
and column indices and values -- and reduces them with gpupy operations: sums per row
or column by ``bincount`` with weights, maxima and minima by ``maximum.at`` and
``minimum.at`` (a row or column with fewer stored entries than its length also holds a
zero, which counts for the minimum). Orders 1, inf, -1, -inf, 2 and the p-norms
compute in float64 for real inputs (SciPy 1.18 casts a matrix that casts safely to
float first) and in the real dtype of complex ones; the Frobenius norm in the data's
own precision. ``ord=2`` for a matrix is ``svds(x, k=1)``'s singular value, as SciPy's;
``ord=-2`` raises NotImplementedError, as SciPy's.

Results are gpupy arrays (0-d for a matrix norm), as CuPy's, where SciPy returns
NumPy scalars and arrays; a vector norm along an axis is 1-d (SciPy returns an
``np.matrix`` row for a p-norm of an ``spmatrix``).
"""

import numpy

import gpupy as gp
from gpupyx.scipy.sparse.linalg._eigen import svds
from gpupyx.scipy.sparse.linalg._sparse_access import issparse

__all__ = ["norm"]


class _Entries:
    """The canonical entries of a sparse matrix: ``row``, ``col``, ``data`` (device)."""

    def __init__(self, x):
        c = x.tocsr().copy()
        c.sum_duplicates()
        coo = c.tocoo()
        self.shape = tuple(x.shape)
        self.row, self.col, self.data = coo.row, coo.col, coo.data

    def abs(self):
        """``|data|``, in float64 when the matrix casts safely to float (SciPy 1.18)."""
        a = gp.absolute(self.data)
        if numpy.can_cast(self.data.dtype, float):
            a = a.astype(numpy.float64)
        return a

    def _ids(self, axis):
        """The index each entry reduces into along ``axis`` (0: columns, 1: rows), and
        the number of such lines."""
        return (self.col, self.shape[1]) if axis == 0 else (self.row, self.shape[0])

    def sum(self, values, axis):
        """Per-line sums of ``values`` (real): over axis 0, one per column."""
        ids, count = self._ids(axis)
        return gp.bincount(ids, weights=values, minlength=count).astype(values.dtype)

    def max(self, values, axis):
        """Per-line maxima of ``values`` (non-negative) with the implicit zeros."""
        ids, count = self._ids(axis)
        out = gp.zeros(count, dtype=values.dtype)
        gp.maximum.at(out, ids, values)
        return out

    def min(self, values, axis):
        """Per-line minima of ``values``, an implicit zero counting where a line has
        fewer stored entries than its length."""
        ids, count = self._ids(axis)
        length = self.shape[axis]
        out = gp.full(count, numpy.inf, dtype=values.dtype)
        gp.minimum.at(out, ids, values)
        stored = gp.bincount(ids, minlength=count)
        return gp.where(stored < length, values.dtype.type(0), out)

    def count_nonzero(self, axis):
        """Nonzero stored entries per line."""
        ids, count = self._ids(axis)
        nonzero = gp.not_equal(self.data, 0)
        return gp.bincount(ids, weights=nonzero.astype(numpy.float64), minlength=count).astype(numpy.intp)


def _frobenius(x):
    return gp.linalg.norm(_Entries(x).data)


def norm(x, ord=None, axis=None):
    """The norm of a sparse matrix ``x`` (a ``gpupyx.scipy.sparse`` matrix or array).

    Matrix norms (``axis`` None or a pair): ``ord`` None/'fro' (Frobenius, the
    default), inf (max row sum of ``|x|``), -inf (min row sum), 1 (max column sum), -1
    (min column sum), 2 (largest singular value, via ``svds``). Vector norms along one
    ``axis``: ``ord`` None/2, inf, -inf, 0 (nonzero count), 1, or any p. A 0-d gpupy
    array for a matrix norm, a 1-d one along an axis.

    .. seealso:: scipy.sparse.linalg.norm
    """
    if not issparse(x):
        raise TypeError("input is not sparse. use numpy.linalg.norm")

    # Check the default case first and handle it immediately.
    if axis is None and ord in (None, "fro", "f"):
        return _frobenius(x)

    if axis is None:
        axis = (0, 1)
    elif not isinstance(axis, tuple):
        msg = "'axis' must be None, an integer or a tuple of integers"
        try:
            int_axis = int(axis)
        except TypeError as e:
            raise TypeError(msg) from e
        if axis != int_axis:
            raise TypeError(msg)
        axis = (int_axis,)

    nd = 2
    if len(axis) == 2:
        row_axis, col_axis = axis
        if not (-nd <= row_axis < nd and -nd <= col_axis < nd):
            raise ValueError(f"Invalid axis {axis!r} for an array with shape {x.shape!r}")
        if row_axis % nd == col_axis % nd:
            raise ValueError("Duplicate axes given.")
        if ord == 2:
            _, s, _ = svds(x, k=1, solver="arpack", rng=None)
            return s[0]
        if ord == -2:
            raise NotImplementedError
        if ord in (None, "f", "fro"):
            # The axis order does not matter for this norm.
            return _frobenius(x)
        e = _Entries(x)
        a = e.abs()
        if ord == 1:
            return gp.max(e.sum(a, row_axis % nd))
        elif ord == numpy.inf:
            return gp.max(e.sum(a, col_axis % nd))
        elif ord == -1:
            return gp.min(e.sum(a, row_axis % nd))
        elif ord == -numpy.inf:
            return gp.min(e.sum(a, col_axis % nd))
        raise ValueError("Invalid norm order for matrices.")
    elif len(axis) == 1:
        (a_,) = axis
        if not (-nd <= a_ < nd):
            raise ValueError(f"Invalid axis {axis!r} for an array with shape {x.shape!r}")
        a_ %= nd
        e = _Entries(x)
        if ord == 0:
            return e.count_nonzero(a_)
        a = e.abs()
        if ord == numpy.inf:
            return e.max(a, a_)
        if ord == -numpy.inf:
            return e.min(a, a_)
        if ord == 1:
            return e.sum(a, a_)
        if ord in (2, None):
            return gp.sqrt(e.sum(a * a, a_))
        try:
            ord + 1
        except TypeError as err:
            raise ValueError("Invalid norm order for vectors.") from err
        return gp.power(e.sum(gp.power(a, ord), a_), 1 / ord)
    raise ValueError("Improper number of dimensions to norm.")
