"""``lsqr``: SciPy 1.18's LSQR (Paige and Saunders, ``scipy/sparse/linalg/_isolve/
lsqr.py``) for least-squares problems ``min ||b - A x||`` (optionally damped), on device
vectors.

The bidiagonalization's vectors ``u``, ``v``, ``w`` and ``x`` are on the device; the
rotations and the norm, condition and residual estimates are host scalars computed by
SciPy's expressions on the same NumPy scalar types, so the iterates, ``istop`` and
``itn`` agree with SciPy's to rounding.

One read per iteration: ``beta = ||u||``, ``alfa = ||v||`` and ``||w||`` together. The
step after ``beta`` (``v = A^H u / beta - beta v``) is formed before ``beta`` is known
to be nonzero and dropped when it is zero (SciPy skips it then). ``||dk|| = ||w|| /
|rho|`` is taken from ``||w||`` rather than from the scaled vector (the same to
rounding; it only feeds the condition estimate ``acond``).
"""

import math

import numpy

import gpupy as gp
from gpupyx.scipy.sparse.linalg._interface import aslinearoperator
from gpupyx.scipy.sparse.linalg._util import as_device, norm, read_scalar, read_scalars, sym_ortho

__all__ = ["lsqr"]

eps = numpy.finfo(numpy.float64).eps


def as_rhs(b):
    """SciPy's ``atleast_1d(b)``, squeezed if it has more than one axis."""
    b = as_device(b)
    if b.ndim == 0:
        b = b.reshape((1,))
    if b.ndim > 1:
        b = b.squeeze()
    return b


def lsqr(A, b, damp=0.0, atol=1e-6, btol=1e-6, conlim=1e8, iter_lim=None, show=False, calc_var=False, x0=None):
    """Find the least-squares solution of ``A x = b`` (``A`` of any shape), or of the
    damped problem ``min ||[b; 0] - [A; damp I] x||``.

    ``atol``, ``btol``: stopping tolerances on the relative residual and on
    ``||A^H r||``; ``conlim``: stop when the estimate of ``cond(A)`` exceeds it;
    ``iter_lim`` (default ``2 n``); ``calc_var``: also estimate the diagonal of
    ``(A^H A + damp^2 I)^-1``; ``x0``: initial guess. ``show`` is accepted and prints
    nothing. Returns SciPy's tuple ``(x, istop, itn, r1norm, r2norm, anorm, acond,
    arnorm, xnorm, var)``: ``x`` and ``var`` gpupy arrays (``x`` float64 or complex128
    without ``x0``, as SciPy's), the rest host scalars.

    .. seealso:: scipy.sparse.linalg.lsqr
    """
    A = aslinearoperator(A)
    if A.ndim > 2:
        raise ValueError(f"{A.ndim}-dimensional `A` is unsupported, expected 2-D.")
    b = as_rhs(b)
    m, n = A.shape
    if iter_lim is None:
        iter_lim = 2 * n
    var = gp.zeros(n)

    itn = 0
    istop = 0
    ctol = 0
    if conlim > 0:
        ctol = 1 / conlim
    anorm = 0
    acond = 0
    dampsq = damp**2
    ddnorm = 0
    res2 = 0
    xnorm = 0
    xxnorm = 0
    z = 0
    cs2 = -1
    sn2 = 0

    # Set up the first vectors u and v for the bidiagonalization.
    # These satisfy  beta*u = b - A@x,  alfa*v = A'@u.
    u = b
    if x0 is None:
        x = gp.zeros(n)
        bnorm = read_scalar(norm(b))
        beta = bnorm.copy()
    else:
        x = as_device(x0)
        u = u - A.matvec(x)
        bnorm, beta = read_scalars(norm(b), norm(u))

    if beta > 0:
        u = (1 / beta) * u
        v = A.rmatvec(u)
        alfa = read_scalar(norm(v))
    else:
        v = x.copy()
        alfa = 0
    if alfa > 0:
        v = (1 / alfa) * v
    w = v.copy()

    rhobar = alfa
    phibar = beta
    rnorm = beta
    r1norm = rnorm
    r2norm = rnorm

    # Reverse the order here from the original matlab code because
    # there was an error on return when arnorm==0
    arnorm = alfa * beta
    if arnorm == 0:
        return x, istop, itn, r1norm, r2norm, anorm, acond, arnorm, xnorm, var

    # Main iteration loop.
    while itn < iter_lim:
        itn = itn + 1
        # Perform the next step of the bidiagonalization to obtain the
        # next  beta, u, alfa, v. These satisfy the relations
        #     beta*u  =  a@v   -  alfa*u,
        #     alfa*v  =  A'@u  -  beta*v.
        u = A.matvec(v) - alfa * u
        beta = norm(u)
        u_next = (1 / beta) * u  # used only if beta > 0
        v_next = A.rmatvec(u_next) - beta * v
        beta, alfa_next, wnorm = read_scalars(beta, norm(v_next), norm(w))
        if beta > 0:
            u = u_next
            anorm = math.sqrt(anorm**2 + alfa**2 + beta**2 + dampsq)
            v = v_next
            alfa = alfa_next
            if alfa > 0:
                v = (1 / alfa) * v

        # Use a plane rotation to eliminate the damping parameter.
        # This alters the diagonal (rhobar) of the lower-bidiagonal matrix.
        if damp > 0:
            rhobar1 = math.sqrt(rhobar**2 + dampsq)
            cs1 = rhobar / rhobar1
            sn1 = damp / rhobar1
            psi = sn1 * phibar
            phibar = cs1 * phibar
        else:
            # cs1 = 1 and sn1 = 0
            rhobar1 = rhobar
            psi = 0.0

        # Use a plane rotation to eliminate the subdiagonal element (beta)
        # of the lower-bidiagonal matrix, giving an upper-bidiagonal matrix.
        cs, sn, rho = sym_ortho(rhobar1, beta)

        theta = sn * alfa
        rhobar = -cs * alfa
        phi = cs * phibar
        phibar = sn * phibar
        tau = sn * phi

        # Update x and w.
        t1 = phi / rho
        t2 = -theta / rho
        ddnorm = ddnorm + (wnorm / abs(rho)) ** 2  # ||dk||^2, dk = w / rho
        if calc_var:
            var = var + ((1 / rho) * w) ** 2
        x = x + t1 * w
        w = v + t2 * w

        # Use a plane rotation on the right to eliminate the
        # super-diagonal element (theta) of the upper-bidiagonal matrix.
        # Then use the result to estimate norm(x).
        delta = sn2 * rho
        gambar = -cs2 * rho
        rhs = phi - delta * z
        zbar = rhs / gambar
        xnorm = math.sqrt(xxnorm + zbar**2)
        gamma = math.sqrt(gambar**2 + theta**2)
        cs2 = gambar / gamma
        sn2 = theta / gamma
        z = rhs / gamma
        xxnorm = xxnorm + z**2

        # Test for convergence.
        # First, estimate the condition of the matrix  Abar,
        # and the norms of  rbar  and  Abar'rbar.
        acond = anorm * math.sqrt(ddnorm)
        res1 = phibar**2
        res2 = res2 + psi**2
        rnorm = math.sqrt(res1 + res2)
        arnorm = alfa * abs(tau)

        # Distinguish between
        #    r1norm = ||b - Ax|| and
        #    r2norm = rnorm in current code
        #           = sqrt(r1norm^2 + damp^2*||x - x0||^2).
        #    Estimate r1norm from
        #    r1norm = sqrt(r2norm^2 - damp^2*||x - x0||^2).
        # Although there is cancellation, it might be accurate enough.
        if damp > 0:
            r1sq = rnorm**2 - dampsq * xxnorm
            r1norm = math.sqrt(abs(r1sq))
            if r1sq < 0:
                r1norm = -r1norm
        else:
            r1norm = rnorm
        r2norm = rnorm

        # Now use these norms to estimate certain other quantities,
        # some of which will be small near a solution.
        test1 = rnorm / bnorm
        test2 = arnorm / (anorm * rnorm + eps)
        test3 = 1 / (acond + eps)
        t1 = test1 / (1 + anorm * xnorm / bnorm)
        rtol = btol + atol * anorm * xnorm / bnorm

        # The following tests guard against extremely small values of
        # atol, btol  or  ctol.  (The user may have set any or all of
        # the parameters  atol, btol, conlim  to 0.)
        # The effect is equivalent to the normal tests using
        # atol = eps,  btol = eps,  conlim = 1/eps.
        if itn >= iter_lim:
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

        if istop != 0:
            break

    return x, istop, itn, r1norm, r2norm, anorm, acond, arnorm, xnorm, var
