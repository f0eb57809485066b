"""SciPy's peak finding on gpupy arrays: ``find_peaks`` (every condition: ``height``,
``threshold``, ``distance``, ``prominence``, ``width``, ``wlen``, ``rel_height``,
``plateau_size``), ``peak_prominences``, ``peak_widths``, ``argrelmin``, ``argrelmax``
and ``argrelextrema``, with SciPy's signatures, checks, messages and warnings
(``PeakPropertyWarning``, a RuntimeWarning as SciPy's). Indices and properties are
gpupy arrays (int64 indices, float64 properties), identical to SciPy's.

Where the work runs:

- on the device: the local-maxima search, the plateau, height and threshold
  conditions, prominences and widths (``_peak_search.py``: every peak at once, in
  ``log2(n)`` vectorized steps), the property filters, ``argrel*``'s comparisons;
- on the host: the ``distance`` condition, SciPy's greedy pass that keeps peaks in
  order of decreasing height and drops their neighbours closer than ``distance``. Each
  kept peak's decision depends on the earlier ones, so it is sequential; the peaks'
  indices and heights (not the signal) are copied to the host for it, the order is
  NumPy's ``argsort`` as in SciPy (so ties among equal heights resolve identically),
  and the kept-peak mask goes back to the device.

Reading the validity checks' answers (an invalid peak index, a zero prominence or
width to warn about) waits for the device.
"""

import math
import warnings

import numpy

import gpupy as gp
from gpupyx.scipy.ndimage._util import as_device
from gpupyx.scipy.signal import _peak_search

_I64 = numpy.int64


class PeakPropertyWarning(RuntimeWarning):
    """Calculated property of a peak has unexpected value."""


# ---------------------------------------------------------------------------------------
# argrelmin / argrelmax / argrelextrema

def _boolrelextrema(data, comparator, axis=0, order=1, mode="clip"):
    """Where `data` compares true against its neighbours up to `order` away along `axis`
    (``mode``: ``'clip'`` or ``'wrap'`` at the ends, as ``take``)."""
    if int(order) != order or order < 1:
        raise ValueError("Order must be an int >= 1")
    datalen = data.shape[axis]
    # Device indices, clipped or wrapped by take; 'raise' (every shifted index past the
    # end fails) goes through host indices, for gpupy's own IndexError.
    locs = numpy.arange(0, datalen) if mode == "raise" else gp.arange(0, datalen)
    results = gp.ones(data.shape, dtype=bool)
    main = data
    for shift in range(1, order + 1):
        plus = gp.take(data, locs + shift, axis=axis, mode=mode)
        minus = gp.take(data, locs - shift, axis=axis, mode=mode)
        results = results & comparator(main, plus)
        results = results & comparator(main, minus)
        if not bool(gp.any(results)):
            return results
    return results


def argrelextrema(data, comparator, axis=0, order=1, mode="clip"):
    """The indices of relative extrema of `data` by `comparator` (``scipy.signal.argrelextrema``)."""
    data = as_device(data)
    return gp.nonzero(_boolrelextrema(data, comparator, axis, order, mode))


def argrelmin(data, axis=0, order=1, mode="clip"):
    """The indices of relative minima of `data` (``scipy.signal.argrelmin``)."""
    return argrelextrema(data, gp.less, axis, order, mode)


def argrelmax(data, axis=0, order=1, mode="clip"):
    """The indices of relative maxima of `data` (``scipy.signal.argrelmax``)."""
    return argrelextrema(data, gp.greater, axis, order, mode)


# ---------------------------------------------------------------------------------------
# Argument checks (SciPy's _arg_*_as_expected)

def _arg_x_as_expected(value):
    value = as_device(value).astype(numpy.float64, copy=False)
    if value.ndim != 1:
        raise ValueError("`x` must be a 1-D array")
    return value


def _arg_peaks_as_expected(value):
    value = as_device(value)
    if value.size == 0:
        value = gp.zeros(0, dtype=numpy.intp)
    if not numpy.can_cast(value.dtype, numpy.intp, "safe"):
        raise TypeError("cannot safely cast `peaks` to dtype('intp')")
    value = value.astype(numpy.intp, copy=False)
    if value.ndim != 1:
        raise ValueError("`peaks` must be a 1-D array")
    return value


def _arg_wlen_as_expected(value):
    if value is None:
        value = -1
    elif 1 < value:
        if isinstance(value, float):
            value = math.ceil(value)
        value = numpy.intp(value)
    else:
        raise ValueError(f"`wlen` must be larger than 1, was {value}")
    return int(value)


def _first_bad(bad, peaks, message):
    """SciPy's error for the first peak (in order) where `bad` holds, if any."""
    if bad.size and bool(gp.any(bad)):
        first = int(gp.flatnonzero(bad)[0])
        raise ValueError(message.format(int(peaks[first])))


def _warn_if_zero(values, what):
    if values.size and bool(gp.any(values == 0)):
        warnings.warn(f"some peaks have a {what} of 0", PeakPropertyWarning, stacklevel=3)


def _prominences(x, peaks, wlen):
    """SciPy's ``_peak_prominences``: (prominences, left_bases, right_bases), and the min
    table for the widths."""
    if peaks.size == 0:
        empty = gp.zeros(0, dtype=_I64)
        return (gp.zeros(0), empty, empty.copy()), None
    _first_bad((peaks < 0) | (peaks > x.shape[0] - 1), peaks, "peak {} is not a valid index for `x`")
    prom, left, right, minima = _peak_search.prominences(x, peaks, wlen)
    _warn_if_zero(prom, "prominence")
    return (prom, left, right), minima


def _widths(x, peaks, rel_height, prominences, left_bases, right_bases, minima=None):
    """SciPy's ``_peak_widths`` with its checks: (widths, width_heights, left_ips, right_ips)."""
    if rel_height < 0:
        raise ValueError("`rel_height` must be greater or equal to 0.0")
    prominences = as_device(prominences).astype(numpy.float64, copy=False)
    left_bases = as_device(left_bases).astype(_I64, copy=False)
    right_bases = as_device(right_bases).astype(_I64, copy=False)
    if not (peaks.shape[0] == prominences.shape[0] == left_bases.shape[0] == right_bases.shape[0]):
        raise ValueError("arrays in `prominence_data` must have the same shape as `peaks`")
    if peaks.size == 0:
        return tuple(gp.zeros(0) for _ in range(4))
    bad = ~((0 <= left_bases) & (left_bases <= peaks) & (peaks <= right_bases) &
            (right_bases < x.shape[0]))
    _first_bad(bad, peaks, "prominence data is invalid for peak {}")
    result = _peak_search.widths(x, peaks, float(rel_height), prominences, left_bases, right_bases,
                                 minima)
    _warn_if_zero(result[0], "width")
    return result


def peak_prominences(x, peaks, wlen=None):
    """The prominence of each peak of `x` and its bases (``scipy.signal.peak_prominences``)."""
    x = _arg_x_as_expected(x)
    peaks = _arg_peaks_as_expected(peaks)
    wlen = _arg_wlen_as_expected(wlen)
    return _prominences(x, peaks, wlen)[0]


def peak_widths(x, peaks, rel_height=0.5, prominence_data=None, wlen=None):
    """The width of each peak of `x` at `rel_height` of its prominence
    (``scipy.signal.peak_widths``)."""
    x = _arg_x_as_expected(x)
    peaks = _arg_peaks_as_expected(peaks)
    minima = None
    if prominence_data is None:
        wlen = _arg_wlen_as_expected(wlen)
        prominence_data, minima = _prominences(x, peaks, wlen)
    return _widths(x, peaks, rel_height, *prominence_data, minima=minima)


# ---------------------------------------------------------------------------------------
# find_peaks

def _unpack_condition_args(interval, x, peaks):
    """A condition's (min, max) borders; array borders (one value per sample of `x`) are
    read at the peaks."""
    try:
        imin, imax = interval
    except (TypeError, ValueError):
        imin, imax = (interval, None)

    def border(b, which):
        if isinstance(b, numpy.ndarray) or (isinstance(b, gp.ndarray) and b.ndim > 0):
            if b.size != x.size:
                raise ValueError(f"array size of {which} interval border must match x")
            return as_device(b)[peaks]
        return b

    return border(imin, "lower"), border(imax, "upper")


def _select_by_property(peak_properties, pmin, pmax):
    keep = gp.ones(peak_properties.shape, dtype=bool)
    if pmin is not None:
        keep = keep & (pmin <= peak_properties)
    if pmax is not None:
        keep = keep & (peak_properties <= pmax)
    return keep


def _select_by_peak_threshold(x, peaks, tmin, tmax):
    value = gp.take(x, peaks)
    left = value - gp.take(x, peaks - 1)
    right = value - gp.take(x, peaks + 1)
    keep = gp.ones(peaks.shape, dtype=bool)
    if tmin is not None:
        keep = keep & (tmin <= gp.minimum(left, right))
    if tmax is not None:
        keep = keep & (gp.maximum(left, right) <= tmax)
    return keep, left, right


def _select_by_peak_distance(peaks, priority, distance):
    """SciPy's ``_select_by_peak_distance``, on the host (see the module docstring): peaks
    in order of decreasing priority, each kept one dropping the peaks closer than
    ``ceil(distance)``."""
    peaks = gp.asnumpy(peaks)
    priority = gp.asnumpy(priority)
    distance_ = math.ceil(distance)
    keep = numpy.ones(peaks.shape[0], dtype=bool)
    # The neighbours each peak would drop: positions within distance_ - 1 on each side.
    lower = numpy.searchsorted(peaks, peaks - distance_ + 1, side="left")
    upper = numpy.searchsorted(peaks, peaks + distance_, side="left")
    for j in numpy.argsort(priority)[::-1].tolist():
        if keep[j]:
            keep[lower[j]:j] = False
            keep[j + 1:upper[j]] = False
    return gp.asarray(keep)


def find_peaks(x, height=None, threshold=None, distance=None, prominence=None, width=None,
               wlen=None, rel_height=0.5, plateau_size=None):
    """The peaks of the 1-d signal `x` meeting the given conditions, and their properties
    (``scipy.signal.find_peaks``)."""
    x = _arg_x_as_expected(x)
    if distance is not None and distance < 1:
        raise ValueError("`distance` must be greater or equal to 1")
    peaks, left_edges, right_edges = _peak_search.local_maxima(x)
    properties = {}

    def filtered(keep):
        return {key: array[keep] for key, array in properties.items()}

    if plateau_size is not None:
        plateau_sizes = right_edges - left_edges + 1
        pmin, pmax = _unpack_condition_args(plateau_size, x, peaks)
        keep = _select_by_property(plateau_sizes, pmin, pmax)
        peaks = peaks[keep]
        properties["plateau_sizes"] = plateau_sizes
        properties["left_edges"] = left_edges
        properties["right_edges"] = right_edges
        properties = filtered(keep)
    if height is not None:
        peak_heights = gp.take(x, peaks)
        hmin, hmax = _unpack_condition_args(height, x, peaks)
        keep = _select_by_property(peak_heights, hmin, hmax)
        peaks = peaks[keep]
        properties["peak_heights"] = peak_heights
        properties = filtered(keep)
    if threshold is not None:
        tmin, tmax = _unpack_condition_args(threshold, x, peaks)
        keep, left_thresholds, right_thresholds = _select_by_peak_threshold(x, peaks, tmin, tmax)
        peaks = peaks[keep]
        properties["left_thresholds"] = left_thresholds
        properties["right_thresholds"] = right_thresholds
        properties = filtered(keep)
    if distance is not None:
        keep = _select_by_peak_distance(peaks, gp.take(x, peaks), distance)
        peaks = peaks[keep]
        properties = filtered(keep)
    minima = None
    if prominence is not None or width is not None:
        wlen = _arg_wlen_as_expected(wlen)
        found, minima = _prominences(x, peaks, wlen)
        properties.update(zip(["prominences", "left_bases", "right_bases"], found))
    if prominence is not None:
        pmin, pmax = _unpack_condition_args(prominence, x, peaks)
        keep = _select_by_property(properties["prominences"], pmin, pmax)
        peaks = peaks[keep]
        properties = filtered(keep)
    if width is not None:
        properties.update(zip(["widths", "width_heights", "left_ips", "right_ips"],
                              _widths(x, peaks, rel_height, properties["prominences"],
                                      properties["left_bases"], properties["right_bases"], minima)))
        wmin, wmax = _unpack_condition_args(width, x, peaks)
        keep = _select_by_property(properties["widths"], wmin, wmax)
        peaks = peaks[keep]
        properties = filtered(keep)
    return peaks, properties


__all__ = ["argrelmin", "argrelmax", "argrelextrema", "find_peaks", "peak_prominences",
           "peak_widths", "PeakPropertyWarning"]
