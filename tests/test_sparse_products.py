"""gpupyx.scipy.sparse products against scipy.sparse: SpMV and SpMM (``A @ x``,
``A @ X``, ``x @ A``, ``A.T @ x``, ``A.H @ x``, ``dot``, matrix ``*``) for every
format, value dtype and index dtype, on every SpMV schedule (lanes per row 1 to 32 and
the merge path, forced), and sparse times sparse (SpGEMM).

Tolerances: an output element is a sum of ``k`` products ``a_ik x_k`` (``k`` the
entries of its row, duplicates included; for SpGEMM the number of products of the
entry). The reference is computed in float64/complex128 from the same values; the GPU
sums in the result's precision in its own order, so ``|got - want| <= 2 (k + 2) eps
sum_k |a_ik x_k|`` (``assert_sum_close``: k roundings of u = eps/2 for the sum, two
more per complex product, and one for the reference). Integer-valued inputs are
compared exactly.
"""

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.sparse as gsp
from gpupyx.scipy.sparse import _kernels
from sparse_helpers import (
    FLOAT_DTYPES, FORMATS, INDEX_DTYPES, assert_exact, assert_sparse_matches, assert_sum_close,
    dtype_id, gpu_matrix, random_csr_arrays, random_values, scipy_csr, sps,
)

pytestmark = pytest.mark.gpu

KINDS = ["uniform", "powerlaw", "empty_rows"]
SCHEDULES = [None, 0, 1, 2, 4, 8, 16, 32]


def wide(dtype):
    return np.complex128 if np.dtype(dtype).kind == "c" else np.float64


def entrywise(ref, f):
    """The CSR matrix of ``f(data)`` on `ref`'s entries, duplicates kept apart (SciPy's
    ``abs`` would sum them first, and |a + b| is no bound for |a| + |b|)."""
    r = ref.tocsr()
    return sps.csr_matrix((f(r.data), r.indices.copy(), r.indptr.copy()), shape=r.shape)


def product_reference(ref, x):
    """(want, scale, terms) of ``ref @ x``: the product in float64/complex128, the sum
    of the absolute terms, and their number, per element."""
    R = ref.astype(wide(ref.dtype))
    want = R @ x.astype(wide(x.dtype))
    scale = entrywise(ref, lambda d: np.abs(d.astype(wide(d.dtype)))) @ np.abs(x).astype(np.float64)
    terms = entrywise(ref, lambda d: np.ones(d.shape)) @ np.ones(x.shape, dtype=np.float64)
    return want, scale, terms


@pytest.fixture
def schedule():
    """Restores the planned SpMV schedule after a test that forces one."""
    yield
    _kernels.force_schedule = None


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=dtype_id)
def test_spmv_every_schedule(rng, schedule, dtype, kind, index_dtype):
    shape = (203, 157)
    arrays = random_csr_arrays(rng, shape, 0.08, dtype, kind=kind, duplicates=True, unsorted=True)
    ref = scipy_csr(arrays, shape)
    A = gpu_matrix(arrays, shape, "csr", index_dtype=index_dtype)
    x = random_values(rng, shape[1], dtype)
    want, scale, terms = product_reference(ref, x)
    for plan in SCHEDULES:
        _kernels.force_schedule = plan
        y = A @ gp.asarray(x)
        assert isinstance(y, gp.ndarray) and y.shape == (shape[0],)
        assert_sum_close(y.get(), want, scale, terms, dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_spmv_exact_on_integers(rng, schedule, dtype):
    """Integer-valued data: every schedule gives SciPy's result bit for bit, power-law
    rows (one full row) included, and the planned schedule too."""
    # (4, 30000): a full row spans 34 merge tiles (a long run of block carries).
    for shape in [(1, 1), (1, 300), (300, 1), (517, 389), (64, 2000), (4, 30000)]:
        arrays = random_csr_arrays(rng, shape, 0.05, dtype, kind="powerlaw", integer=True)
        ref = scipy_csr(arrays, shape)
        A = gpu_matrix(arrays, shape)
        x = random_values(rng, shape[1], dtype, integer=True)
        for plan in SCHEDULES:
            _kernels.force_schedule = plan
            assert_exact((A @ gp.asarray(x)).get(), ref @ x)


def test_spmv_plan_is_kept_per_matrix(rng):
    arrays = random_csr_arrays(rng, (50, 40), 0.2, np.float64, integer=True)
    A = gpu_matrix(arrays, (50, 40))
    x = gp.asarray(random_values(rng, 40, np.float64, integer=True))
    A @ x
    plan = A._spmv_plan
    A @ x
    assert A._spmv_plan is plan
    A.sum_duplicates()
    A.indptr = A.indptr.copy()  # a new indptr array: planned again
    A @ x
    assert A._spmv_plan is not plan


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", [np.bool_, *FLOAT_DTYPES], ids=dtype_id)
def test_products_every_format(rng, fmt, dtype):
    """A @ x, A @ X, x @ A, X @ A, A.T @ x, A.H @ x, dot and matrix * on integer values."""
    for shape in [(0, 3), (3, 0), (1, 9), (9, 1), (33, 47)]:
        arrays = random_csr_arrays(rng, shape, 0.2, dtype, kind="empty_rows", duplicates=fmt != "dia",
                                   unsorted=True, integer=True)
        ref = scipy_csr(arrays, shape)
        A = gpu_matrix(arrays, shape, fmt)
        m, n = shape
        xdtype = np.float32 if np.dtype(dtype).kind == "b" else dtype
        x = random_values(rng, n, xdtype, integer=True)
        X = random_values(rng, n * 5, xdtype, integer=True).reshape(n, 5)
        u = random_values(rng, m, xdtype, integer=True)
        U = random_values(rng, m * 3, xdtype, integer=True).reshape(3, m)
        assert_exact((A @ gp.asarray(x)).get(), ref @ x)
        assert_exact((A @ gp.asarray(X)).get(), ref @ X)
        assert_exact((A @ gp.asarray(x.reshape(n, 1))).get(), ref @ x.reshape(n, 1))
        assert_exact((gp.asarray(u) @ A).get(), u @ ref)
        assert_exact((gp.asarray(U) @ A).get(), U @ ref)
        assert_exact((A.T @ gp.asarray(u)).get(), ref.T @ u)
        assert_exact((A.T @ gp.asarray(U.T)).get(), ref.T @ U.T)
        assert_exact((A.H @ gp.asarray(u)).get(), ref.conj().T @ u)
        assert_exact((A.conj().T @ gp.asarray(u)).get(), ref.conj().T @ u)
        assert_exact(A.dot(gp.asarray(x)).get(), ref.dot(x))
        assert_exact((A * gp.asarray(x)).get(), ref * x)  # matrix: the product
        assert_exact((A @ x).get(), ref @ x)  # host operands move to the GPU


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=dtype_id)
def test_spmm_and_transposed_bounds(rng, dtype, index_dtype):
    shape = (121, 95)
    arrays = random_csr_arrays(rng, shape, 0.1, dtype, kind="powerlaw", duplicates=True)
    ref = scipy_csr(arrays, shape)
    for fmt in ("csr", "csc"):
        A = gpu_matrix(arrays, shape, fmt, index_dtype=index_dtype)
        for k in (1, 3, 32, 33, 70):
            X = random_values(rng, shape[1] * k, dtype).reshape(shape[1], k)
            want, scale, terms = product_reference(ref, X)
            assert_sum_close((A @ gp.asarray(X)).get(), want, scale, terms, dtype)
            # The transposed product (atomic adds into y).
            U = random_values(rng, shape[0] * k, dtype).reshape(shape[0], k)
            want, scale, terms = product_reference(ref.T.tocsr(), U)
            assert_sum_close((A.T @ gp.asarray(U)).get(), want, scale, terms, dtype)
        # Non-contiguous and transposed dense operands.
        X = random_values(rng, shape[1] * 8, dtype).reshape(8, shape[1])
        want, scale, terms = product_reference(ref, X.T)
        assert_sum_close((A @ gp.asarray(X).T).get(), want, scale, terms, dtype)
        x = random_values(rng, shape[1] * 2, dtype)
        want, scale, terms = product_reference(ref, x[::2])
        assert_sum_close((A @ gp.asarray(x)[::2]).get(), want, scale, terms, dtype)


def test_result_dtypes_follow_scipy(rng):
    arrays = random_csr_arrays(rng, (6, 5), 0.5, np.float32, integer=True)
    ref = scipy_csr(arrays, (6, 5))
    A = gsp.csr_matrix(ref)
    for xdtype in (np.float32, np.float64, np.int32, np.int64, np.complex64, np.bool_):
        x = np.arange(5).astype(xdtype)
        want = ref @ x
        got = (A @ gp.asarray(x)).get()
        assert got.dtype == want.dtype, (xdtype, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want)
    B = gsp.csr_matrix(ref.astype(bool))
    got = (B @ gp.asarray(np.arange(5.0))).get()
    np.testing.assert_array_equal(got, ref.astype(bool) @ np.arange(5.0))


def test_product_errors(rng):
    A = gsp.csr_matrix(sps.random(4, 5, density=0.5, format="csr", rng=rng))
    ref = A.get()
    for x in (np.ones(4), np.ones((4, 2)), np.ones((6, 1))):
        with pytest.raises(ValueError, match="dimension mismatch"):
            ref @ x
        with pytest.raises(ValueError, match="dimension mismatch"):
            A @ gp.asarray(x)
    with pytest.raises(ValueError, match="dimension mismatch"):
        A @ A
    with pytest.raises(ValueError, match="Scalar operands are not allowed"):
        A @ 2.0
    with pytest.raises(ValueError, match="Scalar operands are not allowed"):
        2.0 @ A
    with pytest.raises(ValueError, match="could not interpret dimensions"):
        A @ gp.ones((5, 2, 2))


# ---------------------------------------------------------------------------------------
# SpGEMM

@pytest.mark.parametrize("dtype", [np.bool_, *FLOAT_DTYPES], ids=dtype_id)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=dtype_id)
def test_spgemm_exact(rng, dtype, index_dtype):
    """Integer values: SciPy's product exactly, for CSR and CSC operands (and mixed),
    with duplicates and unsorted inputs, long rows (global tables), empty results."""
    for (m, k, n), kind, density in [((1, 1, 1), "uniform", 1.0), ((40, 30, 50), "uniform", 0.1),
                                     ((30, 60, 40), "powerlaw", 0.1), ((25, 25, 25), "empty_rows", 0.2),
                                     ((8, 700, 900), "uniform", 0.6), ((5, 0, 4), "uniform", 0.5)]:
        a = random_csr_arrays(rng, (m, k), density, dtype, kind=kind, duplicates=True, unsorted=True,
                              integer=True)
        b = random_csr_arrays(rng, (k, n), density, dtype, kind=kind, duplicates=True, unsorted=True,
                              integer=True)
        ra, rb = scipy_csr(a, (m, k)), scipy_csr(b, (k, n))
        want = (ra @ rb).toarray()
        for fa, fb in [("csr", "csr"), ("csc", "csc"), ("csr", "csc"), ("coo", "csr")]:
            A = gpu_matrix(a, (m, k), fa, index_dtype=index_dtype if fa != "coo" else None)
            B = gpu_matrix(b, (k, n), fb, index_dtype=index_dtype)
            C = A @ B
            assert gsp.issparse(C) and C.shape == (m, n) and C.dtype == want.dtype
            assert C.format == ("csc" if fa == "csc" else "csr")
            assert C.has_sorted_indices
            assert_exact(C.toarray().get(), want)
        arr = gpu_matrix(a, (m, k), array=True) @ gpu_matrix(b, (k, n), array=True)
        assert isinstance(arr, gsp.csr_array)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_spgemm_bound(rng, dtype):
    m, k, n = 60, 80, 70
    a = random_csr_arrays(rng, (m, k), 0.1, dtype, kind="powerlaw")
    b = random_csr_arrays(rng, (k, n), 0.1, dtype, kind="powerlaw")
    ra, rb = scipy_csr(a, (m, k)), scipy_csr(b, (k, n))
    C = (gpu_matrix(a, (m, k)) @ gpu_matrix(b, (k, n))).toarray().get()
    W = wide(dtype)
    want = (ra.astype(W) @ rb.astype(W)).toarray()
    absolute = lambda d: np.abs(d.astype(W))  # noqa: E731
    ones = lambda d: np.ones(d.shape)  # noqa: E731
    scale = (entrywise(ra, absolute) @ entrywise(rb, absolute)).toarray()
    terms = (entrywise(ra, ones) @ entrywise(rb, ones)).toarray()
    assert_sum_close(C, want, scale, terms, dtype)


def test_matrix_power_and_poisson_square(rng):
    """The 2-d Poisson matrix squared (the benchmark's SpGEMM) and ``**`` of matrices."""
    n = 12
    T = sps.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    P = (sps.kron(sps.identity(n), T) + sps.kron(T, sps.identity(n))).tocsr()
    G = gsp.csr_matrix(P)
    assert_exact((G @ G).toarray().get(), (P @ P).toarray())
    assert_exact((G ** 3).toarray().get(), (P @ P @ P).toarray())
    assert_exact((G ** 0).toarray().get(), np.eye(n * n))
    D = gsp.dia_matrix(P)
    DD = D @ D
    assert DD.format == (sps.dia_matrix(P) @ sps.dia_matrix(P)).format == "dia"
    assert_exact(DD.toarray().get(), (P @ P).toarray())
    Garr = gsp.csr_array(P)
    assert_sparse_matches(Garr ** 2, sps.csr_array(P) ** 2)  # arrays: elementwise power
    with pytest.raises(TypeError, match="sparse matrix is not square"):
        gsp.csr_matrix(np.ones((2, 3))) ** 2
