"""Covariance, correlation and the NaN-ignoring order statistics (NumPy's "Statistics"
beyond ``_reduction`` and ``_sorting``): ``cov``, ``corrcoef``, ``nanmedian``,
``nanquantile`` and ``nanpercentile``.

``cov`` and ``corrcoef`` follow NumPy's algorithm on gpupy arrays: the (weighted) mean of
each variable, the centred data, one matrix product, one scale. NumPy's checks on the
weights' values (integral and non-negative ``fweights``, non-negative ``aweights``) and
its normalization factor (whose sign decides NumPy's warning) each read one scalar back
to the host.

The NaN-ignoring quantiles sort each slice on the GPU (NaNs sort last), so a slice's
non-NaN values are its first ``count`` values; the positions NumPy interpolates between
within those are computed per slice on the device, gathered with ``take_along_axis`` and
interpolated as NumPy's ``method='linear'`` (the method gpupy's ``quantile`` supports).
An all-NaN slice gives NaN with NumPy's RuntimeWarning, which costs one small read.
"""

import math
import warnings

import numpy

from gpupy import _math, _reduction
from gpupy._creation import asarray, empty
from gpupy._gpupy import ndarray
from gpupy._index_tricks import take_along_axis
from gpupy._indexing import where
from gpupy._manipulation import _normalize_axis_tuple, concatenate, moveaxis
from gpupy._sorting import median, percentile, quantile, sort

__all__ = ["cov", "corrcoef", "nanmedian", "nanquantile", "nanpercentile"]

_NO_VALUE = numpy._NoValue

# NumPy's quantile methods, in its order (for its ValueError on an unknown name).
_QUANTILE_METHODS = (
    "inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
    "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint", "nearest",
)


def _inexact(dtype):
    """Float or complex, counting ml_dtypes' bfloat16 (a NumPy 'V' kind) as float."""
    return dtype.kind in "fc" or dtype.name == "bfloat16"


def _host_scalar(x):
    """The value of a one-element gpupy array as a NumPy scalar (one device read)."""
    return x.reshape(-1)[:1].get()[0]


# --- covariance and correlation -----------------------------------------------------


def _as_2d(x):
    return x.reshape((1,) * (2 - x.ndim) + tuple(x.shape)) if x.ndim < 2 else x


def _check_weights(w, name, n_obs):
    """NumPy's shape and sign checks on ``fweights``/``aweights`` (float64 device arrays)."""
    if w.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if w.shape[0] != n_obs:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    if bool(_reduction.any(_math.less(w, 0))):
        raise ValueError(f"{name} cannot be negative")


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """The covariance matrix of the variables in the rows of ``m`` (columns when
    ``rowvar=False``), with ``y``'s variables appended; ``fweights`` (integer
    frequencies) and ``aweights`` weight the observations, as NumPy's ``cov``. A single
    variable gives a 0-d array.

    .. seealso:: numpy.cov"""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = asarray(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None:
        y = asarray(y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    if dtype is None:
        dtype = numpy.result_type(m.dtype, numpy.float64) if y is None else \
            numpy.result_type(m.dtype, y.dtype, numpy.float64)
    dtype = numpy.dtype(dtype)
    X = _as_2d(m.astype(dtype))
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return empty((0, 0), dtype=numpy.float64)
    if y is not None:
        Y = _as_2d(y.astype(dtype))
        if not rowvar and Y.shape[0] != 1:
            Y = Y.T
        X = concatenate((X, Y), axis=0)
    if ddof is None:
        ddof = 1 if bias == 0 else 0

    w = None
    if fweights is not None:
        fweights = asarray(fweights, dtype=numpy.float64)
        # NumPy's np.around rounds half to even, as rint does.
        if not bool(_reduction.all(_math.equal(fweights, _math.rint(fweights)))):
            raise TypeError("fweights must be integer")
        _check_weights(fweights, "fweights", X.shape[1])
        w = fweights
    if aweights is not None:
        aweights = asarray(aweights, dtype=numpy.float64)
        _check_weights(aweights, "aweights", X.shape[1])
        w = aweights if w is None else _math.multiply(w, aweights)

    if w is None:
        avg = _reduction.mean(X, axis=1)
        fact = X.shape[1] - ddof
    else:
        avg, w_sum = _reduction.average(X, axis=1, weights=w, returned=True)
        w_sum = _host_scalar(w_sum)
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * _host_scalar(_reduction.sum(_math.multiply(w, aweights))) / w_sum
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    # NumPy subtracts in place: the centred data keeps X's dtype.
    X = _math.subtract(X, avg[:, None])
    if X.dtype != dtype:
        X = X.astype(dtype)
    X_T = X.T if w is None else _math.multiply(X, w).T
    if X_T.dtype.kind == "c":
        X_T = _math.conjugate(X_T)
    c = _math.matmul(X, X_T)
    # NumPy's c *= np.true_divide(1, fact): a float64 (strong) factor, the product cast
    # back into c's dtype; computed on the host so 1 / 0 warns and gives inf as NumPy.
    inv = numpy.true_divide(1, fact)
    scaled = _math.multiply(c, inv)
    c = scaled.astype(c.dtype) if scaled.dtype != c.dtype else scaled
    return c.squeeze()


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson correlation coefficients: ``cov`` normalized by the standard deviations,
    real and imaginary parts clipped to [-1, 1], as NumPy's ``corrcoef``.

    .. seealso:: numpy.corrcoef"""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        # One variable: NaN for a variance of NaN, inf or 0, else 1 (NumPy's c / c).
        return _math.divide(c, c)
    d = c.diagonal()
    stddev = _math.sqrt(d.real if d.dtype.kind == "c" else d)
    c = _math.divide(c, stddev[:, None])
    c = _math.divide(c, stddev[None, :])
    if c.dtype.kind != "c":
        return _math.clip(c, -1, 1)
    r = empty(c.shape, dtype=c.dtype)
    r.real[...] = _math.clip(c.real, -1, 1)
    r.imag[...] = _math.clip(c.imag, -1, 1)
    return r


# --- NaN-ignoring order statistics ----------------------------------------------------


def _sorted_rows(a, axis):
    """``a`` with the reduced axes (None: all; an int or a tuple) moved last and merged
    into one, each row sorted (NaNs last); the kept shape and the reduced axes."""
    axes = tuple(range(a.ndim)) if axis is None else _normalize_axis_tuple(axis, a.ndim)
    keep = [d for d in range(a.ndim) if d not in axes]
    kept_shape = tuple(a.shape[d] for d in keep)
    n = math.prod(a.shape[d] for d in axes)
    rows = a.transpose(tuple(keep) + tuple(axes)).reshape(kept_shape + (n,))
    return sort(rows, axis=-1), kept_shape, axes


def _store(result, out, keepdims, front_ndim, ndim, axes):
    """The result with the reduced axes kept as 1s (``keepdims``), written into ``out``."""
    if keepdims:
        shape = list(result.shape[:front_ndim])
        rest = iter(result.shape[front_ndim:])
        shape += [1 if d in axes else next(rest) for d in range(ndim)]
        result = result.reshape(tuple(shape))
    if out is not None:
        out[...] = result
        return out
    return result


def _empty_nanmean(a, axis, out, keepdims):
    """NumPy's answer for an empty ``a``: ``nanmean`` (NaNs, and for float input its
    "Mean of empty slice" warning when there are slices and none has a value)."""
    r = _reduction.nanmean(a, axis, out=out, keepdims=keepdims)
    axes = tuple(range(a.ndim)) if axis is None else _normalize_axis_tuple(axis, a.ndim)
    if _inexact(a.dtype) and r.size and math.prod(a.shape[d] for d in axes) == 0:
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)
    return r


def _all_nan_rows(valid):
    """Rows without a value (``valid`` counts): the mask, and (any, first-row) flags read
    back in one transfer; warns as NumPy does for an all-NaN slice."""
    empty_rows = _math.equal(valid, 0)
    flags = concatenate([_reduction.any(empty_rows).reshape(1), empty_rows.reshape(-1)[:1]]).get()
    if flags[0]:
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
    return empty_rows, bool(flags[1])


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=_NO_VALUE):
    """The median along ``axis`` (None, an int or a tuple) ignoring NaNs; NaN with a
    RuntimeWarning for a slice of NaNs only, as NumPy's ``nanmedian``. Integer and bool
    input is ``median``'s.

    .. seealso:: numpy.nanmedian"""
    a = asarray(a)
    keepdims = False if keepdims is _NO_VALUE else keepdims
    if a.size == 0:
        return _empty_nanmean(a, axis, out, keepdims)
    if not _inexact(a.dtype):
        return median(a, axis, out, overwrite_input, keepdims)
    s, kept_shape, axes = _sorted_rows(a, axis)
    valid = _reduction.sum(_math.logical_not(_math.isnan(s)), axis=-1, keepdims=True)  # int64
    lo = take_along_axis(s, _math.floor_divide(_math.maximum(valid - 1, 0), 2), axis=-1)[..., 0]
    hi = take_along_axis(s, _math.floor_divide(valid, 2), axis=-1)[..., 0]
    # The mean of the two middle values in NumPy's mean accumulator (float32 for float16).
    acc = numpy.float32 if a.dtype.itemsize == 2 and a.dtype.kind != "c" else a.dtype
    mid = _math.divide(_math.add(lo.astype(acc), hi.astype(acc)), 2).astype(a.dtype)
    valid = valid[..., 0]
    result = where(_math.equal(_math.remainder(valid, 2), 1), hi, mid)
    empty_rows, _ = _all_nan_rows(valid)
    result = where(empty_rows, numpy.asarray(numpy.nan, a.dtype)[()], result)
    return _store(result, out, keepdims, 0, a.ndim, axes)


def _check_method(method, weights):
    if weights is not None:
        if method != "inverted_cdf":
            raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
        raise NotImplementedError("gpupy's quantiles take no weights so far")
    if method not in _QUANTILE_METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {dict.fromkeys(_QUANTILE_METHODS).keys()}")
    if method != "linear":
        raise NotImplementedError(f"gpupy's quantiles support method='linear' so far, not {method!r}")


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=_NO_VALUE, *,
                weights=None):
    """The ``q``-th quantiles (``q`` in [0, 1], any shape; its dimensions come first)
    along ``axis`` ignoring NaNs, linearly interpolated as NumPy's ``nanquantile`` with
    ``method='linear'``; NaN with a RuntimeWarning for a slice of NaNs only.

    .. seealso:: numpy.nanquantile"""
    return _nan_entry(a, q, numpy.asanyarray, "Quantiles must be in the range [0, 1]", quantile, axis, out,
                      overwrite_input, method, keepdims, weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=_NO_VALUE, *,
                  weights=None):
    """The ``q``-th percentiles (``q`` in [0, 100]) ignoring NaNs:
    ``nanquantile(a, q / 100)``, as NumPy's ``nanpercentile``.

    .. seealso:: numpy.nanpercentile"""
    return _nan_entry(a, q, _percent_to_fraction, "Percentiles must be in the range [0, 100]", percentile, axis,
                      out, overwrite_input, method, keepdims, weights)


def _percent_to_fraction(q):
    return numpy.true_divide(q, 100, out=...)


def _nan_entry(a, q, to_fraction, range_message, plain, axis, out, overwrite_input, method, keepdims, weights):
    """``nanquantile``'s and ``nanpercentile``'s checks and dispatch: ``to_fraction`` maps
    the host ``q`` to quantiles in [0, 1] (else ValueError ``range_message``); ``plain``
    (``quantile`` or ``percentile``) answers for input that holds no NaNs by its dtype."""
    a = asarray(a)
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    weak_q = type(q) in (int, float)
    qh = to_fraction(q.get() if isinstance(q, ndarray) else q)
    if qh.size and not (numpy.all(qh >= 0) and numpy.all(qh <= 1)):
        raise ValueError(range_message)
    _check_method(method, weights)
    keepdims = False if keepdims is _NO_VALUE else keepdims
    if not _inexact(a.dtype):
        # No NaNs to skip: NumPy's result is the plain quantile's (percentile's).
        return plain(a, q, axis, out, overwrite_input, method, keepdims)
    return _nanquantile(a, qh, weak_q, axis, out, keepdims)


def _nanquantile(a, qh, weak_q, axis, out, keepdims):
    """NumPy's per-slice ``_nanquantile_1d`` for all slices at once. ``qh``: the host
    quantiles as NumPy holds them (a Python float q as a float64 0-d array, with
    ``weak_q``: its interpolation weight is a weak Python float)."""
    if a.size == 0:
        # NumPy answers with nanmean (the q dimensions are not in the result).
        return _empty_nanmean(a, axis, out, keepdims)
    if qh.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    s, kept_shape, axes = _sorted_rows(a, axis)
    valid = _reduction.sum(_math.logical_not(_math.isnan(s)), axis=-1, keepdims=True)  # int64, (kept..., 1)
    last = _math.maximum(valid - 1, 0)  # the last non-NaN position (0 for an all-NaN row)
    qflat = qh.reshape(-1)
    if qflat.dtype.kind in "biu":
        # Integer virtual indices (q is 0 or 1): NumPy takes those positions, no lerp.
        result = take_along_axis(s, _math.multiply(last, asarray(qflat.astype(numpy.int64))), axis=-1)
    else:
        qdt = qflat.dtype
        # NumPy's (n - 1) * q with n a Python int: computed in q's dtype.
        n1 = (valid - 1).astype(qdt)
        virtual = _math.multiply(n1, asarray(qflat))  # (kept..., nq)
        prev = _math.floor(virtual)
        above = _math.greater_equal(virtual, n1)
        below = _math.less(virtual, 0)
        prev_i = prev.astype(numpy.int64)
        zero = numpy.int64(0)
        lo_i = where(above, last, where(below, zero, prev_i))
        hi_i = where(above, last, where(below, zero, _math.add(prev_i, 1)))
        # NumPy's gamma = virtual - previous index, with the clamped indices as it holds
        # them (-1 above the last value, 0 below the first).
        prev_f = where(above, numpy.asarray(-1, qdt)[()], where(below, numpy.asarray(0, qdt)[()], prev))
        gamma = _math.subtract(virtual, prev_f)
        lo = take_along_axis(s, lo_i, axis=-1)
        hi = take_along_axis(s, hi_i, axis=-1)
        if weak_q:
            # NumPy's float(gamma): a weak Python float, so the lerp stays in a's dtype.
            t = gamma.astype(a.dtype)
            omt = _math.subtract(1, gamma).astype(a.dtype)
        else:
            t = gamma
            omt = _math.subtract(1, gamma)
        diff = _math.subtract(hi, lo)
        low_side = _math.add(lo, _math.multiply(diff, t))
        rd = low_side.dtype
        high_side = _math.subtract(hi.astype(rd), _math.multiply(diff, omt).astype(rd))
        result = where(_math.greater_equal(gamma, 0.5), high_side, low_side)
    # (kept..., nq) -> (q..., kept...)
    result = moveaxis(result, -1, 0).reshape(qh.shape + kept_shape)
    empty_rows, first_empty = _all_nan_rows(valid[..., 0])
    if first_empty and result.dtype != a.dtype:
        # NumPy builds the result in the dtype of its first slice's answer, and an
        # all-NaN slice answers in a's dtype.
        result = result.astype(a.dtype)
    result = where(empty_rows, numpy.asarray(numpy.nan, result.dtype)[()], result)
    return _store(result, out, keepdims, qh.ndim, a.ndim, axes)
