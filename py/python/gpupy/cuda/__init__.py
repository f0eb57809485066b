"""GPU-specific names, as CuPy's ``cupy.cuda``: devices, events, streams, the memory pool."""

from gpupy import _gpupy
from gpupy._gpupy import CUDARuntimeError, Event, OutOfMemoryError, get_elapsed_time
from gpupy.cuda import compiler, memory, pinned_memory, runtime
from gpupy.cuda.memory import MemoryPool, get_allocator, set_allocator
from gpupy.cuda.pinned_memory import (
    PinnedMemoryPointer,
    PinnedMemoryPool,
    alloc_pinned_memory,
    get_default_pinned_memory_pool,
    set_pinned_memory_allocator,
)
from gpupy.cuda.stream import ExternalStream, Stream, get_current_stream


def is_available():
    """Whether a CUDA driver and at least one GPU are present. False when there is no
    driver or the driver reports no GPU; a driver that fails (too old, or an error from
    its initialization) raises ``CUDARuntimeError`` with the driver's message, since
    that is something to fix rather than a machine without a GPU."""
    state, detail = _gpupy.availability()
    if state == "broken":
        raise CUDARuntimeError(detail)
    return state == "ready"


class Device:
    """A GPU (CuPy's ``cupy.cuda.Device``). ``with Device(1):`` makes it current."""

    def __init__(self, device=None):
        self.id = _gpupy.get_device_id() if device is None else int(device)
        self._previous = []

    @property
    def compute_capability(self):
        """``'90'`` for an H100, as CuPy reports it."""
        return _gpupy.device_compute_capability(self.id)

    @property
    def mem_info(self):
        """(free, total) bytes of device memory."""
        return _gpupy.device_mem_info(self.id)

    def synchronize(self):
        """Waits for all work queued on this device."""
        _gpupy.device_synchronize(self.id)

    def use(self):
        _gpupy.set_device_id(self.id)

    def __enter__(self):
        self._previous.append(_gpupy.get_device_id())
        self.use()
        return self

    def __exit__(self, *exc):
        _gpupy.set_device_id(self._previous.pop())

    def __int__(self):
        return self.id

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


__all__ = [
    "CUDARuntimeError",
    "OutOfMemoryError",
    "Device",
    "Event",
    "Stream",
    "ExternalStream",
    "PinnedMemoryPointer",
    "PinnedMemoryPool",
    "alloc_pinned_memory",
    "get_default_pinned_memory_pool",
    "pinned_memory",
    "set_allocator",
    "get_allocator",
    "set_pinned_memory_allocator",
    "MemoryPool",
    "get_elapsed_time",
    "get_current_stream",
    "is_available",
    "compiler",
    "memory",
    "runtime",
]
