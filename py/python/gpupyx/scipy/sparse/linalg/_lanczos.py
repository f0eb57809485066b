"""Thick-restart Lanczos (Wu and Simon, TRLan) for a few eigenpairs of a Hermitian
operator: the engine of ``eigsh`` and ``svds``.

One restart cycle ("iteration", as ARPACK counts them):

1. Lanczos steps ``j = start .. ncv-1`` on the device: ``u = A v_j``, orthogonalized
   against all of ``v_0 .. v_j`` twice (classical Gram-Schmidt twice: two matrix-vector
   products with the basis per pass), ``alpha_j = <v_j, A v_j>``, ``beta_j = ||u||``,
   ``v_{j+1} = u / beta_j``. The basis ``V`` holds ``ncv + 1`` rows of length ``n``.
   Full reorthogonalization keeps the basis orthogonal to working precision, so no
   spurious copies of converged eigenvalues appear. The ``alpha``s and ``beta``s stay
   on the device until the cycle ends: one read per cycle.
2. On the host (the "small dense part", O(ncv^2) numbers, NumPy in float64): the
   projected matrix ``T = V^H A V`` -- tridiagonal, with an arrowhead row and column
   after a restart -- and its eigenpairs ``theta_i, s_i`` (Ritz values). The residual
   of Ritz pair ``i`` is ``|beta_last s_i[-1]|`` (no product needed); ARPACK's test
   counts it converged when it is at most ``tol * max(eps^(2/3), |theta_i|)``.
3. Restart: keep ``nkeep`` Ritz vectors (the ``k`` wanted ones plus, as ARPACK adds,
   up to half the free space for the converged count), ``V[:nkeep] = S_keep^T V`` (one
   matrix product on the device), the last residual direction after them, and the
   arrowhead entries ``beta_last s_i[-1]``; the next cycle's Lanczos steps continue
   from row ``nkeep``.

A step whose ``A v_j`` lies in the basis's span (an invariant subspace: the identity
matrix, a starting vector in a small eigenspace), found by ARPACK's test on the two
Gram-Schmidt passes, is continued from a random vector orthogonal to the basis, with a
zero coupling in ``T``, as ARPACK does. The eigenvalues are those of
ARPACK to the tolerance; the iteration counts are not ARPACK's (an implicit restart of
the same dimension keeps a different subspace).
"""

import numpy

import gpupy as gp
from gpupyx.scipy.sparse.linalg._util import norm, read_scalar


class ArpackError(RuntimeError):
    """SciPy's ``ArpackError``: raised with ARPACK's error code and message."""

    def __init__(self, info, infodict=None):
        if infodict is None:
            infodict = {}
        msg = infodict.get(info, "Unknown error")
        super().__init__(f"ARPACK error {info}: {msg}")


class ArpackNoConvergence(ArpackError):
    """SciPy's ``ArpackNoConvergence``: the iteration limit was reached; the converged
    eigenvalues and eigenvectors are in ``eigenvalues`` and ``eigenvectors``."""

    def __init__(self, msg, eigenvalues, eigenvectors):
        ArpackError.__init__(self, -1, {-1: msg})
        self.eigenvalues = eigenvalues
        self.eigenvectors = eigenvectors


def select(theta, which, count):
    """Indices of the ``count`` Ritz values ``which`` asks for, best first ('BE':
    ``count // 2`` from the low end, the rest from the high end)."""
    if which == "LM":
        order = numpy.argsort(-numpy.abs(theta), kind="stable")
    elif which == "SM":
        order = numpy.argsort(numpy.abs(theta), kind="stable")
    elif which == "LA":
        order = numpy.argsort(-theta, kind="stable")
    elif which == "SA":
        order = numpy.argsort(theta, kind="stable")
    else:  # 'BE'
        ascending = numpy.argsort(theta, kind="stable")
        low = count // 2
        high = count - low
        return numpy.concatenate([ascending[len(ascending) - high:][::-1], ascending[:low]])
    return order[:count]


def _coefficients(basis, u):
    """``<v_i, u>`` for the rows ``v_i`` of ``basis``: a device vector."""
    if u.dtype.kind == "c":
        return gp.conj(basis @ gp.conj(u))
    return basis @ u


def _orthogonalize(basis, u):
    """``u`` minus its projection on the rows of ``basis`` (orthonormal), twice
    (classical Gram-Schmidt twice is enough for working-precision orthogonality, unless
    the second pass finds the first left only rounding noise: see ``cycle``), the sum
    of the two passes' coefficients, and the norm after the first pass (device)."""
    c1 = _coefficients(basis, u)
    u = u - c1 @ basis
    first_norm = norm(u)
    c2 = _coefficients(basis, u)
    u = u - c2 @ basis
    return u, c1 + c2, first_norm


class _Lanczos:
    """The Lanczos basis and coefficients of one ``eigsh`` call."""

    def __init__(self, matvec, n, dtype, ncv, rng):
        self.matvec = matvec
        self.n = n
        self.dtype = numpy.dtype(dtype)
        self.real_dtype = numpy.empty(0, self.dtype).real.dtype
        self.ncv = ncv
        self.rng = rng
        self.V = gp.empty((ncv + 1, n), dtype=self.dtype)
        self.alpha_dev = gp.zeros(ncv, dtype=self.real_dtype)
        self.beta_dev = gp.zeros(ncv, dtype=self.real_dtype)
        self.first_norm_dev = gp.zeros(ncv, dtype=self.real_dtype)  # ||u|| after one Gram-Schmidt pass
        self.alpha = numpy.zeros(ncv)
        self.beta = numpy.zeros(ncv)

    def steps(self, start):
        """Lanczos steps ``start .. ncv-1`` (device work only)."""
        V = self.V
        for j in range(start, self.ncv):
            u, c, first_norm = _orthogonalize(V[: j + 1], self.matvec(V[j]))
            self.first_norm_dev[j] = first_norm
            self.alpha_dev[j] = c[j].real
            b = norm(u)
            self.beta_dev[j] = b
            V[j + 1] = u / b

    def fresh_direction(self, j):
        """Row ``j + 1``: a random unit vector orthogonal to rows ``0 .. j``."""
        w = gp.asarray(self.rng.uniform(-1.0, 1.0, self.n).astype(self.dtype))
        w, _, _ = _orthogonalize(self.V[: j + 1], w)
        self.V[j + 1] = w / read_scalar(norm(w))

    def cycle(self, start):
        """The Lanczos steps from ``start``, and their coefficients read to the host
        (one read; again from a fresh direction after each breakdown).

        A breakdown: the second Gram-Schmidt pass lost more than 30% of the norm the
        first left (ARPACK's DGKS test, 0.717), so what is left of ``A v_j`` is rounding
        noise inside the basis's span (an invariant subspace was found; or 0/0 gave
        NaN). Its ``beta`` becomes 0 and the next row a random direction orthogonal to
        the basis; at the last step, ``beta = 0`` makes every Ritz pair exact."""
        ncv = self.ncv
        while True:
            self.steps(start)
            host = gp.concatenate([self.alpha_dev, self.beta_dev, self.first_norm_dev]).get().astype(numpy.float64)
            self.alpha[start:] = host[start:ncv]
            self.beta[start:] = host[ncv + start:2 * ncv]
            first = host[2 * ncv:]
            bad = [j for j in range(start, ncv) if not self.beta[j] > 0.717 * first[j]]
            if not bad:
                return
            j = bad[0]
            self.beta[j] = 0.0
            if j == ncv - 1:
                return
            self.fresh_direction(j)
            start = j + 1

    def projected(self, nkeep, arrow):
        """``T = V^H A V`` (float64, host): tridiagonal from row ``nkeep`` on, the kept
        Ritz values on the diagonal above it and the arrowhead coupling them to row
        ``nkeep``."""
        ncv = self.ncv
        T = numpy.diag(self.alpha)
        i = numpy.arange(nkeep, ncv - 1)
        T[i + 1, i] = T[i, i + 1] = self.beta[nkeep:ncv - 1]
        if nkeep:
            T[nkeep, :nkeep] = T[:nkeep, nkeep] = arrow
        return T

    def restart(self, theta, S, keep):
        """Rows ``0 .. nkeep-1`` become the Ritz vectors ``keep``, row ``nkeep`` the
        last residual direction; returns the arrowhead entries."""
        ncv, nkeep = self.ncv, len(keep)
        Y = gp.asarray(numpy.ascontiguousarray(S[:, keep].T).astype(self.dtype)) @ self.V[:ncv]
        self.V[:nkeep] = Y
        self.V[nkeep] = self.V[ncv]
        self.alpha[:nkeep] = theta[keep]
        self.beta[:nkeep] = 0.0
        return self.beta[ncv - 1] * S[ncv - 1, keep]

    def ritz_vectors(self, S_cols):
        """``V[:ncv]^T S_cols``: the Ritz vectors as columns (n, len), on the device."""
        S_dev = gp.asarray(numpy.ascontiguousarray(S_cols).astype(self.dtype))
        return self.V[: self.ncv].T @ S_dev


def lanczos(matvec, n, dtype, k, which, ncv, maxiter, tol, v0, rng):
    """The ``k`` eigenpairs ``which`` asks for of the Hermitian operator ``matvec``
    (order ``n``, computed in ``dtype``), from the device vector ``v0``.

    Returns ``(theta, vectors, nconv, iterations)``: the converged wanted Ritz values
    (host float64, best first per ``which``; all ``k`` when ``nconv == k``), a function
    giving their Ritz vectors as device columns (n, len(order)) in a given ``order`` of
    ``theta``'s indices, how many converged, and the restart cycles used."""
    lz = _Lanczos(matvec, n, dtype, ncv, rng)
    eps = float(numpy.finfo(lz.real_dtype).eps)
    tol = eps if tol == 0 else float(tol)
    eps23 = eps ** (2.0 / 3.0)

    v0_norm = read_scalar(norm(v0))
    if v0_norm == 0:
        raise ArpackError(-9, {-9: "Starting vector is zero."})
    lz.V[0] = v0 * (1 / v0_norm)

    start, nkeep, arrow = 0, 0, None
    for iteration in range(1, maxiter + 1):
        lz.cycle(start)
        theta, S = numpy.linalg.eigh(lz.projected(nkeep, arrow))
        residual = numpy.abs(lz.beta[ncv - 1] * S[ncv - 1, :])
        wanted = select(theta, which, k)
        ok = residual[wanted] <= tol * numpy.maximum(eps23, numpy.abs(theta[wanted]))
        nconv = int(ok.sum())
        if nconv == k or iteration == maxiter:
            break
        nkeep = min(k + min(nconv, (ncv - k) // 2), ncv - 1)
        arrow = lz.restart(theta, S, select(theta, which, nkeep))
        start = nkeep
    chosen = wanted if nconv == k else wanted[ok]

    def vectors(order):
        return lz.ritz_vectors(S[:, chosen[order]])

    return theta[chosen], vectors, nconv, iteration
