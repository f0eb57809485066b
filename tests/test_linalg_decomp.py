"""gpupy.linalg's factorizations against NumPy: ``cholesky`` (lower and ``upper=True``)
and ``qr`` in every mode, plus the top-level triangle routines ``tril``, ``triu``,
``tril_indices``, ``triu_indices`` and their ``*_from`` forms (exact, against NumPy).

Factorizations are checked by reconstruction and orthogonality residuals with the
constants of ``linalg_helpers`` (``C_FACT``: ``||A - F F'|| / (||A|| n eps)`` and
``||Q^H Q - I|| / (n eps)``), the triangular structure exactly (zeros where NumPy's
factor has them), and errors with NumPy's types and messages.
"""

import warnings

import numpy as np
import pytest

import gpupy as gp
from helpers import ALL_DTYPES, assert_equal_to_numpy, dtype_id, random_array
from linalg_helpers import (
    FLOAT_TYPES,
    LARGE_SIZES,
    SIZES,
    assert_orthonormal_columns,
    assert_reconstructs,
    ct,
    eps_of,
    randn,
    same_error,
    spd,
    wide,
)

pytestmark = pytest.mark.gpu


# ---------------------------------------------------------------------------------------
# cholesky


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(n, n) for n in SIZES + LARGE_SIZES] + [(5, 8, 8), (2, 3, 33, 33), (0, 4, 4)],
                         ids=str)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(rng, dtype, shape, upper):
    a = spd(rng, shape, dtype)
    want = np.linalg.cholesky(a, upper=upper)
    got = gp.linalg.cholesky(gp.asarray(a), upper=upper)
    assert got.dtype == want.dtype and got.shape == want.shape
    c = wide(gp.asnumpy(got))
    # The other triangle is exactly zero, as NumPy's.
    other = np.tril(c, -1) if upper else np.triu(c, 1)
    assert not np.any(other)
    product = ct(c) @ c if upper else c @ ct(c)
    assert_reconstructs(a, product, got.dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.complex64], ids=dtype_id)
def test_cholesky_reads_one_triangle(rng, dtype):
    """Only the lower (upper=True: upper) triangle is read: garbage in the other one does
    not change the factor."""
    a = spd(rng, (4, 21, 21), dtype)
    noisy_lower = a + np.triu(randn(rng, a.shape, dtype), 1) * 100  # upper triangle garbage
    noisy_upper = a + np.tril(randn(rng, a.shape, dtype), -1) * 100
    lo = gp.asnumpy(gp.linalg.cholesky(gp.asarray(noisy_lower)))
    up = gp.asnumpy(gp.linalg.cholesky(gp.asarray(noisy_upper), upper=True))
    assert_reconstructs(a, lo @ ct(lo), lo.dtype)
    assert_reconstructs(a, ct(up) @ up, up.dtype)


def test_cholesky_views_and_promotion(rng):
    a = spd(rng, (3, 16, 16), np.float64)
    got = gp.linalg.cholesky(gp.asarray(a).transpose(0, 2, 1)[:, ::-1, ::-1])
    view = a.transpose(0, 2, 1)[:, ::-1, ::-1]
    c = gp.asnumpy(got)
    assert_reconstructs(view, c @ ct(c), np.float64)
    i = np.array([[4, 2], [2, 3]], dtype=np.int32)
    g = gp.linalg.cholesky(gp.asarray(i))
    assert g.dtype == np.linalg.cholesky(i).dtype
    np.testing.assert_allclose(gp.asnumpy(g), np.linalg.cholesky(i), rtol=4 * np.finfo(np.float64).eps)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
def test_cholesky_not_positive_definite(rng, dtype):
    a = spd(rng, (6, 6), dtype)
    a[3, 3] = -50  # the leading minor of order 4 is not positive definite
    same_error(lambda: gp.linalg.cholesky(gp.asarray(a)), lambda: np.linalg.cholesky(a), np.linalg.LinAlgError)
    same_error(lambda: gp.linalg.cholesky(gp.asarray(a), upper=True), lambda: np.linalg.cholesky(a, upper=True),
               np.linalg.LinAlgError)
    batch = spd(rng, (3, 6, 6), dtype)
    batch[1] = a
    same_error(lambda: gp.linalg.cholesky(gp.asarray(batch)), lambda: np.linalg.cholesky(batch),
               np.linalg.LinAlgError)
    if np.dtype(dtype).kind == "f":
        n = a.copy()
        n[2, 2] = np.nan
        # A NaN propagates through the factor (the -50 below it is then never seen), as
        # in the OpenBLAS potrf NumPy ships; reference LAPACK's would raise instead.
        got = gp.asnumpy(gp.linalg.cholesky(gp.asarray(n)))
        assert np.isnan(got[2:, 2]).all() and np.isnan(got[3:, 3:][np.tril_indices(3)]).all()
        assert np.all(np.triu(got, 1) == 0) and np.isfinite(got[:2, :2]).all()
        try:
            want = np.linalg.cholesky(n)
        except np.linalg.LinAlgError:
            want = None  # a reference-LAPACK NumPy: the documented difference
        if want is not None:
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    same_error(lambda: gp.linalg.cholesky(gp.asarray(-np.eye(3))), lambda: np.linalg.cholesky(-np.eye(3)),
               np.linalg.LinAlgError)


@pytest.mark.parametrize("shape", [(3,), (3, 4), (2, 5, 4)], ids=str)
def test_cholesky_shape_errors(rng, shape):
    a = randn(rng, shape, np.float64)
    same_error(lambda: gp.linalg.cholesky(gp.asarray(a)), lambda: np.linalg.cholesky(a), np.linalg.LinAlgError)


# ---------------------------------------------------------------------------------------
# qr

QR_SHAPES = [(n, n) for n in SIZES] + [(40, 7), (7, 40), (130, 65), (65, 130), (0, 3), (3, 0), (5, 9, 4),
                                      (2, 3, 6, 11), (0, 5, 4)]
# The large tall case in real dtypes only (the complex ones take the same path).
QR_CASES = [(dt, s) for dt in FLOAT_TYPES for s in QR_SHAPES] + [(dt, (600, 257)) for dt in (np.float32, np.float64)]


def householder_q(h, tau, m):
    """Q = H_0 ... H_{k-1} from the reflectors below R's diagonal in ``h`` (M, N) and
    ``tau``, in float64: LAPACK's geqrf layout, built independently of gpupy."""
    h = wide(h)
    tau = wide(tau)
    k = tau.shape[-1]
    q = np.eye(m, dtype=h.dtype)
    for j in reversed(range(k)):
        v = np.zeros(m, h.dtype)
        v[j] = 1
        v[j + 1:] = h[j + 1:, j]
        q = q - tau[j] * np.outer(v, np.conj(v) @ q)
    return q


@pytest.mark.parametrize("dtype, shape", QR_CASES, ids=lambda v: dtype_id(v) if isinstance(v, type) else str(v))
def test_qr_modes(rng, dtype, shape):
    a = randn(rng, shape, dtype)
    m, n = shape[-2:]
    k = min(m, n)
    ga = gp.asarray(a)
    for mode in ["reduced", "complete"]:
        q_want, r_want = np.linalg.qr(a, mode=mode)
        res = gp.linalg.qr(ga, mode=mode)
        q, r = res
        assert res.Q is q and res.R is r
        assert q.dtype == q_want.dtype and r.dtype == r_want.dtype
        assert q.shape == q_want.shape and r.shape == r_want.shape, mode
        qh, rh = wide(gp.asnumpy(q)), wide(gp.asnumpy(r))
        assert not np.any(np.tril(rh, -1)), "R has nonzeros below its diagonal"
        assert_orthonormal_columns(qh, q.dtype)
        assert_reconstructs(a, qh @ rh, q.dtype)
    r_only = gp.linalg.qr(ga, mode="r")
    assert r_only.shape == np.linalg.qr(a, mode="r").shape
    np.testing.assert_array_equal(gp.asnumpy(r_only), gp.asnumpy(gp.linalg.qr(ga).R))
    h, tau = gp.linalg.qr(ga, mode="raw")
    h_want, tau_want = np.linalg.qr(a, mode="raw")
    assert h.shape == h_want.shape and tau.shape == tau_want.shape
    assert h.dtype == h_want.dtype and tau.dtype == tau_want.dtype
    if a.size == 0:
        return
    # NumPy's raw h is LAPACK's array transposed: rebuild Q from it and check A = Q R.
    hh = np.swapaxes(gp.asnumpy(h), -1, -2).reshape((-1, m, n))
    th = gp.asnumpy(tau).reshape((-1, k))
    for i in range(hh.shape[0]):
        qi = householder_q(hh[i], th[i], m)
        ri = np.triu(wide(hh[i]))
        ai = a.reshape((-1, m, n))[i]
        assert_reconstructs(ai, qi @ ri, h.dtype, what="raw reflectors")


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
def test_qr_blocked_identity_reflectors(rng, dtype):
    """Columns already in upper triangular form have tau = 0 (the reflector is the
    identity): the blocked path's block reflectors must skip them. The first 40
    columns of a 200 x 150 matrix (the blocked path) are upper triangular."""
    a = randn(rng, (200, 150), dtype)
    a[:, :40] = np.triu(a[:, :40])
    q, r = gp.linalg.qr(gp.asarray(a))
    qh, rh = wide(gp.asnumpy(q)), wide(gp.asnumpy(r))
    assert not np.any(np.tril(rh, -1))
    assert_orthonormal_columns(qh, q.dtype)
    assert_reconstructs(a, qh @ rh, q.dtype)
    h, tau = gp.linalg.qr(gp.asarray(a), mode="raw")
    th = gp.asnumpy(tau)
    if np.dtype(dtype).kind == "f":
        assert np.all(th[:40] == 0), "reflectors of the triangular columns"
    qi = householder_q(np.swapaxes(gp.asnumpy(h), -1, -2), th, 200)
    assert_reconstructs(a, qi @ np.triu(wide(np.swapaxes(gp.asnumpy(h), -1, -2))), h.dtype, what="raw")


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("shape, threads", [((700, 40), 128), ((300, 300), 256), ((2, 300, 200), 128),
                                            ((40, 700), 128), ((1100, 20), 512)], ids=str)
@pytest.mark.parametrize("block", [64, 32, 0])
def test_qr_grid_panel(rng, dtype, shape, threads, block, monkeypatch):
    """The QR panels spread over many blocks (a 700-row panel has 6 blocks of 128 rows,
    two grid barriers per column) against the one-block panel kernel: the same
    algorithm with sums in another order, so R agrees to rounding (bound: 64 m eps
    ||A||, the backward error of both), and Q R = A with Q orthonormal. The first 12
    columns are upper triangular (reflectors with tau = 0 inside a grid panel). Blocks
    of 64 and 32 columns (two levels: several panels a block, then the trailing matrix
    at once) and one level (``_QR_BLOCK = 0``)."""
    import gpupy.linalg._decomp as decomp

    monkeypatch.setattr(decomp, "_QR_BLOCK", block)
    monkeypatch.setattr(decomp, "_QR_BLOCK_MIN", 0)  # two levels at these sizes, every dtype
    a = randn(rng, shape, dtype)
    a[..., :, :12] = np.triu(a[..., :, :12])
    got = []
    for t in (threads, 0):
        monkeypatch.setattr(decomp, "_QR_GRID_THREADS", t)
        q, r = gp.linalg.qr(gp.asarray(a))
        got.append((wide(gp.asnumpy(q)), wide(gp.asnumpy(r))))
    (qg, rg), (qb, rb) = got
    m = shape[-2]
    scale = np.abs(wide(a)).max() * np.sqrt(shape[-1])
    assert np.abs(rg - rb).max() <= 64 * m * eps_of(dtype) * scale
    assert not np.any(np.tril(rg, -1))
    assert_orthonormal_columns(qg, q.dtype)
    assert_reconstructs(a, qg @ rg, q.dtype)


def _ut_reference(h, tau):
    """``V`` (unit lower trapezoid, zero columns where ``tau == 0``) and
    ``M = striu(V^H V) + diag(1 / tau)`` (1 where ``tau == 0``) in NumPy, with ``V^H V``
    in float64/complex128; also the entrywise scale ``|V|^H |V|`` for error bounds."""
    _, m, k = h.shape
    i, j = np.arange(m)[:, None], np.arange(k)[None, :]
    v = np.where(i > j, h, np.where(i == j, 1, 0)).astype(h.dtype)
    v = np.where(tau[:, None, :] == 0, 0, v).astype(h.dtype)
    wide_v = v.astype(np.complex128 if v.dtype.kind == "c" else np.float64)
    g = np.conj(np.swapaxes(wide_v, -1, -2)) @ wide_v
    scale = np.swapaxes(np.abs(wide_v), -1, -2) @ np.abs(wide_v)
    with np.errstate(divide="ignore"):
        diag = np.where(tau == 0, 1, 1 / np.where(tau == 0, 1, tau)).astype(h.dtype)
    mt = np.triu(g, 1)
    mt[:, np.arange(k), np.arange(k)] = diag
    return v, mt, scale


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("batch, m, k", [(1, 16, 16), (3, 700, 16), (2, 129, 5), (1, 1, 1), (4, 37, 13),
                                         (1, 200_001, 16)], ids=str)
@pytest.mark.parametrize("in_place", [False, True])
def test_qr_block_reflector_kernel(rng, dtype, batch, m, k, in_place):
    """The UT-factor kernel (``_linalg_qr_ut``: explicit ``V`` and ``M`` of a QR panel's
    block reflector) against NumPy on random reflectors, some with ``tau = 0``, read
    from a view of a wider matrix (row stride 23 elements > k): ``V`` exactly (selects
    and copies), ``M``'s Gram part within ``2 m eps (|V|^H |V|)`` entrywise (any order of
    summation), its diagonal ``1 / tau`` within 4 eps relative. 200,001 rows take more
    chunks than blocks (each block loops); 700 rows several blocks a matrix."""
    from gpupy import _gpupy

    eps = eps_of(dtype)
    full_h = randn(rng, (batch, m, 23), dtype)
    tau = randn(rng, (batch, k), dtype)
    tau[:, ::3] = 0
    v_want, m_want, scale = _ut_reference(full_h[:, :, :k], tau)
    gh = gp.asarray(full_h)
    h = gh[:, :, :k]
    v = h if in_place else gp.empty((batch, m, k), dtype=dtype)
    mt = gp.empty((batch, k, k), dtype=dtype)
    _gpupy._linalg_qr_ut(h, gp.asarray(tau), v, mt)
    np.testing.assert_array_equal(gp.asnumpy(v), v_want)
    got = gp.asnumpy(mt)
    iu = np.triu_indices(k, 1)
    assert np.all(np.abs(got[:, iu[0], iu[1]] - m_want[:, iu[0], iu[1]]) <= 2 * m * eps * scale[:, iu[0], iu[1]])
    d = np.arange(k)
    np.testing.assert_allclose(got[:, d, d], m_want[:, d, d], rtol=4 * eps, atol=0)
    assert not np.any(np.tril(got, -1))
    if in_place:
        # Columns right of the panel are untouched.
        np.testing.assert_array_equal(gp.asnumpy(gh)[:, :, k:], full_h[:, :, k:])


def test_qr_block_reflector_kernel_errors():
    """Wider panels than the kernel's 16 columns, outputs that overlap the inputs other
    than ``V`` in place of ``h``, and a ``tau`` of another dtype are refused."""
    from gpupy import _gpupy

    h = gp.ones((1, 40, 17))
    with pytest.raises(ValueError, match="operand shapes"):
        _gpupy._linalg_qr_ut(h, gp.ones((1, 17)), gp.empty((1, 40, 17)), gp.empty((1, 17, 17)))
    base = gp.ones((1, 41, 8))
    h, tau = base[:, :40], gp.ones((1, 8))
    with pytest.raises(ValueError, match="overlap"):
        _gpupy._linalg_qr_ut(h, tau, base[:, 1:], gp.empty((1, 8, 8)))
    with pytest.raises(ValueError, match="overlap"):
        _gpupy._linalg_qr_ut(h, tau, gp.empty((1, 40, 8)), base[:, :8])
    with pytest.raises(TypeError):
        _gpupy._linalg_qr_ut(h, tau.astype(np.float32), gp.empty((1, 40, 8)), gp.empty((1, 8, 8)))


def test_qr_views_and_promotion(rng):
    base = randn(rng, (3, 30, 20), np.complex128)
    for f in [lambda x: x.transpose(0, 2, 1), lambda x: x[:, ::-2, ::-1], lambda x: x[::-1, 3:, 1:]]:
        q, r = gp.linalg.qr(f(gp.asarray(base)))
        assert_reconstructs(f(base), wide(gp.asnumpy(q)) @ wide(gp.asnumpy(r)), np.complex128)
    i = rng.integers(-5, 5, (6, 4))
    q, r = gp.linalg.qr(gp.asarray(i))
    assert q.dtype == np.float64 and r.dtype == np.float64
    assert_reconstructs(i, gp.asnumpy(q) @ gp.asnumpy(r), np.float64)


def test_qr_deprecated_modes_and_errors(rng):
    a = randn(rng, (6, 4), np.float64)
    for mode, np_mode in [("full", "full"), ("f", "f"), ("economic", "economic"), ("e", "e")]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            want = np.linalg.qr(a, mode=np_mode)
        with pytest.warns(DeprecationWarning):
            got = gp.linalg.qr(gp.asarray(a), mode=mode)
        if mode in ("economic", "e"):
            assert got.shape == want.shape  # the factored matrix, (M, N)
        else:
            assert got[0].shape == want[0].shape
    same_error(lambda: gp.linalg.qr(gp.asarray(a), mode="x"), lambda: np.linalg.qr(a, mode="x"), ValueError)
    v = randn(rng, (4,), np.float64)
    same_error(lambda: gp.linalg.qr(gp.asarray(v)), lambda: np.linalg.qr(v), np.linalg.LinAlgError)


# ---------------------------------------------------------------------------------------
# tril, triu, tril_indices, triu_indices (top level)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(5, 5), (4, 7), (7, 4), (3, 4, 5), (2, 0, 3), (6,), (1, 1)], ids=str)
@pytest.mark.parametrize("k", [0, 1, -1, 3, -5, 9])
def test_tril_triu(rng, dtype, shape, k):
    x = random_array(rng, shape, dtype)
    assert_equal_to_numpy(gp.tril(gp.asarray(x), k), np.tril(x, k))
    assert_equal_to_numpy(gp.triu(gp.asarray(x), k=k), np.triu(x, k=k))


def test_tril_triu_views(rng):
    x = random_array(rng, (3, 8, 9), np.float32)
    for f in [lambda a: a.transpose(0, 2, 1), lambda a: a[:, ::-1, ::2], lambda a: a[1:, 2:, 3:]]:
        assert_equal_to_numpy(gp.tril(f(gp.asarray(x)), -2), np.tril(f(x), -2))
        assert_equal_to_numpy(gp.triu(f(gp.asarray(x)), 1), np.triu(f(x), 1))


@pytest.mark.parametrize("n, k, m", [(4, 0, None), (5, 1, None), (5, -2, 7), (3, 0, 0), (0, 0, None), (6, 10, 3),
                                     (6, -10, 3)])
def test_triangle_indices(n, k, m):
    for g, f in [(gp.tril_indices, np.tril_indices), (gp.triu_indices, np.triu_indices)]:
        got = g(n, k, m)
        want = f(n, k, m)
        assert isinstance(got, tuple) and len(got) == 2
        for gi, wi in zip(got, want):
            assert_equal_to_numpy(gi, wi)


def test_triangle_indices_from(rng):
    x = random_array(rng, (4, 6), np.float64)
    g = gp.asarray(x)
    for k in (0, 1, -1):
        for gi, wi in zip(gp.tril_indices_from(g, k), np.tril_indices_from(x, k)):
            assert_equal_to_numpy(gi, wi)
        for gi, wi in zip(gp.triu_indices_from(g, k=k), np.triu_indices_from(x, k=k)):
            assert_equal_to_numpy(gi, wi)
    # The indices select the triangle, as in NumPy.
    rows, cols = gp.triu_indices_from(g, 1)
    assert_equal_to_numpy(g[rows, cols], x[np.triu_indices_from(x, 1)])
    with pytest.raises(ValueError, match="input array must be 2-d"):
        gp.tril_indices_from(gp.asarray(x[0]))
    with pytest.raises(ValueError, match="input array must be 2-d"):
        gp.triu_indices_from(gp.asarray(x[None]))
