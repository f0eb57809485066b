"""``scipy.signal.upfirdn`` on gpupy arrays: upsample by zero insertion, FIR filter,
downsample, with SciPy's polyphase semantics, signal extension modes, checks, messages
and result dtype (``result_type(h, x, float32)``).

SciPy's C loop computes output ``m`` as ``y[m] = sum_r h[t + r up] x[i - r]``, ``r =
0 .. P - 1``, with ``i = (m down) // up``, phase ``t = (m down) % up``, ``P =
ceil(len(h) / up)`` and ``x`` extended past its ends by the mode. Here:

1. the extension: ``P - 1`` samples on each side by SciPy's formulas for the mode
   (``_extend``: gathers of the edge samples and elementwise arithmetic, in SciPy's
   operation order), concatenated with ``x`` (cast to the result dtype first, as
   SciPy casts it);
2. the outputs split into ``Q = up / gcd(up, down)`` classes ``m = c, c + Q, ...``,
   which share one phase and whose windows start ``D = down / gcd(up, down)`` samples
   apart: each class is one matrix-vector product of the extended signal's frames
   (``sliding_frames``: a strided view, no copy) with that phase's ``P`` taps,
   written to ``y[..., c::Q]``.

Every output costs ``P`` multiply-adds, as in SciPy's loop (no zero products from the
inserted zeros); the sums run in the matrix product's order instead of SciPy's, so
results agree to rounding. Modes that read two or more samples (``reflect``,
``antireflect``, ``smooth``) need at least two along the axis, and every mode but
``constant`` at least one: SciPy crashes or reads past the array there, gpupy raises
ValueError.
"""

import math

import numpy

import gpupy as gp
from gpupyx.scipy.ndimage._util import as_device, normalize_axis
from gpupyx.scipy.signal._arraytools import sliding_frames

_upfirdn_modes = ["constant", "wrap", "edge", "smooth", "symmetric", "reflect",
                  "antisymmetric", "antireflect", "line"]


def _output_len(len_h, in_len, up, down):
    """The output length for a filter of `len_h` taps on `in_len` samples:
    ``ceil(((in_len - 1) up + len_h) / down)``."""
    return (((in_len - 1) * up + len_h) - 1) // down + 1


def _check_mode(mode):
    mode = mode.lower()
    if mode not in _upfirdn_modes:
        raise ValueError(f"Unknown mode: {mode}")
    return mode


def _phase_taps(h, up):
    """SciPy's ``_pad_h``: `h` zero-padded to a multiple of `up`, as rows ``t`` (phases)
    of ``P`` taps each, ``row[t][s] = h[t + (P - 1 - s) up]`` (the taps in the order they
    meet the signal's samples ``i - P + 1 .. i``)."""
    h_full = numpy.zeros(len(h) + -len(h) % up, h.dtype)
    h_full[:len(h)] = h
    return numpy.ascontiguousarray(h_full.reshape(-1, up).T[:, ::-1])


def _take(x, indices):
    """The samples ``x[..., indices]`` (host indices, a few) as a new array."""
    return gp.take(x, numpy.asarray(indices, dtype=numpy.int64), axis=-1)


def _source(n, idx, side, mode):
    """SciPy's index arithmetic of the reflecting modes: for extended positions `idx`
    (host int64, all < 0 on the left, all >= n on the right), the sample each one
    copies and its sign."""
    sign = numpy.ones(idx.shape)
    if mode == "wrap":
        return idx % n, sign
    if mode in ("symmetric", "antisymmetric"):
        k = (-idx - 1) % (2 * n) if side == "left" else idx % (2 * n)
        first = k < n
        src = numpy.where(first, k, n - 1 - (k - n))
        if mode == "antisymmetric":
            # The first reflection (the sample's mirror image) changes sign; past it the
            # pattern alternates with period 2n.
            near = (-idx < n) if side == "left" else (idx < 2 * n)
            flip = near | (first if side == "left" else ~first)
            sign = numpy.where(flip, -1.0, 1.0)
        return src, sign
    # reflect: period 2 (n - 1), the edge sample not repeated.
    k = (-idx - 1) % (2 * (n - 1)) if side == "left" else idx % (2 * (n - 1))
    if side == "left":
        src = numpy.where(k < n - 1, k + 1, n - 2 - (k - (n - 1)))
    else:
        src = numpy.where(k < n - 1, k, n - 1 - (k - (n - 1)))
    return src, sign


def _extend_side(x, L, side, mode, cval):
    """The `L` extended samples before (``side='left'``, positions ``-L .. -1``) or after
    (``'right'``, positions ``n .. n + L - 1``) the last axis of `x`, by SciPy's
    ``_extend_left``/``_extend_right`` for `mode`."""
    n = x.shape[-1]
    idx = numpy.arange(-L, 0) if side == "left" else numpy.arange(n, n + L)
    shape = tuple(x.shape[:-1]) + (L,)
    if mode == "constant":
        return gp.full(shape, cval, dtype=x.dtype)
    if mode == "edge":
        return gp.broadcast_to(_take(x, [0 if side == "left" else n - 1]), shape)
    real = numpy.dtype(x.dtype.char.lower())
    if mode in ("wrap", "symmetric", "reflect", "antisymmetric"):
        src, sign = _source(n, idx, side, mode)
        v = _take(x, src)
        return v * gp.asarray(sign.astype(real)) if mode == "antisymmetric" else v
    first, last = _take(x, [0]), _take(x, [n - 1])
    if mode in ("smooth", "line"):
        if mode == "smooth":
            slope = (_take(x, [1]) - first) if side == "left" else (last - _take(x, [n - 2]))
        else:
            slope = (last - first) / (n - 1)
        steps = gp.asarray((idx if side == "left" else idx - n + 1).astype(real))
        return (first if side == "left" else last) + steps * slope
    # antireflect: reflection about the end sample, each further period shifted by the
    # span x[n-1] - x[0]; base + s (x[p] - x[q]) in SciPy's operation order.
    if side == "left":
        k = (-idx - 1) % (2 * (n - 1))
        turns = numpy.where(-idx < n, 0, (-idx - 1) // (n - 1)).astype(real)
        near = -idx < n
        p = numpy.where(near, -idx, numpy.where(k < n - 1, k + 1, n - 1))
        q = numpy.where(near | (k < n - 1), 0, n - 2 - (k - (n - 1)))
        base = first + (first - last) * gp.asarray(turns)
        return base - (_take(x, p) - _take(x, q))
    k = idx % (2 * (n - 1))
    near = idx < 2 * n - 1
    turns = numpy.where(near, 0, idx // (n - 1) - 1).astype(real)
    base = last + (last - first) * gp.asarray(turns)
    # near: x[n-1] - (x[m] - x[n-1]); further: base + (x[p] - x[q]).
    m = n - 2 - (idx - n)
    near_part = last - (_take(x, numpy.where(near, m, 0)) - last)
    p = numpy.where(k < n - 1, k, n - 1)
    q = numpy.where(k < n - 1, 0, n - 1 - (k - (n - 1)))
    far_part = base + (_take(x, p) - _take(x, q))
    return gp.where(gp.asarray(near), near_part, far_part)


def _extend(x, L, mode, cval):
    """`x` (last axis) with `L` samples of `mode`'s extension on each side."""
    if L == 0:
        return x
    n = x.shape[-1]
    if mode != "constant" and n < 1:
        raise ValueError(f"upfirdn: mode '{mode}' needs at least one sample along the axis")
    if mode in ("reflect", "antireflect", "smooth") and n < 2:
        raise ValueError(f"upfirdn: mode '{mode}' needs at least two samples along the axis")
    return gp.concatenate([_extend_side(x, L, "left", mode, cval), x,
                           _extend_side(x, L, "right", mode, cval)], axis=-1)


def _apply(x, phases, len_h, up, down, mode, cval):
    """The polyphase filter along the last axis of `x` (already of the result dtype)."""
    n = x.shape[-1]
    out_len = _output_len(len_h, n, up, down)
    P = phases.shape[1]
    xe = _extend(x, P - 1, mode, cval)
    out = gp.empty(tuple(x.shape[:-1]) + (out_len,), dtype=x.dtype)
    if out.size == 0:
        return out
    g = math.gcd(up, down)
    Q, D = up // g, down // g
    taps = gp.asarray(phases)
    for c in range(min(Q, out_len)):
        count = (out_len - 1 - c) // Q + 1
        start, phase = divmod(c * down, up)
        # Class c reads the extended samples start + k D .. start + k D + P - 1.
        frames = sliding_frames(xe[..., start:start + (count - 1) * D + P], P, D)
        out[..., c::Q] = gp.matmul(frames, taps[phase])
    return out


def upfirdn(h, x, up=1, down=1, axis=-1, mode="constant", cval=0):
    """Upsample `x` by `up` (zero insertion), filter with the FIR `h`, downsample by
    `down`, along `axis` (``scipy.signal.upfirdn``); `mode` extends the signal past its
    ends (SciPy's modes; ``cval`` for ``'constant'``)."""
    x = as_device(x)
    h = gp.asnumpy(h) if isinstance(h, gp.ndarray) else numpy.asarray(h)
    if h.ndim != 1 or h.size == 0:
        raise ValueError("h must be 1-D with non-zero length")
    out_type = numpy.result_type(h.dtype, x.dtype, numpy.float32)
    h = numpy.asarray(h, out_type)
    up, down = int(up), int(down)
    if up < 1 or down < 1:
        raise ValueError("Both up and down must be >= 1")
    axis = normalize_axis(axis, x.ndim)
    mode = _check_mode(mode)
    xm = gp.moveaxis(x.astype(out_type, copy=False), axis, -1)
    y = _apply(xm, _phase_taps(h, up), len(h), up, down, mode, out_type.type(cval))
    return gp.moveaxis(y, -1, axis)


__all__ = ["upfirdn", "_output_len", "_upfirdn_modes"]
