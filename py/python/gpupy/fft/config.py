"""The FFT plan cache, with CuPy's ``cupy.fft.config`` names.

The FFT primitives keep their plans (twiddle tables, Bluestein chirps, ...) in a
least-recently-used cache per device, in the extension (``_fft_cache_*``): a plan
depends on the transform's length, dtype and kind, not on the array's strides or batch,
so a transform of a view reuses the plan of the contiguous array. ``PlanCache`` is a
view of one device's cache: its limits and contents live in the extension, so every
``PlanCache`` of a device, and every thread, sees the same cache (CuPy keeps one per
thread and device). As in CuPy, a size or memsize limit of -1 is no limit and 0
disables caching (each transform then plans afresh).

``enable_nd_planning`` and ``use_multi_gpus`` are accepted for CuPy code that sets
them and have no effect: gpupy transforms several axes one axis at a time, on the
current device.
"""

import operator as _operator

from gpupy import _gpupy
from gpupy.cuda import Device as _Device, runtime as _runtime

__all__ = ["PlanCache", "get_plan_cache", "clear_plan_cache", "get_plan_cache_size", "set_plan_cache_size",
           "get_plan_cache_max_memsize", "set_plan_cache_max_memsize", "show_plan_cache_info",
           "enable_nd_planning", "use_multi_gpus"]

enable_nd_planning = True
use_multi_gpus = False


def _limit(value):
    """A size or memsize limit: an int >= -1 (CuPy's ValueError message)."""
    value = _operator.index(value)
    if value < -1:
        raise ValueError("invalid input")
    return value


class PlanCache:
    """One device's FFT plan cache (CuPy's ``cupy.fft._cache.PlanCache`` methods).
    Get it with ``get_plan_cache()`` under the device's context."""

    def __init__(self, dev=None):
        self.dev = _Device().id if dev is None else int(dev)

    def _info(self):
        with _Device(self.dev):
            return _gpupy._fft_cache_info()

    def _set_limits(self, size, memsize):
        with _Device(self.dev):
            _gpupy._fft_cache_set_limits(size, memsize)

    def get_size(self):
        """The most plans the cache holds (-1: no limit)."""
        return self._info()["size_limit"]

    def set_size(self, size):
        """Sets the most plans held, evicting the least recently used ones over it;
        0 disables the cache, -1 removes the limit."""
        self._set_limits(_limit(size), self.get_memsize())

    def get_curr_size(self):
        """How many plans the cache holds now."""
        return self._info()["size"]

    def get_memsize(self):
        """The most device memory, in bytes, the cached plans may hold (-1: no limit)."""
        return self._info()["memsize_limit"]

    def set_memsize(self, memsize):
        """Sets the memory limit of the cached plans (bytes; 0 disables the cache, -1
        removes the limit)."""
        self._set_limits(self.get_size(), _limit(memsize))

    def get_curr_memsize(self):
        """The device memory, in bytes, the cached plans hold now."""
        return self._info()["memsize"]

    def clear(self):
        """Drops every cached plan (the limits stay)."""
        with _Device(self.dev):
            _gpupy._fft_cache_clear()

    def show_info(self):
        """Prints the cache's limits and plans."""
        print(self)

    def __iter__(self):
        """The cached plans as the extension lists them: (n, dtype name, kind, nbytes)."""
        return iter(list(self._info()["entries"]))

    def __len__(self):
        return self.get_curr_size()

    def __repr__(self):
        info = self._info()
        size, memsize = info["size_limit"], info["memsize_limit"]
        lines = [
            f"------------------- gpupy FFT plan cache (device {self.dev}) -------------------",
            f"cache enabled? {size != 0 and memsize != 0}",
            f"current / max size   : {info['size']} / {'(unlimited)' if size == -1 else size} (counts)",
            f"current / max memsize: {info['memsize']} / {'(unlimited)' if memsize == -1 else memsize} (bytes)",
            "",
            "cached plans (n, dtype, kind, bytes):",
        ]
        lines += [f"{n}, {dtype}, {kind}, {nbytes}" for n, dtype, kind, nbytes in info["entries"]]
        return "\n".join(lines) + "\n"


_caches = {}


def get_plan_cache():
    """The current device's plan cache (the same object on each call)."""
    dev = _Device().id
    cache = _caches.get(dev)
    if cache is None:
        cache = _caches[dev] = PlanCache(dev)
    return cache


def clear_plan_cache():
    get_plan_cache().clear()


def get_plan_cache_size():
    return get_plan_cache().get_size()


def set_plan_cache_size(size):
    get_plan_cache().set_size(size)


def get_plan_cache_max_memsize():
    return get_plan_cache().get_memsize()


def set_plan_cache_max_memsize(size):
    get_plan_cache().set_memsize(size)


def show_plan_cache_info():
    """Prints every device's plan cache."""
    print("=============== gpupy FFT plan cache info (all devices) ===============")
    for dev in range(_runtime.getDeviceCount()):
        PlanCache(dev).show_info()
