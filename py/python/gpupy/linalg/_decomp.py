"""The factorization primitives behind ``gpupy.linalg`` and ``gpupyx.scipy.linalg``:
LU, solves, inverses, Cholesky, triangular solves, Householder QR and ``Q``, Hermitian
eigenproblems and singular value decompositions, each batched over leading axes.
(``/work/notes``-style contract: every function takes arrays already in a working
dtype -- float32, float64, complex64, complex128 --, never modifies them, and returns
new C-contiguous arrays; ``info`` values come back as host NumPy arrays.)

How they run (``ARCHITECTURE.md`` has the path to the kernels):
- a matrix that fits a block's shared memory (n up to 128, 64 for complex128) is one
  block of one kernel launch, the whole batch in one launch
  (``kernels/src/linalg/dense``: LAPACK's unblocked algorithms spread over the block);
- a larger one is factored by the classic blocked/recursive algorithms, composed here
  from those kernels (on panels and diagonal blocks, in place on views) and gpupy's
  matrix products, which do almost all of the arithmetic: recursive LU (Toledo),
  recursive Cholesky, recursive triangular solves, blocked Householder QR with the
  compact WY form applied as ``I - V M^-1 V^H`` (``_block_reflector``);
- eigenproblems and SVDs go through one-sided Jacobi (``_gpupy._svd_jacobi``): the SVD
  accumulates ``V`` in extra rows below ``A``'s; a Hermitian ``A`` is shifted to the
  positive definite ``A + c I`` (``c = 2 ||A||_F``), whose SVD is its eigendecomposition.
"""

import numpy

from gpupy import _gpupy, _reduction
from gpupy._creation import asnumpy, copy, empty, eye, full, zeros
from gpupy._ranges import arange
from gpupy._indexing import take, where
from gpupy._linalg import svdvals
from gpupy._manipulation import concatenate
from gpupy._sorting import argsort
from gpupy.linalg._util import conj, conj_t, identities, take_columns, take_last

_DOUBLE = numpy.finfo(numpy.float64).eps
_SINGLE_REAL = {
    numpy.dtype(numpy.float32): numpy.dtype(numpy.float32),
    numpy.dtype(numpy.float64): numpy.dtype(numpy.float64),
    numpy.dtype(numpy.complex64): numpy.dtype(numpy.float32),
    numpy.dtype(numpy.complex128): numpy.dtype(numpy.float64),
}


def _base(dtype):
    """The order up to which one kernel factors a whole matrix (staged in shared
    memory); larger ones recurse down to blocks of this order."""
    return 64 if numpy.dtype(dtype).itemsize == 16 else 128


def _work3(a):
    """A C-contiguous copy of ``a`` as ``(batch, m, n)``, and the batch shape."""
    batch = tuple(a.shape[:-2])
    w = copy(a, order="C")
    return w.reshape((-1,) + tuple(a.shape[-2:])), batch


def _info_array(count):
    return empty((count,), dtype=numpy.uint32)


def _sub_product(c, a, b):
    """``c -= a @ b`` in place (``c`` a view): the product is subtracted as the matrix
    product kernels store it, with no second pass over ``c``."""
    _gpupy._matmul_sub(a, b, c)


class _Infos:
    """The ``info`` words of the kernels a blocked algorithm runs, in order: rows of one
    device array (at most ``cap`` kernels), read back once at the end."""

    def __init__(self, cap, count):
        self.rows = empty((max(cap, 1), count), dtype=numpy.uint32)
        self.offsets = []

    def next(self, offset):
        """The ``(count,)`` info array for the next kernel, whose block starts at row
        and column ``offset``."""
        row = self.rows[len(self.offsets)]
        self.offsets.append(offset)
        return row

    def first_failure(self):
        """The first nonzero ``info`` plus its block's offset, per matrix."""
        count = self.rows.shape[1]
        out = numpy.zeros(count, dtype=numpy.int64)
        if not self.offsets:
            return out
        local = asnumpy(self.rows[: len(self.offsets)]).astype(numpy.int64)
        for offset, row in zip(self.offsets, local):
            hit = (out == 0) & (row != 0)
            out[hit] = row[hit] + offset
        return out


# ---- triangular solves ----------------------------------------------------------


def _trsm(t, b, lower, trans, unit):
    """``op(T) X = B`` in place of the view ``b``: one kernel for a small triangle,
    else recursion on halves with the off-diagonal block applied by a product."""
    n = t.shape[-1]
    if n <= _base(t.dtype) or b.shape[-1] == 0:
        _gpupy._linalg_trsm(t, b, lower, trans, unit)
        return
    h = n // 2
    forward = lower == (trans == 0)

    def off(rows, cols):
        # op(T)[rows, cols] as a view (transposed, conjugated for trans 2).
        if trans == 0:
            return t[:, rows, cols]
        blk = t[:, cols, rows].mT
        return conj(blk) if trans == 2 else blk

    top, bot = slice(0, h), slice(h, n)
    t11, t22 = t[:, top, top], t[:, bot, bot]
    if forward:
        _trsm(t11, b[:, top], lower, trans, unit)
        _sub_product(b[:, bot], off(bot, top), b[:, top])
        _trsm(t22, b[:, bot], lower, trans, unit)
    else:
        _trsm(t22, b[:, bot], lower, trans, unit)
        _sub_product(b[:, top], off(top, bot), b[:, bot])
        _trsm(t11, b[:, top], lower, trans, unit)


def _laswp(b, piv, forward):
    """LAPACK ``laswp``: ``piv``'s row interchanges on the rows of the view ``b``."""
    _gpupy._linalg_laswp(b, copy(piv, order="C"), forward)


# ---- LU ---------------------------------------------------------------------------


# Columns of the panels the LU kernel factors alone (in global memory, swapping whole
# rows of the matrix); wider panels recurse. Measured on an H100 (solve, float64):
# 16 is 5% faster than 32 at n = 1024 and 18% at 4096; 8 is no faster at 4096 (the
# extra recursion's launches cost what the narrower panels save).
_LU_PANEL = 16

# Threads per block of the panel kernel that spreads a panel's rows over the GPU (a row
# per thread, every block resident, a grid barrier per column); 0: the one-block
# kernel. One block spent 370 us on a 4096 x 16 float64 panel, as its time grew with
# the rows.
_LU_GRID_THREADS = 128

# Panels of fewer rows take the one-block kernel: the grid kernel's column steps cost
# about 3.5 us whatever the rows (55 us a panel of 16 columns), the one block's grow with
# them, and cross near 224 rows (H200, float64; a trace of every panel of a 2048 solve).
_LU_GRID_MIN_ROWS = 224


def _getrf_rec(full, r0, w, piv, infos):
    """Recursive LU (Toledo) of ``full[:, r0:, r0:r0 + w]`` in place: the left half,
    then ``U12 = L11^-1 A12`` and ``A22 -= L21 U12`` by products, then the bottom right.
    The panel kernel swaps whole rows of ``full`` (``A``'s columns left and right of
    the panel, and any right-hand sides stacked after ``A``), so no step applies
    interchanges by itself. Global pivots go to ``piv[:, r0:r0 + w]``."""
    rows, width = full.shape[1], full.shape[2]
    m = rows - r0
    if w <= _LU_PANEL:
        info = infos.next(r0)
        k = min(m, w)
        panel, pivots, right = full[:, r0:, r0 : r0 + w], piv[:, r0 : r0 + k], width - r0 - w
        if _LU_GRID_THREADS and m >= _LU_GRID_MIN_ROWS:
            _gpupy._linalg_lu_panel(panel, pivots, info, r0, right, r0, _LU_GRID_THREADS)
        else:
            _gpupy._linalg_getrf(panel, pivots, info, None, False, r0, right, r0)
        return
    h = w // 2
    _getrf_rec(full, r0, h, piv, infos)
    c1, c2 = r0 + h, r0 + w
    a12 = full[:, r0:c1, c1:c2]
    _trsm(full[:, r0:c1, r0:c1], a12, True, 0, True)
    _sub_product(full[:, c1:, c1:c2], full[:, c1:, r0:c1], a12)
    if m > h:
        _getrf_rec(full, c1, w - h, piv, infos)


def _getrf3(w, square=None):
    """LU in place of the ``(batch, m, n)`` working array ``w``: ``(piv, info)``.
    With ``square``, only the first ``square`` columns are ``A`` (the rest are
    right-hand sides, which the row interchanges and ``L^-1`` reach as well)."""
    count, m, n = w.shape
    k = min(m, n) if square is None else square
    piv = empty((count, k), dtype=numpy.int32)
    if count == 0 or k == 0:
        return piv, numpy.zeros(count, dtype=numpy.int64)
    if square is None and max(m, n) <= _base(w.dtype):
        info = _info_array(count)
        _gpupy._linalg_getrf(w, piv, info)
        return piv, asnumpy(info).astype(numpy.int64)
    # Each panel kernel factors at least one column.
    infos = _Infos(k, count)
    _getrf_rec(w, 0, min(m, k), piv, infos)
    if n > m or square is not None:
        # U's part right of the square: L^-1 times the (interchanged) rest.
        c = min(m, k)
        _trsm(w[:, :, :c], w[:, :, c:], True, 0, True)
    return piv, infos.first_failure()


def lu_factor(a):
    """``(lu, piv, info)``: LAPACK ``getrf`` of each matrix (see the module's
    contract)."""
    w, batch = _work3(a)
    piv, info = _getrf3(w)
    return (
        w.reshape(batch + w.shape[1:]),
        piv.reshape(batch + piv.shape[1:]),
        info.reshape(batch),
    )


def _getrs3(lu, piv, b, trans):
    """Solves in place of the ``(batch, n, k)`` working array ``b``."""
    n = lu.shape[-1]
    if n == 0 or b.shape[-1] == 0 or b.shape[0] == 0:
        return
    if trans == 0:
        _laswp(b, piv, True)
        _trsm(lu, b, True, 0, True)
        _trsm(lu, b, False, 0, False)
    else:
        _trsm(lu, b, False, trans, False)
        _trsm(lu, b, True, trans, True)
        _laswp(b, piv, False)


def lu_solve(lu, piv, b, trans=0):
    """Solves ``op(A) x = b`` from ``lu_factor``'s ``lu`` and ``piv``."""
    batch = tuple(b.shape[:-2])
    lu3 = copy(lu, order="C").reshape((-1,) + tuple(lu.shape[-2:]))
    p3 = copy(piv, order="C").reshape((-1, piv.shape[-1]))
    x, _ = _work3(b)
    _getrs3(lu3, p3, x, trans)
    return x.reshape(batch + x.shape[1:])


def solve(a, b):
    """``(x, info)`` for ``A x = b``: one launch for small matrices (factor and
    solve in shared memory), else ``lu_factor`` and ``lu_solve``."""
    w, batch = _work3(a)
    x, _ = _work3(b)
    n = w.shape[-1]
    count = w.shape[0]
    if count == 0 or n == 0:
        return x.reshape(batch + x.shape[1:]), numpy.zeros(batch, dtype=numpy.int64)
    if n <= _base(w.dtype):
        piv = empty((count, n), dtype=numpy.int32)
        info = _info_array(count)
        _gpupy._linalg_getrf(w, piv, info, x)
        return x.reshape(batch + x.shape[1:]), asnumpy(info).astype(numpy.int64).reshape(batch)
    # [A | B]: the factorization's interchanges and L^-1 reach B on the way.
    aug = concatenate([w, x], axis=-1)
    _, info = _getrf3(aug, n)
    x = copy(aug[:, :, n:], order="C")
    _trsm(aug[:, :, :n], x, False, 0, False)
    return x.reshape(batch + x.shape[1:]), info.reshape(batch)


def inv(a):
    """``(ainv, info)``: the inverse through LU (the identity solved in shared memory
    for small matrices)."""
    w, batch = _work3(a)
    count, n = w.shape[0], w.shape[-1]
    out = empty((count, n, n), dtype=w.dtype)
    if count == 0 or n == 0:
        return out.reshape(batch + (n, n)), numpy.zeros(batch, dtype=numpy.int64)
    if n <= _base(w.dtype):
        piv = empty((count, n), dtype=numpy.int32)
        info = _info_array(count)
        _gpupy._linalg_getrf(w, piv, info, out, True)
        return out.reshape(batch + (n, n)), asnumpy(info).astype(numpy.int64).reshape(batch)
    aug = concatenate([w, identities((count,), n, w.dtype)], axis=-1)
    _, info = _getrf3(aug, n)
    out = copy(aug[:, :, n:], order="C")
    _trsm(aug[:, :, :n], out, False, 0, False)
    return out.reshape(batch + (n, n)), info.reshape(batch)


# ---- Cholesky -----------------------------------------------------------------------


# Order of the diagonal blocks the recursive Cholesky factors with one kernel: a
# block's columns are sequential steps of one thread block, so small blocks keep that
# chain short and leave the work to the (parallel) triangular solves and products.
# Measured on an H200 (cholesky, float64, 4096): 128 17.8 ms, 64 12.7 ms, 32 11.7 ms.
_POTRF_BLOCK = 32


def _potrf_block(dtype, count):
    """The order of the recursion's base blocks for a batch of ``count`` matrices: as
    large as one kernel takes for a batch (whose matrices run side by side)."""
    return _base(dtype) if count > 1 else min(_base(dtype), _POTRF_BLOCK)


def _potrf_rec(a, infos, offset, block):
    """Recursive Cholesky (lower) of the view ``a`` in place, down to blocks of order
    ``block``; the upper triangle of ``a`` is left as it was except inside them."""
    n = a.shape[-1]
    if n <= block:
        _gpupy._linalg_potrf(a, infos.next(offset))
        return
    h = n // 2
    _potrf_rec(a[:, :h, :h], infos, offset, block)
    # L21 = A21 L11^-H: solve L11 X = A21^H, then L21 = X^H.
    x = copy(conj_t(a[:, h:, :h]), order="C")
    _trsm(a[:, :h, :h], x, True, 0, False)
    l21 = conj_t(x)
    a[:, h:, :h] = l21
    _sub_product(a[:, h:, h:], l21, x)
    _potrf_rec(a[:, h:, h:], infos, offset + h, block)


def cholesky(a, lower=True):
    """``(c, info)``: ``A = L L^H`` (``lower``) or ``A = U^H U`` of the named
    triangle."""
    src = a if lower else conj_t(a)
    w, batch = _work3(src)
    count, n = w.shape[0], w.shape[-1]
    if count == 0 or n == 0:
        return w.reshape(batch + (n, n)), numpy.zeros(batch, dtype=numpy.int64)
    infos = _Infos(n, count)
    block = _potrf_block(w.dtype, count)
    _potrf_rec(w, infos, 0, block)
    info = infos.first_failure()
    if n > block:
        # Base blocks zero their own upper triangles; the blocks above them are still A.
        mask = arange(n)[:, None] >= arange(n)[None, :]
        w = where(mask, w, full((), 0, dtype=w.dtype))
    if not lower:
        w = copy(conj_t(w), order="C")
    return w.reshape(batch + (n, n)), info.reshape(batch)


def solve_triangular(t, b, lower, trans=0, unit_diagonal=False):
    """``op(T) x = b`` for the named triangle of ``t``."""
    batch = tuple(b.shape[:-2])
    t3 = copy(t, order="C").reshape((-1,) + tuple(t.shape[-2:]))
    x, _ = _work3(b)
    if x.shape[0] and t3.shape[-1] and x.shape[-1]:
        _trsm(t3, x, lower, trans, unit_diagonal)
    return x.reshape(batch + x.shape[1:])


# ---- QR -----------------------------------------------------------------------------

# Columns per panel of the blocked QR: at most 16 (the panel and UT-factor kernels'
# width).
_QR_PANEL = 16

# Threads per block of the QR panel kernel spread over the GPU (a row per thread, two
# grid barriers per column; 128, 256 or 512); 0: the one-block kernel, which took
# 3.2 ms for a 4096 x 32 float64 panel.
_QR_GRID_THREADS = 128


# Columns per block of the two-level QR: the panels of ``_QR_PANEL`` columns update
# only their block's columns, and the trailing matrix (and ``Q``) get one update per
# block. Those updates are bound by memory (a pass over the trailing matrix each), so
# wider blocks pass over it fewer times. At most ``_QR_PANEL``: one level.
_QR_BLOCK = 64

# Two levels pay where the trailing updates dominate: measured on an H200, qr 4096
# float64 53.9 ms against 69.9 with one level, complex128 120 against 142. With a
# block's ``M`` from a product and selects they lost at float32 4096 (76.9 against
# 65.9) and float64 1024 (19.4 against 10.2: the host waits, about 17 us a launch);
# with ``M`` from the panels' ``M``s (``_ut_of``) they tie there (66.1 against 66.1,
# 10.25 against 10.34). So two levels only for double precision from this order on.
_QR_BLOCK_MIN = 4096


def _qr_width(dtype, k):
    """Columns per block of the QR of ``k`` reflectors of ``dtype`` (see ``_QR_BLOCK``)."""
    double = numpy.dtype(dtype) in (numpy.dtype(numpy.float64), numpy.dtype(numpy.complex128))
    return max(_QR_BLOCK, _QR_PANEL) if double and k >= _QR_BLOCK_MIN else _QR_PANEL


def _block_reflector(h, tau, v=None):
    """The block reflector ``H_0 ... H_{k-1} = I - V M^-1 V^H`` of the reflectors below
    the diagonal of the view ``h`` (``(batch, rows, k)``, ``k <= 16``) and ``tau``, in
    the "UT transform" form (Joffrain, Low, Quintana-Orti, van de Geijn and van Zee,
    "Accumulating Householder transformations, revisited", 2006):
    ``M = striu(V^H V) + diag(1 / tau)`` is the inverse of LAPACK ``larft``'s ``T``, and
    callers apply ``M^-1`` by a triangular solve. Returns ``(v, m)``: ``V`` explicit (a
    unit lower trapezoid, zero columns for ``tau = 0``; into the view ``v`` when given)
    and ``M``, from one kernel (``gpu_qr_ut``; ``dense::ut_v`` and ``ut_m`` say what
    they hold)."""
    count, rows, k = h.shape
    if v is None:
        v = empty((count, rows, k), dtype=h.dtype)
    m = empty((count, k, k), dtype=h.dtype)
    _gpupy._linalg_qr_ut(h, tau, v, m)
    return v, m


def _ut_of(v, mts):
    """``M = striu(V^H V) + diag(1 / tau)`` of a block's explicit ``V`` (``_qr_width``
    columns) from its panels' ``M``s (``mts``, in order, ``_QR_PANEL`` columns each but
    the last): ``V^H V`` with its diagonal blocks replaced by theirs. Below those blocks
    it keeps ``V^H V``'s lower part: the triangular solves read only the upper
    triangle (``gpu_trsm``, ``dense::trsm``)."""
    g = conj_t(v) @ v
    for i, mt in enumerate(mts):
        o, nb = i * _QR_PANEL, mt.shape[-1]
        g[:, o : o + nb, o : o + nb] = mt
    return g


def _reflect(v, mt, rest, trans):
    """``rest <- (I - V M^-1 V^H) rest`` (``trans`` 0) or its conjugate transpose's
    (``trans`` 2: ``rest - V M^-H V^H rest``), in place."""
    x = conj_t(v) @ rest
    _trsm(mt, x, False, trans, False)
    _sub_product(rest, v, x)


def _qr_blocked(w, tau):
    """Two-level blocked Householder QR of ``w`` in place (``tau`` filled): blocks of
    ``_qr_width`` columns, each by panels of ``_QR_PANEL`` (one kernel each) that update
    the rest of their block; then the block's reflectors at once on the trailing
    matrix (blocks of one panel: that panel's, on everything right of it)."""
    count, m, n = w.shape
    k = min(m, n)
    width = _qr_width(w.dtype, k)
    for b0 in range(0, k, width):
        bw = min(width, k - b0)
        # The block's V, explicit, when it has several panels and a trailing matrix.
        big = zeros((count, m - b0, bw), dtype=w.dtype) if bw > _QR_PANEL and b0 + bw < n else None
        mts = []
        for j0 in range(b0, b0 + bw, _QR_PANEL):
            nb = min(_QR_PANEL, b0 + bw - j0)
            panel, ptau = w[:, j0:, j0 : j0 + nb], tau[:, j0 : j0 + nb]
            if _QR_GRID_THREADS:
                _gpupy._linalg_qr_panel(panel, ptau, None, _QR_GRID_THREADS)
            else:
                _gpupy._linalg_geqrf(panel, ptau)
            if j0 + nb >= n:
                continue
            o = j0 - b0
            v, mt = _block_reflector(panel, ptau, None if big is None else big[:, o:, o : o + nb])
            mts.append(mt)
            # The block's columns right of the panel; for a block of one panel, all of
            # the trailing matrix.
            end = b0 + bw if big is not None or bw > _QR_PANEL else n
            if j0 + nb < end:
                _reflect(v, mt, w[:, j0:, j0 + nb : end], 2)
        if big is not None:
            _reflect(big, _ut_of(big, mts), w[:, b0:, b0 + bw :], 2)


def qr_factor(a):
    """``(h, tau)``: LAPACK ``geqrf`` of each matrix."""
    w, batch = _work3(a)
    count, m, n = w.shape
    k = min(m, n)
    tau = empty((count, k), dtype=w.dtype)
    if count and k:
        if m * n <= _base(w.dtype) ** 2:
            _gpupy._linalg_geqrf(w, tau)
        else:
            _qr_blocked(w, tau)
    return w.reshape(batch + (m, n)), tau.reshape(batch + (k,))


def qr_q(h, tau, ncols):
    """The first ``ncols`` columns of ``Q`` from ``qr_factor``'s ``h`` and ``tau``: the
    blocks' reflectors applied to the identity, last block first, each block at once."""
    batch = tuple(h.shape[:-2])
    m = h.shape[-2]
    k = tau.shape[-1]
    h3 = copy(h, order="C").reshape((-1,) + tuple(h.shape[-2:]))
    t3 = copy(tau, order="C").reshape((-1, k))
    count = h3.shape[0]
    q = empty((count, m, ncols), dtype=h3.dtype)
    if count == 0 or m == 0 or ncols == 0:
        return q.reshape(batch + (m, ncols))
    if m * max(ncols, k) <= _base(h3.dtype) ** 2:
        _gpupy._linalg_orgqr(h3[:, :, :k], t3, q)
        return q.reshape(batch + (m, ncols))
    q[...] = eye(m, ncols, dtype=h3.dtype)
    width = _qr_width(h3.dtype, k)
    for b0 in reversed(range(0, k, width)):
        bw = min(width, k - b0)
        if bw <= _QR_PANEL:
            v, mt = _block_reflector(h3[:, b0:, b0 : b0 + bw], t3[:, b0 : b0 + bw])
        else:
            v = zeros((count, m - b0, bw), dtype=h3.dtype)
            mts = []
            for j0 in range(b0, b0 + bw, _QR_PANEL):
                nb, o = min(_QR_PANEL, b0 + bw - j0), j0 - b0
                view = v[:, o:, o : o + nb]
                mts.append(_block_reflector(h3[:, j0:, j0 : j0 + nb], t3[:, j0 : j0 + nb], view)[1])
            mt = _ut_of(v, mts)
        # H_b0 ... H_b0+bw-1 rest = rest - V (M^-1 (V^H rest)).
        _reflect(v, mt, q[:, b0:, b0:], 0)
    return q.reshape(batch + (m, ncols))


# ---- Jacobi: Hermitian eigenproblems and SVD --------------------------------------------


def _jacobi_tol(real, rows):
    # Single precision converges to float32's resolution; double to LAPACK dgesvj's
    # sqrt(m) eps.
    if real == numpy.float32:
        return 2.0**-23
    return max(rows, 1) ** 0.5 * _DOUBLE


def _jacobi(w, dot_rows, real):
    """One-sided Jacobi on ``w`` (``(batch, n, m)`` float64/complex128, rows the
    columns) in place, each matrix scaled by a power of two first: returns the scale
    (``(batch, 1, 1)``)."""
    head = w[:, :, :dot_rows]
    amax = _reduction.max(_gpupy.absolute(head), axis=(-2, -1), keepdims=True)
    if not bool(_reduction.all(_gpupy.isfinite(amax))):
        return None
    one = full((), 1.0)
    scale = where(_gpupy.greater(amax, 0), _gpupy.exp2(_gpupy.floor(_gpupy.log2(amax))), one)
    _gpupy.divide(head, scale, out=head)
    if not _gpupy._svd_jacobi(w, _jacobi_tol(real, dot_rows), dot_rows):
        return None
    return scale


def eigh(a, lower=True, vectors=True):
    """``(w, v)``: eigenvalues ascending and (with ``vectors``) unit eigenvectors of
    each Hermitian matrix, from its ``lower`` or upper triangle."""
    dtype = numpy.dtype(a.dtype)
    real = _SINGLE_REAL[dtype]
    work = numpy.complex128 if dtype.kind == "c" else numpy.float64
    batch = tuple(a.shape[:-2])
    n = a.shape[-1]
    x = a.astype(work).reshape((-1, n, n))
    count = x.shape[0]
    if count == 0 or n == 0:
        w0 = empty(batch + (n,), dtype=real)
        return w0, (empty(batch + (n, n), dtype=dtype) if vectors else None)
    i = arange(n)[:, None]
    j = arange(n)[None, :]
    tri = (i >= j) if lower else (i <= j)
    strict = (i > j) if lower else (i < j)
    zero = full((), 0, dtype=work)
    half = where(tri, x, zero)
    herm = half + conj_t(where(strict, x, zero))
    # Real diagonal, as LAPACK reads it.
    if dtype.kind == "c":
        herm = where(i == j, herm.real.astype(work), herm)
    fro = _gpupy.sqrt(_reduction.sum(_gpupy.absolute(herm) ** 2, axis=(-2, -1), keepdims=True))
    if not bool(_reduction.all(_gpupy.isfinite(fro))):
        raise numpy.linalg.LinAlgError("Eigenvalues did not converge")
    shift = where(fro > 0, 2.0 * fro, full((), 1.0))
    wmat = herm + shift * eye(n, dtype=work)
    # Rows of the working array are conj(columns) of the Hermitian W: Jacobi makes
    # them orthogonal, i.e. it diagonalizes conj(W), whose eigenvectors are conj(W's).
    wk = copy(wmat, order="C")
    scale = _jacobi(wk, n, real)
    if scale is None:
        raise numpy.linalg.LinAlgError("Eigenvalues did not converge")
    sig = _gpupy.sqrt(_reduction.sum(_gpupy.absolute(wk) ** 2, axis=-1))
    u = conj(wk / sig[:, :, None]).mT  # columns: unit eigenvectors of W (and of A)
    # Eigenvalues as Rayleigh quotients u^H A u: accurate to eps ||A||, where
    # sigma - shift would carry the shift's rounding too.
    lam = _reduction.sum(conj(u) * (herm @ u), axis=-2).real
    order = argsort(lam, axis=-1)
    w_sorted = take_last(lam, order).astype(real)
    if not vectors:
        return w_sorted.reshape(batch + (n,)), None
    v = take_columns(u, order).astype(dtype)
    return w_sorted.reshape(batch + (n,)), v.reshape(batch + (n, n))


def svd(a, full_matrices=True, compute_uv=True):
    """``(u, s, vh)`` (or ``s``): singular values descending and vectors, by one-sided
    Jacobi with ``V`` accumulated below ``A``'s rows."""
    if not compute_uv:
        return svdvals(a)
    dtype = numpy.dtype(a.dtype)
    real = _SINGLE_REAL[dtype]
    work = numpy.complex128 if dtype.kind == "c" else numpy.float64
    batch = tuple(a.shape[:-2])
    m, n = a.shape[-2:]
    k = min(m, n)
    if m < n:
        u, s, vh = svd(conj_t(a), full_matrices, True)
        return conj_t(vh), s, conj_t(u)
    x = a.astype(work).reshape((-1, m, n))
    count = x.shape[0]
    ucols = m if full_matrices else k
    if count == 0 or k == 0:
        u = identities(batch, m, dtype, ucols)
        vh = identities(batch, n, dtype)
        return u, empty(batch + (k,), dtype=real), vh
    # Row i of the working array: column i of A, then column i of the identity.
    wk = concatenate([x.mT, identities((count,), n, work)], axis=-1)
    wk = copy(wk, order="C")
    scale = _jacobi(wk, m, real)
    if scale is None:
        raise numpy.linalg.LinAlgError("SVD did not converge")
    head = wk[:, :, :m]
    norms = _gpupy.sqrt(_reduction.sum(_gpupy.absolute(head) ** 2, axis=-1))
    order = argsort(-norms, axis=-1)
    norms_sorted = take_last(norms, order)
    s = (norms_sorted * scale[:, 0]).astype(real)
    cols = take_columns(head.mT, order)  # (count, m, n): A V, sorted
    v = take_columns(wk[:, :, m:].mT, order)  # (count, n, n)
    # Columns with a (numerically) zero singular value have no direction of their own:
    # they and the extra columns of a full U come from completing the others to a
    # unitary matrix by Householder QR (reflectors of zero columns are the identity).
    tol = _jacobi_tol(real, m)
    good = norms_sorted > tol * norms_sorted[:, :1]
    unit = cols / where(good, norms_sorted, full((), 1.0))[:, None, :]
    unit = where(good[:, None, :], unit, full((), 0, dtype=work))
    if not full_matrices and bool(_reduction.all(good)):
        u = unit
    else:
        basis = concatenate([unit, identities((count,), m, work)], axis=-1)
        h, tau = qr_factor(basis)
        q = qr_q(h, tau, m)
        u_k = where(good[:, None, :], unit, q[:, :, :k])
        u = concatenate([u_k, q[:, :, k:ucols]], axis=-1) if ucols > k else u_k
    u = u.astype(dtype).reshape(batch + (m, ucols))
    vh = conj_t(v).astype(dtype).reshape(batch + (n, n))
    return u, s.reshape(batch + (k,)), vh


# ---- general eigenproblems --------------------------------------------------------------

_COMPLEX_OF = {
    numpy.dtype(numpy.float32): numpy.dtype(numpy.complex64),
    numpy.dtype(numpy.float64): numpy.dtype(numpy.complex128),
    numpy.dtype(numpy.complex64): numpy.dtype(numpy.complex64),
    numpy.dtype(numpy.complex128): numpy.dtype(numpy.complex128),
}


def eig(a, vectors=True):
    """``(w, v)``: eigenvalues (in the order the QR iteration deflates them, which is
    not LAPACK's) and unit eigenvectors (largest component real, as LAPACK's) of each
    general matrix, or ``v = None``. Complex Hessenberg QR on a complex copy; for real
    input, eigenvalues whose imaginary part is below ``10 n eps ||A||_F`` count as
    real, and when all are real the results are real, as NumPy's."""
    dtype = numpy.dtype(a.dtype)
    cdt = _COMPLEX_OF[dtype]
    batch = tuple(a.shape[:-2])
    n = a.shape[-1]
    t = copy(a.astype(cdt), order="C").reshape((-1, n, n))
    count = t.shape[0]
    if count == 0 or n == 0:
        w0 = empty(batch + (n,), dtype=dtype)
        return w0, (empty(batch + (n, n), dtype=dtype) if vectors else None)
    z = empty((count, n, n), dtype=cdt)
    info = _info_array(count)
    _gpupy._linalg_geev(t, z, info, vectors)
    if asnumpy(info).any():
        raise numpy.linalg.LinAlgError("Eigenvalues did not converge")
    diag = arange(n, dtype=numpy.int64) * (n + 1)
    flat = arange(count, dtype=numpy.int64)[:, None] * (n * n) + diag[None, :]
    w = take(t.reshape(-1), flat)
    v = None
    if vectors:
        i = arange(n)[:, None]
        j = arange(n)[None, :]
        x = where(i < j, t.mT, full((), 0, dtype=cdt)) + eye(n, dtype=cdt)
        v = z @ x
        rdt = _SINGLE_REAL[cdt]
        one = full((), 1, dtype=rdt)
        norm = _gpupy.sqrt(_reduction.sum(_gpupy.absolute(v) ** 2, axis=-2, keepdims=True))
        v = v / where(norm > 0, norm, one)
        big = _reduction.argmax(_gpupy.absolute(v), axis=-2)  # (count, n)
        top = _take_rows(v, big)
        mag = _gpupy.absolute(top)
        phase = where(mag > 0, top / where(mag > 0, mag, one), full((), 1, dtype=cdt))
        v = v * conj(phase)[:, None, :]
    if dtype.kind != "c" and not _eig_always_complex():
        fro = _gpupy.sqrt(_reduction.sum(_gpupy.absolute(a.astype(cdt)) ** 2))
        tol = 10 * n * numpy.finfo(dtype).eps * float(fro)
        if bool(_reduction.all(_gpupy.absolute(w.imag) <= tol)):
            w = w.real.astype(dtype)
            v = v.real.astype(dtype) if vectors else None
    w = w.reshape(batch + (n,))
    if vectors:
        v = v.reshape(batch + (n, n))
    return w, v


def _eig_always_complex():
    """Whether the installed NumPy's ``eig`` returns complex results for real input
    even when every eigenvalue is real (NumPy's own rule, asked once of a 1 x 1
    matrix)."""
    global _ALWAYS_COMPLEX
    if _ALWAYS_COMPLEX is None:
        _ALWAYS_COMPLEX = numpy.linalg.eigvals(numpy.ones((1, 1))).dtype.kind == "c"
    return _ALWAYS_COMPLEX


_ALWAYS_COMPLEX = None


def _take_rows(v, rows):
    """``v[b, rows[b, k], k]`` for each matrix ``b`` and column ``k``."""
    count, r, c = v.shape
    flat = (
        arange(count, dtype=numpy.int64)[:, None] * (r * c)
        + rows.astype(numpy.int64) * c
        + arange(c, dtype=numpy.int64)[None, :]
    )
    return take(copy(v, order="C").reshape(-1), flat)


__all__ = [
    "lu_factor", "lu_solve", "solve", "inv", "cholesky", "solve_triangular", "qr_factor", "qr_q", "eigh",
    "svd", "eig",
]
