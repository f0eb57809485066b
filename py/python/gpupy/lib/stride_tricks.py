"""``numpy.lib.stride_tricks`` on gpupy arrays: views with chosen strides.

``as_strided`` makes a view of an array's memory with any shape and byte strides, as
NumPy's; unlike NumPy's, a view that would reach past the array's memory is refused
(ValueError), and strides must be multiples of the item size. Views may overlap
themselves (``sliding_window_view``): writing into one changes every element that
shares the memory.
"""

import operator

import numpy
from numpy.lib.array_utils import normalize_axis_tuple

from gpupy import _gpupy
from gpupy._gpupy import ndarray


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """A view of `x`'s memory with `shape` and byte `strides` (NumPy's ``as_strided``;
    `subok` and `writeable` are accepted: gpupy has no subclasses or read-only arrays)."""
    if not isinstance(x, ndarray):
        raise TypeError(f"as_strided takes a gpupy array, not {type(x).__name__}")
    shape = tuple(x.shape) if shape is None else tuple(operator.index(n) for n in shape)
    strides = tuple(x.strides) if strides is None else tuple(operator.index(s) for s in strides)
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")
    return _gpupy._as_strided(x, list(shape), list(strides))


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Every window of `window_shape` over `x` (along `axis`, or all axes) as a view of
    shape ``x.shape`` less each window plus one, then the window's axes (NumPy's
    ``sliding_window_view``, with its checks and messages)."""
    window_shape = tuple(window_shape) if numpy.iterable(window_shape) else (window_shape,)
    if any(w < 0 for w in window_shape):
        raise ValueError("`window_shape` cannot contain negative values")
    if axis is None:
        axis = tuple(range(x.ndim))
        if len(window_shape) != len(axis):
            raise ValueError(f"Since axis is `None`, must provide window_shape for all dimensions of `x`; "
                             f"got {len(window_shape)} window_shape elements and `x.ndim` is {x.ndim}.")
    else:
        axis = normalize_axis_tuple(axis, x.ndim, allow_duplicate=True)
        if len(window_shape) != len(axis):
            raise ValueError(f"Must provide matching length window_shape and axis; "
                             f"got {len(window_shape)} window_shape elements and {len(axis)} axes elements.")
    out_strides = tuple(x.strides) + tuple(x.strides[a] for a in axis)
    shape = list(x.shape)
    for a, w in zip(axis, window_shape):
        if shape[a] < w:
            raise ValueError("window shape cannot be larger than input array shape")
        shape[a] -= w - 1
    return as_strided(x, tuple(shape) + window_shape, out_strides)


__all__ = ["as_strided", "sliding_window_view"]
