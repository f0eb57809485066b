"""Window functions (NumPy's ``bartlett``, ``blackman``, ``hamming``, ``hanning``,
``kaiser``): float64 arrays of length ``M`` computed on the device from ``arange``, with
NumPy's formulas (empty for ``M < 1``, ``[1.0]`` for ``M == 1``)."""

import numpy

from gpupy import _math
from gpupy._creation import ones, zeros
from gpupy._indexing import where
from gpupy._ranges import arange
from gpupy._ufunclike import i0

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]


def _trivial(M):
    """The window for ``M < 2`` (NumPy's float64 ``M``: a float ``M`` is allowed), or None."""
    if M < 1:
        return zeros(0, numpy.float64)
    if M == 1:
        return ones(1, numpy.float64)
    return None


def bartlett(M):
    """The triangular window (NumPy's ``bartlett``).

    .. seealso:: numpy.bartlett"""
    M = float(M)
    w = _trivial(M)
    if w is not None:
        return w
    n = arange(1 - M, M, 2, dtype=numpy.float64)
    return where(_math.less_equal(n, 0), _math.add(1, _math.divide(n, M - 1)), _math.subtract(1, _math.divide(n, M - 1)))


def _cosine_terms(M, coefficients):
    """``sum_k c_k cos(k pi n / (M - 1))`` over ``n = 1-M, 3-M, ..., M-1`` (NumPy's
    centred form), with NumPy's operation order."""
    n = arange(1 - M, M, 2, dtype=numpy.float64)
    c0, c1 = coefficients[:2]
    r = _math.add(c0, _math.multiply(c1, _math.cos(_math.divide(_math.multiply(numpy.pi, n), M - 1))))
    if len(coefficients) > 2:
        r = _math.add(r, _math.multiply(coefficients[2], _math.cos(_math.divide(_math.multiply(2.0 * numpy.pi, n), M - 1))))
    return r


def blackman(M):
    """The Blackman window (NumPy's ``blackman``).

    .. seealso:: numpy.blackman"""
    M = float(M)
    w = _trivial(M)
    return w if w is not None else _cosine_terms(M, (0.42, 0.5, 0.08))


def hamming(M):
    """The Hamming window (NumPy's ``hamming``).

    .. seealso:: numpy.hamming"""
    M = float(M)
    w = _trivial(M)
    return w if w is not None else _cosine_terms(M, (0.54, 0.46))


def hanning(M):
    """The Hann window (NumPy's ``hanning``).

    .. seealso:: numpy.hanning"""
    M = float(M)
    w = _trivial(M)
    return w if w is not None else _cosine_terms(M, (0.5, 0.5))


def kaiser(M, beta):
    """The Kaiser window ``i0(beta sqrt(1 - (2n/(M-1) - 1)**2)) / i0(beta)`` (NumPy's
    ``kaiser``).

    .. seealso:: numpy.kaiser"""
    M = float(M)
    if M == 1:
        return ones(1, numpy.float64)
    n = arange(0, M, dtype=numpy.float64)
    alpha = (M - 1) / 2.0
    t = _math.divide(_math.subtract(n, alpha), alpha)
    arg = _math.multiply(beta, _math.sqrt(_math.subtract(1, _math.multiply(t, t))))
    return _math.divide(i0(arg), i0(numpy.float64(beta)))
