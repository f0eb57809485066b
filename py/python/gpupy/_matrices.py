"""Building matrices (NumPy's "Building matrices" creation routines): ``diag``,
``diagflat``, ``tri``, ``tril`` and ``triu``, and the triangle index routines
``tril_indices``, ``triu_indices`` and their ``*_from`` forms; views and fills of the
extension's diagonal, a comparison of two ranges for ``tri``, and ``tri``'s mask with
``where``/``nonzero`` for the triangles (no kernels of their own). (``eye`` and
``identity`` are in ``_creation``.)"""

import operator

from gpupy import _gpupy, _math
from gpupy._creation import asarray, zeros
from gpupy._indexing import nonzero, where
from gpupy._ranges import arange


def tri(N, M=None, k=0, dtype=float):
    """Ones at and below diagonal ``k``, zeros above."""
    if M is None:
        M = N
    k = operator.index(k)
    rows = arange(N).reshape(-1, 1)
    cols = arange(-k, M - k)
    return _math.greater_equal(rows, cols).astype(dtype, copy=False)


def diag(v, k=0):
    """The diagonal ``k`` of a 2-D array (a view), or a 2-D array with ``v`` on it."""
    v = asarray(v)
    k = operator.index(k)
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        res = zeros((n, n), v.dtype)
        _gpupy._copyto(_gpupy._diagonal(res, k), v)
        return res
    if v.ndim == 2:
        return _gpupy._diagonal(v, k)
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0):
    return diag(asarray(v).ravel(), k)


def tril(m, k=0):
    """``m`` with the entries above diagonal ``k`` of its last two axes zeroed (NumPy's
    ``tril``: a stack of matrices is handled matrix by matrix; a 1-D ``m`` is taken as
    the rows of a square matrix, each the same vector)."""
    m = asarray(m)
    mask = tri(*m.shape[-2:], k=k, dtype=bool)
    return where(mask, m, zeros(1, m.dtype))


def triu(m, k=0):
    """``m`` with the entries below diagonal ``k`` of its last two axes zeroed (NumPy's
    ``triu``)."""
    m = asarray(m)
    mask = tri(*m.shape[-2:], k=k - 1, dtype=bool)
    return where(mask, zeros(1, m.dtype), m)


def tril_indices(n, k=0, m=None):
    """The (row, column) indices of the lower triangle (on and below diagonal ``k``) of an
    ``n`` x ``m`` matrix, in C order: the nonzero positions of ``tri``'s mask."""
    return nonzero(tri(n, m, k=k, dtype=bool))


def triu_indices(n, k=0, m=None):
    """The (row, column) indices of the upper triangle (on and above diagonal ``k``) of an
    ``n`` x ``m`` matrix, in C order."""
    return nonzero(_math.logical_not(tri(n, m, k=k - 1, dtype=bool)))


def tril_indices_from(arr, k=0):
    """``tril_indices`` for the shape of the 2-D ``arr`` (only its shape is read)."""
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def triu_indices_from(arr, k=0):
    """``triu_indices`` for the shape of the 2-D ``arr`` (only its shape is read)."""
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1])


__all__ = ["tri", "diag", "diagflat", "tril", "triu", "tril_indices", "triu_indices", "tril_indices_from",
           "triu_indices_from"]
