"""``eigsh`` and ``svds``: SciPy 1.18's signatures, checks, messages, defaults and
result order, on the thick-restart Lanczos engine of ``_lanczos`` (SciPy calls ARPACK's
implicitly restarted Lanczos; both converge to the same eigenpairs to ``tol``).

What is not supported: shift-invert and the other spectral transformations (``sigma``,
``mode``, ``OPinv``) and the generalized problem (``M``, ``Minv``) raise
NotImplementedError; ``svds``'s ``solver='lobpcg'`` and ``'propack'`` likewise.

Complex Hermitian ``A``: SciPy sends it to ``eigs`` (the non-symmetric ARPACK), so its
errors and limits are ``eigs``'s (``k < n - 1``, ``k + 1 < ncv``); gpupyx checks the
same, and solves it with the Hermitian Lanczos engine. With eigenvectors, SciPy's order
of complex results is ``eigs``'s internal one; gpupyx returns them in ascending order,
as for real matrices.
"""

import math
import warnings

import numpy

import gpupy as gp
from gpupyx.scipy.sparse.linalg._interface import LinearOperator, aslinearoperator
from gpupyx.scipy.sparse.linalg._lanczos import ArpackError, ArpackNoConvergence, lanczos
from gpupyx.scipy.sparse.linalg._sparse_access import issparse
from gpupyx.scipy.sparse.linalg._util import as_device, check_random_state

__all__ = ["ArpackError", "ArpackNoConvergence", "eigsh", "svds"]

_SEUPD_WHICH = ["LM", "SM", "LA", "SA", "BE"]
_NEUPD_WHICH = ["LM", "SM", "LR", "SR", "LI", "SI"]


def _choose_ncv(k):
    """ARPACK's default number of Lanczos vectors (before the ``min`` with ``n``)."""
    return max(2 * k + 1, 20)


def _result_order(w, which, return_eigenvectors):
    """SciPy's order of ``eigsh``'s eigenvalues: ascending with eigenvectors; without,
    ARPACK's: ascending magnitude ('LM'), descending magnitude ('SM'), ascending ('LA',
    'BE'), descending ('SA')."""
    if return_eigenvectors or which in ("LA", "BE"):
        return numpy.argsort(w, kind="stable")
    if which == "LM":
        return numpy.argsort(numpy.abs(w), kind="stable")
    if which == "SM":
        return numpy.argsort(-numpy.abs(w), kind="stable")
    return numpy.argsort(-w, kind="stable")  # 'SA'


def _dense_eigh(A, M, k, n, complex_path, return_eigenvectors):
    """SciPy's fallback for ``k >= N`` (``k >= N - 1`` for complex ``A``): every
    eigenvalue of a dense ``A`` by a dense Hermitian solver, with SciPy's warning and its
    TypeErrors for sparse matrices and LinearOperators."""
    name, limit = ("eig", "N - 1") if complex_path else ("eigh", "N")
    warnings.warn(f"k >= {limit} for N * N square matrix. Attempting to use scipy.linalg.{name} instead.",
                  RuntimeWarning, stacklevel=3)
    if issparse(A):
        raise TypeError(f"Cannot use scipy.linalg.{name} for sparse A with k >= {limit}. "
                        f"Use scipy.linalg.{name}(A.toarray()) or reduce k.")
    if isinstance(A, LinearOperator):
        raise TypeError(f"Cannot use scipy.linalg.{name} for LinearOperator A with k >= {limit}.")
    if isinstance(M, LinearOperator):
        raise TypeError(f"Cannot use scipy.linalg.{name} for LinearOperator M with k >= {limit}.")
    if M is not None:
        raise NotImplementedError("eigsh: the generalized eigenproblem (M) is not supported by gpupyx")
    a = as_device(A)
    if a.dtype.char not in "fdFD":
        a = a.astype(numpy.float64)
    if return_eigenvectors:
        return gp.linalg.eigh(a)
    return gp.linalg.eigvalsh(a)


def eigsh(A, k=6, M=None, sigma=None, which="LM", v0=None, ncv=None, maxiter=None, tol=0,
          return_eigenvectors=True, Minv=None, OPinv=None, mode="normal", rng=None):
    """``k`` eigenvalues and eigenvectors of the real symmetric or complex Hermitian
    ``A`` (a gpupyx sparse matrix, a gpupy array or a LinearOperator).

    ``which``: 'LM' (largest magnitude, the default), 'SM' (smallest magnitude), 'LA'
    (largest), 'SA' (smallest) or 'BE' (half from each end; real ``A`` only). ``v0``:
    the starting vector (default: SciPy's, ``rng.uniform(-1, 1, n)``); ``ncv``: Lanczos
    vectors (default ``min(n, max(2k + 1, 20))``); ``maxiter``: restart cycles (default
    ``10 n``); ``tol``: relative accuracy of the eigenvalues (0: machine precision).
    Returns ``(w, v)`` (``w`` real, ascending; ``v[:, i]`` the unit eigenvector of
    ``w[i]``), or ``w`` alone in SciPy's order with ``return_eigenvectors=False``.
    Raises ArpackNoConvergence, with the converged pairs, when ``maxiter`` runs out.

    'SM' on an indefinite matrix asks for interior eigenvalues, which Lanczos without
    shift-invert finds slowly: ARPACK needs hundreds to thousands of restarts there, and
    this thick-restart Lanczos may need more or stop with ArpackNoConvergence (its
    Rayleigh-Ritz step lets spurious interior Ritz values disturb converging ones). On
    a definite matrix 'SM' is an end of the spectrum and converges as 'LA'/'SA' do.

    .. seealso:: scipy.sparse.linalg.eigsh
    """
    complex_path = numpy.issubdtype(A.dtype, numpy.complexfloating)
    if complex_path:
        if mode != "normal":
            raise ValueError(f"mode={mode} cannot be used with complex matrix A")
        if which == "BE":
            raise ValueError("which='BE' cannot be used with complex matrix A")
    if (A_ndim := len(A.shape)) > 2:
        raise ValueError(f"{A_ndim}-dimensional `A` is unsupported, expected 2-D.")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"expected square matrix (shape={A.shape})")
    if M is not None and M.shape != A.shape:
        raise ValueError(f"wrong M dimensions {M.shape}, should be {A.shape}")
    n = A.shape[0]
    if k <= 0:
        raise ValueError(f"k={k} must be greater than 0." if complex_path else "k must be greater than 0.")
    if k >= (n - 1 if complex_path else n):
        return _dense_eigh(A, M, k, n, complex_path, return_eigenvectors)

    if sigma is not None or mode != "normal" or OPinv is not None:
        raise NotImplementedError("eigsh: shift-invert mode (sigma, mode, OPinv) is not supported by gpupyx; "
                                  "use which='SA'/'SM' for small eigenvalues, or solve (A - sigma I) x = b "
                                  "iteratively inside a LinearOperator")
    if M is not None or Minv is not None:
        raise NotImplementedError("eigsh: the generalized eigenproblem (M, Minv) is not supported by gpupyx")

    A = aslinearoperator(A)
    if complex_path:
        # SciPy passes complex A to eigs, with 'LA'/'SA' as its 'LR'/'SR'.
        which = {"LR": "LA", "SR": "SA"}.get(which, which)
        if which in ("LI", "SI"):
            raise NotImplementedError(f"eigsh: which={which!r} (imaginary parts) is not supported by gpupyx")
        if which not in ("LM", "SM", "LA", "SA"):
            raise ValueError(f"Parameter which must be one of {' '.join(_NEUPD_WHICH)}")
    elif which not in _SEUPD_WHICH:
        raise ValueError(f"which must be one of {' '.join(_SEUPD_WHICH)}")
    if maxiter is None:
        maxiter = n * 10
    if maxiter <= 0:
        raise ValueError(f"maxiter must be positive, maxiter={maxiter}")
    tp = A.dtype.char
    if tp not in "fdFD":
        if not numpy.can_cast(tp, "d"):
            raise ValueError("matrix type must be 'f', 'd', 'F', or 'D'")
        tp = "d"
    rng = numpy.random.default_rng(rng)
    if v0 is not None:
        v0 = as_device(v0).astype(tp)
    else:
        v0 = gp.asarray(rng.uniform(low=-1.0, high=1.0, size=[n]).astype(tp))
    ncv = min(_choose_ncv(k) if ncv is None else ncv, n)
    if complex_path and (ncv > n or ncv <= k + 1):
        raise ValueError(f"ncv must be k+1<ncv<=n, ncv={ncv}")
    if not complex_path and (ncv > n or ncv <= k):
        raise ValueError(f"ncv must be k<ncv<=n, ncv={ncv}")

    theta, vectors, nconv, iterations = lanczos(A.matvec, n, tp, k, which, ncv, maxiter, tol, v0, rng)
    converged = nconv == k
    order = _result_order(theta, which, return_eigenvectors or not converged)
    w = gp.asarray(theta[order].astype(numpy.dtype(tp.lower())))
    if not converged:
        raise ArpackNoConvergence(f"No convergence ({iterations} iterations, {nconv}/{k} eigenvectors converged)",
                                  w, vectors(order))
    if return_eigenvectors:
        return w, vectors(order)
    return w


def _herm(x):
    return gp.conj(x.T) if x.dtype.kind == "c" else x.T


def _svds_iv(A, k, ncv, tol, which, v0, maxiter, return_singular, solver, rng):
    """SciPy's input validation of ``svds`` (``_iv``), with its messages."""
    solver = str(solver).lower()
    solvers = {"arpack", "lobpcg", "propack"}
    if solver not in solvers:
        raise ValueError(f"solver must be one of {solvers}.")
    A = aslinearoperator(A)
    if not numpy.issubdtype(A.dtype, numpy.number):
        raise ValueError("`A` must be of numeric data type.")
    if math.prod(A.shape) == 0:
        raise ValueError("`A` must not be empty.")
    if A.ndim != 2:
        raise ValueError("Only 2-D input is supported for `A` (a single matrix)")
    kmax = min(A.shape) if solver == "propack" else min(A.shape) - 1
    if int(k) != k or not (0 < k <= kmax):
        raise ValueError("`k` must be an integer satisfying `0 < k < min(A.shape)`.")
    k = int(k)
    if solver == "arpack" and ncv is not None:
        if int(ncv) != ncv or not (k < ncv < min(A.shape)):
            raise ValueError("`ncv` must be an integer satisfying `k < ncv < min(A.shape)`.")
        ncv = int(ncv)
    if tol < 0 or not numpy.isfinite(tol):
        raise ValueError("`tol` must be a non-negative floating point value.")
    tol = float(tol)
    which = str(which).upper()
    whichs = {"LM", "SM"}
    if which not in whichs:
        raise ValueError(f"`which` must be in {whichs}.")
    if v0 is not None:
        v0 = as_device(v0)
        if v0.ndim == 0:
            v0 = v0.reshape((1,))
        if not (numpy.issubdtype(v0.dtype, numpy.complexfloating) or numpy.issubdtype(v0.dtype, numpy.floating)):
            raise ValueError("`v0` must be of floating or complex floating data type.")
        shape = (A.shape[0],) if solver == "propack" else (min(A.shape),)
        if v0.shape != shape:
            raise ValueError(f"`v0` must have shape {shape}.")
    if maxiter is not None and (int(maxiter) != maxiter or maxiter <= 0):
        raise ValueError("`maxiter` must be a positive integer.")
    maxiter = int(maxiter) if maxiter is not None else maxiter
    rs_options = {True, False, "vh", "u"}
    if return_singular not in rs_options:
        raise ValueError(f"`return_singular_vectors` must be in {rs_options}.")
    rng = check_random_state(rng)
    return A, k, ncv, tol, which, v0, maxiter, return_singular, solver, rng


def svds(A, k=6, ncv=None, tol=0, which="LM", v0=None, maxiter=None, return_singular_vectors=True,
         solver="arpack", rng=None, options=None):
    """``k`` largest ('LM') or smallest ('SM') singular values of ``A`` (a gpupyx sparse
    matrix, a gpupy array or a LinearOperator; any shape), and their singular vectors.

    SciPy's ARPACK route: the eigenvectors of ``A^H A`` (or ``A A^H``, the smaller) by
    ``eigsh`` with ``tol**2``, orthonormalized, then the SVD of ``A`` applied to them
    (gpupy's QR of that tall ``m x k`` matrix on the device, the SVD of its ``k x k``
    triangle on the host). Returns ``(u, s, vh)`` with ``s`` ascending (SciPy's order),
    or ``s`` alone; ``return_singular_vectors='u'``/``'vh'`` returns None in the other's
    place. Only ``solver='arpack'`` is supported.

    .. seealso:: scipy.sparse.linalg.svds
    """
    (A, k, ncv, tol, which, v0, maxiter, return_singular_vectors, solver,
     rng) = _svds_iv(A, k, ncv, tol, which, v0, maxiter, return_singular_vectors, solver, rng)
    if solver != "arpack":
        raise NotImplementedError(f"svds: solver={solver!r} is not supported by gpupyx (only 'arpack': Lanczos)")

    n, m = A.shape
    if n >= m:
        X_matmat, transpose = A.matmat, False
        X_dot, XH_dot, XH_mat = A.matvec, A.rmatvec, A.rmatmat
    else:
        X_matmat, transpose = A.rmatmat, True
        X_dot, XH_dot, XH_mat = A.rmatvec, A.matvec, A.matmat

    def matvec_XH_X(x):
        return XH_dot(X_dot(x))

    def matmat_XH_X(x):
        return XH_mat(X_matmat(x))

    XH_X = LinearOperator(matvec=matvec_XH_X, dtype=A.dtype, matmat=matmat_XH_X, shape=(min(A.shape), min(A.shape)))

    if v0 is None:
        v0 = rng.standard_normal(size=(min(A.shape),))
    _, eigvec = eigsh(XH_X, k=k, tol=tol**2, maxiter=maxiter, ncv=ncv, which=which, v0=v0)
    # ARPACK (and Lanczos) do not guarantee exactly orthonormal eigenvectors for
    # clustered eigenvalues.
    eigvec, _ = gp.linalg.qr(eigvec)

    # The SVD of Av (tall, m x k) as Q R and the SVD of the small R on the host.
    Av = X_matmat(eigvec)
    Q, R = gp.linalg.qr(Av)
    Ur, s, vh = numpy.linalg.svd(R.get(), full_matrices=False)
    s = s[::-1].copy()
    if not return_singular_vectors:
        return gp.asarray(s)
    u = Q @ gp.asarray(numpy.ascontiguousarray(Ur[:, ::-1]))
    vh = gp.asarray(numpy.ascontiguousarray(vh[::-1]))
    s = gp.asarray(s)

    jobu = return_singular_vectors in {True, "u"}
    jobv = return_singular_vectors in {True, "vh"}
    if transpose:
        u_tmp = eigvec @ _herm(vh) if jobu else None
        vh = _herm(u) if jobv else None
        u = u_tmp
    else:
        if not jobu:
            u = None
        vh = vh @ _herm(eigvec) if jobv else None
    return u, s, vh
