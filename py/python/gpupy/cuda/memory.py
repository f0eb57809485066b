"""The device memory pool (CuPy's ``cupy.cuda.MemoryPool``).

gpupy keeps one caching pool per device in Rust, with a free list per stream (a block
freed on a stream is reused only by later work on that stream, which runs after the
block's last use); this class is a view of the current device's pool with CuPy's method
names.
"""

from gpupy import _gpupy
from gpupy._gpupy import OutOfMemoryError




class MemoryPool:
    def __init__(self, device=None):
        self._device = device

    def _id(self):
        return _gpupy.get_device_id() if self._device is None else self._device

    def used_bytes(self):
        """Bytes held by live arrays (counted by block size)."""
        return _gpupy.pool_used_bytes(self._id())

    def total_bytes(self):
        """Bytes held from the driver: live plus cached blocks."""
        return _gpupy.pool_total_bytes(self._id())

    def free_bytes(self):
        """Bytes in cached blocks, ready for reuse."""
        return _gpupy.pool_free_bytes(self._id())

    def n_free_blocks(self):
        """Cached blocks, ready for reuse."""
        return _gpupy.pool_n_free_blocks(self._id())

    def free_all_blocks(self, stream=None):
        """Returns every cached block to the driver (after waiting for the device's
        work, which may still use them)."""
        _gpupy.pool_free_all_blocks(self._id())

    def set_limit(self, size=None, fraction=None):
        """Caps the bytes the pool holds from the driver at ``size``, or at ``fraction``
        of the device's memory; neither (or 0) removes the cap. An allocation past it
        frees the cache, then raises ``OutOfMemoryError``."""
        if size is not None and fraction is not None:
            raise ValueError("You cannot specify both size and fraction")
        if fraction is not None:
            if not 0 <= fraction <= 1:
                raise ValueError("memory limit fraction out of range")
            size = int(_gpupy.device_mem_info(self._id())[1] * fraction)
        size = 0 if size is None else int(size)
        if size < 0:
            raise ValueError("memory limit size must be non-negative")
        _gpupy.pool_set_limit(self._id(), size)

    def get_limit(self):
        """The cap set by ``set_limit`` in bytes (0: none)."""
        return _gpupy.pool_get_limit(self._id())


_default_pool = MemoryPool()
_allocator = None


def set_allocator(allocator=None):
    """Routes every device allocation through ``allocator(size)``, which returns an
    object whose ``ptr`` is the address of ``size`` bytes of the current device (kept
    allocated while the object lives), e.g. another library's caching allocator.
    ``None`` restores gpupy's pool. As with CuPy, the allocator owns the memory's stream
    order: gpupy's per-stream reuse rules no longer apply to it."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise TypeError("allocator must be callable or None")
    _gpupy.set_allocator(allocator)
    _allocator = allocator


def get_allocator():
    """The allocator set by ``set_allocator`` (None: gpupy's pool)."""
    return _allocator


def get_default_memory_pool():
    return _default_pool


__all__ = ["set_allocator", "get_allocator", "MemoryPool", "OutOfMemoryError", "get_default_memory_pool"]
