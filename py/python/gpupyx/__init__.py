"""GPU-specific extras under CuPy's ``cupyx`` names: code that imports ``cupyx`` runs with
``gpupyx`` in its place.

- ``empty_pinned``, ``zeros_pinned``, ``empty_like_pinned``, ``zeros_like_pinned``: NumPy
  arrays in pinned host memory, which the GPU's copy engines read and write at the bus's
  full rate.
- ``gpupyx.scipy``: SciPy's names on gpupy arrays (``gpupyx.scipy.fft``,
  ``gpupyx.scipy.fftpack``), loaded on first use as CuPy loads ``cupyx.scipy``'s.
"""

import importlib as _importlib

import numpy as _numpy

from gpupy.cuda.pinned_memory import alloc_pinned_memory as _alloc_pinned_memory


def empty_pinned(shape, dtype=float, order="C"):
    """A NumPy array of ``shape`` in pinned host memory, uninitialized."""
    if order not in ("C", "F"):
        raise ValueError("order must be 'C' or 'F'")
    shape = (shape,) if _numpy.ndim(shape) == 0 else tuple(shape)
    dtype = _numpy.dtype(dtype)
    count = int(_numpy.prod(shape, dtype=_numpy.int64))
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")
    mem = _alloc_pinned_memory(count * dtype.itemsize)
    flat = _numpy.frombuffer(mem.buffer(), dtype=dtype, count=count)
    return flat.reshape(shape, order=order)


def zeros_pinned(shape, dtype=float, order="C"):
    """A NumPy array of ``shape`` in pinned host memory, zero-filled."""
    a = empty_pinned(shape, dtype, order)
    a[...] = 0
    return a


def empty_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    """A pinned NumPy array of ``a``'s shape and dtype (C order), uninitialized."""
    return empty_pinned(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)


def zeros_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    """A pinned NumPy array of ``a``'s shape and dtype (C order), zero-filled."""
    return zeros_pinned(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)


def __getattr__(name):
    """``gpupyx.scipy`` without importing it at ``import gpupyx``."""
    if name == "scipy":
        return _importlib.import_module("gpupyx.scipy")
    raise AttributeError(f"module 'gpupyx' has no attribute '{name}'")


__all__ = ["empty_pinned", "zeros_pinned", "empty_like_pinned", "zeros_like_pinned"]
