"""gpupy.testing: NumPy's assertions taking gpupy arrays (copied to the host), passing
and failing as NumPy's do on the same values. The no-array cases run without a GPU."""

import re
import warnings

import numpy as np
import pytest

import gpupy as gp
import gpupy.testing as gt
from helpers import random_array

ARRAY_ASSERTIONS = ["assert_allclose", "assert_array_equal", "assert_array_almost_equal", "assert_array_less",
                    "assert_equal", "assert_almost_equal", "assert_approx_equal", "assert_array_max_ulp",
                    "assert_array_almost_equal_nulp"]


def test_names():
    for name in ARRAY_ASSERTIONS:
        assert getattr(gt, name).__name__ == name and getattr(gt, name).__doc__
    for name in ("assert_", "assert_raises", "assert_raises_regex", "assert_warns", "assert_no_warnings",
                 "assert_string_equal", "assert_no_gc_cycles"):
        assert getattr(gt, name) is getattr(np.testing, name)
    assert gp.testing is gt
    assert set(gt.__all__) == {n for n in dir(gt) if not n.startswith("_")}


def test_numpy_inputs_work_as_numpys():
    x = np.array([1.0, 2.0, 3.0])
    gt.assert_allclose(x, x + 1e-9, rtol=1e-8)
    gt.assert_array_equal(x, [1, 2, 3])
    gt.assert_equal({"a": [x, 1]}, {"a": [x.copy(), 1]})
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        gt.assert_allclose(x, x + 1e-3, rtol=1e-8)
    with pytest.raises(AssertionError):
        gt.assert_array_less(x, x)
    gt.assert_raises(ZeroDivisionError, lambda: 1 / 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # NumPy 2.4 deprecates assert_warns
        gt.assert_warns(UserWarning, lambda: warnings.warn("w", UserWarning))


def _numpy_error(f):
    """The exception NumPy's call ``f()`` raises, or None."""
    try:
        f()
    except Exception as e:  # noqa: BLE001 - NumPy's error is what gpupy must give
        return e
    return None


def _first_line(err):
    """The first non-empty line of an assertion's message (NumPy's headline)."""
    assert err is not None, "NumPy did not raise"
    return next(line for line in str(err).splitlines() if line.strip())


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_pass_and_fail_on_gpupy_arrays(rng, dtype):
    x = random_array(rng, (5, 7), dtype)
    g = gp.asarray(x)
    eps = np.finfo(dtype).eps
    # Passing cases: the same values, within tolerance, keyword arguments, views.
    gt.assert_array_equal(g, x)
    gt.assert_array_equal(x, g)
    gt.assert_array_equal(g, g.copy(), strict=True)
    gt.assert_array_equal(g[::-1, 1::2], x[::-1, 1::2])
    gt.assert_allclose(g * (1 + 2 * eps), x, rtol=4 * eps)  # within 4 eps: one rounding of 2 eps
    gt.assert_allclose(actual=g, desired=x)
    gt.assert_array_almost_equal(g, x, decimal=5)
    gt.assert_almost_equal(g, x)
    gt.assert_equal(g, x)
    gt.assert_equal([g, (g, 3)], [x, (x, 3)])  # inside lists and tuples too
    gt.assert_equal({"k": g}, {"k": x})
    # The ulp assertions: NumPy's outcome on the host copy (its max_ulp refuses complex
    # arrays with NotImplementedError; gpupy's must raise the same).
    for name, kw in (("assert_array_max_ulp", {"maxulp": 0}), ("assert_array_almost_equal_nulp", {"nulp": 1})):
        err = _numpy_error(lambda: getattr(np.testing, name)(x, x, **kw))
        if err is None:
            getattr(gt, name)(g, g, **kw)
        else:
            with pytest.raises(type(err), match=re.escape(str(err))):
                getattr(gt, name)(g, g, **kw)
    # Failing cases: one element off, with NumPy's message.
    y = x.copy()
    y[2, 3] += 1
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 35"):
        gt.assert_array_equal(g, y)
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        gt.assert_allclose(g, gp.asarray(y))
    with pytest.raises(AssertionError):
        gt.assert_array_almost_equal(g, y, decimal=3)
    with pytest.raises(AssertionError):
        gt.assert_equal([g], [y])
    with pytest.raises(AssertionError, match="(?i)shape"):
        gt.assert_array_equal(g, x[:2])
    with pytest.raises(AssertionError):  # strict: the dtype must match too
        gt.assert_array_equal(g, x.astype(np.complex128), strict=True)


@pytest.mark.gpu
def test_less_and_ulp_on_gpupy_arrays(rng):
    x = random_array(rng, (40,), np.float32)
    g = gp.asarray(x)
    gt.assert_array_less(g, g + 1)
    gt.assert_array_less(x - 1, g)
    # NumPy's own headline ("Arrays are not strictly ordered `x < y`" in NumPy 2.4 and 2.5,
    # "less-ordered" before): taken from the installed NumPy.
    headline = _first_line(_numpy_error(lambda: np.testing.assert_array_less(x, x)))
    with pytest.raises(AssertionError, match=re.escape(headline)):
        gt.assert_array_less(g, g)
    nxt = np.nextafter(x, np.float32(np.inf))
    gt.assert_array_max_ulp(g, nxt, maxulp=1)
    with pytest.raises(AssertionError):
        gt.assert_array_max_ulp(g, np.nextafter(nxt, np.float32(np.inf)), maxulp=1)
    gt.assert_approx_equal(gp.asarray(np.float64(1.0000001)), 1.0, significant=6)
    with pytest.raises(AssertionError):
        gt.assert_approx_equal(gp.asarray(np.float64(1.001)), 1.0, significant=6)
    gt.assert_array_equal(gp.asarray(np.array([np.nan, 1.0])), np.array([np.nan, 1.0]))  # NaNs equal, as NumPy
