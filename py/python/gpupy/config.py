"""Process-wide switches, like CuPy's environment variables.

TF32: float32 matrix products (``matmul``, ``@``, ``dot``, ``einsum``, ...) may run on
the tensor cores' TF32 format on GPUs of compute capability 8.0 and up. TF32 keeps 10
of float32's 23 mantissa bits of each input (gpupy truncates them) and accumulates in
float32, so a product's norm-wise relative error grows from about 1e-7 to about 1e-3;
speed goes up several times. Off by default (NumPy's and CuPy's exact float32); turn it
on with the environment variable ``GPUPY_TF32=1`` (read when gpupy is imported, as
CuPy reads ``CUPY_TF32``) or at run time with ``set_tf32(True)``.
"""

import os as _os

from gpupy import _gpupy


def set_tf32(enabled):
    """Use TF32 tensor cores for float32 matrix products (True) or exact float32 (False)."""
    _gpupy._set_tf32(bool(enabled))


def tf32():
    """Whether float32 matrix products use TF32 tensor cores."""
    return _gpupy._tf32()


class allow_tf32:
    """Context manager: ``with gpupy.config.allow_tf32(): ...`` runs the block with TF32
    on (or off, with ``allow_tf32(False)``) and restores the previous setting."""

    def __init__(self, enabled=True):
        self.enabled = bool(enabled)

    def __enter__(self):
        self.previous = tf32()
        set_tf32(self.enabled)
        return self

    def __exit__(self, *exc):
        set_tf32(self.previous)
        return False


set_tf32(_os.environ.get("GPUPY_TF32", "0").strip().lower() in ("1", "true", "yes", "on"))

__all__ = ["set_tf32", "tf32", "allow_tf32", "matmul_switches", "matmul_path"]


def matmul_path():
    """The kernel family that ran the last matrix product: ``"simt"`` (CUDA cores),
    ``"gemv"`` (matrix-vector), ``"mma"`` (``mma.sync`` tensor cores), ``"wgmma"``
    (Hopper's warpgroup tensor cores), or ``"none"``. For tests and tuning."""
    return _gpupy._matmul_path()


class matmul_switches:
    """Context manager that pins the kernel path of matrix products for the block, then
    restores the previous switches (process-wide, like ``allow_tf32``); for tests that
    must run every path the GPU has, and for measurements.

    - ``tile``: force this tile of the product's table (``kernels/src/matmul/tiles.rs``,
      ``mma_layout.rs``) where it has one (``GPUPY_MATMUL_TILE``);
    - ``no_tc``: keep float16 and float64 off the tensor cores (``GPUPY_MATMUL_NO_TC``);
    - ``no_sm90``: keep float64 on the Ampere ``m8n8k4`` shape on Hopper
      (``GPUPY_MATMUL_NO_SM90``);
    - ``no_wgmma``: keep float16/TF32 on ``mma.sync`` on Hopper (``GPUPY_MATMUL_NO_WGMMA``).

    The environment variables give the switches' values until this is used.
    """

    def __init__(self, tile=None, no_tc=False, no_sm90=False, no_wgmma=False):
        self.switches = (tile, bool(no_tc), bool(no_sm90), bool(no_wgmma))

    def __enter__(self):
        self.previous = _gpupy._matmul_switches()
        _gpupy._set_matmul_switches(*self.switches)
        return self

    def __exit__(self, *exc):
        _gpupy._set_matmul_switches(*self.previous)
        return False
