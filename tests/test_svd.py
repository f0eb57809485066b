"""Singular values (``gpupy.linalg.svdvals``, ``svd(compute_uv=False)``; singular vectors
are tested in test_linalg_eig_svd.py) and the matrix norms built on them (``norm`` with
ord 'nuc', 2, -2), against NumPy's LAPACK results computed in float64/complex128 on the
same values.

Tolerances: Jacobi's rotations perturb the matrix by a few ulps of its norm per sweep, so
every singular value is compared with an absolute error bound relative to the largest
one: ``50 * max(m, n) * eps`` in double precision; single-precision inputs compute in
double precision and round once, so 2**-24 more bounds them (``tolerance``)."""

import numpy as np
import pytest

import gpupy as gp
from helpers import dtype_id, random_array

pytestmark = pytest.mark.gpu

DTYPES = [np.float32, np.float64, np.complex64, np.complex128, np.int32, np.bool_]
# (shape, why): each launch shape of host/src/ops/linalg/svd.rs and the layouts that reach it.
SHAPES = [
    ((3, 4), "wide: rows are the Jacobi columns"),
    ((4, 3), "tall"),
    ((1, 1), "one element"),
    ((1, 6), "one row"),
    ((6, 1), "one column"),
    ((7, 7), "odd square: a phantom column in the round robin"),
    ((33, 17), "odd, not a warp multiple"),
    ((2, 5, 3), "batched, one launch"),
    ((1000, 7), "one launch, too large to stage in shared memory"),
    ((65, 70), "65 columns: one launch per round-robin step"),
    ((257, 130), "steps spread over several blocks"),
    ((140, 9, 6), "batch larger than the SM count: one block per matrix"),
    ((2, 3, 80, 67), "two batch axes, per-step launches"),
]


def wide(x):
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def want_svdvals(x):
    """NumPy's singular values in float64, and the dtype NumPy returns."""
    return np.linalg.svd(wide(x), compute_uv=False), np.linalg.svd(x, compute_uv=False).dtype


def tolerance(dtype, shape):
    """Relative to the largest singular value. Double precision: ``50 max(m, n) eps`` (a few
    ulps of the norm per rotation sweep, ~10 sweeps; NumPy's LAPACK reference errs by less).
    Single-precision input is computed in double precision and rounded once: the rounding,
    2**-24 sigma_i <= 2**-24 sigma_max, on top of the double-precision bound."""
    double = 50 * max(shape[-2:]) * np.finfo(np.float64).eps
    if np.dtype(dtype) in (np.float32, np.complex64):
        return 2.0**-24 + double
    return double


def check_close(got, want, dtype, tol):
    """``got`` (gpupy) equals ``want`` (float64) within ``tol`` times the largest value
    of each matrix, with NumPy's dtype and shape."""
    assert isinstance(got, gp.ndarray)
    assert got.dtype == dtype, f"dtype: gpupy {got.dtype}, numpy {dtype}"
    assert got.shape == want.shape, f"shape: gpupy {got.shape}, numpy {want.shape}"
    g = got.get().astype(np.float64)
    if want.size == 0:
        return
    scale = np.max(np.abs(want), axis=-1, keepdims=True) if want.ndim else abs(want)
    err = np.abs(g - want)
    assert np.all(err <= tol * np.maximum(scale, np.finfo(np.float64).tiny)), f"max relative error {np.max(err / scale):.3e} > {tol:.1e}"


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("case", SHAPES, ids=lambda c: str(c[0]))
def test_svdvals(rng, dtype, case):
    shape, _ = case
    x = random_array(rng, shape, dtype)
    want, want_dtype = want_svdvals(x)
    got = gp.linalg.svdvals(gp.asarray(x))
    check_close(got, want, want_dtype, tolerance(dtype, shape))
    check_close(gp.linalg.svd(gp.asarray(x), compute_uv=False), want, want_dtype, tolerance(dtype, shape))


@pytest.mark.parametrize("dtype", [np.float64, np.complex64], ids=dtype_id)
def test_svdvals_of_views(rng, dtype):
    x = random_array(rng, (9, 12, 10), dtype)
    for view in [lambda a: a[::2, 1::3, ::-1], lambda a: a.transpose(2, 0, 1), lambda a: a[3]]:
        v = view(x)
        want, want_dtype = want_svdvals(v)
        check_close(gp.linalg.svdvals(view(gp.asarray(x))), want, want_dtype, tolerance(dtype, v.shape))


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 3), (0, 3, 4)], ids=str)
def test_svdvals_empty(shape):
    x = np.ones(shape)
    want = np.linalg.svdvals(x)
    got = gp.linalg.svdvals(gp.asarray(x))
    assert got.shape == want.shape and got.dtype == want.dtype


def test_structured_matrices(rng):
    """Known singular values: rank-deficient (exact zeros), all equal (an orthogonal
    matrix), widely spread (condition number 1e12), and matrices scaled near the ends of
    float64's range, which the power-of-two scaling keeps from overflowing."""
    q1, _ = np.linalg.qr(rng.standard_normal((40, 40)))
    q2, _ = np.linalg.qr(rng.standard_normal((30, 30)))
    spread = (q1[:, :30] * np.logspace(0, -12, 30)) @ q2.T
    low_rank = rng.standard_normal((50, 3)) @ rng.standard_normal((3, 70))
    cases = [q1, spread, low_rank, spread * 1e250, low_rank * 1e-250, rng.standard_normal((70, 70)) * 1e-305]
    for x in cases:
        want, _ = want_svdvals(x)
        check_close(gp.linalg.svdvals(gp.asarray(x)), want, np.float64, tolerance(np.float64, x.shape))
    for x in [spread.astype(np.float32), (low_rank * 1e30).astype(np.float32)]:
        want, _ = want_svdvals(x)
        check_close(gp.linalg.svdvals(gp.asarray(x)), want, np.float32, tolerance(np.float32, x.shape))


def test_nonfinite_like_numpy(rng):
    """As LAPACK through NumPy: a NaN anywhere raises LinAlgError; a matrix with an
    infinity gets NaN singular values, the other matrices of the batch are unaffected."""
    x = random_array(rng, (3, 5, 4), np.float64)
    x[1, 2, 3] = np.inf
    want, _ = want_svdvals(x)
    got = gp.linalg.svdvals(gp.asarray(x)).get()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    check_close(gp.asarray(got[[0, 2]]), want[[0, 2]], np.float64, tolerance(np.float64, x.shape))
    x[0, 0, 0] = np.nan
    for f in (np.linalg.svdvals, gp.linalg.svdvals):
        with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):
            f(x if f is np.linalg.svdvals else gp.asarray(x))
    a = gp.asarray(random_array(rng, (4, 4), np.float64))
    assert gp.linalg.svdvals(a).shape == (4,)  # usable afterwards


def test_errors_like_numpy(rng):
    for x, err in [
        (random_array(rng, (3,), np.float64), np.linalg.LinAlgError),
        (random_array(rng, (3, 3), np.float16), TypeError),
    ]:
        with pytest.raises(err) as e_np:  # no match=: NumPy's message is the reference
            np.linalg.svdvals(x)
        with pytest.raises(err) as e_gp:  # no match=: compared with NumPy's below
            gp.linalg.svdvals(gp.asarray(x))
        assert str(e_gp.value) == str(e_np.value)
    # With vectors (checked in test_linalg_eig_svd.py): U, S, Vh.
    u, s_, vh = gp.linalg.svd(gp.asarray(random_array(rng, (3, 3))))
    assert u.shape == (3, 3) and s_.shape == (3,) and vh.shape == (3, 3)


NORM_CASES = [
    ((4, 6), {}),
    ((7, 5), {}),
    ((2, 9, 8), {"axis": (1, 2)}),
    ((9, 3, 8), {"axis": (2, 0)}),
    ((3, 8, 5), {"axis": (-1, -2), "keepdims": True}),
    ((70, 66), {}),
    ((150, 5, 4), {"axis": (1, 2)}),
]


@pytest.mark.parametrize("ord", ["nuc", 2, -2], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128, np.int32], ids=dtype_id)
@pytest.mark.parametrize("case", NORM_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_norm_from_singular_values(rng, ord, dtype, case):
    shape, kw = case
    x = random_array(rng, shape, dtype)
    if np.dtype(dtype).kind == "i":
        x = (x % 100).astype(dtype)
    want_dtype = np.asarray(np.linalg.norm(x, ord=ord, **kw)).dtype
    want = np.asarray(np.linalg.norm(wide(x) if x.dtype.kind in "fc" else x, ord=ord, **kw))
    got = gp.linalg.norm(gp.asarray(x), ord=ord, **kw)
    assert got.dtype == want_dtype and got.shape == want.shape
    # Each singular value is within tol * sigma_max; 'nuc' sums k of them.
    sigma_max = np.asarray(np.linalg.norm(wide(x) if x.dtype.kind in "fc" else x, ord=2, **kw))
    k = min(shape[a] for a in kw.get("axis", (-2, -1)))
    bound = tolerance(dtype, shape) * (k if ord == "nuc" else 1) * sigma_max
    err = np.abs(got.get().astype(np.float64) - want)
    assert np.all(err <= bound), f"max error {np.max(err / sigma_max):.3e} of sigma_max"


def test_norm_empty_and_float16(rng):
    for shape in [(0, 3), (4, 0), (2, 0, 3)]:
        x = np.ones(shape)
        for ord in ["nuc", 2]:
            want = np.asarray(np.linalg.norm(x, ord=ord, axis=(-2, -1)))
            got = gp.linalg.norm(gp.asarray(x), ord=ord, axis=(-2, -1))
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_array_equal(got.get(), want)
        with pytest.raises(ValueError, match="zero-size array"):
            np.linalg.norm(x, ord=-2, axis=(-2, -1))
        with pytest.raises(ValueError, match="zero-size array"):
            gp.linalg.norm(gp.asarray(x), ord=-2, axis=(-2, -1))
    h = random_array(rng, (3, 3), np.float16)
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        gp.linalg.norm(gp.asarray(h), ord=2)
