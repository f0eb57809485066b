"""The hook for FFT plan objects: what ``with plan:`` of
``gpupyx.scipy.fft.get_fft_plan`` (another module's job) builds on.

gpupy's FFT primitives plan for themselves, through the per-device cache of
``gpupy.fft.config``; a user's plan object therefore does not carry work to the GPU. What
CuPy users get from a plan as a context manager is the check that the transforms they
run are the ones the plan was made for (CuPy raises ``ValueError`` for a plan of another
size, dtype, axes or batch). That check is the protocol here:

- ``using(plan)`` makes ``plan`` current for the block (a ``contextvars.ContextVar``, so
  each thread and each asyncio task sees its own; blocks nest and restore on exit;
  ``using(None)`` suspends the current plan, e.g. around calls a caller has checked
  already); ``current_plan()`` returns it, or None.
- While a plan is current, every public transform of ``gpupy.fft`` calls, once per call,
  after NumPy's argument checks and before any work,
  ``plan.check_transform(value_type, dtype, in_shape, axes, out_size)`` with CuPy's
  description of the transform:

  - ``value_type``: ``"C2C"``, ``"R2C"`` or ``"C2R"`` (``hfft`` is a C2R, ``ihfft`` an
    R2C, as they are computed);
  - ``dtype``: the precision it runs in: complex64/complex128 for C2C and C2R,
    float32/float64 for R2C (float16, bool and integer inputs converted as NumPy does);
  - ``in_shape``: the input's shape after padding or cropping to ``n``/``s`` (for C2R
    the last transformed axis holds ``out_size // 2 + 1``);
  - ``axes``: the transformed axes, non-negative, in the order given (the last is the
    real one for R2C and C2R);
  - ``out_size``: the real output's length along the last axis for C2R, else None.

  It raises ``ValueError`` when the plan does not describe the call; its return value
  is ignored. Zero-size batches are checked too, although nothing runs.
"""

import contextlib
import contextvars

_current = contextvars.ContextVar("gpupy.fft.plan", default=None)


def current_plan():
    """The plan of the innermost ``using`` block in this context, or None."""
    return _current.get()


@contextlib.contextmanager
def using(plan):
    """Makes ``plan`` (an object with ``check_transform``, see the module docstring)
    current for the block; None makes no plan current."""
    token = _current.set(plan)
    try:
        yield plan
    finally:
        _current.reset(token)


def check(value_type, dtype, in_shape, axes, out_size=None):
    """Called by the transforms once per call: passes the transform to the current
    plan's ``check_transform``, if a plan is current."""
    plan = _current.get()
    if plan is not None:
        plan.check_transform(value_type, dtype, tuple(in_shape), tuple(axes), out_size)


__all__ = ["current_plan", "using", "check"]
