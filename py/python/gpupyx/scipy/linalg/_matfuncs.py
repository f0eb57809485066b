"""``scipy.linalg.expm``: the matrix exponential by scaling and squaring with a diagonal
Pade approximant (Higham, "The scaling and squaring method for the matrix exponential
revisited", SIAM J. Matrix Anal. Appl. 26(4), 2005, Algorithm 2.3), batched.

For each matrix, with its 1-norm ``|A|_1``: the smallest degree m in (3, 5, 7, 9, 13)
whose bound ``theta_m`` covers the largest norm of the batch is used for the whole
batch, without scaling; when none does, degree 13 (7 in single precision, Higham's
choice for that unit roundoff) with ``A / 2^s``, ``s = ceil(log2(|A|_1 / theta_m))`` per
matrix, then ``s`` squarings (each matrix stops at its own ``s``). The approximant is
``r_m(A) = (V - U)^-1 (V + U)`` with ``U`` the odd and ``V`` the even part of the Pade
numerator, one batched LU solve. Matrices that are all triangular get the triangle of
the result and the exact exponentials of their diagonal, as SciPy's do.
"""

import numpy
from numpy.linalg import LinAlgError

import gpupy as gp
from gpupy.linalg import _decomp
from gpupy.linalg._util import identities, materialize
from gpupyx.scipy.linalg._util import as_array

# Coefficients b_0 .. b_m of the [m/m] Pade approximant of exp (Higham 2005, eq. 2.11).
_PADE = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0,
        90.0, 1.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0,
         960960.0, 16380.0, 182.0, 1.0),
}
# theta_m: the largest 1-norm for which r_m's backward error is below the unit roundoff
# (Higham 2005, table 2.3: double precision, and single precision up to m = 7).
_THETA_DOUBLE = {3: 1.495585217958292e-2, 5: 2.539398330063230e-1, 7: 9.504178996162932e-1,
                 9: 2.097847961257068e0, 13: 5.371920351148152e0}
_THETA_SINGLE = {3: 4.258730016922831e-1, 5: 1.880152677804762e0, 7: 3.925724783138660e0}


def _pade(a, m):
    """(U, V) of the degree-``m`` approximant for the stack ``a``."""
    b = _PADE[m]
    n = a.shape[-1]
    eye = identities((), n, a.dtype)
    a2 = gp.matmul(a, a)
    if m == 13:
        a4 = gp.matmul(a2, a2)
        a6 = gp.matmul(a4, a2)
        u_inner = gp.matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
        u = gp.matmul(a, u_inner + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
        v = gp.matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
        return u, v
    # m = 3, 5, 7, 9: U = A sum_j b_{2j+1} A^{2j}, V = sum_j b_{2j} A^{2j}.
    powers = [eye, a2]
    while len(powers) < (m + 1) // 2:
        powers.append(gp.matmul(powers[-1], a2))
    odd = b[1] * eye
    even = b[0] * eye
    for j in range(1, (m + 1) // 2):
        odd = odd + b[2 * j + 1] * powers[j]
        even = even + b[2 * j] * powers[j]
    return gp.matmul(a, odd), even


def expm(A):
    """``scipy.linalg.expm``: ``exp`` of each matrix in the last two axes (see the module
    docstring for the method). Integers and bool compute in float64, float16 in float32,
    as SciPy's."""
    a = as_array(A)
    if a.size == 1 and a.ndim < 2:
        # SciPy: np.array([[np.exp(a.item())]]), a Python scalar's exp.
        wide = numpy.complex128 if a.dtype.kind == "c" else numpy.float64
        return gp.exp(a.reshape((1, 1)).astype(wide))
    if a.ndim < 2:
        raise LinAlgError("The input array must be at least two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    if a.dtype.kind not in "fc":
        dtype = numpy.dtype(numpy.float64)
    elif a.dtype == numpy.float16:
        dtype = numpy.dtype(numpy.float32)
    else:
        dtype = a.dtype
    if min(a.shape) == 0:
        return gp.empty(a.shape, dtype)
    if a.shape[-2:] == (1, 1):
        return gp.exp(a)  # SciPy's np.exp(a), before its dtype conversion
    a = a.astype(dtype, copy=False)
    batch = a.shape[:-2]
    n = a.shape[-1]
    upper = bool(gp.all(gp.tril(a, -1) == 0))
    lower = bool(gp.all(gp.triu(a, 1) == 0))
    d = a.diagonal(0, -2, -1)
    if upper and lower:  # diagonal: the exponentials of the diagonal, exactly
        return gp.multiply(identities(batch, n, dtype), gp.exp(d)[..., None, :])
    single = dtype.char in "fF"
    theta = _THETA_SINGLE if single else _THETA_DOUBLE
    top = max(theta)
    # One device-to-host read: the 1-norm (largest column sum of |a|) of each matrix.
    norms = gp.asnumpy(gp.max(gp.sum(gp.absolute(a), axis=-2), axis=-1)).reshape(-1)
    if not numpy.all(numpy.isfinite(norms)):
        # LAPACK-style propagation: a non-finite input gives NaN (SciPy's result is
        # unspecified there); avoid an endless scaling.
        return gp.full(a.shape, numpy.nan, dtype)
    biggest = float(norms.max()) if norms.size else 0.0
    m = next((k for k in sorted(theta) if biggest <= theta[k]), None)
    if m is not None:
        s = numpy.zeros(norms.shape, numpy.int64)
    else:
        m = top
        with numpy.errstate(divide="ignore"):
            s = numpy.maximum(0, numpy.ceil(numpy.log2(norms / theta[m]))).astype(numpy.int64)
    scaled = a
    if s.any():
        real = numpy.float32 if single else numpy.float64
        factors = gp.asarray(numpy.ldexp(1.0, -s).astype(real).reshape(batch + (1, 1)))
        scaled = gp.multiply(a, factors)  # powers of two: exact
    u, v = _pade(scaled, m)
    r, info = _decomp.solve(v - u, v + u)
    if numpy.any(numpy.asarray(info) != 0):
        raise LinAlgError("expm: the Pade denominator is singular (the input is too large or not finite)")
    smax = int(s.max()) if s.size else 0
    if smax:
        uniform = bool(numpy.all(s == smax))
        more = None if uniform else gp.asarray(s.reshape(batch + (1, 1)))
        for j in range(smax):
            r2 = gp.matmul(r, r)
            r = r2 if uniform else gp.where(more > j, r2, r)
    if upper or lower:
        r = gp.triu(r) if upper else gp.tril(r)
        gp.copyto(r.diagonal(0, -2, -1), gp.exp(d))
    return materialize(r) if not r.flags.c_contiguous else r



__all__ = ["expm"]
