"""``scipy.signal``'s convolutions on gpupy arrays: SciPy's signatures, modes, swaps,
result dtypes and messages.

- direct (``convolve2d``, ``correlate2d``, ``convolve``/``correlate`` with
  ``method='direct'``): one n-d correlation in gpupy's filter kernel
  (``kernels/src/filters/``) with every element of the kernel as a tap (zeros too, as
  SciPy's direct sums take them), the kernel read on the device (no transfer). 'same'
  and 'valid' correlate the input itself, the boundary (zeros, ``fillvalue``,
  ``wrap``, ``symm``) by the kernel's own index mapping; 'full' correlates the input
  padded by the kernel's extent less one on each side, then cuts the mode's window;
- ``fftconvolve`` (and ``method='fft'``): products of real (or complex) FFTs of the
  padded operands through ``gpupy.fft``, at lengths ``next_fast_len`` picks.

Arithmetic: float16/float32 (complex64) compute in float32, the rest in float64;
integer results are the float64 sums converted through int64 (exact, then wrapping
into the result type as SciPy's integer arithmetic wraps) while the sums stay below
2**53. ``choose_conv_method`` is a cost model for this GPU's kernels (see there).
"""

import functools

import numpy

import gpupy as gp
from gpupy import _gpupy
from gpupyx.scipy.ndimage import _util as _ndimage_util
from gpupyx.scipy.ndimage._util import as_device, cast_like_c, compute_dtype

_MODES = ("valid", "same", "full")
# scipy.signal's boundaries -> ndimage's modes (``symm`` extends as ``reflect``: d c b a |
# a b c d, repeating for kernels longer than the input, as NumPy's symmetric padding).
_BOUNDARIES = {"fill": "constant", "pad": "constant", "wrap": "wrap", "circular": "wrap",
               "symm": "reflect", "symmetric": "reflect"}


def _check_mode(mode):
    if mode not in _MODES:
        raise ValueError("Acceptable mode flags are 'valid', 'same', or 'full'.")


def _inputs_swap_needed(mode, shape1, shape2, axes=None):
    if mode != "valid" or not shape1:
        return False
    axes = range(len(shape1)) if axes is None else axes
    ok1 = all(shape1[i] >= shape2[i] for i in axes)
    ok2 = all(shape2[i] >= shape1[i] for i in axes)
    if not (ok1 or ok2):
        raise ValueError("For 'valid' mode, one must be at least as large as the other in every "
                         "dimension")
    return not ok1


def _reverse_and_conj(x):
    r = x[(slice(None, None, -1),) * x.ndim]
    return r.conj() if r.dtype.kind == "c" else r




@functools.lru_cache(maxsize=256)
def _dense_taps(k_shape, centers):
    """Every element of a kernel of `k_shape` as a tap: its offset from `centers`."""
    taps = numpy.indices(k_shape).reshape(len(k_shape), -1).T - numpy.array(centers)
    return taps.tolist()


def _direct_real(x, w, mode, boundary, fillvalue, same_after=False):
    """The direct correlation ``out[i] = sum_k w[k] * x[i + k - c]`` of the real device
    arrays `x` and `w` (`w` already reversed for a convolution), every tap counted, in
    `mode`'s window of the full output (see the module docstring); past the edges `x`
    extends by `boundary` (an ndimage mode) with `fillvalue`. 'same' starts the window
    at ``(k - 1) // 2`` of the full output (``k // 2`` with `same_after`, where
    ``correlate2d`` starts it)."""
    k_shape = w.shape
    cdt = compute_dtype(x.dtype)
    code = _ndimage_util.mode_code(boundary)
    if mode == "full":
        # Outputs outside the input's extent: the input padded by k - 1 on each side.
        widths = [(k - 1, k - 1) for k in k_shape]
        xc = x.astype(cdt) if x.dtype != cdt else x
        if boundary == "constant":
            p = gp.pad(xc, widths, mode="constant", constant_values=fillvalue)
        else:
            p = gp.pad(xc, widths, mode={"wrap": "wrap", "reflect": "symmetric"}[boundary])
        if p.ndim == 2:
            r = _gpupy._correlate2d(p, w, 0, 0, code, 0.0, cdt)
        else:
            r = _gpupy._correlate(p, w, _dense_taps(k_shape, (0,) * len(k_shape)), code, 0.0, cdt)
        return r[tuple(slice(0, n + k - 1) for n, k in zip(x.shape, k_shape))]
    if mode == "same":
        centers = tuple(k - 1 - (k // 2 if same_after else (k - 1) // 2) for k in k_shape)
    else:
        centers = (0,) * len(k_shape)
    if x.ndim == 2:
        # The 2-d kernel read in place (its strides: a reversed view needs no copy).
        r = _gpupy._correlate2d(x, w, centers[0], centers[1], code, fillvalue, cdt)
    else:
        r = _gpupy._correlate(x, w, _dense_taps(k_shape, centers), code, fillvalue, cdt)
    if mode == "same":
        return r
    return r[tuple(slice(0, n - k + 1) for n, k in zip(x.shape, k_shape))]


def _direct(in1, in2, mode, boundary, fillvalue, flip, same_after=False):
    """Direct convolution (`flip`) or correlation of any real or complex operands
    (`same_after`: see `_direct_real`). The kernel stays on the device."""
    dtype = numpy.result_type(in1.dtype, in2.dtype)
    w = in2[(slice(None, None, -1),) * in2.ndim] if flip else in2.conj()
    if in1.dtype.kind == "c" or w.dtype.kind == "c":
        # (xr + i xi) * (wr + i wi) by real parts; the fill value splits into its parts.
        fv = complex(fillvalue)
        xs = [(in1.real, fv.real), (in1.imag, fv.imag)] if in1.dtype.kind == "c" else [(in1, fv.real)]
        ws = [w.real, w.imag] if w.dtype.kind == "c" else [w]
        re, im = 0, 0
        for a, (xp_, f) in enumerate(xs):
            for b, wp in enumerate(ws):
                d = _direct_real(xp_, wp, mode, boundary, f, same_after)
                if a + b == 1:
                    im = im + d
                elif a == 1:
                    re = re - d
                else:
                    re = re + d
        return (re + 1j * im).astype(dtype)
    if w.dtype.kind not in "fiub":
        raise TypeError(f"unsupported kernel dtype {w.dtype}")
    return cast_like_c(_direct_real(in1, w, mode, boundary, float(fillvalue), same_after), dtype)


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """Two-dimensional convolution (``scipy.signal.convolve2d``)."""
    in1, in2 = as_device(in1), as_device(in2)
    if not in1.ndim == in2.ndim == 2:
        raise ValueError("convolve2d inputs must both be 2-D arrays")
    if _inputs_swap_needed(mode, in1.shape, in2.shape):
        in1, in2 = in2, in1
    _check_mode(mode)
    boundary = _boundary(boundary)
    return _direct(in1, in2, mode, boundary, fillvalue, True)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """Two-dimensional cross-correlation (``scipy.signal.correlate2d``)."""
    in1, in2 = as_device(in1), as_device(in2)
    if not in1.ndim == in2.ndim == 2:
        raise ValueError("correlate2d inputs must both be 2-D arrays")
    swapped = _inputs_swap_needed(mode, in1.shape, in2.shape)
    if swapped:
        in1, in2 = in2, in1
    _check_mode(mode)
    boundary = _boundary(boundary)
    out = _direct(in1, in2, mode, boundary, fillvalue, False, same_after=True)
    return out[::-1, ::-1] if swapped else out


def _boundary(boundary):
    try:
        return _BOUNDARIES[boundary]
    except (KeyError, TypeError):
        raise ValueError("Acceptable boundary flags are 'fill', 'circular' (or 'wrap'), and "
                         "'symmetric' (or 'symm').") from None


# ---------------------------------------------------------------------------------------
# N-d convolution and correlation, direct or through FFTs

def fftconvolve(in1, in2, mode="full", axes=None):
    """N-d convolution through FFTs (``scipy.signal.fftconvolve``)."""
    from gpupyx.scipy import fft as sfft

    in1, in2 = as_device(in1), as_device(in2)
    if in1.ndim == in2.ndim == 0:
        return in1 * in2
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if in1.size == 0 or in2.size == 0:
        return gp.asarray([])
    _check_mode(mode)
    s1, s2 = in1.shape, in2.shape
    noaxes = axes is None
    if noaxes:
        axes = list(range(in1.ndim))
    else:
        axes = [int(a) for a in numpy.atleast_1d(axes)]
        if not axes:
            raise ValueError("when provided, axes cannot be empty")
        axes = [a % in1.ndim if -in1.ndim <= a < in1.ndim else _bad_axis(a, in1.ndim) for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError("all axes must be unique")
    axes = [a for a in axes if s1[a] != 1 and s2[a] != 1]
    if not all(s1[a] == s2[a] or s1[a] == 1 or s2[a] == 1 for a in range(in1.ndim) if a not in axes):
        raise ValueError(f"incompatible shapes for in1 and in2: {s1} and {s2}")
    if _inputs_swap_needed(mode, s1, s2, axes=axes):
        in1, in2 = in2, in1
        s1, s2 = s2, s1
    shape = [max(s1[i], s2[i]) if i not in axes else s1[i] + s2[i] - 1 for i in range(in1.ndim)]
    if not axes:
        ret = in1 * in2
    else:
        complex_result = in1.dtype.kind == "c" or in2.dtype.kind == "c"
        fshape = [sfft.next_fast_len(shape[a], not complex_result) for a in axes]
        if not complex_result:
            sp1 = sfft.rfftn(in1, fshape, axes=axes)
            sp2 = sfft.rfftn(in2, fshape, axes=axes)
            ret = sfft.irfftn(sp1 * sp2, fshape, axes=axes)
        else:
            sp1 = sfft.fftn(in1, fshape, axes=axes)
            sp2 = sfft.fftn(in2, fshape, axes=axes)
            ret = sfft.ifftn(sp1 * sp2, fshape, axes=axes)
        ret = ret[tuple(slice(0, n) for n in shape)]
    if mode == "full":
        return ret
    if mode == "same":
        return _centered(ret, s1)
    newshape = [s1[a] - s2[a] + 1 if a in axes else ret.shape[a] for a in range(ret.ndim)]
    return _centered(ret, newshape)


def _bad_axis(a, ndim):
    raise ValueError("axes exceeds dimensionality of input")


def _centered(arr, newshape):
    start = [(c - n) // 2 for c, n in zip(arr.shape, newshape)]
    return arr[tuple(slice(s, s + n) for s, n in zip(start, newshape))]


def choose_conv_method(in1, in2, mode="full", measure=False):
    """'direct' or 'fft' for ``convolve``/``correlate`` (``scipy.signal.choose_conv_method``).

    gpupy's rule, for its own kernels: integer operands whose sums could exceed 2**52
    and boolean ones go direct (as SciPy: FFTs would round); otherwise FFTs when the
    kernel has more than 64 taps (the direct kernel costs one multiply-add per tap per
    output; FFTs a few passes over the padded volume), else direct. ``measure=True``
    times both, as SciPy does."""
    in1, in2 = as_device(in1), as_device(in2)
    if measure:
        import time

        times = {}
        for method in ("fft", "direct"):
            convolve(in1, in2, mode=mode, method=method)
            gp.cuda.Device().synchronize()
            t = time.perf_counter()
            convolve(in1, in2, mode=mode, method=method)
            gp.cuda.Device().synchronize()
            times[method] = time.perf_counter() - t
        return ("fft" if times["fft"] < times["direct"] else "direct"), times
    kinds = (in1.dtype.kind, in2.dtype.kind)
    if any(k in "ui" for k in kinds) and in1.size and in2.size:
        top = int(gp.abs(in1).max()) * int(gp.abs(in2).max()) * min(in1.size, in2.size)
        if top > 2 ** numpy.finfo(float).nmant - 1:
            return "direct"
    if "b" in kinds:
        return "direct"
    return "fft" if min(in1.size, in2.size) > 64 else "direct"


def convolve(in1, in2, mode="full", method="auto"):
    """N-d convolution (``scipy.signal.convolve``)."""
    volume, kernel = as_device(in1), as_device(in2)
    if volume.ndim == kernel.ndim == 0:
        return volume * kernel
    if volume.ndim != kernel.ndim:
        raise ValueError("volume and kernel should have the same dimensionality")
    if _inputs_swap_needed(mode, volume.shape, kernel.shape):
        volume, kernel = kernel, volume
    if method == "auto":
        method = choose_conv_method(volume, kernel, mode=mode)
    if method == "fft":
        out = fftconvolve(volume, kernel, mode=mode)
        result_type = numpy.result_type(volume.dtype, kernel.dtype)
        if result_type.kind in "iu":
            out = gp.round(out)
        return out.astype(result_type)
    if method == "direct":
        _check_mode(mode)
        return _direct(volume, kernel, mode, "constant", 0, True)
    raise ValueError("Acceptable method flags are 'auto', 'direct', or 'fft'.")


def correlate(in1, in2, mode="full", method="auto"):
    """N-d cross-correlation (``scipy.signal.correlate``)."""
    in1, in2 = as_device(in1), as_device(in2)
    if in1.ndim == in2.ndim == 0:
        return in1 * (in2.conj() if in2.dtype.kind == "c" else in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    _check_mode(mode)
    if method in ("fft", "auto"):
        return convolve(in1, _reverse_and_conj(in2), mode, method)
    if method != "direct":
        raise ValueError("Acceptable method flags are 'auto', 'direct', or 'fft'.")
    swapped = _inputs_swap_needed(mode, in1.shape, in2.shape)
    if swapped:
        in1, in2 = in2, in1
    out = _direct(in1, in2, mode, "constant", 0, False)
    return _reverse_and_conj(out) if swapped else out


__all__ = ["convolve2d", "correlate2d", "fftconvolve", "convolve", "correlate", "choose_conv_method"]
