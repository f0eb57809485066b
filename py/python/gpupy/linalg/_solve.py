"""Linear systems, inverses and determinants: NumPy's ``solve``, ``inv``, ``det``,
``slogdet``, ``matrix_power``, ``tensorsolve`` and ``tensorinv``, on the LU primitives of
``gpupy.linalg._decomp`` (``solve``, ``inv``, ``lu_factor``).

Every function checks shapes and dtypes as NumPy does, in NumPy's order and words, then
calls one primitive on the whole batch; a singular matrix anywhere in the batch raises
``LinAlgError('Singular matrix')`` after that one call (one device-to-host read of the
``info`` array), as NumPy raises for a batch with one bad matrix.
"""

import math
import operator

import numpy

from gpupy import _gpupy, _reduction
from gpupy._creation import asarray, empty, ones, zeros
from gpupy._indexing import where
from gpupy._ranges import arange
from gpupy.linalg import _decomp
from gpupy.linalg._util import (
    LinAlgError,
    SlogdetResult,
    as_working,
    assert_stacked_square,
    gufunc_broadcast_error,
    identities,
    materialize,
    raise_if_info,
    real_dtype,
    solve_batched,
    square_operand,
    working_dtype,
)

_SOLVE_SIG = "(m,m),(m,n)->(m,n)"


def _checked_solve(a, b):
    """The solve primitive on operands of one batch shape, raising NumPy's error for a
    singular matrix."""
    x, info = _decomp.solve(a, b)
    raise_if_info(info, "Singular matrix")
    return x


def solve(a, b):
    """NumPy 2's ``linalg.solve``: ``x`` with ``a @ x == b`` for square ``a`` (..., M, M).

    ``b`` is one vector (M,) only when it is exactly 1-D (NumPy 2's rule); otherwise it
    is a stack of (M, K) matrices whose batch shape broadcasts with ``a``'s. Computed by
    LU with partial pivoting (``_decomp.solve``); a single ``a`` with a stack of
    right-hand sides is factorized once (``solve_batched``)."""
    a = asarray(a)
    assert_stacked_square(a)
    b = asarray(b)
    t = working_dtype(a, b)
    n = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != n:
            raise ValueError(
                "solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                f"(m,m),(m)->(m) (size {b.shape[0]} is different from {n})"
            )
        batch = a.shape[:-2]
        a, b = as_working(a, t), as_working(b, t)
        if math.prod(batch) == 0 or n == 0:
            return empty(batch + (n,), t)
        # One column; a stack of matrices sees the same vector (NumPy broadcasts it).
        x = solve_batched(_checked_solve, a, b.reshape((n, 1)), batch)
        return materialize(x[..., 0])
    if b.ndim < 2:
        raise ValueError(
            f"solve: Input operand 1 does not have enough dimensions (has {b.ndim}, gufunc core with "
            f"signature {_SOLVE_SIG} requires 2)"
        )
    if b.shape[-2] != n:
        raise ValueError(
            f"solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
            f"{_SOLVE_SIG} (size {b.shape[-2]} is different from {n})"
        )
    try:
        batch = numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise gufunc_broadcast_error([(a.shape, 2), (b.shape, 2)], (n, b.shape[-1])) from None
    a, b = as_working(a, t), as_working(b, t)
    k = b.shape[-1]
    if math.prod(batch) == 0 or n == 0 or k == 0:
        return empty(batch + (n, k), t)
    return solve_batched(_checked_solve, a, b, batch)


def inv(a):
    """NumPy's ``linalg.inv`` of each matrix in the last two axes (``_decomp.inv``: LU
    with partial pivoting, then the inverse from the factors)."""
    a, t = square_operand(a)
    if a.size == 0:
        return empty(a.shape, t)
    ainv, info = _decomp.inv(a)
    raise_if_info(info, "Singular matrix")
    return ainv


def _slogdet(a, t):
    """(sign, logabsdet) of the nonempty square matrices ``a`` (working dtype ``t``) from
    one LU factorization: ``det(A) = (-1)^swaps * prod(diag(U))``, its logarithm summed
    term by term so that no product overflows (NumPy's way, which ``det`` reuses)."""
    lu, piv, info = _decomp.lu_factor(a)
    n = a.shape[-1]
    real = real_dtype(t)
    d = lu.diagonal(0, -2, -1)
    # Each pivot that is not its own row is one row interchange.
    swaps = _reduction.count_nonzero(_gpupy.not_equal(piv, arange(n, dtype=piv.dtype)), axis=-1)
    parity = (1 - 2 * (swaps % 2)).astype(real)
    absd = _gpupy.absolute(d)
    logabsdet = _reduction.sum(_gpupy.log(absd), axis=-1)
    if t.kind == "c":
        # d / |d| is the phase of each pivot; an exact zero pivot makes the sign 0.
        unit = where(_gpupy.equal(absd, 0), 0, _gpupy.divide(d, absd))
        sign = _gpupy.multiply(_reduction.prod(unit, axis=-1), parity)
    else:
        sign = _gpupy.multiply(_reduction.prod(_gpupy.sign(d), axis=-1), parity)
    if numpy.any(info != 0):
        # LAPACK's info > 0: an exact zero pivot, det 0 (NumPy sets these two values).
        singular = asarray(numpy.asarray(info != 0))
        sign = where(singular, 0, sign)
        logabsdet = where(singular, -numpy.inf, logabsdet)
    return sign.astype(t, copy=False), logabsdet.astype(real, copy=False)


def slogdet(a):
    """NumPy's ``linalg.slogdet``: ``SlogdetResult(sign, logabsdet)`` with
    ``det = sign * exp(logabsdet)``; sign 0 and logabsdet -inf for a singular matrix;
    an empty matrix has sign 1 and logabsdet 0."""
    a, t = square_operand(a)
    batch = a.shape[:-2]
    if a.size == 0:
        return SlogdetResult(ones(batch, t), zeros(batch, real_dtype(t)))
    return SlogdetResult(*_slogdet(a, t))


def det(a):
    """NumPy's ``linalg.det``: ``sign * exp(logabsdet)`` from ``slogdet``'s factorization,
    exactly as NumPy forms it (so a determinant whose partial products would overflow
    is still finite when the result is)."""
    a, t = square_operand(a)
    if a.size == 0:
        return ones(a.shape[:-2], t)
    sign, logabsdet = _slogdet(a, t)
    return _gpupy.multiply(sign, _gpupy.exp(logabsdet))


def matrix_power(a, n):
    """NumPy's ``linalg.matrix_power``: ``a`` multiplied by itself ``n`` times by binary
    powering (``n == 0``: identities of ``a``'s dtype; ``n < 0``: powers of ``inv(a)``).
    Positive powers keep ``a``'s dtype, integers included."""
    a = asarray(a)
    assert_stacked_square(a)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        return identities(a.shape[:-2], a.shape[-1], a.dtype)
    if n < 0:
        a = inv(a)
        n = abs(n)
    if n == 1:
        return a
    if n == 2:
        return _gpupy.matmul(a, a)
    if n == 3:
        return _gpupy.matmul(_gpupy.matmul(a, a), a)
    # Binary decomposition of n: squarings z = a^(2^i), multiplied in where bit i is set.
    z = result = None
    while n > 0:
        z = a if z is None else _gpupy.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else _gpupy.matmul(result, z)
    return result


def tensorsolve(a, b, axes=None):
    """NumPy's ``linalg.tensorsolve``: ``x`` with ``tensordot(a, x, axes=x.ndim) == b``,
    as one square system (the axes of ``b`` against the rest of ``a``'s)."""
    a = asarray(a)
    b = asarray(b)
    an = a.ndim
    if axes is not None:
        allaxes = list(range(an))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(an, k)
        a = a.transpose(allaxes)
    oldshape = a.shape[-(an - b.ndim):]
    prod = math.prod(oldshape)
    if a.size != prod**2:
        raise LinAlgError(
            "Input arrays must satisfy the requirement "
            "            prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])"
        )
    a = a.reshape((prod, prod))
    b = b.reshape(-1)
    return solve(a, b).reshape(oldshape)


def tensorinv(a, ind=2):
    """NumPy's ``linalg.tensorinv``: the inverse of ``a`` for ``tensordot(., ., ind)``,
    one matrix inverse of ``a`` reshaped to (prod(shape[:ind]), prod(shape[ind:]))."""
    a = asarray(a)
    oldshape = a.shape
    if ind > 0:
        invshape = oldshape[ind:] + oldshape[:ind]
        prod = math.prod(oldshape[ind:])
    else:
        raise ValueError("Invalid ind argument.")
    a = a.reshape((prod, -1))
    return inv(a).reshape(invshape)



__all__ = ["solve", "inv", "slogdet", "det", "matrix_power", "tensorsolve", "tensorinv"]
