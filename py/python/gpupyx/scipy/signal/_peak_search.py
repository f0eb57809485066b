"""The searches behind ``find_peaks``, ``peak_prominences`` and ``peak_widths``, on the
device and vectorized over all peaks at once, giving exactly the indices and values
of SciPy's sequential Cython loops (``scipy/signal/_peak_finding_utils.pyx``).

- ``local_maxima``: SciPy's scan finds each run of equal samples with a smaller
  sample on both sides (a plateau's midpoint rounded down); here the runs are found
  at once (``x[i] != x[i - 1]`` starts a run, NaN never equal) and kept where both
  neighbours are smaller. SciPy's scan skips only samples that cannot start a peak, so
  the sets agree.
- The prominence and width loops walk from each peak until a sample compares a
  certain way. Here every walk is a binary lifting over a sparse table of block
  extrema (``RangeTable``: level ``j`` holds the maximum or minimum of each block of
  ``2**j`` samples; NaN propagates, so a block holding NaN stops every walk, as a NaN
  sample stops SciPy's): from the peak, blocks of ``2**j`` samples are stepped over,
  ``j`` from the top level down, while the whole block passes. That reaches exactly the
  sample where SciPy's walk stops, in ``log2(n)`` vectorized steps. Minima over the
  walked range and the first minimum's position (SciPy keeps the first strictly
  smaller sample it meets) come from the same table.

The arithmetic (``x[peak] - max(left_min, right_min)``, the widths' heights and
interpolations) is SciPy's, operation for operation, in float64; the results are
bit-identical. A table of ``n`` samples takes ``n (log2(n) + 1)`` float64 values of
device memory while it lives (the max table is dropped before the min table is made).
"""

import numpy

import gpupy as gp

_I64 = numpy.int64


def local_maxima(x):
    """SciPy's ``_local_maxima_1d`` of the float64 device array `x`: the midpoints,
    left and right edges of its maxima (plateaus included), as int64 device arrays."""
    n = x.shape[0]
    if n < 3:
        empty = gp.zeros(0, dtype=_I64)
        return empty, empty, empty.copy()
    starts = gp.flatnonzero(gp.concatenate([gp.ones(1, dtype=bool), x[1:] != x[:-1]]))
    ends = gp.concatenate([starts[1:] - 1, gp.full(1, n - 1, dtype=_I64)])
    value = gp.take(x, starts)
    before = gp.take(x, gp.maximum(starts - 1, 0))
    after = gp.take(x, gp.minimum(ends + 1, n - 1))
    peak = (starts >= 1) & (ends <= n - 2) & (before < value) & (after < value)
    left, right = starts[peak], ends[peak]
    return (left + right) // 2, left, right


class RangeTable:
    """The sparse table ``levels[j][i] = op(x[i : i + 2**j])`` (``op``: ``gpupy.maximum`` or
    ``gpupy.minimum``, which propagate NaN), for blocks up to ``2**top`` samples."""

    def __init__(self, x, op, top):
        self.levels = [x]
        for j in range(1, top + 1):
            prev, half = self.levels[-1], 1 << (j - 1)
            if prev.shape[0] <= half:
                break
            self.levels.append(op(prev[:-half], prev[half:]))

    def block(self, j, start):
        """The level-`j` value of the blocks starting at `start` (clipped into range: the
        callers mask the blocks that leave their range)."""
        level = self.levels[j]
        return gp.take(level, gp.clip(start, 0, level.shape[0] - 1))

    def walk_left(self, end, low, passes):
        """For each peak, the smallest ``s >= low`` with every sample in ``[s, end)``
        passing (``passes(block_values)``); `end` itself where ``end - 1`` fails."""
        for j in reversed(range(len(self.levels))):
            start = end - (1 << j)
            take = (start >= low) & passes(self.block(j, start))
            end = gp.where(take, start, end)
        return end

    def walk_right(self, start, high, passes):
        """For each peak, the smallest ``e > high`` or failing sample ``e >= start`` with
        every sample in ``[start, e)`` passing."""
        for j in reversed(range(len(self.levels))):
            size = 1 << j
            take = (start + (size - 1) <= high) & passes(self.block(j, start))
            start = gp.where(take, start + size, start)
        return start

    def reduce(self, first, last, op, initial):
        """``op`` over ``x[first .. last]`` (inclusive; empty ranges give `initial`), by the
        range's binary decomposition into the table's blocks."""
        acc = initial
        for j in reversed(range(len(self.levels))):
            size = 1 << j
            take = first + (size - 1) <= last
            acc = gp.where(take, op(acc, self.block(j, first)), acc)
            first = gp.where(take, first + size, first)
        return acc


def _levels_for(span):
    """The top level a walk of up to `span` samples needs (``2**(top + 1) > span``)."""
    return max(int(span), 1).bit_length() - 1


def prominences(x, peaks, wlen):
    """SciPy's ``_peak_prominences`` (without its index check, see the caller): the
    prominences, left bases and right bases of the int64 device `peaks` of the float64
    device `x`; ``wlen < 2`` searches the whole signal."""
    n = x.shape[0]
    lo, hi = gp.zeros_like(peaks), gp.full(peaks.shape, n - 1, dtype=_I64)
    if wlen >= 2:
        lo = gp.maximum(peaks - wlen // 2, 0)
        hi = gp.minimum(peaks + wlen // 2, n - 1)
        span = min(n, wlen // 2 + 1)
    else:
        span = n
    top = _levels_for(span)
    v = gp.take(x, peaks)
    # The range SciPy's walks cover: samples not above the peak (a NaN stops them).
    maxima = RangeTable(x, gp.maximum, top)
    first = maxima.walk_left(peaks, lo, lambda b: b <= v)
    last = maxima.walk_right(peaks + 1, hi, lambda b: b <= v) - 1
    del maxima
    minima = RangeTable(x, gp.minimum, _levels_for(n))
    inf = gp.full(peaks.shape, numpy.inf)
    left_min = minima.reduce(first, peaks, gp.minimum, inf)
    right_min = minima.reduce(peaks, last, gp.minimum, inf)
    # The first minimum met walking away from the peak: the nearest sample <= the minimum.
    left_base = minima.walk_left(peaks + 1, first, lambda b: b > left_min) - 1
    right_base = minima.walk_right(peaks, last, lambda b: b > right_min)
    nan_peak = gp.isnan(v)
    left_base = gp.where(nan_peak, peaks, left_base)
    right_base = gp.where(nan_peak, peaks, right_base)
    left_min = gp.take(x, left_base)
    right_min = gp.take(x, right_base)
    # Cython's max(a, b): a if a > b else b.
    base_height = gp.where(left_min > right_min, left_min, right_min)
    return v - base_height, left_base, right_base, minima


def widths(x, peaks, rel_height, prominence, left_bases, right_bases, minima=None):
    """SciPy's ``_peak_widths`` (without its checks, see the caller): widths, their
    heights and the interpolated left and right intersection points."""
    n = x.shape[0]
    if minima is None:
        minima = RangeTable(x, gp.minimum, _levels_for(n))
    v = gp.take(x, peaks)
    height = v - prominence * rel_height
    # Walk left from the peak while the samples are above the height (stopping at the
    # left base), and likewise right.
    i = minima.walk_left(peaks + 1, left_bases + 1, lambda b: b > height) - 1
    xi = gp.take(x, i)
    left_ip = i.astype(numpy.float64)
    nxt = gp.take(x, gp.minimum(i + 1, n - 1))
    interp = (xi < height) & (nxt != xi)
    left_ip = gp.where(interp, left_ip + (height - xi) / (nxt - xi), left_ip)
    i = minima.walk_right(peaks, right_bases - 1, lambda b: b > height)
    xi = gp.take(x, i)
    right_ip = i.astype(numpy.float64)
    prv = gp.take(x, gp.maximum(i - 1, 0))
    interp = (xi < height) & (prv != xi)
    right_ip = gp.where(interp, right_ip - (height - xi) / (prv - xi), right_ip)
    return right_ip - left_ip, height, left_ip, right_ip


__all__ = ["local_maxima", "RangeTable", "prominences", "widths"]
