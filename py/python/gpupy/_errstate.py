"""Floating-point error handling: NumPy's ``seterr``/``geterr``/``errstate``,
``seterrcall``/``geterrcall`` and ``setbufsize``/``getbufsize``, accepted and recorded.

GPU kernels do not trap: a division by zero, an overflow or an invalid operation in a
gpupy kernel gives IEEE 754's result (inf, NaN, ...) whatever the settings say, and no
warning, exception, call or log entry happens (as in CuPy). The settings are kept so code
written for NumPy runs unchanged and reads back what it set. They are gpupy's own,
per-thread and per-asyncio-task (a context variable, as NumPy's): setting them does not
change NumPy's settings, nor NumPy's the gpupy ones. NumPy validates the arguments, so
the errors are NumPy's (``ValueError: invalid error mode 'bad'``)."""

import contextlib
import contextvars

import numpy

# NumPy's defaults (numpy.geterr() in a fresh interpreter), and its default buffer size.
_DEFAULT = ({"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}, None, 8192)
_state = contextvars.ContextVar("gpupy_errstate", default=_DEFAULT)


def _with_numpy(change):
    """Applies ``change`` (a function of no arguments calling NumPy's setters) on top of
    gpupy's current state inside a NumPy errstate, so NumPy validates and resolves
    ``all=`` as it does, and returns the resulting (err, call, bufsize) without leaving
    any change in NumPy's own state."""
    err, call, bufsize = _state.get()
    with numpy.errstate():
        numpy.seterr(**err)
        numpy.seterrcall(call)
        numpy.setbufsize(bufsize)
        change()
        return numpy.geterr(), numpy.geterrcall(), numpy.getbufsize()


def seterr(all=None, divide=None, over=None, under=None, invalid=None):  # noqa: A002
    """Records how floating-point errors are to be treated and returns the previous
    settings (NumPy's ``seterr``). GPU kernels do not trap: the settings do not change
    what gpupy computes, nor raise, warn or call (see the module's docstring)."""
    old = geterr()
    _state.set(_with_numpy(lambda: numpy.seterr(all=all, divide=divide, over=over, under=under, invalid=invalid)))
    return old


def geterr():
    """The recorded floating-point error settings (NumPy's ``geterr``): a new dict with
    the keys ``divide``, ``over``, ``under``, ``invalid``."""
    return dict(_state.get()[0])


def seterrcall(func):
    """Records the function (or object with a ``write`` method) for the ``'call'`` and
    ``'log'`` modes and returns the previous one (NumPy's ``seterrcall``). GPU kernels do
    not trap, so it is never called by gpupy."""
    old = geterrcall()
    _state.set(_with_numpy(lambda: numpy.seterrcall(func)))
    return old


def geterrcall():
    """The recorded error callback (NumPy's ``geterrcall``), None by default."""
    return _state.get()[1]


def setbufsize(size):
    """Records the ufunc buffer size and returns the previous one (NumPy's
    ``setbufsize``, same limits). gpupy's kernels use no such buffer: recorded only."""
    old = getbufsize()
    _state.set(_with_numpy(lambda: numpy.setbufsize(size)))
    return old


def getbufsize():
    """The recorded ufunc buffer size (NumPy's ``getbufsize``), 8192 by default."""
    return _state.get()[2]


_UNSPECIFIED = object()


class errstate(contextlib.ContextDecorator):
    """Context manager and decorator for floating-point error settings (NumPy's
    ``errstate``): ``with gpupy.errstate(divide="ignore"): ...`` records the settings
    for the block and restores the previous ones after it. GPU kernels do not trap: inside
    the block gpupy computes exactly what it computes outside it (IEEE 754 results, no
    warnings or exceptions); only ``geterr``/``geterrcall`` read the recorded settings.
    Does not change NumPy's settings (use ``numpy.errstate`` for NumPy's host work)."""

    def __init__(self, *, call=_UNSPECIFIED, all=None, divide=None, over=None, under=None, invalid=None):  # noqa: A002
        self._call = call
        self._kwargs = dict(all=all, divide=divide, over=over, under=under, invalid=invalid)
        self._token = None

    def _recreate_cm(self):
        # ContextDecorator: each decorated call uses a fresh manager (they are not reentrant).
        return type(self)(call=self._call, **self._kwargs)

    def __enter__(self):
        if self._token is not None:
            raise TypeError("Cannot enter `gpupy.errstate` twice.")

        def change():
            numpy.seterr(**self._kwargs)
            if self._call is not _UNSPECIFIED:
                numpy.seterrcall(self._call)

        self._token = _state.set(_with_numpy(change))
        return self

    def __exit__(self, *exc_info):
        _state.reset(self._token)
        self._token = None
        return False


__all__ = ["errstate", "seterr", "geterr", "seterrcall", "geterrcall", "setbufsize", "getbufsize"]
