"""``scipy.ndimage``'s measurements by label on gpupy arrays: ``sum_labels`` (and its
alias ``sum``), ``mean``, ``variance``, ``standard_deviation``, ``minimum``,
``maximum``, ``median``, ``minimum_position``, ``maximum_position``, ``extrema``,
``center_of_mass``, ``histogram`` and ``labeled_comprehension``, with SciPy's
``labels`` and ``index`` semantics: ``labels`` None (the whole input), ``index`` None
(every element of a positive label), a scalar index (one label) or a sequence (one
result per entry; labels missing from ``labels`` give 0, as in SciPy). ``labels``
broadcasts against ``input``.

How each is computed:

- with a sequence index, SciPy's own remapping of the labels (the labels themselves
  when they are small non-negative integers, else their ranks among the unique
  labels), then per label: counts and sums by gpupy's ``bincount`` (float64 atomics,
  as SciPy sums in float64, in another order: each sum within ``(n - 1) eps`` of
  ``sum |x|`` of the exact one); minima, maxima and their first positions by the
  measure kernels (integer atomics on order-preserving keys: exact; NaN above every
  number, as SciPy's sort puts it); medians by a stable ``lexsort`` on (label,
  value), as SciPy; histograms by one ``bincount`` over (label, bin);
- with labels None, index None or a scalar index, SciPy's single-group expressions
  (``vals.sum()``, ``vals.min()``, ...) on the selected values.

Results are gpupy arrays (0-d for a single group, as CuPy); positions are tuples of
Python ints read from the device. Ties: SciPy's position of an extreme shared by
several elements comes from an unstable sort with a sequence index; gpupy always
returns the first in C order (what SciPy's single-group path returns).

``labeled_comprehension`` calls a Python function per label: the values are grouped
on the device (a stable sort by label), copied to the host once, and ``func`` runs on
NumPy arrays, as in SciPy.
"""

import numpy

import gpupy as gp
from gpupy import _gpupy
from gpupyx.scipy.ndimage._util import as_device


def _safely_castable_to_int(dt):
    """SciPy's test: labels that ``bincount`` takes as they are."""
    int_size = numpy.dtype(int).itemsize
    return (numpy.issubdtype(dt, numpy.signedinteger) and dt.itemsize <= int_size) or (
        numpy.issubdtype(dt, numpy.unsignedinteger) and dt.itemsize < int_size)


def _index_ints(index):
    """``numpy.asanyarray(index, numpy.int_)`` on the device."""
    if isinstance(index, gp.ndarray):
        return index.astype(numpy.int64)
    return gp.asarray(numpy.asanyarray(index, numpy.int_))


def _bounds(labels):
    """(min, max) of `labels` as Python ints, in one read."""
    return [int(v) for v in gp.stack((labels.min(), labels.max())).get()]


class _Groups:
    """SciPy's grouping of the elements of `labels` for a sequence `index`: each
    element's slot (``slots``, int64, raveled; ``nslots`` of them), each index entry's
    slot (``idxs``, the index's shape) and whether its label occurs among the
    labels' values (``found``; for small integer labels every value up to the largest
    counts as found, as in SciPy)."""

    def __init__(self, labels, index):
        direct = False
        if _safely_castable_to_int(labels.dtype):
            lo, hi = _bounds(labels)
            direct = lo >= 0 and hi <= labels.size
        if direct:
            self.slots = labels.reshape(-1).astype(numpy.int64)
            self.nslots = hi + 1
            self.idxs = _index_ints(index)
            self.found = (self.idxs >= 0) & (self.idxs <= hi)
        else:
            unique, inverse = gp.unique(labels, return_inverse=True)
            self.slots = inverse.reshape(-1)
            self.nslots = unique.size
            index = as_device(index)
            idxs = gp.searchsorted(unique, index)
            self.idxs = gp.where(idxs >= unique.size, 0, idxs)
            self.found = unique[self.idxs] == index

    def at_index(self, per_slot):
        """`per_slot` (one value per slot) at each index entry; 0 where not found."""
        idxs = gp.where(self.found, self.idxs, 0)
        return gp.where(self.found, per_slot[idxs], 0)

    def sums(self, weights):
        """``bincount`` of the slots weighted by `weights` (float64 sums)."""
        return gp.bincount(self.slots, weights=weights.reshape(-1), minlength=self.nslots)


def _stats(input, labels=None, index=None, centered=False):
    """SciPy's ``_stats``: (count, sum) or (count, sum, centered sum of squares)."""

    def single_group(vals):
        if centered:
            vals_c = vals - vals.mean()
            return vals.size, vals.sum(), (vals_c * vals_c.conjugate()).sum()
        return vals.size, vals.sum()

    input = as_device(input)
    if labels is None:
        return single_group(input)
    input, labels = gp.broadcast_arrays(input, as_device(labels))
    if index is None:
        return single_group(input[labels > 0])
    if numpy.isscalar(index):
        return single_group(input[labels == index])
    g = _Groups(labels, index)
    counts = gp.bincount(g.slots, minlength=g.nslots)
    sums = g.sums(input)
    out = [g.at_index(counts), g.at_index(sums)]
    if centered:
        with numpy.errstate(invalid="ignore", divide="ignore"):
            means = sums / counts
        centered_input = input.reshape(-1) - means[g.slots]
        out.append(g.at_index(g.sums(centered_input * centered_input.conjugate())))
    return tuple(out)


def _as_float64(count):
    if isinstance(count, gp.ndarray):
        return count.astype(numpy.float64)
    return numpy.float64(count)


def sum_labels(input, labels=None, index=None):
    """The sum of `input` over the labelled regions (``scipy.ndimage.sum_labels``).

    .. seealso:: :func:`scipy.ndimage.sum_labels`"""
    count, total = _stats(input, labels, index)
    return total


def sum(input, labels=None, index=None):
    """SciPy's alias of :func:`sum_labels`, kept for compatibility.

    .. seealso:: :func:`scipy.ndimage.sum`"""
    return sum_labels(input, labels, index)


def mean(input, labels=None, index=None):
    """The mean of `input` over the labelled regions (``scipy.ndimage.mean``).

    .. seealso:: :func:`scipy.ndimage.mean`"""
    count, total = _stats(input, labels, index)
    return total / _as_float64(count)


def variance(input, labels=None, index=None):
    """The variance of `input` over the labelled regions (``scipy.ndimage.variance``).

    .. seealso:: :func:`scipy.ndimage.variance`"""
    count, total, sum_c_sq = _stats(input, labels, index, centered=True)
    return sum_c_sq / _as_float64(count)


def standard_deviation(input, labels=None, index=None):
    """The standard deviation of `input` over the labelled regions
    (``scipy.ndimage.standard_deviation``).

    .. seealso:: :func:`scipy.ndimage.standard_deviation`"""
    return gp.sqrt(variance(input, labels, index))


def _keyed(x):
    """`x` in the type the extreme kernels compare (exactly, order kept)."""
    kind = x.dtype.kind
    if kind in "bi":
        return x.astype(numpy.int64)
    if kind == "u":
        return x.astype(numpy.uint64)
    if kind == "f":
        return x.astype(numpy.float64)
    raise TypeError(f"extremes by label of {x.dtype} values are not supported")


def _select(input, labels=None, index=None, find_min=False, find_max=False,
            find_min_positions=False, find_max_positions=False, find_median=False):
    """SciPy's ``_select``: the requested minima, their positions (C-order indices),
    maxima, their positions and medians, in that order."""
    input = as_device(input)
    find_positions = find_min_positions or find_max_positions
    positions = gp.arange(input.size).reshape(input.shape) if find_positions else None

    def single_group(vals, positions):
        result = []
        if find_min:
            result += [vals.min()]
        if find_min_positions:
            result += [positions[vals == vals.min()][0]]
        if find_max:
            result += [vals.max()]
        if find_max_positions:
            result += [positions[vals == vals.max()][0]]
        if find_median:
            result += [gp.median(vals)]
        return result

    if labels is None:
        return single_group(input, positions)
    input, labels = gp.broadcast_arrays(input, as_device(labels))
    if index is None or numpy.isscalar(index):
        mask = labels > 0 if index is None else labels == index
        return single_group(input[mask], positions[mask] if find_positions else None)

    g = _Groups(labels, index)
    # Index entries whose label is not found read an empty slot (SciPy's max + 1).
    idxs = gp.where(g.found, g.idxs, g.nslots)
    flat = input.reshape(-1)
    result = []
    if find_min or find_max or find_positions:
        pos = _gpupy._extreme_positions(_keyed(flat), g.slots, g.nslots + 1)
        wanted = [(find_min, 0, True), (find_min_positions, 0, False), (find_max, 1, True),
                  (find_max_positions, 1, False)]
        for want, column, value in wanted:
            if not want:
                continue
            p = pos[:, column][idxs]
            present = p >= 0
            if value:  # SciPy's zeros where a label has no element
                result.append(gp.where(present, flat[gp.where(present, p, 0)], 0).astype(input.dtype))
            else:
                result.append(gp.where(present, p, 0))
    if find_median:
        order = gp.lexsort((flat, g.slots))
        values, slots = flat[order], g.slots[order]
        left = gp.searchsorted(slots, idxs, side="left")
        right = gp.searchsorted(slots, idxs, side="right")
        present = right > left
        # SciPy's lo/hi: the first and last sorted place of each label, 0 when absent.
        lo = gp.where(present, left, 0)
        hi = gp.where(present, right - 1, 0)
        step = (hi - lo) // 2
        lo, hi = lo + step, hi - step
        if input.dtype.kind in "iub":
            result += [(values[lo].astype("d") + values[hi].astype("d")) / 2.0]
        else:
            result += [(values[lo] + values[hi]) / 2.0]
    return result


def minimum(input, labels=None, index=None):
    """The minimum of `input` over the labelled regions (``scipy.ndimage.minimum``).

    .. seealso:: :func:`scipy.ndimage.minimum`"""
    return _select(input, labels, index, find_min=True)[0]


def maximum(input, labels=None, index=None):
    """The maximum of `input` over the labelled regions (``scipy.ndimage.maximum``).

    .. seealso:: :func:`scipy.ndimage.maximum`"""
    return _select(input, labels, index, find_max=True)[0]


def median(input, labels=None, index=None):
    """The median of `input` over the labelled regions (``scipy.ndimage.median``).

    .. seealso:: :func:`scipy.ndimage.median`"""
    return _select(input, labels, index, find_median=True)[0]


def _coordinates(result, shape):
    """C-order indices as SciPy returns them: a tuple of ints for a single group,
    else a list of tuples (one read from the device)."""
    dims = numpy.array(shape)
    # See numpy.unravel_index.
    dim_prod = numpy.cumprod([1] + list(dims[:0:-1]))[::-1]
    host = result.get() if isinstance(result, gp.ndarray) else numpy.asarray(result)
    if host.ndim == 0:
        return tuple(((int(host) // dim_prod) % dims).tolist())
    return [tuple(v) for v in ((host.reshape(-1, 1) // dim_prod) % dims).tolist()]


def minimum_position(input, labels=None, index=None):
    """The position of the first minimum of `input` over each labelled region
    (``scipy.ndimage.minimum_position``).

    .. seealso:: :func:`scipy.ndimage.minimum_position`"""
    shape = as_device(input).shape
    return _coordinates(_select(input, labels, index, find_min_positions=True)[0], shape)


def maximum_position(input, labels=None, index=None):
    """The position of the first maximum of `input` over each labelled region
    (``scipy.ndimage.maximum_position``).

    .. seealso:: :func:`scipy.ndimage.maximum_position`"""
    shape = as_device(input).shape
    return _coordinates(_select(input, labels, index, find_max_positions=True)[0], shape)


def extrema(input, labels=None, index=None):
    """Minima, maxima and their positions over the labelled regions
    (``scipy.ndimage.extrema``).

    .. seealso:: :func:`scipy.ndimage.extrema`"""
    shape = as_device(input).shape
    minimums, min_positions, maximums, max_positions = _select(
        input, labels, index, find_min=True, find_max=True, find_min_positions=True,
        find_max_positions=True)
    return (minimums, maximums, _coordinates(min_positions, shape),
            _coordinates(max_positions, shape))


def center_of_mass(input, labels=None, index=None):
    """The center of mass of `input` over the labelled regions
    (``scipy.ndimage.center_of_mass``): a tuple of 0-d arrays for a single group,
    else a list of 1-d arrays (one per index entry), as CuPy returns them.

    .. seealso:: :func:`scipy.ndimage.center_of_mass`"""
    input = as_device(input)
    nd = input.ndim
    grids = [gp.arange(n, dtype=numpy.float64).reshape((1,) * k + (n,) + (1,) * (nd - k - 1))
             for k, n in enumerate(input.shape)]
    if labels is None or index is None or numpy.isscalar(index):
        normalizer = sum_labels(input, labels, index)
        return tuple(sum_labels(input * grids[d], labels, index) / normalizer for d in range(nd))
    # One grouping for every sum.
    input, labels = gp.broadcast_arrays(input, as_device(labels))
    g = _Groups(labels, index)
    normalizer = g.at_index(g.sums(input))
    results = [g.at_index(g.sums(input * grids[d])) / normalizer for d in range(nd)]
    return list(gp.stack(results, axis=-1)) if results else []


def _host(a):
    return a.get() if isinstance(a, gp.ndarray) else numpy.asarray(a)


def labeled_comprehension(input, labels, index, func, out_dtype, default, pass_positions=False):
    """``func`` applied to the values of each labelled region (and their C-order
    positions with `pass_positions`), ``scipy.ndimage.labeled_comprehension``.

    `func` is a Python function and runs on the host, once per label, on NumPy arrays
    (as in SciPy): the values are selected and grouped by label on the device and
    copied to the host once. The result is a gpupy array of `out_dtype` (a NumPy
    object array for ``out_dtype=object``); with labels or index None, whatever
    `func` returns.

    .. seealso:: :func:`scipy.ndimage.labeled_comprehension`"""
    as_scalar = numpy.isscalar(index)
    input = as_device(input)
    if labels is None:
        if index is not None:
            raise ValueError("index without defined labels")
        values = _host(input).ravel()
        if not pass_positions:
            return func(values)
        return func(values, numpy.arange(values.size))
    labels = as_device(labels)
    try:
        input, labels = gp.broadcast_arrays(input, labels)
    except ValueError as e:
        raise ValueError("input and labels must have the same shape "
                         "(excepting dimensions with width 1)") from e
    positions = gp.arange(input.size).reshape(input.shape) if pass_positions else None
    if index is None:
        mask = labels > 0
        if not pass_positions:
            return func(_host(input[mask]))
        return func(_host(input[mask]), _host(positions[mask]))
    index = numpy.atleast_1d(_host(index))
    if numpy.any(index.astype(labels.dtype).astype(index.dtype) != index):
        raise ValueError(f"Cannot convert index values from <{index.dtype}> to <{labels.dtype}> "
                         "(labels' type) without loss of precision")
    index = index.astype(labels.dtype)
    lo, hi = index.min(), index.max()
    mask = (labels >= lo) & (labels <= hi)
    # Select and group on the device (a stable sort by label), then one copy each.
    labels_sel = labels[mask]
    order = gp.argsort(labels_sel)
    labels_h = _host(labels_sel[order])
    inputs = [_host(input[mask][order])]
    if pass_positions:
        inputs.append(_host(positions[mask][order]))
    index_order = index.argsort()
    sorted_index = index[index_order]
    temp = numpy.empty(index.shape, out_dtype)
    temp[:] = default
    starts = numpy.searchsorted(labels_h, sorted_index, side="left")
    ends = numpy.searchsorted(labels_h, sorted_index, side="right")
    for i, (s, e) in enumerate(zip(starts, ends)):
        if s != e:
            temp[i] = func(*[inp[s:e] for inp in inputs])
    output = numpy.zeros(index.shape, out_dtype)
    output[index_order] = temp
    if numpy.dtype(out_dtype) != object:
        output = gp.asarray(output)
    return output[0] if as_scalar else output


def histogram(input, min, max, bins, labels=None, index=None):
    """The histogram of `input` over each labelled region: ``bins`` bins of equal width
    between `min` and `max` (``scipy.ndimage.histogram``). One int64 gpupy array, or
    for a sequence index a NumPy object array of them (None for a label without
    elements), as SciPy.

    Bins are SciPy's (``numpy.histogram`` with the edges ``linspace(min, max, bins +
    1)``: each half-open, the last closed, values compared in float64), counted on
    the device by one ``bincount`` over (label, bin).

    .. seealso:: :func:`scipy.ndimage.histogram`"""
    edges = numpy.linspace(min, max, bins + 1)
    if numpy.any(edges[:-1] > edges[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    nbins = len(edges) - 1
    device_edges = gp.asarray(edges)

    def bin_of(vals):
        """Each value's bin, or -1 outside [edges[0], edges[-1]] (NaN too)."""
        v = vals.reshape(-1).astype(numpy.float64)
        b = gp.searchsorted(device_edges, v, side="right") - 1
        b = gp.minimum(b, nbins - 1)  # the last edge belongs to the last bin
        return gp.where((v >= edges[0]) & (v <= edges[-1]), b, -1)

    def hist(vals):
        b = bin_of(vals)
        return gp.bincount(b[b >= 0], minlength=nbins)

    input = as_device(input)
    if labels is None:
        if index is not None:
            raise ValueError("index without defined labels")
        return hist(input)
    labels = as_device(labels)
    try:
        input, labels = gp.broadcast_arrays(input, labels)
    except ValueError as e:
        raise ValueError("input and labels must have the same shape "
                         "(excepting dimensions with width 1)") from e
    if index is None:
        return hist(input[labels > 0])
    as_scalar = numpy.isscalar(index)
    index = numpy.atleast_1d(_host(index))
    if numpy.any(index.astype(labels.dtype).astype(index.dtype) != index):
        raise ValueError(f"Cannot convert index values from <{index.dtype}> to <{labels.dtype}> "
                         "(labels' type) without loss of precision")
    index = index.astype(labels.dtype)
    index.min()  # SciPy's labeled_comprehension takes it (an empty index raises there)
    # Each element's place in the sorted distinct index values, -1 for none.
    keys = numpy.unique(index)
    flat = labels.reshape(-1)
    place = gp.searchsorted(gp.asarray(keys), flat)
    clipped = gp.minimum(place, keys.size - 1)
    slot = gp.where(gp.asarray(keys)[clipped] == flat, clipped, -1)
    b = bin_of(input)
    keep = (slot >= 0) & (b >= 0)
    per_label = gp.bincount((slot * nbins + b)[keep], minlength=keys.size * nbins)
    per_label = per_label.reshape(keys.size, nbins)
    # A label without elements gets None; one whose values all miss the bins, zeros.
    present = _host(gp.bincount(slot[slot >= 0], minlength=keys.size)) > 0
    output = numpy.empty(index.shape, object)
    for i, v in enumerate(index):
        k = int(numpy.searchsorted(keys, v))
        output[i] = per_label[k] if present[k] else None
    return output[0] if as_scalar else output


__all__ = [
    "sum_labels", "sum", "mean", "variance", "standard_deviation", "minimum", "maximum",
    "median", "minimum_position", "maximum_position", "extrema", "center_of_mass",
    "labeled_comprehension", "histogram",
]
