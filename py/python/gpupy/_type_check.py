"""Complex-or-real questions (NumPy's ``lib._type_check_impl``): ``iscomplex``,
``isreal``, ``iscomplexobj``, ``isrealobj``, ``real_if_close``, and ``sort_complex``
(a sort whose result is always complex)."""

import numpy

from gpupy import _math
from gpupy._creation import asarray, zeros
from gpupy._gpupy import ndarray
from gpupy._reduction import all as _all
from gpupy._sorting import sort

__all__ = ["iscomplex", "isreal", "iscomplexobj", "isrealobj", "real_if_close", "sort_complex"]


def iscomplex(x):
    """True where an element has a nonzero imaginary part (all False for real dtypes).

    .. seealso:: numpy.iscomplex"""
    ax = asarray(x)
    if ax.dtype.kind == "c":
        return _math.not_equal(ax.imag, 0)
    return zeros(ax.shape, numpy.bool_)


def isreal(x):
    """True where an element's imaginary part is zero (all True for real dtypes).

    .. seealso:: numpy.isreal"""
    ax = asarray(x)
    return _math.equal(ax.imag, 0)  # a real array's imag is zeros


def iscomplexobj(x):
    """Whether ``x``'s dtype is complex (values are not looked at): a Python bool.

    .. seealso:: numpy.iscomplexobj"""
    try:
        dtype = x.dtype
        type_ = dtype.type
    except AttributeError:
        type_ = numpy.asarray(x).dtype.type  # a host sequence or scalar: its dtype only
    return issubclass(type_, numpy.complexfloating)


def isrealobj(x):
    """``not iscomplexobj(x)``.

    .. seealso:: numpy.isrealobj"""
    return not iscomplexobj(x)


def real_if_close(a, tol=100):
    """The real part of a complex ``a`` when every imaginary part is below ``tol``
    (in units of the dtype's eps when ``tol > 1``), else ``a`` (one device-to-host read of
    the answer: the result's dtype depends on it).

    .. seealso:: numpy.real_if_close"""
    a = asarray(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = numpy.finfo(a.dtype).eps * tol
    if bool(_all(_math.less(_math.absolute(a.imag), tol))):
        a = a.real
    return a


def sort_complex(a):
    """``a`` sorted along its last axis (real part first, then imaginary), as complex:
    complex64 for int8/uint8/int16/uint16, complex128 for the other real dtypes.

    .. seealso:: numpy.sort_complex"""
    b = sort(a if isinstance(a, ndarray) else asarray(a))
    if b.dtype.kind != "c":
        return b.astype(numpy.complex64 if b.dtype.char in "bhBH" else numpy.complex128)
    return b
