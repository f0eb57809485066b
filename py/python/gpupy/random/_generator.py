"""``Generator``: NumPy's random API on the GPU.

Which draws match NumPy bit for bit: with ``PCG64`` (the default), ``random`` (float64
and float32), ``uniform`` in float64 with scalar bounds (NumPy's ``low + (high - low) *
random()``) and ``bit_generator.random_raw``; the generator's state after them equals
NumPy's. Every other draw takes one 64-bit key from the bit generator and draws from
Philox4x32-10 streams, one per element: exact in distribution, deterministic for a seed
on any GPU and launch shape, but not NumPy's numbers.
"""

import operator

import numpy

from gpupy import _creation, _gpupy, _indexing, _manipulation, _scan, _sorting
from gpupy._gpupy import ndarray
from gpupy.random._bit_generator import BitGenerator, PCG64
from gpupy.random._composed import Composed
from gpupy.random._params import (
    check, float_dtype, into, negative_or_nan, out_shape, prepare, shape_of, spread,
)

_F64 = numpy.dtype(numpy.float64)
_M64 = (1 << 64) - 1
# NumPy's POISSON_LAM_MAX: int64's max less ten standard deviations.
_POISSON_LAM_MAX = float(numpy.iinfo(numpy.int64).max - numpy.sqrt(numpy.iinfo(numpy.int64).max) * 10)


def _positive(x):
    return x <= 0


def _negative(x):
    return x < 0


def _out_shape(size, out):
    if out is not None and size is None:
        return tuple(out.shape)
    return shape_of(size)


class Generator(Composed):
    """A random number generator on the GPU over a bit generator (``PCG64`` by default,
    or ``Philox``); NumPy's ``numpy.random.Generator`` methods and signatures, with CuPy's
    ``dtype=`` on the real-valued ones. The distributions composed of the kernel-backed
    ones here (``standard_t``, ``vonmises``, ``hypergeometric``, ...) are ``Composed``'s."""

    def __init__(self, bit_generator):
        if isinstance(bit_generator, numpy.random.PCG64):
            bit_generator = PCG64(bit_generator)
        if not isinstance(bit_generator, BitGenerator):
            raise TypeError(
                "Generator takes a gpupy.random bit generator (PCG64 or Philox), "
                f"not {type(bit_generator).__name__}"
            )
        self._bit_generator = bit_generator

    def __repr__(self):
        return f"Generator({type(self._bit_generator).__name__}) at 0x{id(self):X}"

    @property
    def bit_generator(self):
        return self._bit_generator

    def spawn(self, n_children):
        """``n_children`` independent generators (NumPy's ``spawn``, through the
        ``SeedSequence``)."""
        return [Generator(bg) for bg in self._bit_generator.spawn(n_children)]

    def _key(self):
        return self._bit_generator._next_key()

    def _draw(self, kind, size, dtype, *params):
        shape, args = prepare(size, *params)
        return _gpupy._continuous(list(shape), dtype, kind, self._key(), args)

    def _draw_int(self, kind, size, *params):
        shape, args = prepare(size, *params)
        return _gpupy._discrete(list(shape), kind, self._key(), args)

    # Uniform floats and integers.

    def random(self, size=None, dtype=numpy.float64, out=None):
        """Floats in [0, 1): NumPy's exact values with PCG64."""
        d = float_dtype(dtype, "random")
        shape = _out_shape(size, out)
        bg = self._bit_generator
        if isinstance(bg, PCG64):
            r = bg._fill(shape, "f64") if d == _F64 else bg._fill_f32(shape)
        else:
            r = _gpupy._continuous(list(shape), d, "uniform", self._key(), [0.0, 1.0])
        return into(r, out)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=numpy.float64):
        """``low + (high - low) * random()``, as NumPy computes it."""
        d = float_dtype(dtype, "uniform")
        shape, (lo, hi) = prepare(size, low, high)
        span = hi - lo
        if not isinstance(span, ndarray) and not numpy.isfinite(span):
            raise OverflowError("high - low range exceeds valid bounds")
        r = lo + span * self.random(shape, dtype=d)
        return r.astype(d, copy=False)

    def integers(self, low, high=None, size=None, dtype=numpy.int64, endpoint=False):
        """Integers in ``[low, high)`` (``[low, high]`` with ``endpoint``), unbiased
        (Lemire's method)."""
        d = numpy.dtype(dtype)
        if d.kind not in "biu":
            raise TypeError(f"Unsupported dtype {d!r} for integers")
        if high is None:
            low, high = 0, low
        info = (0, 1) if d.kind == "b" else (int(numpy.iinfo(d).min), int(numpy.iinfo(d).max))
        order = "low > high" if endpoint else "low >= high"
        last = 0 if endpoint else 1
        if numpy.ndim(low) == 0 and numpy.ndim(high) == 0 and not isinstance(low, ndarray) and not isinstance(high, ndarray):
            lo, hi = operator.index(low), operator.index(high) - last
            if lo < info[0]:
                raise ValueError(f"low is out of bounds for {d}")
            if hi > info[1]:
                raise ValueError(f"high is out of bounds for {d}")
            if lo > hi:
                raise ValueError(order)
            shape = shape_of(size)
            return _gpupy._integers(list(shape), d, self._key(), lo & _M64, hi - lo)
        signed = numpy.int64 if info[0] < 0 or d.kind == "b" else numpy.uint64
        lo = _creation.asarray(low, dtype=signed)
        hi = _creation.asarray(high, dtype=signed) - last
        shape = out_shape(size, lo.shape, hi.shape)
        check(lo, lambda x: x < info[0], f"low is out of bounds for {d}")
        check(hi, lambda x: x > info[1], f"high is out of bounds for {d}")
        check(lo > hi, lambda x: x, order)
        lo, hi = spread(lo, shape), spread(hi, shape)
        lo_bits = lo.astype(numpy.uint64)
        span = hi.astype(numpy.uint64) - lo_bits  # wraps exactly: lo <= hi
        return _gpupy._integers(list(shape), d, self._key(), lo_bits, span)

    def bytes(self, length):
        """``length`` random bytes (NumPy's: the bytes of uint32 integers)."""
        n = (length - 1) // 4 + 1
        words = self.integers(0, 1 << 32, size=n, dtype=numpy.uint32)
        return words.get().astype("<u4").tobytes()[:length]

    # Continuous distributions.

    def standard_normal(self, size=None, dtype=numpy.float64, out=None):
        d = float_dtype(dtype, "standard_normal")
        return into(self._draw("normal", _out_shape(size, out), d, 0.0, 1.0), out)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=numpy.float64):
        check(scale, _negative, "scale < 0")
        return self._draw("normal", size, float_dtype(dtype, "normal"), loc, scale)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, dtype=numpy.float64):
        check(sigma, _negative, "sigma < 0")
        return self._draw("lognormal", size, float_dtype(dtype, "lognormal"), mean, sigma)

    def standard_exponential(self, size=None, dtype=numpy.float64, method="zig", out=None):
        d = float_dtype(dtype, "standard_exponential")
        return into(self._draw("exponential", _out_shape(size, out), d, 1.0), out)

    def exponential(self, scale=1.0, size=None, dtype=numpy.float64):
        check(scale, _negative, "scale < 0")
        return self._draw("exponential", size, float_dtype(dtype, "exponential"), scale)

    def standard_gamma(self, shape, size=None, dtype=numpy.float64, out=None):
        d = float_dtype(dtype, "standard_gamma")
        check(shape, _negative, "shape < 0")
        if out is not None and size is None:
            size = out.shape
        return into(self._draw("gamma", size, d, shape, 1.0), out)

    def gamma(self, shape, scale=1.0, size=None, dtype=numpy.float64):
        check(shape, _negative, "shape < 0")
        check(scale, _negative, "scale < 0")
        return self._draw("gamma", size, float_dtype(dtype, "gamma"), shape, scale)

    def chisquare(self, df, size=None, dtype=numpy.float64):
        """``2 * standard_gamma(df / 2)``."""
        check(df, _positive, "df <= 0")
        shape, (half,) = prepare(size, df)
        half = half * 0.5
        return _gpupy._continuous(list(shape), float_dtype(dtype, "chisquare"), "gamma", self._key(), [half, 2.0])

    def beta(self, a, b, size=None, dtype=numpy.float64):
        check(a, _positive, "a <= 0")
        check(b, _positive, "b <= 0")
        return self._draw("beta", size, float_dtype(dtype, "beta"), a, b)

    def laplace(self, loc=0.0, scale=1.0, size=None, dtype=numpy.float64):
        check(scale, _negative, "scale < 0")
        return self._draw("laplace", size, float_dtype(dtype, "laplace"), loc, scale)

    def logistic(self, loc=0.0, scale=1.0, size=None, dtype=numpy.float64):
        check(scale, _negative, "scale < 0")
        return self._draw("logistic", size, float_dtype(dtype, "logistic"), loc, scale)

    def gumbel(self, loc=0.0, scale=1.0, size=None, dtype=numpy.float64):
        check(scale, _negative, "scale < 0")
        return self._draw("gumbel", size, float_dtype(dtype, "gumbel"), loc, scale)

    # Discrete distributions (int64).

    def poisson(self, lam=1.0, size=None):
        check(lam, negative_or_nan, "lam < 0 or lam is NaN")
        check(lam, lambda x: x > _POISSON_LAM_MAX, "lam value too large")
        return self._draw_int("poisson", size, lam)

    def binomial(self, n, p, size=None):
        n = _creation.asarray(n, dtype=numpy.int64) if isinstance(n, ndarray) or numpy.ndim(n) else int(n)
        check(n, _negative, "n < 0")
        check(p, lambda x: (x < 0) | (x > 1) | (x != x), "p < 0, p > 1 or p is NaN")
        return self._draw_int("binomial", size, n, p)

    def geometric(self, p, size=None):
        check(p, lambda x: (x <= 0) | (x > 1) | (x != x), "p <= 0, p > 1 or p contains NaNs")
        return self._draw_int("geometric", size, p)

    # Permutations and sampling.

    def _order(self, shape):
        """Indices that sort uniform 64-bit keys: a uniformly random permutation along
        the last axis (ties, of probability n^2 / 2^65, keep index order)."""
        keys = _gpupy._integers(list(shape), numpy.uint64, self._key(), 0, _M64)
        return _sorting.argsort(keys, axis=-1)

    def permutation(self, x, axis=0):
        """A permuted ``arange(x)`` for an int, else a shuffled copy of ``x`` along ``axis``."""
        if not isinstance(x, ndarray) and numpy.ndim(x) == 0:
            return self._order((operator.index(x),))
        a = _creation.asarray(x)
        if a.ndim == 0:
            raise numpy.exceptions.AxisError(axis, 0)
        return _indexing.take(a, self._order((a.shape[axis],)), axis=axis)

    def shuffle(self, x, axis=0):
        """Shuffles the gpupy array ``x`` in place along ``axis``."""
        if not isinstance(x, ndarray):
            raise TypeError("shuffle takes a gpupy.ndarray")
        if x.ndim == 0:
            raise numpy.exceptions.AxisError(axis, 0)
        x[...] = _indexing.take(x, self._order((x.shape[axis],)), axis=axis)

    def permuted(self, x, axis=None, out=None):
        """``x`` with each slice along ``axis`` shuffled independently (the flattened
        array when ``axis`` is None)."""
        a = _creation.asarray(x)
        if axis is None:
            r = _indexing.take(a.reshape(-1), self._order((a.size,))).reshape(a.shape)
        else:
            axis = numpy.lib.array_utils.normalize_axis_index(axis, a.ndim)
            moved = _manipulation.moveaxis(a, axis, -1)
            rows = moved.reshape(-1, moved.shape[-1]) if moved.size else moved.reshape(0, moved.shape[-1])
            idx = self._order(rows.shape)
            picked = rows[_creation.asarray(numpy.arange(rows.shape[0])[:, None]), idx]
            r = _manipulation.moveaxis(picked.reshape(moved.shape), -1, axis)
        if out is None:
            return r
        out[...] = r
        return out

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """NumPy's ``choice``: with replacement by inversion of ``p``'s CDF, without it
        by the smallest of random keys (exponential / p for weights, Efraimidis and
        Spirakis, the same law as NumPy's successive draws)."""
        if not isinstance(a, ndarray) and numpy.ndim(a) == 0:
            pop, arr = operator.index(a), None
        else:
            arr = _creation.asarray(a)
            if arr.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not <class 'gpupy.ndarray'>")
            axis = numpy.lib.array_utils.normalize_axis_index(axis, arr.ndim)
            pop = arr.shape[axis]
        shape = shape_of(size)
        k = int(numpy.prod(shape, dtype=numpy.int64))
        if pop <= 0 and k > 0:
            raise ValueError(
                "a must be a positive integer unless no samples are taken" if arr is None
                else "a cannot be empty unless no samples are taken"
            )
        if p is not None:
            ph = p.get() if isinstance(p, ndarray) else numpy.asarray(p, dtype=numpy.float64)
            ph = ph.astype(numpy.float64)
            if ph.ndim != 1:
                raise ValueError("p must be 1-dimensional")
            if ph.size != pop:
                raise ValueError("a and p must have same size")
            if numpy.any(ph < 0) or numpy.any(numpy.isnan(ph)):
                raise ValueError("Probabilities are not non-negative")
            if abs(ph.sum() - 1.0) > numpy.sqrt(numpy.finfo(numpy.float64).eps):
                raise ValueError(
                    "Probabilities do not sum to 1. See Notes section of docstring for more information."
                )
        if replace:
            if p is None:
                idx = self.integers(0, max(pop, 1), size=shape) if k else _creation.empty(shape, numpy.int64)
            else:
                cdf = _scan.cumsum(_creation.asarray(ph))
                cdf = cdf / cdf[-1].copy()  # a copy: the divisor is not read while written
                u = self.random(shape)
                idx = _sorting.searchsorted(cdf, u, side="right")
        else:
            if k > pop:
                raise ValueError("Cannot take a larger sample than population when replace is False")
            if p is None:
                idx = self._order((pop,))[:k].reshape(shape)
            else:
                if numpy.count_nonzero(ph) < k:
                    raise ValueError("Fewer non-zero entries in p than size")
                e = self._draw("exponential", (pop,), _F64, 1.0)
                with numpy.errstate(divide="ignore"):
                    keys = e / _creation.asarray(ph)
                idx = _sorting.argsort(keys)[:k].reshape(shape)
        if arr is None:
            return idx
        return _indexing.take(arr, idx, axis=axis)


def default_rng(seed=None):
    """A ``Generator`` over ``PCG64(seed)`` (a Generator is returned as is; a bit
    generator is wrapped)."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, (BitGenerator, numpy.random.PCG64)):
        return Generator(seed)
    return Generator(PCG64(seed))


__all__ = ["Generator", "default_rng"]
