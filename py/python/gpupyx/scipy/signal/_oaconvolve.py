"""``scipy.signal.oaconvolve`` on gpupy arrays: the overlap-add convolution, SciPy's
algorithm step for step (block sizes from its Lambert-W cost rule, the inputs cut
into blocks by a reshape, one batched real or complex FFT product over all blocks at
once, the blocks' overlapping tails added back by slices), with SciPy's checks,
messages, swaps and result dtypes. Equal shapes, and axes where one operand has
length 1 or the block would not be smaller than the input, fall back to
``fftconvolve`` as in SciPy.

Results differ from SciPy's by FFT rounding only: the per-element error of a block
product is bounded like an FFT convolution's of the block length."""

import math
import numbers
import operator

import numpy

import gpupy as gp
from gpupyx.scipy import fft as sp_fft
from gpupyx.scipy.ndimage._util import as_device
from gpupyx.scipy.signal._signaltools import _centered, _inputs_swap_needed, fftconvolve


def _lambertw_m1(z):
    """The ``k = -1`` branch of Lambert's W at a real ``z`` in ``(-1/e, 0)`` (the only
    value SciPy's block-size rule needs): Halley's iteration from the asymptotic start
    ``log(-z) - log(-log(-z))``, to double precision."""
    L1 = math.log(-z)
    L2 = math.log(-L1)
    w = L1 - L2 + L2 / L1
    for _ in range(50):
        ew = math.exp(w)
        f = w * ew - z
        wp1 = w + 1
        step = f / (ew * wp1 - (w + 2) * f / (2 * wp1))
        w -= step
        if abs(step) <= 4 * numpy.finfo(float).eps * abs(w):
            break
    return w


def _calc_oa_lens(s1, s2):
    """SciPy's ``_calc_oa_lens``: (block size, overlap, in1 step, in2 step) for one axis."""
    fallback = (s1 + s2 - 1, None, s1, s2)
    if s1 == s2 or s1 == 1 or s2 == 1:
        return fallback
    if s2 > s1:
        s1, s2 = s2, s1
        swapped = True
    else:
        swapped = False
    if s2 >= s1 / 2:
        return fallback
    overlap = s2 - 1
    opt_size = -overlap * _lambertw_m1(-1 / (2 * math.e * overlap))
    block_size = sp_fft.next_fast_len(math.ceil(opt_size))
    if block_size >= s1:
        return fallback
    if not swapped:
        in1_step = block_size - s2 + 1
        in2_step = s2
    else:
        in1_step = s2
        in2_step = block_size - s2 + 1
    return block_size, overlap, in1_step, in2_step


def _init_freq_conv_axes(in1, in2, mode, axes, sorted_axes=False):
    """SciPy's axis checks and swap for the FFT convolutions (``_init_freq_conv_axes``)."""
    s1, s2 = in1.shape, in2.shape
    noaxes = axes is None
    if noaxes:
        axes = list(range(in1.ndim))
    else:
        if isinstance(axes, numbers.Number):
            axes = (axes,)
        try:
            axes = [operator.index(a) for a in axes]
        except TypeError as e:
            raise ValueError("axes must be a scalar or iterable of integers") from e
        axes = [a + in1.ndim if a < 0 else a for a in axes]
        if any(a >= in1.ndim or a < 0 for a in axes):
            raise ValueError("axes exceeds dimensionality of input")
        if len(set(axes)) != len(axes):
            raise ValueError("all axes must be unique")
        if not axes:
            raise ValueError("when provided, axes cannot be empty")
    axes = [a for a in axes if s1[a] != 1 and s2[a] != 1]
    if sorted_axes:
        axes.sort()
    if not all(s1[a] == s2[a] or s1[a] == 1 or s2[a] == 1 for a in range(in1.ndim) if a not in axes):
        raise ValueError(f"incompatible shapes for in1 and in2: {s1} and {s2}")
    if _inputs_swap_needed(mode, s1, s2, axes=axes):
        in1, in2 = in2, in1
    return in1, in2, axes


def _check_mode(mode):
    """SciPy's message for a bad mode (its ``_apply_conv_mode``'s, raised here before the
    work rather than after it)."""
    if mode not in ("full", "same", "valid"):
        raise ValueError("acceptable mode flags are 'valid', 'same', or 'full'")


def _apply_conv_mode(ret, s1, s2, mode, axes):
    if mode == "full":
        return ret.copy()
    if mode == "same":
        return _centered(ret, s1).copy()
    if mode == "valid":
        shape_valid = [ret.shape[a] if a not in axes else s1[a] - s2[a] + 1 for a in range(ret.ndim)]
        return _centered(ret, shape_valid).copy()
    raise ValueError("acceptable mode flags are 'valid', 'same', or 'full'")


def _freq_domain_conv(in1, in2, axes, shape):
    """The circular convolution of `in1` and `in2` over `axes` at FFT lengths `shape`."""
    if not len(axes):
        return in1 * in2
    complex_result = in1.dtype.kind == "c" or in2.dtype.kind == "c"
    fft, ifft = (sp_fft.fftn, sp_fft.ifftn) if complex_result else (sp_fft.rfftn, sp_fft.irfftn)
    if in1.dtype.kind in "iub":
        in1 = in1.astype(numpy.float64)
    if in2.dtype.kind in "iub":
        in2 = in2.astype(numpy.float64)
    sp1 = fft(in1, shape, axes=axes)
    sp2 = fft(in2, shape, axes=axes)
    return ifft(sp1 * sp2, shape, axes=axes)


def oaconvolve(in1, in2, mode="full", axes=None):
    """N-d convolution by the overlap-add method (``scipy.signal.oaconvolve``)."""
    in1, in2 = as_device(in1), as_device(in2)
    if in1.ndim == in2.ndim == 0:
        return in1 * in2
    elif in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    elif in1.size == 0 or in2.size == 0:
        return gp.asarray(numpy.asarray([]))
    elif in1.shape == in2.shape:
        _check_mode(mode)
        return fftconvolve(in1, in2, mode=mode, axes=axes)
    in1, in2, axes = _init_freq_conv_axes(in1, in2, mode, axes, sorted_axes=True)
    _check_mode(mode)
    s1, s2 = in1.shape, in2.shape
    if not axes:
        return _apply_conv_mode(in1 * in2, s1, s2, mode, axes)
    shape_final = [None if i not in axes else s1[i] + s2[i] - 1 for i in range(in1.ndim)]
    optimal_sizes = ((-1, -1, s1[i], s2[i]) if i not in axes else _calc_oa_lens(s1[i], s2[i])
                     for i in range(in1.ndim))
    block_size, overlaps, in1_step, in2_step = zip(*optimal_sizes)
    if in1_step == s1 and in2_step == s2:
        return fftconvolve(in1, in2, mode=mode, axes=axes)
    nsteps1, nsteps2, pad_size1, pad_size2 = [], [], [], []
    for i in range(in1.ndim):
        if i not in axes:
            pad_size1 += [(0, 0)]
            pad_size2 += [(0, 0)]
            continue
        if s1[i] > in1_step[i]:
            curnstep1 = math.ceil((s1[i] + 1) / in1_step[i])
            if (block_size[i] - overlaps[i]) * curnstep1 < shape_final[i]:
                curnstep1 += 1
            curpad1 = curnstep1 * in1_step[i] - s1[i]
        else:
            curnstep1, curpad1 = 1, 0
        if s2[i] > in2_step[i]:
            curnstep2 = math.ceil((s2[i] + 1) / in2_step[i])
            if (block_size[i] - overlaps[i]) * curnstep2 < shape_final[i]:
                curnstep2 += 1
            curpad2 = curnstep2 * in2_step[i] - s2[i]
        else:
            curnstep2, curpad2 = 1, 0
        nsteps1 += [curnstep1]
        nsteps2 += [curnstep2]
        pad_size1 += [(0, curpad1)]
        pad_size2 += [(0, curpad2)]
    if not all(p == (0, 0) for p in pad_size1):
        in1 = gp.pad(in1, pad_size1, mode="constant", constant_values=0)
    if not all(p == (0, 0) for p in pad_size2):
        in2 = gp.pad(in2, pad_size2, mode="constant", constant_values=0)
    # Each convolved axis becomes (blocks, block length): the blocks a batch axis.
    split_axes = [iax + i for i, iax in enumerate(axes)]
    fft_axes = [iax + 1 for iax in split_axes]
    reshape_size1 = list(in1_step)
    reshape_size2 = list(in2_step)
    for i, iax in enumerate(split_axes):
        reshape_size1.insert(iax, nsteps1[i])
        reshape_size2.insert(iax, nsteps2[i])
    in1 = in1.reshape(tuple(reshape_size1))
    in2 = in2.reshape(tuple(reshape_size2))
    fft_shape = [block_size[i] for i in axes]
    ret = _freq_domain_conv(in1, in2, fft_axes, fft_shape)
    # Add each block's tail (its last `overlap` outputs) to the next block's head.
    for ax, ax_fft, ax_split in zip(axes, fft_axes, split_axes):
        overlap = overlaps[ax]
        if overlap is None:
            continue
        n_fft = ret.shape[ax_fft]
        head = [slice(None)] * ret.ndim
        head[ax_fft] = slice(0, n_fft - overlap)
        tail = [slice(None)] * ret.ndim
        tail[ax_fft] = slice(n_fft - overlap, None)
        tail[ax_split] = slice(0, ret.shape[ax_split] - 1)
        overpart = ret[tuple(tail)]
        ret = ret[tuple(head)].copy()
        target = [slice(None)] * ret.ndim
        target[ax_fft] = slice(0, overlap)
        target[ax_split] = slice(1, None)
        ret[tuple(target)] = ret[tuple(target)] + overpart
    shape_ret = [ret.shape[i] if i not in fft_axes else ret.shape[i] * ret.shape[i - 1]
                 for i in range(ret.ndim) if i not in split_axes]
    ret = ret.reshape(tuple(shape_ret))
    ret = ret[tuple(slice(n) for n in shape_final)]
    return _apply_conv_mode(ret, s1, s2, mode, axes)


__all__ = ["oaconvolve"]
