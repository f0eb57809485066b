"""``scipy.ndimage``'s order filters on gpupy arrays: minimum, maximum, rank, median and
percentile filters, with SciPy's signatures, checks, messages and result dtypes.

The kernels (``kernels/src/filters/select.rs`` for the meaning) run in an order type
the input's values convert into exactly: float16/float32, bool and integers of up to
16 bits in float32, 32-bit integers in float64, int64 and uint64 as themselves. A
result is one of the window's values (or ``cval``), stored into the output as SciPy's
C code stores it (``_util.cast_like_c``). ``cval`` as SciPy takes it
(``_kernel_cval``): the minimum and maximum filters first store it in the input's type
(-7 is 65529 for uint16), the rank filters compare it as a number. With NaNs in a
window the order is unspecified, as in SciPy.

- ``minimum_filter``/``maximum_filter``: a ``size`` or an all-true footprint runs as
  1-d passes (each stored in the output's dtype before the next, as SciPy); any other
  footprint in one n-d pass.
- ``rank_filter``/``median_filter``/``percentile_filter``: rank 0 and the last rank
  are the minimum and maximum filters (as SciPy); other ranks select in registers for
  footprints of up to 25 elements, in shared or global scratch otherwise.
"""

import operator
import warnings
from collections.abc import Iterable

import numpy

import gpupy as gp
from gpupy import _gpupy
from gpupyx.scipy.ndimage._filters import _expand_footprint, _expand_origin, _Passes
from gpupyx.scipy.ndimage._util import (
    as_device, check_axes, deliver, get_output, mode_code, normalize_axis, normalize_sequence,
)


def order_dtype(dtype):
    """The type an order filter of `dtype` input runs in (holds its values exactly)."""
    dtype = numpy.dtype(dtype)
    if dtype in (numpy.float64, numpy.int64, numpy.uint64):
        return dtype
    if dtype.kind == "f" and dtype.itemsize <= 4:
        return numpy.dtype(numpy.float32)
    if dtype.kind in "biu" and dtype.itemsize <= 2:
        return numpy.dtype(numpy.float32)
    if dtype.kind in "iu" and dtype.itemsize == 4:
        return numpy.dtype(numpy.float64)
    raise RuntimeError("array type not supported")


def _real_input(input):
    input = as_device(input)
    if input.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    return input


def _cval(cval):
    if numpy.iscomplexobj(cval):
        raise TypeError("must be real number, not complex")
    return float(cval)


def _kernel_cval(cval, input_dtype, stored):
    """`cval` as the order kernels read it, a float64 argument. `stored`: SciPy's minimum
    and maximum filters assign it to a variable of the input's type first (as its C
    code stores a double: integers through int64, wrapping; NumPy's cast otherwise);
    its rank filters compare it as a double, which an integer order type holds
    truncated toward zero (same order against integers, same stored result) and
    clamped to the type's range. An int64/uint64 order type reads the argument's bits
    as the integer (a double cannot hold every 64-bit value)."""
    c = _cval(cval)
    dtype = numpy.dtype(input_dtype)
    order = order_dtype(dtype)
    if stored:
        with numpy.errstate(invalid="ignore", over="ignore"):
            if dtype.kind == "b":
                c = float(bool(c))
            elif dtype.kind in "iu":
                c = numpy.array(c).astype(numpy.int64).astype(dtype)[()]
            else:
                c = float(numpy.array(c).astype(dtype)[()])
    if order.kind not in "iu":
        return float(c)
    if not stored:
        info = numpy.iinfo(order)
        c = int(min(max(numpy.trunc(c), info.min), info.max)) if numpy.isfinite(c) else \
            (info.max if c > 0 else info.min)
    return float(numpy.array(c).astype(order).view(numpy.float64)[()])


def footprint_offsets(footprint, origins):
    """Each true element's offset from the window's center (``shape // 2 + origin``
    per axis), in C order: the taps of an order filter or a morphology."""
    taps = numpy.argwhere(footprint)
    centers = numpy.array([n // 2 + o for n, o in zip(footprint.shape, origins)], numpy.int64)
    return (taps - centers).tolist()


def _line_offsets(ndim, axis, size, origin):
    """The taps of a 1-d window of `size` along `axis` centred on ``size // 2 + origin``."""
    offsets = numpy.zeros((size, ndim), numpy.int64)
    offsets[:, axis] = numpy.arange(size) - (size // 2 + origin)
    return offsets.tolist()


def _through_double(result, input_dtype, cval, mode):
    """SciPy's minimum/maximum filters pass each result through a double before storing
    it: a uint64 ``cval`` stored from a negative number (2**64 - 7 for -7) becomes 2**64
    there and is stored as 0 (x86-64's conversion). Data values below 2**53 are exact
    either way, so only a constant border's huge ``cval`` needs the round trip."""
    if numpy.dtype(input_dtype) != numpy.uint64 or mode_code(mode) != 1:
        return result
    with numpy.errstate(invalid="ignore", over="ignore"):
        c = int(numpy.array(_cval(cval)).astype(numpy.int64).astype(numpy.uint64)[()])
    if c < 2**53:
        return result
    wide = result.astype(numpy.float64)
    return gp.where(wide >= 2.0**64, 0, wide).astype(numpy.uint64)


def _extreme(x, offsets, maximum, mode, cval):
    """The minimum or maximum filter of real `x` over `offsets`, in its order dtype."""
    r = _gpupy._extreme(x, offsets, maximum, mode_code(mode), _kernel_cval(cval, x.dtype, True),
                        order_dtype(x.dtype))
    return _through_double(r, x.dtype, cval, mode)


def _min_or_max_filter1d(input, size, axis, output, mode, cval, origin, maximum):
    input = _real_input(input)
    axis = normalize_axis(axis, input.ndim)
    if size < 1:
        raise RuntimeError("incorrect filter size")
    get_output(output, input)
    if (size // 2 + origin < 0) or (size // 2 + origin >= size):
        raise ValueError("invalid origin")
    mode_code(mode)
    cval = _cval(cval)
    result = _extreme(input, _line_offsets(input.ndim, axis, int(size), origin), maximum, mode, cval)
    return deliver(result, output, input)


def minimum_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """One-dimensional minimum filter (``scipy.ndimage.minimum_filter1d``)."""
    return _min_or_max_filter1d(input, size, axis, output, mode, cval, origin, False)


def maximum_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """One-dimensional maximum filter (``scipy.ndimage.maximum_filter1d``)."""
    return _min_or_max_filter1d(input, size, axis, output, mode, cval, origin, True)


def _check_footprint_origins(footprint, origins, ndim, axes):
    fshape = [n for n in footprint.shape if n > 0]
    if len(fshape) != ndim:
        raise RuntimeError(f"footprint.ndim ({footprint.ndim}) must match len(axes) ({len(axes)})")
    for origin, lenf in zip(origins, fshape):
        if (lenf // 2 + origin < 0) or (lenf // 2 + origin >= lenf):
            raise ValueError("invalid origin")


def _min_or_max_filter(input, size, footprint, output, mode, cval, origin, maximum, axes):
    if size is not None and footprint is not None:
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=3)
    if footprint is None:
        if size is None:
            raise RuntimeError("no footprint provided")
        separable = True
    else:
        footprint = numpy.asarray(as_host_bool(footprint))
        if not footprint.any():
            raise ValueError("All-zero footprint is not supported.")
        separable = bool(footprint.all())
        if separable:
            size, footprint = footprint.shape, None
    input = _real_input(input)
    get_output(output, input)
    axes = check_axes(axes, input.ndim)
    cval = _cval(cval)
    if separable:
        n = len(axes)
        origins, sizes = normalize_sequence(origin, n), normalize_sequence(size, n)
        modes = normalize_sequence(mode, n)
        passes = [(axes[k], int(sizes[k]), origins[k], modes[k]) for k in range(n) if sizes[k] > 1]
        p = _Passes(input, output)
        for axis, s, o, m in passes:
            if (s // 2 + o < 0) or (s // 2 + o >= s):
                raise ValueError("invalid origin")
            mode_code(m)
            p.run(lambda x, a=axis, s=s, o=o, m=m:
                  _extreme(x, _line_offsets(x.ndim, a, s, o), maximum, m, cval))
        return p.result()
    footprint = _expand_footprint(input.ndim, axes, footprint)
    origins = _expand_origin(input.ndim, axes, origin)
    _check_footprint_origins(footprint, origins, input.ndim, axes)
    if not isinstance(mode, str) and isinstance(mode, Iterable):
        raise RuntimeError("A sequence of modes is not supported for non-separable footprints")
    mode_code(mode)
    result = _extreme(input, footprint_offsets(footprint, origins), maximum, mode, cval)
    return deliver(result, output, input)


def as_host_bool(footprint):
    """A footprint (host or device) as a NumPy bool array."""
    if hasattr(footprint, "get") and not isinstance(footprint, numpy.ndarray):
        footprint = footprint.get()
    return numpy.asarray(footprint, dtype=bool)


def minimum_filter(input, size=None, footprint=None, output=None, mode="reflect", cval=0.0,
                   origin=0, *, axes=None):
    """Multidimensional minimum filter (``scipy.ndimage.minimum_filter``)."""
    return _min_or_max_filter(input, size, footprint, output, mode, cval, origin, False, axes)


def maximum_filter(input, size=None, footprint=None, output=None, mode="reflect", cval=0.0,
                   origin=0, *, axes=None):
    """Multidimensional maximum filter (``scipy.ndimage.maximum_filter``)."""
    return _min_or_max_filter(input, size, footprint, output, mode, cval, origin, True, axes)


def _rank_filter(input, rank, size, footprint, output, mode, cval, origin, operation, axes):
    if size is not None and footprint is not None:
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=3)
    input = _real_input(input)
    axes = check_axes(axes, input.ndim)
    if footprint is None:
        if size is None:
            raise RuntimeError("no footprint or filter size provided")
        footprint = numpy.ones(normalize_sequence(size, len(axes)), dtype=bool)
    else:
        footprint = as_host_bool(footprint)
    footprint = _expand_footprint(input.ndim, axes, footprint)
    origins = _expand_origin(input.ndim, axes, origin)
    _check_footprint_origins(footprint, origins, input.ndim, axes)
    filter_size = int(footprint.sum())
    if operation == "median":
        rank = filter_size // 2
    elif operation == "percentile":
        percentile = rank
        if percentile < 0.0:
            percentile += 100.0
        if percentile < 0 or percentile > 100:
            raise RuntimeError("invalid percentile")
        rank = filter_size - 1 if percentile == 100.0 else int(float(filter_size) * percentile / 100.0)
    if rank < 0:
        rank += filter_size
    if rank < 0 or rank >= filter_size:
        raise RuntimeError("rank not within filter footprint size")
    if rank == 0:
        return minimum_filter(input, None, footprint, output, mode, cval, origins)
    if rank == filter_size - 1:
        return maximum_filter(input, None, footprint, output, mode, cval, origins)
    get_output(output, input)
    if not isinstance(mode, str) and isinstance(mode, Iterable):
        raise RuntimeError("A sequence of modes is not supported by non-separable rank filters")
    code = mode_code(mode)
    result = _gpupy._rank(input, footprint_offsets(footprint, origins), int(rank), code,
                          _kernel_cval(cval, input.dtype, False), order_dtype(input.dtype))
    return deliver(result, output, input)


def rank_filter(input, rank, size=None, footprint=None, output=None, mode="reflect", cval=0.0,
                origin=0, *, axes=None):
    """Multidimensional rank filter (``scipy.ndimage.rank_filter``)."""
    rank = operator.index(rank)
    return _rank_filter(input, rank, size, footprint, output, mode, cval, origin, "rank", axes)


def median_filter(input, size=None, footprint=None, output=None, mode="reflect", cval=0.0,
                  origin=0, *, axes=None):
    """Multidimensional median filter (``scipy.ndimage.median_filter``)."""
    return _rank_filter(input, 0, size, footprint, output, mode, cval, origin, "median", axes)


def percentile_filter(input, percentile, size=None, footprint=None, output=None, mode="reflect",
                      cval=0.0, origin=0, *, axes=None):
    """Multidimensional percentile filter (``scipy.ndimage.percentile_filter``)."""
    return _rank_filter(input, percentile, size, footprint, output, mode, cval, origin,
                        "percentile", axes)


__all__ = [
    "minimum_filter1d", "maximum_filter1d", "minimum_filter", "maximum_filter", "rank_filter",
    "median_filter", "percentile_filter",
]
