"""Set routines (NumPy's "Set routines"): ``isin``, ``in1d``, ``intersect1d``,
``union1d``, ``setdiff1d`` and ``setxor1d``.

All run on the GPU, composed from the stable radix sort, ``unique``, the binary search
behind ``searchsorted``, gathers and boolean-mask compaction. ``intersect1d``,
``setdiff1d`` and ``setxor1d`` follow NumPy's own algorithm step by step (sort the
concatenation, compare neighbours), so they return what NumPy returns, including with
``assume_unique=True`` on inputs that are not unique. ``isin`` looks each element up in
the sorted test values (CuPy's approach): membership is exact whatever ``kind`` says,
``assume_unique`` is only a hint, and NaN is never a member (as in NumPy).
"""

import warnings

import numpy

from gpupy import _math
from gpupy._creation import asarray, empty, full
from gpupy._manipulation import concatenate
from gpupy._sorting import argsort, searchsorted, sort, unique

__all__ = ["isin", "in1d", "intersect1d", "union1d", "setdiff1d", "setxor1d"]


def _flat(a):
    return asarray(a).reshape(-1)


def _mixed_sign_operands(ar1, ar2):
    """``ar1`` and ``ar2`` in one integer dtype when one is signed and the other unsigned
    and NumPy would promote them to float64 (int64 with uint64), which is inexact above
    2**53. Test values no element of the other dtype can equal are dropped first."""
    k1, k2 = ar1.dtype.kind, ar2.dtype.kind
    if {k1, k2} != {"i", "u"} or numpy.result_type(ar1.dtype, ar2.dtype).kind != "f":
        return ar1, ar2
    if k1 == "i":  # signed elements: only test values up to the signed maximum can match
        keep = _math.less_equal(ar2, numpy.iinfo(ar1.dtype).max)
        return ar1, ar2[keep].astype(ar1.dtype)
    keep = _math.greater_equal(ar2, 0)  # unsigned elements: only non-negative test values
    return ar1, ar2[keep].astype(ar1.dtype)


def _check_kind(kind, ar1, ar2):
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    if kind != "table":
        return
    if not all(a.dtype.kind in "uib" for a in (ar1, ar2)):
        raise ValueError(
            "The 'table' method is only supported for boolean or integer arrays. "
            "Please select 'sort' or None for kind."
        )
    if ar2.size and ar2.dtype.kind != "b":
        # NumPy's table has one entry per value in [min, max]: it refuses ranges beyond
        # the dtype's maximum. One small read of the two extremes.
        lo = int(ar2.min().get())
        hi = int(ar2.max().get())
        if hi - lo > numpy.iinfo(ar2.dtype).max:
            raise RuntimeError(
                "You have specified kind='table', but the range of values in `ar2` or `ar1` exceed the "
                "maximum integer of the datatype. Please set `kind` to None or 'sort'."
            )


def _in_flat(ar1, ar2, invert, kind):
    """Membership of each element of the 1-d ``ar1`` in the values of the 1-d ``ar2``."""
    _check_kind(kind, ar1, ar2)
    ar1, ar2 = _mixed_sign_operands(ar1, ar2)
    n = ar2.size
    if ar1.size == 0 or n == 0:
        return full(ar1.shape, invert, dtype=numpy.bool_)
    dtype = numpy.result_type(ar1.dtype, ar2.dtype)
    s = sort(ar2.astype(dtype, copy=False))
    x = ar1.astype(dtype, copy=False)
    # The first sorted test value not below x; x is a member iff that value equals x.
    pos = _math.minimum(searchsorted(s, x), n - 1)
    found = _math.equal(s[pos], x)
    return _math.logical_not(found) if invert else found


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """A boolean array of ``element``'s shape: True where the element is one of
    ``test_elements`` (flattened), or the opposite with ``invert``. Values compare in
    their common dtype; NaN is in no set.

    .. seealso:: numpy.isin"""
    element = asarray(element)
    return _in_flat(element.reshape(-1), _flat(test_elements), invert, kind).reshape(element.shape)


def in1d(ar1, ar2, assume_unique=False, invert=False, *, kind=None):
    """``isin`` of the flattened ``ar1`` (a 1-d result). NumPy deprecated it in 2.0 and
    removed it in 2.4; gpupy keeps it, as CuPy does, with NumPy 2.0's warning.

    .. seealso:: numpy.isin"""
    warnings.warn("`in1d` is deprecated. Use `np.isin` instead.", DeprecationWarning, stacklevel=2)
    return _in_flat(_flat(ar1), _flat(ar2), invert, kind)


def _neighbours_equal(aux):
    return _math.equal(aux[1:], aux[:-1])


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted unique values in both ``ar1`` and ``ar2`` (flattened); with
    ``return_indices``, also the (int64) indices of their first occurrences in each.

    .. seealso:: numpy.intersect1d"""
    ar1 = asarray(ar1)
    ar2 = asarray(ar2)
    if not assume_unique:
        if return_indices:
            ar1, ind1 = unique(ar1, return_index=True)
            ar2, ind2 = unique(ar2, return_index=True)
        else:
            ar1 = unique(ar1)
            ar2 = unique(ar2)
    else:
        ar1 = ar1.reshape(-1)
        ar2 = ar2.reshape(-1)
    aux = concatenate((ar1, ar2))
    if aux.size == 0:
        # NumPy's neighbour comparison of an empty array: empty results.
        empty_idx = empty(0, dtype=numpy.int64)
        return (aux, empty_idx, empty_idx.copy()) if return_indices else aux
    if return_indices:
        order = argsort(aux)  # stable, as NumPy's kind='mergesort'
        aux = aux[order]
    else:
        aux = sort(aux)
    mask = _neighbours_equal(aux)
    int1d = aux[:-1][mask]
    if not return_indices:
        return int1d
    ar1_indices = order[:-1][mask]
    ar2_indices = order[1:][mask] - ar1.size
    if not assume_unique:
        ar1_indices = ind1[ar1_indices]
        ar2_indices = ind2[ar2_indices]
    return int1d, ar1_indices, ar2_indices


def union1d(ar1, ar2):
    """The sorted unique values in either array (both flattened).

    .. seealso:: numpy.union1d"""
    return unique(concatenate((asarray(ar1), asarray(ar2)), axis=None))


def setdiff1d(ar1, ar2, assume_unique=False):
    """The values of ``ar1`` not in ``ar2``: sorted and unique, or in ``ar1``'s order with
    ``assume_unique``.

    .. seealso:: numpy.setdiff1d"""
    if assume_unique:
        ar1 = _flat(ar1)
    else:
        ar1 = unique(ar1)
        ar2 = unique(ar2)
    return ar1[_in_flat(ar1, _flat(ar2), True, None)]


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted unique values in exactly one of the arrays.

    .. seealso:: numpy.setxor1d"""
    if not assume_unique:
        ar1 = unique(ar1)
        ar2 = unique(ar2)
    aux = concatenate((asarray(ar1), asarray(ar2)), axis=None)
    if aux.size == 0:
        return aux
    aux = sort(aux)
    # flag[i]: aux[i] differs from aux[i-1] (True at both ends); keep values that differ
    # from both neighbours.
    flag = full(aux.size + 1, True, dtype=numpy.bool_)
    if aux.size > 1:
        flag[1:-1] = _math.not_equal(aux[1:], aux[:-1])
    return aux[_math.logical_and(flag[1:], flag[:-1])]

