"""gpupyx.scipy.sparse: construction, conversions between formats, canonical form and
SciPy's errors, against scipy.sparse on the host. Values are small integers (exact in
every dtype), so results are compared bit for bit; structures cover empty rows and
columns, power-law row lengths, duplicates, unsorted indices, 0x0, 1xN and Nx1 shapes,
both index dtypes and every value dtype.
"""

import warnings

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.sparse as gsp
from sparse_helpers import (
    FORMATS, INDEX_DTYPES, VALUE_DTYPES, assert_exact, assert_sparse_matches, dtype_id,
    force_index_dtype, gpu_matrix, random_csr_arrays, random_values, scipy_csr, sps,
)

pytestmark = pytest.mark.gpu

SHAPES = [(0, 0), (1, 7), (7, 1), (0, 5), (37, 53)]
KINDS = ["uniform", "powerlaw", "empty_rows"]


def test_cupy_tutorial_snippet():
    """CuPy's tutorial with gpupy for cupy and gpupyx for cupyx: [7, 9, 32]."""
    import gpupy as cp
    import gpupyx

    data = cp.array([1, 2, 3, 4, 5, 6], dtype=cp.float32)
    row = cp.array([0, 0, 1, 2, 2, 2])
    col = cp.array([0, 2, 2, 0, 1, 2])
    m = gpupyx.scipy.sparse.coo_matrix((data, (row, col)), shape=(3, 3)).tocsr()
    y = m.dot(cp.array([1, 2, 3], dtype=cp.float32))
    assert isinstance(y, gp.ndarray) and y.dtype == np.float32
    assert y.get().tolist() == [7, 9, 32]
    assert m.dot([1, 2, 3]).get().tolist() == [7, 9, 32]


@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("fmt", FORMATS)
def test_from_triplets_with_duplicates(rng, dtype, fmt):
    for shape in SHAPES:
        m, n = shape
        k = 3 * (m + n)
        row = rng.integers(0, max(m, 1), k) if m and n else np.zeros(0, np.int64)
        col = rng.integers(0, max(n, 1), k) if m and n else np.zeros(0, np.int64)
        vals = random_values(rng, row.size, dtype, integer=True)
        ref = sps.coo_matrix((vals, (row, col)), shape=shape).asformat(fmt)
        g = gsp.coo_matrix((gp.asarray(vals), (gp.asarray(row), gp.asarray(col))), shape=shape)
        assert g.nnz == row.size  # COO keeps duplicates
        assert_sparse_matches(g.asformat(fmt), ref, fmt=fmt)
        if fmt != "dia":  # a DIA matrix's 2-tuple is (data, offsets)
            cls = getattr(gsp, f"{fmt}_matrix")
            assert_sparse_matches(cls((gp.asarray(vals), (gp.asarray(row), gp.asarray(col))), shape=shape),
                                  ref, fmt=fmt)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_from_compressed_arrays(rng, kind, index_dtype, fmt):
    """(data, indices, indptr) as given (unsorted, duplicates), checked on the GPU."""
    for dtype in VALUE_DTYPES:
        for duplicates, unsorted in [(False, False), (True, False), (False, True), (True, True)]:
            shape = (41, 29)
            arrays = random_csr_arrays(rng, shape, 0.15, dtype, kind=kind, duplicates=duplicates,
                                       unsorted=unsorted, integer=True)
            data, indices, indptr = arrays
            mshape = shape if fmt == "csr" else shape[::-1]
            ref = getattr(sps, f"{fmt}_array")((data, indices, indptr), shape=mshape)
            g = getattr(gsp, f"{fmt}_array")((gp.asarray(data), gp.asarray(indices.astype(index_dtype)),
                                              gp.asarray(indptr.astype(index_dtype))), shape=mshape)
            assert g.indices.dtype == index_dtype  # arrays keep their index dtype
            assert g.has_sorted_indices == ref.has_sorted_indices
            assert g.has_canonical_format == ref.has_canonical_format
            assert g.nnz == ref.nnz
            assert_sparse_matches(g, ref, fmt=fmt)


def test_index_dtype_rules():
    """int32 while it fits (matrices downcast int64 index arrays, arrays keep them)."""
    data, indices, indptr = np.ones(2), np.array([0, 1], np.int64), np.array([0, 1, 2], np.int64)
    m = gsp.csr_matrix((gp.asarray(data), gp.asarray(indices), gp.asarray(indptr)), shape=(2, 2))
    a = gsp.csr_array((gp.asarray(data), gp.asarray(indices), gp.asarray(indptr)), shape=(2, 2))
    assert m.indices.dtype == np.int32 and m.indptr.dtype == np.int32
    assert a.indices.dtype == np.int64 and a.indptr.dtype == np.int64
    big = gsp.csr_matrix((3, 2**31))
    assert big.indptr.dtype == np.int64 and big.shape == (3, 2**31)
    assert gsp.coo_matrix((4, 5)).row.dtype == np.int32


@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=dtype_id)
def test_from_dense_and_scipy(rng, dtype):
    for shape in SHAPES:
        dense = random_values(rng, int(np.prod(shape)), dtype, integer=True).reshape(shape)
        if dense.size:
            dense.ravel()[rng.random(dense.size) < 0.6] = 0
        for fmt in FORMATS:
            ref = getattr(sps, f"{fmt}_matrix")(dense)
            for source in (dense, gp.asarray(dense)):
                g = getattr(gsp, f"{fmt}_matrix")(source)
                assert_sparse_matches(g, ref, fmt=fmt)
            # SciPy matrices of any format (lil, dok, bsr too) move to the GPU.
            for sfmt in ("csr", "csc", "coo", "dia", "lil", "dok", "bsr"):
                g = getattr(gsp, f"{fmt}_array")(ref.asformat(sfmt))
                assert_sparse_matches(g, getattr(sps, f"{fmt}_array")(dense), fmt=fmt)


def test_empty_shape_dtype_and_copy(rng):
    for fmt in FORMATS:
        cls = getattr(gsp, f"{fmt}_matrix")
        e = cls((3, 4), dtype=np.complex64)
        assert e.shape == (3, 4) and e.dtype == np.complex64 and e.nnz == 0
        assert_exact(e.toarray().get(), np.zeros((3, 4), np.complex64))
        assert cls((2, 2)).dtype == np.float64
    arrays = random_csr_arrays(rng, (5, 6), 0.5, np.float64, integer=True)
    data = gp.asarray(arrays[0])
    A = gsp.csr_matrix((data, gp.asarray(arrays[1]), gp.asarray(arrays[2])), shape=(5, 6), copy=True)
    data[...] = 99
    assert_exact(A.toarray().get(), scipy_csr(arrays, (5, 6)).toarray())
    B = gsp.csr_matrix(A, dtype=np.float32)
    assert B.dtype == np.float32
    C = gsp.csr_matrix(A, copy=True)
    C.data[...] = 0
    assert_exact(A.toarray().get(), scipy_csr(arrays, (5, 6)).toarray())
    # shape= larger than the data.
    D = gsp.csr_matrix((gp.asarray(arrays[0]), gp.asarray(arrays[1]), gp.asarray(arrays[2])), shape=(5, 9))
    assert D.shape == (5, 9)
    # No shape: inferred from the indices.
    E = gsp.csr_matrix((gp.asarray([1.0]), gp.asarray([4]), gp.asarray([0, 1])))
    assert E.shape == (1, 5)


@pytest.mark.parametrize("src", FORMATS)
@pytest.mark.parametrize("dst", FORMATS)
def test_conversions(rng, src, dst):
    for kind in KINDS:
        for index_dtype in INDEX_DTYPES:
            shape = (23, 31)
            arrays = random_csr_arrays(rng, shape, 0.2, np.float64, kind=kind, duplicates=True,
                                       unsorted=True, integer=True)
            ref = scipy_csr(arrays, shape).asformat(src).asformat(dst)
            g = gpu_matrix(arrays, shape, src, index_dtype=index_dtype if src != "dia" else None)
            out = getattr(g, f"to{dst}")()
            assert_sparse_matches(out, ref, fmt=dst)
            assert_sparse_matches(g.asformat(dst), ref, fmt=dst)
            if dst in ("csr", "csc") and src in ("coo", "dia"):
                # COO and DIA convert to canonical CSR/CSC, as SciPy's; CSR <-> CSC
                # keeps duplicates (sorted), as SciPy's csr_tocsc.
                assert out.has_canonical_format
            if {src, dst} == {"csr", "csc"}:
                assert out.has_sorted_indices and out.nnz == ref.nnz
    for fmt in FORMATS:
        g = gpu_matrix(random_csr_arrays(rng, (4, 4), 0.5, np.float64, integer=True), (4, 4), fmt)
        with pytest.raises(ValueError, match="Format xyz is unknown"):
            g.asformat("xyz")
        assert g.asformat(None) is g and g.asformat(fmt) is g
        assert g.asformat(fmt, copy=True) is not g


def test_get_returns_scipy_of_the_same_kind(rng):
    arrays = random_csr_arrays(rng, (6, 8), 0.4, np.complex64, integer=True)
    for fmt in FORMATS:
        for kind in ("matrix", "array"):
            g = getattr(gsp, f"{fmt}_{kind}")(scipy_csr(arrays, (6, 8)))
            h = g.get()
            assert type(h) is getattr(sps, f"{fmt}_{kind}")
            assert_exact(h.toarray(), scipy_csr(arrays, (6, 8)).toarray())
            assert_exact(g.toarray().get(), h.toarray())
            d = g.todense()
            assert isinstance(d, gp.ndarray) and d.shape == (6, 8)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_canonical_form(rng, fmt):
    for index_dtype in INDEX_DTYPES:
        arrays = random_csr_arrays(rng, (30, 20), 0.3, np.float64, kind="powerlaw", duplicates=True,
                                   unsorted=True, integer=True)
        data = arrays[0].copy()
        data[::5] = 0
        arrays = (data, arrays[1], arrays[2])
        shape = (30, 20) if fmt == "csr" else (20, 30)
        ref = getattr(sps, f"{fmt}_matrix")(arrays, shape=shape)
        g = getattr(gsp, f"{fmt}_matrix")(tuple(gp.asarray(a) for a in arrays), shape=shape)
        force_index_dtype(g, index_dtype)
        s = g.sorted_indices()
        assert s.has_sorted_indices and not s.has_canonical_format
        r = ref.sorted_indices()
        assert_exact(s.indices.get(), r.indices.astype(index_dtype))
        # Duplicates may come in either order (SciPy's sort is not stable): compare the
        # entries of each run of one index as sets.
        major = np.repeat(np.arange(r.indptr.size - 1), np.diff(r.indptr))
        got = s.data.get()[np.lexsort((s.data.get(), r.indices, major))]
        want = r.data[np.lexsort((r.data, r.indices, major))]
        assert_exact(got, want)
        g.sum_duplicates()
        ref.sum_duplicates()
        assert g.has_canonical_format
        assert_exact(g.indptr.get(), ref.indptr.astype(index_dtype))
        assert_exact(g.indices.get(), ref.indices.astype(index_dtype))
        assert_exact(g.data.get(), ref.data)
        g.eliminate_zeros()
        ref.eliminate_zeros()
        assert_exact(g.indptr.get(), ref.indptr.astype(index_dtype))
        assert_exact(g.data.get(), ref.data)
        assert g.count_nonzero() == ref.count_nonzero()
        for axis in (0, 1):
            # Counts as SciPy's (its dtype follows the index arrays on one axis).
            np.testing.assert_array_equal(g.getnnz(axis).get(), ref.getnnz(axis))
            np.testing.assert_array_equal(g.count_nonzero(axis).get(), ref.count_nonzero(axis))


def test_prune_and_resize(rng):
    arrays = random_csr_arrays(rng, (8, 9), 0.5, np.float64, integer=True)
    ref = scipy_csr(arrays, (8, 9))
    g = gsp.csr_matrix(ref)
    g.indices = gp.concatenate([g.indices, gp.asarray([0, 1], dtype=g.indices.dtype)])
    g.data = gp.concatenate([g.data, gp.asarray([5.0, 6.0])])
    g.prune()
    assert g.nnz == ref.nnz
    for shape in [(4, 9), (8, 5), (10, 11), (3, 3)]:
        h, r = gsp.csr_matrix(ref), ref.copy()
        h.resize(*shape)
        r.resize(*shape)
        assert_sparse_matches(h, r)


def test_coo_attributes_and_reshape(rng):
    arrays = random_csr_arrays(rng, (6, 10), 0.4, np.float64, integer=True)
    ref = scipy_csr(arrays, (6, 10)).tocoo()
    g = gsp.coo_matrix(ref)
    assert_exact(g.row.get(), ref.row)
    assert_exact(g.col.get(), ref.col)
    for shape, order in [((10, 6), "C"), ((3, 20), "F"), ((60, 1), "C")]:
        assert_sparse_matches(g.reshape(shape, order=order), ref.reshape(shape, order=order))
    a = gsp.coo_array(ref)
    flat = a.reshape(60)
    assert flat.shape == (60,) and flat.ndim == 1
    assert_exact(flat.toarray().get(), ref.toarray().reshape(60))
    assert_exact(flat.get().toarray(), ref.toarray().reshape(60))
    with pytest.raises(ValueError, match="cannot reshape array of size 60 into shape"):
        g.reshape((7, 9))


def test_toarray_order_out_and_reshape(rng):
    arrays = random_csr_arrays(rng, (7, 9), 0.4, np.complex128, duplicates=True, integer=True)
    ref = scipy_csr(arrays, (7, 9))
    for fmt in FORMATS:
        g = gpu_matrix(arrays, (7, 9), fmt)
        for order in ("C", "F"):
            d = g.toarray(order=order)
            assert_exact(d.get(), ref.toarray())
            assert d.flags.f_contiguous if order == "F" else d.flags.c_contiguous
        out = gp.zeros((7, 9), dtype=np.complex128)
        assert g.toarray(out=out) is out
        assert_exact(out.get(), ref.toarray())
        with pytest.raises(ValueError, match="out array must be same dtype and shape"):
            g.toarray(out=gp.zeros((7, 8), dtype=np.complex128))
        assert_sparse_matches(g.reshape(3, 21), ref.reshape(3, 21))
        assert_sparse_matches(g.reshape((21, 3), order="F"), ref.reshape((21, 3), order="F"))


def test_repr_and_protocols(rng):
    g = gsp.csr_matrix(sps.random(4, 5, density=0.5, format="csr", rng=rng))
    assert repr(g).startswith("<Compressed Sparse Row sparse matrix of dtype 'float64'")
    assert "stored elements and shape (4, 5)" in repr(g)
    assert repr(gsp.coo_array((2, 2))).startswith("<COOrdinate sparse array")
    assert "(0, " in str(g) or g.nnz == 0
    with pytest.raises(TypeError, match="sparse array length is ambiguous"):
        len(g)
    with pytest.raises(ValueError, match="truth value of an array with more than one"):
        bool(g)
    assert bool(gsp.csr_matrix(np.ones((1, 1))))
    assert gsp.issparse(g) and gsp.isspmatrix(g) and gsp.isspmatrix_csr(g)
    assert not gsp.isspmatrix(gsp.csr_array(g)) and gsp.issparse(gsp.csr_array(g))
    assert gsp.isspmatrix_csc(g.tocsc()) and gsp.isspmatrix_coo(g.tocoo()) and gsp.isspmatrix_dia(g.todia())
    assert not gsp.issparse(g.toarray()) and not gsp.issparse(np.ones(2))
    assert g.format == "csr" and g.getformat() == "csr" and g.ndim == 2


# ---------------------------------------------------------------------------------------
# SciPy's errors

def _raises_like_scipy(make_scipy, make_gpupy, match):
    with pytest.raises(ValueError, match=match):
        make_scipy()
    with pytest.raises(ValueError, match=match):
        make_gpupy()


def _full_check(cls, arrays, shape):
    m = cls(arrays, shape=shape)
    m.check_format(full_check=True)
    return m


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=dtype_id)
def test_bad_compressed_arrays(index_dtype):
    """The validation pass raises SciPy's messages (SciPy's full check)."""
    d3 = np.ones(3)
    cases = [
        ((d3, [0, 1, 2], [0, 1, 3]), (3, 3), r"index pointer size 3 should be 4"),
        ((np.ones(2), [0, 1, 2], [0, 1, 2, 3]), (3, 3), "indices and data should have the same size"),
        ((d3, [0, 1, 2], [1, 1, 2, 3]), (3, 3), "index pointer should start with 0"),
        ((d3, [0, 1, 2], [0, 1, 2, 4]), (3, 3), "Last value of index pointer should be less than the size"),
        ((d3, [0, 3, 2], [0, 1, 2, 3]), (3, 3), "indices must be < 3"),
        ((d3, [0, -1, 2], [0, 1, 2, 3]), (3, 3), "indices must be >= 0"),
        ((d3, [0, 1, 2], [0, 2, 1, 3]), (3, 3), "indptr must be a non-decreasing sequence"),
    ]
    for (data, indices, indptr), shape, match in cases:
        host = (data, np.asarray(indices, index_dtype), np.asarray(indptr, index_dtype))
        device = tuple(gp.asarray(a) for a in host)
        for fmt in ("csr", "csc"):
            _raises_like_scipy(lambda: _full_check(getattr(sps, f"{fmt}_matrix"), host, shape),
                               lambda: getattr(gsp, f"{fmt}_matrix")(device, shape=shape), match)


def test_bad_shapes_and_dtypes():
    _raises_like_scipy(lambda: sps.csr_matrix((-1, 2)), lambda: gsp.csr_matrix((-1, 2)),
                       "'shape' elements cannot be negative")
    _raises_like_scipy(lambda: sps.coo_matrix((np.ones(2), ([0, 5], [0, 1])), shape=(3, 3)),
                       lambda: gsp.coo_matrix((gp.ones(2), (gp.asarray([0, 5]), gp.asarray([0, 1]))), shape=(3, 3)),
                       "axis 0 index 5 exceeds matrix dimension 3")
    _raises_like_scipy(lambda: sps.coo_matrix((np.ones(2), ([0, 1], [0, -1])), shape=(3, 3)),
                       lambda: gsp.coo_matrix((gp.ones(2), (gp.asarray([0, 1]), gp.asarray([0, -1]))), shape=(3, 3)),
                       "negative axis 1 index: -1")
    _raises_like_scipy(lambda: sps.dia_matrix((np.ones((2, 3)), [1, 1]), shape=(3, 3)),
                       lambda: gsp.dia_matrix((gp.ones((2, 3)), [1, 1]), shape=(3, 3)),
                       "offset array contains duplicate values")
    _raises_like_scipy(lambda: sps.coo_matrix((np.ones(0), ([], [])),),
                       lambda: gsp.coo_matrix((gp.ones(0), (gp.asarray([], dtype=np.int64),
                                                            gp.asarray([], dtype=np.int64)))),
                       "cannot infer dimensions from zero sized index arrays")
    for bad in (np.float16, np.int64, np.uint8, np.object_):
        with pytest.raises(ValueError, match="does not support dtype"):
            gsp.csr_matrix((2, 2), dtype=bad)
    with pytest.raises(ValueError, match="does not support dtype float16"):
        gsp.csr_matrix(np.ones((2, 2), np.float16))
    with pytest.raises(ValueError, match="does not support dtype float16"):
        sps.csr_matrix(np.ones((2, 2), np.float16))
    with pytest.raises(ValueError, match="unrecognized csr_matrix constructor input"):
        gsp.csr_matrix((gp.ones(2), gp.ones(2), gp.ones(2), gp.ones(2)))


def test_warnings_class():
    assert issubclass(gsp.SparseEfficiencyWarning, gsp.SparseWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gsp.csr_matrix(np.eye(3)).tocsc()
