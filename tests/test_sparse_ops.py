"""gpupyx.scipy.sparse operations against scipy.sparse: elementwise operations with
scalars, dense arrays and other sparse matrices (the merge kernel), comparisons,
reductions (sum, mean, max/min, argmax/argmin, nanmax/nanmin), diagonals, indexing
and assignment, for matrices and arrays (SciPy's ``*`` and result shapes for each).

Values are small integers, so every result is exact (sums included) and compared bit
for bit with SciPy's; ``mean`` multiplies by ``1/n`` first, as SciPy does, and is
compared within float rounding.
"""

import warnings

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.sparse as gsp
from sparse_helpers import (
    FLOAT_DTYPES, FORMATS, INDEX_DTYPES, VALUE_DTYPES, assert_exact, assert_sparse_matches, dtype_id,
    gpu_matrix, random_csr_arrays, random_values, scipy_csr, sps,
)

pytestmark = pytest.mark.gpu


def pair(rng, shape, dtype, fmt="csr", array=False, kind="uniform", density=0.3, **kw):
    """(gpupy, SciPy) of one random matrix."""
    arrays = random_csr_arrays(rng, shape, density, dtype, kind=kind, integer=True, **kw)
    ref = scipy_csr(arrays, shape).asformat(fmt)
    if array:
        ref = getattr(sps, f"{fmt}_array")(ref)
    return gpu_matrix(arrays, shape, fmt, array=array), ref


def dense(x):
    return x.get() if isinstance(x, gp.ndarray) else np.asarray(x)


def same(got, want):
    """A result of either kind (sparse, dense, scalar) equal to SciPy's."""
    if gsp.issparse(got):
        assert_sparse_matches(got, want)
    elif sps.issparse(want):
        raise AssertionError(f"expected sparse, got {type(got)}")
    else:
        want = np.asarray(want)
        got = dense(got)
        assert got.shape == want.shape, (got.shape, want.shape)
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------------------------
# Elementwise

@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("array", [False, True], ids=["matrix", "array"])
def test_two_sparse_operands(rng, dtype, array):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=sps.SparseEfficiencyWarning)
        warnings.simplefilter("ignore", category=gsp.SparseEfficiencyWarning)
        for shape in [(0, 0), (1, 6), (25, 31)]:
            for fa, fb in [("csr", "csr"), ("csc", "csc"), ("csr", "coo"), ("coo", "csc"), ("dia", "dia"),
                           ("dia", "csr")]:
                A, ra = pair(rng, shape, dtype, fa, array, duplicates=True, unsorted=True)
                B, rb = pair(rng, shape, dtype, fb, array, kind="empty_rows")
                same(A.multiply(B), ra.multiply(rb))
                same(A.maximum(B), ra.maximum(rb))
                same(A.minimum(B), ra.minimum(rb))
                for op in ("__ne__", "__lt__", "__gt__", "__le__", "__ge__", "__eq__"):
                    if np.dtype(dtype).kind == "c" and op in ("__lt__", "__gt__", "__le__", "__ge__"):
                        continue
                    same(getattr(A, op)(B), getattr(ra, op)(rb))
                if np.dtype(dtype).kind != "b":
                    same(A + B, ra + rb)
                    same(A - B, ra - rb)
                    if array:
                        same(A * B, ra * rb)  # arrays: elementwise
                if np.dtype(dtype).kind in "fc" and shape[0]:
                    with np.errstate(divide="ignore", invalid="ignore"):
                        want = ra / rb
                    got, want = dense(A / B), np.asarray(want)
                    if np.dtype(dtype).kind == "c":
                        # Complex x / 0: SciPy's C++ gives nan+nanj, NumPy's (and
                        # gpupy's) division infinities where x is not zero.
                        # The rounding of a complex quotient depends on its algorithm
                        # (Smith's here): a few ulps.
                        keep = rb.toarray() != 0
                        got, want = np.where(keep, got, 0), np.where(keep, want, 0)
                        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(dtype).eps, atol=0)
                    else:
                        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=dtype_id)
def test_two_operands_index_dtypes(rng, index_dtype):
    """The merge kernels with either index dtype (and mixed: int64 for both)."""
    for fmt in ("csr", "csc"):
        a = random_csr_arrays(rng, (40, 30), 0.2, np.float64, kind="powerlaw", integer=True)
        b = random_csr_arrays(rng, (40, 30), 0.2, np.float64, kind="empty_rows", integer=True)
        ra, rb = scipy_csr(a, (40, 30)).asformat(fmt), scipy_csr(b, (40, 30)).asformat(fmt)
        A = gpu_matrix(a, (40, 30), fmt, index_dtype=index_dtype)
        B = gpu_matrix(b, (40, 30), fmt, index_dtype=np.int64)
        same(A + B, ra + rb)
        same(A.multiply(B), ra.multiply(rb))
        same(A != B, ra != rb)
        same(A - B, ra - rb)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("fmt", FORMATS)
def test_scalar_and_dense_operands(rng, dtype, fmt):
    A, ref = pair(rng, (13, 17), dtype, fmt, duplicates=fmt != "dia")
    D = random_values(rng, 13 * 17, dtype, integer=True).reshape(13, 17)
    row = random_values(rng, 17, dtype, integer=True)
    col = random_values(rng, 13, dtype, integer=True).reshape(13, 1)
    same(A * 2, ref * 2)
    same(2 * A, 2 * ref)
    same(A * np.float32(3), ref * np.float32(3))
    same(A / 2, ref / 2)
    same(-A, -ref)
    if np.dtype(dtype).kind == "c":
        # |z| by libdevice's hypot (2 ulp) against NumPy's (1 ulp): 3 ulp apart at most.
        assert_sparse_matches(abs(A), abs(ref), exact=False, rtol=3 * np.finfo(dtype).eps)
    else:
        same(abs(A), abs(ref))
    for other in (D, row, col):
        got, want = A.multiply(gp.asarray(other)), ref.multiply(other)
        same(got, want)
        assert got.format == want.format  # COO, as SciPy's
    same(A + gp.asarray(D), ref + D)
    same(A - gp.asarray(D), ref - D)
    same(gp.asarray(D) - A, D - ref)
    same(A.maximum(gp.asarray(D)), ref.maximum(D))
    same(A + 0, ref + 0)
    if np.dtype(dtype).kind != "c":
        same(A.maximum(-1), ref.maximum(-1))
        same(A.minimum(1), ref.minimum(1))
        # 0 < 1: every implicit zero is True, which SciPy computes as the negation of
        # the other comparison, with an efficiency warning.
        with pytest.warns(gsp.SparseEfficiencyWarning, match="Try using >= instead"):
            got = A < 1
        with pytest.warns(sps.SparseEfficiencyWarning):
            want = ref < 1
        same(got, want)
        same(A > 1, ref > 1)
        same(A < gp.asarray(D), ref < D)
    same(A != 0, ref != 0)
    same(A.power(2), ref.power(2))
    same(A.conj(), ref.conj())
    same(A.real, ref.real)
    same(A.imag, ref.imag)
    same(A.astype(np.complex128), ref.astype(np.complex128))
    for name in ("sign", "ceil", "floor", "rint", "trunc"):
        if np.dtype(dtype).kind != "c":
            same(getattr(A, name)(), getattr(ref, name)())
    with pytest.raises(NotImplementedError, match="adding a nonzero scalar to a sparse array"):
        A + 1
    with pytest.raises(NotImplementedError, match="subtracting a nonzero scalar from a sparse array"):
        A - 1
    with pytest.raises(ValueError, match="inconsistent shapes"):
        A + gsp.csr_matrix((13, 16))
    with pytest.raises(NotImplementedError, match="zero power is not supported"):
        A.power(0)


def test_in_place_scalar_ops(rng):
    A, ref = pair(rng, (6, 7), np.float64)
    A *= 3
    ref *= 3
    same(A, ref)
    A /= 2
    ref /= 2
    same(A, ref)


# ---------------------------------------------------------------------------------------
# Reductions

@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("array", [False, True], ids=["matrix", "array"])
def test_sums(rng, dtype, fmt, array):
    for shape, kind in [((1, 9), "uniform"), ((9, 1), "uniform"), ((33, 21), "powerlaw"),
                        ((30, 20), "empty_rows")]:
        # Duplicates of a boolean matrix sum differently along an axis in SciPy 1.17
        # (logical or) and 1.18 (counted): none for bool.
        dups = fmt != "dia" and np.dtype(dtype).kind != "b"
        A, ref = pair(rng, shape, dtype, fmt, array, kind=kind, duplicates=dups)
        total = A.sum()
        assert isinstance(total, gp.ndarray) and total.ndim == 0
        assert dense(total)[()] == ref.sum() and dense(total).dtype == np.asarray(ref.sum()).dtype
        for axis in (0, 1, -1, -2):
            same(A.sum(axis=axis), ref.sum(axis=axis))
        if np.dtype(dtype).kind != "b":
            for axis in (0, 1):
                same(A.sum(axis=axis, dtype=np.complex128), ref.sum(axis=axis, dtype=np.complex128))
        for axis in (None, 0, 1):
            # A mean sums x / n over up to n terms in its own order: within
            # 2 (n + 2) eps of the sum of |x| / n.
            got, want = dense(A.mean(axis=axis)), np.asarray(ref.mean(axis=axis))
            assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, want.dtype)
            n = max(shape) if axis is not None else shape[0] * shape[1]
            scale = np.asarray(abs(ref.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64))
                               .mean(axis=axis))
            tol = 2 * (n + 2) * np.finfo(got.dtype).eps * scale
            assert (np.abs(got - want) <= tol).all(), (got, want)
        assert dense(A.trace()) == ref.trace()
        for k in (-40, -3, -1, 0, 1, 5, 40):
            same(A.diagonal(k), ref.diagonal(k))


@pytest.mark.parametrize("dtype", [np.bool_, np.float32, np.float64, np.complex128], ids=dtype_id)
@pytest.mark.parametrize("array", [False, True], ids=["matrix", "array"])
def test_extremes(rng, dtype, array):
    for shape, kind in [((1, 6), "uniform"), ((6, 1), "uniform"), ((23, 19), "powerlaw"),
                        ((20, 20), "empty_rows")]:
        for fmt in ("csr", "csc", "coo"):
            A, ref = pair(rng, shape, dtype, fmt, array, kind=kind, density=0.4)
            for name in ("max", "min"):
                same(getattr(A, name)(), getattr(ref, name)())
                for axis in (0, 1, -1):
                    same(getattr(A, name)(axis=axis), getattr(ref, name)(axis=axis))
                    same(getattr(A, name)(axis=axis, explicit=True), getattr(ref, name)(axis=axis, explicit=True))
            if np.dtype(dtype).kind == "c":
                continue
            for name in ("argmax", "argmin"):
                assert getattr(A, name)() == getattr(ref, name)()
                for axis in (0, 1):
                    same(getattr(A, name)(axis=axis), getattr(ref, name)(axis=axis))
                    same(getattr(A, name)(axis=axis, explicit=True),
                         getattr(ref, name)(axis=axis, explicit=True))


def test_extremes_with_nan_and_errors(rng):
    d = np.array([[np.nan, 2.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0], [np.nan, np.nan, 3.0, 0.0],
                  [-4.0, np.nan, -5.0, 1.0], [np.nan, np.nan, np.nan, np.nan]])
    ref = sps.csr_matrix(d)
    A = gsp.csr_matrix(d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name in ("max", "min", "nanmax", "nanmin"):
            for axis in (None, 0, 1):
                got, want = getattr(A, name)(axis=axis), getattr(ref, name)(axis=axis)
                g = got.toarray().get() if gsp.issparse(got) else dense(got)
                w = want.toarray() if sps.issparse(want) else np.asarray(want)
                np.testing.assert_array_equal(g, w)
        for name in ("argmax", "argmin"):
            for axis in (0, 1):
                same(getattr(A, name)(axis=axis), getattr(ref, name)(axis=axis))
    E = gsp.csr_matrix((0, 3))
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        E.max()
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        E.min(axis=0)
    with pytest.raises(ValueError, match="Cannot apply argmax to an empty matrix"):
        E.argmax()
    with pytest.raises(ValueError, match="Cannot apply argmin along a zero-sized dimension"):
        E.argmin(axis=0)
    with pytest.raises(ValueError, match="Sparse min/max does not support an 'out' parameter"):
        A.max(out=gp.zeros(1))
    with pytest.raises(ValueError, match="axis out of range"):
        A.sum(axis=2)
    with pytest.raises(ValueError, match="Cannot apply argmax to zero matrix when explicit=True"):
        gsp.csr_matrix((2, 2)).argmax(explicit=True)


# ---------------------------------------------------------------------------------------
# Indexing, diagonals

@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=dtype_id)
def test_getitem(rng, fmt, index_dtype):
    shape = (31, 23)
    arrays = random_csr_arrays(rng, shape, 0.3, np.float64, kind="empty_rows", duplicates=True,
                               unsorted=True, integer=True)
    ref = scipy_csr(arrays, shape).asformat(fmt)
    A = gpu_matrix(arrays, shape, fmt, index_dtype=index_dtype)
    keys = [
        (3, 5), (-1, -2), 4, -3, slice(2, 20), slice(None, None, 3), slice(25, 2, -4),
        (slice(None), 7), (slice(3, 9), slice(2, 15)), (slice(None, None, 2), slice(1, None, 3)),
        [0, 5, 5, 30], np.array([29, 1, 1]), (np.array([1, 4, 30]), np.array([2, 2, 22])),
        (slice(None), [3, 0, 3, 22]), (4, slice(None)), (4, [1, 2]), ([1, 2], 4),
        (np.array([[1], [7]]), np.array([0, 4, 9])), (slice(None), np.array([True] * 12 + [False] * 11)),
        (np.arange(31) % 2 == 0, slice(None)), (gp.asarray([2, 0, 2]), slice(None)),
        (Ellipsis, 3), (None, 2), (..., slice(1, 4)),
    ]
    for key in keys:
        # SciPy indexes with the host copy of a gpupy index array.
        host_key = tuple(k.get() if isinstance(k, gp.ndarray) else k for k in key) \
            if isinstance(key, tuple) else key
        want = ref[host_key]
        got = A[key]
        if sps.issparse(want):
            assert gsp.issparse(got), key
            assert got.shape == want.shape, (key, got.shape, want.shape)
            assert_exact(got.toarray().get(), want.toarray())
        else:
            assert_exact(dense(got), np.asarray(want))
    arr = gsp.csr_array(ref)
    sarr = sps.csr_array(ref)
    for key in [(slice(None), [3, 0]), ([1, 2], slice(None)), (slice(2, 5), slice(1, 3))]:
        assert_sparse_matches(arr[key], sarr[key])
    row = arr[3]  # a 1-d sparse array, as SciPy's
    assert row.ndim == 1 and row.shape == (23,)
    assert_exact(row.toarray().get(), sarr[3].toarray())
    for bad in [(31, 0), (0, 23), (-32, 0), [0, 40]]:
        with pytest.raises(IndexError, match="out of range"):
            ref[bad]
        with pytest.raises(IndexError, match="out of range"):
            A[bad]
    with pytest.raises(IndexError, match="Too many indices"):
        A[1, 2, 3]


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_setitem_and_setdiag(rng, fmt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=sps.SparseEfficiencyWarning)
        warnings.simplefilter("ignore", category=gsp.SparseEfficiencyWarning)
        for key, value in [((2, 3), 7.0), ((slice(None), 4), 2.0), ((5, slice(1, 6)), np.arange(5.0)),
                           (([0, 3, 3], [1, 2, 2]), [4.0, 5.0, 6.0]), ((slice(2, 4), slice(0, 2)), 0.0)]:
            A, ref = pair(rng, (9, 8), np.float64, fmt, duplicates=True)
            A[key] = value
            ref[key] = value
            assert_exact(A.toarray().get(), ref.toarray())
        for k in (-8, -2, 0, 3, 7):
            for values in (3.0, np.arange(1.0, 4.0), np.arange(20.0)):
                for f in FORMATS:
                    A, ref = pair(rng, (9, 8), np.float64, f)
                    A.setdiag(values, k)
                    ref.setdiag(values, k)
                    assert_exact(A.toarray().get(), ref.toarray())
        A, ref = pair(rng, (9, 8), np.float64, fmt)
        with pytest.raises(ValueError, match="k exceeds array dimensions"):
            A.setdiag(1.0, 8)
        with pytest.raises(ValueError, match="k exceeds array dimensions"):
            ref.setdiag(1.0, 8)


def test_nonzero_find_transpose(rng):
    for fmt in FORMATS:
        A, ref = pair(rng, (12, 15), np.complex64, fmt, duplicates=fmt != "dia")
        got, want = A.nonzero(), ref.nonzero()
        got = [dense(g) for g in got]
        if fmt == "dia":
            # SciPy lists a DIA matrix's entries diagonal by diagonal, gpupy in C order.
            order = np.lexsort(want[::-1])
            want = [w[order] for w in want]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        same(A.T, ref.T)
        same(A.transpose(), ref.transpose())
        same(A.getH(), ref.getH())
        same(A.H, ref.conj().T)
        r, c, v = gsp.find(A)
        wr, wc, wv = sps.find(ref)
        for g, w in ((r, wr), (c, wc), (v, wv)):
            np.testing.assert_array_equal(dense(g), w)
        with pytest.raises(ValueError, match="axes"):
            A.transpose(axes=(0, 1))
