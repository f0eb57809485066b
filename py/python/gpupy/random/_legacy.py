"""NumPy's legacy API (``RandomState`` and the module functions ``rand``, ``randn``,
``randint``, ...) with CuPy's ``dtype=`` keyword and ``get_random_state`` /
``set_random_state``.

A ``RandomState`` is a ``Generator`` over ``PCG64(seed)``: deterministic for a seed,
but not NumPy's MT19937 numbers. The module functions use one process-wide state,
seeded from the ``GPUPY_SEED`` environment variable when it is set (CuPy reads
``CUPY_SEED``), else from fresh entropy.

State: NumPy's legacy ``get_state`` returns MT19937's tuple, which no gpupy generator
has. ``get_state`` returns the bit generator's state dict instead (PCG64's is NumPy's
own dict, so it moves to ``numpy.random.PCG64().state``), without NumPy's RuntimeWarning
for a non-MT19937 state (every gpupy state is one); ``set_state`` takes that dict and
refuses NumPy's MT19937 tuple with a ValueError. CuPy has neither function.
``get_bit_generator``/``set_bit_generator`` read and swap the process-wide state's bit
generator, as NumPy's.
"""

import os
import warnings

import numpy

from gpupy import _creation, _manipulation, _reduction
from gpupy._gpupy import ndarray
from gpupy.random._generator import Generator
from gpupy.random._bit_generator import BitGenerator, PCG64
from gpupy.random._params import check, prepare, shape_of


def _size(args):
    """``rand(2, 3)`` and ``rand((2, 3))`` alike; ``rand()`` is 0-d."""
    if len(args) == 1 and not isinstance(args[0], int) and args[0] is not None:
        return tuple(args[0])
    return tuple(args) if args else None


class RandomState:
    """NumPy's legacy generator on the GPU (a ``Generator`` over ``PCG64``, or over the
    gpupy bit generator given as ``seed``, as NumPy's ``RandomState(bit_generator)``)."""

    def __init__(self, seed=None):
        if isinstance(seed, BitGenerator):
            self._gen = Generator(seed)
        else:
            self.seed(seed)

    def seed(self, seed=None):
        """Reseeds (``None``: fresh entropy)."""
        self._gen = Generator(PCG64(seed))

    def get_state(self, legacy=True):
        """The bit generator's state dict (see the module's docstring: never MT19937's
        tuple, so ``legacy`` changes nothing)."""
        return self._gen.bit_generator.state

    def set_state(self, state):
        """Sets the state from a dict ``get_state`` returned (NumPy's checks)."""
        if isinstance(state, dict):
            if "bit_generator" not in state or "state" not in state:
                raise ValueError("state dictionary is not valid.")
        elif isinstance(state, (tuple, list)):
            if len(state) and state[0] == "MT19937":
                raise ValueError(
                    "gpupy's RandomState has no MT19937 state: set_state takes the dict that get_state returns"
                )
            raise ValueError("set_state can only be used with legacy MT19937 state instances.")
        else:
            raise TypeError("state must be a dict or a tuple.")
        self._gen.bit_generator.state = state

    def rand(self, *size, dtype=numpy.float64):
        return self._gen.random(_size(size), dtype=dtype)

    def randn(self, *size, dtype=numpy.float64):
        return self._gen.standard_normal(_size(size), dtype=dtype)

    def random_sample(self, size=None, dtype=numpy.float64):
        return self._gen.random(size, dtype=dtype)

    random = ranf = sample = random_sample

    def randint(self, low, high=None, size=None, dtype=int):
        return self._gen.integers(low, high, size=size, dtype=dtype)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=numpy.float64):
        return self._gen.uniform(low, high, size, dtype=dtype)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=numpy.float64):
        return self._gen.normal(loc, scale, size, dtype=dtype)

    def standard_normal(self, size=None, dtype=numpy.float64):
        return self._gen.standard_normal(size, dtype=dtype)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, dtype=numpy.float64):
        return self._gen.lognormal(mean, sigma, size, dtype=dtype)

    def exponential(self, scale=1.0, size=None, dtype=numpy.float64):
        return self._gen.exponential(scale, size, dtype=dtype)

    def standard_exponential(self, size=None, dtype=numpy.float64):
        return self._gen.standard_exponential(size, dtype=dtype)

    def gamma(self, shape, scale=1.0, size=None, dtype=numpy.float64):
        return self._gen.gamma(shape, scale, size, dtype=dtype)

    def standard_gamma(self, shape, size=None, dtype=numpy.float64):
        return self._gen.standard_gamma(shape, size, dtype=dtype)

    def beta(self, a, b, size=None, dtype=numpy.float64):
        return self._gen.beta(a, b, size, dtype=dtype)

    def chisquare(self, df, size=None, dtype=numpy.float64):
        return self._gen.chisquare(df, size, dtype=dtype)

    def laplace(self, loc=0.0, scale=1.0, size=None, dtype=numpy.float64):
        return self._gen.laplace(loc, scale, size, dtype=dtype)

    def logistic(self, loc=0.0, scale=1.0, size=None, dtype=numpy.float64):
        return self._gen.logistic(loc, scale, size, dtype=dtype)

    def gumbel(self, loc=0.0, scale=1.0, size=None, dtype=numpy.float64):
        return self._gen.gumbel(loc, scale, size, dtype=dtype)

    def binomial(self, n, p, size=None, dtype=int):
        return self._gen.binomial(n, p, size).astype(dtype, copy=False)

    def poisson(self, lam=1.0, size=None, dtype=int):
        return self._gen.poisson(lam, size).astype(dtype, copy=False)

    def geometric(self, p, size=None, dtype=int):
        return self._gen.geometric(p, size).astype(dtype, copy=False)

    def choice(self, a, size=None, replace=True, p=None):
        return self._gen.choice(a, size, replace, p)

    def permutation(self, x):
        return self._gen.permutation(x)

    def shuffle(self, x):
        self._gen.shuffle(x)

    def random_integers(self, low, high=None, size=None):
        """Integers in ``[low, high]`` (``[1, low]`` without ``high``); deprecated, as
        NumPy's, with its DeprecationWarning."""
        if high is None:
            warnings.warn(f"This function is deprecated. Please call randint(1, {low} + 1) instead", DeprecationWarning, stacklevel=2)
            low, high = 1, low
        else:
            warnings.warn(f"This function is deprecated. Please call randint({low}, {high} + 1) instead", DeprecationWarning, stacklevel=2)
        return self.randint(low, int(high) + 1, size=size, dtype=numpy.int64)

    def bytes(self, length):
        return self._gen.bytes(length)

    def standard_cauchy(self, size=None, dtype=numpy.float64):
        return self._gen.standard_cauchy(size, dtype=dtype)

    def standard_t(self, df, size=None, dtype=numpy.float64):
        return self._gen.standard_t(df, size, dtype=dtype)

    def f(self, dfnum, dfden, size=None, dtype=numpy.float64):
        return self._gen.f(dfnum, dfden, size, dtype=dtype)

    def noncentral_chisquare(self, df, nonc, size=None, dtype=numpy.float64):
        return self._gen.noncentral_chisquare(df, nonc, size, dtype=dtype)

    def noncentral_f(self, dfnum, dfden, nonc, size=None, dtype=numpy.float64):
        return self._gen.noncentral_f(dfnum, dfden, nonc, size, dtype=dtype)

    def pareto(self, a, size=None, dtype=numpy.float64):
        return self._gen.pareto(a, size, dtype=dtype)

    def weibull(self, a, size=None, dtype=numpy.float64):
        return self._gen.weibull(a, size, dtype=dtype)

    def power(self, a, size=None, dtype=numpy.float64):
        return self._gen.power(a, size, dtype=dtype)

    def rayleigh(self, scale=1.0, size=None, dtype=numpy.float64):
        return self._gen.rayleigh(scale, size, dtype=dtype)

    def wald(self, mean, scale, size=None, dtype=numpy.float64):
        return self._gen.wald(mean, scale, size, dtype=dtype)

    def triangular(self, left, mode, right, size=None, dtype=numpy.float64):
        return self._gen.triangular(left, mode, right, size, dtype=dtype)

    def vonmises(self, mu, kappa, size=None, dtype=numpy.float64):
        return self._gen.vonmises(mu, kappa, size, dtype=dtype)

    def dirichlet(self, alpha, size=None):
        """NumPy's legacy check (``alpha <= 0``), then ``Generator.dirichlet``."""
        a = numpy.asarray(alpha.get() if hasattr(alpha, "get") else alpha, dtype=numpy.float64)
        if numpy.any(a <= 0):
            raise ValueError("alpha <= 0")
        return self._gen.dirichlet(a, size)

    def negative_binomial(self, n, p, size=None, dtype=int):
        """NumPy's legacy checks (``n <= 0``; ``p`` in [0, 1]), then ``Generator``'s
        draw. ``p == 0`` and a NaN ``n``, which NumPy's legacy code lets through to
        meaningless draws, raise ``Generator.negative_binomial``'s errors."""
        shape, (n_, p_) = prepare(size, n, p)
        check(n_, lambda x: x <= 0, "n <= 0")
        check(p_, lambda x: ~((x >= 0) & (x <= 1)) if isinstance(x, ndarray) else not (0 <= x <= 1),
              "p < 0, p > 1 or p is NaN")
        return self._gen.negative_binomial(n, p, size).astype(dtype, copy=False)

    def zipf(self, a, size=None, dtype=int):
        return self._gen.zipf(a, size).astype(dtype, copy=False)

    def logseries(self, p, size=None, dtype=int):
        return self._gen.logseries(p, size).astype(dtype, copy=False)

    def hypergeometric(self, ngood, nbad, nsample, size=None, dtype=int):
        """NumPy's legacy checks (no 10^9 bound; ``nsample >= 1``), then ``Generator``'s
        draw."""
        good, bad, sample, shape = self._gen._hypergeometric_params(size, ngood, nbad, nsample)
        for bad_params, message in [(good + bad < sample, "ngood + nbad < nsample"), (good < 0, "ngood < 0"),
                                    (bad < 0, "nbad < 0"), (sample < 1, "nsample < 1 or nsample is NaN")]:
            if bad_params.size and bool(_reduction.any(bad_params)):
                raise ValueError(message)
        return self._gen._hypergeometric(shape, good, bad, sample).astype(dtype, copy=False)

    def multinomial(self, n, pvals, size=None):
        """Counts of ``n`` draws over ``len(pvals)`` categories: a binomial per category
        of what the ones before left (NumPy's method), vectorized over ``size``."""
        ph = numpy.asarray(pvals.get() if hasattr(pvals, "get") else pvals, dtype=numpy.float64)
        if ph.ndim != 1:
            raise ValueError("object too deep for desired array" if ph.ndim > 1 else "object of too small depth for desired array")
        if numpy.any(ph < 0) or numpy.any(ph > 1) or numpy.any(numpy.isnan(ph)):
            raise ValueError("pvals < 0, pvals > 1 or pvals contains NaNs")
        if ph[:-1].sum() > 1.0 + 1e-12:
            raise ValueError("sum(pvals[:-1]) > 1.0")
        n = int(n)
        if n < 0:
            raise ValueError("n < 0")
        shape = shape_of(size)
        left = _creation.full(shape, n, dtype=numpy.float64)
        counts, rest = [], 1.0
        for pj in ph[:-1]:
            q = min(pj / rest, 1.0) if rest > 0 else 0.0
            x = self._gen.binomial(left, q)
            counts.append(x)
            left = left - x
            rest -= pj
        counts.append(left.astype(numpy.int64))
        return _manipulation.stack(counts, axis=-1)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *, dtype=numpy.float64):
        """``mean + z @ factor`` with ``cov = factor.T @ factor`` from the SVD of ``cov``
        (NumPy's method). The d x d factorization runs on the host with NumPy until
        gpupy.linalg has the eigen-decomposition; the draws and the product run on the GPU."""
        m = numpy.asarray(mean.get() if hasattr(mean, "get") else mean, dtype=numpy.float64)
        c = numpy.asarray(cov.get() if hasattr(cov, "get") else cov, dtype=numpy.float64)
        if m.ndim != 1:
            raise ValueError("mean must be 1 dimensional")
        if c.ndim != 2 or c.shape[0] != c.shape[1]:
            raise ValueError("cov must be 2 dimensional and square")
        if m.shape[0] != c.shape[0]:
            raise ValueError("mean and cov must have same length")
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        _, s, vh = numpy.linalg.svd(c)
        if check_valid != "ignore":
            if not numpy.allclose(numpy.dot(vh.T * s, vh), c, rtol=tol, atol=tol):
                if check_valid == "warn":
                    warnings.warn("covariance is not symmetric positive-semidefinite.", RuntimeWarning, stacklevel=2)
                else:
                    raise ValueError("covariance is not symmetric positive-semidefinite.")
        d = m.shape[0]
        shape = shape_of(size) + (d,)
        z = self._gen.standard_normal(shape, dtype=dtype).reshape(-1, d)
        factor = _creation.asarray((numpy.sqrt(s)[:, None] * vh).astype(dtype))
        x = z @ factor + _creation.asarray(m.astype(dtype))
        return x.reshape(shape)


_state = None


def get_random_state():
    """The process-wide ``RandomState`` of the module functions."""
    global _state
    if _state is None:
        seed = os.environ.get("GPUPY_SEED")
        _state = RandomState(None if seed is None else int(seed))
    return _state


def set_random_state(rs):
    """Makes ``rs`` the process-wide ``RandomState``."""
    global _state
    if not isinstance(rs, RandomState):
        raise TypeError("set_random_state takes a gpupy.random.RandomState")
    _state = rs


def seed(seed=None):
    """Reseeds the process-wide ``RandomState``."""
    get_random_state().seed(seed)


def get_bit_generator():
    """The bit generator of the process-wide ``RandomState`` (NumPy's)."""
    return get_random_state()._gen.bit_generator


def set_bit_generator(bitgen):
    """Makes ``bitgen`` (a gpupy bit generator) the process-wide ``RandomState``'s."""
    if not isinstance(bitgen, BitGenerator):
        raise TypeError("set_bit_generator takes a gpupy.random bit generator (PCG64 or Philox)")
    get_random_state()._gen = Generator(bitgen)


def _forward(name):
    def f(*args, **kwargs):
        return getattr(get_random_state(), name)(*args, **kwargs)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"``get_random_state().{name}``: see ``RandomState.{name}``."
    return f


_MODULE_FUNCTIONS = [
    "rand", "randn", "randint", "random_sample", "random", "ranf", "sample", "uniform",
    "normal", "standard_normal", "lognormal", "exponential", "standard_exponential",
    "gamma", "standard_gamma", "beta", "chisquare", "laplace", "logistic", "gumbel",
    "binomial", "poisson", "geometric", "choice", "permutation", "shuffle",
    "multinomial", "multivariate_normal", "random_integers", "bytes", "standard_cauchy",
    "standard_t", "f", "noncentral_chisquare", "noncentral_f", "pareto", "weibull",
    "power", "rayleigh", "wald", "triangular", "vonmises", "dirichlet",
    "negative_binomial", "zipf", "logseries", "hypergeometric", "get_state", "set_state",
]
globals().update({name: _forward(name) for name in _MODULE_FUNCTIONS})


__all__ = ["RandomState", "get_random_state", "set_random_state", "seed", "get_bit_generator", "set_bit_generator"]
