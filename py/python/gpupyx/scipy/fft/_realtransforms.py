"""``scipy.fft``'s real-to-real transforms: DCT and DST of types 1 to 4, forward and
inverse, along one axis or several.

GPU FFT libraries have no real-to-real transforms, so each type is one FFT of about the
transform's length (gpupy's kernels, through ``gpupy.fft``) and O(n) elementwise work
(gpupy's ufuncs, slicing and joins): no new kernels. Along the last axis of length N:

- DCT-II / DST-II (Makhoul, 1980): the even samples, then the odd ones reversed (negated
  for the DST), a real FFT of length N, a twiddle ``2 exp(-i pi k / 2N)``; output ``k``
  is ``Re z_k`` and output ``N - k`` is ``-Im z_k``. The DST is the DCT of the
  sign-alternated input, reversed.
- DCT-III / DST-III: the same steps backwards: ``exp(i pi k / 2N) (y_k - i y_(N-k))``
  is the half spectrum of a real signal, whose unnormalized inverse real FFT holds the
  outputs in the even-then-reversed-odd order.
- DCT-I: a real FFT of the even extension (length 2(N - 1)); DST-I: of the odd extension
  (length 2(N + 1)).
- DCT-IV / DST-IV: with ``C_k = sum_n x_n exp(-i pi (2k+1)(2n+1) / 4N)`` (output
  ``2 Re C_k``, resp. ``-2 Im C_k``), the even-indexed ``C_2m`` are one complex FFT of
  length N of ``x_n exp(-i pi n / 2N)`` times ``exp(-i pi (4m+1) / 4N)``, and the odd
  ones follow from ``C_(2N-1-k) = -conj(C_k)``.

Normalization and ``orthogonalize`` are pocketfft's (SciPy's), folded into the twiddles
where they touch one sample. A subtle SciPy behaviour is kept: complex input is
transformed as its real and imaginary parts, and ``orthogonalize`` is then ignored (the
parts take the default, orthogonalized exactly when ``norm="ortho"``).

DCT-II/III structure after CuPy's ``cupyx/scipy/fft/_realtransforms.py`` (MIT license,
Copyright (c) Preferred Networks, Inc. and Preferred Infrastructure, Inc.).
"""

import math
import operator

import numpy

import gpupy as gp
import gpupy.fft as _npfft
from gpupyx.scipy.fft import _helper, _plan

_SQRT2 = math.sqrt(2.0)


def _phase(m, step, scale, dtype, offset=0.0):
    """``scale * exp(1j * step * (k + offset))`` for ``k < m``, as complex ``dtype``.
    The angles and their cosines and sines are float64 (the twiddles are then exact to
    a float64 ulp or two, well below a float32 result's rounding)."""
    angle = gp.arange(m, dtype=numpy.float64)
    if offset:
        angle += offset
    angle *= step
    w = gp.empty(m, dtype=dtype)
    w.real = gp.cos(angle) * scale
    w.imag = gp.sin(angle) * scale
    return w


def _dct2(x, scale, ortho, dst):
    n = x.shape[-1]
    cdt = _helper.complex_dtype(x.dtype)
    odd = x[..., 1::2][..., ::-1]
    v = gp.concatenate([x[..., ::2], -odd if dst else odd], axis=-1)
    w = _phase(n // 2 + 1, -math.pi / (2 * n), 2.0 * scale, cdt)
    if ortho:  # output 0 (the DST's last) divided by sqrt(2)
        w[:1] *= 1.0 / _SQRT2
    z = _npfft.rfft(v, axis=-1)
    z *= w
    if dst:
        return gp.concatenate([-z.imag[..., 1:(n - 1) // 2 + 1], z.real[..., n // 2::-1]], axis=-1)
    return gp.concatenate([z.real, -z.imag[..., (n - 1) // 2:0:-1]], axis=-1)


def _dct3(y, scale, ortho, dst):
    n = y.shape[-1]
    m = n // 2 + 1
    if dst:
        y = y[..., ::-1]
    c = gp.empty(y.shape[:-1] + (m,), dtype=_helper.complex_dtype(y.dtype))
    c.real = y[..., :m]
    c.imag[..., :1] = 0.0
    c.imag[..., 1:] = -y[..., ::-1][..., :m - 1]
    w = _phase(m, math.pi / (2 * n), scale, c.dtype)
    if ortho:  # input 0 (the DST's last) times sqrt(2)
        w[:1] *= _SQRT2
    c *= w
    v = _npfft.irfft(c, n=n, axis=-1, norm="forward")
    x = gp.empty(y.shape, dtype=y.dtype)
    x[..., ::2] = v[..., :(n + 1) // 2]
    odd = v[..., ::-1][..., :n // 2]
    x[..., 1::2] = -odd if dst else odd
    return x


def _dct1(x, scale, ortho):
    n = x.shape[-1]
    ext = gp.concatenate([x, x[..., 1:-1][..., ::-1]], axis=-1)
    if ortho:  # x[0], x[N-1] times sqrt(2) before, y[0], y[N-1] divided by it after
        ext[..., :1] *= _SQRT2
        ext[..., n - 1:n] *= _SQRT2
    y = _npfft.rfft(ext, axis=-1).real * scale
    if ortho:
        y[..., :1] *= 1.0 / _SQRT2
        y[..., -1:] *= 1.0 / _SQRT2
    return y


def _dst1(x, scale):
    n = x.shape[-1]
    ext = gp.zeros(x.shape[:-1] + (2 * n + 2,), dtype=x.dtype)
    ext[..., 1:n + 1] = x
    ext[..., n + 2:] = -x[..., ::-1]
    return _npfft.rfft(ext, axis=-1).imag[..., 1:n + 1] * -scale


def _dct4(x, scale, dst):
    n = x.shape[-1]
    cdt = _helper.complex_dtype(x.dtype)
    z = _npfft.fft(x * _phase(n, -math.pi / (2 * n), 1.0, cdt), axis=-1)
    z *= _phase(n, -math.pi / n, (-2.0 if dst else 2.0) * scale, cdt, offset=0.25)
    part = z.imag if dst else z.real
    y = gp.empty(x.shape, dtype=x.dtype)
    y[..., ::2] = part[..., :(n + 1) // 2]
    tail = part[..., ::-1][..., :n // 2]
    y[..., 1::2] = tail if dst else -tail
    return y


def _scale(code, type, n, dst):
    """pocketfft's factor for normalization code ``code``: 1, 1/sqrt(F) or 1/F with F
    the transform's logical length: 2(N-1) for DCT-I, 2(N+1) for DST-I, 2N otherwise."""
    if code == 0:
        return 1.0
    f = 2 * (n + (1 if dst else -1)) if type == 1 else 2 * n
    return 1.0 / math.sqrt(f) if code == 1 else 1.0 / f


def _along_last(x, type, code, ortho, dst):
    n = x.shape[-1]
    scale = _scale(code, type, n, dst)
    if type == 1:
        return _dst1(x, scale) if dst else _dct1(x, scale, ortho)
    if type == 2:
        return _dct2(x, scale, ortho, dst)
    if type == 3:
        return _dct3(x, scale, ortho, dst)
    return _dct4(x, scale, dst)


def _transform(x, type, shape, axes, code, orthogonalize, dst):
    """The transform of real ``x`` over ``axes``, padded or truncated to ``shape``."""
    ortho = code == 1 if orthogonalize is None else bool(orthogonalize)
    x = _helper.fix_shape(x, shape, axes)
    if type == 1 and not dst and x.size and any(x.shape[ax] == 1 for ax in axes):
        raise RuntimeError("zero-length FFT requested")  # pocketfft's DCT-I of one sample
    for ax in axes:
        x = gp.moveaxis(_along_last(gp.moveaxis(x, ax, -1), type, code, ortho, dst), -1, ax)
    return gp.ascontiguousarray(x)


def _apply(x, type, shape, axes, code, orthogonalize, dst):
    """Real input directly; complex input as its two parts, with SciPy's default
    ``orthogonalize`` (SciPy does not pass the argument on for complex input). An
    entered FFT plan does not apply to the FFTs run here."""
    if x.dtype.kind != "c":
        with _plan.suspended():
            return _transform(x, type, shape, axes, code, orthogonalize, dst)
    with _plan.suspended():
        re = _transform(x.real, type, shape, axes, code, None, dst)
        im = _transform(x.imag, type, shape, axes, code, None, dst)
    out = gp.empty(re.shape, dtype=x.dtype)
    out.real = re
    out.imag = im
    return out


def _check_type(type, forward, dst):
    """The type actually computed (the inverse of II is III and of III is II), checked
    where SciPy checks it: after the shapes."""
    if not forward:
        if type == 2:
            type = 3
        elif type == 3:
            type = 2
    type = operator.index(type)
    if type not in (1, 2, 3, 4):
        raise ValueError("invalid DST type" if dst else "invalid DCT type")
    return type


def _r2r(forward, dst, x, type, n, axis, norm, workers, orthogonalize):
    x = _helper.asfarray(x)
    code = _helper.norm_code(norm, forward)
    _helper.check_workers(workers)
    axis, n = _helper.axis_and_n(x, axis, n)
    type = _check_type(type, forward, dst)
    return _apply(x, type, [n], [axis], code, orthogonalize, dst)


def _r2rn(forward, dst, x, type, s, axes, norm, workers, orthogonalize):
    original = x
    x = _helper.asfarray(x)
    shape, axes = _helper.init_nd_shape_and_axes(x, s, axes)
    if not axes:
        return original  # SciPy returns its input, before checking type or norm
    code = _helper.norm_code(norm, forward)
    _helper.check_workers(workers)
    type = _check_type(type, forward, dst)
    return _apply(x, type, shape, axes, code, orthogonalize, dst)


def dct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, orthogonalize=None):
    """``scipy.fft.dct``: the discrete cosine transform of type 1, 2, 3 or 4 (real result
    for real input; complex input transforms its parts). DCT-I needs ``n > 1``."""
    return _r2r(True, False, x, type, n, axis, norm, workers, orthogonalize)


def idct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, orthogonalize=None):
    """``scipy.fft.idct``: the inverse of ``dct`` of the same type and ``norm``."""
    return _r2r(False, False, x, type, n, axis, norm, workers, orthogonalize)


def dst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, orthogonalize=None):
    """``scipy.fft.dst``: the discrete sine transform of type 1, 2, 3 or 4."""
    return _r2r(True, True, x, type, n, axis, norm, workers, orthogonalize)


def idst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, orthogonalize=None):
    """``scipy.fft.idst``: the inverse of ``dst`` of the same type and ``norm``."""
    return _r2r(False, True, x, type, n, axis, norm, workers, orthogonalize)


def dctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, orthogonalize=None):
    """``scipy.fft.dctn``: ``dct`` along each of ``axes`` (default all, or the last
    ``len(s)``); ``s`` pads or truncates, -1 keeps the input's length."""
    return _r2rn(True, False, x, type, s, axes, norm, workers, orthogonalize)


def idctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, orthogonalize=None):
    """``scipy.fft.idctn``: ``idct`` along each of ``axes``."""
    return _r2rn(False, False, x, type, s, axes, norm, workers, orthogonalize)


def dstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, orthogonalize=None):
    """``scipy.fft.dstn``: ``dst`` along each of ``axes``."""
    return _r2rn(True, True, x, type, s, axes, norm, workers, orthogonalize)


def idstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, orthogonalize=None):
    """``scipy.fft.idstn``: ``idst`` along each of ``axes``."""
    return _r2rn(False, True, x, type, s, axes, norm, workers, orthogonalize)


__all__ = ["dct", "idct", "dst", "idst", "dctn", "idctn", "dstn", "idstn"]
