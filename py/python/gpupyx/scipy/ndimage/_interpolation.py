"""``scipy.ndimage``'s interpolation on gpupy arrays: ``spline_filter1d``,
``spline_filter``, ``map_coordinates``, ``affine_transform``, ``shift``, ``zoom``,
``rotate`` (and ``geometric_transform``, which takes a Python function and raises).

SciPy's signatures, argument checks, messages, warnings, output dtypes and results: the
functions follow ``scipy/ndimage/_interpolation.py`` step for step (so errors come in
SciPy's order), and the kernels (``kernels/src/interpolate/``) do SciPy's C arithmetic
operation for operation in float64:

- the prefilter (splines of order 2 to 5) turns samples into B-spline coefficients
  along each axis with SciPy's initial conditions per mode; for ``nearest`` and
  ``grid-constant``, which have none, the input is first padded by 12 samples (edge
  values, or ``cval``), as SciPy pads it;
- each output reads a window of ``order + 1`` taps per axis at its input coordinate,
  with SciPy's mapping of the coordinate and of taps past an edge (``constant`` and
  ``grid-constant`` differ, as do ``wrap`` and ``grid-wrap``);
- integer outputs round half away from zero and clamp to the type, unsigned ones send
  negatives to 0; bool outputs keep the low byte of the truncated value (SciPy's C
  conversion on x86-64).

The one difference in arithmetic: the sums that start each prefilter recursion stop
where the pole's powers fall below 2^-64 (SciPy sums whole lines), which changes
coefficients of lines longer than 26 to 54 samples (by order) by less than 2^-60 of
their largest. Inputs SciPy's C code cannot read raise its RuntimeError: float16 (and
complex parts of float16), as in SciPy. Complex inputs are interpolated as their real
and imaginary parts, as SciPy does.

Up to 8 interpolated dimensions (SciPy takes NumPy's 64): an affine map's output plane
too; ``map_coordinates``'s output may have any shape. ``rotate`` of more than two
dimensions samples every plane in one launch (SciPy loops over them in Python).
"""

import itertools
import math
import warnings

import numpy

import gpupy as gp
from gpupy import _gpupy
from gpupyx.scipy.ndimage._util import as_device, normalize_axis, normalize_sequence

# SciPy's interpolation modes -> codes (`_ni_support._extend_mode_to_code` for
# interpolation, the kernels' `interpolate::Mode`).
_MODES = {
    "nearest": 0, "wrap": 1, "reflect": 2, "grid-mirror": 2, "mirror": 3,
    "constant": 4, "grid-wrap": 5, "grid-constant": 6,
}

# Samples SciPy pads each axis with before prefiltering in the modes the prefilter has
# no boundary condition for (`_prepad_for_spline_filter`).
_NPAD = 12


def _mode_code(mode):
    """The kernel code of an interpolation mode; SciPy's RuntimeError otherwise."""
    try:
        if isinstance(mode, str) and mode in _MODES:
            return _MODES[mode]
    except TypeError:
        pass
    raise RuntimeError("boundary mode not supported")


def _check_order(order, low=0):
    if order < low or order > 5:
        raise RuntimeError("spline order not supported")


def _readable(dtype):
    """Whether SciPy's C code reads (and stores) `dtype`: bool, integers, float32,
    float64."""
    dtype = numpy.dtype(dtype)
    return dtype.kind in "biu" or dtype in (numpy.float32, numpy.float64)


def _as_cval(cval):
    """`cval` as the double SciPy's C code parses (its TypeError otherwise)."""
    if isinstance(cval, (str, bytes, complex, numpy.complexfloating)):
        raise TypeError(f"must be real number, not {type(cval).__name__}")
    return float(cval)


def _host_values(values):
    """A sequence argument (shift, zoom, offset, matrix) on the host."""
    return values.get() if isinstance(values, gp.ndarray) else values


# ---------------------------------------------------------------------------------------
# Outputs

def _output(output, input, shape, complex_output=False, stacklevel=3):
    """SciPy's ``_get_output``, its checks, warning and errors, without allocating:
    (the output array or None, the output dtype). `shape` is compared as SciPy
    compares it (a list never equals an array's shape tuple). `stacklevel` points
    the warning at the public function's caller."""
    if not isinstance(output, gp.ndarray) and any(int(n) < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")  # NumPy's, from SciPy's zeros
    if output is None:
        dtype = numpy.promote_types(input.dtype, numpy.complex64) if complex_output else input.dtype
        return None, numpy.dtype(dtype)
    if isinstance(output, (type, numpy.dtype)):
        dtype = numpy.dtype(output)
        if complex_output and dtype.kind != "c":
            warnings.warn("promoting specified output dtype to complex", stacklevel=stacklevel)
            dtype = numpy.promote_types(dtype, numpy.complex64)
        return None, dtype
    if isinstance(output, str):
        dtype = numpy.dtype(output)
        if complex_output and dtype.kind != "c":
            raise RuntimeError("output must have complex dtype")
        if not issubclass(dtype.type, numpy.number):
            raise RuntimeError("output must have numeric dtype")
        return None, dtype
    if not isinstance(output, gp.ndarray):
        raise TypeError(f"output must be a gpupy array, a dtype or None, not {type(output).__name__}")
    if output.shape != shape:
        raise RuntimeError("output shape not correct")
    if complex_output and output.dtype.kind != "c":
        raise RuntimeError("output must have complex dtype")
    return output, output.dtype


def _deliver(result, out):
    """A fresh `result` (the output's dtype and shape) as the function's return: itself,
    or copied into the output array `out`."""
    if out is None:
        return result
    out[...] = result
    return out


def _complex_target(out, shape, dtype):
    """The array complex results go to: `out`, or a new one."""
    return out if out is not None else gp.empty(shape, dtype)


def _c_cast(result, dtype):
    """A float64 `result` stored as SciPy's line buffers store doubles (C conversions on
    x86-64): truncation toward zero into integers (wrapping into narrow ones), the
    low byte of a 32-bit truncation for bool."""
    dtype = numpy.dtype(dtype)
    if result.dtype == dtype:
        return result
    if dtype == numpy.bool_:
        inside = gp.abs(result) < 2.0 ** 31
        return gp.logical_and(inside, (gp.where(inside, result, 0.0).astype(numpy.int64) & 0xFF) != 0)
    if dtype.kind in "iu":
        return result.astype(numpy.int64).astype(dtype)
    return result.astype(dtype)


# ---------------------------------------------------------------------------------------
# The spline prefilter

def _filter_lines(x, order, axes, mode):
    """`x`'s spline coefficients along `axes` in turn: a new float64 array (SciPy's
    C-level checks first)."""
    code = _mode_code(mode)
    if not _readable(x.dtype):
        raise RuntimeError(f"array type {x.dtype!r} not supported")
    return _gpupy._spline_filter(x, int(order), [int(a) for a in axes], code)


def spline_filter1d(input, order=3, axis=-1, output=numpy.float64, mode="mirror"):
    """One-dimensional spline filter along `axis` (``scipy.ndimage.spline_filter1d``)."""
    _check_order(order)
    input = as_device(input)
    complex_output = input.dtype.kind == "c"
    out, dtype = _output(output, input, input.shape, complex_output)
    if complex_output:
        out = _complex_target(out, input.shape, dtype)
        spline_filter1d(input.real, order, axis, out.real, mode)
        spline_filter1d(input.imag, order, axis, out.imag, mode)
        return out
    if order in (0, 1):
        return _deliver(input.astype(dtype), out)
    _mode_code(mode)
    axis = normalize_axis(axis, input.ndim)
    if not _readable(dtype):
        raise RuntimeError(f"array type {dtype!r} not supported")
    return _deliver(_c_cast(_filter_lines(input, order, [axis], mode), dtype), out)


def spline_filter(input, order=3, output=numpy.float64, mode="mirror"):
    """Multidimensional spline filter (``scipy.ndimage.spline_filter``): the 1-d filter
    along every axis in turn, each pass stored in the output's dtype."""
    _check_order(order, low=2)
    input = as_device(input)
    complex_output = input.dtype.kind == "c"
    out, dtype = _output(output, input, input.shape, complex_output)
    if complex_output:
        out = _complex_target(out, input.shape, dtype)
        spline_filter(input.real, order, out.real, mode)
        spline_filter(input.imag, order, out.imag, mode)
        return out
    if input.ndim == 0:
        return _deliver(input.astype(dtype), out)
    if not _readable(dtype):
        _mode_code(mode)
        raise RuntimeError(f"array type {dtype!r} not supported")
    if dtype == numpy.float64:
        # Every pass stores float64, which the next reads: one launch per axis on one
        # working array.
        return _deliver(_filter_lines(input, order, range(input.ndim), mode), out)
    x = input
    for axis in range(input.ndim):
        x = _c_cast(_filter_lines(x, order, [axis], mode), dtype)
    return _deliver(x, out)


def _prefiltered(input, order, mode, cval, prefilter, axes=None):
    """SciPy's prefilter step of every sampling function: (the array to sample, its
    padding). `axes`: the sampled axes (the trailing ones; all by default)."""
    if not (prefilter and order > 1):
        return input, 0
    axes = range(input.ndim) if axes is None else axes
    npad = 0
    padded = input
    if mode in ("nearest", "grid-constant"):
        npad = _NPAD
        width = [(npad, npad) if ax in axes else (0, 0) for ax in range(input.ndim)]
        if mode == "grid-constant":
            # NumPy's pad stores cval in the input's dtype first (its casting rules,
            # its errors): do exactly that on the host.
            value = numpy.pad(numpy.zeros(1, input.dtype), 1, constant_values=cval)[0]
            padded = gp.pad(input, width, mode="constant", constant_values=value)
        else:
            padded = gp.pad(input, width, mode="edge")
    return _filter_lines(padded, order, axes, mode), npad


# ---------------------------------------------------------------------------------------
# Sampling

def _sampling_checks(filtered, dtype, cval):
    """SciPy's C-level checks before sampling: the input's and the output's dtypes (its
    RuntimeError), `cval` a real number (its TypeError)."""
    cval = _as_cval(cval)
    if not _readable(filtered.dtype) or not _readable(dtype):
        raise RuntimeError("data type not supported")
    return cval


def _zoom_shift(filtered, zoom, shift, grid_mode, output_shape, order, mode, cval, npad, dtype):
    """SciPy's ``NI_ZoomShift``: along each axis, output index plus `shift`, times
    `zoom` (float64 arrays or None)."""
    code = _mode_code(mode)
    cval = _sampling_checks(filtered, dtype, cval)
    return _gpupy._zoom_shift(
        filtered, None if zoom is None else [float(z) for z in zoom],
        None if shift is None else [float(s) for s in shift], bool(grid_mode),
        [int(n) for n in output_shape], int(order), code, cval, npad, dtype)


def geometric_transform(input, mapping, output_shape=None, output=None, order=3,
                        mode="constant", cval=0.0, prefilter=True, extra_arguments=(),
                        extra_keywords=None):
    """``scipy.ndimage.geometric_transform`` calls a Python function per output point,
    which cannot run on the GPU: compute the coordinates it would return as an array
    and use ``map_coordinates``."""
    raise NotImplementedError(
        "gpupyx.scipy.ndimage.geometric_transform takes a Python mapping function, which "
        "cannot run on the GPU: compute the input coordinates as an array of shape "
        "(input.ndim, *output_shape) and use map_coordinates")


def map_coordinates(input, coordinates, output=None, order=3, mode="constant", cval=0.0,
                    prefilter=True):
    """The input's spline at the coordinates of each column of `coordinates`
    (``scipy.ndimage.map_coordinates``)."""
    _check_order(order)
    input = as_device(input)
    coordinates = as_device(coordinates)
    if coordinates.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    output_shape = coordinates.shape[1:]
    if input.ndim < 1 or len(output_shape) < 1:
        raise RuntimeError("input and output rank must be > 0")
    if coordinates.shape[0] != input.ndim:
        raise RuntimeError("invalid shape for coordinate array")
    complex_output = input.dtype.kind == "c"
    out, dtype = _output(output, input, output_shape, complex_output)
    if complex_output:
        out = _complex_target(out, output_shape, dtype)
        kwargs = dict(order=order, mode=mode, prefilter=prefilter)
        map_coordinates(input.real, coordinates, output=out.real, cval=numpy.real(cval), **kwargs)
        map_coordinates(input.imag, coordinates, output=out.imag, cval=numpy.imag(cval), **kwargs)
        return out
    filtered, npad = _prefiltered(input, order, mode, cval, prefilter)
    code = _mode_code(mode)
    if not _readable(coordinates.dtype):
        raise RuntimeError("coordinate array data type not supported")
    cval = _sampling_checks(filtered, dtype, cval)
    result = _gpupy._map_coordinates(filtered, coordinates, int(order), code, cval, npad, dtype)
    return _deliver(result, out)


def affine_transform(input, matrix, offset=0.0, output_shape=None, output=None, order=3,
                     mode="constant", cval=0.0, prefilter=True):
    """The input's spline at ``matrix @ o + offset`` for each output coordinate ``o``
    (``scipy.ndimage.affine_transform``): a diagonal as a 1-d `matrix`, or an
    ``(ndim, ndim)``, ``(ndim, ndim + 1)`` or homogeneous ``(ndim + 1, ndim + 1)`` one."""
    _check_order(order)
    input = as_device(input)
    if output_shape is None:
        output_shape = output.shape if isinstance(output, gp.ndarray) else input.shape
    if input.ndim < 1 or len(output_shape) < 1:
        raise RuntimeError("input and output rank must be > 0")
    complex_output = input.dtype.kind == "c"
    out, dtype = _output(output, input, output_shape, complex_output)
    return _affine(input, matrix, offset, output_shape, out, dtype, order, mode, cval, prefilter)


def _affine(input, matrix, offset, output_shape, out, dtype, order, mode, cval, prefilter):
    """``affine_transform`` after its output is resolved (`out` an array or None, and
    the output dtype)."""
    if input.dtype.kind == "c":
        out = _complex_target(out, output_shape, dtype)
        kwargs = dict(offset=offset, output_shape=output_shape, order=order, mode=mode,
                      prefilter=prefilter)
        affine_transform(input.real, matrix, output=out.real, cval=numpy.real(cval), **kwargs)
        affine_transform(input.imag, matrix, output=out.imag, cval=numpy.imag(cval), **kwargs)
        return out
    filtered, npad = _prefiltered(input, order, mode, cval, prefilter)
    code = _mode_code(mode)
    matrix, offset = _affine_parts(matrix, offset, input, len(output_shape))
    if matrix.ndim == 1:
        if len(output_shape) != input.ndim:
            raise RuntimeError("output rank must equal the input rank for a 1-d matrix")
        result = _zoom_shift(filtered, matrix, offset / matrix, False, output_shape, order, mode,
                             cval, npad, dtype)
    else:
        cval = _sampling_checks(filtered, dtype, cval)
        result = _gpupy._affine_transform(
            filtered, [float(v) for v in matrix.ravel()], [float(v) for v in offset],
            [int(n) for n in output_shape], 0, int(order), code, cval, npad, dtype)
    return _deliver(result, out)


def _affine_parts(matrix, offset, input, odim):
    """SciPy's reading of an affine map: (matrix, offset) as float64 host arrays, a
    homogeneous or augmented matrix split, its checks and messages."""
    matrix = numpy.asarray(_host_values(matrix), dtype=numpy.float64)
    if matrix.ndim not in [1, 2] or matrix.shape[0] < 1:
        raise RuntimeError("no proper affine matrix provided")
    nd = input.ndim
    if matrix.ndim == 2 and matrix.shape[1] == nd + 1 and matrix.shape[0] in [nd, nd + 1]:
        if matrix.shape[0] == nd + 1:
            exptd = [0] * nd + [1]
            if not numpy.all(matrix[nd] == exptd):
                msg = (f"Expected homogeneous transformation matrix with shape {matrix.shape} "
                       f"for image shape {input.shape}, but bottom row was not equal to {exptd}")
                raise ValueError(msg)
        offset = matrix[:nd, nd]
        matrix = matrix[:nd, :nd]
    if matrix.shape[0] != nd:
        raise RuntimeError("affine matrix has wrong number of rows")
    if matrix.ndim == 2 and matrix.shape[1] != odim:
        raise RuntimeError("affine matrix has wrong number of columns")
    offset = normalize_sequence(_host_values(offset), nd)
    offset = numpy.asarray(offset, dtype=numpy.float64)
    if offset.ndim != 1 or offset.shape[0] < 1:
        raise RuntimeError("no proper offset provided")
    return matrix, offset


def shift(input, shift, output=None, order=3, mode="constant", cval=0.0, prefilter=True):
    """The input shifted by `shift` along each axis (``scipy.ndimage.shift``)."""
    return _shifted(input, shift, output, order, mode, cval, prefilter)


def _shifted(input, shift, output, order, mode, cval, prefilter):
    _check_order(order)
    input = as_device(input)
    if input.ndim < 1:
        raise RuntimeError("input and output rank must be > 0")
    complex_output = input.dtype.kind == "c"
    out, dtype = _output(output, input, input.shape, complex_output, stacklevel=4)
    if complex_output:
        out = _complex_target(out, input.shape, dtype)
        _shifted(input.real, shift, out.real, order, mode, numpy.real(cval), prefilter)
        _shifted(input.imag, shift, out.imag, order, mode, numpy.imag(cval), prefilter)
        return out
    filtered, npad = _prefiltered(input, order, mode, cval, prefilter)
    _mode_code(mode)
    shift = normalize_sequence(_host_values(shift), input.ndim)
    shift = numpy.asarray([-ii for ii in shift], dtype=numpy.float64)
    result = _zoom_shift(filtered, None, shift, False, input.shape, order, mode, cval, npad, dtype)
    return _deliver(result, out)


def zoom(input, zoom, output=None, order=3, mode="constant", cval=0.0, prefilter=True, *,
         grid_mode=False):
    """The input zoomed by `zoom` along each axis (``scipy.ndimage.zoom``): output
    extents ``round(n * zoom)``; sample centres map to sample centres (the first and
    last align), or with `grid_mode` the grids' outer edges align."""
    return _zoomed(input, zoom, output, order, mode, cval, prefilter, grid_mode)


def _zoomed(input, zoom, output, order, mode, cval, prefilter, grid_mode):
    _check_order(order)
    input = as_device(input)
    if input.ndim < 1:
        raise RuntimeError("input and output rank must be > 0")
    zoom = normalize_sequence(_host_values(zoom), input.ndim)
    output_shape = tuple([int(round(ii * jj)) for ii, jj in zip(input.shape, zoom)])
    complex_output = input.dtype.kind == "c"
    out, dtype = _output(output, input, output_shape, complex_output, stacklevel=4)
    if all(z == 1 for z in zoom) and prefilter:
        out = _complex_target(out, output_shape, dtype)
        out[...] = input
        return out
    if complex_output:
        # As SciPy 1.18: the parts are zoomed without `grid_mode`.
        out = _complex_target(out, output_shape, dtype)
        _zoomed(input.real, zoom, out.real, order, mode, numpy.real(cval), prefilter, False)
        _zoomed(input.imag, zoom, out.imag, order, mode, numpy.imag(cval), prefilter, False)
        return out
    filtered, npad = _prefiltered(input, order, mode, cval, prefilter)
    if grid_mode:
        suggest_mode = None
        if mode == "constant":
            suggest_mode = "grid-constant"
        elif mode == "wrap":
            suggest_mode = "grid-wrap"
        if suggest_mode is not None:
            # Pointing at the caller of `zoom`, as SciPy's does.
            warnings.warn(f"It is recommended to use mode = {suggest_mode} instead of {mode} "
                          "when grid_mode is True.", stacklevel=3)
    _mode_code(mode)
    zoom_div = numpy.array(output_shape)
    zoom_nominator = numpy.array(input.shape)
    if not grid_mode:
        zoom_div -= 1
        zoom_nominator -= 1
    factors = numpy.divide(zoom_nominator, zoom_div,
                           out=numpy.ones_like(input.shape, dtype=numpy.float64),
                           where=zoom_div != 0)
    result = _zoom_shift(filtered, factors, None, grid_mode, output_shape, order, mode, cval,
                         npad, dtype)
    return _deliver(result, out)


# ---------------------------------------------------------------------------------------
# rotate

# Cephes' `sindg`/`cosdg` (SciPy's `special.sindg`, `special.cosdg`, which `rotate`
# uses): sine and cosine of degrees, reduced to octants exactly, so that multiples of
# 90 degrees give exact zeros and ones. Coefficients of the polynomials on [0, 45]:
_SIN_COEF = (1.58962301572218447952e-10, -2.50507477628503540135e-8, 2.75573136213856773549e-6,
             -1.98412698295895384658e-4, 8.33333333332211858862e-3, -1.66666666666666307295e-1)
_COS_COEF = (1.13678171382044553091e-11, -2.08758833757683644217e-9, 2.75573155429816611547e-7,
             -2.48015872936186303776e-5, 1.38888888888806666760e-3, -4.16666666666666348141e-2,
             4.99999999999999999798e-1)
_PI180 = 1.74532925199432957692e-2
_LOSS = 1.0e14


def _horner(x, coef):
    y = coef[0]
    for c in coef[1:]:
        y = y * x + c
    return y


def _degrees_octant(x):
    """(octant in 0..3, sign flip, angle within the octant in radians) of |x| degrees."""
    y = math.floor(x / 45.0)
    z = y - math.ldexp(math.floor(math.ldexp(y, -4)), 4)  # y mod 16, exactly
    j = int(z)
    if j & 1:
        j += 1
        y += 1.0
    j &= 7
    flip = j > 3
    if flip:
        j -= 4
    return j, flip, (x - y * 45.0) * _PI180


def _sindg(x):
    x = float(x)
    sign = 1.0
    if x < 0:
        x, sign = -x, -1.0
    if x > _LOSS:
        return 0.0
    j, flip, z = _degrees_octant(x)
    if flip:
        sign = -sign
    zz = z * z
    y = 1.0 - zz * _horner(zz, _COS_COEF) if j in (1, 2) else z + z * (zz * _horner(zz, _SIN_COEF))
    return -y if sign < 0 else y


def _cosdg(x):
    x = abs(float(x))
    if x > _LOSS:
        return 0.0
    j, flip, z = _degrees_octant(x)
    sign = -1.0 if flip else 1.0
    if j > 1:
        sign = -sign
    zz = z * z
    y = z + z * (zz * _horner(zz, _SIN_COEF)) if j in (1, 2) else 1.0 - zz * _horner(zz, _COS_COEF)
    return -y if sign < 0 else y


def rotate(input, angle, axes=(1, 0), reshape=True, output=None, order=3, mode="constant",
           cval=0.0, prefilter=True):
    """The input rotated by `angle` degrees in the plane of `axes`
    (``scipy.ndimage.rotate``); with `reshape`, the output is large enough to hold the
    whole rotated input."""
    input_arr = as_device(input)
    ndim = input_arr.ndim
    if ndim < 2:
        raise ValueError("input array should be at least 2D")
    axes = list(axes)
    if len(axes) != 2:
        raise ValueError("axes should contain exactly two values")
    if not all([float(ax).is_integer() for ax in axes]):
        raise ValueError("axes should contain only integer values")
    if axes[0] < 0:
        axes[0] += ndim
    if axes[1] < 0:
        axes[1] += ndim
    if axes[0] < 0 or axes[1] < 0 or axes[0] >= ndim or axes[1] >= ndim:
        raise ValueError("invalid rotation plane specified")
    axes.sort()
    c, s = _cosdg(angle), _sindg(angle)
    rot_matrix = numpy.array([[c, s], [-s, c]])
    img_shape = numpy.asarray(input_arr.shape)
    in_plane_shape = img_shape[axes]
    if reshape:
        iy, ix = in_plane_shape
        out_bounds = rot_matrix @ [[0, 0, iy, iy], [0, ix, 0, ix]]
        out_plane_shape = (numpy.ptp(out_bounds, axis=1) + 0.5).astype(int)
    else:
        out_plane_shape = img_shape[axes]
    out_center = rot_matrix @ ((out_plane_shape - 1) / 2)
    in_center = (in_plane_shape - 1) / 2
    offset = in_center - out_center
    output_shape = img_shape
    output_shape[axes] = out_plane_shape
    output_shape = tuple(output_shape)
    complex_output = input_arr.dtype.kind == "c"
    out, dtype = _output(output, input_arr, output_shape, complex_output)
    if ndim <= 2:
        return _affine(input_arr, rot_matrix, offset, output_shape, out, dtype, order, mode, cval,
                       prefilter)
    if axes[0] == axes[1]:
        # SciPy's loop over planes, for the degenerate plane it accepts (each "plane"
        # is then a line, whose affine_transform raises).
        out = _complex_target(out, output_shape, dtype)
        planes = itertools.product(*[[slice(None)] if ax in axes else range(img_shape[ax])
                                     for ax in range(ndim)])
        for coordinates in planes:
            affine_transform(input_arr[coordinates], rot_matrix, offset, tuple(out_plane_shape),
                             out[coordinates], order, mode, cval, prefilter)
        return out
    planes = (ndim - 2, ndim - 1)
    if input_arr.dtype.kind == "c":
        out = _complex_target(out, output_shape, dtype)
        for part, target, c in ((input_arr.real, out.real, numpy.real(cval)),
                                (input_arr.imag, out.imag, numpy.imag(cval))):
            result = _rotate_planes(part, rot_matrix, offset, axes, tuple(out_plane_shape),
                                    target.dtype, order, mode, c, prefilter)
            target[...] = gp.moveaxis(result, planes, axes)
        return out
    result = _rotate_planes(input_arr, rot_matrix, offset, axes, tuple(out_plane_shape), dtype,
                            order, mode, cval, prefilter)
    if out is None and tuple(axes) == planes:
        return result
    out = _complex_target(out, output_shape, dtype)
    out[...] = gp.moveaxis(result, planes, axes)
    return out


def _rotate_planes(input, matrix, offset, axes, out_plane_shape, dtype, order, mode, cval,
                   prefilter):
    """Every plane of `axes` of the real `input` rotated, as SciPy's affine_transform of
    each plane computes it (each plane prefiltered and padded on its own), in one
    launch: the plane axes moved last, the others a batch of planes. Returns the
    rotated planes in that layout (the plane axes last), of `dtype`."""
    ndim = input.ndim
    last = (ndim - 2, ndim - 1)
    planes = gp.moveaxis(input, axes, last)
    filtered, npad = _prefiltered(planes, order, mode, cval, prefilter, axes=last)
    code = _mode_code(mode)
    cval = _sampling_checks(filtered, dtype, cval)
    out_shape = planes.shape[:-2] + tuple(out_plane_shape)
    return _gpupy._affine_transform(
        filtered, [float(v) for v in matrix.ravel()], [float(v) for v in offset],
        [int(n) for n in out_shape], ndim - 2, int(order), code, cval, npad, dtype)


__all__ = [
    "spline_filter1d", "spline_filter", "geometric_transform", "map_coordinates",
    "affine_transform", "shift", "zoom", "rotate",
]
