"""Matrices and residual checks for the linear-algebra tests (NumPy only; imported by
test_linalg_solve.py, test_linalg_decomp.py, test_linalg_eig_svd.py and
test_scipy_linalg.py).

Every check is a normwise residual relative to the unit of the computation, evaluated in
float64/complex128 on the values gpupy was given (the input rounded to the working
dtype) and the result it returned:

- backward error of a solve: ``||A X - B||_F / (||A||_F ||X||_F n eps) <= C``;
- reconstruction of a factorization: ``||A - F1 F2 ...||_F / (||A||_F n eps) <= C``;
- orthonormal columns: ``||Q^H Q - I||_F / (n eps) <= C``;
- eigen/singular values against LAPACK's (NumPy, float64): ``|w - w_ref| <= C n eps ||A||_2``
  (Weyl's inequality: a backward error of ``n eps ||A||`` moves no eigenvalue of a
  Hermitian matrix, and no singular value, by more than that);
- eigenvectors through their residual ``||A V - V diag(w)||_F / (||A||_F n eps) <= C``.

``eps`` is the machine epsilon of the dtype gpupy computes in (float32's for float32 and
complex64: gpupy, like cuSOLVER and SciPy, computes single precision in single
precision), ``n`` the matrix order (at least 1). The constants, stated once here:

- ``C_SOLVE = 10`` for LU solves, inverses and triangular solves (Wilkinson's bound is
  ``gamma_3n`` times the growth factor, which stays below 10 for the matrices here; the
  float64 evaluation of the residual adds ``gamma_n``);
- ``C_FACT = 20`` for Cholesky and Householder QR reconstructions and orthogonality
  (``gamma_cn`` with small c, a few rotations of rounding per column);
- ``C_ITER = 50`` for the iterative eigen- and singular-value solvers, whose error is
  their stopping tolerance times the sweeps (the same 50 as test_svd.py's Jacobi bound).
"""

import warnings

import numpy as np

C_SOLVE = 10
C_FACT = 20
C_ITER = 50

FLOAT_TYPES = [np.float32, np.float64, np.complex64, np.complex128]
SIZES = [0, 1, 2, 3, 17, 33, 64, 65, 130]
LARGE_SIZES = [257, 600]


def working(dtype):
    """NumPy's result dtype for one linear-algebra operand of ``dtype`` (which is the
    dtype gpupy computes in): float32/complex64 stay, the rest become float64/complex128."""
    dt = np.dtype(dtype)
    if dt in (np.float32, np.complex64, np.float64, np.complex128):
        return dt
    return np.dtype(np.complex128 if dt.kind == "c" else np.float64)


def wide(x):
    """``x`` in float64 (complex128)."""
    x = np.asarray(x)
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def eps_of(dtype):
    return float(np.finfo(working(dtype)).eps)


def randn(rng, shape, dtype=np.float64):
    """Standard normal values of ``dtype`` (complex: both parts normal); integer and bool
    dtypes get small random integers (so that products stay exact in float64)."""
    dt = np.dtype(dtype)
    shape = tuple(shape)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dt)
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -9
        return rng.integers(lo, 10, size=shape).astype(dt)
    x = rng.standard_normal(shape)
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def well_conditioned(rng, shape, dtype):
    """Random square matrices with a heavier diagonal: ``sqrt(n)`` added for floats
    (condition numbers of a few tens), ``10 n`` for integers (strictly diagonally
    dominant, so never singular). Bool matrices are returned as random."""
    a = randn(rng, shape, dtype)
    n = shape[-1]
    kind = np.dtype(dtype).kind
    if n and kind in "fc":
        a = a + (np.sqrt(n) * np.eye(n)).astype(dtype)
    elif n and kind in "iu":
        a = a + (10 * n * np.eye(n, dtype=np.int64)).astype(dtype)
    return a


def spd(rng, shape, dtype):
    """Hermitian positive definite matrices ``X X^H / n + I``."""
    x = wide(randn(rng, shape, dtype))
    n = shape[-1]
    a = x @ np.conj(np.swapaxes(x, -1, -2)) / max(n, 1) + np.eye(n)
    return a.astype(dtype)


def hermitian(rng, shape, dtype):
    """Hermitian (real symmetric) indefinite matrices ``(X + X^H) / 2``."""
    x = randn(rng, shape, dtype)
    return ((x + np.conj(np.swapaxes(x, -1, -2))) / 2).astype(dtype)


def orthogonal(rng, n, dtype=np.float64):
    q, _ = np.linalg.qr(wide(randn(rng, (n, n), dtype)))
    return q.astype(dtype)


def with_condition(rng, n, cond, dtype=np.float64):
    """``U diag(logspace(0, -log10(cond), n)) V^H`` with random orthogonal ``U``, ``V``: 2-norm
    condition number ``cond`` (in float64, before rounding to ``dtype``)."""
    u = wide(orthogonal(rng, n, dtype))
    v = wide(orthogonal(rng, n, dtype))
    s = np.logspace(0, -np.log10(cond), n)
    return ((u * s) @ np.conj(v.T)).astype(dtype)


def hilbert(n, dtype=np.float64):
    i = np.arange(n)
    return (1.0 / (i[:, None] + i[None, :] + 1)).astype(dtype)


def frob(x, axes=(-2, -1)):
    """Frobenius norm of each matrix (float64)."""
    x = wide(x)
    if x.ndim == 1 and axes == (-2, -1):
        return np.linalg.norm(x)
    return np.sqrt(np.sum(np.abs(x) ** 2, axis=axes))


def _report(ratio, c, what):
    ratio = np.asarray(ratio, dtype=np.float64)
    worst = float(np.max(ratio)) if ratio.size else 0.0
    assert np.all(ratio <= c), f"{what}: {worst:.3g} > C = {c} (in units of n eps)"
    return worst


def assert_solves(a, x, b, dtype, c=C_SOLVE, what="backward error"):
    """``x`` solves ``a x = b`` with a normwise backward error of at most ``c n eps``
    (host arrays; ``a`` and ``b`` as given to gpupy, rounded here to the working dtype
    ``working(dtype)`` as gpupy rounds them). A 1-D ``b`` is one vector and ``x`` then
    has shape (..., n); otherwise ``x`` and ``b`` are (..., n, k), batch shapes
    broadcasting with ``a``'s."""
    wd = working(dtype)
    a_w = wide(np.asarray(a).astype(wd))
    b = np.asarray(b)
    x_w = wide(x)
    b_w = wide(b.astype(wd))
    if b.ndim == 1:
        b_w, x_w = b_w[:, None], x_w[..., None]
    if x_w.size == 0:
        return 0.0
    n = max(a_w.shape[-1], 1)
    r = frob(a_w @ x_w - b_w)
    scale = frob(a_w) * frob(x_w) * n * eps_of(dtype)
    scale = np.where(scale > 0, scale, np.finfo(np.float64).tiny)
    return _report(r / scale, c, what)


def assert_reconstructs(a, product, dtype, c=C_FACT, what="reconstruction"):
    """``product`` (host, float64 evaluated) equals ``a`` up to ``c n eps ||a||``."""
    a_w = wide(np.asarray(a).astype(working(dtype)))
    if a_w.size == 0:
        return 0.0
    n = max(a_w.shape[-2:])
    scale = frob(a_w) * n * eps_of(dtype)
    scale = np.where(scale > 0, scale, np.finfo(np.float64).tiny)
    return _report(frob(a_w - wide(product)) / scale, c, what)


def assert_orthonormal_columns(q, dtype, c=C_FACT, what="orthogonality"):
    """``Q^H Q = I`` up to ``c n eps`` (Frobenius), n the number of rows."""
    q = wide(q)
    if q.size == 0:
        return 0.0
    k = q.shape[-1]
    g = np.conj(np.swapaxes(q, -1, -2)) @ q - np.eye(k)
    n = max(q.shape[-2], 1)
    return _report(frob(g) / (n * eps_of(dtype)), c, what)


def assert_values_close(got, want, norm2, dtype, c=C_ITER, what="eigenvalues"):
    """Eigen- or singular values within ``c n eps ||A||_2`` of LAPACK's float64 values
    (``norm2``: ``||A||_2`` of each matrix, broadcast over the last axis)."""
    got = wide(got)
    want = wide(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}"
    if got.size == 0:
        return 0.0
    n = max(got.shape[-1], 1)
    scale = np.asarray(norm2)[..., None] * n * eps_of(dtype)
    scale = np.where(scale > 0, scale, np.finfo(np.float64).tiny)
    return _report(np.abs(got - want) / scale, c, what)


def assert_eigenpairs(a, w, v, dtype, c=C_ITER, what="eigenvector residual"):
    """``A V = V diag(w)`` up to ``c n eps ||A||_F`` (Frobenius)."""
    a_w = wide(np.asarray(a).astype(working(dtype)))
    if a_w.size == 0:
        return 0.0
    v = wide(v)
    w = wide(w)
    r = a_w @ v - v * w[..., None, :]
    n = max(a_w.shape[-1], 1)
    scale = frob(a_w) * n * eps_of(dtype)
    scale = np.where(scale > 0, scale, np.finfo(np.float64).tiny)
    return _report(frob(r) / scale, c, what)


def hermitian_part(a, lower=True):
    """The Hermitian matrix LAPACK reads from the ``lower`` (or upper) triangle of ``a``
    (diagonal's real part)."""
    a = np.asarray(a)
    strict = np.tril(a, -1) if lower else np.triu(a, 1)
    full = strict + np.conj(np.swapaxes(strict, -1, -2))
    idx = np.arange(a.shape[-1])
    full[..., idx, idx] = a[..., idx, idx].real
    return full


def ct(x):
    """The conjugate transpose of each matrix."""
    return np.conj(np.swapaxes(x, -1, -2))


def norm2(a):
    """||A||_2 of each matrix (float64)."""
    a = wide(a)
    if a.size == 0:
        return np.zeros(a.shape[:-2])
    return np.linalg.norm(a, 2, axis=(-2, -1))


def still_works():
    """The process can compute after an error (no poisoned context or stream)."""
    import gpupy as gp

    assert gp.asnumpy(gp.ones(3)).tolist() == [1.0, 1.0, 1.0]


def same_error(gp_call, ref_call, exc):
    """Both raise ``exc`` with the same message (the reference's warnings silenced:
    SciPy warns before some of its errors), and gpupy still works afterwards."""
    import pytest

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as want:  # no match=: the reference's message is the reference
            ref_call()
    with pytest.raises(exc) as got:  # no match=: compared with the reference's below
        gp_call()
    assert str(got.value) == str(want.value)
    still_works()
