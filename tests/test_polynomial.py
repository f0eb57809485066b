"""Polynomial functions (vander, polyval, polyfit, roots, poly, poly1d, polyadd,
polysub, polymul, polydiv, polyder, polyint) against NumPy. Integer-coefficient
arithmetic is exact; least squares and eigenvalues within their conditioning (checked
as residuals / sorted roots at tolerances stated at each call)."""

import numpy as np
import pytest

import gpupy as gp
from helpers import assert_equal_to_numpy, dtype_id, random_array, raises_like

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.complex128], ids=dtype_id)
def test_vander_polyval(rng, dtype):
    x = random_array(rng, 6, dtype)
    if np.dtype(dtype).kind in "iu":
        x = x % 7
    g = gp.asarray(x)
    for N, inc in ((None, False), (4, True), (0, False)):
        want = np.vander(x, N, inc)
        got = gp.vander(g, N, inc)
        np.testing.assert_allclose(got.get(), want, rtol=16 * (np.finfo(want.dtype).eps if want.dtype.kind in "fc" else 0))
        assert got.dtype == want.dtype
    p = random_array(rng, 4, dtype)
    np.testing.assert_allclose(gp.polyval(gp.asarray(p), g[::-1]).get(), np.polyval(p, x[::-1]),
                               rtol=32 * (np.finfo(dtype).eps if np.dtype(dtype).kind in "fc" else 0))


def test_polyfit(rng):
    x = np.linspace(-1, 1, 30)
    y = np.stack([3 * x**2 - x + 0.5, x**3], axis=1) + 1e-3 * rng.standard_normal((30, 2))
    w = rng.uniform(0.5, 2, 30)
    for kw in ({}, {"w": w}):
        want = np.polyfit(x, y, 3, **{k: v for k, v in kw.items()})
        got = gp.polyfit(gp.asarray(x), gp.asarray(y), 3, **{k: gp.asarray(v) for k, v in kw.items()})
        np.testing.assert_allclose(got.get(), want, atol=1e-10)  # cond(scaled vander) ~ 10: 1e5 eps
    c, cov = gp.polyfit(gp.asarray(x), gp.asarray(y[:, 0]), 2, cov=True)
    cw, covw = np.polyfit(x, y[:, 0], 2, cov=True)
    np.testing.assert_allclose(cov.get(), covw, rtol=1e-8)
    raises_like(lambda: gp.polyfit(gp.asarray(x), gp.asarray(y[:3]), 1), lambda: np.polyfit(x, y[:3], 1))


@pytest.mark.parametrize("coeffs", [[1, -6, 11, -6], [2.0, 0.0, 1.0], [0, 0, 1, 3, 0, 0], [5], [0, 0]])
def test_roots_poly(coeffs):
    want = np.roots(coeffs)
    got = gp.roots(gp.asarray(np.asarray(coeffs))).get()
    assert got.shape == want.shape
    np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(want), atol=1e-10)  # simple roots, cond ~ 10
    r = np.array([1.0, 2.0, -3.0])
    np.testing.assert_allclose(gp.poly(gp.asarray(r)).get(), np.poly(r), rtol=1e-14)
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(gp.poly(gp.asarray(m)).get(), np.poly(m), rtol=1e-12)


def test_poly_arithmetic_exact(rng):
    a = rng.integers(-9, 9, 5).astype(np.int64)
    b = rng.integers(-9, 9, 3).astype(np.int64)
    ga, gb = gp.asarray(a), gp.asarray(b)
    assert_equal_to_numpy(gp.polyadd(ga, gb), np.polyadd(a, b))
    assert_equal_to_numpy(gp.polysub(gb, ga), np.polysub(b, a))
    assert_equal_to_numpy(gp.polymul(ga, gb), np.polymul(a, b))
    assert_equal_to_numpy(gp.polyder(ga, 2), np.polyder(a, 2))
    np.testing.assert_allclose(gp.polyint(ga, 2, k=[1, 2]).get(), np.polyint(a, 2, k=[1, 2]), rtol=1e-15)
    b[0] = 3
    q, r = gp.polydiv(ga.astype(np.float64), gp.asarray(b).astype(np.float64))
    qw, rw = np.polydiv(a.astype(float), b.astype(float))
    np.testing.assert_allclose(q.get(), qw, rtol=1e-13)
    np.testing.assert_allclose(r.get(), rw, rtol=1e-13, atol=1e-12)


def test_poly1d_basics():
    p, q = gp.poly1d([1.0, -3.0, 2.0]), gp.poly1d([0.0, 2.0, 1.0])
    pn, qn = np.poly1d([1.0, -3.0, 2.0]), np.poly1d([0.0, 2.0, 1.0])
    assert p.order == pn.order and q.order == qn.order
    np.testing.assert_allclose(p(gp.asarray(np.array([0.5, 3.0]))).get(), pn([0.5, 3.0]))
    for got, want in ((p + q, pn + qn), (p - q, pn - qn), (p * q, pn * qn), (p ** 2, pn ** 2), (p * 2, pn * 2),
                      (p.deriv(), pn.deriv()), (p.integ(k=1), pn.integ(k=1))):
        np.testing.assert_allclose(got.coeffs.get(), want.coeffs, rtol=1e-15)
    np.testing.assert_allclose(np.sort(p.roots.get()), np.sort(pn.roots), rtol=1e-12)
    assert p == gp.poly1d(np.array([0.0, 1.0, -3.0, 2.0]))
    assert float(p[2]) == pn[2]
