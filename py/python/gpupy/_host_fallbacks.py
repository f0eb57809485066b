"""Array API functions that need sorting or scans, computed by NumPy on the host for now
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


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    return asarray(numpy.cumulative_sum(_host(x), axis=axis, dtype=dtype, include_initial=include_initial))


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    return asarray(numpy.cumulative_prod(_host(x), axis=axis, dtype=dtype, include_initial=include_initial))


__all__ = ["unique_values", "unique_counts", "unique_inverse", "unique_all", "cumulative_sum", "cumulative_prod"]
