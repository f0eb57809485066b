"""Building sparse matrices (``scipy.sparse._construct``): identities, diagonals, random
matrices, Kronecker products and sums, stacking and block matrices.

The values are made or gathered on the GPU; shapes, offsets and block layouts are
host-side bookkeeping. Where SciPy returns a BSR matrix (``kron`` of a fairly dense
``B`` with ``format=None``), gpupy returns COO (it has no BSR format): the same values.
"""

import math
import numbers
from warnings import warn

import numpy

import gpupy as gp
from gpupyx.scipy.sparse import _convert
from gpupyx.scipy.sparse._base import issparse, sparray, spmatrix
from gpupyx.scipy.sparse._coo import coo_array, coo_matrix
from gpupyx.scipy.sparse._csc import csc_array, csc_matrix
from gpupyx.scipy.sparse._csr import csr_array, csr_matrix
from gpupyx.scipy.sparse._dia import dia_array, dia_matrix
from gpupyx.scipy.sparse._sputils import (
    as_device, getdtype, index_dtype_for, isscalarlike, upcast, values_of,
)

__all__ = ["spdiags", "eye", "identity", "kron", "kronsum", "hstack", "vstack", "bmat", "rand",
           "random", "diags", "block_diag", "diags_array", "block_array", "eye_array",
           "random_array"]

_as = _convert.as_dtype


class _NoValueType:
    def __repr__(self):
        return "<no value>"


_NoValue = _NoValueType()

_SPARRAY_SWITCH = (
    "`{name}` is switching to the sparse array interface.\n\n"
    "        For the case where input arrays are numpy arrays, this function is\n"
    "        switching to returning a sparse array instead of sparse matrix.\n"
    "        Recover the sparse matrix return value by making one input a sparse matrix.\n"
    "        For example, {example}.\n"
    "        Avoid this message for sparse array output by using {array_example}.\n"
    "        For more information, see the spmatrix to sparray migration guide\n"
    "        https://docs.scipy.org/doc/scipy/reference/sparse.migration_to_sparray.html\n\n"
    "        This function will be changed no earlier than v1.20.\n        ")


def _warn_dense_inputs(name, example, array_example):
    warn(_SPARRAY_SWITCH.format(name=name, example=example, array_example=array_example),
         DeprecationWarning, stacklevel=3)


def _host_1d(x):
    """A diagonal as a 1-d array (device arrays stay on the device)."""
    if isinstance(x, gp.ndarray):
        return gp.atleast_1d(x)
    return numpy.atleast_1d(numpy.asarray(x))


def spdiags(data, diags, m=None, n=None, format=None):
    """A sparse matrix (DIA by default) with the rows of `data` on the diagonals `diags`
    (SciPy's ``spdiags``)."""
    if m is None and n is None:
        m = n = len(data[0])
    elif n is None:
        m, n = m
    return dia_matrix((data, diags), shape=(m, n)).asformat(format)


def diags_array(diagonals, /, *, offsets=0, shape=None, format=None, dtype=_NoValue):
    """A sparse array from diagonals (SciPy's ``diags_array``)."""
    if isscalarlike(offsets):
        if len(diagonals) == 0 or isscalarlike(diagonals[0]):
            diagonals = [_host_1d(diagonals)]
        else:
            raise ValueError("Different number of diagonals and offsets.")
    else:
        diagonals = [_host_1d(d) for d in diagonals]
    offsets = numpy.atleast_1d(numpy.asarray(offsets))
    if len(diagonals) != len(offsets):
        raise ValueError("Different number of diagonals and offsets.")
    if shape is None:
        m = len(diagonals[0]) + abs(int(offsets[0]))
        shape = (m, m)
    probes = [numpy.empty(0, dtype=d.dtype) for d in diagonals]
    if dtype is None:
        dtype = numpy.result_type(*probes)
    elif dtype is _NoValue:
        dtype = numpy.dtype(numpy.common_type(*probes))
        future_dtype = numpy.result_type(*probes)
        if dtype != future_dtype:
            warn(f"Input has data type {future_dtype}, but the output has been cast "
                 f"to {dtype}.  In the future, the output data type will match the "
                 "input. To avoid this warning, set the `dtype` parameter to `None` "
                 "to have the output dtype match the input, or set it to the "
                 "desired output data type.", FutureWarning, stacklevel=2)
    dtype = getdtype(dtype)
    m, n = shape
    M = max([min(m + int(offset), n - int(offset)) + max(0, int(offset)) for offset in offsets])
    M = max(0, M)
    data_arr = gp.zeros((len(offsets), M), dtype=dtype)
    K = min(m, n)
    for j, diagonal in enumerate(diagonals):
        offset = int(offsets[j])
        k = max(0, offset)
        length = min(m + offset, n - offset, K)
        if length < 0:
            raise ValueError(f"Offset {offset} (index {j}) out of bounds")
        if len(diagonal) != length and len(diagonal) != 1:
            if len(diagonal) < length:
                raise ValueError(f"Diagonal length (index {j}: {len(diagonal)} at"
                                 f" offset {offset}) does not agree with array size ({m}, {n}).")
        part = diagonal[..., :length]
        data_arr[j, k:k + length] = as_device(part, dtype)
    return dia_array((data_arr, offsets), shape=(m, n)).asformat(format)


def diags(diagonals, offsets=0, shape=None, format=None, dtype=_NoValue):
    """A sparse matrix from diagonals (SciPy's ``diags``)."""
    A = diags_array(diagonals, offsets=offsets, shape=shape, dtype=dtype)
    return dia_matrix(A).asformat(format)


def identity(n, dtype="d", format=None):
    """The n x n identity matrix (DIA by default)."""
    return eye(n, n, dtype=dtype, format=format)


def eye_array(m, n=None, *, k=0, dtype=float, format=None):
    """A sparse array with ones on the `k`-th diagonal (DIA by default)."""
    return _eye(m, n, k, dtype, format)


def _eye(m, n, k, dtype, format, as_sparray=True):
    csr_sparse, csc_sparse, coo_sparse = ((csr_array, csc_array, coo_array) if as_sparray
                                          else (csr_matrix, csc_matrix, coo_matrix))
    if n is None:
        n = m
    m, n = int(m), int(n)
    dtype = getdtype(dtype)
    if m == n and k == 0:
        if format in ("csr", "csc"):
            idx_dtype = index_dtype_for(n)
            indptr = gp.arange(n + 1, dtype=idx_dtype)
            indices = gp.arange(n, dtype=idx_dtype)
            data = gp.ones(n, dtype=dtype)
            cls = csr_sparse if format == "csr" else csc_sparse
            return cls._new(data, indices, indptr, (n, n), canonical=True)
        if format == "coo":
            idx_dtype = index_dtype_for(n)
            row = gp.arange(n, dtype=idx_dtype)
            return coo_sparse._new(gp.ones(n, dtype=dtype), (row, row.copy()), (n, n), canonical=True)
    length = max(0, min(m + k, n))
    data = gp.ones((1, length), dtype=dtype)
    A = dia_array((data, [k]), shape=(m, n))
    if not as_sparray:
        A = dia_matrix(A)
    return A.asformat(format)


def eye(m, n=None, k=0, dtype=float, format=None):
    """A sparse matrix with ones on the `k`-th diagonal (DIA by default)."""
    return _eye(m, n, k, dtype, format, False)


def _classes(*mats, name, example, array_example):
    """The COO class of a result: array when any input is a sparse array, matrix when
    any is a sparse matrix (or none is sparse: SciPy's deprecated default)."""
    if any(isinstance(a, sparray) for a in mats):
        return coo_array
    if any(isinstance(a, spmatrix) for a in mats):
        return coo_matrix
    _warn_dense_inputs(name, example, array_example)
    return coo_matrix


def kron(A, B, format=None):
    """The Kronecker product of `A` and `B` (COO unless `format`)."""
    coo_sparse = _classes(A, B, name="kron", example="kron(coo_matrix(A), B)",
                          array_example="kron(coo_array(A), B)")
    A = coo_sparse(A)
    B = coo_sparse(B)
    output_shape = (A.shape[0] * B.shape[0], A.shape[1] * B.shape[1])
    if A.nnz == 0 or B.nnz == 0:
        return coo_sparse(output_shape).asformat(format)
    idx_dtype = index_dtype_for(max(output_shape), A.nnz * B.nnz)
    arow, acol = (c.astype(numpy.int64) for c in A.coords)
    brow, bcol = (c.astype(numpy.int64) for c in B.coords)
    row = (arow[:, None] * B.shape[0] + brow[None, :]).ravel()
    col = (acol[:, None] * B.shape[1] + bcol[None, :]).ravel()
    data = (A.data[:, None] * B.data[None, :]).ravel()
    out = coo_sparse._new(values_of(data), (_as(row, idx_dtype), _as(col, idx_dtype)), output_shape)
    return out.asformat(format)


def kronsum(A, B, format=None):
    """The Kronecker sum ``kron(I_n, A) + kron(B, I_m)`` of square `A` (m x m) and `B`
    (n x n)."""
    coo_sparse = _classes(A, B, name="kronsum", example="kronsum(coo_matrix(A), B)",
                          array_example="kronsum(coo_array(A), B)")
    identity_sparse = eye_array if coo_sparse is coo_array else identity
    A = coo_sparse(A)
    B = coo_sparse(B)
    if A.ndim != 2:
        raise ValueError(f"kronsum requires 2D inputs. `A` is {A.ndim}D.")
    if B.ndim != 2:
        raise ValueError(f"kronsum requires 2D inputs. `B` is {B.ndim}D.")
    if A.shape[0] != A.shape[1]:
        raise ValueError("A is not square")
    if B.shape[0] != B.shape[1]:
        raise ValueError("B is not square")
    dtype = upcast(A.dtype, B.dtype)
    I_n = identity_sparse(A.shape[0], dtype=dtype)
    I_m = identity_sparse(B.shape[0], dtype=dtype)
    L = kron(I_m, A, format="coo")
    R = kron(B, I_n, format="coo")
    return (L + R).asformat(format)


def _object_blocks(blocks):
    """`blocks` as an object array of blocks, 1-d (a sequence) or 2-d (a grid of
    sequences), built element by element so that no block is unpacked."""
    if isinstance(blocks, numpy.ndarray) and blocks.dtype == object:
        return blocks
    rows = list(blocks)
    if rows and isinstance(rows[0], (list, tuple)):
        n = len(rows[0])
        grid = numpy.empty((len(rows), n), dtype=object)
        for i, r in enumerate(rows):
            if not isinstance(r, (list, tuple)) or len(r) != n:
                raise ValueError("blocks must be 2-D")
            for j, b in enumerate(r):
                grid[i, j] = b
        return grid
    flat = numpy.empty(len(rows), dtype=object)
    for i, b in enumerate(rows):
        flat[i] = b
    return flat


def hstack(blocks, format=None, dtype=None):
    """Sparse matrices stacked side by side."""
    blocks = _object_blocks(blocks)
    matrix = not any(isinstance(b, sparray) for b in blocks.flat)
    return _block(_grid([list(blocks.flat)]), format, dtype, return_spmatrix=matrix)


def vstack(blocks, format=None, dtype=None):
    """Sparse matrices stacked on top of each other."""
    blocks = _object_blocks(blocks)
    matrix = not any(isinstance(b, sparray) for b in blocks.flat)
    return _block(_grid([[b] for b in blocks.flat]), format, dtype, return_spmatrix=matrix)


def bmat(blocks, format=None, dtype=None):
    """A sparse matrix from a 2-d grid of blocks (None: a zero block)."""
    blocks = _object_blocks(blocks)
    matrix = not any(isinstance(b, sparray) for b in blocks.flat)
    return _block(blocks, format, dtype, return_spmatrix=matrix)


def block_array(blocks, *, format=None, dtype=None):
    """A sparse array from a 2-d grid of blocks (None: a zero block)."""
    return _block(_object_blocks(blocks), format, dtype)


def _grid(rows):
    """A 2-d object array of blocks (numpy.asarray would unpack dense blocks)."""
    g = numpy.empty((len(rows), len(rows[0]) if rows else 0), dtype=object)
    for i, r in enumerate(rows):
        for j, b in enumerate(r):
            g[i, j] = b
    return g


def _block(blocks, format, dtype, return_spmatrix=False):
    if blocks.ndim != 2:
        raise ValueError("blocks must be 2-D")
    M, N = blocks.shape
    if (format in (None, "csr") and N == 1 and M > 0
            and all(issparse(b) and b.format == "csr" for b in blocks.flat)):
        A = _compressed_sparse_stack(blocks[:, 0], 0, return_spmatrix)
        return A.astype(dtype, copy=False) if dtype is not None else A
    if (format in (None, "csc") and M == 1 and N > 0
            and all(issparse(b) and b.format == "csc" for b in blocks.flat)):
        A = _compressed_sparse_stack(blocks[0, :], 1, return_spmatrix)
        return A.astype(dtype, copy=False) if dtype is not None else A
    block_mask = numpy.zeros(blocks.shape, dtype=bool)
    brow_lengths = numpy.zeros(M, dtype=numpy.int64)
    bcol_lengths = numpy.zeros(N, dtype=numpy.int64)
    for i in range(M):
        for j in range(N):
            if blocks[i, j] is not None:
                A = coo_array(blocks[i, j])
                blocks[i, j] = A
                block_mask[i, j] = True
                if brow_lengths[i] == 0:
                    brow_lengths[i] = A._shape_as_2d[0]
                elif brow_lengths[i] != A._shape_as_2d[0]:
                    raise ValueError(f"blocks[{i},:] has incompatible row dimensions. "
                                     f"Got blocks[{i},{j}].shape[0] == {A._shape_as_2d[0]}, "
                                     f"expected {brow_lengths[i]}.")
                if bcol_lengths[j] == 0:
                    bcol_lengths[j] = A._shape_as_2d[1]
                elif bcol_lengths[j] != A._shape_as_2d[1]:
                    raise ValueError(f"blocks[:,{j}] has incompatible column dimensions. "
                                     f"Got blocks[{i},{j}].shape[1] == {A._shape_as_2d[1]}, "
                                     f"expected {bcol_lengths[j]}.")
    present = list(blocks[block_mask])
    if dtype is None:
        dtype = upcast(*[blk.dtype for blk in present]) if present else numpy.dtype(numpy.float64)
    row_offsets = numpy.append(0, numpy.cumsum(brow_lengths))
    col_offsets = numpy.append(0, numpy.cumsum(bcol_lengths))
    shape = (int(row_offsets[-1]), int(col_offsets[-1]))
    nnz = sum(b.nnz for b in present)
    idx_dtype = index_dtype_for(max(shape), nnz)
    rows, cols, datas = [], [], []
    for i, j in zip(*numpy.nonzero(block_mask)):
        B = blocks[i, j]
        rows.append(_as(B.row, idx_dtype) + idx_dtype.type(row_offsets[i]))
        cols.append(_as(B.col, idx_dtype) + idx_dtype.type(col_offsets[j]))
        datas.append(_as(B.data, dtype))
    cls = coo_matrix if return_spmatrix else coo_array
    if not rows:
        return cls(shape, dtype=dtype).asformat(format)
    out = cls._new(gp.concatenate(datas), (gp.concatenate(rows), gp.concatenate(cols)), shape)
    return out.asformat(format)


def _compressed_sparse_stack(blocks, axis, return_spmatrix):
    """CSR blocks stacked along rows (axis 0) or CSC along columns (axis 1): the index
    pointers shifted by the entries before each block, nothing sorted."""
    other_axis = 1 if axis == 0 else 0
    constant_dim = blocks[0].shape[other_axis]
    for b in blocks:
        if b.shape[other_axis] != constant_dim:
            raise ValueError(f"incompatible dimensions for axis {other_axis}")
    sum_dim = sum(b.shape[axis] for b in blocks)
    nnz = sum(b.nnz for b in blocks)
    idx_dtype = index_dtype_for(nnz, constant_dim, sum_dim)
    dtype = upcast(*[b.dtype for b in blocks])
    parts, offset = [], 0
    for b in blocks:
        parts.append(_as(b.indptr[:-1], numpy.int64) + offset)
        offset += b.nnz
    parts.append(gp.asarray([offset], dtype=numpy.int64))
    indptr = _as(gp.concatenate(parts), idx_dtype)
    indices = gp.concatenate([_as(b.indices, idx_dtype) for b in blocks])
    data = gp.concatenate([_as(b.data, dtype) for b in blocks])
    if axis == 0:
        cls = csr_matrix if return_spmatrix else csr_array
        shape = (sum_dim, constant_dim)
    else:
        cls = csc_matrix if return_spmatrix else csc_array
        shape = (constant_dim, sum_dim)
    out = cls._new(data, indices, indptr, shape)
    if all(b.__dict__.get("_has_canonical_format") for b in blocks):
        out.has_canonical_format = True
    return out


def block_diag(mats, format=None, dtype=None):
    """A sparse matrix with `mats` as diagonal blocks."""
    if any(isinstance(a, sparray) for a in mats):
        container = coo_array
    elif any(isinstance(a, spmatrix) for a in mats):
        container = coo_matrix
    else:
        _warn_dense_inputs("block_diag", "block_diag([coo_matrix(A), B])",
                           "block_diag([coo_array(A), B])")
        container = coo_matrix
    rows, cols, datas = [], [], []
    r_idx = c_idx = 0
    for a in mats:
        if isinstance(a, (list, numbers.Number)):
            a = coo_array(numpy.atleast_2d(a))
        if issparse(a):
            a = a.tocoo()
            nrows, ncols = a._shape_as_2d
            rows.append(a.row.astype(numpy.int64) + r_idx)
            cols.append(a.col.astype(numpy.int64) + c_idx)
            datas.append(a.data)
        else:
            a = as_device(a)
            nrows, ncols = a.shape
            flat = gp.arange(nrows * ncols, dtype=numpy.int64)
            rows.append(flat // max(ncols, 1) + r_idx)
            cols.append(flat % max(ncols, 1) + c_idx)
            datas.append(a.ravel())
        r_idx += nrows
        c_idx += ncols
    idx_dtype = index_dtype_for(r_idx, c_idx)
    new_shape = (r_idx, c_idx)
    if not rows:
        return container(new_shape, dtype=dtype).asformat(format)
    data = gp.concatenate([_as(d, upcast(*[x.dtype for x in datas])) for d in datas])
    out = container((data, (_as(gp.concatenate(rows), idx_dtype), _as(gp.concatenate(cols), idx_dtype))),
                    shape=new_shape, dtype=dtype)
    return out.asformat(format)


def _rng_kind(rng):
    """'host' for NumPy's generators (SciPy's exact numbers: drawn with NumPy on the
    host), else a gpupy Generator."""
    if isinstance(rng, (numpy.random.Generator, numpy.random.RandomState)):
        return "host", rng
    if rng is None or isinstance(rng, (int, numpy.integer)):
        return "device", gp.random.default_rng(rng)
    return "device", rng


def _random(shape, density, dtype, rng, data_sampler):
    """(values, coordinates) of a random matrix: ``round(density * m * n)`` distinct
    positions drawn as SciPy draws them (``choice`` without replacement over the
    Fortran-order positions), values from `data_sampler` (uniform by default)."""
    if density < 0 or density > 1:
        raise ValueError("density expected to be 0 <= density <= 1")
    dtype = getdtype(dtype, default=numpy.float64) if dtype is not None else None
    tot_prod = math.prod(shape)
    size = int(round(density * tot_prod))
    kind, gen = _rng_kind(rng)
    xp = numpy if kind == "host" else gp
    if data_sampler is None:
        if dtype is not None and dtype.kind == "c":
            def data_sampler(size):
                return gen.uniform(size=size) + gen.uniform(size=size) * 1j
        else:
            data_sampler = gen.uniform
    idx_dtype = index_dtype_for(max(shape))
    if kind == "host" or tot_prod <= _PERMUTE_MAX or 2 * size > tot_prod:
        raveled = gen.choice(tot_prod, size=size, replace=False)
    else:
        raveled = _distinct_positions(gen, tot_prod, size)
    raveled = xp.asarray(raveled).astype(numpy.int64)
    m = shape[0]
    i, j = raveled % m, raveled // m
    vals = data_sampler(size=size)
    vals = numpy.asarray(vals) if kind == "host" and not isinstance(vals, gp.ndarray) else vals
    vals = as_device(vals)
    vals = vals.astype(dtype if dtype is not None else numpy.float64)
    return vals, (as_device(i).astype(idx_dtype), as_device(j).astype(idx_dtype))


# Populations up to this size are sampled by a permutation (gpupy's ``choice`` without
# replacement); larger ones by drawing with replacement and dropping repeats.
_PERMUTE_MAX = 1 << 24


def _distinct_positions(gen, population, size):
    """`size` distinct positions of ``range(population)`` in random order, for a
    population too large to permute: draws with replacement until `size` distinct
    values are in hand (few rounds while ``size <= population / 2``), then keeps a
    random `size` of them."""
    have = gp.zeros(0, dtype=numpy.int64)
    while have.shape[0] < size:
        need = size - have.shape[0]
        draws = gen.integers(0, population, size=need + need // 8 + 16, dtype=numpy.int64)
        have = gp.unique(gp.concatenate([have, draws]))
    keys = gen.random(have.shape[0])
    return have[gp.argsort(keys)[:size]]


def random_array(shape, *, density=0.01, format="coo", dtype=None, rng=None, data_sampler=None,
                 random_state=None):
    """A sparse array of random values at random positions (SciPy's ``random_array``;
    a NumPy `rng` gives SciPy's numbers, else the draws are gpupy's)."""
    shape = tuple(int(s) for s in shape)
    if len(shape) != 2:
        raise ValueError("gpupyx.scipy.sparse.random_array makes 2-d arrays")
    vals, ind = _random(shape, density, dtype, rng if rng is not None else random_state,
                        data_sampler)
    return coo_array._new(vals, ind, shape).asformat(format)


def random(m, n, density=0.01, format="coo", dtype=None, rng=None, data_rvs=None,
           random_state=None):
    """A sparse matrix of random values at random positions (SciPy's ``random``)."""
    if n is None:
        n = m
    m, n = int(m), int(n)
    sampler = None if data_rvs is None else (lambda size: data_rvs(size))
    vals, ind = _random((m, n), density, dtype, rng if rng is not None else random_state, sampler)
    return coo_matrix._new(vals, ind, (m, n)).asformat(format)


def rand(m, n, density=0.01, format="coo", dtype=None, rng=None, random_state=None):
    """A sparse matrix of uniform random values at random positions."""
    return random(m, n, density, format, dtype, rng if rng is not None else random_state)
