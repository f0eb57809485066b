"""Data and comparison helpers shared by the test modules (imported as ``helpers``).

Inputs are always fresh random data from the test's ``rng`` fixture: never zeros or
aranges, which hide index and stride bugs.
"""

import warnings

import numpy as np
from numpy.testing import assert_allclose, assert_array_equal

import gpupy as gp

FLOAT_DTYPES = [np.float32, np.float64]

ALL_DTYPES = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]

# One dtype of each kind and width class, for suites that sweep dtypes without needing all.
SAMPLE_DTYPES = [
    np.bool_,
    np.int8,
    np.int64,
    np.uint16,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]

# Relative tolerance of one elementwise float operation, per dtype.
ELEMENTWISE_RTOL = {np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-12}


def assert_normwise_close(got, ref, x, y, tol):
    """``||got - ref||_F <= tol * ||x||_F * ||y||_F``, the error bound of a product of
    ``x`` and ``y`` (NumPy arrays; ``ref`` computed in float64 or complex128); exact
    equality when an operand is empty or zero."""
    wide = ref.dtype
    scale = np.linalg.norm(x.astype(wide).ravel()) * np.linalg.norm(y.astype(wide).ravel())
    if scale == 0.0:  # an empty operand: every element of the result is an empty sum
        np.testing.assert_array_equal(got, ref)
        return
    err = np.linalg.norm((got.astype(wide) - ref).ravel())
    assert err <= tol * scale, f"relative error {err / scale:.3e} > {tol:.0e}"


def dtype_id(dtype):
    return np.dtype(dtype).name


def random_array(rng, shape, dtype=np.float64):
    """Random values of ``dtype``: floats uniform in [-1, 1), integers over the dtype's
    whole range, random booleans, complex numbers with both parts in [-1, 1)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    if dt.kind == "c":
        re = rng.uniform(-1.0, 1.0, size=shape)
        im = rng.uniform(-1.0, 1.0, size=shape)
        return np.asarray(re + 1j * im).astype(dt)
    return np.asarray(rng.uniform(-1.0, 1.0, size=shape)).astype(dt)


def random_scalar(rng, dtype):
    """One random value of ``dtype`` as a 0-d NumPy array's item (a Python scalar)."""
    return random_array(rng, (), dtype).item()


def random_pair(rng, shape, dtype=np.float64):
    """A random NumPy array and its device copy."""
    x = random_array(rng, shape, dtype)
    return x, gp.asarray(x)


# Views as functions that work on NumPy and gpupy arrays alike, with the base shape
# they apply to. Applying the same function to two bases of the same shape gives two
# views of the same shape.
VIEWS_1D = [
    ("contiguous", lambda a: a),
    ("offset1", lambda a: a[1:]),  # starts 4 or 8 bytes into the block: not 16-byte aligned
    ("offset3_short", lambda a: a[3:-2]),
    ("step2", lambda a: a[::2]),
    ("negstep", lambda a: a[::-1]),
    ("negstep3", lambda a: a[-2::-3]),
]
VIEWS_2D = [
    ("contiguous", lambda a: a),
    ("transposed", lambda a: a.T),
    ("rows_step2", lambda a: a[::2]),
    ("cols_step2", lambda a: a[:, ::2]),
    ("negstep", lambda a: a[::-1, ::-2]),
    ("offset", lambda a: a[1:, 1:]),
    ("transposed_sliced", lambda a: a.T[1::3, ::-1]),
]
VIEW_IDS_1D = [name for name, _ in VIEWS_1D]
VIEW_FUNCS_1D = [f for _, f in VIEWS_1D]
VIEW_IDS_2D = [name for name, _ in VIEWS_2D]
VIEW_FUNCS_2D = [f for _, f in VIEWS_2D]


ATTRIBUTES = ("shape", "dtype", "ndim", "size", "nbytes", "itemsize")


def assert_same_attributes(g, x):
    """gpupy array ``g`` reports NumPy array ``x``'s shape, dtype, sizes and strides.

    Strides of size-0 arrays are left out: recent NumPy versions report all-zero strides
    for new empty arrays, older ones C strides, and neither is observable."""
    x = np.asarray(x)
    for name in ATTRIBUTES:
        assert getattr(g, name) == getattr(x, name), f"{name}: gpupy {getattr(g, name)!r}, numpy {getattr(x, name)!r}"
    assert isinstance(g.strides, tuple)
    assert len(g.strides) == x.ndim
    if x.size > 0:
        assert g.strides == x.strides, f"strides: gpupy {g.strides}, numpy {x.strides}"


def assert_equal_to_numpy(g, want):
    """gpupy array ``g`` holds exactly ``want`` (same shape, dtype and bits)."""
    assert isinstance(g, gp.ndarray), type(g)
    want = np.asarray(want)
    got = g.get()
    assert got.dtype == want.dtype, f"dtype: gpupy {got.dtype}, numpy {want.dtype}"
    assert got.shape == want.shape, f"shape: gpupy {got.shape}, numpy {want.shape}"
    assert_array_equal(got, want, strict=True)


def assert_elementwise_result(g, want):
    """Result ``g`` of + - * / matches NumPy's ``want`` computed in the same precision.

    The checked tolerance (float32 rtol 1e-6, float64 1e-12) comes first, so a gross
    error reports as such; then bit-exactness, because one IEEE operation is correctly
    rounded on the GPU as in NumPy."""
    assert isinstance(g, gp.ndarray), type(g)
    want = np.asarray(want)
    got = g.get()
    assert got.dtype == want.dtype, f"dtype: gpupy {got.dtype}, numpy {want.dtype}"
    assert got.shape == want.shape, f"shape: gpupy {got.shape}, numpy {want.shape}"
    assert_allclose(got, want, rtol=ELEMENTWISE_RTOL[want.dtype], atol=0)
    assert_array_equal(got, want, strict=True)


def raises_like(gpupy_call, numpy_call):
    """Both calls raise, and gpupy's error is an instance of NumPy's error type."""
    import pytest

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as np_err:
            numpy_call()
        with pytest.raises(np_err.type):
            gpupy_call()


def same_outcome(gpupy_call, numpy_call):
    """Runs both calls: both return equal values of one type, or both raise one type.
    (NumPy's own deprecation warnings are silenced for both.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            want = numpy_call()
        except Exception as e:  # noqa: BLE001 - any NumPy error is what gpupy must match
            want_exc = type(e)
        else:
            want_exc = None
        if want_exc is not None:
            try:
                gpupy_call()
            except want_exc:
                return
            except Exception as e:  # noqa: BLE001
                raise AssertionError(f"numpy raised {want_exc.__name__}, gpupy raised {type(e).__name__}: {e}") from e
            raise AssertionError(f"numpy raised {want_exc.__name__}, gpupy did not")
        got = gpupy_call()
    assert type(got) is type(want), f"gpupy returned {type(got).__name__}, numpy {type(want).__name__}"
    assert got == want, f"gpupy {got!r}, numpy {want!r}"
