"""Streams (CuPy's ``cupy.cuda.Stream``, ``ExternalStream``, ``get_current_stream``).

Every gpupy operation (kernels, copies, fills, allocations) goes to the calling
thread's current stream on the device; a thread starts on the legacy null stream.
``with stream:`` and ``stream.use()`` make a stream current for the calling thread only.
The Rust side (``host/src/stream.rs``) keeps the handle that launches read; this module
keeps the Python object, so ``get_current_stream()`` returns the very object made
current, as CuPy's does.
"""

import threading

from gpupy import _gpupy
from gpupy._gpupy import Event

_local = threading.local()


def _state():
    """This thread's ``(current, stack)``: the current Stream per device id, and the
    streams that ``with`` blocks replaced."""
    if not hasattr(_local, "current"):
        _local.current, _local.stack = {}, []
    return _local.current, _local.stack


class Stream:
    """A CUDA stream. ``Stream()`` creates one on the current device; ``non_blocking``
    streams do not synchronize with the null stream; lower ``priority`` runs first.
    ``Stream.null`` is the legacy null stream and ``Stream.ptds`` the per-thread default
    stream, both of whichever device is current when used."""

    null = None
    ptds = None

    def __init__(self, null=False, non_blocking=False, priority=0, ptds=False):
        self.non_blocking = bool(non_blocking)
        self.priority = priority
        if null and ptds:
            raise ValueError("a stream cannot be both the null and the per-thread default stream")
        self._kind = "null" if null else "ptds" if ptds else "own"
        self._handle = None if (null or ptds) else _gpupy._Stream(self.non_blocking, priority)

    @property
    def _s(self):
        """The Rust handle (the null and per-thread streams: of the current device)."""
        if self._kind == "null":
            return _gpupy._Stream.null()
        if self._kind == "ptds":
            return _gpupy._Stream.per_thread()
        return self._handle

    @property
    def ptr(self):
        """The ``CUstream`` handle as an int (0 for the null stream, 2 per-thread)."""
        return {"null": 0, "ptds": 2}.get(self._kind) if self._handle is None else self._handle.ptr

    @property
    def device_id(self):
        return self._s.device_id

    def use(self):
        """Makes this stream the calling thread's current stream on its device."""
        handle = self._s
        handle.make_current()
        _state()[0][handle.device_id] = self
        return self

    def __enter__(self):
        _state()[1].append(get_current_stream(self.device_id))
        return self.use()

    def __exit__(self, *exc):
        _state()[1].pop().use()

    def synchronize(self):
        """Waits for the work queued on this stream."""
        self._s.synchronize()

    @property
    def done(self):
        """Whether the work queued on this stream has finished."""
        return self._s.done

    def record(self, event=None):
        """Records ``event`` (a new one when None) at the stream's current end."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def wait_event(self, event):
        """Makes the stream's later work wait for ``event``."""
        self._s.wait_event(event)

    def add_callback(self, callback, arg):
        """Calls ``callback(stream, 0, arg)`` once the work queued so far has finished
        (later work waits for it). The callback runs on a driver thread and must not use
        gpupy (CUDA's rule for host functions)."""
        self._s.launch_host_func(lambda: callback(self, 0, arg))

    def launch_host_func(self, callback, arg):
        """Calls ``callback(arg)`` in stream order, as ``add_callback``."""
        self._s.launch_host_func(lambda: callback(arg))

    def __eq__(self, other):
        return isinstance(other, Stream) and self._s == other._s

    def __hash__(self):
        return hash(self._s)

    def __repr__(self):
        return f"<gpupy.cuda.Stream {self.ptr:#x} (device {self.device_id})>"


class ExternalStream(Stream):
    """A stream made by another library (CuPy's ``ExternalStream``): gpupy queues work on
    the handle ``ptr`` and never destroys it; the caller keeps it valid."""

    def __init__(self, ptr, device_id=-1):
        self.non_blocking = False
        self.priority = 0
        self._kind = "external"
        self._handle = _gpupy._Stream.external(int(ptr), int(device_id))


Stream.null = Stream(null=True)
Stream.ptds = Stream(ptds=True)


def get_current_stream(device_id=None):
    """The calling thread's current stream on ``device_id`` (the current device)."""
    if device_id is None:
        device_id = _gpupy.get_device_id()
    return _state()[0].get(device_id, Stream.null)


__all__ = ["Stream", "ExternalStream", "get_current_stream"]
