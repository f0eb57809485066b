"""``lexsort``: the indirect stable sort on several keys (NumPy's "Sorting"), composed of
gpupy's stable ``argsort`` (a radix sort on the GPU) and ``take_along_axis``: one pass
per key from the last-significant (the first key) to the primary (the last key), each
pass stably re-sorting the order found so far by the next key.
"""

import operator

import numpy

from gpupy._creation import asarray, zeros
from gpupy._gpupy import ndarray
from gpupy._index_tricks import take_along_axis
from gpupy._manipulation import _normalize_axis
from gpupy._sorting import argsort

__all__ = ["lexsort"]


def lexsort(keys, axis=-1):
    """The int64 indices that sort by the last key, then ties by the one before, and so
    on, along ``axis``; ``keys`` a sequence of same-shaped arrays or a 2-d array (its
    rows). Stable, as NumPy's ``lexsort``.

    .. seealso:: numpy.lexsort"""
    if isinstance(keys, ndarray):
        keys = [keys[i] for i in range(keys.shape[0])] if keys.ndim else []
    else:
        try:
            keys = [asarray(k) for k in keys]
        except TypeError:
            keys = []
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    shape = tuple(keys[0].shape)
    if any(tuple(k.shape) != shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    axis = operator.index(axis)
    if not shape:
        return zeros((), dtype=numpy.int64)  # NumPy's answer for scalar keys
    axis = _normalize_axis(axis, len(shape))
    order = argsort(keys[0], axis=axis)
    for key in keys[1:]:
        order = take_along_axis(order, argsort(take_along_axis(key, order, axis), axis=axis), axis)
    return order
