"""Array creation from shapes, values and existing data (NumPy's "From shape or value" and
"From existing data" creation routines) and transfers to and from the host.

This is the bottom layer of the Python package: it imports only the extension and NumPy,
and every other module builds on its ``asarray``, ``empty``, ``zeros`` and ``full``. The
numerical ranges (``arange``, ``linspace``, ...) are in ``_ranges`` and the matrices
built from them (``tri``, ``diag``) in ``_matrices``: they need the shape manipulations
and ufuncs that are built on this module.
"""

import contextlib
import operator

import numpy

from gpupy import _gpupy
from gpupy._gpupy import ndarray
from gpupy.cuda import Device
from gpupy.cuda.stream import get_current_stream


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


def _device_view(obj):
    """A gpupy view (no copy) of another library's GPU array that exports
    ``__cuda_array_interface__`` (PyTorch, CuPy, Numba, ...), else None."""
    if type(obj) in _HOST_TYPES or not hasattr(obj, "__cuda_array_interface__"):
        return None
    return _gpupy._from_cuda_array_interface(obj)


_HOST_TYPES = frozenset([numpy.ndarray, list, tuple, int, float, complex, bool])


def _check_like(like):
    """NumPy's ``like=`` (NEP 35): an array implementing ``__array_function__``, or None.
    gpupy's creation functions always make gpupy arrays, so its value is otherwise
    ignored (``numpy.asarray(x, like=g)`` reaches ``gpupy.asarray`` through
    ``gpupy._protocols.array_function``)."""
    if like is not None and not hasattr(type(like), "__array_function__"):
        raise TypeError("The `like` argument must be an array-like that implements the "
                        "`__array_function__` protocol.")


def _device_scope(device):
    """A context that makes ``device=`` (the array API's keyword: None, a
    ``gpupy.cuda.Device``, a device number, or "cuda"/"gpu"/"cuda:N") current while an
    array is made. Host devices are refused: gpupy arrays live on GPUs."""
    if device is None or device in ("cuda", "gpu"):
        return contextlib.nullcontext()
    if isinstance(device, str):
        if device.startswith("cuda:") and device[5:].isdigit():
            return Device(int(device[5:]))
        raise ValueError(f"gpupy arrays live on the GPU, not on device {device!r}")
    if isinstance(device, Device):
        return Device(device.id)
    try:
        return Device(operator.index(device))
    except TypeError:
        raise ValueError(f"gpupy arrays live on the GPU, not on device {device!r}") from None


def _check_copy_flag(copy):
    if copy not in (None, True, False):
        raise ValueError(f"copy must be True, False or None (got {copy!r})")


_NO_COPY = "Unable to avoid copy while creating an array as requested."


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, like=None):
    """A new device array with the values of ``obj`` (NumPy array, list, scalar, gpupy
    array, or another library's GPU array: a view of it when ``copy=False``)."""
    _check_like(like)
    view = None if isinstance(obj, ndarray) else _device_view(obj)
    if view is not None:
        obj = view
    if isinstance(obj, ndarray):
        if dtype is None or numpy.dtype(dtype) == obj.dtype:
            a = _copy_with_order(obj, order) if copy else obj
        else:
            a = obj.astype(dtype)
    else:
        a = _from_host_or_nested(obj, dtype)
    if a.ndim < ndmin:
        a = a.reshape((1,) * (ndmin - a.ndim) + a.shape)
    return a


def asarray(a, dtype=None, order=None, *, device=None, copy=None, blocking=True, like=None):
    """``a`` as a device array; a gpupy array of the requested dtype is returned as is.
    ``copy`` (NumPy 2's and the array API's): True always copies, False never does
    (``ValueError`` where a copy is needed: host data, a dtype change), None copies
    only when needed. ``device``: the GPU to make the array on (the current one when None).
    Lists and tuples may hold gpupy arrays (they are stacked on the device, as NumPy
    stacks the arrays of a nested list).
    With ``blocking=False`` a pinned, C-contiguous NumPy array of the dtype is only
    queued for copying on the current stream (CuPy's non-blocking ``asarray``; CuPy's
    default, gpupy's on request): later work on that stream sees the values, but the
    host array must not change until the stream has passed the copy."""
    _check_like(like)
    _check_copy_flag(copy)
    with _device_scope(device):
        if not isinstance(a, ndarray):
            view = _device_view(a)
            if view is None:
                if copy is False:
                    raise ValueError(_NO_COPY)
                if not blocking and type(a) is numpy.ndarray and (dtype is None or numpy.dtype(dtype) == a.dtype):
                    out = _gpupy._empty(list(a.shape), a.dtype)
                    out.set(a, stream=get_current_stream())
                    return out
                return _from_host_or_nested(a, dtype)
            a = view
        if dtype is not None and numpy.dtype(dtype) != a.dtype:
            if copy is False:
                raise ValueError(_NO_COPY)
            return a.astype(dtype)
        if copy:
            return _copy_with_order(a, "K" if order is None else order)
        return a


def _from_host_or_nested(obj, dtype):
    """A device copy of host data; a list or tuple that holds gpupy arrays (which refuse
    implicit host conversion) is stacked on the device instead."""
    try:
        return _gpupy._from_host(obj, dtype)
    except TypeError:
        if not isinstance(obj, (list, tuple)):
            raise
    return _stack_nested(obj, dtype)


def _stack_nested(seq, dtype):
    """NumPy's array coercion of a (nested) sequence whose leaves include gpupy arrays:
    the leaves' common shape under a new leading axis, the result type of their dtypes
    (Python scalars count as NumPy's array coercion counts them: default int/float/complex)."""
    parts = [_stack_nested(x, None) if isinstance(x, (list, tuple)) else asarray(x) for x in seq]
    shapes = {p.shape for p in parts}
    if len(shapes) > 1:
        raise ValueError("setting an array element with a sequence. The requested array has an "
                         "inhomogeneous shape after 1 dimensions.")
    inner = shapes.pop() if parts else ()
    dt = numpy.dtype(dtype) if dtype is not None else (
        numpy.result_type(*[p.dtype for p in parts]) if parts else numpy.dtype(numpy.float64))
    out = _gpupy._empty([len(parts), *inner], dt)
    for i, p in enumerate(parts):
        _gpupy._copyto(out[i:i + 1], p.reshape((1, *p.shape)))
    return out


def from_dlpack(x, /, *, device=None, copy=None):
    """A gpupy array of the DLPack-exporting ``x`` (the array API's ``from_dlpack``):
    a view of CUDA memory on the current device (a copy when ``copy=True``); host arrays
    (NumPy's) come over only as copies, so they need ``copy=True``."""
    if device is not None and not _is_gpu_device(device):
        raise ValueError(f"gpupy arrays live on the GPU; from_dlpack cannot place them on {device!r}")
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack needs an object with __dlpack__, got {type(x).__name__}")
    kind, _ = x.__dlpack_device__()
    if kind not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        if copy is not True:
            raise BufferError(
                f"the array is on DLPack device type {kind}, not the GPU: bringing it over copies it, "
                "so from_dlpack needs copy=True"
            )
        return asarray(numpy.from_dlpack(x))
    stream = _consumer_stream()
    try:
        capsule = x.__dlpack__(stream=stream, max_version=(1, 1), copy=copy)
        copied = copy is True  # the producer copies, or raises BufferError
    except TypeError:  # a producer of the older protocol (no max_version, no copy)
        capsule = x.__dlpack__(stream=stream)
        copied = False
    a = _gpupy._from_dlpack_capsule(capsule)
    return a.copy() if copy and not copied else a


_KDL_CUDA, _KDL_CUDA_MANAGED = 2, 13


def _consumer_stream():
    """The current stream as DLPack names it: 1 for the legacy null stream."""
    ptr = get_current_stream().ptr
    return 1 if ptr == 0 else ptr


def _is_gpu_device(device):
    return isinstance(device, Device) or device in ("cuda", "gpu")


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    """A NumPy array with the values of ``a`` (a device copy for gpupy arrays; into
    ``out`` when given, on ``stream`` when given)."""
    if isinstance(a, ndarray):
        return a.get(stream=stream, order=order, out=out, blocking=blocking)
    return numpy.asarray(a, order=order)


def empty(shape, dtype=float, order="C", *, device=None, like=None):
    """A new array of ``shape`` whose values are whatever the memory held."""
    _check_like(like)
    dt = numpy.dtype(dtype)  # None: float64, as NumPy
    dims = _shape(shape)
    with _device_scope(device):
        if _check_order(order) == "F":
            return _gpupy._empty(dims[::-1], dt).T
        return _gpupy._empty(dims, dt)


def zeros(shape, dtype=float, order="C", *, device=None, like=None):
    _check_like(like)
    dt = numpy.dtype(dtype)
    dims = _shape(shape)
    with _device_scope(device):
        if _check_order(order) == "F":
            return _gpupy._full(dims[::-1], dt, bytes(dt.itemsize)).T
        return _gpupy._full(dims, dt, bytes(dt.itemsize))


def ones(shape, dtype=None, order="C", *, device=None, like=None):
    _check_like(like)
    # dtype=None is float64 (NumPy's ones), not the int64 that full(shape, 1) would infer.
    return full(shape, 1, numpy.dtype(dtype), order, device=device)


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """A new array of ``shape`` filled with ``fill_value`` (broadcast when it is an array);
    NumPy picks the dtype when none is given."""
    _check_like(like)
    with _device_scope(device):
        return _full(shape, fill_value, dtype, order)


def _full(shape, fill_value, dtype, order):
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
# Identity matrices (NumPy lists them under "From shape or value")


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    """Ones on diagonal ``k`` of an ``N`` x ``M`` matrix, zeros elsewhere."""
    _check_like(like)
    if M is None:
        M = N
    m = zeros((N, M), dtype=dtype, order=order, device=device)
    k = operator.index(k)
    d = _gpupy._diagonal(m, k)
    if d.size:
        d.fill(1)
    return m


def identity(n, dtype=None, *, like=None):
    _check_like(like)
    return eye(n, dtype=float if dtype is None else dtype)


# ---------------------------------------------------------------------------------------
# From existing data


def _keep_order_shape(prototype, shape):
    """The axis order (outermost first) NumPy's ``order='K'`` gives a new array like
    ``prototype``: axes sorted by decreasing absolute stride, ties in axis order."""
    strides = prototype.strides
    return sorted(range(len(shape)), key=lambda i: -abs(strides[i]))


def _new_like(prototype, dtype, order, shape, device=None):
    """A new uninitialized array like ``prototype`` (NumPy's ``empty_like`` layout rules),
    and the C-contiguous array whose memory it covers (for fills); on ``device`` when
    given, else on the current device."""
    with _device_scope(device):
        return _new_like_here(prototype, dtype, order, shape)


def _new_like_here(prototype, dtype, order, shape):
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


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like(prototype, dtype, order, shape, device)[0]


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    out, base = _new_like(a, dtype, order, shape, device)
    base.fill(0)
    return out


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    out, base = _new_like(a, dtype, order, shape, device)
    base.fill(1)
    return out


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """A new array like ``a`` filled with ``fill_value`` (converted unsafely, broadcast
    when it is an array), as NumPy's ``full_like``."""
    out, base = _new_like(a, dtype, order, shape, device)
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
    "array", "asarray", "asnumpy", "from_dlpack", "empty", "zeros", "ones", "full", "eye", "identity",
    "empty_like", "zeros_like", "ones_like", "full_like", "copy", "ascontiguousarray",
    "asfortranarray",
]
