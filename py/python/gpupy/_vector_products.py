"""Vector products of the top-level namespace: NumPy's ``cross`` (``axisa``, ``axisb``,
``axisc``; 2-vectors as the installed NumPy takes them: deprecated by NumPy 2.0, refused
since 2.5) and NumPy 2.2's gufuncs
``matvec`` (``(m,n),(n)->(m)``) and ``vecmat`` (``(n),(n,m)->(m)``, the vector
conjugated), as products through ``matmul``."""

import warnings

import numpy

from gpupy import _math
from gpupy._creation import asarray, empty
from gpupy._manipulation import _normalize_axis, moveaxis

__all__ = ["cross", "matvec", "vecmat"]

# NumPy 2.5 removed ``cross``'s deprecated 2-vectors (its error names both lengths).
_CROSS_TAKES_2_VECTORS = numpy.lib.NumpyVersion(numpy.__version__) < "2.5.0rc1"


def _axis_index(axis, ndim, prefix):
    try:
        return _normalize_axis(axis, ndim)
    except numpy.exceptions.AxisError:
        raise numpy.exceptions.AxisError(axis, ndim, msg_prefix=prefix) from None


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of (arrays of) 3-vectors along ``axisa``/``axisb``, the result's
    vectors along ``axisc`` (``axis`` sets all three). With a NumPy before 2.5, 2-vectors
    count as having a zero third component (deprecated; two 2-vectors give the z
    component only); NumPy 2.5 and later refuse them, and so does gpupy then.

    .. seealso:: numpy.cross"""
    if axis is not None:
        axisa, axisb, axisc = (axis,) * 3
    a = asarray(a)
    b = asarray(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    axisa = _axis_index(axisa, a.ndim, "axisa")
    axisb = _axis_index(axisb, b.ndim, "axisb")
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    if not _CROSS_TAKES_2_VECTORS and (a.shape[-1] != 3 or b.shape[-1] != 3):
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, "
            f"but they are {a.shape[-1]} and {b.shape[-1]} dimensional instead."
        )
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if a.shape[-1] == 2 or b.shape[-1] == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)", DeprecationWarning, stacklevel=2)
    shape = numpy.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    if a.shape[-1] == 3 or b.shape[-1] == 3:
        shape += (3,)
        axisc = _axis_index(axisc, len(shape), "axisc")
    dtype = numpy.promote_types(a.dtype, b.dtype)
    a = a.astype(dtype, copy=False)
    b = b.astype(dtype, copy=False)
    a0, a1 = a[..., 0], a[..., 1]
    b0, b1 = b[..., 0], b[..., 1]
    mul, sub = _math.multiply, _math.subtract
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        cp = empty(shape, dtype)
        cp[...] = sub(mul(a0, b1), mul(a1, b0))
        return cp
    cp = empty(shape, dtype)
    if a.shape[-1] == 3 and b.shape[-1] == 3:
        a2, b2 = a[..., 2], b[..., 2]
        cp[..., 0] = sub(mul(a1, b2), mul(a2, b1))
        cp[..., 1] = sub(mul(a2, b0), mul(a0, b2))
    elif a.shape[-1] == 2:  # a2 = 0
        b2 = b[..., 2]
        cp[..., 0] = mul(a1, b2)
        cp[..., 1] = _math.negative(mul(a0, b2))
    else:  # b2 = 0
        a2 = a[..., 2]
        cp[..., 0] = _math.negative(mul(a2, b1))
        cp[..., 1] = mul(a2, b0)
    cp[..., 2] = sub(mul(a0, b1), mul(a1, b0))
    return moveaxis(cp, -1, axisc)


def _gufunc_dims(name, x, need, operand, signature):
    if x.ndim < need:
        raise ValueError(f"{name}: Input operand {operand} does not have enough dimensions (has {x.ndim}, "
                         f"gufunc core with signature {signature} requires {need})")


def _gufunc_operands(name, x1, x2, signature, core1, core2, contracted2):
    """``x1`` and ``x2`` as gpupy arrays with at least ``core1`` and ``core2`` dimensions,
    ``x1``'s last axis as long as ``x2``'s axis ``contracted2``; NumPy's gufunc errors."""
    x1, x2 = asarray(x1), asarray(x2)
    _gufunc_dims(name, x1, core1, 0, signature)
    _gufunc_dims(name, x2, core2, 1, signature)
    if x1.shape[-1] != x2.shape[contracted2]:
        raise ValueError(f"{name}: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                         f"{signature} (size {x2.shape[contracted2]} is different from {x1.shape[-1]})")
    return x1, x2


def _to_out(r, out):
    """``r``, or ``r`` written into ``out`` and ``out`` returned (a gufunc's ``out=``)."""
    if out is None:
        return r
    out[...] = r
    return out


def matvec(x1, x2, /, out=None):
    """Matrix-vector products over the last two axes of ``x1`` and the last of ``x2``
    (broadcast over the rest), as NumPy's ``matvec`` gufunc.

    .. seealso:: numpy.matvec"""
    x1, x2 = _gufunc_operands("matvec", x1, x2, "(m,n),(n)->(m)", 2, 1, -1)
    return _to_out(_math.matmul(x1, x2[..., None])[..., 0], out)


def vecmat(x1, x2, /, out=None):
    """Vector-matrix products ``conj(x1) @ x2`` over the last axis of ``x1`` and the last
    two of ``x2`` (broadcast over the rest), as NumPy's ``vecmat`` gufunc.

    .. seealso:: numpy.vecmat"""
    x1, x2 = _gufunc_operands("vecmat", x1, x2, "(n),(n,m)->(m)", 1, 2, -2)
    if x1.dtype.kind == "c":
        x1 = _math.conjugate(x1)
    return _to_out(_math.matmul(x1[..., None, :], x2)[..., 0, :], out)
