"""gpupy: a CuPy-like GPU array library whose kernels are written in Rust.

    import numpy as np
    import gpupy as gp

    x = gp.asarray(np.random.rand(1000, 1000).astype(np.float32))
    y = (x @ x.T + 1.0).sum()
    print(float(y))

The names follow NumPy; GPU-specific ones follow CuPy (``gpupy.cuda.Device``,
``gpupy.cuda.Event``, ``gpupy.get_default_memory_pool()``).
"""

# The modules import what they use at their tops, never inside functions, and without
# cycles: each imports only from the lines above its own.
#   _gpupy (the Rust extension); _methods, _dtypes, config, cuda
#   _creation                 array, asarray, empty, zeros, full, *_like, eye
#   _indexing                 take, put, where, nonzero, ... (the gather/select kernels)
#   _math, _manipulation      ufuncs and their compositions; shapes, joins, splits
#   _ranges, then _matrices   arange, linspace, logspace, meshgrid; tri, diag, diagflat,
#                             tril, triu and the triangle indices
#   _reduction, _scan, _sorting
#   _linalg, then linalg (its primitives module _decomp on the core modules, the
#   functions over it); _array_api (on _math and cuda); random (on the modules above)
#   fft (on _creation, _manipulation, _ranges, cuda and the extension's FFT primitives)
# This package module imports them all and re-exports their public names.

from numpy import (  # dtypes are NumPy's own objects, so dtype=np.float32 and gp.float32 agree
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)

from gpupy import cuda
from gpupy._gpupy import ndarray
from gpupy._creation import array, asarray, asnumpy, empty, full, ones, zeros
from gpupy import _creation, _manipulation
from gpupy._creation import *  # noqa: F401,F403  (creation from shapes, values, data)
from gpupy import _ranges, _matrices
from gpupy._ranges import *  # noqa: F401,F403  (numerical ranges)
from gpupy._matrices import *  # noqa: F401,F403  (diag, diagflat, tri, tril, triu, tri*_indices)
from gpupy._manipulation import *  # noqa: F401,F403  (shape manipulation, joins, splits)
from gpupy import _math
from gpupy._math import *  # noqa: F401,F403  (ufuncs and math functions)
from gpupy._math import _UFUNC_NAMES
from gpupy._indexing import argwhere, compress, extract, flatnonzero, nonzero, put, take, where
from gpupy.cuda.memory import MemoryPool, get_default_memory_pool
from gpupy.cuda.pinned_memory import get_default_pinned_memory_pool
from gpupy import _reduction
from gpupy._reduction import *  # noqa: F401,F403,A004  (reductions and statistics: NumPy's names)
from gpupy import _sorting
from gpupy._sorting import *  # noqa: F401,F403  (sorting, searching, unique, quantiles)
from gpupy import _scan
from gpupy._scan import *  # noqa: F401,F403  (scans, diff, bincount, histogram)
from gpupy import _array_api
from gpupy._array_api import *  # noqa: F401,F403
from gpupy._array_api import __array_api_version__, __array_namespace_info__

__version__ = "0.1.0"

__all__ = [
    "ndarray",
    "array",
    "asarray",
    "asnumpy",
    "empty",
    "zeros",
    "ones",
    "full",
    *_UFUNC_NAMES,
    "ufunc",
    "true_divide",
    "mod",
    "abs",
    "conj",
    "radians",
    "degrees",
    "bitwise_not",
    "divmod",
    "real",
    "imag",
    "angle",
    "around",
    "round",
    "clip",
    "nan_to_num",
    "isposinf",
    "isneginf",
    "dot",
    "matmul",
    "take",
    "put",
    "where",
    "nonzero",
    "argwhere",
    "flatnonzero",
    "compress",
    "extract",
    "cuda",
    *_reduction.__all__,
    *_sorting.__all__,
    *_scan.__all__,
    *_array_api.__all__,
    "get_default_memory_pool",
    "get_default_pinned_memory_pool",
    "MemoryPool",
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]

# bfloat16 is ml_dtypes' type (NumPy has none): present when ml_dtypes is installed.
try:
    from ml_dtypes import bfloat16  # noqa: E402

    __all__ += ["bfloat16"]
except ImportError:  # pragma: no cover - depends on the environment
    pass

# Dtype routines, the linear-algebra compositions over matmul, and the TF32 switch.
from gpupy._dtypes import can_cast, finfo, iinfo, result_type  # noqa: E402
from gpupy._linalg import einsum, inner, kron, outer, tensordot, trace, vdot, vecdot  # noqa: E402
from gpupy import config, fft, linalg, random  # noqa: E402

__all__ += ["can_cast", "finfo", "iinfo", "result_type", "vecdot", "einsum", "inner", "kron", "outer", "tensordot", "trace", "vdot", "linalg", "config", "random", "fft"]

__all__ += [
    n for n in _creation.__all__ + _ranges.__all__ + _matrices.__all__ + _manipulation.__all__ if n not in __all__
]
