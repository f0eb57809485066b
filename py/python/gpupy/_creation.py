"""Array creation (NumPy's "Array creation routines") and transfers to and from the host.

Shapes, dtypes and the few scalars a sequence starts from are worked out here in Python
objects exactly as NumPy does it; the values themselves are computed on the GPU
(``arange``'s fill kernel, then ufuncs for ``linspace``/``logspace``, views and fills for
``eye``/``diag``/``tri``).
"""

import math
import operator

import numpy

from gpupy import _gpupy
from gpupy._gpupy import ndarray

_PY_SCALARS = (bool, int, float, complex)


def _shape(shape):
    """A shape as NumPy takes it: an int or a sequence of ints, none negative."""
    if isinstance(shape, (list, tuple)):
        dims = tuple(operator.index(n) for n in shape)
    else:
        try:
            dims = (operator.index(shape),)
        except TypeError:
            dims = tuple(operator.index(n) for n in shape)
    if any(n < 0 for n in dims):
        raise ValueError("negative dimensions are not allowed")
    return list(dims)


def _check_order(order, allowed="CF"):
    if order is None:
        order = "K" if "K" in allowed else "C"
    if not isinstance(order, str) or order.upper() not in allowed:
        opts = ", ".join(repr(o) for o in allowed)
        raise ValueError(f"order must be one of {opts} (got {order!r})")
    return order.upper()


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0):
    """A new device array with the values of ``obj`` (NumPy array, list, scalar or gpupy array)."""
    if isinstance(obj, ndarray):
        if dtype is None or numpy.dtype(dtype) == obj.dtype:
            a = _copy_with_order(obj, order) if copy else obj
        else:
            a = obj.astype(dtype)
    else:
        a = _gpupy._from_host(obj, dtype)
    if a.ndim < ndmin:
        a = a.reshape((1,) * (ndmin - a.ndim) + a.shape)
    return a


def asarray(a, dtype=None, order=None):
    """``a`` as a device array; a gpupy array of the requested dtype is returned as is."""
    if isinstance(a, ndarray):
        return a if dtype is None else a.astype(dtype, copy=False)
    return _gpupy._from_host(a, dtype)


def asnumpy(a, stream=None, order="C", out=None):
    """A NumPy array with the values of ``a`` (a device copy for gpupy arrays)."""
    if isinstance(a, ndarray):
        return a.get(stream=stream, order=order, out=out)
    return numpy.asarray(a, order=order)


def empty(shape, dtype=float, order="C"):
    """A new array of ``shape`` whose values are whatever the memory held."""
    dims = _shape(shape)
    if _check_order(order) == "F":
        return _gpupy._empty(dims[::-1], dtype).T
    return _gpupy._empty(dims, dtype)


def zeros(shape, dtype=float, order="C"):
    dt = numpy.dtype(dtype)
    dims = _shape(shape)
    if _check_order(order) == "F":
        return _gpupy._full(dims[::-1], dt, bytes(dt.itemsize)).T
    return _gpupy._full(dims, dt, bytes(dt.itemsize))


def ones(shape, dtype=float, order="C"):
    return full(shape, 1, dtype, order)


def full(shape, fill_value, dtype=None, order="C"):
    """A new array of ``shape`` filled with ``fill_value`` (broadcast when it is an array);
    NumPy picks the dtype when none is given."""
    dims = _shape(shape)
    fortran = _check_order(order) == "F"
    if isinstance(fill_value, ndarray):
        dt = fill_value.dtype if dtype is None else numpy.dtype(dtype)
        out = empty(dims, dt, order)
        _copyto_unsafe(out, fill_value)
        return out
    value = numpy.array(fill_value, dtype=dtype)
    if value.ndim != 0:
        out = empty(dims, value.dtype, order)
        _copyto_unsafe(out, asarray(value))
        return out
    if fortran:
        return _gpupy._full(dims[::-1], value.dtype, value.tobytes()).T
    return _gpupy._full(dims, value.dtype, value.tobytes())


def _copyto_unsafe(dst, src):
    src = asarray(src)
    _gpupy._copyto(dst, src)


# ---------------------------------------------------------------------------------------
# Numerical ranges


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


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)``, as NumPy's ``arange``: same length, same
    dtype inference (at least int64) and bit-identical values (NumPy's fill formula, on
    the GPU)."""
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


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced samples over ``[start, stop]``, computed as NumPy computes them
    (``arange(num) * step + start``, the last sample set to ``stop``)."""
    from gpupy import _math
    from gpupy._manipulation import moveaxis

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
    from gpupy import _math
    from gpupy._manipulation import expand_dims

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


# ---------------------------------------------------------------------------------------
# Building matrices


def eye(N, M=None, k=0, dtype=float, order="C"):
    """Ones on diagonal ``k`` of an ``N`` x ``M`` matrix, zeros elsewhere."""
    if M is None:
        M = N
    m = zeros((N, M), dtype=dtype, order=order)
    k = operator.index(k)
    d = _gpupy._diagonal(m, k)
    if d.size:
        d.fill(1)
    return m


def identity(n, dtype=None):
    return eye(n, dtype=float if dtype is None else dtype)


def tri(N, M=None, k=0, dtype=float):
    """Ones at and below diagonal ``k``, zeros above."""
    from gpupy import _math

    if M is None:
        M = N
    k = operator.index(k)
    rows = arange(N).reshape(-1, 1)
    cols = arange(-k, M - k)
    return _math.greater_equal(rows, cols).astype(dtype, copy=False)


def diag(v, k=0):
    """The diagonal ``k`` of a 2-D array (a view), or a 2-D array with ``v`` on it."""
    v = asarray(v)
    k = operator.index(k)
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        res = zeros((n, n), v.dtype)
        _gpupy._copyto(_gpupy._diagonal(res, k), v)
        return res
    if v.ndim == 2:
        return _gpupy._diagonal(v, k)
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0):
    return diag(asarray(v).ravel(), k)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from coordinate vectors (a tuple, as NumPy 2)."""
    from gpupy._manipulation import broadcast_arrays

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


# ---------------------------------------------------------------------------------------
# From existing data


def _keep_order_shape(prototype, shape):
    """The axis order (outermost first) NumPy's ``order='K'`` gives a new array like
    ``prototype``: axes sorted by decreasing absolute stride, ties in axis order."""
    strides = prototype.strides
    return sorted(range(len(shape)), key=lambda i: -abs(strides[i]))


def _new_like(prototype, dtype, order, shape):
    """A new uninitialized array like ``prototype`` (NumPy's ``empty_like`` layout rules),
    and the C-contiguous array whose memory it covers (for fills)."""
    order = _check_order(order, "CFAK")
    proto = prototype if isinstance(prototype, ndarray) else numpy.asarray(prototype)
    dt = proto.dtype if dtype is None else numpy.dtype(dtype)
    shape = proto.shape if shape is None else tuple(_shape(shape))
    ndim = len(shape)
    c_contig = proto.flags.c_contiguous
    f_contig = proto.flags.f_contiguous
    if order == "A":
        order = "F" if f_contig and not c_contig else "C"
    elif order == "K":
        if ndim != proto.ndim or c_contig or ndim <= 1:
            order = "C"
        elif f_contig:
            order = "F"
    if order == "C":
        out = empty(shape, dt)
        return out, out
    perm = list(range(ndim))[::-1] if order == "F" else _keep_order_shape(proto, shape)
    base = empty([shape[i] for i in perm], dt)
    inverse = [0] * ndim
    for pos, axis in enumerate(perm):
        inverse[axis] = pos
    return base.transpose(inverse), base


def _copy_with_order(a, order="K"):
    out, _ = _new_like(a, None, order, None)
    _gpupy._copyto(out, a)
    return out


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None):
    return _new_like(prototype, dtype, order, shape)[0]


def zeros_like(a, dtype=None, order="K", subok=True, shape=None):
    out, base = _new_like(a, dtype, order, shape)
    base.fill(0)
    return out


def ones_like(a, dtype=None, order="K", subok=True, shape=None):
    out, base = _new_like(a, dtype, order, shape)
    base.fill(1)
    return out


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    """A new array like ``a`` filled with ``fill_value`` (converted unsafely, broadcast
    when it is an array), as NumPy's ``full_like``."""
    out, base = _new_like(a, dtype, order, shape)
    if isinstance(fill_value, ndarray) or numpy.ndim(fill_value) != 0:
        _copyto_unsafe(out, fill_value)
    else:
        base.fill(fill_value)
    return out


def copy(a, order="K"):
    """A copy of ``a`` (NumPy's ``copy``: ``order='K'`` keeps the input's axis order)."""
    return array(a, copy=True, order=order)


def ascontiguousarray(a, dtype=None):
    """``a`` as a C-contiguous array of at least one dimension (``a`` itself when it is
    one already)."""
    a = asarray(a, dtype=dtype)
    if a.ndim == 0:
        return a.reshape(1)
    if a.flags.c_contiguous:
        return a
    return _copy_with_order(a, "C")


def asfortranarray(a, dtype=None):
    a = asarray(a, dtype=dtype)
    if a.ndim == 0:
        return a.reshape(1)
    if a.flags.f_contiguous:
        return a
    return _copy_with_order(a, "F")


__all__ = [
    "array", "asarray", "asnumpy", "empty", "zeros", "ones", "full", "arange", "linspace",
    "logspace", "eye", "identity", "tri", "diag", "diagflat", "meshgrid", "empty_like",
    "zeros_like", "ones_like", "full_like", "copy", "ascontiguousarray", "asfortranarray",
]
