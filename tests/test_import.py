"""Tests that run with and without a GPU: the package imports, and without a GPU the
first use of the device fails with gpupy.cuda.CUDARuntimeError naming the driver."""

import importlib.metadata

import numpy as np
import pytest

import gpupy as gp


def test_import_exposes_the_public_names():
    assert len(gp.__all__) == len(set(gp.__all__)), "duplicate names in gpupy.__all__"
    for name in gp.__all__:
        assert hasattr(gp, name), name
    for name in gp.cuda.__all__:
        assert hasattr(gp.cuda, name), name
    # The version is the installed distribution's, not a placeholder.
    assert gp.__version__ == importlib.metadata.version("gpupy")
    # ndarray is the class of the arrays gpupy makes (a Rust type with CuPy's methods).
    assert {"get", "set", "astype", "reshape", "T", "flags", "data"} <= set(dir(gp.ndarray))
    # Dtypes are NumPy's own objects.
    for name in ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64", "complex64", "complex128"):
        assert getattr(gp, name) is getattr(np, name), name
    assert gp.true_divide is gp.divide


def test_exception_hierarchy():
    assert issubclass(gp.cuda.CUDARuntimeError, RuntimeError)
    assert issubclass(gp.cuda.OutOfMemoryError, MemoryError)
    assert gp.cuda.memory.OutOfMemoryError is gp.cuda.OutOfMemoryError
    assert gp.cuda.runtime.CUDARuntimeError is gp.cuda.CUDARuntimeError


def test_is_available_returns_a_bool_unless_the_driver_fails():
    state, detail = gp._gpupy.availability()
    assert state in ("ready", "absent", "broken")
    if state == "broken":
        # A driver that fails is an error with the driver's message, not False.
        with pytest.raises(gp.cuda.CUDARuntimeError, match="(?i)driver|cuInit|cuDevice"):
            gp.cuda.is_available()
        return
    got = gp.cuda.is_available()
    assert type(got) is bool
    assert gp.cuda.is_available() is got  # stable: the driver is probed once
    # It agrees with the first real use: that succeeds exactly when a GPU is available.
    try:
        count = gp.cuda.runtime.getDeviceCount()
    except gp.cuda.CUDARuntimeError:
        assert got is False and state == "absent" and detail
    else:
        assert got is True and count == detail >= 1


@pytest.mark.nogpu
@pytest.mark.parametrize(
    "first_use",
    [
        lambda: gp.zeros(3),
        lambda: gp.asarray(np.random.default_rng().uniform(-1, 1, 5)),
        lambda: gp.empty((2, 3), dtype=np.float32),
        lambda: gp.cuda.runtime.getDeviceCount(),
        lambda: gp.cuda.runtime.getDeviceProperties(0),
        lambda: gp.cuda.Device(0).synchronize(),
        lambda: gp.cuda.Event(),
        lambda: gp.get_default_memory_pool().used_bytes(),
    ],
    ids=["zeros", "asarray", "empty", "getDeviceCount", "getDeviceProperties", "synchronize", "Event", "pool"],
)
def test_first_gpu_use_without_gpu_raises_cuda_runtime_error(first_use):
    for _ in range(2):  # the same clear error every time, not a crash on the second try
        with pytest.raises(gp.cuda.CUDARuntimeError, match="(?i)driver"):
            first_use()
    assert gp.cuda.is_available() is False


@pytest.mark.gpu
def test_first_gpu_use_with_gpu_works(rng):
    assert gp.cuda.is_available() is True
    assert gp.cuda.runtime.getDeviceCount() >= 1
    x = rng.uniform(-1, 1, 37)
    np.testing.assert_array_equal(gp.asarray(x).get(), x)
