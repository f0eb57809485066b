"""Users' own kernels (CuPy's ``RawModule``, ``RawKernel``, ``ElementwiseKernel``,
``ReductionKernel``, ``memoize``), in CUDA C through NVRTC or in Rust through rustc.

Files: ``_params`` (CuPy's parameter language), ``_layout`` (broadcasting and strides),
``_args`` (argument conversion), ``_cache`` (compiled modules on disk and in memory),
``_nvrtc``/``_rustc`` (the two compilers), ``_cuda_source``/``_rust_source`` (the
generated kernels), ``_raw``, ``_elementwise``, ``_reduction`` (the classes), ``_memo``.
"""

from gpupy._userkernel._elementwise import ElementwiseKernel
from gpupy._userkernel._memo import clear_memo, memoize
from gpupy._userkernel._raw import RawKernel, RawModule
from gpupy._userkernel._reduction import ReductionKernel

__all__ = ["RawModule", "RawKernel", "ElementwiseKernel", "ReductionKernel", "memoize",
           "clear_memo"]
