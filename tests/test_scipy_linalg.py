"""gpupyx.scipy.linalg against scipy.linalg (SciPy's LAPACK on the CPU, on the same
values): solvers (``solve`` with every ``assume_a``, ``solve_triangular``, ``lu_solve``,
``cho_solve``), factorizations (``lu``, ``lu_factor``, ``cho_factor``, ``cholesky``,
``qr``, ``eigh`` standard and generalized, ``svd``), ``inv``, ``det``, ``lstsq``,
``expm``, ``block_diag``, ``tril``, ``triu``: SciPy's result dtypes, batching, errors
and messages.

Accuracy through residuals with the constants of ``linalg_helpers`` (derived in its
docstring). ``expm`` against SciPy's ``expm`` in float64: the relative error bound of
scaling and squaring with a Pade approximant, ``C_ITER * n * eps * ||A||_1`` times the
condition of the exponential (``exp(||A||)``), for matrices of norm up to 10.
"""

import warnings

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.linalg as gsl
from helpers import dtype_id
from linalg_helpers import (
    C_ITER,
    C_SOLVE,
    FLOAT_TYPES,
    SIZES,
    assert_eigenpairs,
    assert_orthonormal_columns,
    assert_reconstructs,
    assert_solves,
    assert_values_close,
    ct,
    eps_of,
    hermitian,
    hermitian_part,
    norm2,
    randn,
    same_error,
    spd,
    still_works,
    well_conditioned,
    wide,
)

scipy_linalg = pytest.importorskip("scipy.linalg")

pytestmark = pytest.mark.gpu

DTYPE_RULE = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.float16, np.float32, np.float64,
              np.complex64, np.complex128]


def spd_of(rng, shape, dtype):
    """Positive definite matrices of any dtype: floats ``X X^H / n + I``; integers
    symmetric and strictly diagonally dominant; booleans the identity."""
    kind = np.dtype(dtype).kind
    if kind in "fc":
        return spd(rng, shape, dtype)
    if kind == "b":
        return np.broadcast_to(np.eye(shape[-1], dtype=bool), shape).copy()
    a = well_conditioned(rng, shape, dtype).astype(np.int64)
    return ((a + np.swapaxes(a, -1, -2)) // 2).astype(dtype)


# ---------------------------------------------------------------------------------------
# Result dtypes: SciPy's rules (LAPACK's type score; solve's own; det's float64)


@pytest.mark.parametrize("dtype", DTYPE_RULE, ids=dtype_id)
def test_result_dtypes(rng, dtype):
    a = spd_of(rng, (4, 4), dtype)
    b = a[:, 0].copy()
    cases = [
        ("solve", lambda m: m.solve(*ops(m, a, b))),
        ("solve pos", lambda m: m.solve(*ops(m, a, b), assume_a="pos")),
        ("solve_triangular", lambda m: m.solve_triangular(*ops(m, a, b))),
        ("inv", lambda m: m.inv(op(m, a))),
        ("det", lambda m: m.det(op(m, a))),
        ("lu", lambda m: m.lu(op(m, a))),
        ("lu_factor", lambda m: m.lu_factor(op(m, a))),
        ("cho_factor", lambda m: m.cho_factor(op(m, a))[0]),
        ("cholesky", lambda m: m.cholesky(op(m, a))),
        ("qr", lambda m: m.qr(op(m, a))),
        ("eigh", lambda m: m.eigh(op(m, a))),
        ("svd", lambda m: m.svd(op(m, a))),
        ("lstsq", lambda m: m.lstsq(*ops(m, a, b))[0]),
        ("expm", lambda m: m.expm(op(m, a) if np.dtype(dtype).kind != "b" else op(m, a) * 1)),
        ("block_diag", lambda m: m.block_diag(op(m, a), op(m, a))),
    ]
    for name, call in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = call(scipy_linalg)
            except Exception:  # noqa: BLE001 - a boolean matrix SciPy cannot factor
                continue
        got = call(gsl)
        w = want if isinstance(want, tuple) else (want,)
        g = got if isinstance(got, tuple) else (got,)
        assert len(g) == len(w), name
        for gi, wi in zip(g, w):
            if isinstance(wi, np.ndarray) or isinstance(wi, np.generic):
                assert gi.dtype == wi.dtype, f"{name}: gpupy {gi.dtype}, scipy {wi.dtype}"


def op(m, x):
    return x if m is scipy_linalg else gp.asarray(x)


def ops(m, *xs):
    return tuple(op(m, x) for x in xs)


# ---------------------------------------------------------------------------------------
# solve


ASSUME = [None, "gen", "general", "sym", "her", "pos", "positive definite", "diagonal", "tridiagonal", "banded",
          "upper triangular", "lower triangular"]


def structured_for(rng, assume, shape, dtype):
    n = shape[-1]
    if assume in ("pos", "positive definite"):
        return spd(rng, shape, dtype)
    if assume in ("sym", "her"):
        h = hermitian(rng, shape, dtype) if assume == "her" else (lambda x: (x + np.swapaxes(x, -1, -2)) / 2)(
            randn(rng, shape, dtype)).astype(dtype)
        return (h + 3 * np.sqrt(n) * np.eye(n) * np.where(np.arange(n) % 2, 1, -1)).astype(dtype)
    if assume == "diagonal":
        return (np.eye(n) * (randn(rng, shape[:-1], dtype)[..., None, :] + 3)).astype(dtype)
    if assume in ("tridiagonal", "banded"):
        band = np.triu(np.tril(randn(rng, shape, dtype), 1), -1)
        return (band + 4 * np.eye(n)).astype(dtype)
    if assume == "upper triangular":
        return (np.triu(randn(rng, shape, dtype)) + 3 * np.eye(n)).astype(dtype)
    if assume == "lower triangular":
        return (np.tril(randn(rng, shape, dtype)) + 3 * np.eye(n)).astype(dtype)
    return well_conditioned(rng, shape, dtype)


@pytest.mark.parametrize("assume", ASSUME, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("n", [1, 2, 17, 65])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_assume_a(rng, assume, dtype, n, lower):
    a = structured_for(rng, assume, (n, n), dtype)
    b = randn(rng, (n, 3), dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = scipy_linalg.solve(a, b, assume_a=assume, lower=lower)
    got = gsl.solve(gp.asarray(a), gp.asarray(b), assume_a=assume, lower=lower)
    assert got.dtype == want.dtype and got.shape == want.shape
    # sym/her/pos read one triangle: the residual is taken against that matrix.
    if assume in ("sym", "her", "pos", "positive definite"):
        tri = np.tril(a) if lower else np.triu(a)
        strict = np.tril(a, -1) if lower else np.triu(a, 1)
        herm = assume in ("her", "pos", "positive definite") and np.dtype(dtype).kind == "c"
        mirror = ct(strict) if herm else np.swapaxes(strict, -1, -2)
        full = tri + mirror
        if herm:
            full[np.arange(n), np.arange(n)] = full[np.arange(n), np.arange(n)].real
        a = full
    assert_solves(a, gp.asnumpy(got), b, got.dtype)


@pytest.mark.parametrize("shapes", [((3, 5, 5), (5,)), ((2, 1, 4, 4), (3, 4, 2)), ((6, 6), (4, 6, 3)),
                                    ((0, 3, 3), (3,)), ((3, 3), (3, 0))], ids=str)
@pytest.mark.parametrize("assume", [None, "pos", "upper triangular", "diagonal"], ids=str)
def test_solve_batched(rng, shapes, assume):
    sa, sb = shapes
    a = structured_for(rng, assume, sa, np.float64)
    b = randn(rng, sb, np.float64)
    want = scipy_linalg.solve(a, b, assume_a=assume) if np.prod(sa[:-2]) != 0 else None
    got = gsl.solve(gp.asarray(a), gp.asarray(b), assume_a=assume)
    if want is not None:
        assert got.shape == want.shape and got.dtype == want.dtype
    assert_solves(a, gp.asnumpy(got), b, got.dtype)


def test_solve_transposed_and_views(rng):
    a = well_conditioned(rng, (20, 20), np.float64)
    b = randn(rng, (20,), np.float64)
    got = gsl.solve(gp.asarray(a), gp.asarray(b), transposed=True)
    assert_solves(a.T, gp.asnumpy(got), b, np.float64)
    got = gsl.solve(gp.asarray(a)[::-1, ::-1].T, gp.asarray(b)[::-1])
    assert_solves(a[::-1, ::-1].T, gp.asnumpy(got), b[::-1], np.float64)
    for assume in ["upper triangular", "tridiagonal", "pos"]:
        m = structured_for(rng, assume, (12, 12), np.float32)
        bb = randn(rng, (12, 2), np.float32)
        got = gsl.solve(gp.asarray(m), gp.asarray(bb), assume_a=assume, transposed=True)
        assert_solves(m.T if assume != "pos" else np.triu(m) + np.triu(m, 1).T, gp.asnumpy(got), bb, np.float32)
    ac = well_conditioned(rng, (3, 3), np.complex128)
    same_error(lambda: gsl.solve(gp.asarray(ac), gp.asarray(ac[0]), transposed=True),
               lambda: scipy_linalg.solve(ac, ac[0], transposed=True), NotImplementedError)


def test_solve_errors(rng):
    a = well_conditioned(rng, (4, 4), np.float64)
    sing = a.copy()
    sing[:, 1] = 0
    sym_sing = a + a.T  # a zero row and column: singular whichever triangle is read
    sym_sing[1, :] = 0
    sym_sing[:, 1] = 0
    tri_sing = np.triu(a)
    tri_sing[1, 1] = 0
    b = randn(rng, (4,), np.float64)
    cases = [
        (lambda m: m.solve(op(m, a), op(m, b), assume_a="xx"), ValueError),
        (lambda m: m.solve(op(m, a[:, :3]), op(m, b)), ValueError),
        (lambda m: m.solve(op(m, a), op(m, b[:3])), ValueError),
        (lambda m: m.solve(op(m, a[0]), op(m, b)), ValueError),
        (lambda m: m.solve(op(m, sing), op(m, b)), np.linalg.LinAlgError),
        (lambda m: m.solve(op(m, sym_sing), op(m, b), assume_a="sym"), np.linalg.LinAlgError),
        (lambda m: m.solve(op(m, -spd(rng, (4, 4), np.float64)), op(m, b), assume_a="pos"), np.linalg.LinAlgError),
        (lambda m: m.solve(op(m, np.diag([1.0, 0, 2, 3])), op(m, b), assume_a="diagonal"), np.linalg.LinAlgError),
        (lambda m: m.solve(op(m, tri_sing), op(m, b), assume_a="upper triangular"), np.linalg.LinAlgError),
        (lambda m: m.solve(op(m, np.array([[0.0]])), op(m, np.ones(3))), np.linalg.LinAlgError),
        (lambda m: m.solve(op(m, a * np.nan), op(m, b)), ValueError),
        (lambda m: m.solve(op(m, a), op(m, b * np.inf)), ValueError),
        (lambda m: m.solve(op(m, sing), op(m, b), assume_a="banded"), np.linalg.LinAlgError),
        (lambda m: m.solve(op(m, a[:, :3]), op(m, b), assume_a="banded"), ValueError),
    ]
    for call, exc in cases:
        same_error(lambda: call(gsl), lambda: call(scipy_linalg), exc)
    # check_finite=False skips the check (the NaN propagates).
    x = gsl.solve(gp.asarray(a * np.nan), gp.asarray(b), check_finite=False)
    assert np.isnan(gp.asnumpy(x)).all()


def test_solve_scalar_and_empty(rng):
    for a, b in [(np.array([[2.0]]), np.ones(3)), (np.array([[4.0]]), np.ones((1, 5))), (np.ones((0, 0)), np.ones(0)),
                 (np.eye(3), np.ones((3, 0)))]:
        want = scipy_linalg.solve(a, b)
        got = gsl.solve(gp.asarray(a), gp.asarray(b))
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(gp.asnumpy(got), want)


def test_solve_tutorial_1024_float32(rng):
    from test_linalg_solve import tutorial_system

    a, b = tutorial_system(rng)
    x = gsl.solve(gp.asarray(a), gp.asarray(b))
    r = np.linalg.norm(wide(a) @ wide(gp.asnumpy(x)) - wide(b)) / np.linalg.norm(wide(b))
    assert x.dtype == np.float32 and r < 1e-4


# ---------------------------------------------------------------------------------------
# solve_triangular


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
def test_solve_triangular(rng, dtype, n, lower, trans):
    # Off-diagonal entries of size 1/sqrt(n): random triangular matrices with O(1)
    # entries have condition numbers growing like 2^n (Viswanath and Trefethen).
    t = (randn(rng, (n, n), dtype) / np.sqrt(max(n, 1)) + 3 * np.eye(n)).astype(dtype)
    b = randn(rng, (n, 2), dtype)
    got = gsl.solve_triangular(gp.asarray(t), gp.asarray(b), trans=trans, lower=lower)
    want = scipy_linalg.solve_triangular(t, b, trans=trans, lower=lower)
    assert got.dtype == want.dtype and got.shape == want.shape
    tri = np.tril(t) if lower else np.triu(t)
    k = {"N": 0, "T": 1, "C": 2}.get(trans, trans)
    op_t = tri if k == 0 else (tri.T if k == 1 else ct(tri))
    assert_solves(op_t, gp.asnumpy(got), b, got.dtype)
    # unit_diagonal: the diagonal is not read (taken as ones).
    u = gsl.solve_triangular(gp.asarray(t), gp.asarray(b[:, 0]), lower=lower, unit_diagonal=True)
    unit = tri - np.diag(np.diag(tri)) + np.eye(n)
    assert_solves(unit, gp.asnumpy(u), b[:, 0], u.dtype)


def test_solve_triangular_batched_and_errors(rng):
    t = np.triu(randn(rng, (3, 6, 6), np.float64)) + 3 * np.eye(6)
    b = randn(rng, (6,), np.float64)
    got = gsl.solve_triangular(gp.asarray(t), gp.asarray(b))
    want = scipy_linalg.solve_triangular(t, b)
    assert got.shape == want.shape
    assert_solves(t, gp.asnumpy(got), b, np.float64)
    bb = randn(rng, (2, 1, 6, 4), np.float64)
    got = gsl.solve_triangular(gp.asarray(t), gp.asarray(bb))
    assert got.shape == scipy_linalg.solve_triangular(t, bb).shape
    assert_solves(t, gp.asnumpy(got), bb, np.float64)
    sing = t[0].copy()
    sing[3, 3] = 0
    for call, exc in [
        (lambda m: m.solve_triangular(op(m, sing), op(m, b)), np.linalg.LinAlgError),
        (lambda m: m.solve_triangular(op(m, t[0, :, :5]), op(m, b)), ValueError),
        (lambda m: m.solve_triangular(op(m, t[0]), op(m, b[:5])), ValueError),
        (lambda m: m.solve_triangular(op(m, t), op(m, randn(rng, (3, 2), np.float64))), ValueError),
        (lambda m: m.solve_triangular(op(m, t[0] * np.inf), op(m, b)), ValueError),
    ]:
        same_error(lambda: call(gsl), lambda: call(scipy_linalg), exc)
    # unit_diagonal ignores the zero on the diagonal.
    x = gsl.solve_triangular(gp.asarray(sing), gp.asarray(b), unit_diagonal=True)
    assert np.isfinite(gp.asnumpy(x)).all()


# ---------------------------------------------------------------------------------------
# inv, det


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("assume", [None, "general", "gen", "diagonal", "upper triangular", "lower triangular", "pos",
                                    "sym", "her"], ids=str)
@pytest.mark.parametrize("shape", [(1, 1), (9, 9), (3, 17, 17), (0, 0)], ids=str)
def test_inv(rng, dtype, assume, shape):
    a = structured_for(rng, assume, shape, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = scipy_linalg.inv(a, assume_a=assume)
    got = gsl.inv(gp.asarray(a), assume_a=assume)
    assert got.dtype == want.dtype and got.shape == want.shape
    if a.size == 0:
        return
    # sym/her/pos matrices here are symmetric (Hermitian) to rounding: either triangle
    # gives the same matrix.
    x = wide(gp.asnumpy(got))
    aw = wide(a.astype(got.dtype))
    n = shape[-1]
    r = np.minimum(np.linalg.norm(aw @ x - np.eye(n), axis=(-2, -1)), np.linalg.norm(x @ aw - np.eye(n), axis=(-2, -1)))
    scale = np.linalg.norm(aw, axis=(-2, -1)) * np.linalg.norm(x, axis=(-2, -1)) * n * eps_of(got.dtype)
    assert np.all(r <= C_SOLVE * scale)


def test_inv_det_errors(rng):
    a = well_conditioned(rng, (4, 4), np.float64)
    sing = a.copy()
    sing[:, 2] = 0
    for call, exc in [
        (lambda m: m.inv(op(m, sing)), np.linalg.LinAlgError),
        (lambda m: m.inv(op(m, a[:, :3])), ValueError),
        (lambda m: m.inv(op(m, a[0])), ValueError),
        (lambda m: m.inv(op(m, a * np.nan)), ValueError),
        (lambda m: m.det(op(m, a[0])), ValueError),
        (lambda m: m.det(op(m, a[:, :3])), ValueError),
        (lambda m: m.det(op(m, a * np.inf)), ValueError),
    ]:
        same_error(lambda: call(gsl), lambda: call(scipy_linalg), exc)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128, np.int16, np.int64],
                         ids=dtype_id)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (17, 17), (4, 6, 6), (0, 0), (3, 0, 0)], ids=str)
def test_det(rng, dtype, shape):
    a = well_conditioned(rng, shape, dtype)
    want = scipy_linalg.det(a)
    got = gsl.det(gp.asarray(a))
    assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
    aw = wide(a)
    if a.size == 0:
        np.testing.assert_array_equal(gp.asnumpy(got), want)
        return
    ref = np.linalg.det(aw)
    n = shape[-1]
    cond = np.linalg.cond(aw)
    # LU in the computing dtype (float32 for int16 and float32): relative error of the
    # determinant within C_SOLVE n eps cond (its condition), plus n roundings of the product.
    work = np.float32 if np.dtype(dtype) in (np.float32, np.complex64, np.int16) else np.float64
    tol = (C_SOLVE * n * cond + n) * np.finfo(work).eps
    assert np.all(np.abs(wide(gp.asnumpy(got)) - ref) <= tol * np.abs(ref))


# ---------------------------------------------------------------------------------------
# LU


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (33, 33), (7, 4), (4, 7), (3, 6, 6), (2, 2, 5, 3),
                                   (0, 3), (2, 0, 0), (300, 300), (300, 170), (170, 300)], ids=str)
def test_lu(rng, dtype, shape):
    a = randn(rng, shape, dtype)
    p, l, u = gsl.lu(gp.asarray(a))
    pw, lw, uw = scipy_linalg.lu(a)
    for g, w in [(p, pw), (l, lw), (u, uw)]:
        assert g.dtype == w.dtype and g.shape == w.shape
    if a.size == 0:
        return
    ph, lh, uh = wide(gp.asnumpy(p)), wide(gp.asnumpy(l)), wide(gp.asnumpy(u))
    assert not np.any(np.triu(lh, 1)) and np.all(np.diagonal(lh, axis1=-2, axis2=-1) == 1)
    assert not np.any(np.tril(uh, -1))
    assert_reconstructs(a, ph @ lh @ uh, l.dtype, c=C_SOLVE)
    # Partial pivoting: every multiplier is at most 1 in modulus (LAPACK picks complex
    # pivots by |re| + |im|, which bounds the multipliers' moduli by sqrt(2)).
    bound = np.sqrt(2) if np.dtype(dtype).kind == "c" else 1.0
    assert np.all(np.abs(lh) <= bound * (1 + 4 * eps_of(dtype)))
    idx, l2, u2 = gsl.lu(gp.asarray(a), p_indices=True)
    assert idx.dtype == scipy_linalg.lu(a, p_indices=True)[0].dtype
    ih = gp.asnumpy(idx)
    rebuilt = np.take_along_axis(wide(gp.asnumpy(l2)), ih[..., :, None], axis=-2) @ wide(gp.asnumpy(u2))
    assert_reconstructs(a, rebuilt, l.dtype, c=C_SOLVE)
    pl, u3 = gsl.lu(gp.asarray(a), permute_l=True)
    assert_reconstructs(a, wide(gp.asnumpy(pl)) @ wide(gp.asnumpy(u3)), l.dtype, c=C_SOLVE)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("n", SIZES)
def test_lu_factor_solve(rng, dtype, n):
    a = well_conditioned(rng, (n, n), dtype)
    b = randn(rng, (n, 3), dtype)
    lu, piv = gsl.lu_factor(gp.asarray(a))
    lu_w, piv_w = scipy_linalg.lu_factor(a)
    assert lu.dtype == lu_w.dtype and lu.shape == lu_w.shape
    assert piv.dtype == piv_w.dtype and piv.shape == piv_w.shape
    for trans in (0, 1, 2):
        x = gsl.lu_solve((lu, piv), gp.asarray(b), trans=trans)
        want = scipy_linalg.lu_solve((lu_w, piv_w), b, trans=trans)
        assert x.dtype == want.dtype and x.shape == want.shape
        op_a = a if trans == 0 else (a.T if trans == 1 else ct(a))
        assert_solves(op_a, gp.asnumpy(x), b, x.dtype)
    if n:
        x = gsl.lu_solve((lu, piv), gp.asarray(b[:, 0]))
        assert x.shape == (n,)
        assert_solves(a, gp.asnumpy(x), b[:, 0], x.dtype)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(300, 300), (700, 40), (40, 700), (2, 300, 300)], ids=str)
def test_lu_grid_panel_matches_block_panel(rng, dtype, shape, monkeypatch):
    """The LU panels spread over many blocks (32 threads each, so a 700-row panel has 22
    blocks and a grid barrier per column) do each element's arithmetic in the same order
    as the one-block panel kernel: the factors and pivots agree bit for bit, with a zero
    column (a zero pivot, reported and passed) and a row of NaNs among the rows."""
    import gpupy.linalg._decomp as decomp

    a = randn(rng, shape, dtype)
    a[..., :, 5] = 0
    a[..., shape[-2] // 2, :] = np.nan
    results = []
    monkeypatch.setattr(decomp, "_LU_GRID_MIN_ROWS", 0)  # every panel on the grid
    for threads in (32, 0):
        monkeypatch.setattr(decomp, "_LU_GRID_THREADS", threads)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gsl.LinAlgWarning)  # the zero pivot
            lu, piv = gsl.lu_factor(gp.asarray(a), check_finite=False)
        results.append((gp.asnumpy(lu), gp.asnumpy(piv)))
    (lu_grid, piv_grid), (lu_block, piv_block) = results
    np.testing.assert_array_equal(piv_grid, piv_block)
    np.testing.assert_array_equal(lu_grid, lu_block)
    # Without the NaNs, the grid path still reconstructs the matrix.
    a[..., shape[-2] // 2, :] = randn(rng, shape[:-2] + (shape[-1],), dtype)
    monkeypatch.setattr(decomp, "_LU_GRID_THREADS", 32)
    p, l, u = gsl.lu(gp.asarray(a))
    ph, lh, uh = wide(gp.asnumpy(p)), wide(gp.asnumpy(l)), wide(gp.asnumpy(u))
    assert_reconstructs(a, ph @ lh @ uh, l.dtype, c=C_SOLVE)


def test_lu_batched_and_warning(rng):
    a = well_conditioned(rng, (4, 9, 9), np.float64)
    lu, piv = gsl.lu_factor(gp.asarray(a))
    b = randn(rng, (2, 1, 9, 2), np.float64)
    x = gsl.lu_solve((lu, piv), gp.asarray(b))
    assert x.shape == (2, 4, 9, 2)
    assert_solves(a, gp.asnumpy(x), b, np.float64)
    # One factorization, many right-hand sides (one solve with their columns).
    lu1, piv1 = gsl.lu_factor(gp.asarray(a[0]))
    x1 = gsl.lu_solve((lu1, piv1), gp.asarray(b))
    assert_solves(a[0], gp.asnumpy(x1), b, np.float64)
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.warns(gsl.LinAlgWarning, match="Diagonal number 2 is exactly zero. Singular matrix."):
        gsl.lu_factor(gp.asarray(s))
    same_error(lambda: gsl.lu_solve((lu1, piv1), gp.asarray(b[0, 0, :5])),
               lambda: scipy_linalg.lu_solve(scipy_linalg.lu_factor(a[0]), b[0, 0, :5]), ValueError)
    same_error(lambda: gsl.lu(gp.asarray(a[0, 0])), lambda: scipy_linalg.lu(a[0, 0]), ValueError)


# ---------------------------------------------------------------------------------------
# Cholesky


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (17, 17), (65, 65), (3, 8, 8), (0, 0)], ids=str)
@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_cho_factor_cho_solve(rng, dtype, shape, lower):
    a = spd(rng, shape, dtype)
    c = gsl.cholesky(gp.asarray(a), lower=lower)
    c_w = scipy_linalg.cholesky(a, lower=lower)
    assert c.dtype == c_w.dtype and c.shape == c_w.shape
    ch = wide(gp.asnumpy(c))
    if a.size:
        assert_reconstructs(a, ch @ ct(ch) if lower else ct(ch) @ ch, c.dtype)
    cf, low = gsl.cho_factor(gp.asarray(a), lower=lower)
    cf_w, low_w = scipy_linalg.cho_factor(a, lower=lower)
    # SciPy 1.18 returns lower as a bool array of the batch shape (0-d for one matrix).
    assert np.array_equal(low, low_w) and np.shape(low) == np.shape(low_w)
    assert cf.dtype == cf_w.dtype and cf.shape == cf_w.shape
    b = randn(rng, shape[:-1] + (2,), dtype)
    x = gsl.cho_solve((cf, low), gp.asarray(b))
    want = scipy_linalg.cho_solve((cf_w, low_w), b)
    assert x.dtype == want.dtype and x.shape == want.shape
    assert_solves(a, gp.asnumpy(x), b, x.dtype)


def test_cholesky_errors(rng):
    a = spd(rng, (5, 5), np.float64)
    bad = a.copy()
    bad[2, 2] = -10
    batch = np.stack([a, bad])
    for call, exc in [
        (lambda m: m.cholesky(op(m, bad)), np.linalg.LinAlgError),
        (lambda m: m.cho_factor(op(m, bad), lower=True), np.linalg.LinAlgError),
        (lambda m: m.cholesky(op(m, batch)), np.linalg.LinAlgError),
        (lambda m: m.cholesky(op(m, a[0])), ValueError),
        (lambda m: m.cholesky(op(m, a[:, :3])), ValueError),
        (lambda m: m.cho_solve((op(m, a), False), op(m, a[0, :3])), ValueError),
        (lambda m: m.cholesky(op(m, a * np.nan)), ValueError),
    ]:
        same_error(lambda: call(gsl), lambda: call(scipy_linalg), exc)


# ---------------------------------------------------------------------------------------
# qr


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(1, 1), (6, 6), (40, 7), (7, 40), (130, 65), (3, 9, 5), (0, 3), (3, 0)], ids=str)
@pytest.mark.parametrize("mode", ["full", "economic", "r", "raw"])
def test_qr(rng, dtype, shape, mode):
    a = randn(rng, shape, dtype)
    got = gsl.qr(gp.asarray(a), mode=mode)
    want = scipy_linalg.qr(a, mode=mode)
    assert isinstance(got, tuple) and len(got) == len(want)
    if mode == "raw":
        (h, tau), r = got
        (h_w, tau_w), r_w = want
        flat = [(h, h_w), (tau, tau_w), (r, r_w)]
    else:
        flat = list(zip(got, want))
    for g, w in flat:
        assert g.dtype == w.dtype and g.shape == w.shape
    if a.size == 0:
        return
    if mode in ("full", "economic"):
        q, r = (wide(gp.asnumpy(x)) for x in got)
        assert not np.any(np.tril(r, -1))
        assert_orthonormal_columns(q, dtype)
        assert_reconstructs(a, q @ r, dtype)
    elif mode == "r":
        (r,) = got
        np.testing.assert_array_equal(gp.asnumpy(r), gp.asnumpy(gsl.qr(gp.asarray(a))[1]))


def test_qr_errors(rng):
    a = randn(rng, (5, 3), np.float64)
    same_error(lambda: gsl.qr(gp.asarray(a), mode="x"), lambda: scipy_linalg.qr(a, mode="x"), ValueError)
    same_error(lambda: gsl.qr(gp.asarray(a[0])), lambda: scipy_linalg.qr(a[0]), ValueError)
    with pytest.raises(NotImplementedError, match="pivoting"):
        gsl.qr(gp.asarray(a), pivoting=True)
    still_works()


# ---------------------------------------------------------------------------------------
# eigh (standard and generalized), svd


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (17, 17), (65, 65), (130, 130), (3, 6, 6), (0, 0)], ids=str)
@pytest.mark.parametrize("lower", [True, False])
def test_eigh(rng, dtype, shape, lower):
    h = hermitian(rng, shape, dtype)
    garbage = randn(rng, shape, dtype)
    n = shape[-1]
    a = np.where(np.tri(n, dtype=bool) if lower else ~np.tri(n, k=-1, dtype=bool), h, garbage)
    w, v = gsl.eigh(gp.asarray(a), lower=lower)
    w_w, v_w = scipy_linalg.eigh(a, lower=lower)
    assert w.dtype == w_w.dtype and v.dtype == v_w.dtype and w.shape == w_w.shape and v.shape == v_w.shape
    herm = hermitian_part(wide(a), lower)
    assert_values_close(gp.asnumpy(w), np.linalg.eigvalsh(herm), norm2(herm), w.dtype)
    assert_eigenpairs(herm, gp.asnumpy(w), gp.asnumpy(v), v.dtype)
    wo = gsl.eigh(gp.asarray(a), lower=lower, eigvals_only=True)
    assert wo.shape == w_w.shape and wo.dtype == w_w.dtype


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("kind", [1, 2, 3])
@pytest.mark.parametrize("lower", [True, False])
def test_eigh_generalized(rng, dtype, kind, lower):
    n = 23
    a = hermitian(rng, (n, n), dtype)
    b = spd(rng, (n, n), dtype)
    w, v = gsl.eigh(gp.asarray(a), gp.asarray(b), type=kind, lower=lower)
    w_w, v_w = scipy_linalg.eigh(a, b, type=kind, lower=lower)
    assert w.dtype == w_w.dtype and v.dtype == v_w.dtype
    aw, bw = wide(a), wide(b)
    # The reduced problem is C = L^-1 A L^-H (type 1) or L^H A L (types 2, 3) with
    # B = L L^H: its norm is at most ||A|| ||B^-1|| or ||A|| ||B||, and forming it costs
    # up to cond(B) in relative accuracy. Eigenvalues within C_ITER n eps ||C|| cond(B)
    # of LAPACK's (Weyl on C).
    na, nb = np.linalg.norm(aw, 2), np.linalg.norm(bw, 2)
    cb = np.linalg.cond(bw)
    norm_c = na * np.linalg.norm(np.linalg.inv(bw), 2) if kind == 1 else na * nb
    w_ref = scipy_linalg.eigh(aw, bw, type=kind, eigvals_only=True, lower=lower)
    assert_values_close(gp.asnumpy(w), w_ref, norm_c * cb, w.dtype)
    # Residuals of the defining equations, with the same factor.
    vh, wh = wide(gp.asnumpy(v)), wide(gp.asnumpy(w))
    xn = np.linalg.norm(vh, 2)
    wmax = np.max(np.abs(w_ref))
    if kind == 1:
        r, rs = aw @ vh - (bw @ vh) * wh, (na + nb * wmax) * xn
    elif kind == 2:
        r, rs = aw @ (bw @ vh) - vh * wh, (na * nb + wmax) * xn
    else:
        r, rs = bw @ (aw @ vh) - vh * wh, (na * nb + wmax) * xn
    assert np.linalg.norm(r) <= C_ITER * n * eps_of(dtype) * cb * rs
    # LAPACK's normalization: X^H B X = I (types 1, 2), X^H B^-1 X = I (type 3).
    g = ct(vh) @ (bw @ vh if kind != 3 else np.linalg.solve(bw, vh))
    assert np.linalg.norm(g - np.eye(n)) <= C_ITER * n * eps_of(dtype) * cb


def test_eigh_subsets_and_errors(rng):
    a = hermitian(rng, (12, 12), np.float64)
    w_all = np.linalg.eigvalsh(a)
    w, v = gsl.eigh(gp.asarray(a), subset_by_index=[2, 6])
    w_w, v_w = scipy_linalg.eigh(a, subset_by_index=[2, 6])
    assert w.shape == w_w.shape and v.shape == v_w.shape
    assert_values_close(gp.asnumpy(w), w_all[2:7], norm2(a), np.float64)
    assert_eigenpairs(a, gp.asnumpy(w), gp.asnumpy(v), np.float64)
    lo, hi = (w_all[3] + w_all[4]) / 2, (w_all[8] + w_all[9]) / 2
    w = gsl.eigh(gp.asarray(a), subset_by_value=(lo, hi), eigvals_only=True)
    assert w.shape == scipy_linalg.eigh(a, subset_by_value=(lo, hi), eigvals_only=True).shape
    assert_values_close(gp.asnumpy(w), w_all[4:9], norm2(a), np.float64)
    b = spd(rng, (12, 12), np.float64)
    for call, exc in [
        (lambda m: m.eigh(op(m, a[:, :5])), ValueError),
        (lambda m: m.eigh(op(m, a), op(m, b[:5, :5])), ValueError),
        (lambda m: m.eigh(op(m, a), op(m, -b)), np.linalg.LinAlgError),
        (lambda m: m.eigh(op(m, a), op(m, b), type=4), ValueError),
        (lambda m: m.eigh(op(m, a), driver="xx"), ValueError),
        (lambda m: m.eigh(op(m, a), driver="gvd"), ValueError),
        (lambda m: m.eigh(op(m, a), op(m, b), driver="evr"), ValueError),
        (lambda m: m.eigh(op(m, a), subset_by_index=[5, 20]), ValueError),
        (lambda m: m.eigh(op(m, a), subset_by_value=[2, 1]), ValueError),
        (lambda m: m.eigh(op(m, a * np.nan)), ValueError),
    ]:
        same_error(lambda: call(gsl), lambda: call(scipy_linalg), exc)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(1, 1), (6, 6), (40, 7), (7, 40), (130, 65), (3, 9, 5), (0, 3), (3, 0)], ids=str)
@pytest.mark.parametrize("full", [True, False])
def test_svd(rng, dtype, shape, full):
    a = randn(rng, shape, dtype)
    u, s, vh = gsl.svd(gp.asarray(a), full_matrices=full)
    u_w, s_w, vh_w = scipy_linalg.svd(a, full_matrices=full)
    for g, w in [(u, u_w), (s, s_w), (vh, vh_w)]:
        assert g.dtype == w.dtype and g.shape == w.shape
    s_only = gsl.svd(gp.asarray(a), compute_uv=False)
    assert s_only.dtype == s_w.dtype and s_only.shape == s_w.shape
    if a.size == 0:
        np.testing.assert_array_equal(gp.asnumpy(u), u_w)
        np.testing.assert_array_equal(gp.asnumpy(vh), vh_w)
        return
    k = min(shape[-2:])
    uh, sh, vhh = (wide(gp.asnumpy(x)) for x in (u, s, vh))
    assert_values_close(sh, np.linalg.svd(wide(a), compute_uv=False), norm2(a), s.dtype, what="singular values")
    assert_values_close(wide(gp.asnumpy(s_only)), np.linalg.svd(wide(a), compute_uv=False), norm2(a), s.dtype,
                        what="singular values")
    assert_orthonormal_columns(uh, u.dtype, c=C_ITER)
    assert_reconstructs(a, (uh[..., :, :k] * sh[..., None, :]) @ vhh[..., :k, :], u.dtype, c=C_ITER)


def test_svd_errors(rng):
    a = randn(rng, (4, 3), np.float64)
    same_error(lambda: gsl.svd(gp.asarray(a[0])), lambda: scipy_linalg.svd(a[0]), ValueError)
    same_error(lambda: gsl.svd(gp.asarray(a), lapack_driver="x"), lambda: scipy_linalg.svd(a, lapack_driver="x"),
               ValueError)
    same_error(lambda: gsl.svd(gp.asarray(a * np.nan)), lambda: scipy_linalg.svd(a * np.nan), ValueError)


# ---------------------------------------------------------------------------------------
# lstsq


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("m, n", [(40, 7), (7, 40), (17, 17), (1, 1), (0, 4), (4, 0)])
@pytest.mark.parametrize("rhs", [None, 3])
def test_lstsq(rng, dtype, m, n, rhs):
    a = randn(rng, (m, n), dtype)
    b = randn(rng, (m,) if rhs is None else (m, rhs), dtype)
    x, res, rank, s = gsl.lstsq(gp.asarray(a), gp.asarray(b))
    x_w, res_w, rank_w, s_w = scipy_linalg.lstsq(a, b)
    assert x.dtype == x_w.dtype and x.shape == x_w.shape
    assert res.dtype == res_w.dtype and res.shape == np.shape(res_w)
    assert s.dtype == s_w.dtype and s.shape == s_w.shape
    assert np.array_equal(rank, rank_w)
    if min(m, n) == 0:
        np.testing.assert_array_equal(gp.asnumpy(x), x_w)
        np.testing.assert_allclose(gp.asnumpy(res), res_w, rtol=4 * m * eps_of(dtype))
        return
    aw = wide(a)
    cond = np.linalg.cond(aw)
    tol = cond * C_SOLVE * max(m, n) * eps_of(dtype)
    want = np.linalg.lstsq(aw, wide(b))[0]
    assert np.linalg.norm(wide(gp.asnumpy(x)) - want) <= tol * np.linalg.norm(want)
    if np.size(res_w):
        np.testing.assert_allclose(wide(gp.asnumpy(res)), np.linalg.lstsq(aw, wide(b))[1].reshape(np.shape(res_w)),
                                   rtol=2 * tol)


def test_lstsq_errors_and_drivers(rng):
    a = randn(rng, (6, 3), np.float64)
    b = randn(rng, (6,), np.float64)
    x, res, rank, s = gsl.lstsq(gp.asarray(a), gp.asarray(b), lapack_driver="gelsy")
    res_w = scipy_linalg.lstsq(a, b, lapack_driver="gelsy")[1]
    assert res.shape == res_w.shape and res.dtype == res_w.dtype  # gelsy reports no residues
    want = np.linalg.lstsq(a, b)[0]
    tol = np.linalg.cond(a) * C_SOLVE * 6 * eps_of(np.float64)  # forward error of a full-rank problem
    assert np.linalg.norm(gp.asnumpy(x) - want) <= tol * np.linalg.norm(want)
    for call, exc in [
        (lambda m: m.lstsq(op(m, a), op(m, b[:5])), ValueError),
        (lambda m: m.lstsq(op(m, a[0]), op(m, b[:3])), ValueError),
        (lambda m: m.lstsq(op(m, a), op(m, b), lapack_driver="x"), ValueError),
        (lambda m: m.lstsq(op(m, a * np.nan), op(m, b)), ValueError),
    ]:
        same_error(lambda: call(gsl), lambda: call(scipy_linalg), exc)


# ---------------------------------------------------------------------------------------
# expm


def expm_reference(a):
    """exp(A) in long double (x86: 64-bit significand): A / 2^s with 1-norm at most 1/16,
    its Taylor series to 40 terms (truncation below 1e-60), then s squarings. SciPy's
    own float64 expm errs by up to a few hundred n eps kappa on random 2 x 2 matrices
    (measured against 40-digit mpmath), too much to be the reference of a bound of
    C n eps kappa."""
    a = np.asarray(a)
    wide_t = np.clongdouble if a.dtype.kind == "c" else np.longdouble
    x = a.astype(wide_t)
    nrm = float(np.max(np.sum(np.abs(x), axis=-2))) if x.size else 0.0
    s = max(0, int(np.ceil(np.log2(max(nrm, 1e-300)))) + 4)
    x = x / wide_t(2.0**s)
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=wide_t), x.shape)
    term = eye.copy()
    result = eye.copy()
    for k in range(1, 41):
        term = term @ x / k
        result = result + term
    for _ in range(s):
        result = result @ result
    return result


def expm_close(got, a, dtype, normal=False):
    """Against ``expm_reference`` of the same values (the input rounded to ``dtype``):
    relative Frobenius error within ``C_ITER n eps kappa``. Scaling and squaring with a
    Pade approximant errs by a few n eps times the relative condition number ``kappa``
    of the exponential at ``A`` (Higham 2005; 2.2 n eps kappa at most, measured for the
    algorithm in float64 against mpmath): ``kappa = ||A||_2`` for normal matrices
    (``normal=True``), else at most ``||A|| e^||A|| / ||e^A||`` (Van Loan)."""
    aw = np.asarray(a).astype(dtype)
    ref = expm_reference(aw).astype(np.complex128 if aw.dtype.kind == "c" else np.float64)
    n = aw.shape[-1]
    nrm = np.linalg.norm(wide(aw), 2, axis=(-2, -1))
    ref_norm = np.linalg.norm(ref, axis=(-2, -1))
    if normal:
        kappa = np.maximum(nrm, 1)
    else:
        kappa = np.maximum(nrm, 1) * np.exp(nrm) / np.maximum(np.linalg.norm(ref, 2, axis=(-2, -1)), 1e-300)
    tol = C_ITER * n * eps_of(dtype) * kappa
    err = np.linalg.norm(wide(gp.asnumpy(got)) - ref, axis=(-2, -1)) / ref_norm
    assert np.all(err <= tol), f"expm relative error {np.max(err):.2e} > {np.min(tol):.2e}"


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("scale", [1e-3, 0.1, 1.0, 3.0])
@pytest.mark.parametrize("n", [2, 7, 33])
def test_expm(rng, dtype, scale, n):
    """General matrices of 2-norm about ``2 * scale`` (each Pade degree and scaling)."""
    a = (randn(rng, (n, n), dtype) * (scale / np.sqrt(n))).astype(dtype)
    got = gsl.expm(gp.asarray(a))
    want = scipy_linalg.expm(a)
    assert got.dtype == want.dtype and got.shape == want.shape
    expm_close(got, a, got.dtype)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
def test_expm_hermitian_large_norms(rng, dtype):
    """Hermitian matrices up to norm 40 (many squarings; each matrix of the batch scaled
    by its own power of two): exp(A) = V diag(exp(w)) V^H is the reference's check too."""
    scales = np.array([1e-4, 0.5, 3.0, 12.0, 40.0])
    a = (hermitian(rng, (5, 9, 9), dtype) * (scales / 3)[:, None, None]).astype(dtype)
    got = gsl.expm(gp.asarray(a))
    assert got.shape == a.shape
    expm_close(got, a, got.dtype, normal=True)


def test_expm_structured_and_errors(rng):
    # Diagonal and triangular matrices: exact exponentials on the diagonal.
    d = np.diag(randn(rng, (5,), np.float64) * 3)
    np.testing.assert_allclose(gp.asnumpy(gsl.expm(gp.asarray(d))), np.diag(np.exp(np.diag(d))),
                               rtol=4 * np.finfo(np.float64).eps)
    t = np.triu(randn(rng, (8, 8), np.float64)) / 3
    et = gp.asnumpy(gsl.expm(gp.asarray(t)))
    assert not np.any(np.tril(et, -1))
    np.testing.assert_allclose(np.diag(et), np.exp(np.diag(t)), rtol=4 * np.finfo(np.float64).eps)
    expm_close(gsl.expm(gp.asarray(t)), t, np.float64)
    # A batch of general matrices of different norms.
    g = np.stack([randn(rng, (6, 6), np.float64) * s for s in (1e-4, 0.05, 0.3)])
    expm_close(gsl.expm(gp.asarray(g)), g, np.float64)
    # Nilpotent: exp(N) = I + N + N^2 / 2 exactly for a 3x3 strictly upper N.
    nil = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    # One LU solve of the Pade denominator (C_SOLVE n eps) on a matrix of norm 5.
    np.testing.assert_allclose(gp.asnumpy(gsl.expm(gp.asarray(nil))), np.eye(3) + nil + nil @ nil / 2,
                               rtol=C_SOLVE * 3 * 5 * np.finfo(np.float64).eps)
    i8 = np.array([[1, 2], [0, 1]], dtype=np.int8)
    assert gsl.expm(gp.asarray(i8)).dtype == scipy_linalg.expm(i8).dtype
    expm_close(gsl.expm(gp.asarray(i8)), i8, np.float64)
    # float16 (float32), a scalar, 1 x 1 and empty inputs: exponentials of single
    # values (libdevice's exp, 2 ulp, against NumPy's), or nothing.
    for x in [np.eye(3, dtype=np.float16) * 0.5, np.float32(2.0), np.ones((1, 1), np.float16), np.ones((0, 0)),
              np.ones((2, 0, 0), np.float32)]:
        want = scipy_linalg.expm(x)
        got = gsl.expm(gp.asarray(x))
        assert got.dtype == want.dtype and got.shape == want.shape
        if want.size:
            np.testing.assert_allclose(wide(gp.asnumpy(got)), wide(want), rtol=8 * np.finfo(want.dtype).eps)
    for x in [np.ones(3), np.ones((2, 3))]:
        same_error(lambda: gsl.expm(gp.asarray(x)), lambda: scipy_linalg.expm(x), np.linalg.LinAlgError)


# ---------------------------------------------------------------------------------------
# block_diag, tril, triu


def test_block_diag(rng):
    parts = [randn(rng, (2, 3), np.float32), randn(rng, (4,), np.int16), randn(rng, (), np.float64),
             randn(rng, (0, 2), np.float32), randn(rng, (3, 0), np.float32), randn(rng, (2, 2), np.complex64)]
    want = scipy_linalg.block_diag(*parts)
    got = gsl.block_diag(*[gp.asarray(p) for p in parts])
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(gp.asnumpy(got), want)
    want = scipy_linalg.block_diag()
    got = gsl.block_diag()
    assert got.shape == want.shape and got.dtype == want.dtype
    # Batched blocks broadcast (SciPy 1.17).
    b1, b2 = randn(rng, (3, 2, 2), np.float64), randn(rng, (1, 3, 1), np.float64)
    np.testing.assert_array_equal(gp.asnumpy(gsl.block_diag(gp.asarray(b1), gp.asarray(b2))),
                                  scipy_linalg.block_diag(b1, b2))


def test_tril_triu(rng):
    x = randn(rng, (3, 6, 5), np.float64)
    for k in (0, 1, -2):
        np.testing.assert_array_equal(gp.asnumpy(gsl.tril(gp.asarray(x), k)), np.tril(x, k))
        np.testing.assert_array_equal(gp.asnumpy(gsl.triu(gp.asarray(x), k=k)), np.triu(x, k=k))


def test_exports():
    assert gsl.LinAlgError is np.linalg.LinAlgError
    assert issubclass(gsl.LinAlgWarning, RuntimeWarning)
    import gpupyx.scipy

    assert gpupyx.scipy.linalg is gsl
