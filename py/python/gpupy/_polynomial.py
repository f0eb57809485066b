"""NumPy's legacy polynomial functions (``numpy.lib._polynomial_impl``) on gpupy arrays:
``vander``, ``polyval``, ``polyfit`` (least squares through ``gpupy.linalg.lstsq``),
``roots`` (eigenvalues of the companion matrix), ``poly``, ``polyadd``, ``polysub``,
``polymul``, ``polydiv``, ``polyder``, ``polyint`` and a basic ``poly1d`` whose
coefficients live on the device. Coefficients run from the highest power down, as
NumPy's. Loops over the degree run on the host; each step is device work."""

import warnings

import numpy

from gpupy import _math
from gpupy._creation import asarray, ones, zeros
from gpupy._gpupy import ndarray
from gpupy._indexing import flatnonzero
from gpupy._linalg import dot, outer
from gpupy._manipulation import atleast_1d, concatenate
from gpupy._matrices import diag
from gpupy._ranges import arange
from gpupy._reduction import sum as _sum
from gpupy._sorting import sort
from gpupy._comparison import allclose, array_equal
from gpupy._convolution import convolve
from gpupy.linalg import eigvals, inv, lstsq

__all__ = ["vander", "polyval", "polyfit", "roots", "poly", "poly1d", "polyadd", "polysub", "polymul",
           "polydiv", "polyder", "polyint"]


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-d ``x``: columns ``x**(N-1), ..., x, 1`` (reversed
    with ``increasing``), built by cumulative products as NumPy does.

    .. seealso:: numpy.vander"""
    x = asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    if N is None:
        N = x.shape[0]
    dtype = numpy.promote_types(x.dtype, int)
    v = ones((x.shape[0], N), dtype)
    if N > 1:
        # v[:, k] = x**k for increasing powers, as NumPy's multiply.accumulate.
        col = ones(x.shape[0], dtype)
        for k in range(1, N):
            col = _math.multiply(col, x).astype(dtype, copy=False)
            v[:, k] = col
    return v if increasing else v[:, ::-1]


def polyval(p, x):
    """``p[0] * x**(N-1) + ... + p[N-1]`` at ``x`` by Horner's scheme (NumPy's order of
    operations; a ``poly1d`` ``x`` gives a ``poly1d``).

    .. seealso:: numpy.polyval"""
    p = p.coeffs if isinstance(p, poly1d) else asarray(p)
    if isinstance(x, poly1d):
        y = poly1d([0])
        for k in range(p.shape[0]):
            y = y * x + poly1d(p[k:k + 1])
        return y
    x = asarray(x)
    y = zeros(x.shape, x.dtype)
    for k in range(p.shape[0]):
        y = _math.add(_math.multiply(y, x), p[k])
    return y


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial of degree ``deg`` through ``(x, y)`` (``y`` 1-d or one
    column per fit), weights ``w``; ``full`` adds residuals, rank, singular values and
    rcond; ``cov`` the covariance of the coefficients (``'unscaled'`` unscaled).

    .. seealso:: numpy.polyfit"""
    order = int(deg) + 1
    x = _math.add(asarray(x), 0.0)
    y = _math.add(asarray(y), 0.0)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = x.shape[0] * numpy.finfo(x.dtype).eps
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = _math.add(asarray(w), 0.0)
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = _math.multiply(lhs, w[:, None])
        rhs = _math.multiply(rhs, w[:, None] if rhs.ndim == 2 else w)
    scale = _math.sqrt(_sum(_math.multiply(lhs, lhs), axis=0))
    lhs = _math.divide(lhs, scale)
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    c = _math.divide(c.T, scale).T
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", numpy.exceptions.RankWarning, stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if cov:
        vbase = _math.divide(inv(dot(lhs.T, lhs)), outer(scale, scale))
        if cov == "unscaled":
            fac = 1
        else:
            if x.shape[0] <= order:
                raise ValueError("the number of data points must exceed order to scale the covariance matrix")
            fac = _math.divide(resids, x.shape[0] - order)
        if y.ndim == 1:
            return c, _math.multiply(vbase, fac)
        return c, _math.multiply(vbase[:, :, None], fac)
    return c


def roots(p):
    """The roots of the polynomial with coefficients ``p``: the eigenvalues of its
    companion matrix, then one zero per trailing zero coefficient (one device-to-host
    read finds the nonzero span).

    .. seealso:: numpy.roots"""
    p = atleast_1d(p.coeffs if isinstance(p, poly1d) else asarray(p))
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    non_zero = flatnonzero(p).get()
    if non_zero.size == 0:
        return zeros(0, numpy.float64)
    trailing_zeros = p.shape[0] - int(non_zero[-1]) - 1
    p = p[int(non_zero[0]):int(non_zero[-1]) + 1]
    if p.dtype.kind not in "fc":
        p = p.astype(numpy.float64)
    N = p.shape[0]
    if N > 1:
        A = diag(ones(N - 2, p.dtype), -1)
        A[0, :] = _math.divide(_math.negative(p[1:]), p[0])
        r = eigvals(A)
    else:
        r = zeros(0, numpy.float64)
    return concatenate([r, zeros(trailing_zeros, r.dtype)])


def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots (or of the
    characteristic polynomial of a square matrix); real when the roots come in conjugate
    pairs.

    .. seealso:: numpy.poly"""
    z = atleast_1d(seq_of_zeros)
    sh = z.shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        z = eigvals(z)
    elif len(sh) == 1:
        z = z.astype(numpy.dtype(numpy.mintypecode(z.dtype.char)))
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if z.shape[0] == 0:
        return 1.0
    dt = z.dtype
    a = ones(1, dt)
    for k in range(z.shape[0]):
        factor = concatenate([ones(1, dt), _math.negative(z[k:k + 1])])
        a = convolve(a, factor, mode="full")
    if a.dtype.kind == "c":
        r = z.astype(numpy.complex128)
        if array_equal(sort(r), sort(_math.conjugate(r))):
            a = a.real.copy()
    return a


def _coeffs(a):
    return a.coeffs if isinstance(a, poly1d) else atleast_1d(asarray(a))


def _padded_op(op, a1, a2):
    truepoly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    a1, a2 = _coeffs(a1), _coeffs(a2)
    d = a2.shape[0] - a1.shape[0]
    if d > 0:
        a1 = concatenate([zeros(d, a1.dtype), a1])
    elif d < 0:
        a2 = concatenate([zeros(-d, a2.dtype), a2])
    val = op(a1, a2)
    return poly1d(val) if truepoly else val


def polyadd(a1, a2):
    """The sum of two polynomials (coefficient arrays aligned at the constant term).

    .. seealso:: numpy.polyadd"""
    return _padded_op(_math.add, a1, a2)


def polysub(a1, a2):
    """The difference of two polynomials.

    .. seealso:: numpy.polysub"""
    return _padded_op(_math.subtract, a1, a2)


def polymul(a1, a2):
    """The product of two polynomials (the convolution of their coefficients).

    .. seealso:: numpy.polymul"""
    truepoly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    val = convolve(poly1d(a1).coeffs, poly1d(a2).coeffs)
    return poly1d(val) if truepoly else val


def polydiv(u, v):
    """Quotient and remainder of polynomial division (NumPy's long division; leading
    remainder terms within 1e-14 of zero are dropped).

    .. seealso:: numpy.polydiv"""
    truepoly = isinstance(u, poly1d) or isinstance(v, poly1d)
    u = _math.add(_coeffs(u), 0.0)
    v = _math.add(_coeffs(v), 0.0)
    dtype = numpy.result_type(u.dtype, v.dtype)
    m = u.shape[0] - 1
    n = v.shape[0] - 1
    scale = _math.divide(1.0, v[0])
    q = zeros(max(m - n + 1, 1), dtype)
    r = u.astype(dtype)
    for k in range(m - n + 1):
        d = _math.multiply(scale, r[k])
        q[k] = d
        r[k:k + n + 1] = _math.subtract(r[k:k + n + 1], _math.multiply(d, v))
    while r.shape[-1] > 1 and allclose(r[0], 0, rtol=1e-14):
        r = r[1:]
    if truepoly:
        return poly1d(q), poly1d(r)
    return q, r


def polyder(p, m=1):
    """The ``m``-th derivative of a polynomial.

    .. seealso:: numpy.polyder"""
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    truepoly = isinstance(p, poly1d)
    val = p.coeffs if truepoly else asarray(p)
    for _ in range(m):
        n = val.shape[0] - 1
        val = _math.multiply(val[:-1], arange(n, 0, -1))
    return poly1d(val) if truepoly else val


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of a polynomial, integration constants ``k`` (zeros by
    default; a scalar repeats).

    .. seealso:: numpy.polyint"""
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if k is None:
        k = numpy.zeros(m, float)
    k = numpy.atleast_1d(k.get() if isinstance(k, ndarray) else k)
    if len(k) == 1 and m > 1:
        k = k[0] * numpy.ones(m, float)
    if len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    truepoly = isinstance(p, poly1d)
    val = p.coeffs if truepoly else asarray(p)
    for i in range(m):
        n = val.shape[0]
        head = _math.divide(val, arange(n, 0, -1))
        val = concatenate([head, asarray(numpy.asarray([k[i]])).astype(head.dtype)])
    return poly1d(val) if truepoly else val


class poly1d:
    """A one-dimensional polynomial (NumPy's ``poly1d`` basics): coefficients on the
    device (leading zeros trimmed), ``p(x)``, ``+ - * ** /`` with polynomials and
    scalars, ``roots``, ``order``, ``deriv``, ``integ``, equality and indexing by power.

    .. seealso:: numpy.poly1d"""

    __hash__ = None

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, poly1d):
            self._coeffs = c_or_r._coeffs
            self._variable = c_or_r._variable if variable is None else variable
            return
        if r:
            c_or_r = poly(c_or_r)
        c = atleast_1d(asarray(c_or_r))
        if c.ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        nz = flatnonzero(c).get()  # one read: NumPy's trim_zeros(c, 'f')
        c = c[int(nz[0]):] if nz.size else zeros(1, c.dtype)
        self._coeffs = c
        self._variable = "x" if variable is None else variable

    @property
    def coeffs(self):
        return self._coeffs

    coef = coefficients = c = coeffs

    @property
    def variable(self):
        return self._variable

    @property
    def order(self):
        return self._coeffs.shape[0] - 1

    o = order

    @property
    def roots(self):
        return roots(self._coeffs)

    r = roots

    def __array__(self, dtype=None, copy=None):
        h = self._coeffs.get()
        return h if dtype is None else h.astype(dtype)

    def __repr__(self):
        return f"poly1d({numpy.array2string(self._coeffs.get(), separator=', ')})"

    def __len__(self):
        return self.order

    def __call__(self, val):
        return polyval(self._coeffs, val)

    def __neg__(self):
        return poly1d(_math.negative(self._coeffs))

    def __pos__(self):
        return self

    def __mul__(self, other):
        if numpy.isscalar(other):
            return poly1d(_math.multiply(self._coeffs, other))
        return poly1d(polymul(self._coeffs, poly1d(other)._coeffs))

    __rmul__ = __mul__

    def __add__(self, other):
        return poly1d(polyadd(self._coeffs, poly1d(other)._coeffs))

    __radd__ = __add__

    def __sub__(self, other):
        return poly1d(polysub(self._coeffs, poly1d(other)._coeffs))

    def __rsub__(self, other):
        return poly1d(polysub(poly1d(other)._coeffs, self._coeffs))

    def __pow__(self, val):
        if not numpy.isscalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        res = ones(1, self._coeffs.dtype)
        for _ in range(int(val)):
            res = polymul(self._coeffs, res)
        return poly1d(res)

    def __truediv__(self, other):
        if numpy.isscalar(other):
            return poly1d(_math.divide(self._coeffs, other))
        return polydiv(self, poly1d(other))

    def __rtruediv__(self, other):
        return polydiv(poly1d(other), self)

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return array_equal(self._coeffs, other._coeffs)

    def __ne__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    def __getitem__(self, val):
        ind = self.order - val
        if val > self.order or val < 0:
            return self._coeffs.dtype.type(0)
        return self._coeffs[ind]

    def deriv(self, m=1):
        """The ``m``-th derivative as a ``poly1d``."""
        return poly1d(polyder(self._coeffs, m=m))

    def integ(self, m=1, k=0):
        """The ``m``-th antiderivative as a ``poly1d``."""
        return poly1d(polyint(self._coeffs, m=m, k=k))
