"""The Python array API standard (2024.12) names that differ from NumPy's, and the
namespace's inspection object. Functions of later work (statistics, sorting, scans)
join when those land; ``matmul``, ``tensordot``, ``vecdot`` are NumPy's names already.

The extensions are the namespace's attributes ``gpupy.linalg`` and ``gpupy.fft`` (the
standard's ``fft`` functions are ``numpy.fft``'s names and keywords, ``fftfreq`` and
``rfftfreq`` with ``dtype=`` and ``device=``). The standard has consumers detect an
extension with ``hasattr(xp, "fft")``; ``capabilities()`` has no key for extensions in
2023.12 or 2024.12, so neither extension is listed there."""

import numpy

from gpupy import _math, cuda

__array_api_version__ = "2024.12"

acos = _math.arccos
asin = _math.arcsin
atan = _math.arctan
atan2 = _math.arctan2
acosh = _math.arccosh
asinh = _math.arcsinh
atanh = _math.arctanh
pow = _math.power
bitwise_left_shift = _math.left_shift
bitwise_right_shift = _math.right_shift
bitwise_invert = _math.invert


def astype(x, dtype, /, *, copy=True, device=None):
    """``x.astype(dtype)``, the standard's function form."""
    if device is not None and device != x.device:
        raise ValueError("astype cannot move arrays between devices")
    return x.astype(dtype, copy=copy)


def permute_dims(x, /, axes):
    return x.transpose(tuple(axes))


def matrix_transpose(x, /):
    if x.ndim < 2:
        raise ValueError("matrix_transpose needs an array of at least 2 dimensions")
    axes = list(range(x.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return x.transpose(tuple(axes))


_KINDS = {
    "bool": "b",
    "signed integer": "i",
    "unsigned integer": "u",
    "integral": "iu",
    "real floating": "f",
    "complex floating": "c",
    "numeric": "iufc",
}


def isdtype(dtype, kind):
    """Whether ``dtype`` is of ``kind`` (a dtype, a kind name, or a tuple of either)."""
    dtype = numpy.dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"unknown dtype kind {kind!r}")
        return dtype.kind in _KINDS[kind]
    return dtype == numpy.dtype(kind)


class _Info:
    """What ``__array_namespace_info__()`` returns."""

    def capabilities(self):
        # The standard's three keys only: extensions (linalg, fft) are found by hasattr.
        # "max dimensions": arrays of up to 64 dimensions exist (NumPy's limit), but the
        # strided kernels take at most 16 after merging contiguous axes
        # (kernels/src/args.rs MAX_DIMS): 16 is what every function supports.
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 16}

    def default_device(self):
        return cuda.Device()

    def devices(self):
        return [cuda.Device(i) for i in range(cuda.runtime.getDeviceCount())]

    def default_dtypes(self, *, device=None):
        return {
            "real floating": numpy.dtype(numpy.float64),
            "complex floating": numpy.dtype(numpy.complex128),
            "integral": numpy.dtype(numpy.int64),
            "indexing": numpy.dtype(numpy.int64),
        }

    def dtypes(self, *, device=None, kind=None):
        names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64", "complex64", "complex128"]
        dts = {n: numpy.dtype(n) for n in names}
        if kind is None:
            return dts
        return {n: d for n, d in dts.items() if isdtype(d, kind)}


def __array_namespace_info__():
    return _Info()


__all__ = [
    "__array_api_version__", "__array_namespace_info__", "acos", "asin", "atan", "atan2", "acosh",
    "asinh", "atanh", "pow", "bitwise_left_shift", "bitwise_right_shift", "bitwise_invert",
    "astype", "permute_dims", "matrix_transpose", "isdtype",
]
