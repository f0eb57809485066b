"""Krylov solvers for square systems: ``cg``, ``cgs``, ``bicgstab`` and ``gmres``,
SciPy 1.18's algorithms (``scipy/sparse/linalg/_isolve/iterative.py``) with their
signatures, defaults, stopping rules and ``(x, info)`` results, on device vectors.

Each solver follows SciPy's iteration step for step, so on the same problem the
iterates and the iteration counts agree with SciPy's to rounding. What differs is only
where scalars live (see ``_util``): a dot product that scales a vector stays on the
device, and the values SciPy branches on are read to the host together, once per
iteration:

- ``cg``: the residual norm, read at the end of each iteration for the next one's test;
- ``cgs``: the residual norm and ``rho`` of the next iteration, with this iteration's
  breakdown value ``rv``; the update of ``x`` is formed before ``rv`` is known and
  dropped if SciPy would have stopped (``rv == 0``);
- ``bicgstab``: ``rv``, ``||s||``, ``omega`` and the next iteration's residual norm and
  ``rho``; the half step ``x + alpha phat`` and the full step are both formed, and the
  one SciPy would return is kept. Where SciPy stops after the half step, the second
  preconditioner and matrix product of that iteration were computed for nothing;
- ``gmres``: each inner iteration's Gram-Schmidt coefficients and norms in one read
  (the Hessenberg column and its Givens rotations are then worked on the host, as
  SciPy's, in the system's precision with LAPACK's ``lartg`` algorithm); the residual
  norm at the end of a restart cycle with the next cycle's first vector norm.

An initial guess ``x0`` is always multiplied out (``b - A @ x0``); SciPy skips that
product when ``x0`` is all zeros, which only differs for matrices holding inf or NaN.
"""

import warnings

import numpy

import gpupy as gp
from gpupyx.scipy.sparse.linalg._util import (
    dot_function,
    get_atol_rtol,
    initial_residual,
    lartg,
    make_system,
    norm,
    read_scalar,
    read_scalars,
)

__all__ = ["bicgstab", "cg", "cgs", "gmres"]


def cg(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None):
    """Solve ``Ax = b`` with the Conjugate Gradient method, for a Hermitian positive
    definite ``A`` (a gpupyx sparse matrix, a gpupy array or a LinearOperator).

    ``rtol``, ``atol``: convergence when ``norm(b - A @ x) < max(rtol*norm(b), atol)``
    (the recursively updated residual, as SciPy); ``maxiter`` (default ``10 n``); ``M``:
    a Hermitian positive definite preconditioner approximating ``A``'s inverse;
    ``callback(xk)`` after each iteration. Returns ``(x, info)``: ``info`` 0 on
    convergence, ``maxiter`` when the iterations ran out.

    .. seealso:: scipy.sparse.linalg.cg
    """
    A, M, x, b = make_system(A, M, x0, b)
    n = b.shape[0]
    if maxiter is None:
        maxiter = n * 10
    dotprod = dot_function(x.dtype)
    matvec, psolve = A.matvec, M.matvec
    r = initial_residual(A, x, b, x0)
    bnrm2, rnorm = read_scalars(norm(b), norm(r))
    atol, _ = get_atol_rtol("cg", bnrm2, atol, rtol)
    if bnrm2 == 0:
        return b, 0

    rho_prev, p = None, None
    for iteration in range(maxiter):
        if rnorm < atol:  # Are we done?
            return x, 0
        z = psolve(r)
        rho_cur = dotprod(r, z)
        if iteration > 0:
            beta = rho_cur / rho_prev
            p *= beta
            p += z
        else:  # First spin
            p = z.copy()
        q = matvec(p)
        alpha = rho_cur / dotprod(p, q)
        x += alpha * p
        r -= alpha * q
        rho_prev = rho_cur
        if callback:
            callback(x)
        rnorm = read_scalar(norm(r))  # the next iteration's test
    return x, maxiter


def cgs(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None):
    """Solve ``Ax = b`` with the Conjugate Gradient Squared method. The residual is
    recomputed as ``b - A @ x`` each iteration (SciPy's choice, one extra product).
    Returns ``(x, info)``: ``info`` 0 on convergence, ``maxiter`` when the iterations
    ran out, -10 or -11 on a breakdown (SciPy's codes).

    .. seealso:: scipy.sparse.linalg.cgs
    """
    A, M, x, b = make_system(A, M, x0, b)
    n = b.shape[0]
    dotprod = dot_function(x.dtype)
    if maxiter is None:
        maxiter = n * 10
    matvec, psolve = A.matvec, M.matvec
    rhotol = numpy.finfo(x.dtype.char).eps ** 2
    r = initial_residual(A, x, b, x0)
    rtilde = r.copy()
    rho_cur = dotprod(rtilde, r)
    bnrm2, rnorm, rho_host = read_scalars(norm(b), norm(r), rho_cur)
    atol, _ = get_atol_rtol("cgs", bnrm2, atol, rtol)
    if bnrm2 == 0:
        return b, 0

    rho_prev, p, u, q = None, None, None, None
    for iteration in range(maxiter):
        if rnorm < atol:  # Are we done?
            return x, 0
        if numpy.abs(rho_host) < rhotol:  # Breakdown case
            return x, -10
        if iteration > 0:
            beta = rho_cur / rho_prev
            # u = r + beta * q
            # p = u + beta * (q + beta * p);
            u = r.copy()
            u += beta * q
            p *= beta
            p += q
            p *= beta
            p += u
        else:  # First spin
            p = r.copy()
            u = r.copy()
        phat = psolve(p)
        vhat = matvec(phat)
        rv = dotprod(rtilde, vhat)
        alpha = rho_cur / rv
        q = u.copy()
        q -= alpha * vhat
        uhat = psolve(u + q)
        x_next = x + alpha * uhat
        # The true residual, not the recursively updated one (SciPy's choice).
        r_next = b - matvec(x_next)
        rho_next = dotprod(rtilde, r_next)
        rv_host, rnorm, rho_host = read_scalars(rv, norm(r_next), rho_next)
        if rv_host == 0:  # Dot product breakdown: SciPy stops before updating x
            return x, -11
        x, r = x_next, r_next
        rho_prev, rho_cur = rho_cur, rho_next
        if callback:
            callback(x)
    return x, maxiter


def bicgstab(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None):
    """Solve ``Ax = b`` with the BIConjugate Gradient STABilized method. Returns
    ``(x, info)``: ``info`` 0 on convergence, ``maxiter`` when the iterations ran out,
    -10 or -11 on a breakdown (SciPy's codes).

    .. seealso:: scipy.sparse.linalg.bicgstab
    """
    A, M, x, b = make_system(A, M, x0, b)
    n = b.shape[0]
    dotprod = dot_function(x.dtype)
    if maxiter is None:
        maxiter = n * 10
    matvec, psolve = A.matvec, M.matvec
    # SciPy's tolerances (from the original Fortran; sqrt might have been meant).
    rhotol = numpy.finfo(x.dtype.char).eps ** 2
    omegatol = rhotol
    r = initial_residual(A, x, b, x0)
    rtilde = r.copy()
    rho = dotprod(rtilde, r)
    bnrm2, rnorm, rho_host = read_scalars(norm(b), norm(r), rho)
    atol, _ = get_atol_rtol("bicgstab", bnrm2, atol, rtol)
    if bnrm2 == 0:
        return b, 0

    rho_prev, omega, omega_host, alpha, p, v = None, None, None, None, None, None
    for iteration in range(maxiter):
        if rnorm < atol:  # Are we done?
            return x, 0
        if numpy.abs(rho_host) < rhotol:  # rho breakdown
            return x, -10
        if iteration > 0:
            if numpy.abs(omega_host) < omegatol:  # omega breakdown
                return x, -11
            beta = (rho / rho_prev) * (alpha / omega)
            p -= omega * v
            p *= beta
            p += r
        else:  # First spin
            p = r.copy()
        phat = psolve(p)
        v = matvec(phat)
        rv = dotprod(rtilde, v)
        alpha = rho / rv
        r -= alpha * v
        s = r.copy()
        s_norm = norm(s)
        shat = psolve(s)
        t = matvec(shat)
        omega = dotprod(t, s) / dotprod(t, t)
        x_half = x + alpha * phat
        x_full = x_half + omega * shat
        r -= omega * t
        rho_next = dotprod(rtilde, r)
        rv_host, s_norm, omega_host, rnorm, rho_host = read_scalars(rv, s_norm, omega, norm(r), rho_next)
        if rv_host == 0:
            return x, -11
        if s_norm < atol:
            return x_half, 0
        x = x_full
        rho_prev, rho = rho, rho_next
        if callback:
            callback(x)
    return x, maxiter


def gmres(A, b, x0=None, *, rtol=1e-5, atol=0.0, restart=None, maxiter=None, M=None, callback=None,
          callback_type=None):
    """Solve ``Ax = b`` with the restarted Generalized Minimal RESidual method (left
    preconditioned by ``M``; modified Gram-Schmidt, Givens rotations), SciPy's
    algorithm and its tolerance control (gh-8400).

    ``restart``: the Krylov dimension per cycle (default ``min(20, n)``); ``maxiter``:
    restart cycles (default ``10 n``; inner iterations with ``callback_type='legacy'``);
    ``callback_type``: 'x' (``callback(x)`` after each cycle), 'pr_norm' (the relative
    preconditioned residual after each inner iteration) or 'legacy' (the default; as
    'pr_norm', with ``maxiter`` counting inner iterations). Returns ``(x, info)``.

    The Arnoldi vectors, ``(restart + 1) n`` values, stay on the device; the Hessenberg
    matrix (``restart^2`` numbers) and its triangular solve are on the host.

    .. seealso:: scipy.sparse.linalg.gmres
    """
    if callback is not None and callback_type is None:
        # Warn about 'callback_type' semantic changes.
        msg = ("scipy.sparse.linalg.gmres called without specifying "
               "`callback_type`. The default value will be changed in"
               " a future release. For compatibility, specify a value "
               "for `callback_type` explicitly, e.g., "
               "``gmres(..., callback_type='pr_norm')``, or to retain the "
               "old behavior ``gmres(..., callback_type='legacy')``")
        warnings.warn(msg, category=DeprecationWarning, stacklevel=2)
    if callback_type is None:
        callback_type = "legacy"
    if callback_type not in ("x", "pr_norm", "legacy"):
        raise ValueError(f"Unknown callback_type: {callback_type!r}")
    if callback is None:
        callback_type = None

    A, M, x, b = make_system(A, M, x0, b)
    matvec, psolve = A.matvec, M.matvec
    n = b.shape[0]
    # The first cycle's starting vector is formed with the norms SciPy reads first.
    r = initial_residual(A, x, b, x0)
    z = psolve(r)
    bnrm2, Mb_nrm2, rnorm, z_norm = read_scalars(norm(b), norm(psolve(b)), norm(r), norm(z))
    atol, _ = get_atol_rtol("gmres", bnrm2, atol, rtol)
    if bnrm2 == 0:
        return b, 0

    eps = numpy.finfo(x.dtype.char).eps
    dotprod = dot_function(x.dtype)
    if maxiter is None:
        maxiter = n * 10
    if restart is None:
        restart = 20
    restart = min(restart, n)

    # Tolerance control from gh-8400: the inner iteration's tolerance applies to the
    # left-preconditioned residual.
    ptol_max_factor = 1.0
    ptol = Mb_nrm2 * min(ptol_max_factor, atol / bnrm2)
    presid = 0.0

    v = gp.empty((restart + 1, n), dtype=x.dtype)
    h = numpy.zeros([restart, restart + 1], dtype=x.dtype)
    givens = numpy.zeros([restart, 2], dtype=x.dtype)
    inner_iter = 0  # legacy iteration count

    for iteration in range(maxiter):
        if iteration == 0 and rnorm < atol:  # Are we done?
            return x, 0

        v[0] = z * (1 / z_norm)
        # RHS of the Hessenberg problem
        S = numpy.zeros(restart + 1, dtype=x.dtype)
        S[0] = z_norm

        breakdown = False
        for col in range(restart):
            w = psolve(matvec(v[col]))
            h0 = norm(w)
            # Modified Gram-Schmidt, the coefficients kept on the device until read.
            coefficients = []
            for k in range(col + 1):
                tmp = dotprod(v[k], w)
                coefficients.append(tmp)
                w -= tmp * v[k]
            h0, h1, *column = read_scalars(h0, norm(w), *coefficients)
            h[col, :col + 1] = column
            h[col, col + 1] = h1

            # Exact solution indicator
            if h1 <= eps * h0:
                h[col, col + 1] = 0
                breakdown = True
                v[col + 1] = w
            else:
                v[col + 1] = w * (1 / h1)

            # apply past Givens rotations to current h column
            for k in range(col):
                c, s = givens[k, 0], givens[k, 1]
                n0, n1 = h[col, [k, k + 1]]
                h[col, [k, k + 1]] = [c * n0 + s * n1, -s.conj() * n0 + c * n1]

            # get and apply current rotation to h and S
            c, s, mag = lartg(h[col, col], h[col, col + 1])
            givens[col, :] = [c, s]
            h[col, [col, col + 1]] = mag, 0

            # S[col+1] component is always 0
            tmp = -numpy.conjugate(s) * S[col]
            S[[col, col + 1]] = [c * S[col], tmp]
            presid = numpy.abs(tmp)
            inner_iter += 1

            if callback_type in ("legacy", "pr_norm"):
                callback(presid / bnrm2)
            # Legacy behavior
            if callback_type == "legacy" and inner_iter == maxiter:
                break
            if presid <= ptol or breakdown:
                break

        # Solve the h(col, col) upper triangular system, allowing SciPy's pseudo-solve
        # of singular cases.
        if h[col, col] == 0:
            S[col] = 0
        y = numpy.zeros([col + 1], dtype=x.dtype)
        y[:] = S[:col + 1]
        for k in range(col, 0, -1):
            if y[k] != 0:
                y[k] /= h[k, k]
                tmp = y[k]
                y[:k] -= tmp * h[k, :k]
        if y[0] != 0:
            y[0] /= h[0, 0]

        x += gp.asarray(y) @ v[:col + 1, :]

        r = b - matvec(x)
        z = psolve(r)  # the next cycle's first vector (unused if this was the last)
        rnorm, z_norm = read_scalars(norm(r), norm(z))

        # Legacy exit
        if callback_type == "legacy" and inner_iter == maxiter:
            return x, 0 if rnorm <= atol else maxiter
        if callback_type == "x":
            callback(x)
        if rnorm <= atol:
            break
        elif breakdown:
            # Reached breakdown (= exact solution), but the external tolerance check
            # failed. Bail out with failure.
            break
        elif presid <= ptol:
            # Inner loop passed but outer didn't
            ptol_max_factor = max(eps, 0.25 * ptol_max_factor)
        else:
            ptol_max_factor = min(1.0, 1.5 * ptol_max_factor)
        ptol = presid * min(ptol_max_factor, atol / rnorm)

    info = 0 if (rnorm <= atol) else maxiter
    return x, info
