"""gpupy.random against NumPy and SciPy.

- Exact: the PCG64 path (``random`` in float64/float32, ``random_raw``, ``uniform``
  with scalar bounds in float64) equals NumPy's bits, over many seeds and sizes (0, 1,
  odd, more than 2^31 elements once), successive calls, spawned children, and the
  state round-trips with NumPy's.
- Statistical (every other draw): fixed seeds; Kolmogorov-Smirnov against scipy.stats'
  CDFs for continuous laws and chi-square over the full pmf for discrete ones, each
  with a p-value threshold of 1e-4: under fresh seeds a correct generator fails a
  given test with probability 1e-4 (about 0.5% per run of the ~50 tests here). Means
  and variances at 5 standard errors (false alarm 6e-7 each).
- Determinism: the same seed gives the same values, and an element's value does not
  depend on the size of the draw (so not on the launch shape).
- NumPy's errors and messages for bad input.
"""

import numpy as np
import pytest
import scipy.stats as st

import gpupy as gp
from helpers import P_MIN, chi_square_pmf, generator_raises_as_numpy, m_arr

pytestmark = pytest.mark.gpu

SEEDS = [0, 1, 7, 12345, 2**32 + 1, 2**63 + 11, 2**127 + 3]
SIZES = [0, 1, 2, 3, 7, 255, 1000, 4097, 100_003]


def host(a):
    return gp.asnumpy(a)


# --------------------------------------------------------------------------------------
# The NumPy-exact path.


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_random_equals_numpy_bit_for_bit(seed, dtype):
    g, n = gp.random.default_rng(seed), np.random.default_rng(seed)
    for size in SIZES + [5, (3, 4), (2, 0, 3), 1]:
        got, want = host(g.random(size, dtype=dtype)), n.random(size, dtype=dtype)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    assert g.bit_generator.state == n.bit_generator.state


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_mixed_calls_and_state_round_trip(seed):
    g, n = gp.random.default_rng(seed), np.random.default_rng(seed)
    # float32 calls of odd sizes keep half an output; float64 and raw calls do not touch it.
    for size, dtype in [(3, np.float32), (5, np.float64), (1, np.float32), (2, np.float32), (9, np.float64), (0, np.float32), (7, np.float32)]:
        np.testing.assert_array_equal(host(g.random(size, dtype=dtype)), n.random(size, dtype=dtype))
        assert g.bit_generator.state == n.bit_generator.state
    np.testing.assert_array_equal(host(g.bit_generator.random_raw(11)), n.bit_generator.random_raw(11))
    np.testing.assert_array_equal(host(g.random(4, dtype=np.float32)), n.random(4, dtype=np.float32))
    # A state moves both ways.
    n2 = np.random.default_rng(0)
    n2.bit_generator.state = g.bit_generator.state
    g2 = gp.random.default_rng(1)
    g2.bit_generator.state = n.bit_generator.state
    np.testing.assert_array_equal(host(g2.random(33)), n2.random(33))


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_spawned_children_and_seed_sequences_match(seed):
    g, n = gp.random.default_rng(seed), np.random.default_rng(seed)
    for gc, nc in zip(g.spawn(3), n.spawn(3)):
        np.testing.assert_array_equal(host(gc.random(1001)), nc.random(1001))
        np.testing.assert_array_equal(host(gc.random(10, dtype=np.float32)), nc.random(10, dtype=np.float32))
    ss = np.random.SeedSequence(seed, spawn_key=(3,))
    np.testing.assert_array_equal(
        host(gp.random.Generator(gp.random.PCG64(ss)).random(100)),
        np.random.Generator(np.random.PCG64(ss)).random(100),
    )
    assert gp.random.SeedSequence is np.random.SeedSequence
    # Entropy given as a list, and a NumPy PCG64 object, are taken as NumPy takes them.
    np.testing.assert_array_equal(host(gp.random.default_rng([seed, 5]).random(9)), np.random.default_rng([seed, 5]).random(9))
    np.testing.assert_array_equal(host(gp.random.default_rng(np.random.PCG64(seed)).random(9)), np.random.default_rng(seed).random(9))


def test_random_raw_and_jumps_match_numpy():
    for seed in SEEDS:
        b, nb = gp.random.PCG64(seed), np.random.PCG64(seed)
        np.testing.assert_array_equal(host(b.random_raw(12345)), nb.random_raw(12345))
        b.advance(10**20)
        nb.advance(10**20)
        np.testing.assert_array_equal(host(b.random_raw(7)), nb.random_raw(7))
        np.testing.assert_array_equal(host(b.jumped(2).random_raw(5)), nb.jumped(2).random_raw(5))
        assert b.random_raw(output=False) is None
        nb.random_raw()
        assert b.state == nb.state


def test_uniform_with_scalar_bounds_matches_numpy():
    g, n = gp.random.default_rng(3), np.random.default_rng(3)
    for lo, hi, size in [(0.0, 1.0, 100), (-3.5, 2.25, (7, 9)), (1e10, 1e10 + 1, 33), (5, 5, 4)]:
        np.testing.assert_array_equal(host(g.uniform(lo, hi, size)), n.uniform(lo, hi, size))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_more_than_2_to_the_31_elements(dtype):
    """One draw past 2^31 elements: the head, a window across element 2^31 and the tail
    equal NumPy's (reached with NumPy's own advance), and the state after it too."""
    n = 2**31 + 5
    g = gp.random.default_rng(99)
    a = g.random(n, dtype=dtype)
    per = 2 if dtype == np.float32 else 1  # elements per 64-bit output
    for start in [0, 2**31 - 4, n - 9]:
        ref = np.random.PCG64(99)
        ref.advance(start // per)
        want = np.random.Generator(ref).random(per * 16, dtype=dtype)[start % per:][:9]
        np.testing.assert_array_equal(host(a[start:start + 9]), want[: min(9, n - start)])
    ref = np.random.PCG64(99)
    ref.advance(-(-n // per))
    if dtype == np.float32:
        ref_state = ref.state
        assert g.bit_generator.state["state"] == ref_state["state"]
        assert g.bit_generator.state["has_uint32"] == n % 2
    else:
        assert g.bit_generator.state == ref.state
    del a


# --------------------------------------------------------------------------------------
# Distributions: KS / chi-square against scipy.stats, fixed seeds.

N = 200_000


def ks(sample, cdf, args=()):
    """KS against scipy.stats' distribution ``cdf`` (a name) with ``args``."""
    p = st.kstest(np.asarray(sample, dtype=np.float64).ravel(), getattr(st, cdf)(*args).cdf).pvalue
    assert p > P_MIN, f"KS p = {p:.2e}"


CONTINUOUS = [
    ("standard_normal", lambda g, d: g.standard_normal(N, dtype=d), "norm", ()),
    ("normal", lambda g, d: g.normal(2.5, 3.0, N, dtype=d), "norm", (2.5, 3.0)),
    ("uniform", lambda g, d: g.uniform(-2.0, 5.0, N, dtype=d), "uniform", (-2.0, 7.0)),
    ("random", lambda g, d: g.random(N, dtype=d), "uniform", ()),
    ("exponential", lambda g, d: g.exponential(2.0, N, dtype=d), "expon", (0, 2.0)),
    ("standard_exponential", lambda g, d: g.standard_exponential(N, dtype=d), "expon", ()),
    ("gamma 0.3", lambda g, d: g.gamma(0.3, 2.0, N, dtype=d), "gamma", (0.3, 0, 2.0)),
    ("gamma 1", lambda g, d: g.gamma(1.0, 1.0, N, dtype=d), "gamma", (1.0,)),
    ("gamma 4.5", lambda g, d: g.standard_gamma(4.5, N, dtype=d), "gamma", (4.5,)),
    ("gamma 1e4", lambda g, d: g.standard_gamma(1e4, N, dtype=d), "gamma", (1e4,)),
    ("gamma 0.1", lambda g, d: g.standard_gamma(0.1, N, dtype=d), "gamma", (0.1,)),
    ("beta small", lambda g, d: g.beta(0.3, 0.6, N, dtype=d), "beta", (0.3, 0.6)),
    ("beta large", lambda g, d: g.beta(2.0, 5.0, N, dtype=d), "beta", (2.0, 5.0)),
    ("beta mixed", lambda g, d: g.beta(0.5, 30.0, N, dtype=d), "beta", (0.5, 30.0)),
    ("lognormal", lambda g, d: g.lognormal(0.5, 0.75, N, dtype=d), "lognorm", (0.75, 0, np.exp(0.5))),
    ("laplace", lambda g, d: g.laplace(1.0, 2.0, N, dtype=d), "laplace", (1.0, 2.0)),
    ("logistic", lambda g, d: g.logistic(-1.0, 0.5, N, dtype=d), "logistic", (-1.0, 0.5)),
    ("gumbel", lambda g, d: g.gumbel(0.5, 2.0, N, dtype=d), "gumbel_r", (0.5, 2.0)),
    ("chisquare", lambda g, d: g.chisquare(3.0, N, dtype=d), "chi2", (3.0,)),
]


@pytest.mark.parametrize("name,draw,cdf,args", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_continuous_distribution(name, draw, cdf, args, dtype):
    g = gp.random.default_rng(20261124)
    x = draw(g, dtype)
    assert x.dtype == dtype and x.shape == (N,)
    h = host(x)
    assert np.all(np.isfinite(h))
    ks(h, cdf, args)


@pytest.mark.parametrize("bg", ["PCG64", "Philox"])
def test_philox_bit_generator(bg):
    g = gp.random.Generator(getattr(gp.random, bg)(5))
    ks(host(g.random(N)), "uniform")
    ks(host(g.normal(size=N)), "norm")
    raw = host(g.bit_generator.random_raw(N))
    assert raw.dtype == np.uint64
    # Each of the 64 bits is set half the time (5 standard errors).
    bits = np.unpackbits(raw.view(np.uint8)).reshape(-1, 64).mean(axis=0)
    assert np.all(np.abs(bits - 0.5) < 5 * 0.5 / np.sqrt(N))
    # Philox's state round-trips.
    if bg == "Philox":
        s = g.bit_generator.state
        a = host(g.random(10))
        g.bit_generator.state = s
        np.testing.assert_array_equal(host(g.random(10)), a)


DISCRETE = [
    ("poisson 0.5", lambda g: g.poisson(0.5, N), lambda k: st.poisson.pmf(k, 0.5), range(0, 15)),
    ("poisson 9.9", lambda g: g.poisson(9.9, N), lambda k: st.poisson.pmf(k, 9.9), range(0, 40)),
    ("poisson 10", lambda g: g.poisson(10.0, N), lambda k: st.poisson.pmf(k, 10.0), range(0, 40)),
    ("poisson 250", lambda g: g.poisson(250.0, N), lambda k: st.poisson.pmf(k, 250.0), range(150, 360)),
    ("binomial 20 0.3", lambda g: g.binomial(20, 0.3, N), lambda k: st.binom.pmf(k, 20, 0.3), range(0, 21)),
    ("binomial 200 0.5", lambda g: g.binomial(200, 0.5, N), lambda k: st.binom.pmf(k, 200, 0.5), range(0, 201)),
    ("binomial 1000 0.97", lambda g: g.binomial(1000, 0.97, N), lambda k: st.binom.pmf(k, 1000, 0.97), range(900, 1001)),
    ("binomial 7 0.9", lambda g: g.binomial(7, 0.9, N), lambda k: st.binom.pmf(k, 7, 0.9), range(0, 8)),
    ("geometric 0.3", lambda g: g.geometric(0.3, N), lambda k: st.geom.pmf(k, 0.3), range(1, 60)),
    ("geometric 0.9", lambda g: g.geometric(0.9, N), lambda k: st.geom.pmf(k, 0.9), range(1, 20)),
    ("integers 0..100", lambda g: g.integers(0, 100, N), lambda k: np.full(len(k), 0.01), range(0, 100)),
    ("integers -3..3 endpoint", lambda g: g.integers(-3, 3, N, endpoint=True), lambda k: np.full(len(k), 1 / 7), range(-3, 4)),
    ("choice p", lambda g: g.choice(4, N, p=[0.1, 0.2, 0.3, 0.4]), lambda k: np.array([0.1, 0.2, 0.3, 0.4])[k], range(4)),
]


@pytest.mark.parametrize("name,draw,pmf,support", DISCRETE, ids=[d[0] for d in DISCRETE])
def test_discrete_distribution(name, draw, pmf, support):
    x = draw(gp.random.default_rng(777))
    assert x.dtype == np.int64 and x.shape == (N,)
    chi_square_pmf(host(x), pmf, list(support))


def test_large_parameters_and_edges():
    g = gp.random.default_rng(4)
    n = 100_000
    # Means at 5 standard errors.
    def mean_ok(x, mu, sd):
        assert abs(host(x).astype(np.float64).mean() - mu) < 5 * sd / np.sqrt(n)
    mean_ok(g.poisson(1e9, n), 1e9, np.sqrt(1e9))
    mean_ok(g.binomial(10**12, 0.5, n), 5e11, np.sqrt(2.5e11))
    mean_ok(g.binomial(10**6, 1e-7, n), 0.1, np.sqrt(0.1))
    mean_ok(g.gamma(1e8, 1.0, n), 1e8, 1e4)
    # Exact edges NumPy documents.
    assert np.all(host(g.poisson(0.0, 10)) == 0)
    assert np.all(host(g.binomial(0, 0.5, 10)) == 0)
    assert np.all(host(g.binomial(9, 1.0, 10)) == 9)
    assert np.all(host(g.binomial(9, 0.0, 10)) == 0)
    assert np.all(host(g.geometric(1.0, 10)) == 1)
    assert np.all(host(g.standard_gamma(0.0, 10)) == 0)
    assert np.all(host(g.normal(3.0, 0.0, 10)) == 3.0)
    # Shape 1e-3: about half the law lies below the smallest double (NumPy returns 0
    # there too); the share at or below 1e-100 is the CDF's, at 5 standard errors.
    tiny = host(g.standard_gamma(1e-3, n))
    want = st.gamma(1e-3).cdf(1e-100)
    assert abs(np.mean(tiny <= 1e-100) - want) < 5 * np.sqrt(want * (1 - want) / n)
    big = host(g.geometric(1e-300, 10))
    assert np.all(big == np.iinfo(np.int64).max)


def test_integer_dtypes_and_ranges():
    g = gp.random.default_rng(11)
    for dt in [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.bool_]:
        info = (0, 1) if dt == np.bool_ else (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
        x = host(g.integers(info[0], info[1], size=50_000, dtype=dt, endpoint=True))
        assert x.dtype == dt
        assert x.min() >= info[0] and x.max() <= info[1]
        # Both ends of the full range are reached for the narrow types.
        if np.dtype(dt).itemsize <= 1:
            assert x.min() == info[0] and x.max() == info[1]
    # 64-bit ranges: uniform on a span above 2^32.
    x = host(g.integers(-(2**40), 2**40, size=N)).astype(np.float64)
    ks(x, "uniform", (-(2**40), 2**41))
    x = host(g.integers(0, 2**64 - 1, size=N, dtype=np.uint64, endpoint=True))
    ks(x.astype(np.float64), "uniform", (0, 2.0**64))
    # Array bounds broadcast.
    lo = gp.asarray(np.array([[0], [100], [-50]]))
    hi = gp.asarray(np.array([10, 20, 30, 40, 50]))
    x = host(g.integers(lo - 100, hi))
    assert x.shape == (3, 5)
    assert np.all(x >= host(lo - 100)) and np.all(x < host(hi)[None, :])
    x = host(g.integers(0, gp.asarray(np.array([1, 2, 3])), size=(1000, 3)))
    assert x.shape == (1000, 3) and np.all(x < np.array([1, 2, 3]))
    assert set(np.unique(x[:, 2])) == {0, 1, 2}


def test_broadcast_parameters():
    g = gp.random.default_rng(8)
    mu = gp.asarray(np.array([-100.0, 0.0, 100.0]))
    sigma = gp.asarray(np.array([[1.0], [0.001]]))
    x = host(g.normal(mu, sigma))
    assert x.shape == (2, 3)
    x = host(g.normal(mu, sigma, size=(4000, 2, 3)))
    assert x.shape == (4000, 2, 3)
    for j, m in enumerate([-100.0, 0.0, 100.0]):
        for i, s in enumerate([1.0, 0.001]):
            col = x[:, i, j]
            assert abs(col.mean() - m) < 5 * s / np.sqrt(4000)
            assert abs(col.std() / s - 1) < 5 * np.sqrt(0.5 / 4000)
    lam = gp.asarray(np.array([0.5, 50.0, 5000.0]))
    x = host(g.poisson(lam, size=(20000, 3))).astype(np.float64)
    for j, m in enumerate([0.5, 50.0, 5000.0]):
        assert abs(x[:, j].mean() - m) < 5 * np.sqrt(m / 20000)
    with pytest.raises(ValueError, match="shape mismatch"):
        g.normal(gp.zeros(3), 1.0, size=(2, 4))


# --------------------------------------------------------------------------------------
# Determinism, launch-shape independence and independence of streams.

DRAWS = {
    "normal": lambda g, n: g.normal(size=n),
    "normal32": lambda g, n: g.standard_normal(n, dtype=np.float32),
    "uniform_philox": lambda g, n: g.exponential(size=n),
    "gamma": lambda g, n: g.gamma(0.7, size=n),
    "beta": lambda g, n: g.beta(0.5, 0.5, size=n),
    "poisson": lambda g, n: g.poisson(30.0, n),
    "binomial": lambda g, n: g.binomial(100, 0.4, n),
    "integers": lambda g, n: g.integers(0, 10**6, n),
    "integers64": lambda g, n: g.integers(0, 2**50, n),
}


@pytest.mark.parametrize("name", list(DRAWS))
def test_values_depend_on_seed_and_index_only(name):
    draw = DRAWS[name]
    a = host(draw(gp.random.default_rng(42), 1001))
    b = host(draw(gp.random.default_rng(42), 3_000_017))
    np.testing.assert_array_equal(a, b[:1001])
    np.testing.assert_array_equal(a, host(draw(gp.random.default_rng(42), 1001)))
    assert not np.array_equal(a, host(draw(gp.random.default_rng(43), 1001)))


def test_streams_are_uncorrelated():
    n = 1_000_000
    bound = 5 / np.sqrt(n)  # |r| of independent samples is about N(0, 1/n)
    parent = gp.random.default_rng(2026)
    kids = [host(c.standard_normal(n)) for c in parent.spawn(3)]
    seeds = [host(gp.random.default_rng(s).standard_normal(n)) for s in (1, 2)]
    same = gp.random.default_rng(1)
    calls = [host(same.standard_normal(n)), host(same.standard_normal(n))]
    for x, y in [(kids[0], kids[1]), (kids[1], kids[2]), (seeds[0], seeds[1]), (calls[0], calls[1])]:
        assert abs(np.corrcoef(x, y)[0, 1]) < bound
    # Neighbouring elements of one draw, too.
    x = calls[0]
    assert abs(np.corrcoef(x[:-1], x[1:])[0, 1]) < bound
    assert abs(np.corrcoef(x[:-4], x[4:])[0, 1]) < bound


# --------------------------------------------------------------------------------------
# Permutations and sampling.


def test_permutation_shuffle_permuted():
    g = gp.random.default_rng(5)
    p = host(g.permutation(10_007))
    assert p.dtype == np.int64
    np.testing.assert_array_equal(np.sort(p), np.arange(10_007))
    # Position of element 0 is uniform over many small permutations.
    firsts = host(g.permuted(gp.asarray(np.tile(np.arange(5), (50_000, 1))), axis=1))
    np.testing.assert_array_equal(np.sort(firsts, axis=1), np.tile(np.arange(5), (50_000, 1)))
    chi_square_pmf(np.argmax(firsts == 0, axis=1), lambda k: np.full(len(k), 0.2), range(5))
    x_np = np.arange(24.0).reshape(4, 6)
    x = gp.asarray(x_np)
    y = host(g.permutation(x, axis=1))
    np.testing.assert_array_equal(np.sort(y, axis=1), x_np)
    assert np.all(y[:, :1] - y[0, :1] == (x_np[:, :1] - x_np[0, :1]))  # columns move whole
    g.shuffle(x)
    h = host(x)
    np.testing.assert_array_equal(np.sort(h, axis=0), x_np)
    g.shuffle(x, axis=1)
    np.testing.assert_array_equal(np.sort(host(x).ravel()), x_np.ravel())
    r = host(g.permuted(gp.asarray(x_np)))
    np.testing.assert_array_equal(np.sort(r.ravel()), x_np.ravel())
    # Views: a reversed, strided view shuffles in place and the base sees it.
    base = gp.asarray(np.arange(20.0))
    v = base[::-2]
    g.shuffle(v)
    np.testing.assert_array_equal(np.sort(host(base)[1::2]), np.arange(1.0, 20, 2))
    np.testing.assert_array_equal(host(base)[0::2], np.arange(0.0, 20, 2))
    assert g.permutation(0).shape == (0,)


def test_choice():
    g = gp.random.default_rng(6)
    x = host(g.choice(10**6, 10**5, replace=False))
    assert len(np.unique(x)) == 10**5 and x.min() >= 0 and x.max() < 10**6
    pop = gp.asarray(np.array([10.0, 20.0, 30.0]))
    y = host(g.choice(pop, 7))
    assert y.shape == (7,) and set(y) <= {10.0, 20.0, 30.0}
    y = host(g.choice(pop, 3, replace=False))
    np.testing.assert_array_equal(np.sort(y), [10.0, 20.0, 30.0])
    # Without replacement with p: first picks follow p; zero weights never appear.
    p = np.array([0.5, 0.3, 0.2, 0.0])
    firsts = np.array([host(c.choice(4, 2, replace=False, p=p))[0] for c in g.spawn(300)])
    assert 3 not in firsts
    assert abs((firsts == 0).mean() - 0.5) < 5 * 0.5 / np.sqrt(300)
    two = host(g.choice(4, 3, replace=False, p=p))
    assert sorted(two) == [0, 1, 2]
    m = gp.asarray(np.arange(12).reshape(3, 4))
    assert g.choice(m, 2, axis=1).shape == (3, 2)
    assert g.choice(5).shape == ()
    assert g.choice(0, 0).shape == (0,)


def test_bytes_and_repr():
    g = gp.random.default_rng(1)
    b = g.bytes(10)
    assert isinstance(b, bytes) and len(b) == 10
    assert g.bytes(0) == b""
    assert "PCG64" in repr(g)
    assert isinstance(g.bit_generator, gp.random.PCG64)
    assert isinstance(gp.random.default_rng(g), gp.random.Generator) and gp.random.default_rng(g) is g
    assert isinstance(gp.random.Philox(1), gp.random.BitGenerator)


# --------------------------------------------------------------------------------------
# The legacy API and the CuPy tutorial lines.


def test_cupy_tutorial_lines():
    a = gp.random.rand(1000, 1000)
    assert a.shape == (1000, 1000) and a.dtype == np.float64
    h = host(a)
    assert h.min() >= 0 and h.max() < 1
    b = gp.random.random((4096, 4096), dtype=gp.float32)
    assert b.shape == (4096, 4096) and b.dtype == np.float32
    c = host(gp.random.randint(0, 255, size=(2000, 2000)))
    assert c.dtype == np.int64 and c.min() == 0 and c.max() == 254
    rng = gp.random.default_rng(seed=123)
    r = rng.random(5, dtype=gp.float32)
    assert r.dtype == np.float32 and r.shape == (5,)
    np.testing.assert_array_equal(host(r), np.random.default_rng(123).random(5, dtype=np.float32))
    z = rng.normal(0, 1, 5, dtype=gp.float32)
    assert z.dtype == np.float32 and z.shape == (5,)


LEGACY = [
    ("rand", lambda m: m.rand(3, 4), (3, 4), np.float64),
    ("rand0", lambda m: m.rand(), (), np.float64),
    ("randn", lambda m: m.randn(5), (5,), np.float64),
    ("randn32", lambda m: m.randn(2, 2, dtype=np.float32), (2, 2), np.float32),
    ("randint", lambda m: m.randint(3, size=7), (7,), np.int64),
    ("randint8", lambda m: m.randint(-5, 5, size=(2, 3), dtype=np.int8), (2, 3), np.int8),
    ("random", lambda m: m.random((2, 5)), (2, 5), np.float64),
    ("random_sample", lambda m: m.random_sample(4), (4,), np.float64),
    ("ranf", lambda m: m.ranf(4), (4,), np.float64),
    ("sample", lambda m: m.sample(4), (4,), np.float64),
    ("uniform", lambda m: m.uniform(-1, 1, 6), (6,), np.float64),
    ("normal", lambda m: m.normal(1, 2, (3,)), (3,), np.float64),
    ("standard_normal", lambda m: m.standard_normal(8), (8,), np.float64),
    ("exponential", lambda m: m.exponential(2.0, 8), (8,), np.float64),
    ("choice", lambda m: m.choice(5, 3), (3,), np.int64),
    ("permutation", lambda m: m.permutation(6), (6,), np.int64),
    ("binomial", lambda m: m.binomial(10, 0.5, 4), (4,), np.int64),
    ("poisson", lambda m: m.poisson(3.0, 4), (4,), np.int64),
    ("beta", lambda m: m.beta(2.0, 3.0, 4), (4,), np.float64),
    ("gamma", lambda m: m.gamma(2.0, 1.0, 4), (4,), np.float64),
    ("multinomial", lambda m: m.multinomial(20, [0.2, 0.3, 0.5], size=6), (6, 3), np.int64),
    ("multivariate_normal", lambda m: m.multivariate_normal([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]], size=5), (5, 2), np.float64),
]


# NumPy's RandomState spells these differently (``ranf``/``sample`` are module-level
# aliases of ``random_sample``; ``dtype=`` is CuPy's).
NUMPY_LEGACY = {
    "ranf": lambda m: m.random_sample(4),
    "sample": lambda m: m.random_sample(4),
    "randn32": lambda m: m.randn(2, 2).astype(np.float32),
}


@pytest.mark.parametrize("name,call,shape,dtype", LEGACY, ids=[c[0] for c in LEGACY])
def test_legacy_functions_have_numpy_shapes_and_dtypes(name, call, shape, dtype):
    want = NUMPY_LEGACY.get(name, call)(np.random.RandomState(0))
    assert np.shape(want) == shape
    gp.random.seed(0)
    got = call(gp.random)
    assert got.shape == shape and got.dtype == dtype
    gp.random.seed(0)
    np.testing.assert_array_equal(host(call(gp.random)), host(got))  # seeded: deterministic
    rs = gp.random.RandomState(0)
    np.testing.assert_array_equal(host(call(rs)), host(got))


def test_legacy_values_and_state_functions():
    rs = gp.random.RandomState(9)
    gp.random.set_random_state(rs)
    assert gp.random.get_random_state() is rs
    gp.random.seed(3)
    a = host(gp.random.rand(1000))
    assert 0 <= a.min() and a.max() < 1
    x = np.zeros(5)
    gp.random.shuffle(gp.asarray(x))
    m = host(gp.random.multinomial(100, [0.1, 0.2, 0.7], size=20000))
    assert np.all(m.sum(axis=1) == 100)
    np.testing.assert_allclose(m.mean(axis=0), [10, 20, 70], atol=5 * np.sqrt(100 * 0.7 * 0.3 / 20000) * 1.01)
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    mv = host(gp.random.multivariate_normal([1.0, -1.0], cov, size=200_000))
    np.testing.assert_allclose(mv.mean(axis=0), [1.0, -1.0], atol=5 * np.sqrt(2.0 / 200_000))
    np.testing.assert_allclose(np.cov(mv.T), cov, atol=5 * 2.0 * np.sqrt(2 / 200_000))
    rs.set_state(rs.get_state())
    for f in ["lognormal", "laplace", "logistic", "gumbel"]:
        assert getattr(gp.random, f)(size=3).shape == (3,)
    assert gp.random.standard_gamma(2.0, 3).shape == (3,)
    assert gp.random.standard_exponential(3).shape == (3,)
    assert gp.random.chisquare(2.0, 3).shape == (3,)
    assert gp.random.geometric(0.5, 3).dtype == np.int64
    with pytest.raises(TypeError):
        gp.random.set_random_state(np.random.RandomState(0))


# --------------------------------------------------------------------------------------
# Bad input: NumPy's error types and messages.

ERRORS = [
    ("normal scale", lambda m: m.normal(0, -1), "scale < 0"),
    ("normal array scale", lambda m: m.normal(0, m_arr(m, [1.0, -1.0])), "scale < 0"),
    ("gamma shape", lambda m: m.gamma(-1), "shape < 0"),
    ("gamma scale", lambda m: m.gamma(1, -1), "scale < 0"),
    ("beta a", lambda m: m.beta(0, 1), "a <= 0"),
    ("beta b", lambda m: m.beta(1, 0), "b <= 0"),
    ("poisson lam", lambda m: m.poisson(-1), r"lam < 0 or lam is NaN"),
    ("poisson nan", lambda m: m.poisson(np.nan), r"lam < 0 or lam is NaN"),
    ("poisson big", lambda m: m.poisson(1e20), "lam value too large"),
    ("binomial n", lambda m: m.binomial(-1, 0.5), "n < 0"),
    ("binomial p", lambda m: m.binomial(1, 1.1), r"p < 0, p > 1 or p is NaN"),
    ("binomial p nan", lambda m: m.binomial(1, np.nan), r"p < 0, p > 1 or p is NaN"),
    ("lognormal", lambda m: m.lognormal(0, -1), "sigma < 0"),
    ("laplace", lambda m: m.laplace(0, -1), "scale < 0"),
    ("chisquare", lambda m: m.chisquare(0), "df <= 0"),
    ("geometric", lambda m: m.geometric(0), r"p <= 0, p > 1 or p contains NaNs"),
    ("exponential", lambda m: m.exponential(-1), "scale < 0"),
    ("integers empty", lambda m: m.integers(5, 5), "low >= high"),
    ("integers endpoint", lambda m: m.integers(5, 4, endpoint=True), "low > high"),
    ("integers high", lambda m: m.integers(0, 300, dtype=np.int8), "high is out of bounds for int8"),
    ("integers low", lambda m: m.integers(-300, 0, dtype=np.int8), "low is out of bounds for int8"),
    ("integers array", lambda m: m.integers(m_arr(m, [0, 5]), m_arr(m, [1, 5])), "low >= high"),
    ("random dtype", lambda m: m.random(dtype=np.int32), r"Unsupported dtype dtype\('int32'\) for random"),
    ("normal dtype", lambda m: m.standard_normal(dtype=np.int32), r"Unsupported dtype dtype\('int32'\) for standard_normal"),
    ("integers dtype", lambda m: m.integers(0, 1, dtype=np.float64), r"Unsupported dtype dtype\('float64'\) for integers"),
    ("size", lambda m: m.random(-1), "negative dimensions are not allowed"),
    ("choice int", lambda m: m.choice(0, 3), "a must be a positive integer unless no samples are taken"),
    ("choice empty", lambda m: m.choice(m_arr(m, []), 3), "a cannot be empty unless no samples are taken"),
    ("choice size", lambda m: m.choice(5, 6, replace=False), "Cannot take a larger sample than population when replace is False"),
    ("choice p size", lambda m: m.choice(3, p=[0.5, 0.5]), "a and p must have same size"),
    ("choice p neg", lambda m: m.choice(3, p=[0.5, 0.6, -0.1]), "Probabilities are not non-negative"),
    ("choice p sum", lambda m: m.choice(3, p=[0.5, 0.6, 0.1]), "Probabilities do not sum to 1"),
    ("choice nonzero", lambda m: m.choice(3, 3, replace=False, p=[1, 0, 0]), "Fewer non-zero entries in p than size"),
    ("uniform range", lambda m: m.uniform(0, np.inf), "high - low range exceeds valid bounds"),
    ("broadcast", lambda m: m.normal(m_arr(m, np.zeros(3)), 1, size=(2, 4)), "shape mismatch"),
]


@pytest.mark.parametrize("name,call,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_numpy(name, call, match):
    generator_raises_as_numpy(call, match, np.random.default_rng, gp.random.default_rng)
    # The process stays usable and nothing leaked.
    assert gp.random.default_rng(0).random(3).shape == (3,)


def test_legacy_errors_match_numpy():
    with pytest.raises(ValueError, match="low >= high"):
        gp.random.randint(5, 5)
    with pytest.raises(ValueError, match=r"sum\(pvals\[:-1\]\) > 1.0"):
        gp.random.multinomial(5, [0.7, 0.7, 0.1])
    with pytest.raises(ValueError, match="mean and cov must have same length"):
        gp.random.multivariate_normal([0.0], [[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(TypeError, match="Generator takes a gpupy.random bit generator"):
        gp.random.Generator(np.random.Philox(0))


def test_errors_leave_the_pool_at_baseline():
    pool = gp.get_default_memory_pool()
    g = gp.random.default_rng(0)
    g.normal(size=10)
    gp.cuda.Device().synchronize()
    before = pool.used_bytes()
    for call in [lambda: g.normal(gp.zeros(1000), -1.0), lambda: g.choice(5, 6, replace=False), lambda: g.integers(gp.zeros(100, dtype=gp.int64), 0)]:
        with pytest.raises(ValueError):
            call()
    assert pool.used_bytes() == before
