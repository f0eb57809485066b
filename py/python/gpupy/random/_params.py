"""Arguments as NumPy's random functions take them: ``size``, and parameters that are
scalars or arrays broadcasting against each other and against ``size``.

The kernels take each parameter as one float (every element the same) or as a
C-contiguous float64 array of the output's size; ``prepare`` makes them so and checks
NumPy's constraints with NumPy's messages.
"""

import numpy

from gpupy import _creation, _manipulation, _reduction
from gpupy._gpupy import ndarray


def shape_of(size):
    """``size`` as a shape tuple (``None`` is the 0-d shape), with NumPy's errors."""
    return () if size is None else tuple(_creation._shape(size))


def _is_scalar(p):
    """A Python or NumPy scalar (a 0-d gpupy array stays an array: no host copy)."""
    return not isinstance(p, ndarray) and numpy.ndim(p) == 0


def prepare(size, *params):
    """``(shape, args)``: the output's shape and each parameter as a float or a float64
    device array of that shape (a 0-d gpupy array counts as an array)."""
    if all(type(p) is float or type(p) is int for p in params):
        # The common call (plain numbers): a quarter of the per-call cost in this layer.
        return shape_of(size), [float(p) for p in params]
    arrays = []
    for p in params:
        if _is_scalar(p):
            arrays.append(None)
        else:
            arrays.append(_creation.asarray(p, dtype=numpy.float64))
    shape = out_shape(size, *[a.shape for a in arrays if a is not None])
    args = [float(p) if a is None else spread(a, shape) for p, a in zip(params, arrays)]
    return shape, args


def out_shape(size, *shapes):
    """The output's shape: the parameters' broadcast shape, or ``size``, which it must
    broadcast to (NumPy's error otherwise)."""
    bshape = numpy.broadcast_shapes(*shapes)
    if size is None:
        return bshape
    shape = shape_of(size)
    if numpy.broadcast_shapes(bshape, shape) != shape:
        raise ValueError(
            f"shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape {shape} and arg 1 with shape {bshape}."
        )
    return shape


def spread(a, shape):
    """The array ``a`` broadcast to ``shape`` as the kernels read it: C-contiguous."""
    return _creation.ascontiguousarray(_manipulation.broadcast_to(a, shape))


def check(value, bad, message):
    """Raises ``ValueError(message)`` when ``bad`` holds for the scalar ``value`` or for
    any element of the array ``value`` (one host read, as NumPy checks before drawing)."""
    if isinstance(value, ndarray):
        if value.size > 0 and bool(_reduction.any(bad(value))):
            raise ValueError(message)
    elif bool(bad(value)):
        raise ValueError(message)


def negative_or_nan(x):
    return (x < 0) | (x != x)


def float_dtype(dtype, what):
    """float64 or float32, else NumPy's TypeError."""
    d = numpy.dtype(dtype)
    if d not in (numpy.dtype(numpy.float64), numpy.dtype(numpy.float32)):
        raise TypeError(f"Unsupported dtype {d!r} for {what}")
    return d


def into(result, out):
    """``result`` written into ``out`` when given (NumPy's ``out=`` rules), else itself."""
    if out is None:
        return result
    if not isinstance(out, ndarray):
        raise TypeError("out must be a gpupy.ndarray")
    if out.dtype != result.dtype:
        raise TypeError(
            f"Supplied output array has the wrong type. Expected {result.dtype}, got {out.dtype}"
        )
    if not out.flags.c_contiguous:
        raise ValueError("Supplied output array must be C-contiguous")
    out[...] = result
    return out


__all__ = ["shape_of", "prepare", "out_shape", "spread", "check", "negative_or_nan", "float_dtype", "into"]
