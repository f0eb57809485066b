"""Array API functions computed by NumPy on the host for now (one device-to-host and one
host-to-device copy): ``vecdot``, until the matrix-product work gives it a kernel. The
results and dtypes are NumPy's."""

import numpy

from gpupy._creation import asarray


def _host(x):
    return asarray(x).get()


def vecdot(x1, x2, /, *, axis=-1):
    """``sum(conj(x1) * x2, axis)``."""
    return asarray(numpy.vecdot(_host(x1), _host(x2), axis=axis))


__all__ = ["vecdot"]
