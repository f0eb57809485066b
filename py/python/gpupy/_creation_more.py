"""More creation routines: ``geomspace`` and ``fromfunction`` (computed on the GPU),
the host-data constructors ``frombuffer``, ``fromiter``, ``fromfile`` and
``fromstring`` (NumPy parses the host data, the result is copied to the device once),
and the conversions ``asanyarray``, ``asarray_chkfinite`` and ``require``.

``like=`` is accepted for NumPy's signatures and ignored: every result is a gpupy array.
gpupy has no ndarray subclasses, so ``asanyarray`` is ``asarray``.
"""

import numpy

from gpupy import _math
from gpupy._creation import _copy_with_order, asarray
from gpupy._gpupy import ndarray
from gpupy._index_tricks import indices
from gpupy._manipulation import moveaxis
from gpupy._ranges import logspace
from gpupy._reduction import all as _all, any as _any

__all__ = [
    "geomspace", "fromfunction", "frombuffer", "fromiter", "fromfile", "fromstring", "asanyarray",
    "asarray_chkfinite", "require",
]


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` samples spaced evenly on a log scale from ``start`` to ``stop``, computed
    as NumPy computes them (``logspace`` of the log10s after rotating ``start`` onto the
    positive reals; the endpoints set exactly).

    .. seealso:: numpy.geomspace"""
    start = start if isinstance(start, ndarray) else asarray(numpy.asarray(start))
    stop = stop if isinstance(stop, ndarray) else asarray(numpy.asarray(stop))
    if bool(_any(_math.equal(start, 0))) or bool(_any(_math.equal(stop, 0))):
        raise ValueError("Geometric sequence cannot include zero")
    dt = numpy.result_type(start.dtype, stop.dtype, float(num), numpy.zeros((), dtype))
    dtype = dt if dtype is None else numpy.dtype(dtype)
    start = start.astype(dt, copy=True)
    stop = stop.astype(dt, copy=True)
    # Negative and complex starts: rotate start onto the positive reals, undo at the end.
    out_sign = _math.sign(start)
    start = _math.true_divide(start, out_sign)
    stop = _math.true_divide(stop, out_sign)
    result = logspace(_math.log10(start), _math.log10(stop), num=num, endpoint=endpoint, base=10.0, dtype=dt)
    if num > 0:
        result[0] = start  # exp(log(x)) need not be x: the endpoints are set exactly
        if num > 1 and endpoint:
            result[-1] = stop
    result = _math.multiply(result, out_sign).astype(dt, copy=False)
    if axis != 0:
        result = moveaxis(result, 0, axis)
    return result.astype(dtype, copy=False)


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """``function(*indices(shape, dtype))``: the function receives one gpupy coordinate
    array per axis (and ``kwargs``) and its result is returned as it is.

    .. seealso:: numpy.fromfunction"""
    return function(*indices(shape, dtype=dtype), **kwargs)


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None):
    """A device copy of the 1-d array NumPy reads from the host ``buffer``.

    .. seealso:: numpy.frombuffer"""
    return asarray(numpy.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromiter(iter, dtype, count=-1, *, like=None):
    """A device copy of the 1-d array NumPy builds from the iterable (consumed on the
    host).

    .. seealso:: numpy.fromiter"""
    return asarray(numpy.fromiter(iter, dtype=dtype, count=count))


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    """A device copy of the array NumPy reads from ``file`` (binary, or text with
    ``sep``).

    .. seealso:: numpy.fromfile"""
    return asarray(numpy.fromfile(file, dtype=dtype, count=count, sep=sep, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep, like=None):
    """A device copy of the 1-d array NumPy parses from the text ``string`` (``sep`` is
    required: NumPy 2 refuses binary mode).

    .. seealso:: numpy.fromstring"""
    return asarray(numpy.fromstring(string, dtype=dtype, count=count, sep=sep))


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """``asarray``: gpupy has no array subclasses. ``copy=True`` always copies,
    ``copy=False`` refuses a conversion that needs one (ValueError, as NumPy 2).

    .. seealso:: numpy.asanyarray"""
    if device is not None and device not in ("cuda", "gpu") and not hasattr(device, "id"):
        raise ValueError(f"gpupy arrays live on the GPU; cannot place them on {device!r}")
    if copy is False:
        if not isinstance(a, ndarray) or (dtype is not None and numpy.dtype(dtype) != a.dtype):
            raise ValueError("Unable to avoid copy while creating an array as requested.")
        return a
    r = asarray(a, dtype=dtype)
    if order in ("F", "f") and r.ndim > 1 and not r.flags.f_contiguous:
        r = _copy_with_order(r, "F")
    elif order in ("C", "c") and not r.flags.c_contiguous:
        r = _copy_with_order(r, "C")
    if copy and r is a:
        r = _copy_with_order(r, "K")
    return r


def asarray_chkfinite(a, dtype=None, order=None):
    """``asarray(a)``, refusing (ValueError) arrays of inexact dtype with an infinity or
    NaN (one device reduction and a read of its flag).

    .. seealso:: numpy.asarray_chkfinite"""
    a = asanyarray(a, dtype=dtype, order=order)
    if a.dtype.kind in "fc" and not bool(_all(_math.isfinite(a))):
        raise ValueError("array must not contain infs or NaNs")
    return a


_REQUIREMENT_FLAGS = {
    "C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C",
    "F": "F", "F_CONTIGUOUS": "F", "FORTRAN": "F",
    "A": "A", "ALIGNED": "A",
    "W": "W", "WRITEABLE": "W",
    "O": "O", "OWNDATA": "O",
    "E": "E", "ENSUREARRAY": "E",
}


def require(a, dtype=None, requirements=None, *, like=None):
    """``a`` as a gpupy array of ``dtype`` meeting the flag ``requirements`` (C or F
    contiguous, aligned, writeable, owning its data), copied only when it does not.

    .. seealso:: numpy.require"""
    if not requirements:
        return asanyarray(a, dtype=dtype)
    if isinstance(requirements, str):
        requirements = [requirements]
    reqs = {_REQUIREMENT_FLAGS[x.upper()] for x in requirements}
    reqs.discard("E")  # no subclasses: every result is a base gpupy.ndarray
    if reqs >= {"C", "F"}:
        raise ValueError('Cannot specify both "C" and "F" order')
    order = "A"
    if "C" in reqs:
        order = "C"
        reqs.remove("C")
    elif "F" in reqs:
        order = "F"
        reqs.remove("F")
    arr = asarray(a, dtype=dtype)
    if order == "C" and not arr.flags.c_contiguous:
        arr = _copy_with_order(arr, "C")
    elif order == "F" and not arr.flags.f_contiguous:
        arr = _copy_with_order(arr, "F")
    for prop in reqs:
        if not arr.flags[prop]:
            return _copy_with_order(arr, order)
    return arr
