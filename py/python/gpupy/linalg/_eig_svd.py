"""Eigenvalues and singular values: NumPy's ``linalg.eigh``, ``eigvalsh``, ``eig``,
``eigvals`` and ``svd``, on ``_decomp.eigh``, ``_decomp.eig`` and ``_decomp.svd``
(singular values alone come from ``gpupy._linalg``'s Jacobi kernel, ``svdvals``).

``eig``/``eigvals`` look at the matrix once on the device: Hermitian matrices (every
one of the batch) go to the Hermitian eigensolver (faster, orthonormal eigenvectors,
real eigenvalues, ascending), the others to the general one (Hessenberg reduction and
shifted QR). Either way the eigenvalues' order is not LAPACK's ``geev`` order, which
NumPy leaves unspecified; the result dtypes are NumPy's (real for real input whose
eigenvalues are all real, unless the installed NumPy returns complex ones there: 2.5
and later do).
"""

import functools

import numpy

from gpupy import _gpupy, _reduction
from gpupy._creation import asarray, empty, full
from gpupy._linalg import svdvals
from gpupy._sorting import argsort, sort
from gpupy.linalg import _decomp
from gpupy.linalg._util import (
    EigResult,
    EighResult,
    SVDResult,
    as_working,
    assert_finite,
    assert_stacked_2d,
    conj_t,
    identities,
    materialize,
    real_dtype,
    square_operand,
    take_columns,
    take_last,
    working_dtype,
)


def _uplo(UPLO):
    UPLO = UPLO.upper()
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO == "L"


def eigh(a, UPLO="L"):
    """NumPy's ``linalg.eigh``: ``EighResult(eigenvalues, eigenvectors)`` of Hermitian
    (real symmetric) matrices, eigenvalues ascending (real dtype), eigenvector ``i`` in
    column ``i``. Only the lower (``UPLO='L'``) or upper triangle is read."""
    lower = _uplo(UPLO)
    a, t = square_operand(a)
    if a.size == 0:
        return EighResult(empty(a.shape[:-1], real_dtype(t)), empty(a.shape, t))
    w, v = _decomp.eigh(a, lower=lower, vectors=True)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L"):
    """NumPy's ``linalg.eigvalsh``: the eigenvalues of Hermitian matrices, ascending."""
    lower = _uplo(UPLO)
    a, t = square_operand(a)
    if a.size == 0:
        return empty(a.shape[:-1], real_dtype(t))
    w, _ = _decomp.eigh(a, lower=lower, vectors=False)
    return w


def _all(x):
    return bool(_reduction.all(x))


def _is_hermitian(a):
    """Every matrix equals its conjugate transpose exactly (one device-to-host read)."""
    return _all(_gpupy.equal(a, conj_t(a)))


@functools.cache
def _real_eig_is_complex():
    """Whether the installed NumPy's ``eig``/``eigvals`` return complex arrays for real
    input whose eigenvalues are all real (NumPy 2.5 and later do; earlier versions
    return real arrays then). Asked of NumPy once, on a 1 x 1 matrix, so that gpupy
    gives the dtype the NumPy beside it gives."""
    return numpy.linalg.eigvals(numpy.ones((1, 1))).dtype.kind == "c"


def _eig_dtype(t):
    """The dtype of ``eig``'s results for working dtype ``t`` when every eigenvalue is
    real (the only case gpupy computes)."""
    if t.kind == "c" or not _real_eig_is_complex():
        return t
    return numpy.dtype(numpy.complex64 if t == numpy.float32 else numpy.complex128)


def _general_prologue(a):
    """NumPy's checks of ``eig``/``eigvals``: square, finite, supported dtype."""
    a, t = square_operand(a)
    assert_finite(a)
    return a, t


def eig(a):
    """NumPy's ``linalg.eig``: ``EigResult(eigenvalues, eigenvectors)``, eigenvectors
    normalized to unit length (see the module docstring for the method and dtypes)."""
    a, t = _general_prologue(a)
    rt = _eig_dtype(t)
    if a.size == 0:
        return EigResult(empty(a.shape[:-1], rt), empty(a.shape, rt))
    if _is_hermitian(a):
        w, v = _decomp.eigh(a, lower=True, vectors=True)
        return EigResult(w.astype(rt, copy=False), v.astype(rt, copy=False))
    w, v = _decomp.eig(a, vectors=True)
    return EigResult(w, v)


def eigvals(a):
    """NumPy's ``linalg.eigvals``: the eigenvalues of each matrix (see the module
    docstring for the method and dtypes)."""
    a, t = _general_prologue(a)
    rt = _eig_dtype(t)
    if a.size == 0:
        return empty(a.shape[:-1], rt)
    if _is_hermitian(a):
        w, _ = _decomp.eigh(a, lower=True, vectors=False)
        return w.astype(rt, copy=False)
    w, _ = _decomp.eig(a, vectors=False)
    return w


def _empty_svd(a, t, full_matrices):
    """LAPACK's factors of matrices with no element: identities for full ``U`` and ``Vh``
    (NumPy's), empty thin ones."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    s = empty(batch + (k,), real_dtype(t))
    if full_matrices:
        return SVDResult(identities(batch, m, t), s, identities(batch, n, t))
    return SVDResult(identities(batch, m, t, k), s, identities(batch, k, t, n))


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """NumPy's ``linalg.svd``: ``SVDResult(U, S, Vh)`` with ``a = U @ diag(S) @ Vh``,
    singular values descending (real dtype); ``full_matrices=False`` gives the thin
    factors (..., M, K), (..., K, N). With ``compute_uv=False`` the singular values alone
    (``svdvals``'s Jacobi kernel).

    ``hermitian=True`` takes ``a`` as Hermitian and computes through ``eigh``: singular
    values are |eigenvalues| sorted descending, ``U`` the eigenvectors in that order and
    ``Vh`` their conjugate transposes with each eigenvalue's sign (NumPy's recipe)."""
    a = asarray(a)
    if hermitian:
        if compute_uv:
            s, u = eigh(a)
            sgn = _gpupy.copysign(full((), 1, dtype=s.dtype), s)
            s = _gpupy.absolute(s)
            order = argsort(s, axis=-1)[..., ::-1]
            sgn = take_last(sgn, order)
            s = take_last(s, order)
            u = take_columns(u, order)
            vt = conj_t(_gpupy.multiply(u, sgn[..., None, :]))
            return SVDResult(u, s, materialize(vt))
        s = _gpupy.absolute(eigvalsh(a))
        return sort(s, axis=-1)[..., ::-1]
    assert_stacked_2d(a)
    t = working_dtype(a)
    a = as_working(a, t)
    if not compute_uv:
        return svdvals(a)
    if a.size == 0:
        return _empty_svd(a, t, full_matrices)
    u, s, vh = _decomp.svd(a, full_matrices=full_matrices, compute_uv=True)
    return SVDResult(u, s, vh)


__all__ = ["eigh", "eigvalsh", "eig", "eigvals", "svd"]
