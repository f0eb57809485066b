"""``scipy.ndimage``'s correlation filters on gpupy arrays: SciPy's signatures, checks,
messages and result dtypes; the correlations run in gpupy's Rust kernels
(``kernels/src/filters/``, reached through ``_gpupy._correlate1d``/``_correlate``).

- ``correlate1d``/``convolve1d``: every weight along one axis;
- ``correlate``/``convolve``: n-d weights; as SciPy, only weights above ``DBL_EPSILON``
  in magnitude take part (its footprint);
- separable filters as 1-d passes, each pass stored in the output's dtype before the
  next as SciPy stores it (so an integer image is truncated between passes as under
  SciPy): ``gaussian_filter(1d)``, ``uniform_filter(1d)``, ``sobel``, ``prewitt``,
  ``laplace``, ``gaussian_laplace``, ``gaussian_gradient_magnitude`` and the
  ``generic_*`` builders.

Arithmetic: float16 and float32 inputs compute in float32 (as CuPy), everything else
in float64 (as SciPy); the taps accumulate with fused multiply-adds in tap order.
``uniform_filter1d`` is a correlation with weights ``1/size`` (SciPy's C code keeps a
running sum instead, so results differ by rounding). Complex inputs or weights go
through real correlations of the parts, as SciPy's do.
"""

import numpy

import gpupy as gp
from gpupy import _gpupy
from gpupyx.scipy.ndimage import _util
from gpupyx.scipy.ndimage._util import (
    as_device, as_host, check_axes, compute_dtype, deliver, get_output, invalid_origin,
    mode_code, normalize_axis, normalize_sequence,
)

_DBL_EPSILON = numpy.finfo(numpy.float64).eps


# ---------------------------------------------------------------------------------------
# The two correlations, on real arrays, into a fresh array of the compute dtype.

def _real_cval(cval):
    """`cval` as the float SciPy's C code takes (its TypeError for a complex one)."""
    if numpy.iscomplexobj(cval):
        raise TypeError("must be real number, not complex")
    return float(cval)


def _correlate1d_real(x, weights, axis, mode, cval, origin):
    """`x` (real gpupy array) correlated along `axis` with float64 `weights`."""
    return _gpupy._correlate1d(x, [float(w) for w in weights], axis,
                               len(weights) // 2 + origin, mode_code(mode), _real_cval(cval),
                               compute_dtype(x.dtype))


def _correlate_real(x, weights, mode, cval, origins):
    """`x` correlated with the n-d float64 `weights` (one axis per dimension of `x`),
    over SciPy's footprint (the weights above DBL_EPSILON in magnitude)."""
    taps = numpy.argwhere(numpy.abs(weights) > _DBL_EPSILON)
    centers = numpy.array([n // 2 + o for n, o in zip(weights.shape, origins)], dtype=numpy.int64)
    values = [float(weights[tuple(t)]) for t in taps]
    offsets = [[int(v) for v in t - centers] for t in taps]
    return _gpupy._correlate(x, values, offsets, mode_code(mode), _real_cval(cval),
                             compute_dtype(x.dtype))


def _complex_parts(real_filter, x, weights, cval):
    """The complex result of a linear filter from real filters of the parts (SciPy's
    ``_complex_via_real_components``): `real_filter(x, w, cval)` is real."""
    cx, cw = x.dtype.kind == "c", weights.dtype.kind == "c"
    if cx and cw:
        re = real_filter(x.real, weights.real, numpy.real(cval)) - \
            real_filter(x.imag, weights.imag, numpy.imag(cval))
        im = real_filter(x.real, weights.imag, numpy.real(cval)) + \
            real_filter(x.imag, weights.real, numpy.imag(cval))
    elif cx:
        re = real_filter(x.real, weights, numpy.real(cval))
        im = real_filter(x.imag, weights, numpy.imag(cval))
    else:
        if numpy.iscomplexobj(cval):
            raise ValueError("Cannot provide a complex-valued cval when the input is real.")
        re = real_filter(x, weights.real, cval)
        im = real_filter(x, weights.imag, cval)
    return re + 1j * im


# ---------------------------------------------------------------------------------------
# Correlations and convolutions

def correlate1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """One-dimensional correlation along `axis` (``scipy.ndimage.correlate1d``)."""
    input = as_device(input)
    weights = as_host(weights)
    if input.dtype.kind == "c" or weights.dtype.kind == "c":
        if weights.dtype.kind == "c":
            weights = weights.conj().astype(numpy.complex128, copy=False)
        get_output(output, input, complex_output=True)  # SciPy's checks, first
        _check_1d_weights(weights, origin)
        result = _complex_parts(
            lambda x, w, c: _correlate1d_real(x, numpy.asarray(w, numpy.float64),
                                              normalize_axis(axis, input.ndim), mode, c, origin),
            input, weights, cval)
        return deliver(result, output, input, complex_output=True)
    get_output(output, input)
    weights = numpy.asarray(weights, dtype=numpy.float64)
    _check_1d_weights(weights, origin)
    axis = normalize_axis(axis, input.ndim)
    mode_code(mode)
    return deliver(_correlate1d_real(input, weights, axis, mode, cval, origin), output, input)


def _check_1d_weights(weights, origin):
    if weights.ndim != 1 or weights.shape[0] < 1:
        raise RuntimeError("no filter weights given")
    if invalid_origin(origin, len(weights)):
        raise ValueError("Invalid origin; origin must satisfy -(len(weights) // 2) <= origin <= "
                         "(len(weights)-1) // 2")


def convolve1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """One-dimensional convolution along `axis` (``scipy.ndimage.convolve1d``)."""
    weights = as_host(weights)[::-1]
    origin = -origin
    if not weights.shape[0] & 1:
        origin -= 1
    if weights.dtype.kind == "c":
        weights = weights.conj()
    return correlate1d(input, weights, axis, output, mode, cval, origin)


def _correlate_or_convolve(input, weights, output, mode, cval, origin, convolution, axes):
    input = as_device(input)
    weights = as_host(weights)
    if input.dtype.kind == "c" or weights.dtype.kind == "c":
        if weights.dtype.kind == "c" and not convolution:
            weights = weights.conj()  # as numpy.correlate: the weights, not the input
        get_output(output, input, complex_output=True)
        result = _complex_parts(
            lambda x, w, c: _correlate_or_convolve(x, w, None, mode, c, origin, convolution, axes),
            input, weights, cval)
        return deliver(result, output, input, complex_output=True)
    axes = check_axes(axes, input.ndim)
    weights = numpy.asarray(weights, dtype=numpy.float64)
    weights = _expand_footprint(input.ndim, axes, weights, "weights")
    origins = _expand_origin(input.ndim, axes, origin)
    wshape = [n for n in weights.shape if n > 0]
    if len(wshape) != input.ndim:
        raise RuntimeError(f"weights.ndim ({len(wshape)}) must match len(axes) ({len(axes)})")
    if convolution:
        weights = weights[(slice(None, None, -1),) * weights.ndim]
        for k in range(len(origins)):
            origins[k] = -origins[k]
            if not weights.shape[k] & 1:
                origins[k] -= 1
    for o, lenw in zip(origins, wshape):
        if invalid_origin(o, lenw):
            raise ValueError("Invalid origin; origin must satisfy -(weights.shape[k] // 2) <= "
                             "origin[k] <= (weights.shape[k]-1) // 2")
    get_output(output, input)
    if not isinstance(mode, str) and numpy.iterable(mode):
        raise RuntimeError("A sequence of modes is not supported")
    mode_code(mode)
    return deliver(_correlate_real(input, weights, mode, cval, origins), output, input)


def _expand_origin(ndim, axes, origin):
    origins = normalize_sequence(origin, len(axes))
    if len(axes) < ndim:
        full = [0] * ndim
        for o, ax in zip(origins, axes):
            full[ax] = o
        origins = full
    return origins


def _expand_footprint(ndim, axes, footprint, name="footprint"):
    if len(axes) < ndim:
        if footprint.ndim != len(axes):
            raise RuntimeError(f"{name}.ndim ({footprint.ndim}) must match len(axes) ({len(axes)})")
        footprint = numpy.expand_dims(footprint, tuple(ax for ax in range(ndim) if ax not in axes))
    return footprint


def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    """Multidimensional correlation (``scipy.ndimage.correlate``)."""
    return _correlate_or_convolve(input, weights, output, mode, cval, origin, False, axes)


def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    """Multidimensional convolution (``scipy.ndimage.convolve``)."""
    return _correlate_or_convolve(input, weights, output, mode, cval, origin, True, axes)


# ---------------------------------------------------------------------------------------
# Separable filters: 1-d passes, each stored in the output's dtype

class _Passes:
    """The 1-d passes of a separable filter into ``output`` (SciPy's rule: each pass
    writes the output array, which the next pass reads). While the output's dtype is
    the compute dtype the passes chain their fresh results; otherwise each result is
    cast to the output's dtype first, as SciPy's storing would."""

    def __init__(self, input, output, complex_output=False):
        self.input = input
        self.out = get_output(output, input, complex_output=complex_output)
        self.named = output is not None
        self.current = input

    def run(self, one_pass):
        """Applies `one_pass(current) -> fresh array` and keeps its result, in the
        output's dtype as SciPy stores it (``_util.cast_like_c``)."""
        self.current = _util.cast_like_c(one_pass(self.current), self.out.dtype)

    def result(self):
        if self.current is self.input:
            self.out[...] = self.input  # no pass ran: SciPy copies the input
            return self.out
        if not self.named and self.current.dtype == self.out.dtype:
            return self.current
        self.out[...] = self.current
        return self.out


def _gaussian_kernel1d(sigma, order, radius):
    """SciPy's Gaussian kernel (or derivative of order `order`), radius `radius`."""
    if order < 0:
        raise ValueError("order must be non-negative")
    exponent_range = numpy.arange(order + 1)
    sigma2 = sigma * sigma
    x = numpy.arange(-radius, radius + 1)
    phi_x = numpy.exp(-0.5 / sigma2 * x ** 2)
    phi_x = phi_x / phi_x.sum()
    if order == 0:
        return phi_x
    q = numpy.zeros(order + 1)
    q[0] = 1
    D = numpy.diag(exponent_range[1:], 1)
    P = numpy.diag(numpy.ones(order) / -sigma2, -1)
    Q_deriv = D + P
    for _ in range(order):
        q = Q_deriv.dot(q)
    q = (x[:, None] ** exponent_range).dot(q)
    return q * phi_x


def _gaussian_weights(sigma, order, truncate, radius):
    sd = float(sigma)
    lw = int(truncate * sd + 0.5)
    if radius is not None:
        lw = radius
    _util.check_radius(lw)
    return _gaussian_kernel1d(sigma, order, lw)[::-1]


def gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0,
                      truncate=4.0, *, radius=None):
    """One-dimensional Gaussian filter (``scipy.ndimage.gaussian_filter1d``)."""
    weights = _gaussian_weights(sigma, order, truncate, radius)
    return correlate1d(input, weights, axis, output, mode, cval, 0)


def _separable(input, output, passes, cval):
    """Runs `passes` [(weights, axis, mode, origin)] as 1-d correlations into `output`
    (see _Passes); complex input as its real and imaginary parts."""
    input = as_device(input)
    if input.dtype.kind == "c":
        out = get_output(output, input, complex_output=True)
        re = _separable(input.real, None, passes, numpy.real(cval))
        im = _separable(input.imag, None, passes, numpy.imag(cval))
        out[...] = re + 1j * im
        return out
    _real_cval(cval)
    p = _Passes(input, output)
    for weights, axis, mode, origin in passes:
        mode_code(mode)
        w = numpy.asarray(weights, numpy.float64)
        p.run(lambda x, w=w, a=axis, m=mode, o=origin: _correlate1d_real(x, w, a, m, cval, o))
    return p.result()


def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0,
                    *, radius=None, axes=None):
    """Multidimensional Gaussian filter (``scipy.ndimage.gaussian_filter``)."""
    input = as_device(input)
    axes = check_axes(axes, input.ndim)
    n = len(axes)
    orders, sigmas = normalize_sequence(order, n), normalize_sequence(sigma, n)
    modes, radii = normalize_sequence(mode, n), normalize_sequence(radius, n)
    passes = [(_gaussian_weights(sigmas[k], orders[k], truncate, radii[k]), axes[k], modes[k], 0)
              for k in range(n) if sigmas[k] > 1e-15]
    return _separable(input, output, passes, cval)


def uniform_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """One-dimensional uniform (moving average) filter (``scipy.ndimage.uniform_filter1d``)."""
    input = as_device(input)
    axis = normalize_axis(axis, input.ndim)
    if size < 1:
        raise RuntimeError("incorrect filter size")
    get_output(output, input, complex_output=input.dtype.kind == "c")
    if size // 2 + origin < 0 or size // 2 + origin >= size:
        raise ValueError("invalid origin")
    mode_code(mode)
    weights = numpy.full(int(size), 1.0 / size)
    if input.dtype.kind == "c":
        out = get_output(output, input, complex_output=True)
        re = _correlate1d_real(input.real, weights, axis, mode, numpy.real(cval), origin)
        im = _correlate1d_real(input.imag, weights, axis, mode, numpy.imag(cval), origin)
        out[...] = re + 1j * im
        return out
    return deliver(_correlate1d_real(input, weights, axis, mode, cval, origin), output, input)


def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    """Multidimensional uniform filter (``scipy.ndimage.uniform_filter``)."""
    input = as_device(input)
    axes = check_axes(axes, input.ndim)
    n = len(axes)
    sizes, origins = normalize_sequence(size, n), normalize_sequence(origin, n)
    modes = normalize_sequence(mode, n)
    for s, o in zip(sizes, origins):
        if s < 1:
            raise RuntimeError("incorrect filter size")
        if s // 2 + o < 0 or s // 2 + o >= s:
            raise ValueError("invalid origin")
    passes = [(numpy.full(int(sizes[k]), 1.0 / sizes[k]), axes[k], modes[k], origins[k])
              for k in range(n) if sizes[k] > 1]
    return _separable(input, output, passes, cval)


def _edge(input, axis, output, mode, cval, smooth):
    input = as_device(input)
    axis = normalize_axis(axis, input.ndim)
    modes = normalize_sequence(mode, input.ndim)
    passes = [([-1.0, 0.0, 1.0], axis, modes[axis], 0)]
    passes += [(smooth, k, modes[k], 0) for k in range(input.ndim) if k != axis]
    return _separable(input, output, passes, cval)


def prewitt(input, axis=-1, output=None, mode="reflect", cval=0.0):
    """Prewitt filter (``scipy.ndimage.prewitt``)."""
    return _edge(input, axis, output, mode, cval, [1.0, 1.0, 1.0])


def sobel(input, axis=-1, output=None, mode="reflect", cval=0.0):
    """Sobel filter (``scipy.ndimage.sobel``)."""
    return _edge(input, axis, output, mode, cval, [1.0, 2.0, 1.0])


def _sum_over_axes(input, derivative, output, mode, cval, extra_arguments, extra_keywords, axes,
                   square):
    """SciPy's shared loop of ``generic_laplace`` and ``generic_gradient_magnitude``: the
    derivative along each axis (squared when `square`) summed into the output, whose
    dtype each term takes; no axes copies the input."""
    extra_keywords = extra_keywords or {}
    input = as_device(input)
    output = get_output(output, input)
    axes = check_axes(axes, input.ndim)
    if not axes:
        output[...] = input
        return output
    modes = normalize_sequence(mode, len(axes))
    derivative(input, axes[0], output, modes[0], cval, *extra_arguments, **extra_keywords)
    if square:
        gp.multiply(output, output, output)
    for k in range(1, len(axes)):
        tmp = derivative(input, axes[k], output.dtype, modes[k], cval, *extra_arguments,
                         **extra_keywords)
        if square:
            gp.multiply(tmp, tmp, tmp)
        output += tmp
    if square:
        gp.sqrt(output, output, casting="unsafe")
    return output


def generic_laplace(input, derivative2, output=None, mode="reflect", cval=0.0,
                    extra_arguments=(), extra_keywords=None, *, axes=None):
    """N-d Laplace filter from a second-derivative function (``scipy.ndimage.generic_laplace``)."""
    return _sum_over_axes(input, derivative2, output, mode, cval, extra_arguments, extra_keywords,
                          axes, square=False)


def laplace(input, output=None, mode="reflect", cval=0.0, *, axes=None):
    """N-d Laplace filter by second differences (``scipy.ndimage.laplace``)."""
    def derivative2(input, axis, output, mode, cval):
        return correlate1d(input, [1, -2, 1], axis, output, mode, cval, 0)
    return generic_laplace(input, derivative2, output, mode, cval, axes=axes)


def gaussian_laplace(input, sigma, output=None, mode="reflect", cval=0.0, *, axes=None, **kwargs):
    """Laplace filter by Gaussian second derivatives (``scipy.ndimage.gaussian_laplace``)."""
    input = as_device(input)

    def derivative2(input, axis, output, mode, cval, sigma, **kwargs):
        order = [0] * input.ndim
        order[axis] = 2
        return gaussian_filter(input, sigma, order, output, mode, cval, **kwargs)

    axes = check_axes(axes, input.ndim)
    sigma = normalize_sequence(sigma, len(axes))
    if len(axes) < input.ndim:
        full = [0] * input.ndim
        for s, ax in zip(sigma, axes):
            full[ax] = s
        sigma = full
    return generic_laplace(input, derivative2, output, mode, cval, extra_arguments=(sigma,),
                           extra_keywords=kwargs, axes=axes)


def generic_gradient_magnitude(input, derivative, output=None, mode="reflect", cval=0.0,
                               extra_arguments=(), extra_keywords=None, *, axes=None):
    """Gradient magnitude from a first-derivative function
    (``scipy.ndimage.generic_gradient_magnitude``)."""
    return _sum_over_axes(input, derivative, output, mode, cval, extra_arguments, extra_keywords,
                          axes, square=True)


def gaussian_gradient_magnitude(input, sigma, output=None, mode="reflect", cval=0.0, *, axes=None,
                                **kwargs):
    """Gradient magnitude by Gaussian derivatives (``scipy.ndimage.gaussian_gradient_magnitude``)."""
    input = as_device(input)

    def derivative(input, axis, output, mode, cval, sigma, **kwargs):
        order = [0] * input.ndim
        order[axis] = 1
        return gaussian_filter(input, sigma, order, output, mode, cval, **kwargs)

    return generic_gradient_magnitude(input, derivative, output, mode, cval,
                                      extra_arguments=(sigma,), extra_keywords=kwargs, axes=axes)


_GENERIC_UNSUPPORTED = (
    "gpupyx.scipy.ndimage.{name} calls a Python function once per window, which cannot run on "
    "the GPU. Use the filter that computes your function (correlate, convolve, uniform_filter, "
    "gaussian_filter, minimum_filter, maximum_filter, rank_filter, median_filter, "
    "percentile_filter, ...), or gather the windows as one array with "
    "gpupy.lib.stride_tricks.sliding_window_view (after gpupy.pad for the boundary) and reduce "
    "its last axes with gpupy's functions or a gpupy.ReductionKernel."
)


def generic_filter(input, function, size=None, footprint=None, output=None, mode="reflect",
                   cval=0.0, origin=0, extra_arguments=(), extra_keywords=None, *, axes=None):
    """``scipy.ndimage.generic_filter``: not supported (NotImplementedError says what is)."""
    raise NotImplementedError(_GENERIC_UNSUPPORTED.format(name="generic_filter"))


def generic_filter1d(input, function, filter_size, axis=-1, output=None, mode="reflect", cval=0.0,
                     origin=0, extra_arguments=(), extra_keywords=None):
    """``scipy.ndimage.generic_filter1d``: not supported (NotImplementedError says what is)."""
    raise NotImplementedError(_GENERIC_UNSUPPORTED.format(name="generic_filter1d"))


__all__ = [
    "generic_filter", "generic_filter1d",
    "correlate1d", "convolve1d", "correlate", "convolve", "gaussian_filter1d", "gaussian_filter",
    "uniform_filter1d", "uniform_filter", "prewitt", "sobel", "generic_laplace", "laplace",
    "gaussian_laplace", "generic_gradient_magnitude", "gaussian_gradient_magnitude",
]
