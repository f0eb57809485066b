"""Self-tests of the comparison helpers in ``compare.py``: they run without a GPU and
without importing gpupy. Each planted fault must make the helper fail, and correct
results (within the stated bound) must pass."""

import numpy as np
import pytest

from compare import (
    assert_close,
    assert_exact,
    assert_nonfinite_match,
    assert_product_close,
    assert_scan_result,
    smallest_subnormal,
    ulp_of,
)


def nudge(x, n):
    """``x`` moved ``n`` ulps along its own dtype's grid (away from zero for n > 0)."""
    x = np.asarray(x)
    out = x.copy()
    for _ in range(abs(n)):
        out = np.nextafter(out, np.copysign(np.inf, x) if n > 0 else 0).astype(x.dtype)
    return out


@pytest.fixture
def grng():
    # A fixed generator: these tests check the helpers, not gpupy, and must be stable.
    return np.random.default_rng(20261124)


# ---------------------------------------------------------------------------------------
# Planted faults: each must fail.


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_100_ulp_off_at_1e_3_fails(dtype):
    want = np.array([1e-3, -2.5e-3, 7e-4], dtype=dtype)
    got = want.copy()
    got[1] = nudge(want[1], 100)
    with pytest.raises(AssertionError, match="ulp"):
        assert_close(got, want, 4)


def test_100_ulp_off_at_1e_3_against_a_float64_reference_fails():
    exact = np.array([1e-3, 3e-3])  # float64 reference for a float32 result
    got = exact.astype(np.float32)
    got[0] = nudge(got[0], 100)
    with pytest.raises(AssertionError, match="ulp"):
        assert_close(got, exact, 4, dtype=np.float32)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64])
def test_inf_where_numpy_is_finite_fails(dtype):
    want = np.array([0.5, 1.5, -2.0], dtype=dtype)
    got = want.copy()
    got[2] = -np.inf
    with pytest.raises(AssertionError, match="inf positions"):
        assert_close(got, want, 4)


def test_nan_where_numpy_has_inf_fails():
    want = np.array([np.inf, 1.0, -np.inf], dtype=np.float32)
    got = want.copy()
    got[0] = np.nan
    with pytest.raises(AssertionError, match="positions"):
        assert_close(got, want, 4)


def test_wrong_sign_of_inf_fails():
    want = np.array([np.inf, 1.0], dtype=np.float64)
    got = np.array([-np.inf, 1.0])
    with pytest.raises(AssertionError, match="inf positions"):
        assert_close(got, want, 4)


def test_finite_where_numpy_has_inf_fails():
    want = np.array([np.inf, 1.0], dtype=np.float32)
    got = np.array([np.finfo(np.float32).max, 1.0], dtype=np.float32)
    with pytest.raises(AssertionError, match=r"\+inf positions"):
        assert_close(got, want, 4)


def test_complex_nan_in_one_component_fails():
    want = np.array([complex(np.inf, 0.0), 1 + 1j], dtype=np.complex128)
    got = np.array([complex(np.inf, np.nan), 1 + 1j], dtype=np.complex128)
    with pytest.raises(AssertionError, match="imag part"):
        assert_close(got, want, 4)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_negative_zero_for_positive_zero_fails(dtype):
    want = np.array([0.0, 1.0, -0.0], dtype=dtype)
    got = np.array([-0.0, 1.0, -0.0], dtype=dtype)
    with pytest.raises(AssertionError, match="sign of zero"):
        assert_close(got, want, 4)
    # Passes where the test states that the sign of zero is unspecified.
    assert_close(got, want, 4, signed_zeros=False)


def test_complex_signed_zero_in_imaginary_part_fails():
    want = np.array([complex(1.0, -0.0)], dtype=np.complex64)
    got = np.array([complex(1.0, 0.0)], dtype=np.complex64)
    with pytest.raises(AssertionError, match="sign of zero"):
        assert_close(got, want, 4)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_flushed_subnormal_fails(dtype):
    tiny = np.finfo(dtype).tiny
    want = np.array([tiny / 4, -tiny / 16, 1.0], dtype=dtype)
    assert want[0] != 0 and want[0] < tiny  # subnormal, not zero
    got = np.array([0.0, -0.0, 1.0], dtype=dtype)
    with pytest.raises(AssertionError, match="ulp"):
        assert_close(got, want, 4)
    # A test that states the operation flushes opts in.
    assert_close(got, want, 4, flush_subnormals=True)


def test_wrong_subnormal_fails():
    s = smallest_subnormal(np.float32)
    want = np.array([100 * s], dtype=np.float32)
    got = np.array([90 * s], dtype=np.float32)  # 10 subnormal spacings off
    with pytest.raises(AssertionError, match="ulp"):
        assert_close(got, want, 4)


def test_float16_product_missing_one_k_term_fails(grng):
    k = 64
    a = grng.uniform(-1, 1, (8, k)).astype(np.float16)
    b = grng.uniform(-1, 1, (k, 9)).astype(np.float16)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    dropped = (a64 @ b64 - np.outer(a64[:, 17], b64[17, :])).astype(np.float16)
    with pytest.raises(AssertionError, match="product bound"):
        assert_product_close(dropped, a, b, accum=np.float32)


def test_float32_product_missing_64_of_1032_terms_fails(grng):
    # The flat normwise 1e-2 bound this replaces passed this fault.
    k = 1032
    a = grng.uniform(-1, 1, (16, k)).astype(np.float32)
    b = grng.uniform(-1, 1, (k, 16)).astype(np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    got = (a64[:, 64:] @ b64[64:, :]).astype(np.float32)
    with pytest.raises(AssertionError, match="product bound"):
        assert_product_close(got, a, b, tf32=True)


def test_product_with_inf_for_finite_fails(grng):
    a = grng.uniform(-1, 1, (4, 5)).astype(np.float32)
    b = grng.uniform(-1, 1, (5, 3)).astype(np.float32)
    got = (a.astype(np.float64) @ b).astype(np.float32)
    got[1, 2] = np.inf
    with pytest.raises(AssertionError, match="inf positions"):
        assert_product_close(got, a, b)


def test_integer_results_must_be_equal():
    want = np.array([1, 2, 3], dtype=np.int32)
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        assert_close(np.array([1, 2, 4], dtype=np.int32), want, 4)
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(want.astype(np.int64), want, 4)


def test_assert_exact_distinguishes_signed_zero_and_nan():
    want = np.array([0.0, np.nan, 1.0])
    with pytest.raises(AssertionError, match="sign of zero differs"):
        assert_exact(np.array([-0.0, np.nan, 1.0]), want)
    with pytest.raises(AssertionError, match="nan location mismatch"):
        assert_exact(np.array([0.0, 1.0, 1.0]), want)
    assert_exact(want.copy(), want)


def test_nonfinite_match_direct():
    with pytest.raises(AssertionError, match="NaN positions differ"):
        assert_nonfinite_match(np.array([1.0, np.nan]), np.array([1.0, np.inf]))
    assert_nonfinite_match(np.array([2.0, np.nan, -np.inf]), np.array([1.0, np.nan, -np.inf]))


# ---------------------------------------------------------------------------------------
# Correct results: each must pass.


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_ulp_difference_in_a_transcendental_passes(grng, dtype):
    x = grng.uniform(-1, 1, 1000).astype(dtype)
    want = np.sin(x)
    got = want.copy()
    got[::3] = nudge(want[::3], 1)
    got[1::3] = nudge(want[1::3], -1)
    assert_close(got, want, 2)


def test_ulps_are_relative_to_the_result_magnitude():
    want = np.array([1e-3, 1e3, 1e-30], dtype=np.float32)
    assert_close(nudge(want, 3), want, 3)
    with pytest.raises(AssertionError, match="off by more than 3 ulp"):
        assert_close(nudge(want, 4), want, 3)


def test_ulp_of_matches_numpy_spacing():
    for dtype in (np.float16, np.float32, np.float64):
        x = np.array([1e-3, 0.75, 1.0, 3.0, np.finfo(dtype).tiny, np.finfo(dtype).tiny / 8], dtype=dtype)
        np.testing.assert_array_equal(ulp_of(x, dtype), np.spacing(x).astype(np.float64))
        assert ulp_of(np.array([0.0]), dtype)[0] == smallest_subnormal(dtype)


def test_correctly_rounded_against_float64_reference_passes(grng):
    exact = grng.uniform(-1, 1, 1000) * 10.0 ** grng.integers(-30, 30, 1000)
    assert_close(exact.astype(np.float32), exact, 0.5, dtype=np.float32)


def test_matching_specials_pass():
    want = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, np.finfo(np.float32).tiny / 2], dtype=np.float32)
    assert_close(want.copy(), want, 1)
    cwant = np.array([complex(np.inf, np.nan), complex(-0.0, 0.0), 1 - 1j], dtype=np.complex64)
    assert_close(cwant.copy(), cwant, 1)


def test_wide_reference_overflowing_the_result_dtype_expects_inf():
    exact = np.array([1e39, -1e39, 1.0])
    got = np.array([np.inf, -np.inf, 1.0], dtype=np.float32)
    assert_close(got, exact, 1, dtype=np.float32)


@pytest.mark.parametrize("dtype,accum", [(np.float16, np.float32), (np.float32, np.float32), (np.float64, np.float64), (np.complex64, np.float32)])
def test_exact_product_passes(grng, dtype, accum):
    k = 64
    a = grng.uniform(-1, 1, (7, k)).astype(dtype)
    b = grng.uniform(-1, 1, (k, 5)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * grng.uniform(-1, 1, a.shape).astype(np.float32)
        b = b + 1j * grng.uniform(-1, 1, b.shape).astype(np.float32)
    wide = np.clongdouble if np.dtype(dtype).kind == "c" else np.longdouble
    exact = (a.astype(wide) @ b.astype(wide)).astype(dtype)
    assert_product_close(exact, a, b, accum=accum)
    # Also the product accumulated serially in the accumulation precision itself.
    acc_dtype = np.result_type(dtype, accum)
    acc = np.zeros((7, 5), dtype=acc_dtype)
    for i in range(k):
        acc = acc + np.outer(a[:, i].astype(acc_dtype), b[i, :].astype(acc_dtype))
    assert_product_close(acc.astype(dtype), a, b, accum=accum)


def test_tf32_truncated_product_passes(grng):
    k = 1032
    a = grng.uniform(-1, 1, (8, k)).astype(np.float32)
    b = grng.uniform(-1, 1, (k, 8)).astype(np.float32)

    def tf32(x):  # keep 10 explicit mantissa bits, truncating the other 13
        return (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)

    got = (tf32(a).astype(np.float64) @ tf32(b).astype(np.float64)).astype(np.float32)
    assert_product_close(got, a, b, tf32=True)
    # Truncating to 7 mantissa bits (bfloat16) instead of 10 is outside the TF32
    # allowance. Positive inputs, so the truncation (always toward zero) accumulates.
    a, b = np.abs(a), np.abs(b)
    t7 = lambda x: (x.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)  # noqa: E731
    assert_product_close((tf32(a).astype(np.float64) @ tf32(b)).astype(np.float32), a, b, tf32=True)
    worse = (t7(a).astype(np.float64) @ t7(b).astype(np.float64)).astype(np.float32)
    with pytest.raises(AssertionError, match="product bound"):
        assert_product_close(worse, a, b, tf32=True)


def test_integer_product_is_exact(grng):
    a = grng.integers(-100, 100, (5, 6)).astype(np.int32)
    b = grng.integers(-100, 100, (6, 4)).astype(np.int32)
    assert_product_close(a @ b, a, b)
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        assert_product_close(a @ b + 1, a, b)


def test_product_with_empty_inner_dimension_is_zero():
    a = np.ones((3, 0), np.float32)
    b = np.ones((0, 2), np.float32)
    assert_product_close(np.zeros((3, 2), np.float32), a, b)


# ---------------------------------------------------------------------------------------
# Scans: the old helper missed anything after an inf.


def scan_case(values, dtype=np.float32):
    x = np.array(values, dtype=dtype)
    want = np.cumsum(x)
    exact = np.cumsum(x.astype(np.float64))
    scale = np.cumsum(np.abs(x.astype(np.float64)))
    return x, want, exact, scale


@pytest.mark.parametrize(
    "fault, words",
    [
        (lambda g: g.__setitem__(3, np.float32(1.0)), r"\+inf positions"),  # finite where NumPy has inf
        (lambda g: g.__setitem__(3, -np.inf), r"\+inf positions"),  # -inf for +inf
        (lambda g: g.__setitem__(3, np.nan), "NaN positions"),  # NaN for +inf
        (lambda g: g.__setitem__(1, np.inf), r"\+inf positions"),  # inf where NumPy is finite
        (lambda g: g.__setitem__(0, 0.0), "sign of zero"),  # +0.0 for NumPy's leading -0.0
        (lambda g: g.__setitem__(2, g[2] * np.float32(1.001)), "elements off"),  # 0.1% off
    ],
    ids=["finite_for_inf", "neg_inf_for_inf", "nan_for_inf", "inf_for_finite", "signed_zero", "relative_error"],
)
def test_scan_result_catches(fault, words):
    x, want, exact, scale = scan_case([-0.0, 1.5, 2.25, np.inf, 3.0])
    assert_scan_result(want.copy(), want, exact, scale, x.size, np.float64)  # NumPy's own passes
    g = want.copy()
    fault(g)
    with pytest.raises(AssertionError, match=words):
        assert_scan_result(g, want, exact, scale, x.size, np.float64)


def test_scan_result_passes_a_wide_accumulation(grng):
    x = grng.uniform(-1, 1, 1001).astype(np.float32)
    want = np.cumsum(x)
    exact = np.cumsum(x.astype(np.float64))
    scale = np.cumsum(np.abs(x.astype(np.float64)))
    assert_scan_result(exact.astype(np.float32), want, exact, scale, x.size, np.float64)
    # A float32 serial sum (NumPy's) errs by more than a float64 accumulation may: the
    # bound is gpupy's, not NumPy's.
    drift = np.abs(want.astype(np.float64) - exact) > 2.0**-24 * np.abs(exact) + 1001 * 2 * 2.0**-53 * scale
    if drift.any():
        with pytest.raises(AssertionError, match="elements off"):
            assert_scan_result(want, want, exact, scale, x.size, np.float64)
