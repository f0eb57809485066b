"""Array introspection that works on gpupy arrays and on anything NumPy accepts:
``shape``, ``ndim``, ``size``, ``isscalar``, ``iterable``, ``isfortran``,
``shares_memory`` and ``may_share_memory``.

Nothing here reads array data. The memory-overlap questions are answered from each
array's device address, strides and shape: ``may_share_memory`` compares the byte
ranges the arrays span, ``shares_memory`` hands the same layouts to NumPy's exact
solver (host stand-ins that carry the device addresses and are never read). A gpupy
array never shares memory with a host object.
"""

import math

import numpy

from gpupy._gpupy import ndarray

__all__ = ["shape", "ndim", "size", "isscalar", "iterable", "isfortran", "shares_memory", "may_share_memory"]

# Data-independent, and already right for gpupy arrays (a 0-d gpupy array is no scalar
# and is not iterable, as a 0-d NumPy array).
isscalar = numpy.isscalar
iterable = numpy.iterable


def shape(a):
    """The shape of ``a`` (of ``numpy.asarray(a)`` for host objects).

    .. seealso:: numpy.shape"""
    return a.shape if isinstance(a, ndarray) else numpy.shape(a)


def ndim(a):
    """The number of dimensions of ``a``.

    .. seealso:: numpy.ndim"""
    return a.ndim if isinstance(a, ndarray) else numpy.ndim(a)


def size(a, axis=None):
    """The number of elements of ``a``, or along ``axis`` (an int or a tuple).

    .. seealso:: numpy.size"""
    if not isinstance(a, ndarray):
        return numpy.size(a, axis)
    if axis is None:
        return a.size
    axes = numpy.lib.array_utils.normalize_axis_tuple(axis, a.ndim)
    return math.prod(a.shape[ax] for ax in axes)


def isfortran(a):
    """True when ``a`` is Fortran-contiguous and not C-contiguous.

    .. seealso:: numpy.isfortran"""
    if isinstance(a, ndarray):
        return bool(a.flags.f_contiguous and not a.flags.c_contiguous)
    return numpy.isfortran(a)


class _Layout:
    """A host stand-in for a gpupy array's memory layout: NumPy's array interface with
    the device address; NumPy builds a view on it for its overlap solver and never
    dereferences it."""

    def __init__(self, a):
        self.__array_interface__ = {
            "shape": a.shape,
            "typestr": f"|V{a.itemsize}",
            "data": (a.data.ptr, False),
            "strides": a.strides,
            "version": 3,
        }


def _overlap_question(a, b, max_work, numpy_func):
    ga, gb = isinstance(a, ndarray), isinstance(b, ndarray)
    if not (ga or gb):
        return numpy_func(a, b, max_work=max_work)
    if not (ga and gb):
        return False  # device memory and host memory are disjoint
    if a.size == 0 or b.size == 0:
        return False
    return numpy_func(numpy.asarray(_Layout(a)), numpy.asarray(_Layout(b)), max_work=max_work)


def shares_memory(a, b, /, max_work=-1):
    """Whether ``a`` and ``b`` have an element's bytes in common (exact by default;
    ``max_work`` bounds the search as in NumPy, which raises ``TooHardError`` past it).

    .. seealso:: numpy.shares_memory"""
    return _overlap_question(a, b, max_work, numpy.shares_memory)


def may_share_memory(a, b, /, max_work=0):
    """Whether the byte ranges of ``a`` and ``b`` overlap (``max_work=0``: the bounds
    only, so a True may be a false positive).

    .. seealso:: numpy.may_share_memory"""
    return _overlap_question(a, b, max_work, numpy.may_share_memory)
