"""Array API functions that need sorting, computed by NumPy on the host for now
(one device-to-host and one host-to-device copy). The reductions work replaces each with
GPU kernels; the results and dtypes are NumPy's, so callers see no difference but speed."""

from collections import namedtuple

import numpy

from gpupy._creation import asarray

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _host(x):
    return asarray(x).get()


def unique_values(x, /):
    return asarray(numpy.unique_values(_host(x)))


def unique_counts(x, /):
    r = numpy.unique_counts(_host(x))
    return UniqueCountsResult(asarray(r.values), asarray(r.counts))


def unique_inverse(x, /):
    r = numpy.unique_inverse(_host(x))
    return UniqueInverseResult(asarray(r.values), asarray(r.inverse_indices))


def unique_all(x, /):
    r = numpy.unique_all(_host(x))
    return UniqueAllResult(asarray(r.values), asarray(r.indices), asarray(r.inverse_indices), asarray(r.counts))


def vecdot(x1, x2, /, *, axis=-1):
    """``sum(conj(x1) * x2, axis)``."""
    return asarray(numpy.vecdot(_host(x1), _host(x2), axis=axis))


__all__ = ["unique_values", "unique_counts", "unique_inverse", "unique_all", "vecdot"]
