"""Building matrices (NumPy's "Building matrices" creation routines): ``diag``,
``diagflat`` and ``tri``; views and fills of the extension's diagonal, and a comparison
of two ranges for ``tri``. (``eye`` and ``identity`` are in ``_creation``.)"""

import operator

from gpupy import _gpupy, _math
from gpupy._creation import asarray, zeros
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


__all__ = ["tri", "diag", "diagflat"]
