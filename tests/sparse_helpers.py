"""Test data and comparisons for ``gpupyx.scipy.sparse`` (tests/test_sparse_*.py).

Matrices are made on the host as SciPy matrices of the shapes and structures that
matter to the kernels (empty rows and columns, power-law row lengths, duplicate
entries, unsorted indices) and moved to the GPU through the public constructors; every
expected value comes from SciPy (or NumPy) on the host.

Exactness: values drawn with ``integer=True`` are small integers (as floats), so every
sum of products is exact in float32 and float64 whatever the order of the additions,
and results are compared bit for bit. Otherwise ``assert_sum_close`` applies the
bound of a sum of ``k`` terms: ``|got - want| <= c * eps * sum |terms|`` per element.
"""

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.sparse as gsp

sps = pytest.importorskip("scipy.sparse")

VALUE_DTYPES = [np.bool_, np.float32, np.float64, np.complex64, np.complex128]
FLOAT_DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
INDEX_DTYPES = [np.int32, np.int64]
FORMATS = ["csr", "csc", "coo", "dia"]


def dtype_id(dtype):
    return np.dtype(dtype).name


def random_values(rng, n, dtype, integer=False):
    """`n` values of `dtype`: small integers when `integer`, else normal deviates; some
    explicit zeros among booleans."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(n) < 0.8
    if integer:
        v = rng.integers(-8, 9, n).astype(np.float64)
        if dtype.kind == "c":
            v = v + 1j * rng.integers(-8, 9, n)
    else:
        v = rng.standard_normal(n)
        if dtype.kind == "c":
            v = v + 1j * rng.standard_normal(n)
    return v.astype(dtype)


def row_lengths(rng, m, n, density, kind):
    """Entries per row: `uniform` (binomial), `powerlaw` (Zipf, capped at n), or
    `empty_rows` (every third row empty)."""
    if m == 0:
        return np.zeros(0, np.int64)
    if kind == "powerlaw":
        lengths = np.minimum(rng.zipf(1.6, m) - 1, n)
        lengths[rng.integers(0, m)] = n  # one full row
        return lengths.astype(np.int64)
    lengths = rng.binomial(n, density, m).astype(np.int64)
    if kind == "empty_rows":
        lengths[::3] = 0
    return lengths


def random_csr_arrays(rng, shape, density=0.1, dtype=np.float64, *, kind="uniform",
                      duplicates=False, unsorted=False, integer=False, empty_cols=False):
    """(data, indices, indptr) of a random CSR matrix (host arrays, int64 indices) with
    the requested structure. Without `duplicates` every row's columns are distinct;
    with it, a third of the rows repeat some of their entries. Without `unsorted`,
    each row's columns are sorted."""
    m, n = shape
    lengths = row_lengths(rng, m, n, density, kind)
    cols_pool = np.arange(n)
    if empty_cols and n > 2:
        cols_pool = cols_pool[cols_pool % 3 != 1]
    indices, indptr = [], [0]
    for r in range(m):
        k = int(min(lengths[r], cols_pool.size))
        c = rng.choice(cols_pool, size=k, replace=False) if k else np.zeros(0, np.int64)
        if duplicates and k and r % 3 == 0:
            c = np.concatenate([c, rng.choice(c, size=max(1, k // 2))])
        if not unsorted:
            c = np.sort(c)
        indices.append(c)
        indptr.append(indptr[-1] + c.size)
    indices = np.concatenate(indices).astype(np.int64) if m else np.zeros(0, np.int64)
    indptr = np.asarray(indptr, np.int64)
    data = random_values(rng, indices.size, dtype, integer)
    return data, indices, indptr


def scipy_csr(arrays, shape):
    """The SciPy csr_matrix of (data, indices, indptr), as given (not canonicalized), on
    copies: SciPy canonicalizes in place (``abs``, ``sum_duplicates``), which would change
    the arrays other matrices are built from."""
    data, indices, indptr = arrays
    return sps.csr_matrix((data.copy(), indices.copy(), indptr.copy()), shape=shape)


def gpu_matrix(arrays, shape, fmt="csr", *, index_dtype=None, array=False):
    """The gpupy matrix (or array) of CSR host arrays, through the (data, indices,
    indptr) constructor (validated on the GPU), converted to `fmt`; `index_dtype`
    forces the index arrays' dtype."""
    data, indices, indptr = arrays
    cls = gsp.csr_array if array else gsp.csr_matrix
    A = cls((gp.asarray(data), gp.asarray(indices), gp.asarray(indptr)), shape=shape)
    A = A.asformat(fmt)
    if index_dtype is not None:
        force_index_dtype(A, index_dtype)
    return A


def force_index_dtype(A, index_dtype):
    """Sets `A`'s index arrays to `index_dtype` in place (as a user may assign them)."""
    if A.format in ("csr", "csc"):
        A.indices = A.indices.astype(index_dtype)
        A.indptr = A.indptr.astype(index_dtype)
    elif A.format == "coo":
        A.coords = tuple(c.astype(index_dtype) for c in A.coords)
    return A


def dense_of(A):
    """The dense host array of a gpupy or SciPy sparse matrix or of a gpupy array."""
    if isinstance(A, gp.ndarray):
        return A.get()
    if hasattr(A, "get") and not isinstance(A, np.ndarray) and hasattr(A, "tocoo") \
            and type(A).__module__.startswith("gpupyx"):
        A = A.get()
    if hasattr(A, "toarray"):
        return A.toarray()
    return np.asarray(A)


def assert_exact(got, want):
    """Same shape, dtype and values (NaNs in the same places)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def assert_sparse_matches(g, ref, *, fmt=None, exact=True, rtol=None):
    """A gpupy sparse result against SciPy's: class kind (array or matrix), format,
    shape, dtype and dense values."""
    assert gsp.issparse(g), type(g)
    assert isinstance(g, gsp.sparray) == isinstance(ref, sps.sparray), (type(g), type(ref))
    if fmt is not None:
        assert g.format == fmt, (g.format, fmt)
    assert g.shape == ref.shape, (g.shape, ref.shape)
    assert g.dtype == ref.dtype, (g.dtype, ref.dtype)
    got, want = g.get().toarray(), ref.toarray()
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol)


def eps_of(dtype):
    return np.finfo(np.dtype(dtype)).eps


def assert_sum_close(got, want, scale, terms, dtype):
    """Each element of `got` within ``c * eps * scale`` of `want` (computed in float64 /
    complex128 from the same inputs): `scale` is the sum of the absolute terms, `terms`
    their number. A sum of k rounded terms is within ``k u S`` (u = eps / 2) of the
    exact sum in any order; complex products add two roundings per term, so
    ``c = 2 (k + 2)`` covers both sides for real and complex dtypes."""
    got = np.asarray(got)
    assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    bound = 2 * (np.asarray(terms) + 2) * np.finfo(np.dtype(dtype)).eps * np.asarray(scale)
    diff = np.abs(got.astype(np.complex128) - want)
    bad = diff > bound
    assert not bad.any(), f"{bad.sum()} of {got.size} off; worst {diff[bad].max()} (bound {bound[bad].min()})"
