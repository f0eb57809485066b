"""gpupy as a Python array API namespace (2024.12), next to NumPy's names."""

import numpy as np
import pytest

import gpupy as gp
from helpers import random_array

pytestmark = pytest.mark.gpu


def test_namespace_hooks(rng):
    g = gp.asarray(random_array(rng, (3, 4), np.float32))
    assert g.__array_namespace__() is gp
    assert g.__array_namespace__(api_version="2024.12") is gp
    # NumPy: 'Version "1999.01" of the Array API Standard is not supported.'; gpupy: "gpupy
    # does not implement array API version 1999.01". Both name the version.
    with pytest.raises(ValueError, match=r"1999\.01"):
        g.__array_namespace__(api_version="1999.01")
    assert gp.__array_api_version__ == "2024.12"
    info = gp.__array_namespace_info__()
    assert info.default_dtypes()["real floating"] == np.float64
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
    assert info.capabilities()["boolean indexing"]
    assert g.to_device(info.default_device()) is g


@pytest.mark.parametrize(
    "std, ours",
    [("acos", "arccos"), ("asin", "arcsin"), ("atan", "arctan"), ("atan2", "arctan2"), ("acosh", "arccosh"),
     ("asinh", "arcsinh"), ("atanh", "arctanh"), ("pow", "power"), ("bitwise_left_shift", "left_shift"),
     ("bitwise_right_shift", "right_shift"), ("bitwise_invert", "invert")],
)
def test_standard_names_are_the_numpy_functions(std, ours):
    assert getattr(gp, std) is getattr(gp, ours)


def test_dtype_functions(rng):
    x = random_array(rng, (5, 2), np.int16)
    g = gp.asarray(x)
    assert gp.isdtype(np.float32, "real floating") and not gp.isdtype(np.int8, "real floating")
    assert gp.isdtype(np.uint8, ("bool", "integral")) and gp.isdtype(np.complex64, "numeric")
    assert gp.astype(g, np.float32).dtype == np.float32
    np.testing.assert_array_equal(gp.astype(g, np.float64).get(), x.astype(np.float64))
    assert gp.result_type(g, 1.5) == np.result_type(x, 1.5)
    assert gp.result_type(g, np.float32) == np.result_type(x, np.float32)
    assert gp.can_cast(g, np.int32) and not gp.can_cast(g, np.uint8)
    assert gp.finfo(np.float32).eps == np.finfo(np.float32).eps
    assert gp.iinfo(np.int8).max == 127


def test_transposes(rng):
    x = random_array(rng, (2, 3, 4), np.float64)
    g = gp.asarray(x)
    np.testing.assert_array_equal(gp.permute_dims(g, (2, 0, 1)).get(), np.permute_dims(x, (2, 0, 1)))
    np.testing.assert_array_equal(gp.matrix_transpose(g).get(), np.matrix_transpose(x))
    # NumPy: "Input array must be at least 2-dimensional, but it is 0"; gpupy:
    # "matrix_transpose needs an array of at least 2 dimensions".
    with pytest.raises(ValueError, match="at least 2"):
        gp.matrix_transpose(gp.asarray(x[0, 0]))


def test_unique_cumulative_vecdot_match_numpy(rng):
    x = rng.integers(0, 6, size=(7, 5)).astype(np.int32)
    g = gp.asarray(x)
    # NumPy may return unique_values unsorted (hash-based); gpupy sorts them.
    np.testing.assert_array_equal(gp.unique_values(g).get(), np.sort(np.unique_values(x)))
    c = gp.unique_counts(g)
    w = np.unique_counts(x)
    np.testing.assert_array_equal(c.values.get(), w.values)
    np.testing.assert_array_equal(c.counts.get(), w.counts)
    a = gp.unique_all(g)
    w = np.unique_all(x)
    for got, want in zip(a, w):
        np.testing.assert_array_equal(got.get(), want)
    inv = gp.unique_inverse(g)
    np.testing.assert_array_equal(inv.inverse_indices.get(), np.unique_inverse(x).inverse_indices)
    np.testing.assert_array_equal(gp.cumulative_sum(g, axis=1).get(), np.cumulative_sum(x, axis=1))
    np.testing.assert_array_equal(gp.cumulative_prod(g, axis=0, include_initial=True).get(), np.cumulative_prod(x, axis=0, include_initial=True))
    z1, z2 = random_array(rng, (4, 3), np.complex128), random_array(rng, (4, 3), np.complex128)
    # The k-term complex dot product bound (test_linalg.check), not a flat rtol.
    from test_linalg import check

    check(gp.vecdot(gp.asarray(z1), gp.asarray(z2)), np.vecdot, z1, z2)
