"""Bit generators: ``PCG64`` (NumPy's, bit for bit) and ``Philox`` (Philox4x32-10), both
seeded through NumPy's own ``SeedSequence``.

A bit generator's state lives on the host. ``PCG64`` wraps a ``numpy.random.PCG64``
object (so seeding, ``state``, ``spawn`` and ``jumped`` are NumPy's) and advances it by
what each GPU call consumed. Every distribution call takes one 64-bit key from its bit
generator (``_next_key``) for the Philox streams of its elements.
"""

import numpy

from gpupy import _gpupy
from gpupy.random._params import shape_of

SeedSequence = numpy.random.SeedSequence

_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645


def _pcg_advance(state, inc, delta):
    """PCG64's state after ``delta`` steps (Brown's jump-ahead, Python ints)."""
    acc_mult, acc_plus, cur_mult, cur_plus = 1, 0, _PCG_MULT, inc
    while delta > 0:
        if delta & 1:
            acc_mult = acc_mult * cur_mult & _M128
            acc_plus = (acc_plus * cur_mult + cur_plus) & _M128
        cur_plus = (cur_mult + 1) * cur_plus & _M128
        cur_mult = cur_mult * cur_mult & _M128
        delta >>= 1
    return (acc_mult * state + acc_plus) & _M128


def _pcg_output(state):
    """PCG64's XSL RR output of a state."""
    hi, lo = state >> 64, state & _M64
    x, rot = hi ^ lo, hi >> 58
    return ((x >> rot) | (x << (64 - rot))) & _M64


class BitGenerator:
    """The base of gpupy's bit generators (NumPy's ``BitGenerator`` names)."""

    def random_raw(self, size=None, output=True):
        """Raw 64-bit outputs as a uint64 array (NumPy's ``random_raw``)."""
        raise NotImplementedError

    def _next_key(self):
        raise NotImplementedError


class PCG64(BitGenerator):
    """NumPy's PCG64 on the GPU: the same seeding, state and outputs.

    ``PCG64(seed)`` accepts what ``numpy.random.PCG64`` accepts (None, an int, a
    sequence of ints, a ``SeedSequence``); ``state`` reads and writes NumPy's dict, so
    a state moves between NumPy and gpupy in both directions.
    """

    def __init__(self, seed=None):
        if isinstance(seed, numpy.random.PCG64):
            self._np = seed
        else:
            self._np = numpy.random.PCG64(seed)

    @property
    def state(self):
        return self._np.state

    @state.setter
    def state(self, value):
        self._np.state = value

    @property
    def seed_seq(self):
        return self._np.seed_seq

    def spawn(self, n_children):
        """``n_children`` independent PCG64s from this one's ``SeedSequence`` (NumPy's)."""
        return [PCG64(child) for child in self._np.spawn(n_children)]

    def jumped(self, jumps=1):
        """A copy advanced by ``jumps`` * 2^127 * golden-ratio steps (NumPy's ``jumped``)."""
        return PCG64(self._np.jumped(jumps))

    def advance(self, delta):
        """Advances the state by ``delta`` steps (NumPy's ``advance``)."""
        self._np.advance(delta)
        return self

    def _words(self):
        s = self._np.state["state"]
        return s["state"], s["inc"]

    def _set(self, state, has_uint32=None, uinteger=None):
        d = self._np.state
        d["state"]["state"] = state
        if has_uint32 is not None:
            d["has_uint32"] = has_uint32
            d["uinteger"] = uinteger
        self._np.state = d

    def _launch(self, shape, out, first=None):
        state, inc = self._words()
        words = (state >> 64, state & _M64, inc >> 64, inc & _M64)
        return _gpupy._pcg64(list(shape), out, words, first)

    def _fill(self, shape, out):
        """``out`` ("raw", "f64") outputs in ``shape``, advancing the state past them."""
        n = int(numpy.prod(shape, dtype=numpy.int64))
        a = self._launch(shape, out)
        state, inc = self._words()
        self._set(_pcg_advance(state, inc, n))
        return a

    def _fill_f32(self, shape):
        """NumPy's float32 ``random``: a 32-bit half per element, low half first, the
        state's kept half first of all."""
        n = int(numpy.prod(shape, dtype=numpy.int64))
        d = self._np.state
        has, kept = d["has_uint32"], d["uinteger"]
        if n == 0:
            return self._launch(shape, "f32")
        first = numpy.float32((kept >> 8) * (1.0 / 16777216.0)) if has else None
        a = self._launch(shape, "f32", None if first is None else float(first))
        rest = n - (1 if has else 0)
        outputs = (rest + 1) // 2
        state, inc = self._words()
        if outputs:
            new = _pcg_advance(state, inc, outputs)
            self._set(new, rest % 2, _pcg_output(new) >> 32)
        else:
            self._set(state, 0, kept)
        return a

    def random_raw(self, size=None, output=True):
        a = self._fill(shape_of(size), "raw")
        return a if output else None

    def _next_key(self):
        return int(self._np.random_raw())


_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_M32 = (1 << 32) - 1


def _philox(c, k):
    """Philox4x32-10 of counter ``c`` (4 words) under key ``k`` (2 words), on the host."""
    c, k = list(c), list(k)
    for r in range(10):
        if r:
            k = [(k[0] + _PHILOX_W[0]) & _M32, (k[1] + _PHILOX_W[1]) & _M32]
        p0, p1 = _PHILOX_M[0] * c[0], _PHILOX_M[1] * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & _M32, (p0 >> 32) ^ c[3] ^ k[1], p0 & _M32]
    return c


class Philox(BitGenerator):
    """Philox4x32-10 (Salmon et al., SC'11), a counter-based generator: a 64-bit key
    from ``SeedSequence(seed)`` and a call counter. Its outputs are gpupy's own (NumPy's
    ``Philox`` is Philox4x64); CuPy names it ``Philox4x3210``."""

    def __init__(self, seed=None, *, key=None, counter=0):
        if key is not None:
            self._seed_seq = None
            self._key = int(key) & _M64
        else:
            ss = seed if isinstance(seed, numpy.random.SeedSequence) else SeedSequence(seed)
            self._seed_seq = ss
            w = ss.generate_state(2, numpy.uint32)
            self._key = int(w[0]) | int(w[1]) << 32
        self._counter = int(counter)

    @property
    def seed_seq(self):
        return self._seed_seq

    @property
    def state(self):
        return {"bit_generator": "Philox4x3210", "state": {"key": self._key, "counter": self._counter}}

    @state.setter
    def state(self, value):
        if value.get("bit_generator") != "Philox4x3210":
            raise ValueError("state must be for a Philox4x3210 bit generator")
        self._key = int(value["state"]["key"]) & _M64
        self._counter = int(value["state"]["counter"])

    def spawn(self, n_children):
        if self._seed_seq is None:
            raise TypeError("spawn needs a bit generator seeded through a SeedSequence")
        return [Philox(child) for child in self._seed_seq.spawn(n_children)]

    def _next_key(self):
        # Block (call, 0, 0, 2^32 - 1): the last word keeps it apart from every element
        # stream (whose last word is 0).
        c = self._counter
        w = _philox((c & _M32, c >> 32 & _M32, 0, _M32), (self._key & _M32, self._key >> 32))
        self._counter += 1
        return w[0] | w[1] << 32

    def random_raw(self, size=None, output=True):
        a = _gpupy._integers(list(shape_of(size)), numpy.uint64, self._next_key(), 0, _M64)
        return a if output else None


__all__ = ["SeedSequence", "BitGenerator", "PCG64", "Philox"]
