"""gpupy.random's composed distributions (random/_composed.py) and the rest of NumPy's
random namespace (random_integers, bytes, get_state/set_state, get_bit_generator/
set_bit_generator), against SciPy and NumPy.

- Statistical, fixed seeds: Kolmogorov-Smirnov against scipy.stats' CDF (continuous
  laws) and chi-square over the pmf with bins pooled to an expected count of 5
  (discrete ones), each at p > 1e-4: a correct generator fails one such test with
  probability 1e-4 under a fresh seed. Where SciPy's law is not the one drawn (NumPy's
  vonmises wraps into [-pi, pi]; a dirichlet whose tiny alphas put mass on exact 0s)
  the comparison is a two-sample KS against NumPy's own draws, at the same level.
  Means at 5 standard errors (false alarm 6e-7).
- Shapes, dtypes, broadcasting of array parameters against each other and ``size``.
- NumPy's errors and messages for bad parameters, Generator and legacy.
"""

import warnings

import numpy as np
import pytest
import scipy.stats as st

import gpupy as gp
from helpers import P_MIN, chi_square_pmf, generator_raises_as_numpy, m_arr

pytestmark = pytest.mark.gpu

N = 200_000


def host(a):
    return gp.asnumpy(a)


def ks(sample, law):
    p = st.kstest(np.asarray(sample, dtype=np.float64).ravel(), law.cdf).pvalue
    assert p > P_MIN, f"KS p = {p:.2e}"


def ks2(sample, other):
    p = st.ks_2samp(np.asarray(sample, dtype=np.float64).ravel(), np.asarray(other, dtype=np.float64).ravel()).pvalue
    assert p > P_MIN, f"two-sample KS p = {p:.2e}"


# --------------------------------------------------------------------------------------
# Continuous laws.

CONTINUOUS = [
    ("standard_cauchy", lambda g, d: g.standard_cauchy(N, dtype=d), st.cauchy()),
    ("standard_t 3.5", lambda g, d: g.standard_t(3.5, N, dtype=d), st.t(3.5)),
    ("standard_t 0.7", lambda g, d: g.standard_t(0.7, N, dtype=d), st.t(0.7)),
    ("f", lambda g, d: g.f(3.0, 7.0, N, dtype=d), st.f(3.0, 7.0)),
    ("noncentral_chisquare df>1", lambda g, d: g.noncentral_chisquare(3.0, 2.0, N, dtype=d), st.ncx2(3.0, 2.0)),
    ("noncentral_chisquare df<1", lambda g, d: g.noncentral_chisquare(0.5, 2.0, N, dtype=d), st.ncx2(0.5, 2.0)),
    ("noncentral_chisquare nonc 0", lambda g, d: g.noncentral_chisquare(2.5, 0.0, N, dtype=d), st.chi2(2.5)),
    ("noncentral_f", lambda g, d: g.noncentral_f(3.0, 7.0, 2.5, N, dtype=d), st.ncf(3.0, 7.0, 2.5)),
    ("pareto", lambda g, d: g.pareto(2.5, N, dtype=d), st.lomax(2.5)),
    ("weibull", lambda g, d: g.weibull(1.7, N, dtype=d), st.weibull_min(1.7)),
    ("weibull small a", lambda g, d: g.weibull(0.4, N, dtype=d), st.weibull_min(0.4)),
    ("power", lambda g, d: g.power(0.3, N, dtype=d), st.powerlaw(0.3)),
    ("power 5", lambda g, d: g.power(5.0, N, dtype=d), st.powerlaw(5.0)),
    ("rayleigh", lambda g, d: g.rayleigh(2.0, N, dtype=d), st.rayleigh(scale=2.0)),
    ("wald", lambda g, d: g.wald(1.5, 2.0, N, dtype=d), st.invgauss(1.5 / 2.0, scale=2.0)),
    ("triangular", lambda g, d: g.triangular(-1.0, 0.5, 3.0, N, dtype=d), st.triang(1.5 / 4.0, loc=-1.0, scale=4.0)),
    ("triangular mode=left", lambda g, d: g.triangular(0.0, 0.0, 2.0, N, dtype=d), st.triang(0.0, scale=2.0)),
    ("vonmises 1e-4", lambda g, d: g.vonmises(0.0, 1e-4, N, dtype=d), st.vonmises(1e-4)),
    ("vonmises 0.5", lambda g, d: g.vonmises(0.0, 0.5, N, dtype=d), st.vonmises(0.5)),
    ("vonmises 4", lambda g, d: g.vonmises(0.0, 4.0, N, dtype=d), st.vonmises(4.0)),
    ("vonmises 100 at 1", lambda g, d: g.vonmises(1.0, 100.0, N, dtype=d), st.vonmises(100.0, loc=1.0)),
    ("vonmises 0", lambda g, d: g.vonmises(0.7, 0.0, N, dtype=d), st.uniform(-np.pi, 2 * np.pi)),
]


@pytest.mark.parametrize("name,draw,law", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_continuous_law(name, draw, law, dtype):
    x = draw(gp.random.default_rng(20261125), dtype)
    assert x.dtype == dtype and x.shape == (N,)
    h = host(x)
    assert not np.any(np.isnan(h))
    ks(h, law)


def test_vonmises_wraps_and_edges():
    g, ref = gp.random.default_rng(3), np.random.default_rng(3)
    # NumPy folds mu + angle into [-pi, pi]: same law as NumPy's own draws.
    for mu, kappa in [(-3.0, 0.5), (3.0, 2.0), (10.0, 1.0)]:
        x = host(g.vonmises(mu, kappa, N))
        assert x.min() >= -np.pi and x.max() <= np.pi
        ks2(x, ref.vonmises(mu, kappa, N))
    # kappa > 1e6: a wrapped normal of sd 1/sqrt(kappa) (mean at 5 standard errors).
    x = host(g.vonmises(0.3, 1e8, N))
    assert abs(x.mean() - 0.3) < 5 * 1e-4 / np.sqrt(N)
    assert abs(x.std() / 1e-4 - 1) < 5 * np.sqrt(0.5 / N)
    assert np.all(np.isnan(host(g.vonmises(0.0, np.nan, 5))))


def test_noncentral_chisquare_nan_and_edges():
    g = gp.random.default_rng(4)
    assert np.all(np.isnan(host(g.noncentral_chisquare(2.0, np.nan, 4))))
    assert np.all(host(g.weibull(0.0, 5)) == 0)
    x = host(g.power(1.0, N))
    ks(x, st.uniform())


# --------------------------------------------------------------------------------------
# Broadcast parameters: each column follows its own law.


def test_array_parameters_broadcast():
    g = gp.random.default_rng(5)
    n = 50_000
    df = gp.asarray(np.array([0.5, 3.0]))
    nonc = gp.asarray(np.array([[2.0], [0.0]]))
    x = host(g.noncentral_chisquare(df, nonc, size=(n, 2, 2)))
    assert x.shape == (n, 2, 2)
    for i, c in enumerate([2.0, 0.0]):
        for j, d in enumerate([0.5, 3.0]):
            ks(x[:, i, j], st.ncx2(d, c) if c else st.chi2(d))
    x = host(g.standard_t(gp.asarray(np.array([1.0, 5.0, 30.0])), size=(n, 3)))
    for j, d in enumerate([1.0, 5.0, 30.0]):
        ks(x[:, j], st.t(d))
    left = gp.asarray(np.array([-1.0, 0.0]))
    x = host(g.triangular(left, 1.0, gp.asarray(np.array([[2.0], [5.0]])), size=(n, 2, 2)))
    for i, r in enumerate([2.0, 5.0]):
        for j, lft in enumerate([-1.0, 0.0]):
            ks(x[:, i, j], st.triang((1.0 - lft) / (r - lft), loc=lft, scale=r - lft))
    kappa = gp.asarray(np.array([[1e-9], [4.0], [1e7], [np.nan]]))
    x = host(g.vonmises(gp.asarray(np.array([0.0, 1.0])), kappa, size=(n, 4, 2)))
    ks(x[:, 0, 1], st.uniform(-np.pi, 2 * np.pi))  # kappa < 1e-8: uniform whatever mu
    ks(x[:, 1, 0], st.vonmises(4.0))
    ks(x[:, 1, 1], st.vonmises(4.0, loc=1.0))
    assert abs(x[:, 2, 1].mean() - 1.0) < 5 * np.sqrt(1e-7 / n)
    assert np.all(np.isnan(x[:, 3]))
    for name, call in [("pareto", lambda a: g.pareto(a)), ("weibull", lambda a: g.weibull(a)),
                       ("power", lambda a: g.power(a)), ("rayleigh", lambda a: g.rayleigh(a)),
                       ("wald", lambda a: g.wald(a, a)), ("f", lambda a: g.f(a, a)),
                       ("noncentral_f", lambda a: g.noncentral_f(a, a, a)), ("zipf", lambda a: g.zipf(a + 1)),
                       ("logseries", lambda a: g.logseries(a / 4)), ("negative_binomial", lambda a: g.negative_binomial(a, a / 4))]:
        r = call(gp.asarray(np.array([[1.0, 2.0, 3.0]])))
        assert r.shape == (1, 3), name
    w = host(g.weibull(gp.asarray(np.array([0.0, 2.0])), size=(3, 2)))
    assert np.all(w[:, 0] == 0) and np.all(w[:, 1] > 0)
    with pytest.raises(ValueError, match="shape mismatch"):
        g.pareto(gp.ones(3), size=(2, 4))


def test_shapes_sizes_and_dtypes():
    g = gp.random.default_rng(6)
    for size, shape in [(None, ()), (0, (0,)), (7, (7,)), ((2, 0, 3), (2, 0, 3)), ((3, 5), (3, 5))]:
        for call in [lambda s: g.standard_cauchy(s), lambda s: g.vonmises(0.0, 2.0, s), lambda s: g.triangular(0, 1, 2, s)]:
            r = call(size)
            assert r.shape == shape and r.dtype == np.float64
        for call in [lambda s: g.zipf(2.0, s), lambda s: g.logseries(0.5, s), lambda s: g.hypergeometric(5, 6, 3, s),
                     lambda s: g.hypergeometric(50, 60, 30, s), lambda s: g.negative_binomial(2, 0.5, s)]:
            r = call(size)
            assert r.shape == shape and r.dtype == np.int64
    assert g.dirichlet([1.0, 2.0]).shape == (2,)
    assert g.dirichlet([1.0, 2.0], 4).shape == (4, 2)
    assert g.dirichlet([1.0, 2.0, 3.0], (2, 5)).shape == (2, 5, 3)
    assert g.dirichlet([], 3).shape == (3, 0)
    assert g.rayleigh(size=3, dtype=np.float32).dtype == np.float32


# --------------------------------------------------------------------------------------
# Discrete laws.

DISCRETE = [
    ("negative_binomial", lambda g: g.negative_binomial(3.5, 0.4, N), lambda k: st.nbinom.pmf(k, 3.5, 0.4), range(0, 60)),
    ("negative_binomial int n", lambda g: g.negative_binomial(1, 0.1, N), lambda k: st.nbinom.pmf(k, 1, 0.1), range(0, 150)),
    ("zipf 1.3", lambda g: g.zipf(1.3, N), lambda k: st.zipf.pmf(k, 1.3), range(1, 300)),
    ("zipf 2", lambda g: g.zipf(2.0, N), lambda k: st.zipf.pmf(k, 2.0), range(1, 300)),
    ("zipf 3.5", lambda g: g.zipf(3.5, N), lambda k: st.zipf.pmf(k, 3.5), range(1, 60)),
    ("logseries 0.3", lambda g: g.logseries(0.3, N), lambda k: st.logser.pmf(k, 0.3), range(1, 30)),
    ("logseries 0.9", lambda g: g.logseries(0.9, N), lambda k: st.logser.pmf(k, 0.9), range(1, 150)),
    ("logseries 0.999", lambda g: g.logseries(0.999, N), lambda k: st.logser.pmf(k, 0.999), range(1, 3000)),
    ("hypergeometric small", lambda g: g.hypergeometric(5, 7, 4, N), lambda k: st.hypergeom.pmf(k, 12, 5, 4), range(0, 5)),
    ("hypergeometric flipped", lambda g: g.hypergeometric(20, 3, 18, N), lambda k: st.hypergeom.pmf(k, 23, 20, 18), range(0, 19)),
    ("hypergeometric hrua", lambda g: g.hypergeometric(100, 200, 150, N), lambda k: st.hypergeom.pmf(k, 300, 100, 150), range(0, 101)),
    ("hypergeometric hrua flipped", lambda g: g.hypergeometric(300, 30, 250, N), lambda k: st.hypergeom.pmf(k, 330, 300, 250), range(200, 251)),
    ("hypergeometric large", lambda g: g.hypergeometric(10**6, 3 * 10**6, 5000, N), lambda k: st.hypergeom.pmf(k, 4 * 10**6, 10**6, 5000), range(1100, 1400)),
]


@pytest.mark.parametrize("name,draw,pmf,support", DISCRETE, ids=[d[0] for d in DISCRETE])
def test_discrete_law(name, draw, pmf, support):
    x = draw(gp.random.default_rng(778))
    assert x.dtype == np.int64 and x.shape == (N,)
    chi_square_pmf(host(x), pmf, support)


def test_discrete_edges_and_arrays():
    g = gp.random.default_rng(9)
    assert np.all(host(g.logseries(0.0, 10)) == 1)
    assert np.all(host(g.zipf(2000.0, 10)) == 1)
    assert np.all(host(g.negative_binomial(3, 1.0, 10)) == 0)
    assert np.all(host(g.hypergeometric(0, 5, 3, 10)) == 0)
    assert np.all(host(g.hypergeometric(9, 0, 3, 10)) == 3)
    assert np.all(host(g.hypergeometric(9, 3, 12, 10)) == 9)
    assert np.all(host(g.hypergeometric(9, 3, 0, 10)) == 0)
    # The two hypergeometric methods side by side in one call, and array broadcasting.
    laws = [(5, 7, 4), (100, 200, 150), (30, 30, 55), (1, 40, 20)]
    good, bad, sample = (gp.asarray(np.array(c)) for c in zip(*laws))
    x = host(g.hypergeometric(good, bad, sample, size=(N, 4)))
    assert x.shape == (N, 4) and x.dtype == np.int64
    for j, (a, b, s) in enumerate(laws):
        chi_square_pmf(x[:, j], lambda k: st.hypergeom.pmf(k, a + b, a, s), range(0, min(a, s) + 1))
    z = host(g.zipf(gp.asarray(np.array([2.0, 2000.0])), size=(N // 4, 2)))
    assert np.all(z[:, 1] == 1)
    chi_square_pmf(z[:, 0], lambda k: st.zipf.pmf(k, 2.0), range(1, 100))
    # Huge populations: the mean at 5 standard errors.
    x = host(g.hypergeometric(10**8, 10**8, 10**8 - 5, N)).astype(np.float64)
    law = st.hypergeom(2 * 10**8, 10**8, 10**8 - 5)
    assert abs(x.mean() - law.mean()) < 5 * law.std() / np.sqrt(N)


def test_dirichlet():
    g, ref = gp.random.default_rng(10), np.random.default_rng(10)
    alpha = [0.5, 1.0, 2.0]
    x = host(g.dirichlet(alpha, N))
    assert x.shape == (N, 3) and x.dtype == np.float64
    np.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=1e-12)
    for j, a in enumerate(alpha):
        ks(x[:, j], st.beta(a, sum(alpha) - a))
    # All alphas below 0.1: stick-breaking with betas (gammas would give 0/0).
    small = [0.05, 0.02, 0.01]
    x = host(g.dirichlet(gp.asarray(np.array(small)), N))
    assert not np.any(np.isnan(x))
    np.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=1e-12)
    want = ref.dirichlet(small, N)
    for j in range(3):
        ks2(x[:, j], want[:, j])
    np.testing.assert_array_equal(host(g.dirichlet([0.05, 0.0, 0.0], 3)), np.tile([1.0, 0.0, 0.0], (3, 1)))
    np.testing.assert_array_equal(host(g.dirichlet([0.05], 2)), np.ones((2, 1)))
    np.testing.assert_array_equal(host(g.dirichlet([0.0, 0.0], 2)), np.zeros((2, 2)))


# --------------------------------------------------------------------------------------
# Errors: NumPy's types and messages.

ERRORS = [
    ("standard_t", lambda m: m.standard_t(0), "df <= 0"),
    ("f dfnum", lambda m: m.f(0, 1), "dfnum <= 0"),
    ("f dfden", lambda m: m.f(1, -1), "dfden <= 0"),
    ("noncentral_chisquare df", lambda m: m.noncentral_chisquare(0, 1), "df <= 0"),
    ("noncentral_chisquare nonc", lambda m: m.noncentral_chisquare(1, -1), "nonc < 0"),
    ("noncentral_f", lambda m: m.noncentral_f(1, 1, -1), "nonc < 0"),
    ("pareto", lambda m: m.pareto(0), "a <= 0"),
    ("weibull", lambda m: m.weibull(-1), "a < 0"),
    ("power", lambda m: m.power(0), "a <= 0"),
    ("rayleigh", lambda m: m.rayleigh(-1), "scale < 0"),
    ("wald mean", lambda m: m.wald(0, 1), "mean <= 0"),
    ("wald scale", lambda m: m.wald(1, 0), "scale <= 0"),
    ("triangular left", lambda m: m.triangular(2, 1, 3), "left > mode"),
    ("triangular right", lambda m: m.triangular(0, 4, 3), "mode > right"),
    ("triangular equal", lambda m: m.triangular(1, 1, 1), "left == right"),
    ("triangular array", lambda m: m.triangular(m_arr(m, [0.0, 2.0]), 1.0, 3.0), "left > mode"),
    ("vonmises", lambda m: m.vonmises(0, -1), "kappa < 0"),
    ("vonmises array", lambda m: m.vonmises(0, m_arr(m, [1.0, -1.0])), "kappa < 0"),
    ("dirichlet", lambda m: m.dirichlet([1.0, -1.0]), "alpha < 0"),
    ("negative_binomial n", lambda m: m.negative_binomial(0, 0.5), "n <= 0"),
    ("negative_binomial n nan", lambda m: m.negative_binomial(np.nan, 0.5), "n must not be NaN"),
    ("negative_binomial p", lambda m: m.negative_binomial(1, 0), r"p <= 0, p > 1 or p contains NaNs"),
    ("negative_binomial lam", lambda m: m.negative_binomial(1e20, 1e-3), "n too large or p too small"),
    ("zipf", lambda m: m.zipf(1.0), "a <= 1 or a is NaN"),
    ("zipf nan", lambda m: m.zipf(np.nan), "a <= 1 or a is NaN"),
    ("logseries", lambda m: m.logseries(1.0), r"p < 0, p >= 1 or p is NaN"),
    ("hypergeometric max", lambda m: m.hypergeometric(10**9, 1, 1), "both ngood and nbad must be less than 1000000000"),
    ("hypergeometric sum", lambda m: m.hypergeometric(1, 1, 3), r"ngood \+ nbad < nsample"),
    ("hypergeometric ngood", lambda m: m.hypergeometric(-1, 5, 2), "ngood < 0"),
    ("hypergeometric nsample", lambda m: m.hypergeometric(2, 5, -1), "nsample < 0"),
    ("hypergeometric array", lambda m: m.hypergeometric(m_arr(m, [1, 5]), 1, 3), r"ngood \+ nbad < nsample"),
]


@pytest.mark.parametrize("name,call,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_numpy(name, call, match):
    generator_raises_as_numpy(call, match, np.random.default_rng, gp.random.default_rng)


# --------------------------------------------------------------------------------------
# The legacy API: RandomState and the module functions.

LEGACY = [
    ("standard_cauchy", lambda m: m.standard_cauchy(4), (4,), np.float64),
    ("standard_t", lambda m: m.standard_t(3.0, 4), (4,), np.float64),
    ("f", lambda m: m.f(2.0, 3.0, 4), (4,), np.float64),
    ("noncentral_chisquare", lambda m: m.noncentral_chisquare(2.0, 1.0, 4), (4,), np.float64),
    ("noncentral_f", lambda m: m.noncentral_f(2.0, 3.0, 1.0, 4), (4,), np.float64),
    ("pareto", lambda m: m.pareto(2.0, 4), (4,), np.float64),
    ("weibull", lambda m: m.weibull(2.0, 4), (4,), np.float64),
    ("power", lambda m: m.power(2.0, 4), (4,), np.float64),
    ("rayleigh", lambda m: m.rayleigh(1.0, (2, 3)), (2, 3), np.float64),
    ("wald", lambda m: m.wald(1.0, 2.0, 4), (4,), np.float64),
    ("triangular", lambda m: m.triangular(0.0, 1.0, 2.0, 4), (4,), np.float64),
    ("vonmises", lambda m: m.vonmises(0.0, 1.0, 4), (4,), np.float64),
    ("dirichlet", lambda m: m.dirichlet([1.0, 2.0], 4), (4, 2), np.float64),
    ("negative_binomial", lambda m: m.negative_binomial(2, 0.5, 4), (4,), np.int64),
    ("zipf", lambda m: m.zipf(2.0, 4), (4,), np.int64),
    ("logseries", lambda m: m.logseries(0.5, 4), (4,), np.int64),
    ("hypergeometric", lambda m: m.hypergeometric(5, 6, 3, 4), (4,), np.int64),
]


@pytest.mark.parametrize("name,call,shape,dtype", LEGACY, ids=[c[0] for c in LEGACY])
def test_legacy_functions(name, call, shape, dtype):
    assert np.shape(call(np.random.RandomState(0))) == shape
    gp.random.seed(1)
    got = call(gp.random)
    assert got.shape == shape and got.dtype == dtype
    gp.random.seed(1)
    np.testing.assert_array_equal(host(call(gp.random)), host(got))
    np.testing.assert_array_equal(host(call(gp.random.RandomState(1))), host(got))


def test_legacy_laws():
    rs = gp.random.RandomState(12)
    ks(host(rs.standard_t(4.0, N)), st.t(4.0))
    ks(host(rs.wald(1.0, 3.0, N)), st.invgauss(1.0 / 3.0, scale=3.0))
    chi_square_pmf(host(rs.hypergeometric(40, 60, 50, N)), lambda k: st.hypergeom.pmf(k, 100, 40, 50), range(0, 41))
    chi_square_pmf(host(rs.negative_binomial(2, 0.3, N)), lambda k: st.nbinom.pmf(k, 2, 0.3), range(0, 60))
    assert rs.zipf(2.0, 3, dtype=np.int32).dtype == np.int32


def test_random_integers_is_deprecated_and_inclusive():
    with pytest.warns(DeprecationWarning, match=r"Please call randint\(1, 6 \+ 1\) instead"):
        want = np.random.RandomState(0).random_integers(6, size=5)
    assert want.shape == (5,)
    with pytest.warns(DeprecationWarning, match=r"Please call randint\(1, 6 \+ 1\) instead"):
        x = host(gp.random.random_integers(6, size=60_000))
    assert x.dtype == np.int64 and x.min() == 1 and x.max() == 6
    chi_square_pmf(x, lambda k: np.full(len(k), 1 / 6), range(1, 7))
    with pytest.warns(DeprecationWarning, match=r"Please call randint\(-2, 2 \+ 1\) instead"):
        y = host(gp.random.RandomState(0).random_integers(-2, 2, size=(100, 3)))
    assert y.shape == (100, 3) and y.min() == -2 and y.max() == 2


def test_bytes_state_and_bit_generator_functions():
    gp.random.seed(0)
    b = gp.random.bytes(13)
    assert isinstance(b, bytes) and len(b) == 13
    assert gp.random.RandomState(3).bytes(5) == gp.random.RandomState(3).bytes(5)
    # get_state / set_state: the PCG64 dict, round-tripping; NumPy's MT19937 tuple is refused.
    s = gp.random.get_state()
    assert isinstance(s, dict) and s["bit_generator"] == "PCG64"
    a = host(gp.random.rand(5))
    gp.random.set_state(s)
    np.testing.assert_array_equal(host(gp.random.rand(5)), a)
    assert gp.random.get_state(legacy=False) == gp.random.get_state()
    with pytest.raises(ValueError, match="MT19937"):
        gp.random.set_state(np.random.RandomState(0).get_state())
    with pytest.raises(ValueError, match="state dictionary is not valid"):
        gp.random.set_state({"state": 1})
    with pytest.raises(TypeError, match="state must be a dict or a tuple"):
        gp.random.set_state(5)
    # The state moves to NumPy's PCG64.
    n = np.random.PCG64()
    n.state = gp.random.get_state()
    assert n.state == gp.random.get_state()
    # get_bit_generator / set_bit_generator swap the process-wide generator's source.
    bg = gp.random.Philox(7)
    gp.random.set_bit_generator(bg)
    assert gp.random.get_bit_generator() is bg
    c = host(gp.random.standard_normal(6))
    np.testing.assert_array_equal(c, host(gp.random.Generator(gp.random.Philox(7)).standard_normal(6)))
    with pytest.raises(TypeError):
        gp.random.set_bit_generator(np.random.PCG64(0))
    rs = gp.random.RandomState(gp.random.Philox(2))
    assert isinstance(rs.get_state(), dict) and rs.get_state()["bit_generator"] == "Philox4x3210"
    gp.random.set_random_state(gp.random.RandomState(0))


LEGACY_ERRORS = [
    ("dirichlet", lambda m: m.dirichlet([1.0, 0.0]), "alpha <= 0"),
    ("negative_binomial n", lambda m: m.negative_binomial(0, 0.5), "n <= 0"),
    ("negative_binomial p", lambda m: m.negative_binomial(1, 1.5), r"p < 0, p > 1 or p is NaN"),
    ("hypergeometric nsample", lambda m: m.hypergeometric(2, 5, 0), "nsample < 1 or nsample is NaN"),
    ("hypergeometric sum", lambda m: m.hypergeometric(2, 5, 9), r"ngood \+ nbad < nsample"),
    ("hypergeometric nbad", lambda m: m.hypergeometric(10, -1, 1), "nbad < 0"),
    ("zipf", lambda m: m.zipf(0.5), "a <= 1 or a is NaN"),
    ("vonmises", lambda m: m.vonmises(0.0, -2.0), "kappa < 0"),
]


@pytest.mark.parametrize("name,call,match", LEGACY_ERRORS, ids=[e[0] for e in LEGACY_ERRORS])
def test_legacy_errors_match_numpy(name, call, match):
    error = generator_raises_as_numpy(call, match, np.random.RandomState, gp.random.RandomState)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(error, match=match):
            call(gp.random)
