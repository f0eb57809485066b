"""NumPy ufuncs and ufunc-like functions that gpupy has no kernel of its own for,
composed exactly of existing ufuncs: ``ldexp``, ``frexp``, ``modf`` (ufuncs in NumPy;
here Python callables with the ufuncs' dtypes, taken from NumPy's own type resolution on
a one-element probe), ``fix``, ``sinc`` and ``i0``.

``frexp`` and ``ldexp`` work on the bits (``view`` as the same-width integer): the
exponent field gives the binary exponent exactly, and ``ldexp`` scales a normalized
mantissa by two exact powers of two built from bits, so its only rounding is the last
multiplication, the one correctly rounded result (subnormal results included)."""

import builtins
import warnings

import numpy

from gpupy import _math
from gpupy._creation import asarray, ascontiguousarray
from gpupy._gpupy import ndarray
from gpupy._indexing import where

__all__ = ["ldexp", "frexp", "modf", "fix", "sinc", "i0"]

# NumPy 2.5 deprecated ``fix`` (for ``trunc``): gpupy warns as the installed NumPy does.
_FIX_DEPRECATED = numpy.lib.NumpyVersion(numpy.__version__) >= "2.5.0rc1"

# Per float dtype: (integer of the same width, mantissa bits, exponent-field mask, bias
# so that frexp's mantissa lies in [0.5, 1), scale that makes a subnormal normal (log2)).
_LAYOUT = {
    numpy.dtype(numpy.float16): (numpy.int16, 10, 0x1F, 14, 12),
    numpy.dtype(numpy.float32): (numpy.int32, 23, 0xFF, 126, 25),
    numpy.dtype(numpy.float64): (numpy.int64, 52, 0x7FF, 1022, 54),
}


def _operand(x):
    return x if isinstance(x, ndarray) or type(x) in (builtins.bool, int, float, complex) else asarray(x)


def _probe(x):
    """A one-element NumPy stand-in with ``x``'s dtype (Python scalars as themselves, so
    NumPy's NEP 50 rules see them weak)."""
    return numpy.ones(1, x.dtype) if isinstance(x, ndarray) else x


def _store(out, r):
    if out is None:
        return r
    out[...] = r
    return out


def _float_input(x, dt):
    x = x if isinstance(x, ndarray) else asarray(x)
    return x.astype(dt) if x.dtype != dt else x


def _pow2(e, dt):
    """``2.0**e`` in float dtype ``dt`` for integer arrays ``e`` within the normal
    exponents, built exactly from bits."""
    itype, mbits, _, bias, _ = _LAYOUT[dt]
    bits = _math.left_shift(_math.add(e, bias + 1).astype(itype), itype(mbits))
    return ascontiguousarray(bits).view(dt)


def frexp(x, out=None):
    """``(mantissa, exponent)`` with ``x == mantissa * 2**exponent``, ``|mantissa|`` in
    [0.5, 1) (0, inf and NaN as themselves with exponent 0); exponent int32. NumPy's
    ``frexp`` (types ``e->ei``, ``f->fi``, ``d->di``).

    .. seealso:: numpy.frexp"""
    x = _operand(x)
    mdt, edt = (r.dtype for r in numpy.frexp(_probe(x)))
    x = _float_input(x, mdt)
    itype, mbits, emask, bias, sub_shift = _LAYOUT[mdt]
    finite_nonzero = _math.logical_and(_math.isfinite(x), _math.not_equal(x, 0))
    subnormal = _math.logical_and(finite_nonzero, _math.less(_math.absolute(x), numpy.finfo(mdt).tiny))
    # A subnormal times 2**sub_shift is normal, exactly (the power itself is normal).
    scaled = where(subnormal, _math.multiply(x, mdt.type(2.0**sub_shift)), x)
    bits = ascontiguousarray(scaled).view(itype)
    field = _math.bitwise_and(_math.right_shift(bits, itype(mbits)), itype(emask))
    exponent = _math.subtract(field.astype(numpy.int32), numpy.int32(bias))
    exponent = _math.subtract(exponent, where(subnormal, numpy.int32(sub_shift), numpy.int32(0)))
    # Keep sign and fraction, set the exponent field to the bias: a value in [0.5, 1).
    keep = itype(~(emask << mbits))
    mant_bits = _math.bitwise_or(_math.bitwise_and(bits, keep), itype(bias << mbits))
    mantissa = where(finite_nonzero, ascontiguousarray(mant_bits).view(mdt), x)
    exponent = where(finite_nonzero, exponent, numpy.int32(0)).astype(edt)
    m_out, e_out = (None, None) if out is None else out
    return _store(m_out, mantissa), _store(e_out, exponent)


def ldexp(x1, x2, out=None):
    """``x1 * 2**x2``, correctly rounded (overflow to inf, gradual underflow), as NumPy's
    ``ldexp`` (types ``ei->e`` ... ``dl->d``: float16/32/64 by integer exponents).

    .. seealso:: numpy.ldexp"""
    x1, x2 = _operand(x1), _operand(x2)
    rdt = numpy.ldexp(_probe(x1), _probe(x2)).dtype  # NumPy's loop, or its TypeError
    x = _float_input(x1, rdt)
    _, _, _, bias, _ = _LAYOUT[rdt]
    emax = bias + 1  # the largest exponent of a normal number (2**emax is finite)
    emin = 1 - emax  # the smallest one
    mant, k = frexp(x)
    # The exponent wanted for the mantissa (in int64, after clamping x2 far outside the
    # range, where the result is 0 or inf whatever the value, so the sum cannot wrap).
    e = (x2 if isinstance(x2, ndarray) else asarray(x2)).astype(numpy.int64)
    e = _math.minimum(_math.maximum(e, -4 * emax), 4 * emax)
    t = _math.add(e, k.astype(numpy.int64))
    # First power: |mant * 2**a| stays normal and finite (mant in [0.5, 1)), so exact.
    a = _math.minimum(_math.maximum(t, emin + 1), emax)
    # Second power: the rest, clamped to the normal powers (the clamped cases round to 0
    # or overflow to inf either way); the one rounding of the result happens here.
    b = _math.minimum(_math.maximum(_math.subtract(t, a), emin), emax)
    r = _math.multiply(_math.multiply(mant, _pow2(a, rdt)), _pow2(b, rdt))
    return _store(out, r.astype(rdt, copy=False))


def modf(x, out=None):
    """``(fractional part, integral part)``, both with ``x``'s sign (``-3.0`` gives
    ``(-0.0, -3.0)``; ``±inf`` gives ``(±0.0, ±inf)``), as NumPy's ``modf``.

    .. seealso:: numpy.modf"""
    x = _operand(x)
    dt = numpy.modf(_probe(x))[0].dtype
    x = _float_input(x, dt)
    whole = _math.trunc(x)
    frac = where(_math.isinf(x), dt.type(0), _math.subtract(x, whole))  # exact subtraction
    frac = _math.copysign(frac, x)
    f_out, w_out = (None, None) if out is None else out
    return _store(f_out, frac), _store(w_out, whole)


def fix(x, out=None):
    """Rounds toward zero: NumPy 2's ``fix`` is ``trunc`` (integers stay integers);
    deprecated (a DeprecationWarning) with NumPy 2.5 and later, as there.

    .. seealso:: numpy.fix"""
    if _FIX_DEPRECATED:
        warnings.warn(
            "numpy.fix is deprecated. Use numpy.trunc instead, which is faster and follows the Array API standard.",
            DeprecationWarning,
            stacklevel=2,
        )
    return _math.trunc(_operand(x), out=out)


def sinc(x):
    """``sin(pi x) / (pi x)``, 1 at 0: NumPy's ``sinc``, which divides by the dtype's eps
    instead of zero (1e-20 for complex).

    .. seealso:: numpy.sinc"""
    x = _math.multiply(numpy.pi, asarray(x))
    eps = numpy.finfo(x.dtype).eps if x.dtype.kind == "f" else 1e-20
    y = where(_math.not_equal(x, 0), x, x.dtype.type(eps))
    return _math.divide(_math.sin(y), y)


# Cephes' Chebyshev coefficients for exp(-x) I0(x), as NumPy's ``i0`` uses them:
# on [0, 8] in the variable x/2 - 2, and on (8, inf) for sqrt(x) exp(-x) I0(x) in 32/x - 2.
_I0_A = [
    -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16,
    1.715391285555133e-15, -1.1685332877993451e-14, 7.676185498604936e-14,
    -4.856446783111929e-13, 2.95505266312964e-12, -1.726826291441556e-11,
    9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
    -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07,
    1.1173875391201037e-06, -4.4167383584587505e-06, 1.6448448070728896e-05,
    -5.754195010082104e-05, 0.00018850288509584165, -0.0005763755745385824,
    0.0016394756169413357, -0.004324309995050576, 0.010546460394594998,
    -0.02373741480589947, 0.04930528423967071, -0.09490109704804764,
    0.17162090152220877, -0.3046826723431984, 0.6767952744094761,
]
_I0_B = [
    -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17,
    3.461222867697461e-17, -2.8276239805165836e-16, -3.425485619677219e-16,
    1.7725601330565263e-15, 3.8116806693526224e-15, -9.554846698828307e-15,
    -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13,
    7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11,
    -3.1499165279632416e-11, 1.1889147107846439e-11, 4.94060238822497e-10,
    3.3962320257083865e-09, 2.266668990498178e-08, 2.0489185894690638e-07,
    2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943,
    0.8044904110141088,
]


def _chbevl(x, coefficients):
    """Clenshaw's recurrence for a Chebyshev series, as NumPy's ``_chbevl`` (Python
    float coefficients: weak, so float32 input computes in float32 as NumPy's)."""
    b0 = coefficients[0]
    b1 = 0.0
    b2 = 0.0
    for c in coefficients[1:]:
        b2 = b1
        b1 = b0
        b0 = _math.add(_math.subtract(_math.multiply(x, b1), b2), c)
    return _math.multiply(0.5, _math.subtract(b0, b2))


def i0(x):
    """The modified Bessel function of the first kind, order 0, for real ``x``: NumPy's
    ``i0`` (Cephes' Chebyshev expansions on [0, 8] and beyond); integers compute in
    float64, complex raises TypeError.

    .. seealso:: numpy.i0"""
    x = asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    if x.dtype.kind != "f":
        x = x.astype(numpy.float64)
    x = _math.absolute(x)
    small = _math.multiply(_math.exp(x), _chbevl(_math.subtract(_math.divide(x, 2.0), 2), _I0_A))
    large = _math.divide(_math.multiply(_math.exp(x), _chbevl(_math.subtract(_math.divide(32.0, x), 2.0), _I0_B)),
                         _math.sqrt(x))
    return where(_math.less_equal(x, 8.0), small, large).astype(x.dtype, copy=False)
