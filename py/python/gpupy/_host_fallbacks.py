"""Array API functions that need scans or products, computed by NumPy on the host for now
(one device-to-host and one host-to-device copy). The reductions work replaces each with
GPU kernels; the results and dtypes are NumPy's, so callers see no difference but speed."""

import numpy

from gpupy._creation import asarray


def _host(x):
    return asarray(x).get()


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    return asarray(numpy.cumulative_sum(_host(x), axis=axis, dtype=dtype, include_initial=include_initial))


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    return asarray(numpy.cumulative_prod(_host(x), axis=axis, dtype=dtype, include_initial=include_initial))


def vecdot(x1, x2, /, *, axis=-1):
    """``sum(conj(x1) * x2, axis)``."""
    return asarray(numpy.vecdot(_host(x1), _host(x2), axis=axis))


__all__ = ["cumulative_sum", "cumulative_prod", "vecdot"]
