"""NumPy's distributions that gpupy composes of its kernel-backed draws (uniform,
normal, exponential, gamma, beta, Poisson, bounded integers), as ``Generator``'s base
class ``Composed``.

Each follows NumPy's algorithm (``numpy/random/src/distributions/distributions.c`` and
``random_hypergeometric.c``) as array arithmetic on the GPU; the laws are NumPy's, the
numbers are not (the draws beneath are gpupy's Philox streams). Where NumPy's algorithm
is a rejection loop (``vonmises``, ``zipf``, ``logseries``, ``hypergeometric``'s HRUA),
every round draws candidates for all the elements still pending and keeps the accepted
ones; the loop ends when none is pending (``_until_accepted``). Parameters are checked
as NumPy checks them, with NumPy's messages (its scalar-parameter wording).

The real-valued ones compute in float64 and take CuPy's ``dtype=`` (float64 or float32)
for the result; the integer ones return int64, as NumPy's ``Generator``.
"""

import math
import operator

import numpy

from gpupy import _creation, _gpupy, _indexing, _manipulation, _math, _reduction, _scan
from gpupy._gpupy import ndarray
from gpupy.random._params import check, float_dtype, out_shape, prepare, shape_of, spread

_F64 = numpy.dtype(numpy.float64)
_I64 = numpy.dtype(numpy.int64)
# NumPy's POISSON_LAM_MAX (also in _generator.py, which imports this module).
_POISSON_LAM_MAX = float(numpy.iinfo(numpy.int64).max - numpy.sqrt(numpy.iinfo(numpy.int64).max) * 10)
# (double)INT64_MAX, which is 2^63: a double at or above it does not fit an int64.
_TWO_63 = 9.223372036854775808e18
_HYPERGEOM_MAX = 10**9
# A rejection loop that has not ended after this many rounds has met parameters for
# which it cannot accept (a bug, not bad luck: the acceptance rates here are >= 1/4).
_MAX_ROUNDS = 10_000
# log(k!) for k < 126, NumPy's logfactorial table (math.lgamma is exact to an ulp).
_LOG_FACTORIAL = numpy.array([math.lgamma(k + 1.0) for k in range(126)])
_HALF_LN_2PI = 0.9189385332046728
# Stadlober's HRUA constants: D1 = 2 sqrt(2/e), D2 = 3 - 2 sqrt(3/e).
_D1, _D2 = 1.7155277699214135, 0.8989161620588988


def _is_array(x):
    return isinstance(x, ndarray)


def _sqrt(x):
    return _math.sqrt(x) if _is_array(x) else math.sqrt(x)


def _any(cond):
    """A host bool: whether the condition (a bool or a bool device array) holds anywhere."""
    if _is_array(cond):
        return cond.size > 0 and bool(_reduction.any(cond))
    return bool(cond)


def _select(cond, x, y):
    """``where(cond, x, y)``, with a host bool ``cond`` answered without a kernel."""
    if _is_array(cond):
        return _indexing.where(cond, x, y)
    return x if cond else y


def _positive(x):
    return x <= 0


def _negative(x):
    return x < 0


def _log_factorial(k):
    """log(k!) of a float64 array of non-negative integers (NumPy's ``logfactorial``:
    the table below 126, Stirling's series to the 1/k^3 term above)."""
    table = _creation.asarray(_LOG_FACTORIAL)
    small = _indexing.take(table, _math.minimum(k, 125.0).astype(numpy.int64))
    kk = _math.maximum(k, 1.0)
    stirling = (kk + 0.5) * _math.log(kk) - kk + (_HALF_LN_2PI + (1.0 / kk) * (1 / 12.0 - 1.0 / (360.0 * kk * kk)))
    return _indexing.where(k < 126.0, small, stirling)


def _flat(p):
    return p.reshape(-1) if _is_array(p) else p


class Composed:
    """The distributions of NumPy's ``Generator`` that are compositions of gpupy's
    kernel-backed draws. ``Generator`` provides ``_key`` and ``_draw``/``_draw_int``."""

    # Base draws in float64, unchecked (the public methods check first).

    def _uniform01(self, shape):
        return _gpupy._continuous(list(shape), _F64, "uniform", self._key(), [0.0, 1.0])

    def _normal01(self, shape):
        return _gpupy._continuous(list(shape), _F64, "normal", self._key(), [0.0, 1.0])

    def _exponential1(self, shape):
        return _gpupy._continuous(list(shape), _F64, "exponential", self._key(), [1.0])

    def _chisquare(self, shape, df):
        """``2 * standard_gamma(df / 2)`` (``df`` a float or a float64 array)."""
        return self._draw("gamma", shape, _F64, df * 0.5, 2.0)

    def _until_accepted(self, shape, params, step):
        """Vectorized rejection: ``step(m, *params_of_the_m_pending)`` returns candidate
        values and a bool mask of the accepted ones for ``m`` pending elements; rounds
        repeat over the rejected ones until none is left. ``params`` are floats or arrays
        of ``shape``. One device-to-host read (the pending count) per round."""
        n = int(numpy.prod(shape, dtype=numpy.int64))
        flat = [_flat(p) for p in params]
        values, ok = step(n, *flat)
        if n == 0:
            return values.reshape(shape)
        out = values
        pending = _indexing.flatnonzero(~ok)
        rounds = 1
        while pending.size:
            if rounds >= _MAX_ROUNDS:
                raise RuntimeError("a rejection sampler accepted nothing in 10000 rounds")
            sub = [p[pending] if _is_array(p) else p for p in flat]
            values, ok = step(pending.size, *sub)
            out[pending[ok]] = values[ok]
            pending = pending[~ok]
            rounds += 1
        return out.reshape(shape)

    # Continuous distributions.

    def standard_cauchy(self, size=None, dtype=numpy.float64):
        """The ratio of two standard normals (NumPy's method)."""
        d = float_dtype(dtype, "standard_cauchy")
        shape = shape_of(size)
        return (self._normal01(shape) / self._normal01(shape)).astype(d, copy=False)

    def standard_t(self, df, size=None, dtype=numpy.float64):
        """``sqrt(df / 2) * N / sqrt(standard_gamma(df / 2))`` (NumPy's method)."""
        d = float_dtype(dtype, "standard_t")
        shape, (df,) = prepare(size, df)
        check(df, _positive, "df <= 0")
        num = self._normal01(shape)
        denom = self._draw("gamma", shape, _F64, df * 0.5, 1.0)
        return (_sqrt(df * 0.5) * num / _math.sqrt(denom)).astype(d, copy=False)

    def f(self, dfnum, dfden, size=None, dtype=numpy.float64):
        """``(chisquare(dfnum) / dfnum) / (chisquare(dfden) / dfden)``."""
        d = float_dtype(dtype, "f")
        shape, (dfnum, dfden) = prepare(size, dfnum, dfden)
        check(dfnum, _positive, "dfnum <= 0")
        check(dfden, _positive, "dfden <= 0")
        num = self._chisquare(shape, dfnum) * dfden
        return (num / (self._chisquare(shape, dfden) * dfnum)).astype(d, copy=False)

    def _noncentral_chisquare(self, shape, df, nonc):
        """NumPy's method: NaN for a NaN ``nonc``; ``chisquare(df - 1) + (N +
        sqrt(nonc))^2`` for ``df > 1``; else ``chisquare(df + 2 Poisson(nonc / 2))``
        (which is ``chisquare(df)`` when ``nonc`` is 0)."""
        if not _is_array(df) and not _is_array(nonc):
            if nonc != nonc:
                return _creation.full(shape, numpy.nan)
            if df > 1 and nonc != 0:
                z = self._normal01(shape) + math.sqrt(nonc)
                return self._chisquare(shape, df - 1) + z * z
            i = self._draw_int("poisson", shape, nonc * 0.5) if nonc else 0
            return self._chisquare(shape, df + 2.0 * i)
        nan = nonc != nonc
        nonc0 = _select(nan, 0.0, nonc)
        normal_way = (df > 1) & (nonc0 != 0)
        z = self._normal01(shape) + _sqrt(nonc0)
        by_normal = self._chisquare(shape, _select(df > 1, df - 1, df)) + z * z
        i = self._draw_int("poisson", shape, _select(normal_way, 0.0, nonc0 * 0.5))
        by_poisson = self._chisquare(shape, df + 2.0 * i)
        return _indexing.where(nan, numpy.nan, _indexing.where(normal_way, by_normal, by_poisson))

    def noncentral_chisquare(self, df, nonc, size=None, dtype=numpy.float64):
        d = float_dtype(dtype, "noncentral_chisquare")
        shape, (df, nonc) = prepare(size, df, nonc)
        check(df, _positive, "df <= 0")
        check(nonc, _negative, "nonc < 0")
        return self._noncentral_chisquare(shape, df, nonc).astype(d, copy=False)

    def noncentral_f(self, dfnum, dfden, nonc, size=None, dtype=numpy.float64):
        """``(noncentral_chisquare(dfnum, nonc) / dfnum) / (chisquare(dfden) / dfden)``."""
        d = float_dtype(dtype, "noncentral_f")
        shape, (dfnum, dfden, nonc) = prepare(size, dfnum, dfden, nonc)
        check(dfnum, _positive, "dfnum <= 0")
        check(dfden, _positive, "dfden <= 0")
        check(nonc, _negative, "nonc < 0")
        t = self._noncentral_chisquare(shape, dfnum, nonc) * dfden
        return (t / (self._chisquare(shape, dfden) * dfnum)).astype(d, copy=False)

    def pareto(self, a, size=None, dtype=numpy.float64):
        """Pareto II (Lomax): ``expm1(standard_exponential / a)``."""
        d = float_dtype(dtype, "pareto")
        shape, (a,) = prepare(size, a)
        check(a, _positive, "a <= 0")
        return _math.expm1(self._exponential1(shape) / a).astype(d, copy=False)

    def weibull(self, a, size=None, dtype=numpy.float64):
        """``standard_exponential ** (1 / a)``, and 0 where ``a`` is 0."""
        d = float_dtype(dtype, "weibull")
        shape, (a,) = prepare(size, a)
        check(a, _negative, "a < 0")
        if not _is_array(a) and a == 0:
            return _creation.zeros(shape, d)
        a1 = _select(a == 0, 1.0, a)
        x = self._exponential1(shape) ** (1.0 / a1)
        return _select(a == 0, 0.0, x).astype(d, copy=False)

    def power(self, a, size=None, dtype=numpy.float64):
        """``(1 - exp(-standard_exponential)) ** (1 / a)``: the power law on [0, 1]."""
        d = float_dtype(dtype, "power")
        shape, (a,) = prepare(size, a)
        check(a, _positive, "a <= 0")
        u = -_math.expm1(-self._exponential1(shape))
        return (u ** (1.0 / a)).astype(d, copy=False)

    def rayleigh(self, scale=1.0, size=None, dtype=numpy.float64):
        """``scale * sqrt(2 * standard_exponential)``."""
        d = float_dtype(dtype, "rayleigh")
        shape, (scale,) = prepare(size, scale)
        check(scale, _negative, "scale < 0")
        return (scale * _math.sqrt(2.0 * self._exponential1(shape))).astype(d, copy=False)

    def wald(self, mean, scale, size=None, dtype=numpy.float64):
        """The inverse Gaussian by Michael, Schucany and Haas's transformation (NumPy's
        method)."""
        d = float_dtype(dtype, "wald")
        shape, (mean, scale) = prepare(size, mean, scale)
        check(mean, _positive, "mean <= 0")
        check(scale, _positive, "scale <= 0")
        y = self._normal01(shape)
        y = mean * y * y
        root = 1.0 + _math.sqrt(1.0 + 4.0 * scale / y)
        x = mean * (1.0 - 2.0 / root)
        u = self._uniform01(shape)
        return _indexing.where(u <= mean / (mean + x), x, mean * mean / x).astype(d, copy=False)

    def triangular(self, left, mode, right, size=None, dtype=numpy.float64):
        """The inverse of the triangular CDF at a uniform (NumPy's method)."""
        d = float_dtype(dtype, "triangular")
        shape, (left, mode, right) = prepare(size, left, mode, right)
        if _any(left > mode):
            raise ValueError("left > mode")
        if _any(mode > right):
            raise ValueError("mode > right")
        if _any(left == right):
            raise ValueError("left == right")
        base = right - left
        leftbase = mode - left
        ratio = leftbase / base
        u = self._uniform01(shape)
        low = left + _math.sqrt(u * (leftbase * base))
        high = right - _math.sqrt((1.0 - u) * ((right - mode) * base))
        return _indexing.where(u <= ratio, low, high).astype(d, copy=False)

    def vonmises(self, mu, kappa, size=None, dtype=numpy.float64):
        """The von Mises law on [-pi, pi]: Best and Fisher's rejection for 1e-8 <= kappa
        <= 1e6, a uniform angle below, a wrapped normal above (NumPy's method)."""
        d = float_dtype(dtype, "vonmises")
        shape, (mu, kappa) = prepare(size, mu, kappa)
        check(kappa, _negative, "kappa < 0")
        return self._vonmises(shape, mu, kappa).astype(d, copy=False)

    def _vonmises(self, shape, mu, kappa):
        nan = kappa != kappa
        tiny = kappa < 1e-8
        huge = kappa > 1e6
        rejecting = ~(nan | tiny | huge) if _is_array(kappa) else not (nan or tiny or huge)
        if _is_array(kappa) or rejecting:
            kap = _select(rejecting, kappa, 1.0)  # the other paths' elements: a stand-in
            if _is_array(kap):
                r = 1.0 + _math.sqrt(1.0 + 4.0 * kap * kap)
                rho = (r - _math.sqrt(2.0 * r)) / (2.0 * kap)
                s = _indexing.where(kap < 1e-5, 1.0 / kap + kap, (1.0 + rho * rho) / (2.0 * rho))
            elif kap < 1e-5:
                s = 1.0 / kap + kap
            else:
                r = 1.0 + math.sqrt(1.0 + 4.0 * kap * kap)
                rho = (r - math.sqrt(2.0 * r)) / (2.0 * kap)
                s = (1.0 + rho * rho) / (2.0 * rho)

            def step(m, kap, s):
                z = _math.cos(math.pi * self._uniform01((m,)))
                w = (1.0 + s * z) / (s + z)
                y = kap * (s - w)
                v = self._uniform01((m,))
                # V == 0 is fine: Y >= 0 then accepts by the first test, Y < 0 rejects.
                ok = (y * (2.0 - y) - v >= 0) | (_math.log(y / v) + 1.0 - y >= 0)
                return w, ok

            w = self._until_accepted(shape, [kap, s], step)
            angle = _math.arccos(w)
            angle = _indexing.where(self._uniform01(shape) < 0.5, -angle, angle) + mu
            neg = angle < 0
            folded = _math.fmod(_math.fabs(angle) + math.pi, 2.0 * math.pi) - math.pi
            result = _indexing.where(neg, -folded, folded)
        else:
            result = None
        if _any(tiny):
            uniform = math.pi * (2.0 * self._uniform01(shape) - 1.0)
            result = _select(tiny, uniform, result)
        if _any(huge):
            wrapped = mu + _sqrt(1.0 / _select(huge, kappa, 1.0)) * self._normal01(shape)
            wrapped = _indexing.where(wrapped < -math.pi, wrapped + 2.0 * math.pi, wrapped)
            wrapped = _indexing.where(wrapped > math.pi, wrapped - 2.0 * math.pi, wrapped)
            result = _select(huge, wrapped, result)
        if _any(nan):
            result = _select(nan, _creation.full(shape, numpy.nan), result)
        return result

    def dirichlet(self, alpha, size=None):
        """Normalized gammas; when every ``alpha`` is below 0.1, stick-breaking with
        betas instead (NumPy's two methods: normalizing gammas that all underflow to 0
        would give 0/0). ``alpha`` is a short 1-d vector, read on the host as NumPy does."""
        a = numpy.asarray(alpha.get() if _is_array(alpha) else alpha, dtype=numpy.float64)
        if a.ndim != 1:
            raise ValueError(f"object {'too deep' if a.ndim > 1 else 'of too small depth'} for desired array")
        if numpy.any(a < 0):
            raise ValueError("alpha < 0")
        k = a.shape[0]
        if size is None:
            shape = (k,)
        else:
            try:
                shape = (operator.index(size), k)
            except TypeError:
                shape = tuple(size) + (k,)
        n = int(numpy.prod(shape, dtype=numpy.int64))
        if k == 0 or n == 0:
            return _creation.zeros(shape)
        if a.max() < 0.1:
            csum = numpy.cumsum(a[::-1])[::-1]
            if csum[0] == 0:
                return _creation.zeros(shape)
            if k == 1:
                return _creation.ones(shape)
            # Component j takes v_j of what components 0..j-1 left, v_j ~ beta(alpha_j,
            # sum(alpha_{j+1:})); a zero sum after j makes v_j 1 (the rest stay 0) and a
            # zero alpha_j makes v_j 0, as in NumPy's loop.
            ba, bb = a[:-1], csum[1:]
            bshape = shape[:-1] + (k - 1,)
            v = self._draw("beta", bshape, _F64, _creation.asarray(numpy.where(ba > 0, ba, 1.0)),
                           _creation.asarray(numpy.where(bb > 0, bb, 1.0)))
            v = _indexing.where(_creation.asarray(bb == 0), 1.0, _indexing.where(_creation.asarray(ba == 0), 0.0, v))
            left = _scan.cumprod(1.0 - v, axis=-1)
            before = _manipulation.concatenate([_creation.ones(shape[:-1] + (1,)), left[..., :-1]], axis=-1)
            return _manipulation.concatenate([v * before, left[..., -1:]], axis=-1)
        g = self._draw("gamma", shape, _F64, _creation.asarray(a), 1.0)
        return g / _reduction.sum(g, axis=-1, keepdims=True)

    # Discrete distributions (int64).

    def negative_binomial(self, n, p, size=None):
        """``poisson(gamma(n, (1 - p) / p))`` (NumPy's method)."""
        shape, (n, p) = prepare(size, n, p)
        check(n, lambda x: x != x, "n must not be NaN")
        check(n, _positive, "n <= 0")
        check(p, lambda x: ~((x > 0) & (x <= 1)) if _is_array(x) else not (0 < x <= 1),
              "p <= 0, p > 1 or p contains NaNs")
        if _any((1 - p) / p * (n + 10 * _sqrt(n)) > _POISSON_LAM_MAX):
            raise ValueError("n too large or p too small, see Generator.negative_binomial Notes")
        return self._negative_binomial(shape, n, p)

    def _negative_binomial(self, shape, n, p):
        y = self._draw("gamma", shape, _F64, n, (1 - p) / p)
        return self._draw_int("poisson", shape, y)

    def zipf(self, a, size=None):
        """NumPy's rejection method (Devroye), truncated to int64 as NumPy's: 1 for
        ``a >= 1025``, where anything above 1 has probability below 3e-309."""
        shape, (a,) = prepare(size, a)
        check(a, lambda x: ~(x > 1) if _is_array(x) else not x > 1, "a <= 1 or a is NaN")
        if not _is_array(a) and a >= 1025:
            return _creation.ones(shape, _I64)
        big = a >= 1025
        am1 = _select(big, 1.0, a - 1.0)
        b = 2.0 ** am1
        umin = _TWO_63 ** (-am1)

        def step(m, am1, b, umin):
            u01 = self._uniform01((m,))
            u = u01 * umin + (1.0 - u01)  # in (umin, 1]
            v = self._uniform01((m,))
            x = _math.floor(u ** (-1.0 / am1))
            t = (1.0 + 1.0 / x) ** am1
            ok = (x < _TWO_63) & (x >= 1.0) & (v * x * (t - 1.0) / (b - 1.0) <= t / b)
            return _indexing.where(ok, x, 1.0).astype(numpy.int64), ok

        x = self._until_accepted(shape, [am1, b, umin], step)
        return _select(big, 1, x).astype(numpy.int64, copy=False) if _is_array(big) else x

    def logseries(self, p, size=None):
        """NumPy's method (Kemp's second accelerated generator, with a rejection of the
        rare out-of-range candidate)."""
        shape, (p,) = prepare(size, p)
        check(p, lambda x: ~((x >= 0) & (x < 1)) if _is_array(x) else not (0 <= x < 1),
              "p < 0, p >= 1 or p is NaN")
        r = _math.log1p(-p) if _is_array(p) else math.log1p(-p)

        def step(m, p, r):
            v = self._uniform01((m,))
            u = self._uniform01((m,))
            q = -_math.expm1(r * u)
            by_log = _math.floor(1.0 + _math.log(v) / _math.log(q))
            tail = v <= q * q
            value = _indexing.where(v >= p, 1.0, _indexing.where(tail, by_log, _indexing.where(v >= q, 1.0, 2.0)))
            ok = (v >= p) | ~tail | ((by_log >= 1.0) & (v != 0.0))
            value = _indexing.where(ok, value, 1.0)  # rejected candidates may be inf
            return value.astype(numpy.int64), ok

        return self._until_accepted(shape, [p, r], step)

    def hypergeometric(self, ngood, nbad, nsample, size=None):
        """NumPy's two methods: Stadlober's ratio-of-uniforms (HRUA) when 10 <= nsample
        <= ngood + nbad - 10, else drawing the (at most 9) items one by one."""
        good, bad, sample, shape = self._hypergeometric_params(size, ngood, nbad, nsample)
        if _any((good >= _HYPERGEOM_MAX) | (bad >= _HYPERGEOM_MAX)):
            raise ValueError(f"both ngood and nbad must be less than {_HYPERGEOM_MAX}")
        if _any(good + bad < sample):
            raise ValueError("ngood + nbad < nsample")
        for x, name in [(good, "ngood"), (bad, "nbad"), (sample, "nsample")]:
            if _any(x < 0):
                raise ValueError(f"{name} < 0")
        return self._hypergeometric(shape, good, bad, sample)

    @staticmethod
    def _hypergeometric_params(size, *params):
        """The parameters as int64 device arrays of the output's shape."""
        arrays = [_creation.asarray(p if _is_array(p) else numpy.asarray(p), dtype=numpy.int64) for p in params]
        shape = out_shape(size, *[x.shape for x in arrays])
        return [spread(x, shape).reshape(shape) for x in arrays] + [shape]  # spread makes 0-d 1-d

    def _hypergeometric(self, shape, good, bad, sample):
        total = good + bad
        hrua = (sample >= 10) & (sample <= total - 10)
        result = self._hypergeometric_by_items(good, bad, sample, ~hrua)
        picked = _indexing.flatnonzero(hrua)
        if picked.size:
            flat = [x.reshape(-1)[picked].astype(numpy.float64) for x in (good, bad, sample)]
            k = self._hypergeometric_hrua(*flat)
            result = result.reshape(-1)
            result[picked] = k
            result = result.reshape(shape)
        return result

    def _hypergeometric_by_items(self, good, bad, sample, active):
        """Items drawn one at a time from the smaller of the sample and its complement
        (NumPy's ``hypergeometric_sample``), for the ``active`` elements: all of them
        have fewer than 10 such items, so at most 9 rounds (the most any element has)."""
        shape = good.shape
        total = good + bad
        flip = sample > total // 2
        left = _indexing.where(active, _indexing.where(flip, total - sample, sample), 0)
        total_left, good_left = total, good
        rounds = int(_reduction.max(left)) if left.size else 0
        for _ in range(rounds):
            going = (left > 0) & (good_left > 0) & (total_left > good_left)
            total_next = total_left - 1
            span = spread(_math.maximum(total_next, 0).astype(numpy.uint64), shape)
            item = _gpupy._integers(list(shape), numpy.int64, self._key(), 0, span)
            good_left = _indexing.where(going & (item < good_left), good_left - 1, good_left)
            total_left = _indexing.where(going, total_next, total_left)
            left = _indexing.where(going, left - 1, left)
        good_left = _indexing.where(total_left == good_left, good_left - left, good_left)
        return _indexing.where(flip, good_left, good - good_left)

    def _hypergeometric_hrua(self, good, bad, sample):
        """Stadlober's HRUA on 1-d float64 parameter arrays (NumPy's
        ``hypergeometric_hrua``), vectorized as a rejection loop."""
        popsize = good + bad
        cs = _math.minimum(sample, popsize - sample)
        mingb = _math.minimum(good, bad)
        maxgb = _math.maximum(good, bad)
        p = mingb / popsize
        q = maxgb / popsize
        a = cs * p + 0.5
        var = (popsize - cs) * cs * p * q / (popsize - 1.0)
        c = _math.sqrt(var + 0.5)
        h = _D1 * c + _D2
        m = _math.floor((cs + 1.0) * (mingb + 1.0) / (popsize + 2.0))
        g = _log_factorial(m) + _log_factorial(mingb - m) + _log_factorial(cs - m) + _log_factorial(maxgb - cs + m)
        b = _math.minimum(_math.minimum(cs, mingb) + 1.0, _math.floor(a + 16.0 * c))

        def step(n, a, h, b, g, mingb, cs, maxgb):
            u = self._uniform01((n,))
            v = self._uniform01((n,))
            x = a + h * (v - 0.5) / u
            inside = (x >= 0.0) & (x < b)  # False for a NaN x too
            k = _math.floor(_indexing.where(inside, x, 0.0))
            gp = _log_factorial(k) + _log_factorial(mingb - k) + _log_factorial(cs - k) + _log_factorial(maxgb - cs + k)
            t = g - gp
            ok = inside & ((u * (4.0 - u) - 3.0 <= t) | ((u * (u - t) < 1.0) & (2.0 * _math.log(u) <= t)))
            return k, ok

        k = self._until_accepted((good.shape[0],), [a, h, b, g, mingb, cs, maxgb], step)
        k = _indexing.where(good > bad, cs - k, k)
        k = _indexing.where(cs < sample, good - k, k)
        return k.astype(numpy.int64)



__all__ = ["Composed"]
