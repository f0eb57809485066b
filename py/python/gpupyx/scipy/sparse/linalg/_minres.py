"""``minres``: SciPy 1.18's MINRES (Paige and Saunders; SciPy's translation of the
MATLAB code, ``scipy/sparse/linalg/_isolve/minres.py``) for real symmetric and complex
Hermitian systems, on device vectors.

The Lanczos vectors and ``x`` are on the device; the plane rotations and the norm
estimates are host scalars, computed by SciPy's own expressions on the same NumPy
scalar types, so the iterates and the stopping iteration agree with SciPy's to rounding.

One read per iteration. An iteration needs two device values on the host, ``alfa`` and
the next ``beta`` (for the rotation that updates ``x``), and its stopping test needs
``||x||`` after that update. So each iteration reads its ``alfa`` and ``beta`` together
with the previous iteration's ``||x||``, and finishes the previous iteration's test
(and callback) first: if SciPy stopped there, this iteration's matrix and
preconditioner products were work for nothing, and ``x`` (not yet updated) is the
answer. The last iteration's ``||x||`` is read alone.
"""

import math

import numpy
from numpy import inf
from numpy.linalg import norm as host_norm

import gpupy as gp
from gpupyx.scipy.sparse.linalg._util import dot_function, make_system, norm, read_scalar, read_scalars

__all__ = ["minres"]


def _stop_code(istop, ynorm, itn, maxiter, Anorm, rnorm, root, Acond, beta1, eps, rtol):
    """SciPy's stopping rules for one iteration (``istop``: 0 go on, 1 solution, 2
    least-squares solution, 3 eps accuracy, 4 ill-conditioned, 6 iteration limit)."""
    epsx = Anorm * ynorm * eps
    if ynorm == 0 or Anorm == 0:
        test1 = inf
    else:
        test1 = rnorm / (Anorm * ynorm)  # ||r||  / (||A|| ||x||)
    if Anorm == 0:
        test2 = inf
    else:
        test2 = root / Anorm  # ||Ar|| / (||A|| ||r||)
    if istop == 0:
        t1 = 1 + test1  # These tests work if rtol < eps
        t2 = 1 + test2
        if t2 <= 1:
            istop = 2
        if t1 <= 1:
            istop = 1
        if itn >= maxiter:
            istop = 6
        if Acond >= 0.1 / eps:
            istop = 4
        if epsx >= beta1:
            istop = 3
        if test2 <= rtol:
            istop = 2
        if test1 <= rtol:
            istop = 1
    return istop


def minres(A, b, x0=None, *, rtol=1e-5, shift=0.0, maxiter=None, M=None, callback=None, show=False,
           check=False):
    """Solve ``(A - shift I) x = b`` with the MINimum RESidual method, for a real
    symmetric or complex Hermitian ``A`` (which may be indefinite or singular).

    ``rtol``: stop when ``||r|| / (||A|| ||x||) <= rtol`` (or the least-squares
    analogue); ``maxiter`` (default ``5 n``); ``M``: a symmetric positive definite
    preconditioner; ``callback(xk)`` after each iteration; ``check=True`` tests ``A``
    and ``M`` for symmetry first (SciPy's test, a few extra products). ``show`` is
    accepted and prints nothing. Returns ``(x, info)``: ``info`` 0 on convergence,
    ``maxiter`` when the iteration limit stopped it. An indefinite preconditioner or a
    non-symmetric matrix found on the way raises SciPy's ValueError.

    .. seealso:: scipy.sparse.linalg.minres
    """
    A, M, x, b = make_system(A, M, x0, b)
    dotprod = dot_function(A.dtype)  # SciPy: vdot if A is complex, else inner
    matvec, psolve = A.matvec, M.matvec
    n = A.shape[0]
    if maxiter is None:
        maxiter = 5 * n

    istop = 0
    itn = 0
    xtype = x.dtype
    eps = numpy.finfo(xtype).eps

    # Set up y and v for the first Lanczos vector v1.
    # y  =  beta1 P' v1,  where  P = C**(-1).
    # v is really P' v1.
    r1 = b.copy() if x0 is None else b - matvec(x)
    y = psolve(r1)
    beta1, bnorm = read_scalars(dotprod(r1, y), norm(b))
    if beta1 < 0:
        raise ValueError("indefinite preconditioner")
    elif beta1 == 0:
        return (x, 0)
    if bnorm == 0:
        return (b, 0)
    beta1 = math.sqrt(beta1.real)

    if check:
        # see if A is symmetric
        w = matvec(y)
        r2 = matvec(w)
        s, t = read_scalars(dotprod(w, w), dotprod(y, r2))
        z = abs(s - t)
        epsa = (s + eps) * eps ** (1.0 / 3.0)
        if z > epsa:
            raise ValueError("non-symmetric matrix")
        # see if M is symmetric
        r2 = psolve(y)
        s, t = read_scalars(dotprod(y, y), dotprod(r1, r2))
        z = abs(s - t)
        epsa = (s + eps) * eps ** (1.0 / 3.0)
        if z > epsa:
            raise ValueError("non-symmetric preconditioner")

    # Initialize other quantities
    oldb = 0
    beta = beta1
    dbar = 0
    epsln = 0
    phibar = beta1
    rhs1 = beta1
    rhs2 = 0
    tnorm2 = 0
    gmax = 0
    gmin = numpy.finfo(xtype).max
    cs = -1
    sn = 0
    w = gp.zeros(n, dtype=xtype)
    w2 = gp.zeros(n, dtype=xtype)
    r2 = r1

    pending = None  # the last iteration's test state, waiting for its ||x||
    ynorm = None
    while itn < maxiter:
        itn += 1
        s = 1.0 / beta
        v = s * y
        y = matvec(v)
        y = y - shift * v
        if itn >= 2:
            y = y - (beta / oldb) * r1
        alfa = dotprod(v, y)
        y = y - (alfa / beta) * r2
        r1 = r2
        r2 = y
        y = psolve(r2)
        oldb = beta
        beta = dotprod(r2, y)
        if pending is None:
            alfa, beta = read_scalars(alfa, beta)
        else:
            ynorm, alfa, beta = read_scalars(ynorm, alfa, beta)
            istop = _stop_code(istop, ynorm, *pending)
            if callback is not None:
                callback(x)
            if istop != 0:
                return x, (maxiter if istop == 6 else 0)
        if beta < 0:
            raise ValueError("non-symmetric matrix")
        beta = math.sqrt(beta.real)
        tnorm2 += alfa**2 + oldb**2 + beta**2

        if itn == 1:
            if beta / beta1 <= 10 * eps:
                istop = -1  # Terminate later

        # Apply previous rotation Qk-1 to get
        #   [deltak epslnk+1] = [cs  sn][dbark    0   ]
        #   [gbar k dbar k+1]   [sn -cs][alfak betak+1].
        oldeps = epsln
        delta = cs * dbar + sn * alfa  # delta1 = 0         deltak
        gbar = sn * dbar - cs * alfa  # gbar 1 = alfa1     gbar k
        epsln = sn * beta  # epsln2 = 0         epslnk+1
        dbar = -cs * beta  # dbar 2 = beta2     dbar k+1
        root = host_norm([gbar, dbar])

        # Compute the next plane rotation Qk
        gamma = host_norm([gbar, beta]).astype(xtype)  # gammak
        gamma = max(gamma, eps)
        cs = gbar / gamma  # ck
        sn = beta / gamma  # sk
        phi = cs * phibar  # phik
        phibar = sn * phibar  # phibark+1

        # Update  x.
        denom = 1.0 / gamma
        w1 = w2
        w2 = w
        w = (v - oldeps * w1 - delta * w2) * denom
        x = x + phi * w

        # Go round again.
        gmax = max(gmax, gamma)
        gmin = min(gmin, gamma)
        z = rhs1 / gamma
        rhs1 = rhs2 - delta * z
        rhs2 = -epsln * z

        # Estimate various norms; the test waits for ||x|| (read with the next step).
        Anorm = math.sqrt(tnorm2.real)
        ynorm = norm(x)
        rnorm = phibar
        Acond = gmax / gmin
        pending = (itn, maxiter, Anorm, rnorm, root, Acond, beta1, eps, rtol)

    if pending is not None:
        ynorm = read_scalar(ynorm)
        istop = _stop_code(istop, ynorm, *pending)
        if callback is not None:
            callback(x)
    return x, (maxiter if istop == 6 else 0)

