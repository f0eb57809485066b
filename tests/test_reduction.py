"""Whole-array sums against NumPy.

float64 results must lie within 1e-12 * sum(|x|) of np.sum; float32 results within
1e-5 * sum(|x|) of the float64 sum of the same float32 values (summation order differs
from NumPy's, so float32 is not compared bit for bit).
"""

import numpy as np
import pytest

import gpupy as gp
from helpers import (
    FLOAT_DTYPES,
    VIEW_FUNCS_1D,
    VIEW_FUNCS_2D,
    VIEW_IDS_1D,
    VIEW_IDS_2D,
    dtype_id,
    random_array,
)

pytestmark = pytest.mark.gpu

SHAPES = [(), (0,), (1,), (7,), (1023,), (1025,), (100003,), (2**20 + 3,), (17, 33, 65), (3, 0, 2)]


def shape_id(shape):
    return "x".join(map(str, shape)) if shape else "0d"


def assert_sum_close(got, x, dtype=None):
    """``got`` (a gpupy sum of NumPy array ``x``, accumulated in ``dtype`` or x's dtype)
    is a 0-d array within the tolerance of a float64 reference."""
    dtype = np.dtype(dtype or x.dtype)
    assert isinstance(got, gp.ndarray), type(got)
    assert got.shape == ()
    assert got.dtype == dtype
    value = float(got)
    scale = float(np.sum(np.abs(x.astype(np.float64))))
    if dtype == np.float64:
        ref = float(np.sum(x.astype(np.float64)))
        tol = 1e-12 * scale
    else:
        ref = float(np.sum(x.astype(dtype).astype(np.float64)))
        tol = 1e-5 * scale
    assert abs(value - ref) <= tol, f"sum {value!r}, reference {ref!r}, |diff| {abs(value - ref):.3e} > {tol:.3e}"
    if x.size == 0:
        assert value == 0.0


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_sum(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    g = gp.asarray(x)
    assert_sum_close(gp.sum(g), x)
    assert_sum_close(g.sum(), x)
    assert_sum_close(gp.sum(g, axis=None), x)
    assert np.sum(x).dtype == dtype  # NumPy keeps the float dtype too


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_sum_of_an_empty_array_is_zero(dtype):
    for shape in [(0,), (0, 3), (4, 0, 2)]:
        r = gp.sum(gp.empty(shape, dtype=dtype))
        assert r.shape == () and r.dtype == dtype
        want = np.sum(np.empty(shape, dtype=dtype))
        assert float(r) == float(want) == 0.0
        np.testing.assert_array_equal(r.get(), np.asarray(want), strict=True)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_sum_of_positive_values_grows_with_size(rng, dtype):
    # Values in [0.5, 1): a dropped or double-counted block shows as a gross error.
    for n in [255, 256, 257, 4097, 262145]:
        x = (rng.uniform(0.5, 1.0, n)).astype(dtype)
        assert_sum_close(gp.asarray(x).sum(), x)


@pytest.mark.parametrize("view", VIEW_FUNCS_1D, ids=VIEW_IDS_1D)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_sum_of_1d_views(rng, dtype, view):
    x = random_array(rng, (100003,), dtype)
    assert_sum_close(gp.sum(view(gp.asarray(x))), view(x))


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_sum_of_2d_views(rng, dtype, view):
    x = random_array(rng, (257, 129), dtype)
    assert_sum_close(view(gp.asarray(x)).sum(), view(x))


@pytest.mark.parametrize("offset", [1, 2, 3, 5])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_sum_of_offset_views(rng, dtype, offset):
    # Contiguous, but starting off the 16-byte boundary the vector loads want.
    x = random_array(rng, (10007,), dtype)
    g = gp.asarray(x)
    assert_sum_close(g[offset:].sum(), x[offset:])
    assert_sum_close(g[offset:-offset].sum(), x[offset:-offset])


@pytest.mark.parametrize("shape", [(), (7,), (4, 5), (3, 1, 6)], ids=shape_id)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_keepdims(rng, dtype, shape):
    x = random_array(rng, shape, dtype)
    g = gp.asarray(x)
    want = np.sum(x, keepdims=True)
    for r in (gp.sum(g, keepdims=True), g.sum(keepdims=True)):
        assert r.shape == want.shape == (1,) * len(shape)
        assert r.dtype == dtype
        assert_sum_close(r.sum(), x)  # its one element is the sum


@pytest.mark.parametrize("shape", [(7,), (100003,), (33, 65)], ids=shape_id)
def test_dtype_float64_on_float32_input(rng, shape):
    x = random_array(rng, shape, np.float32)
    g = gp.asarray(x)
    assert np.sum(x, dtype=np.float64).dtype == np.float64
    assert_sum_close(gp.sum(g, dtype=np.float64), x, dtype=np.float64)
    assert_sum_close(g.sum(dtype=np.float64), x, dtype=np.float64)
    assert_sum_close(g.T.sum(dtype="float64"), x, dtype=np.float64)


def test_dtype_float32_on_float64_input(rng):
    x = random_array(rng, (4099,), np.float64)
    assert np.sum(x, dtype=np.float32).dtype == np.float32
    assert_sum_close(gp.sum(gp.asarray(x), dtype=np.float32), x, dtype=np.float32)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_out_argument(rng, dtype):
    x = random_array(rng, (1025,), dtype)
    out = gp.asarray(random_array(rng, (), dtype))
    r = gp.sum(gp.asarray(x), out=out)
    assert r is out
    assert_sum_close(out, x)


def test_result_works_in_further_arithmetic(rng):
    x = random_array(rng, (5000,), np.float64)
    y = random_array(rng, (3,), np.float64)
    s = gp.asarray(x).sum()
    r = gp.asarray(y) * s + 1.0
    np.testing.assert_allclose(r.get(), y * np.sum(x) + 1.0, rtol=1e-12, atol=1e-12 * np.sum(np.abs(x)))


@pytest.mark.parametrize("axis", [0, -1, 1, (0, 1), ()], ids=str)
def test_axis_raises_not_implemented(rng, axis):
    g = gp.asarray(random_array(rng, (4, 5), np.float32))
    with pytest.raises(NotImplementedError):
        gp.sum(g, axis=axis)
    with pytest.raises(NotImplementedError):
        g.sum(axis=axis)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_, np.float16, np.complex64], ids=dtype_id)
def test_non_float_input_raises_type_error(rng, dtype):
    g = gp.asarray(random_array(rng, (6,), dtype))
    with pytest.raises(TypeError):
        gp.sum(g)
    x = random_array(rng, (6,), np.float32)
    with pytest.raises(TypeError):
        gp.sum(x)  # a NumPy array: move it with gp.asarray first
    assert_sum_close(gp.sum(gp.asarray(x)), x)  # still usable
