"""Linear algebra on top of the matrix-product kernels (NumPy's "Linear algebra" section):
``dot`` (N-d), ``vdot``, ``inner``, ``outer``, ``tensordot``, ``kron``, ``trace``,
``einsum``, ``vecdot`` and the norms of ``gpupy.linalg``.

Everything here is a composition: views (transpose, reshape, diagonal) and one batched
``matmul`` do the arithmetic, so each function costs one GEMM (or GEMV) launch plus at
most one copy of an operand whose axes cannot be merged. Sums along axes are products
with a vector of ones (``_sum_last``), which runs on the GEMV kernel and is exact for
integers (wrapping like NumPy's).
"""

import math
import operator

import numpy

from gpupy import _gpupy, _methods, _reduction
from gpupy._creation import asarray as _arr, copy, empty, full, ones, zeros
from gpupy._indexing import where as _where
from gpupy._manipulation import copyto, swapaxes
from gpupy._sorting import sort


def _result_type(*arrays):
    return numpy.result_type(*[a.dtype for a in arrays])


def _reshape(a, shape):
    """``a.reshape(shape)``: a view when the axes merge, else a contiguous copy."""
    return a.reshape(tuple(shape))


def _prod(xs):
    return math.prod(int(x) for x in xs)


def _sum_dtype(dtype):
    """NumPy's accumulator dtype for ``sum``/``trace`` without ``dtype=``: small integers
    and bool widen to the platform integer."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b" or (dtype.kind == "i" and dtype.itemsize < 8):
        return numpy.dtype(numpy.int_)
    if dtype.kind == "u" and dtype.itemsize < 8:
        return numpy.dtype(numpy.uint)
    return dtype


def _sum_last(x, dtype=None):
    """``x.sum(axis=-1)`` as ``x @ ones``: the GEMV path for floats, exact for integers."""
    dtype = numpy.dtype(x.dtype if dtype is None else dtype)
    if x.dtype != dtype:
        x = x.astype(dtype)
    return _gpupy.matmul(x, ones(x.shape[-1], dtype=dtype))


def _sum_axes(x, axes, dtype=None):
    """``x.sum(axis=axes)`` (axes normalized, distinct): the summed axes moved last and
    merged, then ``_sum_last``."""
    axes = sorted(axes)
    if not axes:
        return x if dtype is None else x.astype(dtype)
    keep = [i for i in range(x.ndim) if i not in axes]
    t = x.transpose(keep + axes)
    t = _reshape(t, [x.shape[i] for i in keep] + [_prod(x.shape[i] for i in axes)])
    return _sum_last(t, dtype)


def _normalize_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise numpy.exceptions.AxisError(axis, ndim)
    return axis % ndim


# --- products --------------------------------------------------------------------------


def _dot_nd(a, b, out=None):
    """NumPy's ``dot`` for operands of more than two dimensions:
    ``dot(a, b)[i..., r..., j] = sum_p a[i..., p] * b[r..., p, j]``, computed as the
    batched product ``a2 @ b3[r]`` written through a transposed view of the result."""
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return _gpupy.dot(a, b, out)
    if b.ndim == 1 or a.ndim == 1:
        if a.shape[-1] != b.shape[-1 if b.ndim == 1 else -2]:
            _not_aligned(a, b, a.ndim - 1, max(b.ndim - 2, 0))
        return _matmul_out_exact(a, b, out)
    k = a.shape[-1]
    if b.shape[-2] != k:
        _not_aligned(a, b, a.ndim - 1, b.ndim - 2)
    m, r, n = _prod(a.shape[:-1]), _prod(b.shape[:-2]), b.shape[-1]
    dtype = _result_type(a, b)
    shape = a.shape[:-1] + b.shape[:-2] + (n,)
    res = _exact_out(out, shape, dtype)
    view = _reshape(res, (m, r, n)).transpose(1, 0, 2)
    _gpupy.matmul(_reshape(a, (m, k)), _reshape(b, (r, k, n)), out=view)
    return res


def _not_aligned(a, b, da, db):
    sa = "(" + ",".join(map(str, a.shape)) + ("," if a.ndim == 1 else "") + ")"
    sb = "(" + ",".join(map(str, b.shape)) + ("," if b.ndim == 1 else "") + ")"
    raise ValueError(f"shapes {sa} and {sb} not aligned: {a.shape[da]} (dim {da}) != {b.shape[db]} (dim {db})")


def _exact_out(out, shape, dtype):
    """``out`` when it is what NumPy's ``dot`` accepts (the result's shape and dtype,
    C-contiguous), a new array when ``out`` is None."""
    if out is None:
        return empty(shape, dtype=dtype)
    if tuple(out.shape) != tuple(shape) or out.dtype != dtype or not out.flags.c_contiguous:
        raise ValueError(
            "output array is not acceptable (must have the right datatype, number of dimensions, and be a C-Array)"
        )
    return out


def _matmul_out_exact(a, b, out):
    if out is None:
        return _gpupy.matmul(a, b)
    r = _gpupy.matmul(a, b)
    _exact_out(out, r.shape, r.dtype)
    return _gpupy.matmul(a, b, out=out)


def dot(a, b, out=None):
    """NumPy's ``dot``: a product for 2-D operands, the inner product of vectors, a sum
    over the last axis of ``a`` and the second-to-last of ``b`` for N-d ones."""
    return _gpupy.dot(_arr(a), _arr(b), out)


def vdot(a, b, /):
    """``sum(conj(a.ravel()) * b.ravel())``: a 0-d array."""
    a, b = _arr(a), _arr(b)
    if a.size != b.size:
        raise ValueError("cannot reshape array of size {} into shape ({},)".format(b.size, a.size))
    x, y = a.ravel(), b.ravel()
    if x.dtype.kind == "c":
        x = _gpupy.conjugate(x)
    return _gpupy.matmul(x, y)


def inner(a, b, /):
    """Sum over the last axes: ``inner(a, b)[i..., j...] = sum_p a[i..., p] * b[j..., p]``."""
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return _gpupy.multiply(a, b)
    k = a.shape[-1]
    if b.shape[-1] != k:
        _not_aligned(a, b, a.ndim - 1, b.ndim - 1)
    m, n = _prod(a.shape[:-1]), _prod(b.shape[:-1])
    c = _gpupy.matmul(_reshape(a, (m, k)), _reshape(b, (n, k)).T)
    return _reshape(c, a.shape[:-1] + b.shape[:-1])


def outer(a, b, out=None):
    """``outer(a, b)[i, j] = a.ravel()[i] * b.ravel()[j]``: one broadcast multiply."""
    a, b = _arr(a), _arr(b)
    return _gpupy.multiply(a.ravel()[:, None], b.ravel()[None, :], out=out)


def tensordot(a, b, axes=2):
    """NumPy's ``tensordot``: the summed axes of each operand moved together, both
    reshaped to matrices (a view when the axes merge), one matmul."""
    a, b = _arr(a), _arr(b)
    try:
        iter(axes)
    except TypeError:
        n = operator.index(axes)
        if n < 0:
            raise ValueError("negative axes are not supported") from None
        axes_a, axes_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, int) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, int) else list(axes_b)
    if len(axes_a) != len(axes_b):
        raise ValueError("shape-mismatch for sum")
    axes_a = [_normalize_axis(x, a.ndim) for x in axes_a]
    axes_b = [_normalize_axis(x, b.ndim) for x in axes_b]
    for x, y in zip(axes_a, axes_b):
        if a.shape[x] != b.shape[y]:
            raise ValueError("shape-mismatch for sum")
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    k = _prod(a.shape[i] for i in axes_a)
    m = _prod(a.shape[i] for i in free_a)
    n = _prod(b.shape[i] for i in free_b)
    at = _reshape(a.transpose(free_a + axes_a), (m, k))
    bt = _reshape(b.transpose(axes_b + free_b), (k, n))
    c = _gpupy.matmul(at, bt)
    return _reshape(c, [a.shape[i] for i in free_a] + [b.shape[i] for i in free_b])


def kron(a, b):
    """Kronecker product: ``a`` and ``b`` reshaped so that their axes interleave, one
    broadcast multiply, then the pairs of axes merged."""
    a, b = _arr(a), _arr(b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + tuple(a.shape)
    sb = (1,) * (nd - b.ndim) + tuple(b.shape)
    a2 = _reshape(a, [d for x in sa for d in (x, 1)])
    b2 = _reshape(b, [d for x in sb for d in (1, x)])
    c = _gpupy.multiply(a2, b2)
    return _reshape(c, [x * y for x, y in zip(sa, sb)])


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along a diagonal: the diagonal view, then ``_sum_last`` in NumPy's sum dtype."""
    a = _arr(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    d = a.diagonal(offset, axis1, axis2)
    dt = _sum_dtype(a.dtype) if dtype is None else numpy.dtype(dtype)
    r = _sum_last(d, dt)
    if out is not None:
        copyto(out, r)
        return out
    return r


def vecdot(x1, x2, /, *, axis=-1):
    """``sum(conj(x1) * x2, axis=axis)`` with broadcasting (NumPy's gufunc rule: ``axis``
    indexes each operand's own axes): the axis moved last in both, then a batched
    ``(..., 1, k) @ (..., k, 1)``."""
    x1, x2 = _arr(x1), _arr(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot: Input operand does not have enough dimensions (has 0, gufunc core with signature (n),(n)->() requires 1)")
    a = _move_last(x1, _normalize_axis(axis, x1.ndim))
    b = _move_last(x2, _normalize_axis(axis, x2.ndim))
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(
            f"vecdot: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n),(n)->() (size {b.shape[-1]} is different from {a.shape[-1]})"
        )
    if a.dtype.kind == "c":
        a = _gpupy.conjugate(a)
    r = _gpupy.matmul(a[..., None, :], b[..., :, None])
    return r[..., 0, 0]


def _move_last(x, axis):
    order = [i for i in range(x.ndim) if i != axis] + [axis]
    return x.transpose(order)


# --- einsum ----------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse_einsum(subscripts, operands):
    """Label lists per operand and for the output, with ``...`` expanded to labels
    (chosen from those unused) right-aligned per operand."""
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        ins, out = subscripts.split("->")
        explicit = True
    else:
        ins, out, explicit = subscripts, None, False
    terms = ins.split(",")
    if len(terms) != len(operands):
        # NumPy's own words, which name the other side of the mismatch: too few
        # operands is "more operands provided ...", too many "fewer operands ...".
        raise ValueError("fewer operands provided to einstein sum function than specified in the subscripts string" if len(operands) > len(terms) else "more operands provided to einstein sum function than specified in the subscripts string")
    used = set(c for c in subscripts if c.isalpha())
    free = [c for c in _LETTERS if c not in used]
    ell_nd = 0
    for t, op in zip(terms, operands):
        if "..." in t:
            ell_nd = max(ell_nd, op.ndim - (len(t) - 3))
    ell = free[:ell_nd]
    labels = []
    for i, (t, op) in enumerate(zip(terms, operands)):
        for c in t.replace("...", ""):
            if not c.isalpha():
                raise ValueError(f"invalid subscript '{c}' in einstein sum subscripts string, subscripts must be letters")
        if "..." in t:
            pre, post = t.split("...")
            n = op.ndim - len(pre) - len(post)
            if n < 0:
                raise ValueError(f"einstein sum subscripts string contains too many subscripts for operand {i}")
            lab = list(pre) + ell[ell_nd - n :] + list(post)
        else:
            lab = list(t)
        if len(lab) != op.ndim:
            raise ValueError(
                f"operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to broadcast the extra dimensions."
                if op.ndim > len(lab)
                else f"einstein sum subscripts string contains too many subscripts for operand {i}"
            )
        labels.append(lab)
    if explicit:
        if "..." in out:
            pre, post = out.split("...")
            out_labels = list(pre) + ell + list(post)
        else:
            out_labels = list(out)
        all_in = set(c for lab in labels for c in lab)
        for c in out_labels:
            if c not in all_in:
                raise ValueError(f"einstein sum subscripts string included output subscript '{c}' which never appeared in an input")
        if len(set(out_labels)) != len(out_labels):
            raise ValueError("einstein sum subscripts string includes output subscript multiple times")
    else:
        counts = {}
        for lab in labels:
            for c in lab:
                counts[c] = counts.get(c, 0) + 1
        out_labels = ell + sorted(c for c, k in counts.items() if k == 1 and c not in ell)
    return labels, out_labels


def _einsum_diagonals(x, lab):
    """Repeated labels within one operand (``ii``): take the diagonal, which moves the
    pair to one last axis."""
    while True:
        seen = {}
        pair = None
        for i, c in enumerate(lab):
            if c in seen:
                pair = (seen[c], i)
                break
            seen[c] = i
        if pair is None:
            return x, lab
        i, j = pair
        if x.shape[i] != x.shape[j]:
            raise ValueError(f"dimensions in operand for collapsing index '{lab[i]}' don't match ({x.shape[i]} != {x.shape[j]})")
        c = lab[i]
        x = x.diagonal(0, i, j)
        lab = [l for k, l in enumerate(lab) if k not in (i, j)] + [c]


def _einsum_pair(a, la, b, lb, keep):
    """Contract two operands: labels in both and in ``keep`` are batch axes, labels in
    both and not kept are summed by the product, the rest are free rows/columns."""
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    left = [c for c in la if c not in lb]
    right = [c for c in lb if c not in la]
    size = {}
    for x, lab in ((a, la), (b, lb)):
        for c, n in zip(lab, x.shape):
            if c in size and size[c] != n and 1 not in (size[c], n):
                raise ValueError(f"operands could not be broadcast together with remapped shapes (label '{c}': {size[c]} and {n})")
            size[c] = max(size.get(c, 1), n)
    at = a.transpose([la.index(c) for c in batch + left + summed])
    bt = b.transpose([lb.index(c) for c in batch + summed + right])
    nb = len(batch)
    k = _prod(size[c] for c in summed)
    at = _reshape(at, at.shape[:nb] + (_prod(at.shape[nb : nb + len(left)]), k))
    bt = _reshape(bt, bt.shape[:nb] + (k, _prod(bt.shape[nb + len(summed) :])))
    c = _gpupy.matmul(at, bt)
    shape = c.shape[:nb] + tuple(size[x] for x in left) + tuple(size[x] for x in right)
    return _reshape(c, shape), batch + left + right


_EINSUM_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _einsum_sublist(sub):
    """One sublist (integers 0..51, ``...``) as subscript letters, as NumPy reads it."""
    text = []
    for s in sub:
        if s is Ellipsis:
            text.append("...")
            continue
        try:
            i = operator.index(s)
        except TypeError:
            raise TypeError("each subscript must be either an integer or an ellipsis") from None
        if not 0 <= i < len(_EINSUM_LETTERS):
            raise ValueError("subscript is not within the valid range [0, 52)")
        text.append(_EINSUM_LETTERS[i])
    return "".join(text)


def _einsum_sublists(args):
    """``(op0, sublist0, op1, sublist1, ..., [sublistout])`` as ``(subscripts, op0, op1,
    ...)``."""
    args = list(args)
    ops, subs = args[0::2], args[1::2]
    out = None
    if len(ops) > len(subs):  # an odd count: the last item is the output sublist
        out = ops.pop()
    subscripts = ",".join(_einsum_sublist(s) for s in subs)
    if out is not None:
        subscripts += "->" + _einsum_sublist(out)
    return (subscripts, *ops)


def einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """NumPy's ``einsum`` for contractions: each operand's repeated labels become a
    diagonal, labels that appear in one operand only and not in the output are summed,
    and operands are contracted left to right as batched matmuls (transposes and
    reshapes around one GEMM each). The sublist form ``einsum(a, [0, 1], b, [1, 2],
    [0, 2])`` is translated to the subscripts string."""
    if operands and not isinstance(operands[0], str):
        operands = _einsum_sublists(operands)
    if not operands:
        raise ValueError("No input operands")
    subscripts, arrays = operands[0], [_arr(x) for x in operands[1:]]
    if not arrays:
        raise ValueError("No input operands")
    labels, out_labels = _parse_einsum(subscripts, arrays)
    rdt = numpy.result_type(*[x.dtype for x in arrays]) if dtype is None else numpy.dtype(dtype)
    if dtype is not None:
        for x in arrays:
            if not numpy.can_cast(x.dtype, rdt, casting):
                raise TypeError(f"Cannot cast array data from dtype('{x.dtype}') to dtype('{rdt}') according to the rule '{casting}'")
    xs = [x.astype(rdt) if x.dtype != rdt else x for x in arrays]
    terms = []
    for x, lab in zip(xs, labels):
        x, lab = _einsum_diagonals(x, lab)
        terms.append((x, lab))
    # Sum each label that no other operand and not the output has.
    reduced = []
    for i, (x, lab) in enumerate(terms):
        others = set(out_labels)
        for j, (_, l2) in enumerate(terms):
            if j != i:
                others.update(l2)
        axes = [k for k, c in enumerate(lab) if c not in others]
        if axes:
            x = _sum_axes(x, axes)
            lab = [c for k, c in enumerate(lab) if k not in axes]
        reduced.append((x, lab))
    x, lab = reduced[0]
    for i in range(1, len(reduced)):
        y, ly = reduced[i]
        keep = set(out_labels)
        for _, l2 in reduced[i + 1 :]:
            keep.update(l2)
        x, lab = _einsum_pair(x, lab, y, ly, keep)
    # Labels of the last term that the output drops (a single operand's sums).
    axes = [k for k, c in enumerate(lab) if c not in out_labels]
    if axes:
        x = _sum_axes(x, axes)
        lab = [c for k, c in enumerate(lab) if k not in axes]
    r = x.transpose([lab.index(c) for c in out_labels])
    if out is not None:
        copyto(out, r, casting=casting)
        return out
    return copy(r) if r.ndim else r


# --- norms -----------------------------------------------------------------------------


def _float_of(x):
    """NumPy's norms compute in the array's inexact type (float64 for integers)."""
    if x.dtype.kind not in "fc":
        return x.astype(numpy.float64)
    return x


def _real_dtype(dtype):
    return numpy.empty(0, dtype).real.dtype


def _abs2_sum(x, axes):
    """``sum(|x|^2)`` over ``axes`` (None: all) as ``conj(x) . x`` products."""
    if axes is None:
        v = x.ravel()
        c = _gpupy.conjugate(v) if v.dtype.kind == "c" else v
        r = _gpupy.matmul(c, v)
    else:
        keep = [i for i in range(x.ndim) if i not in axes]
        t = x.transpose(keep + sorted(axes))
        t = _reshape(t, [x.shape[i] for i in keep] + [_prod(x.shape[i] for i in axes)])
        c = _gpupy.conjugate(t) if t.dtype.kind == "c" else t
        r = _gpupy.matmul(c[..., None, :], t[..., :, None])[..., 0, 0]
    return r.real if r.dtype.kind == "c" else r


def _reduce(name, x, axis):
    return getattr(_reduction, name)(x, axis=axis)


def _keep(r, x_ndim, axes, keepdims):
    if not keepdims:
        return r
    shape = list(r.shape)
    for a in sorted(axes):
        shape.insert(a, 1)
    return _reshape(r, shape)


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's ``linalg.norm``: vector norms (``ord`` None/2, 1, inf, -inf, 0, any p) over
    one axis or the whole vector, matrix norms ('fro', 'nuc', 1, -1, 2, -2, inf, -inf)
    over two axes ('nuc', 2 and -2 from the singular values, ``_singular_values``)."""
    x = _float_of(_arr(x))
    nd = x.ndim
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            r = _gpupy.sqrt(_abs2_sum(x, None))
            if keepdims:
                r = _reshape(r, (1,) * nd)
            return r
        axes = tuple(range(nd))
    elif isinstance(axis, tuple):
        axes = tuple(_normalize_axis(a, nd) for a in axis)
    else:
        axes = (_normalize_axis(axis, nd),)
    if len(axes) == 1:
        r = _vector_norm(x, axes[0], ord)
    elif len(axes) == 2:
        if axes[0] == axes[1]:
            raise ValueError("Duplicate axes given.")
        r = _matrix_norm(x, axes, ord)
    else:
        raise ValueError("Improper number of dimensions to norm.")
    return _keep(r, nd, axes, keepdims)


def _vector_norm(x, axis, ord):
    absx = _gpupy.absolute(x)
    if ord is None or ord == 2:
        return _gpupy.sqrt(_abs2_sum(x, (axis,)))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == numpy.inf:
        return _reduce("max", absx, axis)
    if ord == -numpy.inf:
        return _reduce("min", absx, axis)
    if ord == 0:
        nz = _gpupy.not_equal(x, 0).astype(_real_dtype(x.dtype))
        return _sum_axes(nz, [axis])
    if ord == 1:
        return _sum_axes(absx, [axis])
    p = float(ord)
    s = _sum_axes(_gpupy.power(absx, p), [axis])
    return _gpupy.power(s, 1.0 / p)


def _matrix_norm(x, axes, ord):
    row, col = axes
    if ord in ("fro", "f", None):
        return _gpupy.sqrt(_abs2_sum(x, axes))
    if ord in ("nuc", 2, -2):
        keep = [i for i in range(x.ndim) if i not in axes]
        x = x.transpose(keep + [row, col])
        if ord == "nuc":  # summed in the working precision and rounded once
            s = _singular_values(x, rounded=False)
            return _reduce("sum", s, -1).astype(_singular_dtype(x.dtype), copy=False)
        s = _singular_values(x)
        if ord == 2 and s.shape[-1] == 0:  # NumPy: 0 for an empty matrix, -2 raises
            return zeros(s.shape[:-1], dtype=s.dtype)
        return _reduce("max" if ord == 2 else "min", s, -1)
    absx = _gpupy.absolute(x)
    if ord in (1, -1):
        s = _sum_axes(absx, [row])  # column sums; col shifts down if after row
        c = col - 1 if col > row else col
        return _reduce("max" if ord == 1 else "min", s, c)
    if ord in (numpy.inf, -numpy.inf):
        s = _sum_axes(absx, [col])
        r = row - 1 if row > col else row
        return _reduce("max" if ord == numpy.inf else "min", s, r)
    raise ValueError("Invalid norm order for matrices.")


# --- singular values -------------------------------------------------------------------

# Jacobi stops rotating a pair once its inner product is below this fraction of the
# product of its norms. Single-precision inputs compute in double precision (see
# `_singular_values`), so a pair orthogonal to 1e-9 gives singular values accurate far
# beyond float32's; double precision stops at the rounding noise of an m-term dot product.
_SINGLE_TOL = 1e-9


def _singular_dtype(dtype):
    """The real dtype NumPy's ``svd`` returns for ``dtype``."""
    return numpy.dtype(numpy.float32 if dtype in (numpy.float32, numpy.complex64) else numpy.float64)


def _singular_values(x, rounded=True):
    """The singular values of each matrix in the last two axes of ``x``, unsorted, in
    the real dtype NumPy's ``svd`` returns (float32 for float32/complex64, float64 for
    the rest), or in float64 when ``rounded`` is false (a sum of them, the nuclear norm,
    is then rounded once instead of k times).

    Method: one-sided Jacobi (``kernels/src/linalg/``) on a working copy whose rows are
    the matrix's columns (or its rows, for wide matrices: ``A`` and ``A^T`` share
    singular values), in float64/complex128, each matrix scaled by a power of two so its
    largest entry is in [1, 2) (exact, and squared norms can neither overflow nor
    underflow); the singular values are then the norms of the orthogonalized rows.
    As NumPy (LAPACK): a matrix with a NaN raises ``LinAlgError``, one with an infinity
    gets NaN singular values."""
    x = _arr(x)
    if x.dtype == numpy.float16:
        raise TypeError("array type float16 is unsupported in linalg")
    if x.ndim < 2:
        raise numpy.linalg.LinAlgError(
            f"{x.ndim}-dimensional array given. Array must be at least two-dimensional"
        )
    complex_ = x.dtype.kind == "c"
    single = x.dtype in (numpy.float32, numpy.complex64)
    real = _singular_dtype(x.dtype) if rounded else numpy.dtype(numpy.float64)
    r, c = x.shape[-2:]
    batch = x.shape[:-2]
    if min(r, c) == 0 or x.size == 0:
        return empty(batch + (min(r, c),), dtype=real)
    work = numpy.complex128 if complex_ else numpy.float64
    w = x.swapaxes(-1, -2) if r >= c else x
    w = w.astype(work)  # a new C-contiguous array: Jacobi works in place
    n, m = w.shape[-2:]
    amax = _reduction.max(_gpupy.absolute(w), axis=(-2, -1), keepdims=True)
    finite = _gpupy.isfinite(amax)
    all_finite = bool(_reduction.all(finite))
    if not all_finite:
        if bool(_reduction.any(_gpupy.isnan(amax))):
            raise numpy.linalg.LinAlgError("SVD did not converge")
        zero = full((), 0, dtype=work)
        w = _where(finite, w, zero)
        amax = _where(finite, amax, full((), 0.0))
    one = full((), 1.0)
    scale = _where(_gpupy.greater(amax, 0), _gpupy.exp2(_gpupy.floor(_gpupy.log2(amax))), one)
    _gpupy.divide(w, scale, out=w)
    tol = _SINGLE_TOL if single else m * numpy.finfo(numpy.float64).eps
    if not _gpupy._svd_jacobi(w, tol):
        raise numpy.linalg.LinAlgError("SVD did not converge")
    s = _gpupy.multiply(_gpupy.sqrt(_abs2_sum(w, (w.ndim - 1,))), scale[..., 0])
    if not all_finite:
        s = _where(finite[..., 0], s, full((), numpy.nan))
    return s.astype(real, copy=False)


def svdvals(x, /):
    """NumPy's ``linalg.svdvals``: the singular values of each matrix in the last two
    axes, in descending order."""
    s = _singular_values(_float_of(_arr(x)))
    return sort(s, axis=-1)[..., ::-1]


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """NumPy's ``linalg.svd`` with ``compute_uv=False``: the singular values in
    descending order (``full_matrices`` does not apply; ``hermitian`` gives the same
    values). gpupy does not compute the singular vectors."""
    if compute_uv:
        raise NotImplementedError(
            "gpupy.linalg.svd computes singular values only: pass compute_uv=False "
            "(or call gpupy.linalg.svdvals), or use numpy.linalg.svd on gpupy.asnumpy(a) "
            "for U and Vh"
        )
    return svdvals(a)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The array API's ``linalg.vector_norm``: ``axis=None`` flattens."""
    x = _arr(x)
    if axis is None:
        r = norm(x.ravel(), ord=ord, axis=0)
        return _reshape(r, (1,) * x.ndim) if keepdims else r
    if isinstance(axis, tuple) and len(axis) != 1:
        axes = tuple(_normalize_axis(a, x.ndim) for a in axis)
        keep = [i for i in range(x.ndim) if i not in axes]
        t = _reshape(x.transpose(keep + list(axes)), [x.shape[i] for i in keep] + [-1])
        r = norm(t, ord=ord, axis=-1)
        return _keep(r, x.ndim, axes, keepdims)
    return norm(x, ord=ord, axis=axis, keepdims=keepdims)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The array API's ``linalg.matrix_norm`` over the last two axes."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def matrix_transpose(x, /):
    """Swaps the last two axes (a view)."""
    x = _arr(x)
    if x.ndim < 2:
        raise ValueError("matrix_transpose requires at least 2 dimensions")
    return swapaxes(x, -1, -2)


def linalg_matmul(x1, x2, /):
    """``linalg.matmul``: ``matmul`` without ``out``."""
    return _gpupy.matmul(_arr(x1), _arr(x2))


_methods.attach({"trace": trace})

__all__ = ["dot", "vdot", "inner", "outer", "tensordot", "kron", "trace", "einsum", "vecdot"]
