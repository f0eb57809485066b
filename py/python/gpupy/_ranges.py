"""Numerical ranges (NumPy's "Numerical ranges" creation routines): ``arange``,
``linspace``, ``logspace`` and ``meshgrid``.

Shapes, dtypes and the few scalars a sequence starts from are worked out here in Python
objects exactly as NumPy does it; the values themselves are computed on the GPU
(``arange``'s fill kernel, then ufuncs for ``linspace``/``logspace``, broadcast views
for ``meshgrid``).
"""

import math
import operator

import numpy

from gpupy import _gpupy, _math
from gpupy._creation import _check_like, _device_scope, array, asarray, empty
from gpupy._gpupy import ndarray
from gpupy._manipulation import broadcast_arrays, expand_dims, moveaxis

_PY_SCALARS = (bool, int, float, complex)


def _host_scalar(x):
    """A gpupy 0-d array as a NumPy scalar (what NumPy's arange sees); anything else as is."""
    if isinstance(x, ndarray):
        return x.get()[()]
    return x


def _ceil_to_intp(value):
    """NumPy's ``_arange_safe_ceil_to_intp``: ceil, with its errors."""
    if math.isnan(value):
        raise ValueError("arange: cannot compute length")
    if math.isinf(value) or not (-(2.0**63) <= math.ceil(value) < 2.0**63):
        raise OverflowError("arange: overflow while computing length")
    return int(math.ceil(value))


def _arange_length(start, stop, step, cmplx):
    """NumPy's ``_calc_length``: the length ``ceil((stop - start) / step)``, computed with
    the arguments' own arithmetic (Python's or NumPy's scalars)."""
    try:
        delta = stop - start
    except TypeError:
        if isinstance(stop, tuple):
            raise TypeError("arange: scalar arguments expected instead of a tuple.") from None
        raise
    delta_nonzero = bool(delta != 0)
    val = delta / step
    if cmplx and isinstance(val, complex):
        return min(_ceil_to_intp(val.real), _ceil_to_intp(val.imag))
    value = float(val)
    if val == 0 and delta_nonzero:
        # Underflow or division by infinity.
        return 0 if math.copysign(1.0, value) < 0 else 1
    return _ceil_to_intp(value)


def arange(start, stop=None, step=None, dtype=None, *, device=None, like=None):
    """Evenly spaced values in ``[start, stop)``, as NumPy's ``arange``: same length, same
    dtype inference (at least int64) and bit-identical values (NumPy's fill formula, on
    the GPU). ``like=``: as ``gpupy.asarray``'s; ``device``: the GPU to make it on."""
    _check_like(like)
    with _device_scope(device):
        return _arange(start, stop, step, dtype)


def _arange(start, stop, step, dtype):
    start, stop, step = (_host_scalar(x) for x in (start, stop, step))
    if dtype is None:
        dt = numpy.dtype(numpy.intp)
        for x in (start, stop, step):
            if x is not None:
                dt = numpy.promote_types(dt, numpy.asarray(x).dtype)
    else:
        dt = numpy.dtype(dtype)
    if step is None:
        step = 1
    if stop is None:
        start, stop = 0, start
    try:
        length = _arange_length(start, stop, step, dt.kind == "c")
    except OverflowError:
        raise ValueError("Maximum allowed size exceeded") from None
    length = max(length, 0)
    if length == 0:
        return empty((0,), dt)
    # The first two elements, converted to the dtype as NumPy's setitem converts them.
    head = numpy.zeros(2, dt)
    head[0] = start
    if length > 1:
        head[1] = start + step
    if length <= 2:
        return _gpupy._from_host(head[:length], None)
    if dt.kind == "b":
        raise TypeError("arange() is only supported for booleans when the result has at most length 2.")
    return _gpupy._arange(length, dt, head[:1].tobytes(), head[1:].tobytes())


def _linspace_operands(start, stop):
    """NumPy's ``_array_converter(start, stop).as_arrays()``: Python scalars stay Python
    scalars (weakly typed) unless both are, gpupy arrays stay on the device, anything else
    becomes a NumPy array."""
    both_py = isinstance(start, _PY_SCALARS) and isinstance(stop, _PY_SCALARS)

    def conv(x):
        if isinstance(x, ndarray):
            return x
        if isinstance(x, _PY_SCALARS) and not both_py:
            return x
        return numpy.asarray(x)

    return conv(start), conv(stop)


def _type_arg(x):
    return x.dtype if isinstance(x, ndarray) else x


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """``num`` evenly spaced samples over ``[start, stop]``, computed as NumPy computes them
    (``arange(num) * step + start``, the last sample set to ``stop``); on ``device``."""
    with _device_scope(device):
        return _linspace(start, stop, num, endpoint, retstep, dtype, axis)


def _linspace(start, stop, num, endpoint, retstep, dtype, axis):
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = (num - 1) if endpoint else num
    start, stop = _linspace_operands(start, stop)
    dt = numpy.result_type(_type_arg(start), _type_arg(stop), 0.0)
    if dtype is None:
        dtype = dt
        integer_dtype = False
    else:
        integer_dtype = numpy.issubdtype(dtype, numpy.integer)
    on_device = isinstance(start, ndarray) or isinstance(stop, ndarray)
    if on_device:
        delta = _math.subtract(asarray(stop).astype(dt), asarray(start).astype(dt))
    else:
        delta = numpy.subtract(stop, start, dtype=type(dt))
    y = arange(0, num, dtype=dt).reshape((-1,) + (1,) * numpy.ndim(delta))
    scalar_delta = numpy.isscalar(delta)
    dev_delta = delta if scalar_delta else asarray(delta)
    if div > 0:
        step = delta / div
        if scalar_delta:
            any_step_zero = step == 0
        elif isinstance(step, ndarray):
            any_step_zero = bool(numpy.any(step.get() == 0))
        else:
            any_step_zero = bool(numpy.any(step == 0))
        if any_step_zero:
            _math.divide(y, div, out=y)
            y = _math.multiply(y, dev_delta, out=y if scalar_delta else None)
        else:
            y = _math.multiply(y, step if scalar_delta else asarray(step), out=y if scalar_delta else None)
    else:
        step = numpy.nan
        y = _math.multiply(y, dev_delta)
    _math.add(y, start if isinstance(start, (_PY_SCALARS, ndarray)) else asarray(start), out=y)
    if endpoint and num > 1:
        y[-1, ...] = stop if isinstance(stop, (_PY_SCALARS, ndarray)) else asarray(stop)
    if axis != 0:
        y = moveaxis(y, 0, axis)
    if integer_dtype:
        _math.floor(y, out=y)
    y = y.astype(dtype, copy=False)
    if retstep:
        return y, step
    return y


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, ...)``."""
    if not isinstance(base, (float, int)) and numpy.ndim(base):
        shapes = [numpy.shape(x) if not isinstance(x, ndarray) else x.shape for x in (start, stop, base)]
        ndmax = len(numpy.broadcast_shapes(*shapes))
        start, stop, base = (array(x, copy=False, ndmin=ndmax) for x in (start, stop, base))
        base = expand_dims(base, axis=axis)
    y = linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
    r = _math.power(base, y)
    if dtype is None:
        return r
    return r.astype(dtype, copy=False)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from coordinate vectors (a tuple, as NumPy 2)."""
    ndim = len(xi)
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    s0 = (1,) * ndim
    output = [asarray(x).reshape(s0[:i] + (-1,) + s0[i + 1 :]) for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        output[0] = output[0].reshape((1, -1) + s0[2:])
        output[1] = output[1].reshape((-1, 1) + s0[2:])
    if not sparse:
        output = broadcast_arrays(*output)
    if copy:
        output = tuple(x.copy() for x in output)
    return tuple(output)


__all__ = ["arange", "linspace", "logspace", "meshgrid"]
