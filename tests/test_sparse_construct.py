"""gpupyx.scipy.sparse's construction functions against scipy.sparse: identities,
diagonals, random matrices (SciPy's numbers for a NumPy generator), Kronecker products
and sums, stacking, block matrices, triangles. Values are small integers: exact.
Where SciPy returns BSR (``kron`` of a dense-ish ``B`` without a format) gpupy returns
COO: the comparison is by values and class kind there.
"""

import warnings

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.sparse as gsp
from sparse_helpers import (
    FORMATS, VALUE_DTYPES, assert_exact, assert_sparse_matches, dtype_id, gpu_matrix,
    random_csr_arrays, scipy_csr, sps,
)

pytestmark = pytest.mark.gpu


def same_values(g, ref):
    """Kind (array/matrix), shape, dtype and values, any format."""
    assert gsp.issparse(g)
    assert isinstance(g, gsp.sparray) == isinstance(ref, sps.sparray), (type(g), type(ref))
    assert g.shape == ref.shape and g.dtype == ref.dtype, (g.shape, ref.shape, g.dtype, ref.dtype)
    assert_exact(g.toarray().get(), ref.toarray())


@pytest.mark.parametrize("fmt", [None, *FORMATS])
def test_eye_identity(fmt):
    for m, n, k in [(0, 0, 0), (1, 1, 0), (4, 4, 0), (4, 6, 1), (6, 4, -2), (3, 5, 4), (5, 3, -4)]:
        for dtype in (np.float64, np.float32, np.complex64, np.bool_):
            assert_sparse_matches(gsp.eye(m, n, k=k, dtype=dtype, format=fmt),
                                  sps.eye(m, n, k=k, dtype=dtype, format=fmt), fmt=fmt or "dia")
            assert_sparse_matches(gsp.eye_array(m, n, k=k, dtype=dtype, format=fmt),
                                  sps.eye_array(m, n, k=k, dtype=dtype, format=fmt), fmt=fmt or "dia")
        assert_sparse_matches(gsp.identity(m, format=fmt), sps.identity(m, format=fmt), fmt=fmt or "dia")


def test_diags_and_spdiags(rng):
    cases = [
        (([1.0, 2.0, 3.0],), dict(offsets=1)),
        (([[1.0, 2, 3, 4], [5.0, 6, 7], [8.0, 9, 10]],), dict(offsets=[0, 1, -1])),
        (([1.0, -2.0, 1.0],), dict(offsets=[-1, 0, 1], shape=(5, 5))),
        (([np.arange(1, 6, dtype=np.float32)],), dict(offsets=[2], shape=(4, 7))),
        (([np.arange(1, 4) * (1 + 1j)],), dict(offsets=[-3], shape=(6, 3), dtype=np.complex128)),
    ]
    for args, kw in cases:
        for fmt in (None, "csr", "coo"):
            assert_sparse_matches(gsp.diags_array(*args, format=fmt, dtype=kw.get("dtype"),
                                                  **{k: v for k, v in kw.items() if k != "dtype"}),
                                  sps.diags_array(*args, format=fmt, dtype=kw.get("dtype"),
                                                  **{k: v for k, v in kw.items() if k != "dtype"}))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                off = kw.get("offsets", 0)
                extra = {k: v for k, v in kw.items() if k not in ("offsets",)}
                assert_sparse_matches(gsp.diags(*args, off, format=fmt, **extra),
                                      sps.diags(*args, off, format=fmt, **extra))
    # Device diagonals.
    d = np.arange(1.0, 6.0)
    assert_sparse_matches(gsp.diags_array([gp.asarray(d), gp.asarray(d[:4])], offsets=[0, 1], dtype=None),
                          sps.diags_array([d, d[:4]], offsets=[0, 1], dtype=None))
    data = np.arange(1.0, 13.0).reshape(3, 4)
    for m, n in [(None, None), (4, 4), (3, 5)]:
        assert_sparse_matches(gsp.spdiags(data, [0, -1, 2], m, n), sps.spdiags(data, [0, -1, 2], m, n))
    with pytest.raises(ValueError, match="Different number of diagonals and offsets"):
        gsp.diags_array([[1, 2], [3]], offsets=[0], dtype=None)
    with pytest.raises(ValueError, match="Offset 5 \\(index 0\\) out of bounds"):
        gsp.diags_array([[1.0]], offsets=[5], shape=(3, 3), dtype=None)


@pytest.mark.parametrize("dtype", [None, np.float32, np.float64, np.complex128], ids=str)
def test_random(dtype):
    for m, n, density in [(0, 5, 0.3), (20, 30, 0.0), (20, 30, 0.25), (7, 3, 1.0)]:
        for fmt in ("coo", "csr"):
            want = sps.random(m, n, density=density, format=fmt, dtype=dtype, rng=np.random.default_rng(4))
            got = gsp.random(m, n, density=density, format=fmt, dtype=dtype, rng=np.random.default_rng(4))
            assert_sparse_matches(got, want, fmt=fmt)  # SciPy's numbers for NumPy's generator
            want = sps.random_array((m, n), density=density, format=fmt, dtype=dtype,
                                    rng=np.random.default_rng(5))
            got = gsp.random_array((m, n), density=density, format=fmt, dtype=dtype,
                                   rng=np.random.default_rng(5))
            assert_sparse_matches(got, want, fmt=fmt)
            # gpupy's own generator: the right number of distinct positions in [0, 1).
            g = gsp.rand(m, n, density=density, format=fmt, rng=7)
            assert g.nnz == int(round(density * m * n)) and g.dtype == np.float64
            c = g.tocsr()
            c.sum_duplicates()
            assert c.nnz == g.nnz
            v = g.data.get()
            assert ((v >= 0) & (v < 1)).all()
    with pytest.raises(ValueError, match="density expected to be 0 <= density <= 1"):
        gsp.random(3, 3, density=1.5)


def test_kron_kronsum(rng):
    for (ma, na), (mb, nb) in [((2, 3), (4, 2)), ((1, 1), (3, 3)), ((4, 4), (3, 3)), ((0, 2), (2, 2))]:
        a = scipy_csr(random_csr_arrays(rng, (ma, na), 0.5, np.float64, integer=True), (ma, na))
        b = scipy_csr(random_csr_arrays(rng, (mb, nb), 0.3, np.complex64, integer=True), (mb, nb))
        A, B = gsp.csr_matrix(a), gsp.csr_matrix(b)
        for fmt in (None, "csr", "coo"):
            same_values(gsp.kron(A, B, format=fmt), sps.kron(a, b, format=fmt))
            same_values(gsp.kron(gsp.csr_array(a), B, format=fmt), sps.kron(sps.csr_array(a), b, format=fmt))
        same_values(gsp.kron(A, b.toarray()), sps.kron(a, b.toarray()))
        if ma == na and mb == nb:
            same_values(gsp.kronsum(A, B), sps.kronsum(a, b))
            same_values(gsp.kronsum(gsp.csr_array(a), B, format="csr"), sps.kronsum(sps.csr_array(a), b, format="csr"))
    with pytest.raises(ValueError, match="A is not square"):
        gsp.kronsum(gsp.csr_matrix((2, 3)), gsp.csr_matrix((2, 2)))
    with pytest.raises(ValueError, match="B is not square"):
        gsp.kronsum(gsp.csr_matrix((2, 2)), gsp.csr_matrix((2, 3)))


@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=dtype_id)
def test_stacking_and_blocks(rng, dtype):
    mats = [scipy_csr(random_csr_arrays(rng, s, 0.4, dtype, integer=True, duplicates=True), s)
            for s in [(3, 4), (3, 2), (5, 4), (2, 2)]]
    a, b, c, d = mats
    for fa in ("csr", "csc", "coo"):
        A, B, C, D = (gsp.csr_matrix(m).asformat(fa) for m in mats)
        ra, rb, rc, rd = (m.asformat(fa) for m in mats)
        for fmt in (None, "csr", "csc"):
            same_values(gsp.hstack([A, B], format=fmt), sps.hstack([ra, rb], format=fmt))
            same_values(gsp.vstack([A, C], format=fmt), sps.vstack([ra, rc], format=fmt))
            same_values(gsp.bmat([[A, B], [C, None]], format=fmt), sps.bmat([[ra, rb], [rc, None]], format=fmt))
            same_values(gsp.block_diag([A, D, B], format=fmt), sps.block_diag([ra, rd, rb], format=fmt))
        same_values(gsp.vstack([A, C], dtype=np.complex128), sps.vstack([ra, rc], dtype=np.complex128))
        same_values(gsp.block_array([[gsp.csr_array(a), None], [None, gsp.csr_array(d)]]),
                    sps.block_array([[sps.csr_array(a), None], [None, sps.csr_array(d)]]))
        same_values(gsp.hstack([gsp.csr_array(a), B]), sps.hstack([sps.csr_array(a), rb]))
    with pytest.raises(ValueError, match="incompatible row dimensions"):
        gsp.bmat([[gsp.csr_matrix(a).tocoo(), gsp.csr_matrix(c).tocoo()]])
    with pytest.raises(ValueError, match="incompatible"):
        gsp.vstack([gsp.csr_matrix(a), gsp.csr_matrix(b)])


def test_tril_triu_find(rng):
    for fmt in FORMATS:
        ref = scipy_csr(random_csr_arrays(rng, (9, 11), 0.5, np.float64, integer=True), (9, 11)).asformat(fmt)
        A = gpu_matrix(random_csr_arrays(rng, (1, 1), 1.0, np.float64, integer=True), (1, 1))
        A = gsp.csr_matrix(ref).asformat(fmt)
        for k in (-3, 0, 2):
            for f in (None, "csr"):
                same_values(gsp.tril(A, k, format=f), sps.tril(ref, k, format=f))
                same_values(gsp.triu(A, k, format=f), sps.triu(ref, k, format=f))
        same_values(gsp.triu(gsp.csr_array(ref)), sps.triu(sps.csr_array(ref)))
