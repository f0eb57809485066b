"""Array creation (NumPy's "Array creation routines") and transfers to and from the host."""

import operator

import numpy

from gpupy import _gpupy
from gpupy._gpupy import ndarray


def _shape(shape):
    """A shape as NumPy takes it: an int or a sequence of ints, none negative."""
    if isinstance(shape, (list, tuple)):
        dims = tuple(operator.index(n) for n in shape)
    else:
        dims = (operator.index(shape),)
    if any(n < 0 for n in dims):
        raise ValueError("negative dimensions are not allowed")
    return list(dims)


def array(obj, dtype=None, copy=True):
    """A new device array with the values of ``obj`` (NumPy array, list, scalar or gpupy array)."""
    if isinstance(obj, ndarray):
        if dtype is None or numpy.dtype(dtype) == obj.dtype:
            return obj.copy() if copy else obj
        return obj.astype(dtype)
    return _gpupy._from_host(obj, dtype)


def asarray(a, dtype=None):
    """``a`` as a device array; a gpupy array of the requested dtype is returned as is."""
    if isinstance(a, ndarray):
        return a if dtype is None else a.astype(dtype, copy=False)
    return _gpupy._from_host(a, dtype)


def asnumpy(a, stream=None, order="C", out=None):
    """A NumPy array with the values of ``a`` (a device copy for gpupy arrays)."""
    if isinstance(a, ndarray):
        return a.get(stream=stream, order=order, out=out)
    return numpy.asarray(a, order=order)


def empty(shape, dtype=float):
    """A new array of ``shape`` whose values are whatever the memory held."""
    return _gpupy._empty(_shape(shape), dtype)


def zeros(shape, dtype=float):
    dt = numpy.dtype(dtype)
    return _gpupy._full(_shape(shape), dt, bytes(dt.itemsize))


def ones(shape, dtype=float):
    return full(shape, 1, dtype)


def full(shape, fill_value, dtype=None):
    """A new array of ``shape`` filled with ``fill_value``; NumPy picks the dtype when none is given."""
    if isinstance(fill_value, ndarray):
        fill_value = fill_value.get()
    value = numpy.array(fill_value, dtype=dtype)
    if value.ndim != 0:
        raise ValueError("gpupy.full takes a scalar fill_value so far")
    return _gpupy._full(_shape(shape), value.dtype, value.tobytes())
