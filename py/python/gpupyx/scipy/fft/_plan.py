"""FFT plans under CuPy's API: ``get_fft_plan(a, shape, axes, value_type)``.

In CuPy a plan is a cuFFT handle, made once and reused by passing it as ``plan=`` or by
entering it (``with plan:``). gpupy makes and caches its kernel plans itself (per
device, in the host library), so a plan here holds no resources: it records what a
transform of that layout computes (kind, precision, axes, lengths, batch) and the
transforms check that the call matches it, raising CuPy's ``ValueError``s when not.
Code written for CuPy's plans thus runs unchanged, and a plan made for one layout and
used for another fails as it does in CuPy.

The checking is ``gpupy.fft``'s hook (``gpupy.fft._plan``): ``with plan:`` makes the
plan current (a context variable: per thread and task, nested blocks restore on exit),
and every ``gpupy.fft`` transform, hence every ``gpupyx.scipy.fft`` and
``gpupyx.scipy.fftpack`` one, passes its description to ``plan.check_transform``
before computing. ``plan=`` makes the plan current for that one call; ``plan=`` inside a
``with`` block is CuPy's ``RuntimeError``. The real-to-real transforms (``dct``,
``dst``, ...) take no plan and suspend the current one around their internal FFTs.

Ported from CuPy (``cupyx/scipy/fftpack/_fft.py`` and ``cupy/fft/_fft.py``, MIT
license, Copyright (c) Preferred Networks, Inc. and Preferred Infrastructure, Inc.).
"""

import contextlib
import math
import numbers
import threading

import numpy

import gpupy as gp
from gpupy.fft import _plan as _hook
from gpupyx.scipy.fft import _helper

_VALUE_TYPES = ("C2C", "R2C", "C2R")


def _plan_dtype(dtype, value_type):
    """The precision a transform of ``dtype`` input runs in, as CuPy's ``_output_dtype``:
    the real dtype for R2C, the complex one otherwise."""
    dtype = numpy.dtype(dtype)
    if value_type == "R2C":
        if dtype.kind == "c":
            return _helper.real_dtype(dtype)
        return numpy.dtype(numpy.float32 if dtype in (numpy.float16, numpy.float32) else numpy.float64)
    if dtype.kind == "c":
        return dtype
    return numpy.dtype(numpy.complex64 if dtype in (numpy.float16, numpy.float32) else numpy.complex128)


class _Layout:
    """What one transform computes. ``axes`` are in the order the transform runs them:
    sorted for C2C (whose axes commute), the others sorted then the real axis last for
    R2C and C2R. ``shape`` is the length along each of them (the output length on the
    real axis of a C2R), ``batch`` the number of transforms."""

    def __init__(self, value_type, dtype, in_shape, axes, out_size=None):
        axes = [a % len(in_shape) for a in axes]
        ordered = sorted(axes) if value_type == "C2C" else sorted(axes[:-1]) + axes[-1:]
        shape = [in_shape[a] for a in ordered]
        if value_type == "C2R":
            shape[-1] = out_size
        self.value_type = value_type
        self.dtype = numpy.dtype(dtype)
        self.axes = tuple(ordered)
        self.shape = tuple(shape)
        self.batch = math.prod(n for i, n in enumerate(in_shape) if i not in ordered)
        self.in_shape = tuple(in_shape)


class FFTPlan:
    """A plan from ``get_fft_plan``: usable as ``plan=`` and as ``with plan:``.

    Attributes (read-only by convention): ``value_type`` ('C2C', 'R2C' or 'C2R'),
    ``dtype`` (the precision: the complex dtype, or the real one for R2C), ``axes``
    (non-negative, in the order described in ``_Layout``), ``shape`` (the transform
    lengths along them), ``batch``, and ``nx`` (the length of a one-axis plan, as
    ``cupy.cuda.cufft.Plan1d.nx``; None for several axes).
    """

    def __init__(self, layout):
        self._layout = layout
        self._local = threading.local()  # each thread's open ``with`` blocks of this plan

    value_type = property(lambda self: self._layout.value_type)
    dtype = property(lambda self: self._layout.dtype)
    axes = property(lambda self: self._layout.axes)
    shape = property(lambda self: self._layout.shape)
    batch = property(lambda self: self._layout.batch)
    nx = property(lambda self: self._layout.shape[0] if len(self._layout.shape) == 1 else None)

    def __repr__(self):
        return (f"<gpupyx FFT plan {self.value_type} {self.dtype}: shape {self.shape} "
                f"over axes {self.axes}, batch {self.batch}>")

    def __enter__(self):
        block = _hook.using(self)
        block.__enter__()
        self._local.__dict__.setdefault("blocks", []).append(block)
        return self

    def __exit__(self, *exc):
        return self._local.blocks.pop().__exit__(*exc)

    def check_transform(self, value_type, dtype, in_shape, axes, out_size=None):
        """``gpupy.fft``'s hook: raises CuPy's ``ValueError`` when the transform (described
        as in ``gpupy.fft._plan``) is not the one this plan was made for."""
        call = _Layout(value_type, _plan_dtype(dtype, value_type), in_shape, axes, out_size)
        mine = self._layout
        if (mine.value_type, mine.dtype) != (call.value_type, call.dtype):
            raise ValueError(f"FFT plan dtype mismatch: the plan is {mine.value_type} {mine.dtype}, "
                             f"the call {call.value_type} {call.dtype}.")
        if len(mine.axes) != len(call.axes):
            raise ValueError(f"The FFT plan transforms {len(mine.axes)} axes, the call {len(call.axes)}.")
        if len(mine.axes) == 1:  # as cuFFT's Plan1d: the length and the batch, any axis
            if mine.shape != call.shape:
                raise ValueError(f"Target array size does not match the plan: plan {mine.shape[0]}, "
                                 f"call {call.shape[0]}.")
        else:
            if mine.axes != call.axes:
                raise ValueError(f"The FFT plan's axes do not match: plan.axes = {mine.axes}, axes = {call.axes}")
            if mine.shape != call.shape:
                raise ValueError(f"The FFT plan and a.shape do not match: plan.shape = {mine.shape}, "
                                 f"expected_shape={call.shape}, a.shape = {call.in_shape}")
        if mine.batch != call.batch:
            raise ValueError(f"Batch size does not match the plan: plan {mine.batch}, call {call.batch}.")


def given(plan):
    """The context of one transform called with ``plan=``: the plan made current for the
    call (``gpupy.fft`` checks it); None leaves the entered plan, if any, in charge. A
    plan given inside a ``with plan:`` block is CuPy's RuntimeError."""
    if plan is None:
        return contextlib.nullcontext()
    if _hook.current_plan() is not None:
        raise RuntimeError("Use the FFT plan either as a context manager or as an argument.")
    if not isinstance(plan, FFTPlan):
        raise ValueError(f"expected plan to be a plan from get_fft_plan, got {type(plan).__name__}")
    return _hook.using(plan)


def suspended():
    """No current plan for the block: the FFTs a DCT or DST runs are its own business."""
    return _hook.using(None)


def get_fft_plan(a, shape=None, axes=None, value_type="C2C"):
    """A plan for transforming arrays like ``a`` over ``axes`` (CuPy's signature).

    Args:
        a (gpupy.ndarray): an array of the layout to transform (any strides: gpupy's
            kernels do not need contiguous input, so CuPy's contiguity check is not made).
        shape (None, int or tuple of ints/None): the transform lengths along ``axes``
            (the output's, for C2R's last axis); None keeps ``a``'s.
        axes (None, int or tuple of ints): the axes; default the last ``len(shape)``
            axes, or all of them. Any number of axes (CuPy's limit of three is cuFFT's).
        value_type (str): 'C2C' (default), 'R2C' (``rfft``...) or 'C2R' (``irfft``...).

    Returns:
        FFTPlan: pass it as ``plan=`` or enter it with ``with plan:``.
    """
    if not isinstance(a, gp.ndarray):
        raise TypeError(f"The input array a must be a gpupy.ndarray, not {type(a).__name__}")
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    if isinstance(axes, numbers.Integral):
        axes = (axes,)
    if shape is not None and axes is not None and len(shape) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if value_type not in _VALUE_TYPES:
        raise ValueError(f"value_type must be 'C2C', 'R2C' or 'C2R', not {value_type!r}")
    if axes is None:
        n = a.ndim if shape is None else len(shape)
        axes = tuple(range(-n, 0))
    for ax in axes:
        if ax >= a.ndim or ax < -a.ndim:
            raise ValueError(f"The chosen axis ({ax}) exceeds the number of dimensions of a ({a.ndim})")
    axes = [ax % a.ndim for ax in axes]
    if not axes:
        raise ValueError("an FFT plan needs at least one axis")
    if len(set(axes)) != len(axes):
        raise ValueError("all axes must be unique")
    in_shape = list(a.shape)
    if shape is not None:
        for s, ax in zip(shape, axes):
            if s is not None:
                in_shape[ax] = s // 2 + 1 if (value_type == "C2R" and ax == axes[-1]) else s
    out_size = None
    if value_type == "C2R":
        last = None if shape is None else shape[-1]
        out_size = 2 * (a.shape[axes[-1]] - 1) if last is None else last
    return FFTPlan(_Layout(value_type, _plan_dtype(a.dtype, value_type), in_shape, axes, out_size))


__all__ = ["FFTPlan", "given", "suspended", "get_fft_plan"]
