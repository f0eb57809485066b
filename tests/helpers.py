"""Data and comparison helpers shared by the test modules (imported as ``helpers``).

Inputs are always fresh random data from the test's ``rng`` fixture: never zeros or
aranges, which hide index and stride bugs.

The comparisons themselves live in ``compare.py`` (NumPy only, self-tested without a GPU
in ``test_helpers.py``) and are re-exported here; read its docstring for the policy on
non-finite values, ulps, subnormals and signed zeros.
"""

import re
import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import gpupy as gp
from compare import (  # noqa: F401 - re-exported
    LONGDOUBLE_IS_WIDER,
    TF32_TRUNCATION,
    assert_close,
    assert_exact,
    assert_nonfinite_match,
    assert_product_close,
    exact_product,
    half_subnormal,
    product_bound,
    smallest_subnormal,
    ulp_of,
    unit_roundoff,
)

# Re-exported for the test modules (listed so that pyflakes sees them used).
REEXPORTED = (TF32_TRUNCATION, half_subnormal, assert_exact, assert_product_close, exact_product, product_bound,
              smallest_subnormal, ulp_of, unit_roundoff)


def examples(n):
    """Hypothesis example count: ``n`` under the ``ci`` profile (max_examples 100), 4n
    under ``gpu`` (400); see conftest."""
    from hypothesis import settings

    return max(1, n * settings.default.max_examples // 100)

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
    """gpupy array ``g`` holds exactly ``want`` (same shape, dtype and values; for floats
    also the sign of every zero and the kind of every non-finite value, which
    ``assert_array_equal`` alone does not distinguish)."""
    assert isinstance(g, gp.ndarray), type(g)
    want = np.asarray(want)
    got = g.get()
    assert got.dtype == want.dtype, f"dtype: gpupy {got.dtype}, numpy {want.dtype}"
    assert got.shape == want.shape, f"shape: gpupy {got.shape}, numpy {want.shape}"
    assert_array_equal(got, want, strict=True)
    if want.dtype.kind in "fc" or want.dtype.name == "bfloat16":
        assert_close(got, want, 0, err_msg="bit-exact")


def assert_elementwise_result(g, want):
    """Result ``g`` of + - * / matches NumPy's ``want`` computed in the same precision,
    bit for bit (0 ulp, signed zeros and non-finite values included): one IEEE operation
    is correctly rounded on the GPU as in NumPy."""
    assert isinstance(g, gp.ndarray), type(g)
    assert_close(g.get(), want, 0, err_msg="elementwise")


def public_error_type(exc):
    """NumPy's public class of ``exc``: its private subclasses (``UFuncTypeError``) count as
    their public base (``TypeError``)."""
    return next(c for c in type(exc).__mro__ if c.__module__ in ("builtins", "numpy.exceptions"))


def raises_like(gpupy_call, numpy_call, match=None):
    """Both calls raise; gpupy's error is an instance of NumPy's public error type; with
    ``match`` (a regex of NumPy's key words), both messages contain it."""
    import pytest

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception, match=match) as np_err:
            numpy_call()
        with pytest.raises(public_error_type(np_err.value), match=match):
            gpupy_call()


def numpy_error(numpy_call):
    """The exception the installed NumPy raises for ``numpy_call`` (None if it returns);
    NumPy's warnings silenced (a warning is not the outcome being compared)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            numpy_call()
        except Exception as e:  # noqa: BLE001 - whatever NumPy raises is the expectation
            return e
    return None


def raises_as_numpy(gpupy_call, numpy_call):
    """Both raise, gpupy with NumPy's public error type and the installed NumPy's very
    message (taken from NumPy at run time, so no version's wording is written into the
    test)."""
    err = numpy_error(numpy_call)
    assert err is not None, "NumPy did not raise"
    raises_like(gpupy_call, numpy_call, match=f"^{re.escape(str(err))}$")


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


# ---------------------------------------------------------------------------------------
# Random draws (test_random*.py): statistical tests at a stated false-alarm rate.

P_MIN = 1e-4  # the stated false-alarm rate of each distribution test


def chi_square_pmf(sample, pmf, support):
    """Chi-square of the counts of ``sample`` (NumPy) over ``support`` plus one bin for
    the rest, bins pooled (in order) to an expected count of at least 5, against the
    probabilities ``pmf(k)``; asserts p > ``P_MIN``."""
    import scipy.stats as st  # only the random tests need SciPy

    sample = np.asarray(sample)
    k = np.asarray(list(support))
    counts = np.array([np.sum(sample == v) for v in k] + [np.sum(~np.isin(sample, k))], dtype=float)
    probs = np.append(pmf(k), max(0.0, 1 - pmf(k).sum()))
    exp = probs * sample.size
    obs_p, exp_p, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(counts, exp):
        acc_o += o
        acc_e += e
        if acc_e >= 5:
            obs_p.append(acc_o)
            exp_p.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 or acc_o > 0:
        obs_p[-1] += acc_o
        exp_p[-1] += acc_e
    obs_p, exp_p = np.array(obs_p), np.array(exp_p)
    assert obs_p.sum() == sample.size
    if len(obs_p) < 2:
        return
    p = st.chisquare(obs_p, exp_p * obs_p.sum() / exp_p.sum()).pvalue
    assert p > P_MIN, f"chi-square p = {p:.2e}"


def generator_raises_as_numpy(call, match, numpy_make, gpupy_make):
    """``call(numpy_make(0))`` raises matching ``match``, and ``call(gpupy_make(0))``
    raises the same type, also matching (``*_make``: a generator or RandomState class of
    each library). Returns the error type."""
    with pytest.raises(Exception, match=match) as want:
        call(numpy_make(0))
    with pytest.raises(type(want.value), match=match):
        call(gpupy_make(0))
    return type(want.value)


def m_arr(m, values):
    """A NumPy array for NumPy's generator, a gpupy array for gpupy's (error tables whose
    calls take the generator ``m`` of either library)."""
    return np.asarray(values) if isinstance(m, np.random.Generator) else gp.asarray(np.asarray(values))


# ---------------------------------------------------------------------------------------
# Ufunc results: error budgets derived from the arithmetic.
#
# gpupy's real float functions call CUDA's libdevice (kernels/src/ops/float.rs); float16
# goes through float32 with one rounding at the end. CUDA's Math API documents the
# maximum error of each function against the correctly rounded result (CUDA C
# Programming Guide, appendix "Mathematical Functions"); against the exact value that is
# L + 0.5 ulp. (float32, float64) maxima, in ulps of the correctly rounded result:
LIBDEVICE_ULPS = {
    # sqrtf is 0 ulp with -prec-sqrt=true; the approximate path (no __CUDA_PREC_SQRT
    # reflection in a non-nvcc build) is documented at 1 ulp. sqrt (double) is IEEE.
    "sqrt": (1, 0),
    "cbrt": (1, 1),
    "exp": (2, 1),
    "exp2": (2, 1),
    "expm1": (1, 1),
    "log": (1, 1),
    "log2": (1, 1),
    "log10": (2, 1),
    "log1p": (1, 1),
    "sin": (2, 2),
    "cos": (2, 2),
    "tan": (4, 2),
    "arcsin": (2, 2),
    "arccos": (2, 2),
    "arctan": (2, 2),
    "sinh": (3, 2),
    "cosh": (2, 1),
    "tanh": (2, 1),
    "arcsinh": (3, 3),
    "arccosh": (4, 3),
    "arctanh": (3, 2),
    "arctan2": (3, 2),
    "hypot": (3, 2),
    # max(a, b) + log1p(exp(-|a - b|)) (base 2: exp2, then log1p times log2(e)) for
    # a, b >= 0: the log1p term is <= log(2) <= the result, so exp's and log1p's errors
    # (2 + 1 ulp in float32, 1 + 1 in float64) stay within that many ulp of the result.
    "logaddexp": (3, 2),
    "logaddexp2": (4, 2),
    "power": (4, 2),
    "float_power": (4, 2),
}
# Operations that are exact or correctly rounded in both gpupy and NumPy with the same
# algorithm (IEEE + - * / and sqrt aside from the note above, rounding functions, sign
# manipulation, fmod, NumPy's divmod algorithm which gpupy copies in divmod.rs): the
# results must be bit-identical to NumPy's in the same dtype (0 ulp).
EXACT_UFUNCS = {
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "mod",
    "fmod", "copysign", "nextafter", "maximum", "minimum", "fmax", "fmin", "negative",
    "positive", "absolute", "abs", "fabs", "sign", "floor", "ceil", "trunc", "rint", "square",
    "reciprocal", "conjugate", "conj",
}
# maximum/minimum/fmax/fmin of -0.0 and +0.0: either zero (see assert_ufunc_result).
UNSPECIFIED_ZERO_SIGN = {"maximum", "minimum", "fmax", "fmin", "clip"}
# deg2rad/rad2deg multiply by pi/180 (180/pi) rounded to the dtype: gpupy rounds the
# constant in the dtype's own arithmetic, NumPy may round the double constant; one
# rounding of the constant (0.5 ulp relative) and one of the product (0.5 ulp): 1 ulp.
CONSTANT_PRODUCT_UFUNCS = {"deg2rad", "rad2deg", "radians", "degrees"}
# NumPy's own float32/float64 loops for transcendental functions: SIMD (SVML on AVX-512)
# loops are documented at up to 4 ulp, glibc at about 1. Used only when the reference is
# NumPy in the same dtype (no wide reference available).
NUMPY_ULPS = 4
# gpupy's complex functions are formulas in kernels/src/ops/complex.rs over 2-3 real
# libdevice calls (<= 2-4 ulp each) and a complex product (<= 2 roundings): their error
# relative to |z| is at most about 2 * 4 + 1 = 9 ulp of the component precision. Complex
# multiplication and division (NumPy: naive product, Smith's division) differ from
# gpupy's in rounding order: a few roundings relative to |z|, <= 4 ulp.
COMPLEX_FUNCTION_ULPS = 9
COMPLEX_ARITH_ULPS = 4
# Complex powers go through exp(b log a), which multiplies the error of log a by |b|
# (|b| <= sqrt(2) for inputs in the unit square) and adds exp's: about 4 * (9 + 1) ulp.
COMPLEX_POWER_ULPS = 40


def wide_dtype(dtype):
    """The reference dtype for a result of ``dtype``: float64 (complex128) for narrower
    floats, long double where it is wider than float64 (x86), float64 otherwise."""
    dt = np.dtype(dtype)
    if dt.kind == "c":
        return np.dtype(np.clongdouble if dt.itemsize == 16 and LONGDOUBLE_IS_WIDER else np.complex128)
    return np.dtype(np.longdouble if dt.itemsize == 8 and LONGDOUBLE_IS_WIDER else np.float64)


# A wide reference has its own error: float64 (SVML: <= 4 ulp of float64) for float32 and
# float16 results, long double (<= ~1 ulp of its 64-bit mantissa) for float64 results:
# at most 2**-11 ulp of the result; 2**-8 ulp is added to every wide-reference bound so
# that a correctly rounded result next to a rounding midpoint is not a failure.
REFERENCE_MARGIN = 2.0**-8


def ufunc_ulps(name, dtype, wide_reference, from_complex=False):
    """Error bound (ulps of ``dtype``'s precision) of gpupy's ``name`` against the exact
    result (``wide_reference``) or against NumPy's result in the same dtype."""
    dt = np.dtype(dtype)
    if dt.kind == "c":
        if name in ("power", "float_power"):
            return COMPLEX_POWER_ULPS
        if name in ("add", "subtract", "negative", "positive", "conjugate", "conj", "maximum", "minimum",
                    "fmax", "fmin", "clip", "rint"):
            return 0  # componentwise exact operations and selections
        if name in ("multiply", "divide", "true_divide", "square", "reciprocal", "absolute"):
            return COMPLEX_ARITH_ULPS
        return COMPLEX_FUNCTION_ULPS
    if from_complex and name in ("absolute", "abs"):
        name = "hypot"  # |z| of a complex input is hypot(re, im)
    if name in EXACT_UFUNCS:
        return 0
    if name in CONSTANT_PRODUCT_UFUNCS:
        return 1
    if name not in LIBDEVICE_ULPS:
        return 0  # comparisons, logical and bit operations: exact
    f32, f64 = LIBDEVICE_ULPS[name]
    if dt == np.float16:
        # float32 result within (L + 0.5) float32 ulp of exact, rounded once to float16:
        # within 0.5 float16 ulp + (L + 0.5) * 2**-13 float16 ulp of exact.
        bound = 0.5 + (f32 + 0.5) * 2.0**-13
        # Against NumPy's float16 (also rounded once from float32): both on the float16
        # grid within 0.5+ of exact, so at most 1 float16 ulp apart.
        return bound + REFERENCE_MARGIN if wide_reference else 1
    lib = f32 if dt == np.float32 else f64
    return lib + 0.5 + REFERENCE_MARGIN if wide_reference else lib + 0.5 + NUMPY_ULPS


def ufunc_reference(name, *inputs):
    """NumPy's ``name`` on the inputs widened to ``wide_dtype`` (None when NumPy has no
    loop for the wide dtype or the inputs are not all float/complex arrays)."""
    arrays = [np.asarray(x) for x in inputs]
    if not arrays or any(a.dtype.kind not in "fc" for a in arrays):
        return None
    wide = wide_dtype(np.result_type(*arrays))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return getattr(np, name)(*[a.astype(wide) for a in arrays])
        except TypeError:
            return None


def assert_ufunc_result(got, want, name, *, inputs=None, precision=None, err_msg=None):
    """gpupy result ``got`` of ufunc ``name`` matches NumPy's ``want``: NumPy's dtype,
    integers and bools equal, non-finite values and signed zeros as NumPy's, finite
    values within ``ufunc_ulps`` of the exact result (computed from ``inputs`` in a wide
    dtype when given) or of NumPy's result. ``name`` must be the ufunc's own name (it
    selects the error bound); ``err_msg`` labels the failure (default ``name``)."""
    label = name if err_msg is None else err_msg
    want = np.asarray(want)
    got_h = got.get() if isinstance(got, gp.ndarray) else np.asarray(got)
    assert got_h.dtype == want.dtype, f"{label}: dtype gpupy {got_h.dtype}, numpy {want.dtype}"
    assert got_h.shape == want.shape, f"{label}: shape gpupy {got_h.shape}, numpy {want.shape}"
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got_h, want, err_msg=label, strict=True)
        return
    prec = np.dtype(precision or want.dtype)
    from_complex = inputs is None or any(np.asarray(x).dtype.kind == "c" for x in inputs)
    # The sign of max/min of -0.0 and +0.0 is the implementation's (IEEE 754-2008's
    # maxNum leaves it open; NumPy's own SIMD loops give different signs per dtype).
    signed_zeros = name not in UNSPECIFIED_ZERO_SIGN
    ref = None
    if inputs is not None and precision is None and name in LIBDEVICE_ULPS:
        ref = ufunc_reference(name, *inputs)
        if ref is not None and ref.shape != want.shape:
            ref = None
    if ref is not None:
        # Non-finite values and zero signs against NumPy's own result (the wide reference
        # may not overflow where the dtype does); finite values against the wide one.
        assert_nonfinite_match(got_h, want, label)
        assert_close(got_h, want, np.inf, signed_zeros=signed_zeros, err_msg=label)  # zero signs only
        bound = ufunc_ulps(name, prec, True, from_complex)
        assert_close(got_h, ref, bound, dtype=want.dtype, precision=prec, signed_zeros=signed_zeros,
                     err_msg=f"{label} (vs wide reference)")
        return
    assert_close(got_h, want, ufunc_ulps(name, prec, False, from_complex), precision=prec,
                 signed_zeros=signed_zeros, err_msg=label)


def known_defect(request, reason):
    """Marks the running test case (one parametrization, from inside the test) as a
    recorded gpupy defect: a strict xfail, so that the suite stays green while the defect
    exists and fails as soon as the case passes (remove the call with the fix)."""
    request.applymarker(pytest.mark.xfail(strict=True, reason=f"known defect: {reason}"))
