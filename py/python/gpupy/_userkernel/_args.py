"""Kernel arguments as the launch takes them: gpupy arrays as they are (the extension
passes their device address), everything else as the bytes of one parameter.

CuPy's conversions: a Python ``int`` is passed as int64, ``float`` as float64 (a kernel
declaring ``float`` then reads the first four bytes of the double, as under CuPy),
``complex`` as complex128, ``bool`` as one byte; a NumPy scalar as its own type; an
object with ``__cuda_array_interface__`` (PyTorch, Numba, CuPy arrays) as its device
address.
"""

import struct

import numpy

from gpupy._gpupy import ndarray

_pack_i64 = struct.Struct("<q").pack
_pack_f64 = struct.Struct("<d").pack
_pack_c128 = struct.Struct("<dd").pack
_pack_ptr = struct.Struct("<Q").pack


def _from_int(v):
    try:
        return _pack_i64(v)
    except struct.error:
        raise OverflowError(f"Python int {v} too large to convert to int64") from None


_BY_TYPE = {
    ndarray: lambda v: v,
    bool: lambda v: b"\x01" if v else b"\x00",
    int: _from_int,
    float: _pack_f64,
    complex: lambda v: _pack_c128(v.real, v.imag),
}


def kernel_arg(v):
    """One argument, converted for `_UserFunction.launch`."""
    f = _BY_TYPE.get(type(v))
    if f is not None:
        return f(v)
    if isinstance(v, numpy.generic):
        return v.tobytes()
    if isinstance(v, ndarray):
        return v
    cai = getattr(v, "__cuda_array_interface__", None)
    if cai is not None:
        return _pack_ptr(cai["data"][0])
    if isinstance(v, numpy.ndarray):
        raise TypeError(
            "a NumPy array cannot be a kernel argument: move it to the GPU with "
            "gpupy.asarray first"
        )
    if isinstance(v, bool):
        return b"\x01" if v else b"\x00"
    if isinstance(v, int):
        return _from_int(v)
    if isinstance(v, float):
        return _pack_f64(v)
    if isinstance(v, complex):
        return _pack_c128(v.real, v.imag)
    raise TypeError(f"Unsupported type {type(v)}")


def kernel_args(args):
    """All arguments of a launch, as a tuple."""
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"kernel arguments must be a tuple or list, not {type(args).__name__}")
    return tuple(kernel_arg(v) for v in args)


def stream_ptr(stream):
    """The CUstream address to launch on: None for the current stream."""
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    ptr = getattr(stream, "ptr", None)
    if ptr is None:
        raise TypeError(f"stream must be a gpupy.cuda.Stream, not {type(stream).__name__}")
    return int(ptr)


__all__ = ["kernel_arg", "kernel_args", "stream_ptr"]
