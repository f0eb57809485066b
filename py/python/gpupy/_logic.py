"""Truth tests over whole arrays (NumPy's ``any``/``all``), for ``axis=None``.

These count the true elements through the float64 ``sum`` kernel; the reductions work
replaces them with a reduction engine that also takes axes."""

import numpy

from gpupy._creation import asarray


def _count_true(a):
    a = asarray(a)
    # float64 counts exactly up to 2**53 elements.
    return a.astype(numpy.bool_).astype(numpy.float64).sum()


def any(a, axis=None, out=None, keepdims=False):
    """Whether any element is true, as a 0-d bool array (CuPy returns arrays too)."""
    if axis is not None or out is not None or keepdims:
        raise NotImplementedError("gpupy.any supports the whole array (axis=None) so far")
    return _count_true(a) > 0


def all(a, axis=None, out=None, keepdims=False):
    """Whether every element is true, as a 0-d bool array."""
    if axis is not None or out is not None or keepdims:
        raise NotImplementedError("gpupy.all supports the whole array (axis=None) so far")
    a = asarray(a)
    return _count_true(a) == a.size
