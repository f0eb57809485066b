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
#   _types, _errstate, _printing   NumPy's type names and constants; error settings
#                             (recorded only); printing through NumPy on a host copy
#   _creation                 array, asarray, empty, zeros, full, *_like, eye
#   _indexing                 take, put, where, nonzero, ... (the gather/select kernels)
#   _math, _manipulation      ufuncs and their compositions; shapes, joins, splits
#   _ranges, then _matrices   arange, linspace, logspace, meshgrid; tri, diag, diagflat,
#                             tril, triu and the triangle indices
#   _reduction, _scan, _sorting
#   _index_tricks, _sets, _manipulation_more, then _creation_more: index grids and
#                             masked writes, set routines, insert/delete/block, geomspace
#                             and the from* constructors (on the modules above)
#   _io, _array_info          load/save through NumPy on host copies; shape, ndim, size,
#                             shares_memory (on _creation and the extension only)
#   _linalg, then linalg (its primitives module _decomp on the core modules, the
#   functions over it); _array_api (on _math and cuda); random (on the modules above)
#   fft (on _creation, _manipulation, _ranges, cuda and the extension's FFT primitives)
#   _comparison, _ufunclike, _type_check, _calculus, _interpolation, then _convolution
#                             (on fft), _vector_products, _window, then _polynomial (on
#                             linalg and the lines before it): NumPy's numeric functions
#                             composed of the modules above
#   _statistics_more, _histograms_more, _lexsort, _bits, _shape_logic, emath: cov,
#                             corrcoef, nan-quantiles, histogram2d/dd, lexsort, packbits,
#                             diagonal, broadcast, einsum_path and numpy.emath (on the above)
#   testing (on _creation: NumPy's assertions on host copies); lib (stride_tricks: views
#   by strides, on the extension)
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
from gpupy import _index_tricks, _sets, _manipulation_more, _creation_more, _io, _array_info
from gpupy._index_tricks import *  # noqa: F401,F403  (index grids, along-axis and masked writes, r_, mgrid)
from gpupy._sets import *  # noqa: F401,F403  (isin, intersect1d, union1d, ...)
from gpupy._manipulation_more import *  # noqa: F401,F403  (append, insert, delete, block, ...)
from gpupy._creation_more import *  # noqa: F401,F403  (geomspace, fromfunction, from*, require)
from gpupy._io import *  # noqa: F401,F403  (load, save, savez, loadtxt, savetxt, ...)
from gpupy._array_info import *  # noqa: F401,F403,A004  (shape, ndim, size, shares_memory, ...)
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
    *_index_tricks.__all__,
    *_sets.__all__,
    *_manipulation_more.__all__,
    *_creation_more.__all__,
    *_io.__all__,
    *_array_info.__all__,
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
from gpupy import _dtypes, _errstate, _printing, _types  # noqa: E402
from gpupy._dtypes import *  # noqa: E402,F401,F403  (promote_types, finfo, issubdtype, ...)
from gpupy._types import *  # noqa: E402,F401,F403,A004  (NumPy's type names, tables, constants)
from gpupy._errstate import *  # noqa: E402,F401,F403  (seterr, errstate, ...: recorded only)
from gpupy._printing import *  # noqa: E402,F401,F403  (array2string, printoptions, ...)
from gpupy._linalg import einsum, inner, kron, outer, tensordot, trace, vdot, vecdot  # noqa: E402
from gpupy import config, fft, lib, linalg, random, testing  # noqa: E402

__all__ += [*_dtypes.__all__, *_types.__all__, *_errstate.__all__, *_printing.__all__, "testing"]
__all__ += ["vecdot", "einsum", "inner", "kron", "outer", "tensordot", "trace", "vdot", "linalg", "config", "random", "fft",
            "lib"]

__all__ += [
    n for n in _creation.__all__ + _ranges.__all__ + _matrices.__all__ + _manipulation.__all__ if n not in __all__
]

# NumPy's numeric functions composed of the modules above (comparisons, ufunc-likes,
# calculus, interpolation, convolution, vector products, windows, polynomials).
from gpupy import (  # noqa: E402
    _calculus,
    _comparison,
    _convolution,
    _interpolation,
    _polynomial,
    _type_check,
    _ufunclike,
    _vector_products,
    _window,
)

from gpupy._comparison import *  # noqa: E402,F401,F403  (isclose, allclose, array_equal, array_equiv)
from gpupy._ufunclike import *  # noqa: E402,F401,F403  (ldexp, frexp, modf, fix, sinc, i0)
from gpupy._type_check import *  # noqa: E402,F401,F403  (iscomplex, isreal, real_if_close, ...)
from gpupy._calculus import *  # noqa: E402,F401,F403  (gradient, ediff1d, trapezoid, unwrap)
from gpupy._interpolation import *  # noqa: E402,F401,F403  (interp, digitize)
from gpupy._convolution import *  # noqa: E402,F401,F403  (convolve, correlate)
from gpupy._vector_products import *  # noqa: E402,F401,F403  (cross, matvec, vecmat)
from gpupy._window import *  # noqa: E402,F401,F403  (bartlett, blackman, hamming, hanning, kaiser)
from gpupy._polynomial import *  # noqa: E402,F401,F403  (vander, polyfit, roots, poly1d, ...)

__all__ += [*_comparison.__all__, *_ufunclike.__all__, *_type_check.__all__, *_calculus.__all__,
            *_interpolation.__all__, *_convolution.__all__, *_vector_products.__all__, *_window.__all__,
            *_polynomial.__all__]

# Statistics, histograms, lexsort, bit packing and shape-only functions (above them all).
from gpupy import _bits, _histograms_more, _lexsort, _shape_logic, _statistics_more, emath  # noqa: E402

from gpupy._statistics_more import *  # noqa: E402,F401,F403  (cov, corrcoef, nanmedian, nanquantile, ...)
from gpupy._histograms_more import *  # noqa: E402,F401,F403  (histogram_bin_edges, histogram2d, histogramdd)
from gpupy._lexsort import *  # noqa: E402,F401,F403  (lexsort)
from gpupy._bits import *  # noqa: E402,F401,F403  (packbits, unpackbits)
from gpupy._shape_logic import *  # noqa: E402,F401,F403  (diagonal, broadcast, einsum_path)

__all__ += [*_statistics_more.__all__, *_histograms_more.__all__, *_lexsort.__all__, *_bits.__all__,
            *_shape_logic.__all__, "emath"]

# Users' own kernels (CuPy's RawModule, RawKernel, ElementwiseKernel, ReductionKernel),
# in CUDA C through NVRTC or in Rust through rustc; see _userkernel/.
from gpupy import _userkernel  # noqa: E402
from gpupy._userkernel import *  # noqa: E402,F401,F403

__all__ += [*_userkernel.__all__]

# Dask support (optional): registers gpupy with dask.array and distributed when (and
# whenever) they are imported; imports no Dask itself. See _dask.py.
from gpupy import _dask  # noqa: E402,F401
