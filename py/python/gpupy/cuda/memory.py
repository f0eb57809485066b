"""The device memory pool (CuPy's ``cupy.cuda.MemoryPool``).

gpupy keeps one caching pool per device in Rust; this class is a view of the current
device's pool with CuPy's method names.
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

    def free_all_blocks(self, stream=None):
        """Returns every cached block to the driver."""
        _gpupy.pool_free_all_blocks(self._id())


_default_pool = MemoryPool()


def get_default_memory_pool():
    return _default_pool


__all__ = ["MemoryPool", "OutOfMemoryError", "get_default_memory_pool"]
