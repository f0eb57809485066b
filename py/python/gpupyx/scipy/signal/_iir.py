"""``scipy.signal``'s recursive (IIR) filters on gpupy arrays: ``lfilter``, ``lfiltic``,
``lfilter_zi``, ``sosfilt``, ``sosfilt_zi``, ``filtfilt`` (``method='pad'`` and
``'gust'``) and ``sosfiltfilt``, with SciPy 1.18's signatures, result dtypes, checks
and messages.

The filtering runs in gpupy's ``iir`` kernels (``kernels/src/iir/``): SciPy's direct
form II transposed, a thread per line for many lines and a chunked scan of the linear
recursion for a few long ones. The coefficients are read on the host (they are small)
and travel to the kernels by value. Like SciPy, ``lfilter`` computes in the result type
of ``b``, ``a``, ``x`` and ``zi`` (``float32``, ``float64``, ``complex64`` or
``complex128``; integer coefficients with integer input is SciPy's
``NotImplementedError``), normalizing by ``a[0]`` in that type; ``sosfilt`` in the
result type of ``sos``, ``x`` and ``zi``. ``lfiltic``, ``lfilter_zi`` and
``sosfilt_zi`` are small computations on the coefficients, made on the host as SciPy
makes them and returned as gpupy arrays.

Empty axes: SciPy 1.18's ``lfilter`` with ``len(a) == 1`` fails on an input whose
filtered axis is empty (NumPy's ``apply_along_axis`` refuses it; SciPy's development
version returns the empty result): gpupy returns the empty result (and ``zf = zi``), as
SciPy's other ``lfilter`` path does. ``sosfilt`` raises SciPy's error there (NumPy's
refusal to reshape a zero-length axis, which SciPy still has), as it does for zero
sections.
"""

import numpy

import gpupy as gp
from gpupy import _gpupy
from gpupyx.scipy.ndimage._util import as_device, normalize_axis
from gpupyx.scipy.signal._arraytools import (
    axis_reverse,
    axis_slice,
    const_ext,
    even_ext,
    odd_ext,
)

# The kernels' compute dtypes, by NumPy type character.
_COMPUTE = {"f": "float32", "d": "float64", "F": "complex64", "D": "complex128"}


def _host(v):
    """Coefficients (any array-like, a gpupy array too) as a NumPy array."""
    return v.get() if isinstance(v, gp.ndarray) else numpy.asarray(v)


def _compute(dtype):
    """The kernels' compute dtype for SciPy's result dtype `dtype`."""
    try:
        return _COMPUTE[dtype.char]
    except KeyError:
        raise TypeError(f"gpupy has no {dtype} recursive filters (float32, float64, complex64 "
                        "and complex128 only)") from None


def _pairs(v, dtype):
    """`v` converted to `dtype` (SciPy's rounding), as (real, imaginary) pairs."""
    return [(float(c.real), float(c.imag)) for c in numpy.asarray(v, dtype=dtype).astype(complex)]


def _validate_x(x):
    x = as_device(x)
    if x.ndim == 0:
        raise ValueError("x must be at least 1-D")
    return x


# ---------------------------------------------------------------------------------------
# lfilter

def lfilter(b, a, x, axis=-1, zi=None):
    """Filters `x` along `axis` with the rational transfer function ``b(z) / a(z)``
    (``scipy.signal.lfilter``, direct form II transposed), from the delays `zi` or
    from rest. Returns ``y``, or ``(y, zf)`` when `zi` is given."""
    b = numpy.atleast_1d(_host(b))
    a = numpy.atleast_1d(_host(a))
    x = as_device(x)
    if zi is not None:
        zi = as_device(zi)
    if not (b.ndim == 1 and b.size > 0):
        raise ValueError(f"Parameter b is not a non-empty 1d array, since {b.shape=}!")
    if not (a.ndim == 1 and a.size > 0):
        raise ValueError(f"Parameter a is not a non-empty 1d array, since {a.shape=}!")
    if len(a) == 1:
        return _lfilter_fir(b, a, x, axis, zi)
    return _lfilter_iir(b, a, x, axis, zi)


def _lfilter_fir(b, a, x, axis, zi):
    """SciPy's path for ``len(a) == 1``: a filter without feedback, with its checks."""
    x = _validate_x(x)
    dtypes = [b.dtype, a.dtype, x.dtype]
    if zi is not None:
        if zi.ndim != x.ndim:
            raise ValueError("Dimensions of parameters x and zi must match, but "
                             f"{x.ndim=}, {zi.ndim=}!")
        expected = list(x.shape)
        expected[axis] = b.shape[0] - 1
        expected = tuple(expected)
        if zi.shape != expected:
            ax = axis + zi.ndim if axis < 0 else axis
            for k in range(zi.ndim):
                if zi.shape[k] == expected[k] or (k != ax and zi.shape[k] == 1):
                    continue
                raise ValueError("Unexpected shape for parameter zi: expected "
                                 f"{expected}, found {zi.shape}.")
            zi = gp.broadcast_to(zi, expected)
        dtypes.append(zi.dtype)
    dtype = numpy.result_type(*dtypes)
    if dtype.char not in "fdgFDGO":
        raise NotImplementedError("Parameter's dtypes produced result type "
                                  f"'{dtype}', which is not supported!")
    axis = normalize_axis(axis, x.ndim)
    b = numpy.array(b, dtype=dtype)
    b /= numpy.asarray(a, dtype=dtype)[0]
    return _run_lfilter(x, b, numpy.ones(1, dtype), axis, zi, dtype)


def _zi_shape_message(x_shape, zi_shape, axis, states):
    """SciPy's C message for a `zi` of the wrong shape (two spaces in the n-d form)."""
    if len(x_shape) == 1:
        return f"Unexpected shape for zi: expected ({states},), found ({zi_shape[0]},)."
    expected = ",".join(str(states if j == axis else n) for j, n in enumerate(x_shape))
    found = ",".join(str(n) for n in zi_shape)
    return f"Unexpected shape for zi:  expected ({expected}), found ({found})."


def _lfilter_iir(b, a, x, axis, zi):
    """SciPy's ``_linear_filter`` path (``len(a) > 1``), its checks in its order."""
    dtypes = [b.dtype, a.dtype, x.dtype] + ([zi.dtype] if zi is not None else [])
    dtype = numpy.result_type(*dtypes)
    if axis < -x.ndim or axis > x.ndim - 1:
        raise ValueError("selected axis is out of range")
    axis = axis % x.ndim
    if zi is not None and zi.ndim != x.ndim:
        raise ValueError("object of too small depth for desired array" if zi.ndim < x.ndim
                         else "object too deep for desired array")
    if dtype.char not in "fdgFDG":
        raise NotImplementedError(f"input type '{dtype}' not supported\n")
    a = numpy.array(a, dtype=dtype)
    b = numpy.array(b, dtype=dtype)
    # SciPy compares a[0]'s bytes with zero's: -0.0 passes (and divides by it).
    if not a[:1].view(numpy.uint8).any():
        raise ValueError("BUG: filter coefficient a[0] == 0 not supported yet")
    states = max(len(a), len(b)) - 1
    if zi is not None:
        for k in range(x.ndim):
            ok = zi.shape[k] == states if k == axis else zi.shape[k] in (x.shape[k], 1)
            if not ok:
                raise ValueError(_zi_shape_message(x.shape, zi.shape, axis, states))
        expected = list(x.shape)
        expected[axis] = states
        zi = gp.broadcast_to(zi, tuple(expected))
    # SciPy pads both to one length and divides by a[0] in the compute type.
    b = numpy.concatenate([b, numpy.zeros(states + 1 - len(b), dtype)])
    a = numpy.concatenate([a, numpy.zeros(states + 1 - len(a), dtype)])
    with numpy.errstate(divide="ignore", invalid="ignore"):  # C divides without warnings
        b, a = b / a[0], a / a[0]
    return _run_lfilter(x, b, a, axis, zi, dtype)


def _run_lfilter(x, b, a, axis, zi, dtype):
    """The kernels' filter of `x` by `b` and `a` already divided by ``a[0]`` (whose own
    quotient is 1 by definition: a NaN from dividing by -0.0 stays in the other
    coefficients, as in SciPy's loop). ``a = [1]`` is SciPy's convolution path; any
    longer `a` has `b`'s length."""
    a = a.copy()
    a[0] = 1
    y, zf = _gpupy._lfilter(x, _pairs(b, dtype), _pairs(a, dtype), axis, zi, _compute(dtype))
    return y if zi is None else (y, zf)


# ---------------------------------------------------------------------------------------
# Initial conditions

def lfiltic(b, a, y, x=None):
    """The delays `zi` for ``lfilter`` that reproduce the past outputs `y` (most
    recent first) and inputs `x` (``scipy.signal.lfiltic``)."""
    a = numpy.atleast_1d(_host(a))
    b = numpy.atleast_1d(_host(b))
    if a.ndim > 1:
        raise ValueError("Filter coefficients `a` must be 1-D.")
    if b.ndim > 1:
        raise ValueError("Filter coefficients `b` must be 1-D.")
    N = a.shape[0] - 1
    M = b.shape[0] - 1
    K = max(M, N)
    y = _host(y)
    if N < 0:
        raise ValueError("There must be at least one `a` coefficient.")
    if x is None:
        result_type = numpy.result_type(b, a, y)
        if numpy.isdtype(result_type, ("bool", "integral")):
            result_type = numpy.float64
        x = numpy.zeros(M, dtype=result_type)
    else:
        x = _host(x)
        result_type = numpy.result_type(b, a, y, x)
        if numpy.isdtype(result_type, ("bool", "integral")):
            result_type = numpy.float64
        x = x.astype(result_type)
        L = x.size
        if L < M:
            x = numpy.concatenate((x, numpy.zeros(M - L)))
    y = y.astype(result_type)
    zi = numpy.zeros(K, dtype=result_type)
    L = y.size
    if L < N:
        y = numpy.concatenate((y, numpy.zeros(N - L)))
    for m in range(M):
        zi[m] = numpy.sum(b[m + 1:] * x[:M - m], axis=0)
    for m in range(N):
        zi[m] -= numpy.sum(a[m + 1:] * y[:N - m], axis=0)
    if a[0] != 1.:
        if a[0] == 0.:
            raise ValueError("First `a` filter coefficient must be non-zero.")
        zi /= a[0]
    return gp.asarray(zi)


def _lfilter_zi(b, a):
    """SciPy 1.18's ``lfilter_zi`` on the host (a NumPy array)."""
    args = [numpy.asarray(v) if numpy.iterable(v) else v for v in (_host(b), _host(a))]
    dtype = numpy.result_type(*args, 1.0)
    b, a = (numpy.atleast_1d(numpy.asarray(v, dtype=dtype)) for v in args)
    if not (b.ndim == a.ndim == 1):
        raise ValueError("Numerator `b` and Denominator `a` must be 1-D arrays, " +
                         f"but {b.shape = }, {a.shape = }!")
    if a[0] == 0:
        raise ValueError("First coefficient of parameter `a` must be non-zero!")
    if a[0] != 1:
        b, a = b / a[0], a / a[0]
    if (sum_a := numpy.sum(a)) == 0:
        raise ValueError("Filter not stable due to sum(a) == 0, i.e., " +
                         "having a pole at z = 1!")
    y_inf = numpy.sum(b) / sum_a
    n = max(a.shape[0], b.shape[0])
    b = numpy.pad(b, (0, n - b.shape[0]))
    a = numpy.pad(a, (0, n - a.shape[0]))
    return numpy.flip(numpy.cumsum(numpy.flip(b - y_inf * a)))[1:]


def lfilter_zi(b, a):
    """The delays for ``lfilter`` at the steady state of the step response
    (``scipy.signal.lfilter_zi``, SciPy 1.18's formula and checks)."""
    return gp.asarray(_lfilter_zi(b, a))


def _sosfilt_zi(sos):
    sos = _host(sos)
    if sos.ndim != 2 or sos.shape[1] != 6:
        raise ValueError("sos must be shape (n_sections, 6)")
    if numpy.isdtype(sos.dtype, ("integral", "bool")):
        sos = sos.astype(numpy.float64)
    n_sections = sos.shape[0]
    zi = numpy.empty((n_sections, 2), dtype=sos.dtype)
    scale = 1.0
    for section in range(n_sections):
        b = sos[section, :3]
        a = sos[section, 3:]
        zi[section, ...] = scale * _lfilter_zi(b, a)
        scale *= numpy.sum(b) / numpy.sum(a)
    return zi


def sosfilt_zi(sos):
    """The delays for ``sosfilt`` at the steady state of the step response
    (``scipy.signal.sosfilt_zi``): shape ``(n_sections, 2)``."""
    return gp.asarray(_sosfilt_zi(sos))


# ---------------------------------------------------------------------------------------
# sosfilt

def _validate_sos(sos):
    sos = numpy.atleast_2d(_host(sos))
    if sos.ndim != 2:
        raise ValueError("sos array must be 2D")
    n_sections, m = sos.shape
    if m != 6:
        raise ValueError("sos array must be shape (n_sections, 6)")
    if not numpy.all(sos[:, 3] == 1):
        raise ValueError("sos[:, 3] should be all ones")
    return sos, n_sections


def sosfilt(sos, x, axis=-1, zi=None):
    """Filters `x` along `axis` through cascaded second-order sections
    (``scipy.signal.sosfilt``), from the delays `zi` (shape ``(n_sections, ..., 2,
    ...)``) or from rest. Returns ``y``, or ``(y, zf)`` when `zi` is given."""
    x = _validate_x(x)
    sos, n_sections = _validate_sos(sos)
    x_zi_shape = list(x.shape)
    x_zi_shape[axis] = 2
    x_zi_shape = tuple([n_sections] + x_zi_shape)
    dtypes = [sos.dtype, x.dtype]
    if zi is not None:
        zi = as_device(zi)
        dtypes.append(zi.dtype)
    dtype = numpy.result_type(*dtypes)
    if dtype.char not in "fdgFDGO":
        raise NotImplementedError(f"input type '{dtype}' not supported")
    if zi is not None and zi.shape != x_zi_shape:
        raise ValueError(
            f"Invalid zi shape. With axis={axis!r}, "
            f"an input with shape {x.shape!r}, "
            f"and an sos array with {n_sections} sections, zi must have "
            f"shape {x_zi_shape!r}, got {zi.shape!r}."
        )
    axis = axis % x.ndim
    if x.shape[axis] == 0 or n_sections == 0:
        # SciPy reshapes the lines to (-1, len) and the states to (-1, sections, 2),
        # which NumPy refuses for a zero length: the same error, from NumPy itself.
        numpy.reshape(numpy.zeros(x.shape), (-1, x.shape[axis]))
        numpy.reshape(numpy.zeros(x_zi_shape), (-1, 0, 2))
    outer, inner = x.shape[:axis], x.shape[axis + 1:]
    flat = None
    if zi is not None:
        # (n, ..., 2, ...) -> (..., 2n, ...): section s's states at 2s and 2s + 1.
        flat = gp.moveaxis(zi, 0, axis).reshape(outer + (2 * n_sections,) + inner)
    rows = [_pairs(row, dtype) for row in sos]
    y, zf = _gpupy._sosfilt(x, rows, axis, flat, _compute(dtype))
    if zi is None:
        return y
    return y, gp.moveaxis(zf.reshape(outer + (n_sections, 2) + inner), axis, 0)


# ---------------------------------------------------------------------------------------
# Forward-backward filters

def _validate_pad(padtype, padlen, x, axis, ntaps):
    if padtype not in ["even", "odd", "constant", None]:
        raise ValueError(f"Unknown value '{padtype}' given to padtype. "
                         "padtype must be 'even', 'odd', 'constant', or None.")
    if padtype is None:
        padlen = 0
    edge = ntaps * 3 if padlen is None else padlen
    if x.shape[axis] <= edge:
        raise ValueError("The length of the input vector x must be greater than padlen, "
                         f"which is {edge}.")
    if padtype is not None and edge > 0:
        if padtype == "even":
            ext = even_ext(x, edge, axis=axis)
        elif padtype == "odd":
            ext = odd_ext(x, edge, axis=axis)
        else:
            ext = const_ext(x, edge, axis=axis)
    else:
        ext = x
    return edge, ext


def filtfilt(b, a, x, axis=-1, padtype="odd", padlen=None, method="pad", irlen=None):
    """`x` filtered forward and backward along `axis` (zero phase;
    ``scipy.signal.filtfilt``): the ends padded (``method='pad'``) or Gustafsson's
    initial conditions (``method='gust'``)."""
    b = numpy.atleast_1d(_host(b))
    a = numpy.atleast_1d(_host(a))
    x = as_device(x)
    if method not in ["pad", "gust"]:
        raise ValueError("method must be 'pad' or 'gust'.")
    if method == "gust":
        y, _, _ = _filtfilt_gust(b, a, x, axis=axis, irlen=irlen)
        return y
    edge, ext = _validate_pad(padtype, padlen, x, axis, ntaps=max(len(a), len(b)))
    zi = _lfilter_zi(b, a)
    zi_shape = [1] * x.ndim
    zi_shape[axis] = zi.size
    zi = gp.asarray(numpy.reshape(zi, zi_shape))
    x0 = axis_slice(ext, stop=1, axis=axis)
    y, _ = lfilter(b, a, ext, axis=axis, zi=zi * x0)
    y0 = axis_slice(y, start=-1, axis=axis)
    y, _ = lfilter(b, a, axis_reverse(y, axis=axis), axis=axis, zi=zi * y0)
    y = axis_reverse(y, axis=axis)
    if edge > 0:
        y = axis_slice(y, start=edge, stop=-edge, axis=axis)
    return y


def _filtfilt_gust(b, a, x, axis=-1, irlen=None):
    """Forward-backward filtering with Gustafsson's initial conditions (SciPy's
    ``_filtfilt_gust``, the same steps on the device): ``(y, x0, x1)``."""
    b = numpy.atleast_1d(b)
    a = numpy.atleast_1d(a)
    order = max(len(b), len(a)) - 1
    if order == 0:
        # The filter is just scalar multiplication, with no state.
        scale = (b[0] / a[0]) ** 2
        return scale * x, gp.asarray(numpy.array([])), gp.asarray(numpy.array([]))
    # SciPy's test is always true: the data axis goes last (a no-op when it is).
    x = gp.swapaxes(x, axis, x.ndim - 1)
    n = x.shape[-1]
    m = n if irlen is None or n <= 2 * irlen else irlen
    # Obs: the zero-input responses to each unit initial state; S: those responses
    # reversed and filtered (equations (5) and (6) of Gustafsson's paper).
    zi = numpy.zeros(order)
    zi[0] = 1
    first = lfilter(b, a, gp.zeros(m), zi=zi)[0]
    Obs = gp.zeros((m, order), dtype=first.dtype)
    Obs[:, 0] = first
    for k in range(1, order):
        Obs[k:, k] = Obs[:-k, 0]
    Obsr = Obs[::-1]
    S = lfilter(b, a, Obs[::-1], axis=0)
    Sr = S[::-1]
    if m == n:
        M = gp.hstack((Sr - Obs, Obsr - S))
    else:
        M = gp.zeros((2 * m, 2 * order), dtype=S.dtype)
        M[:m, :order] = Sr - Obs
        M[m:, order:] = Obsr - S
    # The naive forward-backward and backward-forward filters from rest.
    y_f = lfilter(b, a, x)
    y_fb = lfilter(b, a, y_f[..., ::-1])[..., ::-1]
    y_b = lfilter(b, a, x[..., ::-1])[..., ::-1]
    y_bf = lfilter(b, a, y_b)
    delta_y_bf_fb = y_bf - y_fb
    if m == n:
        delta = delta_y_bf_fb
    else:
        delta = gp.concatenate((delta_y_bf_fb[..., :m], delta_y_bf_fb[..., -m:]), axis=-1)
    # The least-squares initial conditions (scipy.linalg.lstsq's default cutoff: eps).
    if delta.ndim == 1:
        ic_opt = gp.linalg.lstsq(M, delta, rcond=-1)[0]
    else:
        delta2d = delta.reshape(-1, delta.shape[-1]).T
        ic_opt0 = gp.linalg.lstsq(M, delta2d, rcond=-1)[0].T
        ic_opt = ic_opt0.reshape(delta.shape[:-1] + (M.shape[-1],))
    # Equation (7): Y_fb^opt = Y_fb^0 + W [x_0^opt; x_{N-1}^opt], W = [S^R, O^R].
    if m == n:
        W = gp.hstack((Sr, Obsr))
    else:
        W = gp.zeros((2 * m, 2 * order), dtype=S.dtype)
        W[:m, :order] = Sr
        W[m:, order:] = Obsr
    wic = ic_opt @ W.T
    y_opt = gp.array(y_fb)
    if m == n:
        y_opt += wic
    else:
        y_opt[..., :m] += wic[..., :m]
        y_opt[..., -m:] += wic[..., -m:]
    x0 = ic_opt[..., :order]
    x1 = ic_opt[..., -order:]
    x0 = gp.swapaxes(x0, axis, x.ndim - 1)
    x1 = gp.swapaxes(x1, axis, x.ndim - 1)
    y_opt = gp.swapaxes(y_opt, axis, x.ndim - 1)
    return y_opt, x0, x1


def sosfiltfilt(sos, x, axis=-1, padtype="odd", padlen=None):
    """`x` filtered forward and backward through second-order sections along `axis`
    (``scipy.signal.sosfiltfilt``)."""
    sos, n_sections = _validate_sos(sos)
    x = _validate_x(x)
    ntaps = 2 * n_sections + 1
    ntaps -= min((sos[:, 2] == 0).sum(), (sos[:, 5] == 0).sum())
    edge, ext = _validate_pad(padtype, padlen, x, axis, ntaps=ntaps)
    zi = _sosfilt_zi(sos)
    zi_shape = [1] * x.ndim
    zi_shape[axis] = 2
    zi = gp.asarray(zi.reshape([n_sections] + zi_shape))
    x_0 = axis_slice(ext, stop=1, axis=axis)
    y, _ = sosfilt(sos, ext, axis=axis, zi=zi * x_0)
    y_0 = axis_slice(y, start=-1, axis=axis)
    y, _ = sosfilt(sos, axis_reverse(y, axis=axis), axis=axis, zi=zi * y_0)
    y = axis_reverse(y, axis=axis)
    if edge > 0:
        y = axis_slice(y, start=edge, stop=-edge, axis=axis)
    return y


__all__ = ["lfilter", "lfiltic", "lfilter_zi", "sosfilt", "sosfilt_zi", "filtfilt",
           "sosfiltfilt"]
