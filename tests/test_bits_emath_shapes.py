"""packbits/unpackbits, gpupy.emath, diagonal, broadcast and einsum_path against NumPy.

Bit packing is integer arithmetic and must match exactly. emath's functions are gpupy's
ufuncs on the (possibly complexified) input: the dtype and domain decision must match
NumPy exactly, the values within the ufuncs' own error budgets (CUDA's libdevice: a few
ulps for real functions; helpers.COMPLEX_FUNCTION_ULPS for complex ones), checked here
with rtol = (COMPLEX_FUNCTION_ULPS + 1) eps of the result's precision. diagonal is a view
(exact); broadcast and einsum_path are shape logic (exact, the latter NumPy's own).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import gpupy as gp
from helpers import ALL_DTYPES, COMPLEX_FUNCTION_ULPS, VIEW_FUNCS_2D, VIEW_IDS_2D, dtype_id, raises_like

pytestmark = pytest.mark.gpu


def exact(got, want):
    got = gp.asnumpy(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert_array_equal(got, want)


# --- packbits / unpackbits ------------------------------------------------------------

INT_DTYPES = [d for d in ALL_DTYPES if np.dtype(d).kind in "biu"]
SHAPES_AXES = [((17,), None), ((3, 10), 1), ((3, 10), 0), ((2, 3, 9), -1), ((), None), ((0, 3), 0), ((8,), 0)]


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape,axis", SHAPES_AXES)
def test_packbits_matches_numpy(rng, dtype, shape, axis):
    a = rng.integers(-2, 3, shape).astype(dtype)  # zeros and non-zeros, negatives wrap for unsigned
    for bitorder in ("big", "little"):
        exact(gp.packbits(gp.asarray(a), axis=axis, bitorder=bitorder), np.packbits(a, axis=axis, bitorder=bitorder))


@pytest.mark.parametrize("shape,axis", SHAPES_AXES)
def test_unpackbits_matches_numpy(rng, shape, axis):
    u = rng.integers(0, 256, shape).astype(np.uint8)
    for bitorder in ("big", "little", "l", "b"):
        for count in (None, 3, -2, 0, 40):
            if u.size == 0 and count:
                continue  # NumPy leaves the zero padding of an empty input uninitialized
            try:
                want = np.unpackbits(u, axis=axis, count=count, bitorder=bitorder)
            except ValueError:
                with pytest.raises(ValueError, match="count"):
                    gp.unpackbits(gp.asarray(u), axis=axis, count=count, bitorder=bitorder)
                continue
            exact(gp.unpackbits(gp.asarray(u), axis=axis, count=count, bitorder=bitorder), want)


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_bits_of_views_round_trip(rng, view):
    base = rng.integers(0, 2, (12, 19)).astype(np.bool_)
    x, g = view(base), view(gp.asarray(base))
    packed = gp.packbits(g, axis=1)
    exact(packed, np.packbits(x, axis=1))
    exact(gp.unpackbits(packed, axis=1, count=x.shape[1]), np.unpackbits(np.packbits(x, axis=1), axis=1, count=x.shape[1]))


def test_bits_errors():
    raises_like(lambda: gp.packbits(gp.ones(3)), lambda: np.packbits(np.ones(3)), "integer or boolean")
    raises_like(lambda: gp.packbits(gp.ones(3, dtype=np.int8), bitorder="l"),
                lambda: np.packbits(np.ones(3, np.int8), bitorder="l"), "little")
    raises_like(lambda: gp.unpackbits(gp.ones(3, dtype=np.int8)), lambda: np.unpackbits(np.ones(3, np.int8)), "unsigned byte")
    raises_like(lambda: gp.unpackbits(gp.ones(3, dtype=np.uint8), bitorder="x"),
                lambda: np.unpackbits(np.ones(3, np.uint8), bitorder="x"), "begin with")
    raises_like(lambda: gp.packbits(gp.ones((2, 3), dtype=np.int8), axis=2), lambda: np.packbits(np.ones((2, 3), np.int8), axis=2))


# --- emath ----------------------------------------------------------------------------

EMATH_INPUTS = [
    np.array([0.25, 0.5, 0.9], np.float32),
    np.array([-4.0, 2.0, -0.5]),
    np.array([3, 1, -2], np.int16),
    np.array([0.5, 2, -3], np.float16),
    np.array([2, 0, 1], np.uint8),
    np.array([1 + 1j, -2 + 0j], np.complex64),
    np.array([[0.3, -1.5], [0.7, 0.1]], np.float64),
]


def emath_close(got, want):
    got = gp.asnumpy(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    eps = np.finfo(want.dtype).eps
    assert_allclose(got, want, rtol=(COMPLEX_FUNCTION_ULPS + 1) * eps, atol=(COMPLEX_FUNCTION_ULPS + 1) * eps, equal_nan=True)


@pytest.mark.parametrize("name", ["sqrt", "log", "log2", "log10", "arccos", "arcsin", "arctanh"])
@pytest.mark.parametrize("x", EMATH_INPUTS, ids=lambda x: f"{x.dtype}{x.shape}")
def test_emath_functions_match_numpy(name, x):
    with np.errstate(all="ignore"):
        want = getattr(np.emath, name)(x)
        emath_close(getattr(gp.emath, name)(gp.asarray(x)), want)


def test_emath_power_and_logn():
    x = np.array([-8.0, 2.0, 3.0])
    p = np.array([-1, 2, 3])
    emath_close(gp.emath.power(gp.asarray(x), gp.asarray(p)), np.emath.power(x, p))
    emath_close(gp.emath.power(gp.asarray(np.abs(x)), gp.asarray(p)), np.emath.power(np.abs(x), p))
    n = np.array([2, -2, 10])
    emath_close(gp.emath.logn(gp.asarray(n), gp.asarray(np.abs(x))), np.emath.logn(n, np.abs(x)))
    emath_close(gp.emath.sqrt(-4), np.emath.sqrt(-4))  # a Python scalar: a 0-d result
    assert sorted(gp.emath.__all__) == sorted(n for n in dir(np.emath) if not n.startswith("_"))


# --- diagonal, broadcast, einsum_path -------------------------------------------------


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("offset", [0, 1, -2, 9])
def test_diagonal_matches_numpy(rng, view, offset):
    base = rng.normal(size=(7, 9))
    exact(gp.diagonal(view(gp.asarray(base)), offset), np.diagonal(view(base), offset))
    base3 = rng.normal(size=(3, 4, 5))
    exact(gp.diagonal(gp.asarray(base3), offset, 2, 0), np.diagonal(base3, offset, 2, 0))
    raises_like(lambda: gp.diagonal(gp.ones(3)), lambda: np.diagonal(np.ones(3)), "two dimensions")


def test_broadcast_shape_attributes():
    args_np = [np.ones((2, 1)), np.ones(3), 5.0]
    args_gp = [gp.ones((2, 1)), gp.ones(3), 5.0]
    b, want = gp.broadcast(*args_gp), np.broadcast(*args_np)
    assert (b.shape, b.ndim, b.nd, b.size, b.numiter, b.index) == (want.shape, want.ndim, want.nd, want.size,
                                                                     want.numiter, want.index)
    b2 = gp.broadcast(b, gp.ones((4, 1, 1)))
    want2 = np.broadcast(want, np.ones((4, 1, 1)))
    assert (b2.shape, b2.numiter) == (want2.shape, want2.numiter)
    b2.reset()
    assert b2.index == 0
    assert gp.broadcast().shape == np.broadcast().shape
    raises_like(lambda: gp.broadcast(gp.ones(2), gp.ones(3)), lambda: np.broadcast(np.ones(2), np.ones(3)), "shape mismatch")
    with pytest.raises(TypeError, match="asnumpy"):
        iter(b)


def test_einsum_path_matches_numpy(rng):
    shapes = [(2, 3), (3, 40), (40, 5)]
    ops = [rng.normal(size=s) for s in shapes]
    for opt in ("greedy", "optimal", True, False):
        got = gp.einsum_path("ij,jk,kl->il", *[gp.asarray(o) for o in ops], optimize=opt)
        want = np.einsum_path("ij,jk,kl->il", *ops, optimize=opt)
        assert got == want
    path, _ = gp.einsum_path("ij,jk,kl->il", *[gp.asarray(o) for o in ops])
    got = gp.einsum("ij,jk,kl->il", *[gp.asarray(o) for o in ops], optimize=path)
    assert_allclose(gp.asnumpy(got), np.einsum("ij,jk,kl->il", *ops), rtol=1e-12, atol=1e-12)
    sub = gp.einsum_path(gp.asarray(ops[0]), [0, 1], gp.asarray(ops[1]), [1, 2], [0, 2])
    assert sub == np.einsum_path(ops[0], [0, 1], ops[1], [1, 2], [0, 2])
