"""NumPy functions that depend only on shapes and dtypes: ``diagonal`` (a view),
``broadcast`` (the broadcast shape of several arrays) and ``einsum_path`` (the order of
an ``einsum``'s contractions).

``broadcast`` and ``einsum_path`` hand the shape logic to NumPy on host stand-ins:
zero-stride views (``numpy.broadcast_to`` of one empty element) with each gpupy array's
shape and dtype, so no array data is read or copied and no memory is used. NumPy's
``broadcast`` also iterates over the broadcast elements as tuples of Python scalars;
gpupy's does not (each element would be a device read): use
``numpy.broadcast(*map(gpupy.asnumpy, arrays))`` for that.
"""

import numpy

from gpupy._creation import asarray
from gpupy._gpupy import ndarray

__all__ = ["diagonal", "broadcast", "einsum_path"]


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal with ``offset`` of the 2-d subarrays spanned by ``axis1`` and
    ``axis2``, as the last axis of a view (``ndarray.diagonal``; NumPy's view is
    read-only, gpupy's writable).

    .. seealso:: numpy.diagonal"""
    return asarray(a).diagonal(offset, axis1, axis2)


def _stand_in(x):
    """A zero-stride host array with ``x``'s shape and dtype (no data is read)."""
    if isinstance(x, ndarray):
        return numpy.broadcast_to(numpy.empty((), dtype=x.dtype), tuple(x.shape))
    return x


class broadcast:
    """The result of broadcasting the arguments (gpupy arrays, array-likes or other
    ``broadcast`` objects) against one another, as NumPy's ``broadcast``: ``shape``,
    ``ndim`` (``nd``), ``size``, ``numiter``, ``index`` and ``reset()``. Unlike NumPy's
    it does not iterate over the elements (see the module's docstring).

    .. seealso:: numpy.broadcast"""

    def __init__(self, *args):
        host = [a._host if isinstance(a, broadcast) else _stand_in(a) for a in args]
        self._host = numpy.broadcast(*host)

    @property
    def shape(self):
        return self._host.shape

    @property
    def ndim(self):
        return self._host.ndim

    @property
    def nd(self):
        return self._host.ndim

    @property
    def size(self):
        return self._host.size

    @property
    def numiter(self):
        return self._host.numiter

    @property
    def index(self):
        return self._host.index

    def reset(self):
        """Resets the (unused) iteration position to the start, as NumPy's."""
        self._host.reset()

    def __iter__(self):
        raise TypeError("gpupy.broadcast does not iterate over elements (each would be a device read); use "
                        "numpy.broadcast(*map(gpupy.asnumpy, arrays))")

    def __repr__(self):
        return f"<gpupy.broadcast shape={self.shape}>"


def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """The contraction order NumPy's ``einsum_path`` finds for these operands, and its
    report: computed by NumPy from the shapes alone (gpupy arrays become data-free host
    stand-ins). gpupy's ``einsum`` accepts the path as ``optimize=`` (it contracts left
    to right whatever the path says).

    .. seealso:: numpy.einsum_path"""
    return numpy.einsum_path(*[_stand_in(x) for x in operands], optimize=optimize, einsum_call=einsum_call)
