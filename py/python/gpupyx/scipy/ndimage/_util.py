"""SciPy's argument rules for ``ndimage`` (``scipy/ndimage/_ni_support.py``), on gpupy
arrays: outputs, per-axis sequences, axes, boundary modes and origins."""

import numbers
import operator
from collections.abc import Iterable

import numpy

import gpupy as gp

# SciPy's boundary modes for filters -> the kernels' codes (kernels/src/filters/mod.rs).
MODES = {
    "reflect": 0, "grid-mirror": 0,
    "constant": 1, "grid-constant": 1,
    "nearest": 2,
    "mirror": 3,
    "wrap": 4, "grid-wrap": 4,
}


def mode_code(mode):
    """The kernel code of a filter's boundary mode; SciPy's RuntimeError otherwise."""
    if isinstance(mode, str) and mode in MODES:
        return MODES[mode]
    raise RuntimeError("boundary mode not supported")


def as_device(a):
    """A gpupy array of `a` (host data is copied to the device)."""
    return a if isinstance(a, gp.ndarray) else gp.asarray(a)


def as_host(a, dtype=None):
    """A NumPy array of `a` (filter weights are read on the host)."""
    if isinstance(a, gp.ndarray):
        a = a.get()
    return numpy.asarray(a, dtype=dtype)


def get_output(output, input, shape=None, complex_output=False):
    """SciPy's ``_get_output``: None -> a new array of the input's dtype (complex when
    asked), a dtype or type -> a new array of it, a gpupy array -> itself, checked.
    New arrays are uninitialized (every element is written)."""
    if shape is None:
        shape = input.shape
    if output is None:
        dtype = numpy.promote_types(input.dtype, numpy.complex64) if complex_output else input.dtype
        return gp.empty(shape, dtype)
    if isinstance(output, (type, numpy.dtype)):
        if complex_output and numpy.dtype(output).kind != "c":
            import warnings

            warnings.warn("promoting specified output dtype to complex", stacklevel=3)
            output = numpy.promote_types(output, numpy.complex64)
        return gp.empty(shape, output)
    if isinstance(output, str):
        dtype = numpy.dtype(output)
        if complex_output and dtype.kind != "c":
            raise RuntimeError("output must have complex dtype")
        if not issubclass(dtype.type, numpy.number):
            raise RuntimeError("output must have numeric dtype")
        return gp.empty(shape, dtype)
    if not isinstance(output, gp.ndarray):
        raise TypeError(f"output must be a gpupy array, a dtype or None, not {type(output).__name__}")
    if output.shape != tuple(shape):
        raise RuntimeError("output shape not correct")
    if complex_output and output.dtype.kind != "c":
        raise RuntimeError("output must have complex dtype")
    return output


def normalize_sequence(value, rank):
    """A scalar repeated `rank` times, or a sequence of exactly `rank` items."""
    if not isinstance(value, str) and numpy.iterable(value):
        out = list(value)
        if len(out) != rank:
            raise RuntimeError("sequence argument must have length equal to input rank")
        return out
    return [value] * rank


def check_axes(axes, ndim):
    """SciPy's ``_check_axes``: the axes as a tuple of non-negative ints, unique."""
    if axes is None:
        return tuple(range(ndim))
    if numpy.isscalar(axes):
        axes = (operator.index(axes),)
    elif isinstance(axes, Iterable):
        axes = tuple(operator.index(ax) for ax in axes)
        for ax in axes:
            if ax < -ndim or ax > ndim - 1:
                raise ValueError(f"specified axis: {ax} is out of range")
        axes = tuple(ax % ndim if ax < 0 else ax for ax in axes)
    else:
        raise ValueError("axes must be an integer, iterable of integers, or None")
    if len(set(axes)) != len(axes):
        raise ValueError("axes must be unique")
    return axes


def normalize_axis(axis, ndim):
    """NumPy's ``normalize_axis_index`` (AxisError when out of range)."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise numpy.exceptions.AxisError(axis, ndim)
    return axis % ndim


def invalid_origin(origin, lenw):
    return origin < -(lenw // 2) or origin > (lenw - 1) // 2


def compute_dtype(dtype):
    """The dtype a filter computes in: float32 for float16/float32 input (as CuPy),
    float64 for every other (SciPy computes in double)."""
    return numpy.dtype(numpy.float32) if dtype in (numpy.float16, numpy.float32) else \
        numpy.dtype(numpy.float64)


def deliver(result, output, input, complex_output=False):
    """A filter's `result` (a fresh array of its compute dtype) as SciPy returns it:
    itself when no output was named and it has the input's dtype, else stored into
    ``get_output(output, input)`` as SciPy's kernels store (``cast_like_c``)."""
    if output is None and result.dtype == input.dtype and not complex_output:
        return result
    out = get_output(output, input, complex_output=complex_output)
    out[...] = cast_like_c(result, out.dtype)
    return out


def cast_like_c(result, dtype):
    """A float `result` as `dtype` the way SciPy's C kernels store a double on x86-64:
    integers through a 64-bit integer (truncation toward zero, then wrapping into a
    narrower type: -80.0 stored as uint8 is 176), the rest by a plain cast."""
    dtype = numpy.dtype(dtype)
    if result.dtype == dtype:
        return result
    if dtype.kind in "iu" and result.dtype.kind == "f":
        return result.astype(numpy.int64).astype(dtype)
    return result.astype(dtype)


def check_radius(lw):
    if not isinstance(lw, numbers.Integral) or lw < 0:
        raise ValueError("Radius must be a nonnegative integer.")


__all__ = [
    "MODES", "mode_code", "as_device", "as_host", "get_output", "normalize_sequence",
    "check_axes", "normalize_axis", "invalid_origin", "compute_dtype", "deliver", "cast_like_c",
    "check_radius",
]
