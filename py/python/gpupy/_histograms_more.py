"""Multidimensional histograms and bin edges (NumPy's "Histograms" beyond ``histogram``):
``histogram_bin_edges``, ``histogram2d`` and ``histogramdd``.

The counting runs on the GPU: per dimension a binary search of the samples in the bin
edges (``searchsorted``, side='right', values on the last edge moved into the last bin
as NumPy does), the per-dimension bin numbers combined into one flat index, and one
``bincount`` with ``minlength`` over all bins (outlier bins included, then sliced off).
The edges are small and computed on the host as NumPy computes them, from the data's
min and max (one GPU pass and one read per dimension) or from the given edges.
Automatic bin estimators (``bins`` as a string) are not supported, as in ``histogram``.
"""

import math
import operator
import warnings

import numpy

from gpupy import _math, _reduction
from gpupy._creation import asarray
from gpupy._gpupy import ndarray
from gpupy._manipulation import atleast_2d, stack
from gpupy._scan import _bin_count, _outer_edges, bincount
from gpupy._sorting import searchsorted

__all__ = ["histogram_bin_edges", "histogram2d", "histogramdd"]

_range = range  # the functions below take NumPy's argument named range

# NumPy's automatic bin estimators (its ValueError names any other string).
_ESTIMATORS = ("stone", "auto", "doane", "fd", "rice", "scott", "sqrt", "sturges")


def _host(x):
    return x.get() if isinstance(x, ndarray) else numpy.asarray(x)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The bin edges ``histogram`` uses for ``a`` (flattened): ``bins`` equal bins over
    ``range`` (the data's min to max by default) or the given monotonic edges, as
    NumPy's ``histogram_bin_edges``; a gpupy array.

    .. seealso:: numpy.histogram_bin_edges"""
    a = asarray(a)
    if a.dtype == numpy.bool_:
        warnings.warn(f"Converting input from {a.dtype} to {numpy.uint8} for compatibility.", RuntimeWarning,
                      stacklevel=2)
        a = a.astype(numpy.uint8)
    if weights is not None:
        weights = asarray(weights)
        if weights.shape != a.shape:
            raise ValueError("weights should have the same shape as a.")
    a = a.ravel()
    if isinstance(bins, str):
        if bins not in _ESTIMATORS:
            raise ValueError(f"{bins!r} is not a valid estimator for `bins`")
        if weights is not None:
            raise TypeError("Automated estimation of the number of bins is not supported for weighted data")
        raise NotImplementedError("gpupy.histogram_bin_edges: automatic bin estimators (bins as a string) are not "
                                  "supported")
    if numpy.ndim(bins) == 0:
        n_bins = _bin_count(bins)
        first_edge, last_edge = _outer_edges(a, range)
        # The edges depend on the data only through the outer edges: NumPy computes them
        # from those (and a's dtype) on an empty stand-in of a.
        return asarray(numpy.histogram_bin_edges(numpy.empty(0, a.dtype), n_bins, range=(first_edge, last_edge)))
    if numpy.ndim(bins) == 1:
        edges = _host(bins)
        if numpy.any(edges[:-1] > edges[1:]):
            raise ValueError("`bins` must increase monotonically, when an array")
        return bins if isinstance(bins, ndarray) else asarray(edges)
    raise ValueError("`bins` must be 1d, when an array")


def _as_sample(sample):
    """NumPy's reading of ``sample``: an (N, D) array, or a sequence of D 1-d arrays."""
    shape = getattr(sample, "shape", None)
    if shape is not None and len(shape) == 2:
        return asarray(sample)
    if isinstance(sample, (list, tuple)) and any(isinstance(s, ndarray) for s in sample):
        sample = stack([asarray(s) for s in sample])
    return atleast_2d(asarray(sample)).T


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """The D-dimensional histogram of N samples (an (N, D) array or D 1-d arrays):
    ``bins`` a count, D counts or D edge arrays; ``range`` D (min, max) pairs; values on
    a last edge count in the last bin, as NumPy's ``histogramdd``. Returns the float64
    histogram and the list of D edge arrays (gpupy arrays).

    .. seealso:: numpy.histogramdd"""
    sample = _as_sample(sample)
    N, D = sample.shape
    if weights is not None:
        weights = asarray(weights)
    try:
        M = len(bins)
        if M != D:
            raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    except TypeError:
        bins = D * [bins]
    if range is None:
        range = (None,) * D
    elif len(range) != D:
        raise ValueError("range argument must have one entry per dimension")

    edges = []
    for i in _range(D):
        b = bins[i]
        if numpy.ndim(b) == 0:
            if b < 1:
                raise ValueError(f"`bins[{i}]` must be positive, when an integer")
            smin, smax = _outer_edges(sample[:, i], range[i])
            try:
                n = operator.index(b)
            except TypeError as e:
                raise TypeError(f"`bins[{i}]` must be an integer, when a scalar") from e
            edges.append(numpy.linspace(smin, smax, n + 1))
        elif numpy.ndim(b) == 1:
            e = _host(b)
            if numpy.any(e[:-1] > e[1:]):
                raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an array")
            edges.append(e)
        else:
            raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
    nbin = [len(e) + 1 for e in edges]  # an outlier bin at each end
    total = math.prod(nbin)
    if total > numpy.iinfo(numpy.intp).max:
        raise ValueError("invalid dims: array size defined by dims is larger than the maximum possible size.")

    device_edges = [asarray(e) for e in edges]
    flat = None
    stride = total
    for i, e in enumerate(device_edges):
        column = sample[:, i]
        k = searchsorted(e, column, side="right")
        # Values on the rightmost edge belong to the last bin, not the outlier bin.
        k = _math.subtract(k, _math.equal(column, e[-1]).astype(numpy.int64))
        stride //= nbin[i]
        term = _math.multiply(k, stride) if stride != 1 else k
        flat = term if flat is None else _math.add(flat, term)
    if flat is None:  # D == 0
        flat = asarray(numpy.zeros(N, numpy.int64))
    hist = bincount(flat, weights, minlength=total).reshape(tuple(nbin))
    if hist.dtype != numpy.float64:
        hist = hist.astype(numpy.float64)  # NumPy's float histogram, weights or not
    hist = hist[D * (slice(1, -1),)]
    if density:
        s = _reduction.sum(hist)
        for i, e in enumerate(edges):
            shape = [1] * D
            shape[i] = nbin[i] - 2
            hist = _math.divide(hist, asarray(numpy.diff(e).reshape(shape)))
        hist = _math.divide(hist, s)
    return hist, device_edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """The 2-d histogram of the points ``(x[i], y[i])``: ``histogramdd`` of the pair,
    as NumPy's ``histogram2d``. Returns ``(H, xedges, yedges)``.

    .. seealso:: numpy.histogram2d"""
    if len(x) != len(y):
        raise ValueError("x and y must have the same length.")
    try:
        N = len(bins)
    except TypeError:
        N = 1
    if N not in {1, 2}:
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]
