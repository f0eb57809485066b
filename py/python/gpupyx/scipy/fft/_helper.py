"""SciPy's argument rules for ``scipy.fft``, checked before any kernel runs, and
``next_fast_len``.

The checks follow ``scipy/fft/_pocketfft/helper.py`` (SciPy 1.17) in order and wording,
so that a call SciPy refuses is refused here with the same exception type and message.
Where SciPy's own check is an accident of its implementation (``tuple index out of
range`` for an axis out of bounds), NumPy's ``AxisError`` is raised: it is an
``IndexError`` as SciPy's is, with a message that names the axis.
"""

import functools
import numbers
import operator
import os

import numpy

import gpupy as gp

_CPU_COUNT = os.cpu_count() or 1
_NORMS = (None, "backward", "ortho", "forward")
# pocketfft's normalization codes: 0 none, 1 by 1/sqrt(N), 2 by 1/N (for the forward
# direction; the inverse one mirrors it: 2 - code).
_NORM_CODE = {"backward": 0, "ortho": 1, "forward": 2}


def asfarray(x):
    """``x`` (a gpupy array) as the floating dtype SciPy computes in: float16 goes to
    float32, integers and booleans to float64, float and complex arrays stay as they are.
    Host arrays are refused, as CuPy refuses them: a silent copy to the device is a
    transfer the caller did not ask for."""
    if not isinstance(x, gp.ndarray):
        raise TypeError(f"The input array x must be a gpupy.ndarray, not {type(x).__module__}.{type(x).__name__}")
    if x.dtype == numpy.float16:
        return x.astype(numpy.float32)
    if x.dtype.kind not in "fc":
        return x.astype(numpy.float64)
    return x


def complex_dtype(dtype):
    """The complex dtype of ``dtype``'s precision."""
    return numpy.dtype(numpy.complex64 if numpy.dtype(dtype).char in "fF" else numpy.complex128)


def real_dtype(dtype):
    """The real dtype of ``dtype``'s precision."""
    return numpy.dtype(numpy.float32 if numpy.dtype(dtype).char in "fF" else numpy.float64)


def check_norm(norm):
    """``norm`` as NumPy's FFTs take it (``None`` is ``"backward"``)."""
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm!r}, should be "backward", "ortho" or "forward"')
    return "backward" if norm is None else norm


def norm_code(norm, forward):
    """pocketfft's normalization code for ``norm`` in the given direction."""
    code = _NORM_CODE[check_norm(norm)]
    return code if forward else 2 - code


def swap_direction(norm):
    """The ``norm`` of the opposite direction (``hfft`` is an ``irfft`` of the conjugate
    with the forward transform's scaling)."""
    return {"backward": "forward", "ortho": "ortho", "forward": "backward"}[check_norm(norm)]


def check_workers(workers):
    """SciPy's ``workers`` rules; the value itself is not used (the GPU does the work)."""
    if workers is None:
        return
    workers = operator.index(workers)
    if workers < -_CPU_COUNT:
        raise ValueError(f"workers value out of range; got {workers}, must not be less than {-_CPU_COUNT}")
    if workers == 0:
        raise ValueError("workers must not be zero")


def normalize_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise numpy.exceptions.AxisError(axis, ndim)
    return axis % ndim


def check_n(n):
    """SciPy's ``_fix_shape_1d`` check: ``n`` is compared before its type is (so 0.5 is
    a ValueError, 2.0 a TypeError)."""
    if n < 1:
        raise ValueError(f"invalid number of data points ({n}) specified")
    return operator.index(n)


def axis_and_n(x, axis, n):
    """(axis, n) of a 1-d transform, checked in SciPy's order: an explicit ``n`` first,
    then the axis, then the input's own length when ``n`` is None."""
    if n is not None:
        n = check_n(n)
        axis = normalize_axis(axis, x.ndim)
        return axis, n
    axis = normalize_axis(axis, x.ndim)
    if x.shape[axis] < 1:
        raise ValueError(f"invalid number of data points ({x.shape[axis]}) specified")
    return axis, x.shape[axis]


def _iterable_of_int(x, name=None):
    """``x`` (an integer or a sequence of them) as a list of ints."""
    if isinstance(x, numbers.Number):
        x = (x,)
    try:
        x = [operator.index(a) for a in x]
    except TypeError as e:
        name = name or "value"
        raise ValueError(f"{name} must be a scalar or iterable of integers") from e
    return x


def init_nd_shape_and_axes(x, shape, axes):
    """SciPy's ``_init_nd_shape_and_axes``: the transform lengths and the (non-negative,
    unique) axes of an n-d transform. ``shape`` -1 keeps the input's length; without
    ``axes``, ``shape`` applies to the last ``len(shape)`` axes."""
    noshape = shape is None
    noaxes = axes is None
    if not noaxes:
        axes = _iterable_of_int(axes, "axes")
        axes = [a + x.ndim if a < 0 else a for a in axes]
        if any(a >= x.ndim or a < 0 for a in axes):
            raise ValueError("axes exceeds dimensionality of input")
        if len(set(axes)) != len(axes):
            raise ValueError("all axes must be unique")
    if not noshape:
        shape = _iterable_of_int(shape, "shape")
        if axes and len(axes) != len(shape):
            raise ValueError("when given, axes and shape arguments have to be of the same length")
        if noaxes:
            if len(shape) > x.ndim:
                raise ValueError("shape requires more axes than are present")
            axes = range(x.ndim - len(shape), x.ndim)
        shape = [x.shape[a] if s == -1 else s for s, a in zip(shape, axes)]
    elif noaxes:
        shape = list(x.shape)
        axes = range(x.ndim)
    else:
        shape = [x.shape[a] for a in axes]
    if any(s < 1 for s in shape):
        raise ValueError(f"invalid number of data points ({shape}) specified")
    return list(shape), list(axes)


def fix_shape(x, shape, axes):
    """``x`` truncated (a view) or zero-padded (a new array) to ``shape`` along ``axes``,
    as SciPy's ``_fix_shape``."""
    index = [slice(None)] * x.ndim
    pad = False
    for n, ax in zip(shape, axes):
        index[ax] = slice(0, min(n, x.shape[ax]))
        pad = pad or n > x.shape[ax]
    index = tuple(index)
    if not pad:
        return x[index]
    full = list(x.shape)
    for n, ax in zip(shape, axes):
        full[ax] = n
    z = gp.zeros(full, x.dtype)
    z[index] = x[index]
    return z


# --------------------------------------------------------------------------------------
# next_fast_len

# The radices gpupy's FFT kernels have butterflies for; any other prime factor goes
# through Bluestein's algorithm (three FFTs of a longer length).
_FAST_PRIMES = (2, 3, 5, 7, 11, 13)


@functools.lru_cache(maxsize=4096)
def _next_smooth(target):
    """The smallest 13-smooth number >= ``target`` (> 16): each odd smooth number ``p``
    below the best candidate so far, times the least power of two that reaches
    ``target``."""
    best = 1 << (target - 1).bit_length()  # the next power of two: always smooth

    def walk(p, first):
        nonlocal best
        if p >= target:
            best = min(best, p)
            return
        q = -(-target // p)  # p * 2**k >= target  <=>  2**k >= ceil(target / p)
        best = min(best, p << (q - 1).bit_length())
        for i in range(first, len(_FAST_PRIMES)):
            if p * _FAST_PRIMES[i] < best:
                walk(p * _FAST_PRIMES[i], i)

    walk(1, 1)  # odd parts only: the power of two is chosen above
    return best


def next_fast_len(target, real=False):
    """The smallest length >= ``target`` that gpupy's FFT kernels transform fastest: a
    product of 2, 3, 5, 7, 11 and 13 (other prime factors take Bluestein's algorithm,
    several times slower). ``real`` is accepted for SciPy's signature: gpupy's real
    transforms have the same fast lengths as its complex ones.

    As SciPy's: 0 gives 0, a negative target is a ValueError, a non-integer a
    TypeError. The lengths differ from SciPy's (pocketfft's complex radices stop at 11,
    its real ones at 5).
    """
    target = operator.index(target)
    if target < 0:
        raise ValueError("Target length must be positive")
    if target <= 16:  # every length up to 16 is 13-smooth (17 is the first prime above)
        return target
    return _next_smooth(target)


__all__ = [
    "asfarray", "complex_dtype", "real_dtype", "check_norm", "norm_code", "swap_direction", "check_workers",
    "normalize_axis", "check_n", "axis_and_n", "init_nd_shape_and_axes", "fix_shape", "next_fast_len",
]
