"""``scipy.linalg``'s special matrices that gpupy builds: ``block_diag``, and CuPy's
``tril``/``triu`` (``cupyx.scipy.linalg`` keeps them; recent SciPy removed its own in
favour of NumPy's, which these are)."""

import numpy

import gpupy as gp


def block_diag(*arrs):
    """``scipy.linalg.block_diag``: the arrays (each made at least 2-D) on the diagonal
    of a zero matrix, in order, in their result dtype; leading axes broadcast (SciPy
    1.18's batching). ``block_diag()`` is a (1, 0) float64 array, as SciPy's."""
    if arrs == ():
        arrs = ([],)
    arrs = [gp.atleast_2d(gp.asarray(a)) for a in arrs]
    batch = tuple(numpy.broadcast_shapes(*[a.shape[:-2] for a in arrs]))
    dtype = numpy.result_type(*[a.dtype for a in arrs])
    rows = sum(a.shape[-2] for a in arrs)
    cols = sum(a.shape[-1] for a in arrs)
    out = gp.zeros(batch + (rows, cols), dtype)
    r = c = 0
    for a in arrs:
        rr, cc = a.shape[-2:]
        if rr and cc and out.size:
            out[..., r:r + rr, c:c + cc] = a
        r += rr
        c += cc
    return out


def tril(m, k=0):
    """Zeros above diagonal ``k`` of the last two axes (``gpupy.tril``)."""
    return gp.tril(m, k)


def triu(m, k=0):
    """Zeros below diagonal ``k`` of the last two axes (``gpupy.triu``)."""
    return gp.triu(m, k)


__all__ = ["block_diag", "tril", "triu"]
