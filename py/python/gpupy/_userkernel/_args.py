"""Kernel arguments on the way to a launch.

The launch itself (``_UserFunction.launch`` in ``py/src/user_kernel.rs``) converts each
argument as CuPy does: a gpupy array or an object with ``__cuda_array_interface__`` as
its device address, ``bool`` as one byte, ``int`` as int64, ``float`` as float64 (a
kernel declaring ``float`` then reads the first four bytes of the double, as under
CuPy), ``complex`` as complex128, a NumPy scalar as its own type, ``bytes`` as they are.
Here: the conversions of the generated kernels' scalars to their parameter's dtype, the
argument list's type, and the stream.
"""

import struct

import numpy


def as_tuple(args):
    """A launch's arguments as a tuple (CuPy takes a tuple or a list)."""
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"kernel arguments must be a tuple or list, not {type(args).__name__}")
    return tuple(args)


# struct codes of the scalar dtypes whose Python values pack directly.
_STRUCT_CODES = {
    "bool": "?", "int8": "b", "int16": "h", "int32": "i", "int64": "q", "uint8": "B",
    "uint16": "H", "uint32": "I", "uint64": "Q", "float16": "e", "float32": "f",
    "float64": "d",
}


def scalar_packer(dtype):
    """A function turning a scalar into the bytes of `dtype` as NumPy's unsafe cast
    would (``numpy.asarray(v).astype(dtype)``); Python numbers of the parameter's own
    kind take a `struct` shortcut (a call's per-argument cost is then well under a
    microsecond), everything else goes through NumPy."""
    dtype = numpy.dtype(dtype)

    def slow(v):
        return numpy.asarray(v).astype(dtype, casting="unsafe").tobytes()

    code = _STRUCT_CODES.get(dtype.name)
    if code is None:
        return slow
    pack = struct.Struct("<" + code).pack
    if dtype.kind == "f":
        accept = (float, int)
    elif dtype.kind == "b":
        accept = (bool,)
    else:
        accept = (int,)

    def fast(v):
        if type(v) in accept:
            try:
                return pack(v)
            except (struct.error, OverflowError):
                pass
        return slow(v)

    return fast


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


__all__ = ["as_tuple", "scalar_packer", "stream_ptr"]
