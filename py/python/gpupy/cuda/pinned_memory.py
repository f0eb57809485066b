"""Pinned (page-locked) host memory (CuPy's ``cupy.cuda.pinned_memory``).

The copy engines move pinned memory at the bus's full rate; ``gpupyx.empty_pinned``
gives NumPy arrays in it. Blocks come from one caching pool per process (in Rust,
``host/src/pinned.rs``); this module gives them CuPy's classes and names.
"""

import ctypes

from gpupy import _gpupy


class PinnedMemoryPointer:
    """``size`` bytes of pinned host memory at ``ptr``, returned to the pool when the
    last reference (including NumPy arrays over it) is gone. It exposes the buffer
    protocol through ``memoryview(p)``-compatible ``p.buffer()``."""

    def __init__(self, size):
        self._mem = _gpupy.pinned_alloc(int(size))
        self.size = int(size)

    @property
    def ptr(self):
        return self._mem.ptr

    def buffer(self):
        """A ctypes byte array over the memory that keeps this pointer alive (NumPy's
        ``frombuffer`` takes it)."""
        buf = (ctypes.c_byte * self.size).from_address(self.ptr)
        buf._owner = self  # the array's base holds the block
        return buf

    def __int__(self):
        return self.ptr


def alloc_pinned_memory(size):
    """``size`` bytes of pinned host memory (CuPy's ``alloc_pinned_memory``)."""
    return PinnedMemoryPointer(size)


class PinnedMemoryPool:
    """A view of the process's pinned-memory pool with CuPy's method names."""

    def malloc(self, size):
        return PinnedMemoryPointer(size)

    def free_all_blocks(self):
        """Returns every cached pinned block to the driver (after waiting for the
        device's copies)."""
        _gpupy.pinned_free_all_blocks()

    def used_bytes(self):
        return _gpupy.pinned_stats()[0]

    def total_bytes(self):
        return _gpupy.pinned_stats()[1]

    def free_bytes(self):
        used, total, _ = _gpupy.pinned_stats()
        return total - used

    def n_free_blocks(self):
        return _gpupy.pinned_stats()[2]


_default_pool = PinnedMemoryPool()


def set_pinned_memory_allocator(allocator=None):
    """Routes pinned host allocations (``gpupyx.empty_pinned``, ``alloc_pinned_memory``
    and the transfers' staging buffers) through ``allocator(size)``, which returns an
    object whose ``ptr`` is the address of ``size`` bytes of page-locked host memory,
    kept while the object lives. ``None`` restores gpupy's pinned pool."""
    if allocator is not None and not callable(allocator):
        raise TypeError("allocator must be callable or None")
    _gpupy.set_pinned_memory_allocator(allocator)


def get_default_pinned_memory_pool():
    return _default_pool


__all__ = [
    "PinnedMemoryPointer",
    "PinnedMemoryPool",
    "alloc_pinned_memory",
    "get_default_pinned_memory_pool",
    "set_pinned_memory_allocator",
]
