"""``lsmr``: SciPy 1.18's LSMR (Fong and Saunders, ``scipy/sparse/linalg/_isolve/
lsmr.py``) for least-squares problems ``min ||b - A x||`` (optionally damped), on device
vectors.

The vectors ``u``, ``v``, ``h``, ``hbar`` and ``x`` are on the device; the rotations and
the estimates of ``||r||``, ``||A||`` and ``cond(A)`` are host scalars computed by
SciPy's expressions on the same NumPy scalar types, so the iterates, ``istop`` and
``itn`` agree with SciPy's to rounding.

One read per iteration. An iteration needs ``beta`` and ``alpha`` (the step after
``beta`` is formed before ``beta`` is known to be nonzero, and dropped when it is
zero), and its stopping test needs ``||x||`` after its update of ``x``. So each
iteration reads its ``beta`` and ``alpha`` with the previous iteration's ``||x||`` and
finishes the previous iteration's test first: if SciPy stopped there, this iteration's
two products were work for nothing and nothing it computed is returned. The last
iteration's ``||x||`` is read alone.
"""

import math

import numpy
from numpy import inf

import gpupy as gp
from gpupyx.scipy.sparse.linalg._interface import aslinearoperator
from gpupyx.scipy.sparse.linalg._lsqr import as_rhs
from gpupyx.scipy.sparse.linalg._util import as_device, norm, read_scalar, read_scalars, sym_ortho

__all__ = ["lsmr"]


def _stop_code(normx, itn, maxiter, normr, normb, normA, normar, condA, atol, btol, ctol):
    """SciPy's stopping rules for one iteration: ``istop`` 0 (go on) to 7."""
    istop = 0
    test1 = normr / normb
    if (normA * normr) != 0:
        test2 = normar / (normA * normr)
    else:
        test2 = inf
    test3 = 1 / condA
    t1 = test1 / (1 + normA * normx / normb)
    rtol = btol + atol * normA * normx / normb

    # The following tests guard against extremely small values of
    # atol, btol or ctol.  (The user may have set any or all of
    # the parameters atol, btol, conlim  to 0.)
    # The effect is equivalent to the normAl tests using
    # atol = eps,  btol = eps,  conlim = 1/eps.
    if itn >= maxiter:
        istop = 7
    if 1 + test3 <= 1:
        istop = 6
    if 1 + test2 <= 1:
        istop = 5
    if 1 + t1 <= 1:
        istop = 4

    # Allow for tolerances set by the user.
    if test3 <= ctol:
        istop = 3
    if test2 <= atol:
        istop = 2
    if test1 <= rtol:
        istop = 1
    return istop


def lsmr(A, b, damp=0.0, atol=1e-6, btol=1e-6, conlim=1e8, maxiter=None, show=False, x0=None):
    """Find the least-squares solution of ``A x = b`` (``A`` of any shape), or of the
    damped problem ``min ||[b; 0] - [A; damp I] x||``, with LSMR (``||A^H r||``
    decreases monotonically).

    ``atol``, ``btol``, ``conlim``: SciPy's stopping tolerances; ``maxiter`` (default
    ``min(m, n)``); ``x0``: initial guess (its dtype is kept, as SciPy's). ``show`` is
    accepted and prints nothing. Returns SciPy's tuple ``(x, istop, itn, normr, normar,
    normA, condA, normx)``: ``x`` a gpupy array (the result type of ``A``, ``b`` and
    float64 without ``x0``), the rest host scalars.

    .. seealso:: scipy.sparse.linalg.lsmr
    """
    A = aslinearoperator(A)
    if A.ndim > 2:
        raise ValueError(f"{A.ndim}-dimensional `A` is unsupported, expected 2-D.")
    b = as_rhs(b)
    m, n = A.shape
    minDim = min([m, n])
    if maxiter is None:
        maxiter = minDim

    if x0 is None:
        dtype = numpy.result_type(A.dtype, b.dtype, float)
    else:
        x0 = as_device(x0)
        dtype = numpy.result_type(A.dtype, b.dtype, x0.dtype, float)

    u = b
    if x0 is None:
        x = gp.zeros(n, dtype)
        normb = read_scalar(norm(b))
        beta = normb.copy()
    else:
        x = x0.copy()
        if x.ndim == 0:
            x = x.reshape((1,))
        u = u - A.matvec(x)
        normb, beta = read_scalars(norm(b), norm(u))

    if beta > 0:
        u = (1 / beta) * u
        v = A.rmatvec(u)
        alpha = read_scalar(norm(v))
    else:
        v = gp.zeros(n, dtype)
        alpha = 0
    if alpha > 0:
        v = (1 / alpha) * v

    # Initialize variables for 1st iteration.
    itn = 0
    zetabar = alpha * beta
    alphabar = alpha
    rho = 1
    rhobar = 1
    cbar = 1
    sbar = 0

    h = v.copy()
    hbar = gp.zeros(n, dtype)

    # Initialize variables for estimation of ||r||.
    betadd = beta
    betad = 0
    rhodold = 1
    tautildeold = 0
    thetatilde = 0
    zeta = 0
    d = 0

    # Initialize variables for estimation of ||A|| and cond(A)
    normA2 = alpha * alpha
    maxrbar = 0
    minrbar = 1e100
    normA = math.sqrt(normA2)
    condA = 1
    normx = 0

    # Items for use in stopping rules, normb set earlier
    istop = 0
    ctol = 0
    if conlim > 0:
        ctol = 1 / conlim
    normr = beta

    # Reverse the order here from the original matlab code because
    # there was an error on return when arnorm==0
    normar = alpha * beta
    if normar == 0:
        return x, istop, itn, normr, normar, normA, condA, normx
    if normb == 0:
        x[...] = 0
        return x, istop, itn, normr, normar, normA, condA, normx

    pending = None  # the last iteration's test state, waiting for its ||x||
    normx_dev = None
    while itn < maxiter:
        itn = itn + 1

        # Perform the next step of the bidiagonalization to obtain the
        # next  beta, u, alpha, v.  These satisfy the relations
        #         beta*u  =  A@v   -  alpha*u,
        #        alpha*v  =  A'@u  -  beta*v.
        u *= -alpha
        u += A.matvec(v)
        beta = norm(u)
        # SciPy's in-place ``u *= 1 / beta; v *= -beta; v += A^H u``, on copies: used
        # only if beta > 0.
        u_next = u.copy()
        u_next *= 1 / beta
        v_next = v.copy()
        v_next *= -beta
        v_next += A.rmatvec(u_next)
        if pending is None:
            beta, alpha_next = read_scalars(beta, norm(v_next))
        else:
            normx, beta, alpha_next = read_scalars(normx_dev, beta, norm(v_next))
            istop = _stop_code(normx, *pending)
            if istop > 0:
                return x, istop, itn - 1, normr, normar, normA, condA, normx
        if beta > 0:
            u = u_next
            v = v_next
            alpha = alpha_next
            if alpha > 0:
                v *= 1 / alpha

        # At this point, beta = beta_{k+1}, alpha = alpha_{k+1}.

        # Construct rotation Qhat_{k,2k+1}.
        chat, shat, alphahat = sym_ortho(alphabar, damp)

        # Use a plane rotation (Q_i) to turn B_i to R_i
        rhoold = rho
        c, s, rho = sym_ortho(alphahat, beta)
        thetanew = s * alpha
        alphabar = c * alpha

        # Use a plane rotation (Qbar_i) to turn R_i^T to R_i^bar
        rhobarold = rhobar
        zetaold = zeta
        thetabar = sbar * rho
        rhotemp = cbar * rho
        cbar, sbar, rhobar = sym_ortho(cbar * rho, thetanew)
        zeta = cbar * zetabar
        zetabar = -sbar * zetabar

        # Update h, h_hat, x.
        hbar *= -(thetabar * rho / (rhoold * rhobarold))
        hbar += h
        x += (zeta / (rho * rhobar)) * hbar
        h *= -(thetanew / rho)
        h += v

        # Estimate of ||r||.

        # Apply rotation Qhat_{k,2k+1}.
        betaacute = chat * betadd
        betacheck = -shat * betadd

        # Apply rotation Q_{k,k+1}.
        betahat = c * betaacute
        betadd = -s * betaacute

        # Apply rotation Qtilde_{k-1}.
        # betad = betad_{k-1} here.
        thetatildeold = thetatilde
        ctildeold, stildeold, rhotildeold = sym_ortho(rhodold, thetabar)
        thetatilde = stildeold * rhobar
        rhodold = ctildeold * rhobar
        betad = -stildeold * betad + ctildeold * betahat

        # betad   = betad_k here.
        # rhodold = rhod_k  here.
        tautildeold = (zetaold - thetatildeold * tautildeold) / rhotildeold
        taud = (zeta - thetatilde * tautildeold) / rhodold
        d = d + betacheck * betacheck
        normr = math.sqrt(d + (betad - taud) ** 2 + betadd * betadd)

        # Estimate ||A||.
        normA2 = normA2 + beta * beta
        normA = math.sqrt(normA2)
        normA2 = normA2 + alpha * alpha

        # Estimate cond(A).
        maxrbar = max(maxrbar, rhobarold)
        if itn > 1:
            minrbar = min(minrbar, rhobarold)
        condA = max(maxrbar, rhotemp) / min(minrbar, rhotemp)

        # Test for convergence: the norms; the test itself waits for ||x||.
        normar = abs(zetabar)
        normx_dev = norm(x)
        pending = (itn, maxiter, normr, normb, normA, normar, condA, atol, btol, ctol)

    if pending is not None:
        normx = read_scalar(normx_dev)
        istop = _stop_code(normx, *pending)
    return x, istop, itn, normr, normar, normA, condA, normx
