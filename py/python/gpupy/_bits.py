"""Bit packing (NumPy's "Binary operations"): ``packbits`` and ``unpackbits``, composed of
integer ufuncs on the GPU: bits grouped by eight along the axis and weighted by powers
of two (``sum`` in uint8), or bytes shifted right and masked with 1.
"""

import operator

import numpy

from gpupy import _math, _reduction
from gpupy._creation import asarray, zeros
from gpupy._manipulation import _normalize_axis, concatenate, moveaxis

__all__ = ["packbits", "unpackbits"]

_BIG = numpy.array([128, 64, 32, 16, 8, 4, 2, 1], dtype=numpy.uint8)


def _flat_or_axis(a, axis):
    """``a`` flattened (``axis=None``; a 0-d array as 1-d) and the normalized axis."""
    if axis is None or a.ndim == 0:
        return a.reshape(-1), 0
    return a, _normalize_axis(axis, a.ndim)


def packbits(a, /, axis=None, bitorder="big"):
    """Packs the truth of ``a``'s elements (integer or bool) into uint8 bytes along
    ``axis`` (the flattened array when None), eight to a byte, the last byte padded
    with zero bits; ``bitorder`` 'big' (first element in the high bit) or 'little', as
    NumPy's ``packbits``.

    .. seealso:: numpy.packbits"""
    if not isinstance(bitorder, str):
        raise TypeError(f"pack() argument 3 must be str, not {type(bitorder).__name__}")
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    a = asarray(a)
    if a.dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    a, axis = _flat_or_axis(a, axis)
    bits = moveaxis(_math.not_equal(a, 0), axis, -1).astype(numpy.uint8)
    n = bits.shape[-1]
    pad = -n % 8
    if pad:
        bits = concatenate([bits, zeros(bits.shape[:-1] + (pad,), dtype=numpy.uint8)], axis=-1)
    groups = bits.reshape(bits.shape[:-1] + ((n + pad) // 8, 8))
    weights = asarray(_BIG if bitorder == "big" else _BIG[::-1].copy())
    packed = _reduction.sum(_math.multiply(groups, weights), axis=-1, dtype=numpy.uint8)
    return moveaxis(packed, -1, axis)


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """Unpacks the uint8 ``a`` into its bits (0 or 1, uint8) along ``axis`` (the
    flattened array when None); ``count`` keeps that many bits (zero-padded beyond the
    available ones; negative: drops that many from the end), as NumPy's ``unpackbits``.

    .. seealso:: numpy.unpackbits"""
    if not isinstance(bitorder, str):
        raise TypeError(f"unpack() argument 4 must be str, not {type(bitorder).__name__}")
    if not bitorder or bitorder[0] not in "lb":
        raise ValueError("'order' must begin with 'l' or 'b'")
    a = asarray(a)
    if a.dtype != numpy.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if count is not None:
        count = operator.index(count)
    a, axis = _flat_or_axis(a, axis)
    x = moveaxis(a, axis, -1)
    shifts = numpy.arange(7, -1, -1, dtype=numpy.uint8) if bitorder[0] == "b" else numpy.arange(8, dtype=numpy.uint8)
    bits = _math.bitwise_and(_math.right_shift(x[..., None], asarray(shifts)), numpy.uint8(1))
    n = x.shape[-1] * 8
    bits = bits.reshape(x.shape[:-1] + (n,))
    if count is not None:
        if count < 0:
            if -count > n:
                raise ValueError("-count larger than number of elements")
            bits = bits[..., : n + count]
        elif count <= n:
            bits = bits[..., :count]
        else:
            bits = concatenate([bits, zeros(bits.shape[:-1] + (count - n,), dtype=numpy.uint8)], axis=-1)
    return moveaxis(bits, -1, axis)
