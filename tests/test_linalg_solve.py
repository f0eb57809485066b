"""gpupy.linalg's linear systems against NumPy (LAPACK, float64 on the same values):
``solve``, ``inv``, ``det``, ``slogdet``, ``matrix_power``, ``tensorsolve``,
``tensorinv``, and NumPy's errors and messages.

Accuracy is checked through residuals with the constants of ``linalg_helpers`` (its
docstring derives them): solves and inverses by their normwise backward error
``||A x - b|| / (||A|| ||x|| n eps) <= C_SOLVE``, which holds for ill-conditioned
matrices too; where the forward error is compared (well-conditioned matrices, and
``slogdet``) the bound is the backward one times the condition number. Result dtypes are
NumPy's; shapes follow NumPy 2's rule for ``solve`` (``b`` is a vector only when 1-D).
"""

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.linalg as gsl
from helpers import dtype_id
from linalg_helpers import (
    C_SOLVE,
    FLOAT_TYPES,
    LARGE_SIZES,
    SIZES,
    assert_solves,
    eps_of,
    hilbert,
    orthogonal,
    randn,
    same_error,
    spd,
    well_conditioned,
    wide,
    with_condition,
    working,
)

pytestmark = pytest.mark.gpu


# ---------------------------------------------------------------------------------------
# solve


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("rhs", ["vector", "k1", "k5"])
def test_solve(rng, dtype, n, rhs):
    a = well_conditioned(rng, (n, n), dtype)
    b = randn(rng, (n,) if rhs == "vector" else (n, 1 if rhs == "k1" else 5), dtype)
    want = np.linalg.solve(a, b)
    got = gp.linalg.solve(gp.asarray(a), gp.asarray(b))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert_solves(a, gp.asnumpy(got), b, got.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128], ids=dtype_id)
@pytest.mark.parametrize("n", LARGE_SIZES)
def test_solve_large(rng, dtype, n):
    a = randn(rng, (n, n), dtype)
    b = randn(rng, (n, 3), dtype)
    got = gp.linalg.solve(gp.asarray(a), gp.asarray(b))
    assert got.dtype == np.linalg.solve(a[:1, :1], b[:1]).dtype
    assert_solves(a, gp.asnumpy(got), b, got.dtype)


@pytest.mark.parametrize("shapes", [
    ((3, 4, 5, 5), (4, 5, 2)),      # batch shapes broadcast
    ((2, 1, 6, 6), (3, 6, 1)),
    ((7, 7), (4, 3, 7, 2)),         # one matrix, a stack of right-hand sides (one factorization)
    ((1, 7, 7), (5, 7, 3)),
    ((5, 9, 9), (9,)),              # a 1-D b is one vector for every matrix (NumPy 2)
    ((2, 3, 4, 4), (4, 4)),         # a 2-D b is a matrix, broadcast over a's batch
    ((0, 4, 4), (4, 2)),            # empty batch
    ((3, 0, 0), (3, 0, 2)),         # empty matrices
    ((3, 3), (3, 0)),               # no right-hand side
])
@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=dtype_id)
def test_solve_batched(rng, shapes, dtype):
    sa, sb = shapes
    a = well_conditioned(rng, sa, dtype)
    b = randn(rng, sb, dtype)
    want = np.linalg.solve(a, b)
    got = gp.linalg.solve(gp.asarray(a), gp.asarray(b))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert_solves(a, gp.asnumpy(got), b, got.dtype)


VIEWS = [
    ("transposed", lambda m: m.T),
    ("negative strides", lambda m: m[::-1, ::-1]),
    ("every other row", lambda m: m[::2, :][:, :m.shape[0] // 2]),
    ("offset", lambda m: m[1:, 1:]),
]


@pytest.mark.parametrize("view", VIEWS, ids=[v[0] for v in VIEWS])
@pytest.mark.parametrize("dtype", [np.float64, np.complex64], ids=dtype_id)
def test_solve_views(rng, view, dtype):
    _, f = view
    base = well_conditioned(rng, (34, 34), dtype)
    a = f(base)
    n = a.shape[0]
    # b: a transposed view with negative strides on the device.
    bt = randn(rng, (3, n), dtype)
    b = bt.T[::-1]
    gb = gp.asarray(bt).T[::-1]
    got = gp.linalg.solve(f(gp.asarray(base)), gb)
    assert_solves(a, gp.asnumpy(got), b, got.dtype)
    # A batch of transposed matrices (last two axes swapped): one strided view.
    stack = well_conditioned(rng, (3, 12, 12), dtype)
    bb = randn(rng, (3, 12, 2), dtype)
    got = gp.linalg.solve(gp.asarray(stack).transpose(0, 2, 1), gp.asarray(bb))
    assert_solves(stack.transpose(0, 2, 1), gp.asnumpy(got), bb, got.dtype)


@pytest.mark.parametrize("da, db", [
    (np.int32, np.int32), (np.int64, np.float32), (np.bool_, np.float64), (np.uint8, np.complex64),
    (np.float32, np.float64), (np.float32, np.complex64), (np.int16, np.int8),
], ids=lambda d: np.dtype(d).name)
def test_solve_promotion(rng, da, db):
    n = 6
    if da == np.bool_:
        # Unit lower triangular booleans: nonsingular.
        a = np.eye(n, dtype=bool) | ((rng.integers(0, 4, (n, n)) == 0) & np.tri(n, k=-1, dtype=bool))
    else:
        a = well_conditioned(rng, (n, n), da)
    b = randn(rng, (n, 2), db)
    want = np.linalg.solve(a, b)
    got = gp.linalg.solve(gp.asarray(a), gp.asarray(b))
    assert got.dtype == want.dtype
    assert_solves(a, gp.asnumpy(got), b, got.dtype)


def test_float16_is_refused(rng):
    a = randn(rng, (3, 3), np.float16)
    b = randn(rng, (3,), np.float32)
    for g, f in [(gp.linalg.solve, np.linalg.solve)]:
        same_error(lambda: g(gp.asarray(a), gp.asarray(b)), lambda: f(a, b), TypeError)
    for name in ["inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "qr", "svd", "pinv"]:
        same_error(lambda: getattr(gp.linalg, name)(gp.asarray(a)), lambda: getattr(np.linalg, name)(a), TypeError)


@pytest.mark.parametrize("cond", [1e4, 1e8, 1e12])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32], ids=dtype_id)
def test_solve_ill_conditioned(rng, cond, dtype):
    """Backward stability whatever the condition number; the forward error against
    LAPACK's solution within cond times the backward bound where that is below 1."""
    n = 40
    a = with_condition(rng, n, cond, dtype)
    b = randn(rng, (n,), dtype)
    got = gp.asnumpy(gp.linalg.solve(gp.asarray(a), gp.asarray(b)))
    assert_solves(a, got, b, got.dtype)
    bound = cond * C_SOLVE * n * eps_of(dtype)
    if bound < 0.1:
        want = np.linalg.solve(wide(a), wide(b))
        err = np.linalg.norm(wide(got) - want) / np.linalg.norm(want)
        assert err <= bound, f"forward error {err:.2e} > {bound:.2e}"


def _structured(rng, kind, n, dtype):
    if kind == "hilbert":
        return hilbert(n, dtype)
    if kind == "orthogonal":
        return orthogonal(rng, n, dtype)
    if kind == "diagonal":
        return np.diag(randn(rng, (n,), dtype) + 2).astype(dtype)
    if kind == "upper":
        return (np.triu(randn(rng, (n, n), dtype)) + 3 * np.eye(n)).astype(dtype)
    if kind == "lower":
        return (np.tril(randn(rng, (n, n), dtype)) + 3 * np.eye(n)).astype(dtype)
    if kind == "block":
        a = np.zeros((n, n), dtype)
        h = n // 2
        a[:h, :h] = well_conditioned(rng, (h, h), dtype)
        a[h:, h:] = well_conditioned(rng, (n - h, n - h), dtype)
        return a
    if kind == "symmetric indefinite":
        x = randn(rng, (n, n), dtype)
        return (x + x.T + np.diag(np.where(np.arange(n) % 2, 4.0, -4.0))).astype(dtype)
    if kind == "spd":
        return spd(rng, (n, n), dtype)
    raise AssertionError(kind)


STRUCTURES = ["hilbert", "orthogonal", "diagonal", "upper", "lower", "block", "symmetric indefinite", "spd"]


@pytest.mark.parametrize("kind", STRUCTURES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=dtype_id)
def test_solve_structured(rng, kind, dtype):
    n = 12 if kind == "hilbert" else 37
    a = _structured(rng, kind, n, dtype)
    b = randn(rng, (n, 2), dtype)
    got = gp.asnumpy(gp.linalg.solve(gp.asarray(a), gp.asarray(b)))
    assert_solves(a, got, b, got.dtype)
    ainv = gp.asnumpy(gp.linalg.inv(gp.asarray(a)))
    assert_inverse(a, ainv, ainv.dtype)


def tutorial_system(rng):
    """The tutorial's 1024 x 1024 float32 system: uniform random entries plus ``n`` on
    the diagonal (diagonally dominant, condition number about 3), so that the check
    ``||A x - b|| / ||b|| < 1e-4`` measures the solver. (A Gaussian float32 system of
    this order has a condition number of 1e3 to 1e4, and LAPACK's or cuSOLVER's float32
    LU leaves a relative residual of about 1e-3 there: the backward-error tests above
    cover it.)"""
    n = 1024
    a = (rng.random((n, n)) + n * np.eye(n)).astype(np.float32)
    b = rng.random(n).astype(np.float32)
    return a, b


def test_solve_tutorial_1024_float32(rng):
    """The tutorial's check: relative residual below 1e-4 with gpupy.linalg.solve and
    gpupyx.scipy.linalg.solve."""
    a, b = tutorial_system(rng)
    for solve in (gp.linalg.solve, gsl.solve):
        x = solve(gp.asarray(a), gp.asarray(b))
        assert x.dtype == np.float32
        r = np.linalg.norm(wide(a) @ wide(gp.asnumpy(x)) - wide(b)) / np.linalg.norm(wide(b))
        assert r < 1e-4, f"{solve.__module__}.solve: relative residual {r:.2e}"


def test_solve_2048_float64(rng):
    a = randn(rng, (2048, 2048), np.float64)
    b = randn(rng, (2048, 4), np.float64)
    x = gp.asnumpy(gp.linalg.solve(gp.asarray(a), gp.asarray(b)))
    assert_solves(a, x, b, np.float64)


# ---------------------------------------------------------------------------------------
# Errors


def singular(rng, n, dtype=np.float64):
    """A matrix with a zero column: every LU with partial pivoting meets an exactly zero
    pivot there."""
    a = randn(rng, (n, n), dtype)
    a[:, n // 2] = 0
    return a


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
def test_singular_raises(rng, dtype):
    a = singular(rng, 5, dtype)
    b = randn(rng, (5,), dtype)
    same_error(lambda: gp.linalg.solve(gp.asarray(a), gp.asarray(b)), lambda: np.linalg.solve(a, b),
               gp.linalg.LinAlgError)
    same_error(lambda: gp.linalg.inv(gp.asarray(a)), lambda: np.linalg.inv(a), gp.linalg.LinAlgError)
    # One singular matrix in a batch fails the whole call, as NumPy's.
    batch = well_conditioned(rng, (4, 5, 5), dtype)
    batch[2] = a
    same_error(lambda: gp.linalg.solve(gp.asarray(batch), gp.asarray(b)), lambda: np.linalg.solve(batch, b),
               gp.linalg.LinAlgError)
    same_error(lambda: gp.linalg.inv(gp.asarray(batch)), lambda: np.linalg.inv(batch), gp.linalg.LinAlgError)
    same_error(lambda: gp.linalg.tensorinv(gp.asarray(a), ind=1), lambda: np.linalg.tensorinv(a, ind=1),
               gp.linalg.LinAlgError)
    same_error(lambda: gp.linalg.matrix_power(gp.asarray(a), -2), lambda: np.linalg.matrix_power(a, -2),
               gp.linalg.LinAlgError)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=dtype_id)
def test_singular_raises_blocked(rng, dtype):
    """A zero column inside a panel of the blocked LU (order 300): the panel kernel
    reports the zero pivot and goes on, as LAPACK."""
    a = singular(rng, 300, dtype)
    b = randn(rng, (300,), dtype)
    same_error(lambda: gp.linalg.solve(gp.asarray(a), gp.asarray(b)), lambda: np.linalg.solve(a, b),
               gp.linalg.LinAlgError)
    assert gp.asnumpy(gp.linalg.det(gp.asarray(a))) == 0


def test_linalgerror_is_numpys():
    assert gp.linalg.LinAlgError is np.linalg.LinAlgError
    assert issubclass(gp.linalg.LinAlgError, ValueError)


@pytest.mark.parametrize("sa, sb", [
    ((3,), (3,)),                 # 1-D a
    ((3, 4), (3,)),               # not square
    ((2, 3, 4), (2, 3, 1)),
    ((3, 3), (2,)),               # solve1 core mismatch
    ((3, 3), (2, 1)),             # solve core mismatch
    ((2, 3, 3), (2, 3)),          # NumPy 2: a 2-D b is a matrix (2 rows), not a stack of vectors
    ((3, 3), ()),                 # 0-d b
    ((2, 3, 3), (4, 3, 1)),       # batch shapes that do not broadcast
    ((5, 2, 4, 4), (3, 4, 6)),
    ((2, 3, 3), (4, 2, 1)),       # both: the core mismatch is reported (NumPy's order)
])
def test_solve_shape_errors(rng, sa, sb):
    a = randn(rng, sa, np.float64)
    b = randn(rng, sb, np.float64)
    try:
        np.linalg.solve(a, b)
    except Exception as e:  # noqa: BLE001 - NumPy's error is the reference
        exc = type(e)
    else:
        raise AssertionError("NumPy accepted the shapes")
    same_error(lambda: gp.linalg.solve(gp.asarray(a), gp.asarray(b)), lambda: np.linalg.solve(a, b), exc)


@pytest.mark.parametrize("name", ["inv", "det", "slogdet"])
@pytest.mark.parametrize("shape", [(4,), (), (3, 4), (2, 2, 3)], ids=str)
def test_square_errors(rng, name, shape):
    a = randn(rng, shape, np.float64)
    same_error(lambda: getattr(gp.linalg, name)(gp.asarray(a)), lambda: getattr(np.linalg, name)(a),
               np.linalg.LinAlgError)


# ---------------------------------------------------------------------------------------
# inv


def assert_inverse(a, x, dtype, c=C_SOLVE):
    """``x`` is an inverse of ``a``: the smaller of the right and left residuals,
    ``min(||A X - I||, ||X A - I||) / (||A|| ||X|| n eps) <= c`` (LU-based inverses are
    backward stable for one of the two, depending on the method)."""
    wd = working(dtype)
    a_w = wide(np.asarray(a).astype(wd))
    x_w = wide(x)
    n = a_w.shape[-1]
    if a_w.size == 0:
        return
    eye = np.eye(n)
    right = np.sqrt(np.sum(np.abs(a_w @ x_w - eye) ** 2, axis=(-2, -1)))
    left = np.sqrt(np.sum(np.abs(x_w @ a_w - eye) ** 2, axis=(-2, -1)))
    scale = (np.sqrt(np.sum(np.abs(a_w) ** 2, axis=(-2, -1))) * np.sqrt(np.sum(np.abs(x_w) ** 2, axis=(-2, -1)))
             * n * eps_of(dtype))
    ratio = np.minimum(right, left) / scale
    assert np.all(ratio <= c), f"inverse residual {np.max(ratio):.3g} > {c} (n eps units)"


@pytest.mark.parametrize("dtype", FLOAT_TYPES + [np.int64, np.bool_], ids=dtype_id)
@pytest.mark.parametrize("shape", [(n, n) for n in SIZES] + [(4, 3, 3), (2, 3, 17, 17), (0, 5, 5), (257, 257)],
                         ids=str)
def test_inv(rng, dtype, shape):
    if np.dtype(dtype).kind == "b":
        a = np.broadcast_to(np.eye(shape[-1], dtype=bool), shape).copy()
        a |= np.tri(shape[-1], k=-1, dtype=bool) & (rng.integers(0, 2, shape) == 1)  # unit lower triangular
    else:
        a = well_conditioned(rng, shape, dtype)
    want = np.linalg.inv(a)
    got = gp.linalg.inv(gp.asarray(a))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert_inverse(a, gp.asnumpy(got), got.dtype)


def test_inv_views(rng):
    base = well_conditioned(rng, (3, 20, 20), np.complex128)
    for f in [lambda m: m.transpose(0, 2, 1), lambda m: m[::-1, ::-1, ::-1], lambda m: m[:, 2:, 2:]]:
        got = gp.linalg.inv(f(gp.asarray(base)))
        assert_inverse(f(base), gp.asnumpy(got), got.dtype)


# ---------------------------------------------------------------------------------------
# det, slogdet


def check_slogdet(a, sign, logdet, dtype):
    """``dtype``: the input's (its working dtype is what gpupy computed in). Against
    LAPACK in float64: ``|logabsdet - ref| <= C_SOLVE n eps cond(A)`` (a
    backward error ``dA`` changes ``log|det A|`` by ``trace(A^-1 dA)``, at most
    ``n ||A^-1|| ||dA||``), the sign exactly for real matrices, within the same bound for
    complex ones."""
    a_w = wide(np.asarray(a).astype(working(dtype)))
    ref_sign, ref_log = np.linalg.slogdet(a_w)
    n = a_w.shape[-1]
    cond = np.linalg.cond(a_w) if n else 1.0
    bound = C_SOLVE * max(n, 1) * eps_of(dtype) * cond
    assert np.all(np.abs(wide(logdet) - ref_log) <= bound * np.maximum(1, np.abs(ref_log)))
    if np.dtype(dtype).kind == "c":
        assert np.all(np.abs(wide(sign) - ref_sign) <= bound)
    else:
        np.testing.assert_array_equal(np.asarray(sign), ref_sign)


@pytest.mark.parametrize("dtype", FLOAT_TYPES + [np.int32], ids=dtype_id)
@pytest.mark.parametrize("shape", [(n, n) for n in SIZES] + [(5, 4, 4), (2, 3, 9, 9), (0, 3, 3), (3, 0, 0)],
                         ids=str)
def test_det_slogdet(rng, dtype, shape):
    a = well_conditioned(rng, shape, dtype)
    s_want, l_want = np.linalg.slogdet(a)
    s, ld = gp.linalg.slogdet(gp.asarray(a))
    assert isinstance(gp.linalg.slogdet(gp.asarray(a)), tuple)
    assert s.dtype == s_want.dtype and ld.dtype == l_want.dtype and s.shape == np.shape(s_want)
    check_slogdet(a, gp.asnumpy(s), gp.asnumpy(ld), dtype)
    res = gp.linalg.slogdet(gp.asarray(a))
    assert res.sign.shape == s.shape and res.logabsdet.shape == ld.shape
    d = gp.linalg.det(gp.asarray(a))
    d_want = np.linalg.det(a)
    assert d.dtype == d_want.dtype and d.shape == np.shape(d_want)
    # det = sign * exp(logabsdet): relative error of exp(logabsdet) plus the log's bound.
    # Determinants beyond the dtype's range are inf, as NumPy's (which rounds its double
    # result to the dtype).
    a_w = wide(np.asarray(a).astype(working(dtype)))
    ref = np.linalg.det(a_w)
    got = wide(gp.asnumpy(d))
    with np.errstate(over="ignore"):
        overflow = ~np.isfinite(ref.astype(d.dtype))
    np.testing.assert_array_equal(np.isinf(got), overflow)
    n = max(shape[-1], 1)
    cond = np.linalg.cond(a_w) if shape[-1] and a.size else 1.0
    with np.errstate(divide="ignore"):
        log_ref = np.log(np.abs(ref))
    bound = C_SOLVE * n * eps_of(dtype) * cond * np.maximum(1, np.abs(log_ref)) + eps_of(dtype)
    ok = overflow | (np.abs(got - ref) <= bound * np.abs(ref))
    assert np.all(ok)


def test_det_singular_and_special(rng):
    a = singular(rng, 6)
    assert float(gp.linalg.det(gp.asarray(a))) == 0.0
    s, ld = gp.linalg.slogdet(gp.asarray(a))
    assert float(s) == 0.0 and float(ld) == -np.inf
    z = singular(rng, 4, np.complex64)
    s, ld = gp.linalg.slogdet(gp.asarray(z))
    assert complex(s) == 0 and float(ld) == -np.inf and s.dtype == np.complex64
    # Permutations: det = the permutation's sign exactly.
    p = np.eye(7)[rng.permutation(7)]
    assert float(gp.linalg.det(gp.asarray(p))) == np.linalg.det(p)
    # The plain product of these pivots overflows (1e400) before the small ones bring it
    # back to 1; det = sign * exp(sum of logs), NumPy's way, does not.
    big = np.diag([1e200, 1e200, 1e-200, 1e-200])
    assert float(gp.linalg.det(gp.asarray(big))) == pytest.approx(np.linalg.det(big), rel=1e-12)
    # Integer determinants of small matrices are exact to rounding.
    m = np.array([[2, 1, 0], [1, 3, 1], [0, 1, 4]], dtype=np.int64)
    assert float(gp.linalg.det(gp.asarray(m))) == pytest.approx(18.0, rel=1e-14)


# ---------------------------------------------------------------------------------------
# matrix_power, tensorsolve, tensorinv


@pytest.mark.parametrize("p", [0, 1, 2, 3, 4, 7, -1, -3])
@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.complex64], ids=dtype_id)
def test_matrix_power(rng, p, dtype):
    if np.dtype(dtype).kind == "i":
        a = rng.integers(-2, 3, (2, 4, 4)).astype(dtype)
        if p < 0:  # unit upper triangular: integer inverses
            a = np.stack([np.eye(4, dtype=dtype) + np.triu(rng.integers(-2, 3, (4, 4)), 1) for _ in range(2)])
    else:
        a = np.stack([orthogonal(rng, 4, dtype) for _ in range(2)])  # powers stay of norm 1
    want = np.linalg.matrix_power(a, p)
    got = gp.linalg.matrix_power(gp.asarray(a), p)
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "i" or p == 0:
        np.testing.assert_array_equal(gp.asnumpy(got), want)
        return
    # An inverse errs by C_SOLVE n eps cond(a) relative, each of the |p| products by
    # C_SOLVE n eps more (unitary factors: products keep norm 1); integer matrices'
    # powers are compared relative to their largest entry.
    cond = float(np.max(np.linalg.cond(wide(a))))
    tol = (abs(p) + 1) * C_SOLVE * 4 * eps_of(got.dtype) * cond * max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(wide(gp.asnumpy(got)), wide(want), atol=tol, rtol=0)


def test_matrix_power_errors(rng):
    a = randn(rng, (3, 3), np.float64)
    same_error(lambda: gp.linalg.matrix_power(gp.asarray(a), 1.5), lambda: np.linalg.matrix_power(a, 1.5), TypeError)
    b = randn(rng, (3, 4), np.float64)
    same_error(lambda: gp.linalg.matrix_power(gp.asarray(b), 2), lambda: np.linalg.matrix_power(b, 2),
               np.linalg.LinAlgError)


def test_tensorsolve_tensorinv(rng):
    m = well_conditioned(rng, (24, 24), np.float64)
    cond = float(np.linalg.cond(m))
    tol = C_SOLVE * 24 * eps_of(np.float64) * cond  # forward error, relative to the largest entry
    a = m.reshape(6, 4, 2, 3, 4)
    b = randn(rng, (6, 4), np.float64)
    x = gp.linalg.tensorsolve(gp.asarray(a), gp.asarray(b))
    want = np.linalg.tensorsolve(a, b)
    assert x.shape == want.shape
    assert_solves(m, gp.asnumpy(x).ravel(), b.ravel(), np.float64)
    # axes= moves those axes of a to the end first.
    a2 = np.moveaxis(a, 2, 0)
    x2 = gp.linalg.tensorsolve(gp.asarray(a2), gp.asarray(b), axes=(0,))
    want2 = np.linalg.tensorsolve(a2, b, axes=(0,))
    assert x2.shape == want2.shape
    np.testing.assert_allclose(gp.asnumpy(x2), want2, rtol=0, atol=tol * np.abs(want2).max())
    ainv = gp.linalg.tensorinv(gp.asarray(m.reshape(4, 6, 8, 3)), ind=2)
    want_inv = np.linalg.tensorinv(m.reshape(4, 6, 8, 3), ind=2)
    assert ainv.shape == want_inv.shape
    np.testing.assert_allclose(gp.asnumpy(ainv), want_inv, rtol=0, atol=tol * np.abs(want_inv).max())
    bad = randn(rng, (3, 4), np.float64)
    same_error(lambda: gp.linalg.tensorsolve(gp.asarray(bad), gp.asarray(b[0, :3])),
               lambda: np.linalg.tensorsolve(bad, b[0, :3]), np.linalg.LinAlgError)
    same_error(lambda: gp.linalg.tensorinv(gp.asarray(a), ind=0), lambda: np.linalg.tensorinv(a, ind=0), ValueError)
