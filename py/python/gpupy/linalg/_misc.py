"""The rest of ``numpy.linalg``'s names, compositions of products and views:
``multi_dot`` (NumPy's optimal parenthesization), and the array API's ``cross``,
``diagonal``, ``outer`` and ``trace`` with ``numpy.linalg``'s semantics (the last two
axes, 1-D vectors only), which differ from the top-level ``gpupy`` functions of the
same names."""

import operator

import numpy

from gpupy import _gpupy
from gpupy._creation import asarray
from gpupy._linalg import dot, trace as _trace
from gpupy._manipulation import atleast_2d, moveaxis, stack
from gpupy.linalg._util import assert_2d


def multi_dot(arrays, *, out=None):
    """NumPy's ``linalg.multi_dot``: the product of the matrices in the order that costs
    the fewest scalar multiplications (NumPy's dynamic program over the chain, or its
    closed form for three), each product one ``dot``. The first argument may be a 1-D
    row vector and the last a 1-D column vector."""
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return dot(arrays[0], arrays[1], out=out)
    arrays = [asarray(a) for a in arrays]
    ndim_first, ndim_last = arrays[0].ndim, arrays[-1].ndim
    if arrays[0].ndim == 1:
        arrays[0] = atleast_2d(arrays[0])
    if arrays[-1].ndim == 1:
        arrays[-1] = atleast_2d(arrays[-1]).T
    assert_2d(*arrays)
    if n == 3:
        result = _multi_dot_three(arrays[0], arrays[1], arrays[2], out=out)
    else:
        order = _chain_order(arrays)
        result = _multi_dot(arrays, order, 0, n - 1, out=out)
    if ndim_first == 1 and ndim_last == 1:
        return result[0, 0]
    if ndim_first == 1 or ndim_last == 1:
        return result.ravel()
    return result


def _multi_dot_three(A, B, C, out=None):
    """(AB)C or A(BC), whichever costs fewer multiplications (NumPy's rule)."""
    a0, a1b0 = A.shape
    b1c0, c1 = C.shape
    cost1 = a0 * b1c0 * (a1b0 + c1)  # (AB)C
    cost2 = a1b0 * c1 * (a0 + b1c0)  # A(BC)
    if cost1 < cost2:
        return dot(dot(A, B), C, out=out)
    return dot(A, dot(B, C), out=out)


def _chain_order(arrays):
    """The matrix-chain dynamic program (Cormen et al., 15.2), on the host: ``s[i][j]``
    is where the optimal product of arrays i..j splits."""
    n = len(arrays)
    p = [a.shape[0] for a in arrays] + [arrays[-1].shape[1]]
    m = [[0.0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            m[i][j] = numpy.inf
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < m[i][j]:
                    m[i][j] = q
                    s[i][j] = k
    return s


def _multi_dot(arrays, order, i, j, out=None):
    if i == j:
        return arrays[i]
    k = order[i][j]
    return dot(_multi_dot(arrays, order, i, k), _multi_dot(arrays, order, k + 1, j), out=out)


def cross(x1, x2, /, *, axis=-1):
    """``numpy.linalg.cross``: the cross product of 3-element vectors along ``axis`` of
    each operand (broadcast against each other), in their promoted dtype."""
    x1 = asarray(x1)
    x2 = asarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, "
            f"but they are {x1.shape[axis]} and {x2.shape[axis]} dimensional instead."
        )
    a = moveaxis(x1, axis, -1)
    b = moveaxis(x2, axis, -1)
    dtype = numpy.promote_types(a.dtype, b.dtype)
    a, b = a.astype(dtype, copy=False), b.astype(dtype, copy=False)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    c0 = _gpupy.subtract(_gpupy.multiply(a1, b2), _gpupy.multiply(a2, b1))
    c1 = _gpupy.subtract(_gpupy.multiply(a2, b0), _gpupy.multiply(a0, b2))
    c2 = _gpupy.subtract(_gpupy.multiply(a0, b1), _gpupy.multiply(a1, b0))
    out = stack([c0, c1, c2], axis=-1)
    # The result's axis sits where ``axis`` points in the broadcast result (NumPy's axisc).
    nd = out.ndim
    axisc = operator.index(axis)
    if not -nd <= axisc < nd:
        raise numpy.exceptions.AxisError(axisc, nd)
    return moveaxis(out, -1, axisc) if axisc % nd != nd - 1 else out


def diagonal(x, /, *, offset=0):
    """``numpy.linalg.diagonal``: the diagonal ``offset`` of each matrix in the last two
    axes (a view)."""
    x = asarray(x)
    return x.diagonal(offset, -2, -1)


def outer(x1, x2, /):
    """``numpy.linalg.outer``: the outer product of two 1-D vectors (the top-level
    ``gpupy.outer`` flattens N-d operands; this one refuses them, as NumPy's)."""
    x1 = asarray(x1)
    x2 = asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(
            f"Input arrays must be one-dimensional, but they are x1.ndim={x1.ndim!r} and x2.ndim={x2.ndim!r}."
        )
    return _gpupy.multiply(x1[:, None], x2[None, :])


def trace(x, /, *, offset=0, dtype=None):
    """``numpy.linalg.trace``: the sum along the diagonal ``offset`` of each matrix in the
    last two axes (the top-level ``gpupy.trace`` uses the first two axes)."""
    return _trace(asarray(x), offset, axis1=-2, axis2=-1, dtype=dtype)


__all__ = ["multi_dot", "cross", "diagonal", "outer", "trace"]
