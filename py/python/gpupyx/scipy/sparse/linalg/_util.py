"""What the solvers share: SciPy 1.18's ``make_system`` and tolerance rule, reading
device scalars to the host, and the host-side plane rotations.

Scalars on the host. The solvers keep their vectors on the device; a dot product or a
norm is a 0-d device array, and one that only scales a vector stays on the device
(``alpha * p`` with ``alpha`` 0-d is one broadcast kernel). A value the algorithm
branches on (a convergence test, a breakdown check, a plane rotation) has to come to the
host: ``read_scalars`` brings any number of them in one device-to-host copy (each read
waits for the stream, so the solvers arrange their work to read once per iteration).
The values come back as NumPy scalars of their own dtype (``numpy.float32`` for a
float32 norm), so the host arithmetic that follows rounds as SciPy's, which computes on
the same NumPy scalar types.
"""

import math

import numpy

import gpupy as gp
from gpupyx.scipy.sparse.linalg._interface import IdentityOperator, LinearOperator, aslinearoperator


def read_scalars(*values):
    """Host copies of 0-d device arrays (host scalars pass through), in one transfer:
    NumPy scalars of each value's own dtype. The values are stacked in their common
    dtype (exact: float32 widens to float64 and back losslessly) and copied once."""
    on_device = [v for v in values if isinstance(v, gp.ndarray)]
    if not on_device:
        return list(values)
    if len(on_device) == 1:
        host = on_device[0].reshape((1,)).get()  # a view: no stacking kernel
    else:
        common = numpy.result_type(*[v.dtype for v in on_device])
        host = gp.stack([v.reshape(()) for v in on_device], dtype=common).get()
    out, i = [], 0
    for v in values:
        if isinstance(v, gp.ndarray):
            h = host[i]
            i += 1
            out.append(v.dtype.type(h if v.dtype.kind == "c" else h.real))
        else:
            out.append(v)
    return out


def read_scalar(value):
    """One 0-d device array as a NumPy scalar of its dtype (one transfer)."""
    return read_scalars(value)[0]


def dot_function(dtype):
    """SciPy's ``dotprod``: ``vdot`` (the first vector conjugated) for complex vectors,
    ``dot`` otherwise; both give 0-d device arrays."""
    return gp.vdot if numpy.dtype(dtype).kind == "c" else gp.dot


def norm(x):
    """The 2-norm of a device vector, a 0-d device array of its real dtype."""
    return gp.linalg.norm(x)


def get_atol_rtol(name, b_norm, atol=0.0, rtol=1e-5):
    """SciPy's ``_get_atol_rtol``: the absolute tolerance ``max(atol, rtol * ||b||)``;
    an invalid ``atol`` raises SciPy's ValueError naming the solver."""
    if atol == "legacy" or atol is None or atol < 0:
        msg = (
            f"'scipy.sparse.linalg.{name}' called with invalid `atol`={atol}; "
            "if set, `atol` must be a real, non-negative number."
        )
        raise ValueError(msg)
    atol = max(float(atol), float(rtol) * float(b_norm))
    return atol, rtol


_COERCE = {("f", "f"): "f", ("f", "d"): "d", ("f", "F"): "F", ("f", "D"): "D", ("d", "f"): "d", ("d", "d"): "d",
           ("d", "F"): "D", ("d", "D"): "D", ("F", "f"): "F", ("F", "d"): "D", ("F", "F"): "F", ("F", "D"): "D",
           ("D", "f"): "D", ("D", "d"): "D", ("D", "F"): "D", ("D", "D"): "D"}


def coerce(x, y):
    """SciPy's solver dtype rule on type characters: anything but f/d/F/D counts as 'd'."""
    if x not in "fdFD":
        x = "d"
    if y not in "fdFD":
        y = "d"
    return _COERCE[x, y]


def as_device(x, dtype=None):
    """``x`` (a gpupy array, NumPy array, list or scalar) as a gpupy array."""
    return gp.asarray(x, dtype=dtype)


def make_system(A, M, x0, b):
    """SciPy's ``make_system`` on the device: ``(A, M, x, b)`` with ``A`` and ``M`` as
    LinearOperators, ``b`` a 1-d gpupy vector in the system's dtype (float32, float64,
    complex64 or complex128: A's and b's type characters through ``coerce``) and ``x``
    the initial guess (a fresh vector: zeros, ``M @ b`` for ``x0='Mb'``, or a copy of
    ``x0``). SciPy's checks and messages."""
    A_ = A
    A = aslinearoperator(A)
    if A.ndim > 2:
        raise ValueError(f"{A.ndim}-dimensional `A` is unsupported, expected 2-D.")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"expected square matrix, but got shape={(A.shape,)}")
    N = A.shape[0]
    b = as_device(b)
    if not (b.shape == (N, 1) or b.shape == (N,)):
        raise ValueError(f"shapes of A {A.shape} and b {b.shape} are incompatible")
    if b.dtype.char not in "fdFD":
        b = b.astype("d")
    if hasattr(A, "dtype"):
        xtype = A.dtype.char
    else:
        xtype = A.matvec(b).dtype.char
    xtype = coerce(xtype, b.dtype.char)
    b = b.astype(xtype, copy=False).ravel()

    if M is None:
        psolve = getattr(A_, "psolve", None)
        rpsolve = getattr(A_, "rpsolve", None)
        if psolve is None and rpsolve is None:
            M = IdentityOperator(shape=A.shape, dtype=A.dtype)
        else:
            M = LinearOperator(A.shape, matvec=psolve or _identity, rmatvec=rpsolve or _identity, dtype=A.dtype)
    else:
        M = aslinearoperator(M)
        if A.shape != M.shape:
            raise ValueError("matrix and preconditioner have different shapes")

    if x0 is None:
        x = gp.zeros(N, dtype=xtype)
    elif isinstance(x0, str):
        if x0 != "Mb":
            # SciPy leaves ``x`` unset here and fails with an UnboundLocalError.
            raise ValueError(f"x0 must be an array or 'Mb', got {x0!r}")
        x = M.matvec(b.copy())
    else:
        x = as_device(x0).astype(xtype)  # astype copies: the solvers update x in place
        if not (x.shape == (N, 1) or x.shape == (N,)):
            raise ValueError(f"shapes of A {A.shape} and x0 {x.shape} are incompatible")
        x = x.ravel()
    return A, M, x, b


def _identity(x):
    return x


def initial_residual(A, x, b, x0):
    """``b - A @ x``, or a copy of ``b`` when ``x0`` was None (x is zero). SciPy asks
    ``x.any()`` instead, which would be a device-to-host read; the two differ only for
    a zero ``x0`` with an ``A`` holding inf or NaN (``inf * 0``)."""
    return b.copy() if x0 is None else b - A.matvec(x)


# --- plane rotations on the host ---------------------------------------------------------


def _lartg_real(f, g):
    """LAPACK 3.10's ``?lartg`` for real ``f``, ``g`` (NumPy scalars of one dtype):
    ``(c, s, r)`` with ``[c s; -s c] [f; g] = [r; 0]``."""
    t = type(f)
    info = numpy.finfo(t)
    safmin, safmax = t(info.tiny), t(1 / info.tiny)
    rtmin, rtmax = numpy.sqrt(safmin), numpy.sqrt(safmax / t(2))
    f1, g1 = abs(f), abs(g)
    if g == 0:
        return t(1), t(0), f
    if f == 0:
        return t(0), numpy.copysign(t(1), g), g1
    if rtmin < f1 < rtmax and rtmin < g1 < rtmax:
        d = numpy.sqrt(f * f + g * g)
        r = numpy.copysign(d, f)
        return f1 / d, g / r, r
    u = min(safmax, max(safmin, f1, g1))
    fs, gs = f / u, g / u
    d = numpy.sqrt(fs * fs + gs * gs)
    r = numpy.copysign(d, f)
    return abs(fs) / d, gs / r, r * u


def _abssq(z):
    return z.real * z.real + z.imag * z.imag


def _lartg_complex(f, g):
    """LAPACK 3.10's ``?lartg`` for complex ``f``, ``g``: ``(c, s, r)``, ``c`` real,
    with ``[c s; -conj(s) c] [f; g] = [r; 0]``. Out-of-range inputs are scaled by one
    common factor (LAPACK scales ``f`` and ``g`` separately; same result to rounding)."""
    t = type(f)
    rt = type(f.real)
    info = numpy.finfo(rt)
    safmin = rt(info.tiny)
    rtmin = numpy.sqrt(safmin)
    rtmax = numpy.sqrt(rt(1 / info.tiny) / rt(4))
    if g == 0:
        return rt(1), t(0), f
    if f == 0:
        d = numpy.sqrt(_abssq(g))
        return rt(0), numpy.conj(g) / d, t(d)
    f1 = max(abs(f.real), abs(f.imag))
    g1 = max(abs(g.real), abs(g.imag))
    if not (rtmin < f1 < rtmax and rtmin < g1 < rtmax):
        u = max(f1, g1)
        c, s, r = _lartg_complex(t(f / u), t(g / u))
        return c, s, t(r * u)
    f2, g2 = _abssq(f), _abssq(g)
    h2 = f2 + g2
    if f2 >= h2 * safmin:
        c = numpy.sqrt(f2 / h2)
        r = t(f / c)
        if f2 > rtmin and h2 < rtmax * rt(2):
            s = numpy.conj(g) * t(f / numpy.sqrt(f2 * h2))
        else:
            s = numpy.conj(g) * t(r / h2)
        return c, t(s), r
    d = numpy.sqrt(f2 * h2)
    c = f2 / d
    r = t(f / c) if c >= safmin else t(f * (h2 / d))
    return c, t(numpy.conj(g) * t(f / d)), r


def lartg(f, g):
    """LAPACK's ``?lartg`` (the Givens rotation SciPy's ``gmres`` takes from
    ``get_lapack_funcs('lartg')``), computed on the host in ``f``'s precision."""
    if numpy.iscomplexobj(f) or numpy.iscomplexobj(g):
        t = numpy.result_type(f, g, numpy.complex64).type
        return _lartg_complex(t(f), t(g))
    t = numpy.result_type(f, g, numpy.float32).type
    return _lartg_real(t(f), t(g))


def sym_ortho(a, b):
    """SciPy's ``_sym_ortho`` (``lsqr``, ``lsmr``): the stable Givens rotation
    ``(c, s, r)`` of S.-C. Choi's ``SymOrtho`` for real ``a``, ``b``."""
    if b == 0:
        return numpy.sign(a), 0, abs(a)
    if a == 0:
        return 0, numpy.sign(b), abs(b)
    if abs(b) > abs(a):
        tau = a / b
        s = numpy.sign(b) / math.sqrt(1 + tau * tau)
        c = s * tau
        r = b / s
    else:
        tau = b / a
        c = numpy.sign(a) / math.sqrt(1 + tau * tau)
        s = c * tau
        r = a / c
    return c, s, r


def check_random_state(seed):
    """SciPy's ``check_random_state``: None (or ``numpy.random``) gives NumPy's global
    RandomState, an integer a new seeded RandomState, a Generator or RandomState itself."""
    if seed is None or seed is numpy.random:
        return numpy.random.mtrand._rand
    if isinstance(seed, (numpy.integer, int)):
        return numpy.random.RandomState(seed)
    if isinstance(seed, (numpy.random.RandomState, numpy.random.Generator)):
        return seed
    raise ValueError(f"'{seed}' cannot be used to seed a numpy.random.RandomState instance")
