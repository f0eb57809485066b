"""Creation routines against NumPy: numerical ranges (``arange``, ``linspace``,
``logspace``), matrices (``eye``, ``identity``, ``tri``, ``diag``), ``meshgrid`` and the
``*_like``/copy family."""

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import gpupy as gp
from helpers import (
    raises_like,
    SAMPLE_DTYPES,
    VIEW_FUNCS_2D,
    VIEW_IDS_2D,
    assert_equal_to_numpy,
    assert_same_attributes,
    dtype_id,
    examples,
    random_array,
)

pytestmark = pytest.mark.gpu

DTYPES = SAMPLE_DTYPES
NUMERIC = [d for d in DTYPES if d is not np.bool_]


def assert_close(g, want, ulps=4):
    """Same dtype and shape, values within ``ulps`` eps of the largest |value|.

    Derivation (linspace): start + i * step rounds the step (relative to |stop - start| <=
    2 max|x|), the product and the sum: at most 3 roundings of size <= max|x| u each, so
    gpupy's and NumPy's each err by <= 1.5 eps max|x| and differ by <= 3 eps max|x|:
    ``ulps=4``. logspace passes its own (see test_logspace)."""
    want = np.asarray(want)
    got = g.get()
    assert got.dtype == want.dtype, f"dtype: gpupy {got.dtype}, numpy {want.dtype}"
    assert got.shape == want.shape, f"shape: gpupy {got.shape}, numpy {want.shape}"
    if want.dtype.kind in "fc":
        eps = np.finfo(want.dtype).eps
        scale = np.max(np.abs(want)) if want.size else 0.0
        assert_allclose(got, want, rtol=ulps * eps, atol=ulps * eps * scale)
    else:
        assert_array_equal(got, want, strict=True)


same_error = raises_like


# ---------------------------------------------------------------------------------------
# arange

ARANGE_CASES = [
    ((10,), {}),
    ((0,), {}),
    ((-3,), {}),
    ((3, 17), {}),
    ((3, 17, 4), {}),
    ((17, 3, -4), {}),
    ((17, 3, -1), {}),
    ((3, 17, -1), {}),
    ((5.0,), {}),
    ((0, 1, 0.1), {}),
    ((1, 0, -0.1), {}),
    ((-2.5, 7.25, 0.75), {}),
    ((0.5, 5, 1), {"dtype": np.int64}),
    ((0, 1, 0.1), {"dtype": np.float32}),
    ((-1, 1, 0.01), {"dtype": np.float32}),
    ((0, 100, 0.7), {"dtype": np.float16}),
    ((0, 300, 1), {"dtype": np.int8}),
    ((250, 300, 3), {"dtype": np.int64}),
    ((0, 70000, 7), {"dtype": np.uint16}),
    ((10, 0, -2), {"dtype": np.uint16}),
    ((0, 5 + 3j, 1 + 1j), {}),
    ((1j, 10, 0.5), {"dtype": np.complex64}),
    ((2,), {"dtype": np.bool_}),
    ((1, 3), {"dtype": np.bool_}),
    ((np.float32(0.5), np.float32(3)), {}),
    ((np.int8(1), np.int8(9), np.int8(2)), {}),
    ((np.uint64(3),), {}),
    ((2**40, 2**40 + 33, 5), {}),
    ((1.0, 1.0 + 1e-10, 1e-12), {}),
    ((0, 1, 1e300), {}),
    ((0, 1, -1e300), {}),
]


@pytest.mark.parametrize("args,kwargs", ARANGE_CASES, ids=[f"{a}-{k}" for a, k in ARANGE_CASES])
def test_arange_matches_numpy_bit_for_bit(args, kwargs):
    want = np.arange(*args, **kwargs)
    assert_equal_to_numpy(gp.arange(*args, **kwargs), want)


@pytest.mark.parametrize("dtype", NUMERIC, ids=dtype_id)
def test_arange_every_dtype(dtype):
    for args in [(7,), (2, 40, 3), (40, 2, -3), (0, 1000)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.arange(*args, dtype=dtype)
        assert_equal_to_numpy(gp.arange(*args, dtype=dtype), want)


def test_arange_long_float32_sequence():
    # Long enough that i * delta rounds in float32: the formula must be NumPy's.
    want = np.arange(-3.0, 1e5 * 0.37, 0.37, dtype=np.float32)
    assert_equal_to_numpy(gp.arange(-3.0, 1e5 * 0.37, 0.37, dtype=np.float32), want)


@settings(max_examples=examples(40), deadline=None)
@given(
    start=st.one_of(st.integers(-1000, 1000), st.floats(-1e3, 1e3, allow_nan=False)),
    span=st.floats(0, 2000, allow_nan=False),
    step=st.one_of(st.integers(-50, 50).filter(bool), st.floats(0.01, 50).map(lambda x: x * (-1) ** int(x * 100))),
    dtype=st.sampled_from([None, np.int16, np.int64, np.uint64, np.float16, np.float32, np.float64, np.complex128]),
)
def test_arange_hypothesis(start, span, step, dtype):
    stop = start + math.copysign(span, step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = np.arange(start, stop, step, dtype=dtype)
        except (OverflowError, ValueError) as e:
            with pytest.raises(type(e), match=re.escape(str(e))):
                gp.arange(start, stop, step, dtype=dtype)
            return
    assert_equal_to_numpy(gp.arange(start, stop, step, dtype=dtype), want)


@pytest.mark.parametrize(
    "args,kwargs",
    [
        ((0, 5, 0), {}),
        ((0, 10, float("nan")), {}),
        ((0, float("inf")), {}),
        ((0, 3), {"dtype": np.bool_}),
        ((0, (1, 2)), {}),
        ((-1, 3), {"dtype": np.uint8}),
    ],
)
def test_arange_errors(args, kwargs):
    same_error(lambda: gp.arange(*args, **kwargs), lambda: np.arange(*args, **kwargs))


# ---------------------------------------------------------------------------------------
# linspace, logspace

LINSPACE_CASES = [
    (0, 1, 5, {}),
    (0, 1, 50, {}),
    (-3.5, 11.25, 7, {"endpoint": False}),
    (10, -10, 21, {}),
    (0, 1, 0, {}),
    (0, 1, 1, {}),
    (2, 7, 1, {"endpoint": False}),
    (0, 10, 6, {"dtype": np.int64}),
    (-7, 5, 13, {"dtype": np.int8}),
    (0, 1, 11, {"dtype": np.float32}),
    (np.float32(0.25), np.float32(3), 9, {}),
    (np.float16(0), 1, 17, {}),
    (np.int8(2), 9, 4, {}),
    (0, 1 + 2j, 5, {}),
    (1e-310, 2e-310, 4, {}),
    (3, 3, 4, {}),
    (0, 1, 7, {"dtype": np.complex64}),
]


@pytest.mark.parametrize("start,stop,num,kw", LINSPACE_CASES, ids=[str(c) for c in LINSPACE_CASES])
def test_linspace(start, stop, num, kw):
    want, want_step = np.linspace(start, stop, num, retstep=True, **kw)
    got, step = gp.linspace(start, stop, num, retstep=True, **kw)
    assert_close(got, want)
    if isinstance(want_step, float) and math.isnan(want_step):
        assert math.isnan(step)
    else:
        assert step == want_step
    assert_close(gp.linspace(start, stop, num, **kw), want)


def test_linspace_float64_is_exact():
    # arange(num) * step + start, last = stop: the same IEEE operations as NumPy's.
    for args in [(0.0, 1.0, 50), (-2.5, 7.125, 33), (1e3, -1e-3, 100)]:
        assert_equal_to_numpy(gp.linspace(*args), np.linspace(*args))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_linspace_array_endpoints(rng, axis):
    start = random_array(rng, (3,), np.float64)
    stop = random_array(rng, (3,), np.float64) + 2
    want = np.linspace(start, stop, 6, axis=axis)
    assert_close(gp.linspace(start, stop, 6, axis=axis), want)
    assert_close(gp.linspace(gp.asarray(start), gp.asarray(stop), 6, axis=axis), want)
    assert_close(gp.linspace(0.0, gp.asarray(stop), 6, axis=axis), np.linspace(0.0, stop, 6, axis=axis))


def test_linspace_errors():
    same_error(lambda: gp.linspace(0, 1, -1), lambda: np.linspace(0, 1, -1))
    same_error(lambda: gp.linspace(0, 1, 2.5), lambda: np.linspace(0, 1, 2.5))


@pytest.mark.parametrize(
    "args,kw",
    [
        ((0, 3, 7), {}),
        ((-2, 2, 9), {"base": 2.0}),
        ((1, 4, 4), {"endpoint": False, "dtype": np.float32}),
        ((np.float32(0), np.float32(1), 5), {}),
        ((0, 2, 5), {"dtype": np.int64}),
        ((0, 1, 0), {}),
    ],
)
def test_logspace(args, kw):
    want = np.logspace(*args, **kw)
    got = gp.logspace(*args, **kw)
    if want.dtype.kind in "iu":
        # Integer results truncate base**y. Where the float power is an integer (10**2),
        # pow's error (libdevice: 2 ulp) may put it just below and the truncation 1 lower;
        # elsewhere the truncation is the same as NumPy's.
        assert got.dtype == want.dtype and got.shape == want.shape
        f = np.logspace(*args, **{k: v for k, v in kw.items() if k != "dtype"})
        near = np.abs(f - np.round(f)) <= 4 * np.finfo(np.float64).eps * np.abs(f)
        diff = got.get().astype(np.int64) - want.astype(np.int64)
        assert np.all(diff[~near] == 0) and np.all(np.abs(diff[near]) <= 1), (got.get(), want)
    else:
        # base**y: y's rounding (linspace, 1.5 eps |y|) scales by |ln(base) y| <= 4.6 *
        # 2 in these cases (relative 9.2 * 1.5 eps); pow adds 2 ulp (libdevice) and NumPy's
        # own pow about 1: within 16 eps of max|x|.
        assert_close(got, want, ulps=16)


def test_logspace_array_base(rng):
    base = np.array([2.0, 3.0, 10.0])
    want = np.logspace(0, 2, 5, base=base)
    assert_close(gp.logspace(0, 2, 5, base=base), want, ulps=16)  # test_logspace's derivation


# ---------------------------------------------------------------------------------------
# eye, identity, tri, diag


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_eye_and_identity(dtype):
    for args in [(4,), (3, 5), (5, 3), (0,), (1,), (4, 4, 1), (4, 6, 3), (6, 4, -2), (3, 3, 5), (3, 3, -7)]:
        assert_equal_to_numpy(gp.eye(*args, dtype=dtype), np.eye(*args, dtype=dtype))
    assert_equal_to_numpy(gp.eye(3, k=-1, M=4, dtype=dtype), np.eye(3, k=-1, M=4, dtype=dtype))
    assert_equal_to_numpy(gp.identity(5, dtype=dtype), np.identity(5, dtype=dtype))
    assert_equal_to_numpy(gp.identity(3), np.identity(3))


def test_eye_fortran_order():
    g = gp.eye(3, 4, k=1, order="F")
    want = np.eye(3, 4, k=1, order="F")
    assert_equal_to_numpy(g, want)
    assert_same_attributes(g, want)


def test_eye_errors():
    same_error(lambda: gp.eye(-1), lambda: np.eye(-1))


@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.bool_, np.complex64], ids=dtype_id)
def test_tri(dtype):
    for args in [(4,), (3, 5), (5, 3), (4, 4, 1), (4, 4, -2), (3, 6, 9), (3, 6, -9), (0,), (-1,)]:
        assert_equal_to_numpy(gp.tri(*args, dtype=dtype), np.tri(*args, dtype=dtype))
    assert_equal_to_numpy(gp.tri(3), np.tri(3))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("k", [0, 1, -2, 7])
def test_diag_of_vector(rng, dtype, k):
    v = random_array(rng, (5,), dtype)
    assert_equal_to_numpy(gp.diag(gp.asarray(v), k), np.diag(v, k))
    # A non-contiguous vector.
    assert_equal_to_numpy(gp.diag(gp.asarray(v)[::-2], k), np.diag(v[::-2], k))
    assert_equal_to_numpy(gp.diag(v[:0], k), np.diag(v[:0], k))


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("k", [0, 2, -1, -9])
def test_diag_of_matrix_is_a_view(rng, view, k):
    x = random_array(rng, (6, 7), np.float32)
    g = gp.asarray(x)
    d = gp.diag(view(g), k)
    assert_equal_to_numpy(d, np.diag(view(x), k))
    if d.size:
        assert_same_attributes(d, np.diag(view(x), k))
        d[...] = 5.0  # gpupy's diagonal is a writable view (NumPy's is read-only)
        want = x.copy()
        idx = np.arange(d.size)
        rows, cols = (idx, idx + k) if k >= 0 else (idx - k, idx)
        view(want)[rows, cols] = 5.0
        assert_array_equal(g.get(), want)


def test_diag_errors(rng):
    x = random_array(rng, (2, 2, 2), np.float64)
    same_error(lambda: gp.diag(gp.asarray(x)), lambda: np.diag(x))
    same_error(lambda: gp.diag(gp.asarray(np.float64(1))), lambda: np.diag(np.float64(1)))


def test_diagflat(rng):
    x = random_array(rng, (2, 3), np.int64)
    assert_equal_to_numpy(gp.diagflat(gp.asarray(x), -1), np.diagflat(x, -1))


# ---------------------------------------------------------------------------------------
# meshgrid


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("copy", [True, False])
def test_meshgrid(rng, indexing, sparse, copy):
    xs = [random_array(rng, (n,), np.float32) for n in (3, 4, 2)]
    for k in (1, 2, 3):
        want = np.meshgrid(*xs[:k], indexing=indexing, sparse=sparse, copy=copy)
        got = gp.meshgrid(*(gp.asarray(x) for x in xs[:k]), indexing=indexing, sparse=sparse, copy=copy)
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_equal_to_numpy(g, w)
    assert gp.meshgrid() == ()


def test_meshgrid_of_views_and_errors(rng):
    x = random_array(rng, (5,), np.int64)
    y = random_array(rng, (2, 3), np.int64)  # any shape is flattened
    want = np.meshgrid(x[::-2], y)
    got = gp.meshgrid(gp.asarray(x)[::-2], gp.asarray(y))
    for g, w in zip(got, want):
        assert_equal_to_numpy(g, w)
    with pytest.raises(ValueError, match="Valid values for `indexing` are 'xy' and 'ij'"):
        gp.meshgrid(gp.asarray(x), indexing="yx")


# ---------------------------------------------------------------------------------------
# copies and *_like


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("dtype", [np.bool_, np.uint16, np.float16, np.complex128], ids=dtype_id)
def test_copy_and_ascontiguousarray(rng, view, dtype):
    x = random_array(rng, (6, 5), dtype)
    g = view(gp.asarray(x))
    want = view(x)
    c = gp.copy(g)
    assert_equal_to_numpy(c, np.copy(want))
    assert_same_attributes(c, np.copy(want))
    c[...] = x[0, 0]
    assert_equal_to_numpy(g, want)  # a copy: the source is unchanged
    a = gp.ascontiguousarray(g)
    assert_equal_to_numpy(a, np.ascontiguousarray(want))
    assert a.flags.c_contiguous
    assert_same_attributes(a, np.ascontiguousarray(want))
    for order in "CFA":
        assert_same_attributes(gp.copy(g, order=order), np.copy(want, order=order))


def test_ascontiguousarray_returns_contiguous_input_and_converts(rng):
    x = random_array(rng, (4, 3), np.float32)
    g = gp.asarray(x)
    assert gp.ascontiguousarray(g) is g
    assert_equal_to_numpy(gp.ascontiguousarray(g, dtype=np.float64), np.ascontiguousarray(x, dtype=np.float64))
    assert_equal_to_numpy(gp.ascontiguousarray(np.float32(2.5)), np.ascontiguousarray(np.float32(2.5)))
    assert_equal_to_numpy(gp.ascontiguousarray([[1, 2], [3, 4]]), np.ascontiguousarray([[1, 2], [3, 4]]))


PROTOTYPES = [
    ("contiguous", lambda a: a),
    ("transposed", lambda a: a.transpose(2, 0, 1)),
    ("fortran", lambda a: a.T),
    ("sliced", lambda a: a[::2, :, ::-1]),
    ("zero_d", lambda a: a[0, 0, 0]),
    ("empty", lambda a: a[:0]),
]


@pytest.mark.parametrize("proto", [f for _, f in PROTOTYPES], ids=[n for n, _ in PROTOTYPES])
@pytest.mark.parametrize("dtype", [None, np.int8, np.complex64], ids=str)
def test_like_functions(rng, proto, dtype):
    x = proto(random_array(rng, (4, 3, 5), np.float64))
    g = proto(gp.asarray(random_array(rng, (4, 3, 5), np.float64)))
    for order in ["K", "C", "F", "A"]:
        e = gp.empty_like(g, dtype=dtype, order=order)
        assert_same_attributes(e, np.empty_like(x, dtype=dtype, order=order))
    assert_equal_to_numpy(gp.zeros_like(g, dtype=dtype), np.zeros_like(x, dtype=dtype))
    assert_equal_to_numpy(gp.ones_like(g, dtype=dtype), np.ones_like(x, dtype=dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.full_like(x, 2.75 - 1j if dtype == np.complex64 else 2.75, dtype=dtype)
    got = gp.full_like(g, 2.75 - 1j if dtype == np.complex64 else 2.75, dtype=dtype)
    assert_equal_to_numpy(got, want)
    assert_same_attributes(gp.zeros_like(g, dtype=dtype), np.zeros_like(x, dtype=dtype))


def test_like_functions_with_shape_and_values(rng):
    x = random_array(rng, (3, 4), np.int64)
    g = gp.asarray(x)
    for shape in [(2, 5), 7, (), (0, 3)]:
        assert_same_attributes(gp.empty_like(g, shape=shape), np.empty_like(x, shape=shape))
        assert_equal_to_numpy(gp.zeros_like(g, shape=shape), np.zeros_like(x, shape=shape))
        assert_equal_to_numpy(gp.ones_like(g.T, np.uint16, shape=shape), np.ones_like(x.T, np.uint16, shape=shape))
    assert_equal_to_numpy(gp.full_like(g, 2.9), np.full_like(x, 2.9))
    row = random_array(rng, (4,), np.float64)
    assert_equal_to_numpy(gp.full_like(g, row, dtype=np.float32), np.full_like(x, row, dtype=np.float32))
    assert_equal_to_numpy(gp.full_like(g, gp.asarray(row)), np.full_like(x, row))
    # NumPy inputs work as prototypes too (only their shape and dtype are used).
    assert_equal_to_numpy(gp.zeros_like(x[::2]), np.zeros_like(x[::2]))
    same_error(lambda: gp.full_like(gp.zeros(3, np.uint8), -1), lambda: np.full_like(np.zeros(3, np.uint8), -1))


def test_full_with_array_value_and_order(rng):
    row = random_array(rng, (3,), np.float32)
    assert_equal_to_numpy(gp.full((2, 3), row), np.full((2, 3), row))
    assert_equal_to_numpy(gp.full((2, 3), gp.asarray(row)), np.full((2, 3), row))
    for f, nf in [(gp.zeros, np.zeros), (gp.ones, np.ones), (gp.empty, np.empty)]:
        assert_same_attributes(f((2, 3), order="F"), nf((2, 3), order="F"))
