"""CuPy's ``cupy.cuda.runtime`` names that gpupy provides."""

from gpupy import _gpupy
from gpupy._gpupy import CUDARuntimeError


def getDeviceCount():
    return _gpupy.get_device_count()


def getDeviceProperties(device):
    """A dict of ``cudaDeviceProp`` fields: ``name`` (bytes, as CuPy), ``multiProcessorCount``,
    ``totalGlobalMem``, ``major``, ``minor``, ``sharedMemPerBlock``, ``l2CacheSize``, ..."""
    return _gpupy.device_properties(int(device))


def getDevice():
    return _gpupy.get_device_id()


def deviceSynchronize():
    _gpupy.device_synchronize(_gpupy.get_device_id())


__all__ = ["CUDARuntimeError", "getDeviceCount", "getDeviceProperties", "getDevice", "deviceSynchronize"]
