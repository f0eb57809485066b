"""NumPy's legacy API (``RandomState`` and the module functions ``rand``, ``randn``,
``randint``, ...) with CuPy's ``dtype=`` keyword and ``get_random_state`` /
``set_random_state``.

A ``RandomState`` is a ``Generator`` over ``PCG64(seed)``: deterministic for a seed,
but not NumPy's MT19937 numbers. The module functions use one process-wide state,
seeded from the ``GPUPY_SEED`` environment variable when it is set (CuPy reads
``CUPY_SEED``), else from fresh entropy.
"""

import os
import warnings

import numpy

from gpupy import _creation, _manipulation
from gpupy.random._generator import Generator
from gpupy.random._bit_generator import PCG64
from gpupy.random._params import shape_of


def _size(args):
    """``rand(2, 3)`` and ``rand((2, 3))`` alike; ``rand()`` is 0-d."""
    if len(args) == 1 and not isinstance(args[0], int) and args[0] is not None:
        return tuple(args[0])
    return tuple(args) if args else None


class RandomState:
    """NumPy's legacy generator on the GPU (a ``Generator`` over ``PCG64``)."""

    def __init__(self, seed=None):
        self.seed(seed)

    def seed(self, seed=None):
        """Reseeds (``None``: fresh entropy)."""
        self._gen = Generator(PCG64(seed))

    def get_state(self):
        return self._gen.bit_generator.state

    def set_state(self, state):
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
    "multinomial", "multivariate_normal",
]
globals().update({name: _forward(name) for name in _MODULE_FUNCTIONS})


__all__ = ["RandomState", "get_random_state", "set_random_state", "seed"]
