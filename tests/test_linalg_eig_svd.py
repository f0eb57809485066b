"""gpupy.linalg's eigenvalues, singular values and what is built on them, against NumPy
(LAPACK, float64 on the same values): ``eigh``, ``eigvalsh``, ``eig``, ``eigvals``,
``svd`` (with vectors, ``hermitian=``), ``lstsq``, ``pinv``, ``matrix_rank``, ``cond``,
and the products and views ``multi_dot``, ``cross``, ``diagonal``, ``outer``, ``trace``.

Bounds (constants in ``linalg_helpers``): eigen- and singular values within
``C_ITER n eps ||A||_2`` of LAPACK's (Weyl); eigenvectors through ``||A V - V diag(w)||``
and orthonormality, singular vectors through ``||A - U S Vh||`` and orthonormality
(vectors of clustered values are not unique, so they are not compared entry by entry;
where they are, the sign/phase of each is normalized first). Derived quantities
(``pinv``, ``lstsq``) by the defining residuals or, for well-conditioned problems, the
forward error bound ``cond * C * n * eps``.
"""

import numpy as np
import pytest

import gpupy as gp
from helpers import assert_equal_to_numpy, dtype_id, random_array
from linalg_helpers import (
    C_ITER,
    C_SOLVE,
    FLOAT_TYPES,
    LARGE_SIZES,
    SIZES,
    assert_eigenpairs,
    assert_orthonormal_columns,
    assert_reconstructs,
    assert_values_close,
    ct,
    eps_of,
    hermitian,
    hermitian_part,
    norm2,
    randn,
    same_error,
    well_conditioned,
    wide,
    with_condition,
)

pytestmark = pytest.mark.gpu


# ---------------------------------------------------------------------------------------
# eigh, eigvalsh


# (dtype, shape): every size for every dtype, the large ones (257, 600) in real dtypes
# only (they cost seconds each and test the same code as complex 130).
EIGH_CASES = [(dt, (n, n)) for dt in FLOAT_TYPES for n in SIZES] + \
    [(dt, s) for dt in FLOAT_TYPES for s in [(6, 5, 5), (2, 3, 17, 17), (0, 4, 4)]] + \
    [(dt, (n, n)) for dt in (np.float32, np.float64) for n in LARGE_SIZES]


@pytest.mark.parametrize("dtype, shape", EIGH_CASES, ids=lambda v: dtype_id(v) if isinstance(v, type) else str(v))
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(rng, dtype, shape, uplo):
    # The triangle that is not read holds unrelated values: the result must not see them.
    h = hermitian(rng, shape, dtype)
    garbage = randn(rng, shape, dtype)
    a = np.where(np.tri(shape[-1], dtype=bool) if uplo == "L" else ~np.tri(shape[-1], k=-1, dtype=bool), h, garbage)
    w_want, v_want = np.linalg.eigh(a, UPLO=uplo)
    res = gp.linalg.eigh(gp.asarray(a), UPLO=uplo)
    w, v = res
    assert res.eigenvalues is w and res.eigenvectors is v
    assert w.dtype == w_want.dtype and v.dtype == v_want.dtype
    assert w.shape == w_want.shape and v.shape == v_want.shape
    wh, vh = gp.asnumpy(w), gp.asnumpy(v)
    herm = hermitian_part(wide(a.astype(dtype)), uplo == "L")
    ref = np.linalg.eigvalsh(herm)
    assert np.all(np.diff(wh, axis=-1) >= 0), "eigenvalues not ascending"
    assert_values_close(wh, ref, norm2(herm), w.dtype)
    assert_eigenpairs(herm, wh, vh, v.dtype)
    assert_orthonormal_columns(vh, v.dtype, c=C_ITER)
    wo = gp.linalg.eigvalsh(gp.asarray(a), UPLO=uplo.lower())
    assert wo.dtype == w_want.dtype and wo.shape == w_want.shape
    assert_values_close(gp.asnumpy(wo), ref, norm2(herm), wo.dtype)


def test_eigh_structured(rng):
    """Repeated eigenvalues (identity, a projector), a diagonal matrix (eigenvectors are
    unit vectors up to sign: compared after normalizing signs), widely spread ones."""
    n = 30
    q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    cases = [np.eye(n), q[:, :5] @ q[:, :5].T, q @ np.diag(np.logspace(0, -12, n)) @ q.T, q @ np.diag(np.r_[-np.ones(10), np.ones(20)]) @ q.T]
    for a in cases:
        w, v = (gp.asnumpy(x) for x in gp.linalg.eigh(gp.asarray(a)))
        assert_values_close(w, np.linalg.eigvalsh(a), norm2(a), np.float64)
        assert_eigenpairs(a, w, v, np.float64)
        assert_orthonormal_columns(v, np.float64, c=C_ITER)
    d = np.diag(rng.permutation(n).astype(np.float64))
    w, v = (gp.asnumpy(x) for x in gp.linalg.eigh(gp.asarray(d)))
    assert_values_close(w, np.arange(n, dtype=np.float64), norm2(d), np.float64)
    # Column i is +-e_{p(i)}: normalize the sign by the largest entry, then compare.
    v = v * np.sign(v[np.argmax(np.abs(v), axis=0), np.arange(n)])
    want = np.eye(n)[:, np.argsort(np.diag(d))]
    np.testing.assert_allclose(v, want, atol=C_ITER * n * np.finfo(np.float64).eps)


def test_eigh_errors_and_promotion(rng):
    a = randn(rng, (3, 4), np.float64)
    same_error(lambda: gp.linalg.eigh(gp.asarray(a)), lambda: np.linalg.eigh(a), np.linalg.LinAlgError)
    same_error(lambda: gp.linalg.eigvalsh(gp.asarray(a[0])), lambda: np.linalg.eigvalsh(a[0]), np.linalg.LinAlgError)
    s = hermitian(rng, (3, 3), np.float64)
    same_error(lambda: gp.linalg.eigh(gp.asarray(s), UPLO="X"), lambda: np.linalg.eigh(s, UPLO="X"), ValueError)
    i = rng.integers(-4, 5, (5, 5))
    i = i + i.T
    w, v = gp.linalg.eigh(gp.asarray(i))
    assert w.dtype == np.float64 and v.dtype == np.float64
    assert_values_close(gp.asnumpy(w), np.linalg.eigvalsh(i), norm2(i), np.float64)


# ---------------------------------------------------------------------------------------
# eig, eigvals


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
def test_eig_of_hermitian(rng, dtype):
    a = hermitian(rng, (3, 9, 9), dtype)
    w_want, v_want = np.linalg.eig(a)
    w, v = gp.linalg.eig(gp.asarray(a))
    assert w.dtype == w_want.dtype and v.dtype == v_want.dtype and w.shape == w_want.shape
    ref = np.sort(np.linalg.eigvalsh(wide(a)), axis=-1)
    # NumPy leaves the order unspecified: compare sorted values.
    assert_values_close(np.sort(gp.asnumpy(w).real, axis=-1), ref, norm2(a), dtype)
    assert_eigenpairs(a, gp.asnumpy(w), gp.asnumpy(v), dtype)
    ev = gp.linalg.eigvals(gp.asarray(a))
    assert ev.dtype == np.linalg.eigvals(a).dtype
    assert_values_close(np.sort(gp.asnumpy(ev).real, axis=-1), ref, norm2(a), dtype)


def check_general_eig(a, w, v, dtype):
    """General eigenpairs of ``a`` (host arrays): the residual ``||A V - V diag(w)||``
    within C_ITER n eps ||A|| (the QR iteration is backward stable), unit eigenvectors,
    and each eigenvalue within ``C_ITER n eps ||A||_2 kappa_i`` of LAPACK's float64 one
    it pairs with (nearest first), ``kappa_i = ||y_i|| ||x_i|| / |y_i^H x_i|`` its
    condition number from LAPACK's right eigenvectors ``X`` and ``Y^H = X^-1``."""
    a_w = wide(np.asarray(a).astype(dtype)).reshape((-1,) + a.shape[-2:])
    n = a.shape[-1]
    wf = wide(w).reshape((-1, n))
    vf = wide(v).reshape((-1, n, n)) if v is not None else None
    for i in range(a_w.shape[0]):
        if vf is not None:
            assert_eigenpairs(a_w[i], wf[i], vf[i], dtype)
            np.testing.assert_allclose(np.linalg.norm(vf[i], axis=0), 1, atol=C_ITER * n * eps_of(dtype))
        ref_w, ref_x = np.linalg.eig(a_w[i])
        y = np.linalg.inv(ref_x)
        kappa = np.linalg.norm(y, axis=1) * np.linalg.norm(ref_x, axis=0)
        bound = C_ITER * n * eps_of(dtype) * np.linalg.norm(a_w[i], 2) * kappa
        free = list(range(n))
        for j in np.argsort(-np.abs(ref_w)):
            k = min(free, key=lambda q: abs(wf[i][q] - ref_w[j]))
            free.remove(k)
            assert abs(wf[i][k] - ref_w[j]) <= bound[j], (
                f"eigenvalue {wf[i][k]} vs LAPACK's {ref_w[j]}: {abs(wf[i][k] - ref_w[j]):.2e} > {bound[j]:.2e}")


GENERAL_SHAPES = [(1, 1), (2, 2), (3, 3), (5, 5), (17, 17), (33, 33), (4, 6, 6), (2, 3, 4, 4), (0, 3, 3), (3, 0, 0)]


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", GENERAL_SHAPES, ids=str)
def test_eig_general(rng, dtype, shape):
    a = randn(rng, shape, dtype)
    w_want, v_want = np.linalg.eig(a)
    w, v = gp.linalg.eig(gp.asarray(a))
    assert w.dtype == w_want.dtype and v.dtype == v_want.dtype
    assert w.shape == w_want.shape and v.shape == v_want.shape
    if a.size:
        check_general_eig(a, gp.asnumpy(w), gp.asnumpy(v), dtype)
    ev = gp.linalg.eigvals(gp.asarray(a))
    ev_want = np.linalg.eigvals(a)
    assert ev.dtype == ev_want.dtype and ev.shape == ev_want.shape
    if a.size:
        check_general_eig(a, gp.asnumpy(ev), None, dtype)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
def test_eig_structured(rng, dtype):
    """Diagonal, triangular (real eigenvalues: a real result for real input, as NumPy
    gives it), a rotation (complex pair) and a defective-free block matrix."""
    n = 7
    t = np.triu(randn(rng, (n, n), dtype))
    rot = np.array([[0.0, -1.0], [1.0, 0.0]]).astype(dtype)
    block = np.zeros((n, n), dtype)
    block[:3, :3] = randn(rng, (3, 3), dtype)
    block[3:, 3:] = randn(rng, (4, 4), dtype)
    for m in [np.diag(randn(rng, (n,), dtype)).astype(dtype), t, t.T.copy(), rot, block]:
        w_want, v_want = np.linalg.eig(m)
        w, v = gp.linalg.eig(gp.asarray(m))
        assert w.dtype == w_want.dtype and v.dtype == v_want.dtype
        check_general_eig(m, gp.asnumpy(w), gp.asnumpy(v), dtype)
        ev = gp.linalg.eigvals(gp.asarray(m))
        assert ev.dtype == np.linalg.eigvals(m).dtype


def test_eig_errors(rng):
    a = randn(rng, (5, 5), np.float64)
    bad = a.copy()
    bad[1, 2] = np.inf
    for g, f in [(gp.linalg.eig, np.linalg.eig), (gp.linalg.eigvals, np.linalg.eigvals)]:
        same_error(lambda: g(gp.asarray(bad)), lambda: f(bad), np.linalg.LinAlgError)
        same_error(lambda: g(gp.asarray(a[:, :3])), lambda: f(a[:, :3]), np.linalg.LinAlgError)
        same_error(lambda: g(gp.asarray(a[0])), lambda: f(a[0]), np.linalg.LinAlgError)


# ---------------------------------------------------------------------------------------
# svd

SVD_SHAPES = [(n, n) for n in SIZES] + [(40, 7), (7, 40), (130, 65), (65, 130), (257, 100), (0, 3), (3, 0),
                                       (5, 9, 4), (2, 3, 6, 11), (0, 5, 4)]


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", SVD_SHAPES, ids=str)
@pytest.mark.parametrize("full", [True, False])
def test_svd(rng, dtype, shape, full):
    a = randn(rng, shape, dtype)
    u_w, s_w, vh_w = np.linalg.svd(a, full_matrices=full)
    res = gp.linalg.svd(gp.asarray(a), full_matrices=full)
    u, s, vh = res
    assert res.U is u and res.S is s and res.Vh is vh
    for g, w in [(u, u_w), (s, s_w), (vh, vh_w)]:
        assert g.dtype == w.dtype and g.shape == w.shape
    uh, sh, vhh = (gp.asnumpy(x) for x in (u, s, vh))
    assert np.all(np.diff(sh, axis=-1) <= 0), "singular values not descending"
    assert_values_close(sh, np.linalg.svd(wide(a), compute_uv=False), norm2(a), s.dtype, what="singular values")
    k = min(shape[-2:])
    assert_orthonormal_columns(uh, u.dtype, c=C_ITER)
    assert_orthonormal_columns(ct(vhh), vh.dtype, c=C_ITER)
    recon = (wide(uh[..., :, :k]) * sh[..., None, :]) @ wide(vhh[..., :k, :])
    assert_reconstructs(a, recon, u.dtype, c=C_ITER)
    s_only = gp.linalg.svd(gp.asarray(a), compute_uv=False)
    assert s_only.dtype == s_w.dtype and s_only.shape == s_w.shape


@pytest.mark.parametrize("dtype", [np.float64, np.complex64], ids=dtype_id)
def test_svd_hermitian(rng, dtype):
    a = hermitian(rng, (4, 12, 12), dtype)
    u, s, vh = (gp.asnumpy(x) for x in gp.linalg.svd(gp.asarray(a), hermitian=True))
    ref = np.linalg.svd(wide(a), compute_uv=False)
    assert_values_close(s, ref, norm2(a), dtype, what="singular values")
    assert_reconstructs(a, (wide(u) * s[..., None, :]) @ wide(vh), dtype, c=C_ITER)
    assert_orthonormal_columns(u, dtype, c=C_ITER)
    so = gp.linalg.svd(gp.asarray(a), compute_uv=False, hermitian=True)
    assert so.dtype == np.linalg.svd(a, compute_uv=False, hermitian=True).dtype
    assert_values_close(gp.asnumpy(so), ref, norm2(a), dtype, what="singular values")


def test_svd_structured(rng):
    """Rank-deficient, orthogonal, widely spread (cond 1e12) and block matrices."""
    n = 24
    q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    low = rng.standard_normal((n, 3)) @ rng.standard_normal((3, n))
    block = np.zeros((n, n))
    block[:10, :10] = rng.standard_normal((10, 10))
    block[10:, 10:] = rng.standard_normal((14, 14))
    for a in [low, q, with_condition(rng, n, 1e12), block]:
        u, s, vh = (gp.asnumpy(x) for x in gp.linalg.svd(gp.asarray(a)))
        assert_values_close(s, np.linalg.svd(a, compute_uv=False), norm2(a), np.float64, what="singular values")
        assert_reconstructs(a, (u * s) @ vh, np.float64, c=C_ITER)
        assert_orthonormal_columns(u, np.float64, c=C_ITER)


def test_svd_errors(rng):
    v = randn(rng, (4,), np.float64)
    same_error(lambda: gp.linalg.svd(gp.asarray(v)), lambda: np.linalg.svd(v), np.linalg.LinAlgError)
    same_error(lambda: gp.linalg.svd(gp.asarray(v), hermitian=True), lambda: np.linalg.svd(v, hermitian=True),
               np.linalg.LinAlgError)
    same_error(lambda: gp.linalg.svdvals(gp.asarray(v)), lambda: np.linalg.svdvals(v), np.linalg.LinAlgError)


# ---------------------------------------------------------------------------------------
# lstsq


LSTSQ_CASES = [(dt, m, n) for dt in FLOAT_TYPES for m, n in [(40, 7), (7, 40), (33, 33), (1, 1), (130, 65), (5, 0),
                                                                (0, 5)]]
LSTSQ_CASES += [(np.float64, 600, 257)]


@pytest.mark.parametrize("dtype, m, n", LSTSQ_CASES, ids=lambda v: dtype_id(v) if isinstance(v, type) else str(v))
@pytest.mark.parametrize("rhs", [None, 1, 4, 0])
def test_lstsq(rng, dtype, m, n, rhs):
    a = randn(rng, (m, n), dtype)
    b = randn(rng, (m,) if rhs is None else (m, rhs), dtype)
    x_w, r_w, rank_w, s_w = np.linalg.lstsq(a, b)
    x, r, rank, s = gp.linalg.lstsq(gp.asarray(a), gp.asarray(b))
    assert x.dtype == x_w.dtype and x.shape == x_w.shape
    assert r.dtype == r_w.dtype and r.shape == r_w.shape
    assert s.dtype == s_w.dtype and s.shape == s_w.shape
    assert type(rank) is type(rank_w) and rank == rank_w
    if x.size == 0 or min(m, n) == 0:
        np.testing.assert_array_equal(gp.asnumpy(x), x_w)
        np.testing.assert_allclose(gp.asnumpy(r), r_w, rtol=m * eps_of(dtype))
        return
    # Full-rank random problems are well conditioned: the solution against LAPACK's
    # within cond * C_SOLVE * max(m, n) * eps (relative), and the residual norms as well.
    aw = wide(a)
    cond = np.linalg.cond(aw)
    tol = cond * C_SOLVE * max(m, n) * eps_of(dtype)
    want = np.linalg.lstsq(aw, wide(b))[0]
    err = np.linalg.norm(wide(gp.asnumpy(x)) - want) / max(np.linalg.norm(want), np.finfo(float).tiny)
    assert err <= tol, f"lstsq forward error {err:.2e} > {tol:.2e}"
    if r_w.size:
        np.testing.assert_allclose(gp.asnumpy(r), np.linalg.lstsq(aw, wide(b))[1], rtol=2 * tol)
    assert_values_close(gp.asnumpy(s), np.linalg.svd(aw, compute_uv=False), norm2(a), dtype,
                        what="singular values")


def test_lstsq_rank_deficient(rng):
    a = rng.standard_normal((30, 4)) @ rng.standard_normal((4, 12))  # rank 4
    b = rng.standard_normal((30, 2))
    x, r, rank, s = gp.linalg.lstsq(gp.asarray(a), gp.asarray(b))
    x_w, r_w, rank_w, _ = np.linalg.lstsq(a, b)
    assert rank == rank_w == 4
    assert r.shape == r_w.shape == (0,)
    # The minimum-norm solution is unique: compare within the well-conditioned part's bound.
    s_w = np.linalg.svd(a, compute_uv=False)
    tol = s_w[0] / s_w[3] * C_SOLVE * 30 * np.finfo(np.float64).eps
    assert np.linalg.norm(gp.asnumpy(x) - x_w) <= tol * np.linalg.norm(x_w)
    # rcond: cut the spectrum above all but the largest value.
    x1, _, rank1, _ = gp.linalg.lstsq(gp.asarray(a), gp.asarray(b), rcond=0.999 * s_w[1] / s_w[0] + 1e-3)
    assert rank1 == np.linalg.lstsq(a, b, rcond=0.999 * s_w[1] / s_w[0] + 1e-3)[2]


def test_lstsq_errors(rng):
    a = randn(rng, (5, 3), np.float64)
    same_error(lambda: gp.linalg.lstsq(gp.asarray(a), gp.asarray(a[:4, 0])), lambda: np.linalg.lstsq(a, a[:4, 0]),
               np.linalg.LinAlgError)
    a3 = randn(rng, (2, 5, 3), np.float64)
    same_error(lambda: gp.linalg.lstsq(gp.asarray(a3), gp.asarray(a[:, 0])), lambda: np.linalg.lstsq(a3, a[:, 0]),
               np.linalg.LinAlgError)


# ---------------------------------------------------------------------------------------
# pinv, matrix_rank, cond


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(7, 7), (12, 5), (5, 12), (3, 8, 6), (0, 4), (2, 0, 3), (1, 1)], ids=str)
@pytest.mark.parametrize("hermitian_", [False, True])
def test_pinv(rng, dtype, shape, hermitian_):
    if hermitian_:
        if shape[-1] != shape[-2]:
            pytest.skip("hermitian=True needs square matrices")
        a = hermitian(rng, shape, dtype)
    else:
        a = randn(rng, shape, dtype)
    want = np.linalg.pinv(a, hermitian=hermitian_)
    got = gp.linalg.pinv(gp.asarray(a), hermitian=hermitian_)
    assert got.dtype == want.dtype and got.shape == want.shape
    if a.size == 0:
        return
    # The Moore-Penrose conditions A X A = A and X A X = X, as residuals.
    x = wide(gp.asnumpy(got))
    aw = wide(a.astype(dtype))
    cond = np.max(np.linalg.cond(aw))
    assert_reconstructs(aw, aw @ x @ aw, dtype, c=C_ITER * cond)
    assert_reconstructs(x, x @ aw @ x, dtype, c=C_ITER * cond)


def test_pinv_rcond_rtol(rng):
    a = rng.standard_normal((10, 3)) @ rng.standard_normal((3, 8))  # rank 3
    # Cut-offs far from both the three nonzero singular values and the rounding noise
    # (about 1e-15 s_max) in place of the others.
    for kw in [{"rcond": 1e-10}, {"rtol": 1e-8}, {"rcond": np.array(1e-10)}]:
        got = gp.asnumpy(gp.linalg.pinv(gp.asarray(a), **kw))
        want = np.linalg.pinv(a, **kw)
        s = np.linalg.svd(a, compute_uv=False)
        tol = s[0] / s[2] * C_ITER * 10 * np.finfo(np.float64).eps
        assert np.linalg.norm(got - want) <= tol * np.linalg.norm(want), kw
    same_error(lambda: gp.linalg.pinv(gp.asarray(a), rcond=1e-3, rtol=1e-3),
               lambda: np.linalg.pinv(a, rcond=1e-3, rtol=1e-3), ValueError)


@pytest.mark.parametrize("dtype", FLOAT_TYPES + [np.int64], ids=dtype_id)
def test_matrix_rank(rng, dtype):
    cases = [randn(rng, (8, 8), dtype), randn(rng, (8, 3), dtype) @ randn(rng, (3, 9), dtype),
             np.zeros((4, 6), dtype), np.stack([randn(rng, (6, 2), dtype) @ randn(rng, (2, 6), dtype),
                                               randn(rng, (6, 6), dtype)])]
    for a in cases:
        want = np.linalg.matrix_rank(a)
        got = gp.linalg.matrix_rank(gp.asarray(a))
        np.testing.assert_array_equal(gp.asnumpy(got), want)
    for v in [np.zeros(4), np.array([0.0, 1.0]), np.float64(3.0)]:
        assert gp.linalg.matrix_rank(gp.asarray(v)) == np.linalg.matrix_rank(v)
    a = cases[1]
    for kw in [{"tol": 1e-3}, {"rtol": 1e-3}, {"hermitian": False}]:
        np.testing.assert_array_equal(gp.asnumpy(gp.linalg.matrix_rank(gp.asarray(a), **kw)),
                                      np.linalg.matrix_rank(a, **kw))
    h = hermitian(rng, (5, 5), np.float64)
    assert int(gp.linalg.matrix_rank(gp.asarray(h), hermitian=True)) == np.linalg.matrix_rank(h, hermitian=True)
    same_error(lambda: gp.linalg.matrix_rank(gp.asarray(a), tol=1, rtol=1),
               lambda: np.linalg.matrix_rank(a, tol=1, rtol=1), ValueError)


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128], ids=dtype_id)
def test_cond(rng, p, dtype):
    a = np.stack([well_conditioned(rng, (9, 9), dtype), with_condition(rng, 9, 1e3, dtype)])
    want = np.linalg.cond(a, p)
    got = gp.linalg.cond(gp.asarray(a), p)
    assert got.dtype == want.dtype and got.shape == want.shape
    # Backward errors of C n eps ||A|| in the singular values or the inverse move the
    # condition number by a relative C n eps cond_2(A) (for every p: the inverse's
    # relative error is of that size).
    aw = wide(a.astype(dtype))
    ref = np.linalg.cond(aw, p)
    tol = np.linalg.cond(aw) * C_ITER * 9 * eps_of(dtype)
    assert np.all(np.abs(wide(gp.asnumpy(got)) - ref) <= tol * ref)


def test_cond_singular_and_errors(rng):
    s = np.array([[1.0, 0.0], [0.0, 0.0]])
    for p in [None, 1, np.inf, "fro"]:
        assert float(gp.linalg.cond(gp.asarray(s), p)) == np.linalg.cond(s, p) == np.inf
    n = s.copy()
    n[0, 0] = np.nan
    assert np.isnan(float(gp.linalg.cond(gp.asarray(n), 1)))
    for shape in [(0, 3), (2, 0, 0)]:
        e = np.ones(shape)
        same_error(lambda: gp.linalg.cond(gp.asarray(e)), lambda: np.linalg.cond(e), np.linalg.LinAlgError)
    r = randn(rng, (3, 4), np.float64)
    same_error(lambda: gp.linalg.cond(gp.asarray(r), 1), lambda: np.linalg.cond(r, 1), np.linalg.LinAlgError)


# ---------------------------------------------------------------------------------------
# multi_dot, cross, diagonal, outer, trace (numpy.linalg's array API semantics)


@pytest.mark.parametrize("shapes", [
    [(10, 30), (30, 5), (5, 60)],
    [(30,), (30, 5), (5, 60), (60, 2)],
    [(4, 7), (7, 9), (9, 2), (2, 8), (8,)],
    [(6,), (6, 3), (3,)],
    [(3, 4), (4, 5)],
])
def test_multi_dot(rng, shapes):
    arrays = [randn(rng, s, np.float64) for s in shapes]
    want = np.linalg.multi_dot(arrays)
    got = gp.linalg.multi_dot([gp.asarray(x) for x in arrays])
    assert got.shape == np.shape(want)
    # Each product of the chain errs by gamma_k |A||B|: bound the whole chain by the
    # product of the operands' absolute values.
    absprod = np.linalg.multi_dot([np.abs(x) for x in arrays])
    k = sum(max(s) for s in shapes)
    assert np.all(np.abs(gp.asnumpy(got) - want) <= 2 * k * np.finfo(np.float64).eps * absprod)


def test_multi_dot_order_and_errors(rng):
    # The optimal order multiplies the thin matrices first: same values as NumPy's order.
    a, b, c, d = (randn(rng, s, np.float64) for s in [(2, 50), (50, 3), (3, 50), (50, 2)])
    got = gp.asnumpy(gp.linalg.multi_dot([gp.asarray(x) for x in (a, b, c, d)]))
    np.testing.assert_allclose(got, np.linalg.multi_dot([a, b, c, d]), rtol=1e-12)
    out = gp.empty((2, 2))
    assert gp.linalg.multi_dot([gp.asarray(x) for x in (a, b, c, d)], out=out) is out
    same_error(lambda: gp.linalg.multi_dot([gp.asarray(a)]), lambda: np.linalg.multi_dot([a]), ValueError)
    t = randn(rng, (2, 2, 2), np.float64)
    same_error(lambda: gp.linalg.multi_dot([gp.asarray(t), gp.asarray(a[:, :2]), gp.asarray(a[:, :2])]),
               lambda: np.linalg.multi_dot([t, a[:, :2], a[:, :2]]), np.linalg.LinAlgError)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.complex64], ids=dtype_id)
@pytest.mark.parametrize("sa, sb, axis", [((3,), (3,), -1), ((5, 3), (3,), -1), ((4, 1, 3), (2, 3), -1),
                                          ((3, 4), (3, 4), 0), ((2, 3, 5), (2, 3, 5), 1)])
def test_cross(rng, dtype, sa, sb, axis):
    x = random_array(rng, sa, dtype)
    y = random_array(rng, sb, dtype)
    if np.dtype(dtype).kind == "i":
        x, y = x % 1000, y % 1000
    want = np.linalg.cross(x, y, axis=axis)
    got = gp.linalg.cross(gp.asarray(x), gp.asarray(y), axis=axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "i":
        np.testing.assert_array_equal(gp.asnumpy(got), want)
    else:
        # Each component is a1 b2 - a2 b1: two products and a difference, each rounded
        # once (complex: four products and two sums per product), against the exact
        # value from the same inputs: within c u (|a1||b2| + |a2||b1|), c = 3 (10 complex).
        ax, ay = np.moveaxis(np.abs(wide(x)), axis, -1), np.moveaxis(np.abs(wide(y)), axis, -1)
        mag = np.stack([ax[..., 1] * ay[..., 2] + ax[..., 2] * ay[..., 1],
                        ax[..., 2] * ay[..., 0] + ax[..., 0] * ay[..., 2],
                        ax[..., 0] * ay[..., 1] + ax[..., 1] * ay[..., 0]], axis=-1)
        mag = np.moveaxis(mag, -1, axis)
        exact = np.linalg.cross(wide(x), wide(y), axis=axis)
        c = 10 if got.dtype.kind == "c" else 3
        assert np.all(np.abs(wide(gp.asnumpy(got)) - exact) <= c * eps_of(dtype) / 2 * mag)
    z = random_array(rng, (4, 2), np.float64)
    same_error(lambda: gp.linalg.cross(gp.asarray(z), gp.asarray(z)), lambda: np.linalg.cross(z, z), ValueError)


def test_diagonal_outer_trace(rng):
    x = random_array(rng, (2, 5, 7), np.float32)
    g = gp.asarray(x)
    for k in (0, 2, -3, 9):
        assert_equal_to_numpy(gp.linalg.diagonal(g, offset=k), np.linalg.diagonal(x, offset=k))
    i = random_array(rng, (3, 4, 4), np.int16)
    for k in (0, 1, -2):
        assert_equal_to_numpy(gp.linalg.trace(gp.asarray(i), offset=k), np.linalg.trace(i, offset=k))
    t = gp.linalg.trace(g, dtype=np.float64)
    np.testing.assert_allclose(gp.asnumpy(t), np.linalg.trace(x, dtype=np.float64), rtol=8 * np.finfo(np.float32).eps)
    v, w = random_array(rng, (5,), np.complex64), random_array(rng, (3,), np.complex64)
    got = gp.linalg.outer(gp.asarray(v), gp.asarray(w))
    want = np.linalg.outer(v, w)
    assert got.dtype == want.dtype and got.shape == want.shape
    # One complex product per element: within 2 sqrt(2) u |v_i||w_j| of the exact one.
    exact = np.outer(wide(v), wide(w))
    assert np.all(np.abs(wide(gp.asnumpy(got)) - exact) <= 3 * np.finfo(np.float32).eps * np.abs(exact))
    same_error(lambda: gp.linalg.outer(gp.asarray(x), gp.asarray(w)), lambda: np.linalg.outer(x, w), ValueError)
    same_error(lambda: gp.linalg.trace(gp.asarray(v)), lambda: np.linalg.trace(v), ValueError)
