"""Scans and counting (NumPy's "Sums, products, differences" and "Histograms"):
``cumsum``, ``cumprod``, ``nancumsum``, ``nancumprod``, ``cumulative_sum``,
``cumulative_prod``, ``diff``, ``bincount`` and ``histogram``.

The scans and the counting run as Rust kernels (``kernels/src/scan/``,
``kernels/src/histogram/``); this module resolves NumPy's argument rules and dtypes
(NumPy itself answers every dtype question, on empty arrays) and composes ``diff`` and
the density normalization from existing array operations.
"""

import operator
import warnings

import numpy

from gpupy import _gpupy, _methods
from gpupy._creation import asarray, empty, full, zeros
from gpupy._gpupy import ndarray
from gpupy._indexing import where
from gpupy._manipulation import _normalize_axis, broadcast_to, concatenate

_NUMPY_SCAN = {"sum": numpy.cumsum, "prod": numpy.cumprod}
_IDENTITY = {"sum": 0, "prod": 1}


def _result_dtype(op, dtype, in_dtype):
    """The dtype NumPy's accumulate gives (int64 for bool and signed integers, uint64 for
    unsigned, the input's own otherwise, or ``dtype``), asked of NumPy on one element."""
    return _NUMPY_SCAN[op](numpy.zeros(1, in_dtype), dtype=dtype).dtype


def _check_out(out, shape):
    if not isinstance(out, ndarray):
        raise TypeError("out must be a gpupy.ndarray")
    if tuple(out.shape) != tuple(shape):
        raise ValueError("provided out is the wrong size for the accumulation.")


def _accumulate(op, nan, a, axis, dtype, out):
    a = asarray(a)
    if axis is None:
        a = a.ravel()
        axis = 0
    elif a.ndim == 0:
        # NumPy scans a 0-d array as one element along axis 0 (or -1).
        a = a.reshape(1)
    axis = _normalize_axis(axis, a.ndim)
    res = _result_dtype(op, dtype, a.dtype)
    if nan and a.dtype.kind in "fc" and res.kind not in "fc":
        # NumPy replaces NaN before converting to a non-float result dtype.
        a = where(_gpupy.isnan(a), _IDENTITY[op], a).astype(a.dtype)
        nan = False
    if out is not None:
        _check_out(out, a.shape)
        if out.dtype == res:
            _gpupy._scan_into(a, axis, op, nan, out)
            return out
    r = _gpupy._scan(a, axis, op, nan, res)
    if out is None:
        return r
    # NumPy computes in the resolved dtype, then casts into out.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
        out[...] = r
    return out


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along ``axis`` (the flattened array when None), as ``numpy.cumsum``.
    Integers and bool accumulate in int64 (unsigned in uint64), float32 in float64
    internally; the result rounds once per element."""
    return _accumulate("sum", False, a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product along ``axis``, as ``numpy.cumprod``."""
    return _accumulate("prod", False, a, axis, dtype, out)


def nancumsum(a, axis=None, dtype=None, out=None):
    """``cumsum`` with NaN counted as zero, as ``numpy.nancumsum``."""
    return _accumulate("sum", True, a, axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """``cumprod`` with NaN counted as one, as ``numpy.nancumprod``."""
    return _accumulate("prod", True, a, axis, dtype, out)


def _cumulative(op, x, axis, dtype, out, include_initial):
    x = asarray(x)
    if x.ndim == 0:
        x = x.reshape(1)
    if axis is None:
        if x.ndim >= 2:
            raise ValueError("For arrays which have more than one dimension ``axis`` argument is required.")
        axis = 0
    axis = _normalize_axis(axis, x.ndim)
    if not include_initial:
        return _accumulate(op, False, x, axis, dtype, out)
    res = _result_dtype(op, dtype, x.dtype)
    shape = list(x.shape)
    shape[axis] += 1
    if out is not None:
        _check_out(out, shape)
    r = out if out is not None and out.dtype == res else empty(tuple(shape), res)
    head = (slice(None),) * axis
    r[head + (0,)] = _IDENTITY[op]
    _gpupy._scan_into(x, axis, op, False, r[head + (slice(1, None),)])
    if out is not None and r is not out:
        out[...] = r
        return out
    return r


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """The array API's cumulative sum (``numpy.cumulative_sum``): ``axis`` is required
    for more than one dimension; ``include_initial`` prepends the zero."""
    return _cumulative("sum", x, axis, dtype, out, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """The array API's cumulative product (``numpy.cumulative_prod``)."""
    return _cumulative("prod", x, axis, dtype, out, include_initial)


_NOVALUE = object()


def diff(a, n=1, axis=-1, prepend=_NOVALUE, append=_NOVALUE):
    """The ``n``-th discrete difference along ``axis``, as ``numpy.diff``: slices and
    ``subtract`` (``not_equal`` for bool), with ``prepend``/``append`` joined first."""
    if n == 0:
        return asarray(a)
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    a = asarray(a)
    nd = a.ndim
    if nd == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _normalize_axis(axis, nd)
    combined = []
    for value, first in ((prepend, True), (append, False)):
        if value is _NOVALUE:
            continue
        value = asarray(value)
        if value.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            value = broadcast_to(value, tuple(shape))
        combined.append((first, value))
    if combined:
        parts = [v for first, v in combined if first] + [a] + [v for first, v in combined if not first]
        a = concatenate(parts, axis=axis)
    head = (slice(None),) * axis
    lower, upper = head + (slice(None, -1),), head + (slice(1, None),)
    op = _gpupy.not_equal if a.dtype == numpy.bool_ else _gpupy.subtract
    for _ in range(n):
        a = op(a[upper], a[lower])
    return a


# ---------------------------------------------------------------------------------------
# Counting


def bincount(x, weights=None, minlength=0):
    """Occurrences of each value of a 1-D non-negative integer array (sums of ``weights``
    when given), as ``numpy.bincount``: int64 counts or float64 sums, at least
    ``minlength`` long."""
    if minlength is None:
        raise TypeError("use 0 instead of None for minlength")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    x = asarray(x)
    if weights is not None:
        weights = asarray(weights)
    if x.ndim == 1 and x.size == 0 and x.dtype.kind in "biu" and (weights is None or weights.shape == x.shape):
        # NumPy returns int64 zeros for empty input, weights or not.
        return zeros(minlength, dtype=numpy.int64)
    return _gpupy._bincount(x, weights, minlength)


def _unsigned_subtract(a, b):
    """NumPy's histogram helper: ``a - b`` for ``a >= b``, in the unsigned type of a signed
    integer result so the difference cannot overflow."""
    signed_to_unsigned = {
        numpy.byte: numpy.ubyte,
        numpy.short: numpy.ushort,
        numpy.intc: numpy.uintc,
        numpy.int_: numpy.uint,
        numpy.longlong: numpy.ulonglong,
    }
    dt = numpy.result_type(a, b)
    try:
        unsigned_dt = signed_to_unsigned[dt.type]
    except KeyError:
        return numpy.subtract(a, b, dtype=dt)
    return numpy.subtract(numpy.asarray(a, dtype=dt), numpy.asarray(b, dtype=dt), casting="unsafe", dtype=unsigned_dt)


def _outer_edges(a, range):
    """NumPy's ``_get_outer_edges``: the range, or the data's min and max (found by one
    GPU pass) as scalars of the data's dtype, widened by 0.5 when equal."""
    if range is not None:
        first_edge, last_edge = range
        if first_edge > last_edge:
            raise ValueError("max must be larger than min in range parameter.")
        if not (numpy.isfinite(first_edge) and numpy.isfinite(last_edge)):
            raise ValueError(f"supplied range of [{first_edge}, {last_edge}] is not finite")
    elif a.size == 0:
        first_edge, last_edge = 0, 1
    else:
        if a.dtype == numpy.uint64:
            # The min/max pass reads int64: flip the sign bit (an order-preserving map).
            lo, hi, _ = _gpupy._minmax(_gpupy.bitwise_xor(a, numpy.uint64(1 << 63)).view(numpy.int64))
            lo, hi, has_nan = lo + (1 << 63), hi + (1 << 63), False
        else:
            lo, hi, has_nan = _gpupy._minmax(a)
        if has_nan:
            lo = hi = numpy.nan
        first_edge, last_edge = a.dtype.type(lo), a.dtype.type(hi)
        if not (numpy.isfinite(first_edge) and numpy.isfinite(last_edge)):
            raise ValueError(f"autodetected range of [{first_edge}, {last_edge}] is not finite")
    if first_edge == last_edge:
        first_edge = first_edge - 0.5
        last_edge = last_edge + 0.5
    return first_edge, last_edge


def _as_weights(weights, a):
    """(float64 device weights or None, NumPy's result dtype of the histogram)."""
    if weights is None:
        return None, numpy.dtype(numpy.intp)
    weights = asarray(weights)
    if weights.shape != a.shape:
        raise ValueError("weights should have the same shape as a.")
    return weights.ravel(), weights.dtype


def _weighted_counts(kernel, weights, ntype):
    """Runs ``kernel(w)`` on float64 weights (real and imaginary parts separately for
    complex weights) and converts the sums to ``ntype``, as NumPy's bincount-based path."""
    if weights is None:
        return kernel(None)
    if ntype.kind == "c":
        re = kernel(weights.real.astype(numpy.float64))
        im = kernel(weights.imag.astype(numpy.float64))
        n = empty(re.shape, ntype)
        n.real[...] = re
        n.imag[...] = im
        return n
    return kernel(weights.astype(numpy.float64)).astype(ntype)


def histogram(a, bins=10, range=None, density=None, weights=None):
    """The histogram of ``a`` (flattened), as ``numpy.histogram``: ``bins`` as a count of
    equal bins over ``range`` (the data's min to max by default) or as monotonic edges;
    NumPy's bin of every value, values on the last edge in the last bin. Returns
    ``(hist, bin_edges)`` as gpupy arrays."""
    a = asarray(a)
    if a.dtype == numpy.bool_:
        warnings.warn(f"Converting input from {a.dtype} to {numpy.uint8} for compatibility.", RuntimeWarning, stacklevel=2)
        a = a.astype(numpy.uint8)
    if a.dtype.kind == "c":
        raise TypeError("gpupy.histogram does not support complex input")
    weights, ntype = _as_weights(weights, a)
    a = a.ravel()

    if isinstance(bins, str):
        raise NotImplementedError("gpupy.histogram: automatic bin estimators (bins as a string) are not supported")
    if numpy.ndim(bins) == 0:
        hist, bin_edges = _uniform(a, _bin_count(bins), range, weights, ntype)
    elif numpy.ndim(bins) == 1:
        hist, bin_edges = _explicit(a, bins, weights, ntype)
    else:
        raise ValueError("`bins` must be 1d, when an array")

    if density:
        db = asarray(numpy.array(numpy.diff(bin_edges), float))
        total = hist.astype(numpy.float64).sum() if hist.dtype.kind in "biu" else hist.sum()
        return hist / db / total, asarray(bin_edges)
    return hist, asarray(bin_edges)


def _bin_count(bins):
    """A scalar ``bins`` as the number of equal bins, with NumPy's errors for a
    non-integer or non-positive count (shared with ``histogram_bin_edges``)."""
    try:
        n_bins = operator.index(bins)
    except TypeError as e:
        raise TypeError("`bins` must be an integer, a string, or an array") from e
    if n_bins < 1:
        raise ValueError("`bins` must be positive, when an integer")
    return n_bins


def _uniform(a, n_bins, range, weights, ntype):
    first_edge, last_edge = _outer_edges(a, range)
    probe = numpy.empty(0, a.dtype)
    bin_type = numpy.result_type(first_edge, last_edge, probe)
    if numpy.issubdtype(bin_type, numpy.integer):
        bin_type = numpy.result_type(bin_type, float)
    bin_edges = numpy.linspace(first_edge, last_edge, n_bins + 1, endpoint=True, dtype=bin_type)
    if numpy.any(bin_edges[:-1] >= bin_edges[1:]):
        raise ValueError(f"Too many bins for data range. Cannot create {n_bins} finite-sized bins.")
    # The dtype of each step of NumPy's ((x - first) / denom) * n_bins, from NumPy itself.
    norm_denom = _unsigned_subtract(last_edge, first_edge)
    sub_dt = numpy.result_type(numpy.empty(0, bin_type), first_edge)
    div_dt = numpy.result_type(numpy.empty(0, sub_dt), norm_denom)
    mul_dt = numpy.result_type(numpy.empty(0, div_dt), n_bins)
    if sub_dt != bin_type or mul_dt != div_dt or div_dt not in (bin_type, numpy.dtype(numpy.float64)):
        raise NotImplementedError(f"gpupy.histogram: bins of {a.dtype} data over {first_edge!r}..{last_edge!r}")
    lo = float(numpy.asarray(first_edge).astype(bin_type))
    hi = float(numpy.asarray(last_edge).astype(bin_type))
    denom = float(numpy.asarray(norm_denom).astype(div_dt))
    scale = float(numpy.asarray(n_bins).astype(div_dt))
    x = a.astype(bin_type)
    edges = asarray(bin_edges)

    def kernel(w):
        return _gpupy._histogram_uniform(x, w, edges, lo, hi, denom, scale, div_dt)

    return _weighted_counts(kernel, weights, ntype), bin_edges


def _explicit(a, bins, weights, ntype):
    bin_edges = bins.get() if isinstance(bins, ndarray) else numpy.asarray(bins)
    if numpy.any(bin_edges[:-1] > bin_edges[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    if bin_edges.size < 2:
        return full((0,), 0, ntype), bin_edges
    cmp = numpy.result_type(a.dtype, bin_edges.dtype)
    if cmp.kind in "biu":
        cmp = numpy.dtype(numpy.int64)
    elif cmp == numpy.float16:
        cmp = numpy.dtype(numpy.float32)  # exact widening: the order is the same
    x = a.astype(cmp)
    edges = asarray(numpy.ascontiguousarray(bin_edges, dtype=cmp))

    def kernel(w):
        return _gpupy._histogram_edges(x, w, edges)

    return _weighted_counts(kernel, weights, ntype), bin_edges


_methods.attach({"cumsum": cumsum, "cumprod": cumprod})

__all__ = [
    "cumsum",
    "cumprod",
    "nancumsum",
    "nancumprod",
    "cumulative_sum",
    "cumulative_prod",
    "diff",
    "bincount",
    "histogram",
]
