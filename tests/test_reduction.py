"""Reductions and statistics against NumPy: every function, every dtype, axes (None, int,
negative, tuples), keepdims, views, NaNs, empty slices, dtype=/out=/initial=.

Exact results (integers, bool, min/max, arg*, any/all, counts) must equal NumPy's bit for
bit with the same dtype. Float results: infinities, NaNs and signed zeros exactly as
NumPy's; finite values against a wide reference computed by NumPy from the same values
(float64, or long double for float64/complex128 input) within the bound derived in
``rounded_bound`` from gpupy's accumulators (kernels/src/reduction.rs: float16 sums in
float32, float32 and complex64 sums in float64/complex128, every mean and variance in
float64) and the number of terms.
"""

import re
import warnings

import numpy as np
import pytest

import gpupy as gp
from helpers import (
    ALL_DTYPES,
    VIEW_FUNCS_2D,
    VIEW_IDS_2D,
    assert_close,
    assert_exact,
    assert_nonfinite_match,
    dtype_id,
    random_array,
    half_subnormal,
    known_defect,
    smallest_subnormal,
    unit_roundoff,
    wide_dtype,
)

pytestmark = pytest.mark.gpu

# (shape, axis): every kernel path. Short rows go to the serial kernel, long ones to
# blocks or warps; few long rows split their slices; axis=0 of C arrays reads columns.
CASES = [
    ((), None),
    ((1,), None),
    ((7,), 0),
    ((7,), None),
    ((1025,), -1),
    ((100003,), None),
    ((17, 33), 0),
    ((17, 33), 1),
    ((17, 33), -2),
    ((17, 33), None),
    ((17, 33), (0, 1)),
    ((3, 0, 2), 1),
    ((3, 0, 2), 0),
    ((5, 6, 7), (0, 2)),
    ((5, 6, 7), 1),
    ((4, 5, 6), (1, 2)),
    ((4, 5, 6), (2, 0)),
    ((1000, 3), 1),
    ((3, 2000), 0),
    ((257, 129), 1),
    ((64, 4099), 1),
    ((4099, 64), 0),
    ((2, 3, 4, 5), (1, 3)),
    ((6, 1, 5), 1),
    ((4, 5), ()),
]
BIG_CASES = [((2**20 + 3,), None), ((1536, 1031), 0), ((1031, 1536), 1)]

ROUNDED = ["sum", "prod", "mean", "var", "std", "nansum", "nanprod", "nanmean", "nanvar", "nanstd"]
EXACT = ["min", "max", "ptp", "any", "all", "count_nonzero", "nanmin", "nanmax"]
ARG = ["argmin", "argmax", "nanargmin", "nanargmax"]
FUNCS = ROUNDED + EXACT + ARG


def case_id(case):
    shape, axis = case
    return f"{'x'.join(map(str, shape)) or '0d'}-axis{axis}"


def data(rng, shape, dtype, func, nan=False):
    """Random input for ``func``: products get values near 1 (no underflow); NaN-aware
    functions (and ``nan=True``) get some NaNs in float and complex input."""
    dt = np.dtype(dtype)
    x = random_array(rng, shape, dt)
    if "prod" in func and dt.kind in "fc":
        mag = rng.uniform(0.9, 1.1, size=shape) * rng.choice([-1, 1], size=shape)
        turn = np.exp(1j * rng.uniform(-0.5, 0.5, size=shape)) if dt.kind == "c" else 1
        x = np.asarray(mag * turn).astype(dt)
    if (nan or func.startswith("nan")) and dt.kind in "fc" and x.size:
        mask = rng.random(shape) < 0.2
        x = np.where(mask, np.array(np.nan, dt), x).astype(dt)
    return x


def numpy_call(func, x, **kw):
    """NumPy's result or exception for ``func(x, **kw)``, warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return getattr(np, func)(x, **kw), None
        except Exception as e:  # noqa: BLE001 - compared with gpupy's exception below
            return None, e


def expected_error(exc):
    """The class gpupy must raise for NumPy's exception ``exc``: NumPy's private
    subclasses (``UFuncTypeError``) count as their public base."""
    return next(c for c in type(exc).__mro__ if c.__module__ in ("builtins", "numpy.exceptions"))


def gpupy_call(func, g, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(gp, func)(g, **kw)


def reference(func, x, **kw):
    """The wide reference of a rounded reduction: NumPy on ``x`` converted to float64
    (complex128), or to long double for float64/complex128 input where that is wider."""
    wide = wide_dtype(x.dtype) if x.dtype.kind in "fc" else np.dtype(np.float64)
    if x.dtype == np.float16 or x.dtype == np.float32:
        wide = np.dtype(np.float64)
    with np.errstate(all="ignore"):
        return numpy_call(func, x.astype(wide), **kw)[0]


def rounded_bound(func, x, want, ref, ddof=0, initial=0.0, **kw):
    """Elementwise bound on |gpupy - exact| for the rounded reduction ``func`` of ``x``.

    - n terms accumulate with unit roundoff u_acc (gpupy's accumulator) and the wide
      reference with u_ref: in any order, gamma_m = m (u_acc + u_ref) / (1 - m (...))
      times the sum of |terms| (Higham, recursive or tree summation alike), m = n + 3
      covering the shift, square and divisions of var and the division of mean.
    - sum/mean: terms |x| (complex: sqrt(2) for the two components).
    - prod: relative, gamma_n |exact| (complex: 3 roundings per step).
    - var: gpupy sums |x - k|^2 around the first value k and subtracts s1^2/n (two
      accumulated sums, each of terms <= 2|x|^2 + 2|k|^2 <= 2|x|^2 + 2 max|x|^2, and the
      squares' underflow), divided by n - ddof. std = sqrt(var): min(error(var) / (2 std),
      sqrt(error(var))) + one rounding.
    - Then one rounding of the accumulator result to the output dtype (u_out |exact|)
      after the division of mean (u_acc |exact|), and half the subnormal spacing.
    """
    base = func[3:] if func.startswith("nan") else func
    out = want.dtype
    cplx_in = x.dtype.kind == "c"
    u_out = unit_roundoff(out)
    if base in ("sum", "prod"):
        u_acc = unit_roundoff(np.float32 if x.dtype == np.float16 else np.float64)
    else:
        u_acc = unit_roundoff(np.float64)
    u_ref = float(np.finfo(np.asarray(ref).dtype).eps) / 2
    n = x.size // max(want.size, 1) if x.size else 0
    m = n + 4  # + initial=
    uu = u_acc + u_ref
    gamma = m * uu / (1 - m * uu)
    kw = {k: v for k, v in kw.items() if k in ("axis", "keepdims")}
    wide = np.abs(x.astype(np.complex128 if cplx_in else np.float64))
    absref = np.abs(np.asarray(ref, dtype=np.complex128 if np.asarray(ref).dtype.kind == "c" else np.float64))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if base == "sum":
            acc = (np.sqrt(2) if cplx_in else 1) * gamma * (np.nansum(wide, **kw) + abs(initial))
        elif base == "mean":
            acc = (np.sqrt(2) if cplx_in else 1) * gamma * np.nanmean(wide, **kw)
        elif base == "prod":
            acc = (3 if cplx_in else 1) * gamma * absref
        else:  # var, std
            mean2 = np.nanmean(wide**2, **kw)
            max2 = np.nanmax(wide**2, **kw, initial=0.0) if wide.size else 0.0
            nvalid = np.sum(~np.isnan(wide), **kw).astype(np.float64)
            dof = nvalid - float(ddof or 0)
            var_err = 2 * gamma * (2 * mean2 + 2 * max2) * nvalid / np.where(dof > 0, dof, np.nan)
            # Squares of tiny values underflow in the float64 moments: up to half a
            # subnormal spacing each, (n + 2) of them (counted as whole spacings, since
            # float64's half spacing is not a float64), before the division by n - ddof.
            var_err = var_err + (nvalid + 2) * smallest_subnormal(np.float64) / np.where(dof > 0, dof, np.nan)
            # std = sqrt(var): |sqrt(v + e) - sqrt(v)| <= min(e / (2 sqrt(v)), sqrt(e)).
            with np.errstate(divide="ignore"):
                std_err = np.minimum(var_err / (2 * absref), np.sqrt(var_err))
            acc = var_err if base == "var" else std_err
    rounding = (np.sqrt(2) if out.kind == "c" else 1) * (u_out + u_acc) * absref
    return rounding + acc + half_subnormal(out)


def assert_matches_numpy(func, x, g, **kw):
    want, exc = numpy_call(func, x, **kw)
    if exc is not None:
        with pytest.raises(expected_error(exc)):  # no match=: a shared checker; callers' errors vary
            gpupy_call(func, g, **kw)
        return
    got = gpupy_call(func, g, **kw)
    assert isinstance(got, gp.ndarray), type(got)
    want = np.asarray(want)
    h = got.get()
    assert h.dtype == want.dtype, f"{func}{kw}: dtype {h.dtype}, NumPy {want.dtype}"
    assert h.shape == want.shape, f"{func}{kw}: shape {h.shape}, NumPy {want.shape}"
    rounded = func in ROUNDED and (x.dtype.kind in "fc" or func in ("mean", "var", "std", "nanmean", "nanvar", "nanstd"))
    if not rounded:
        np.testing.assert_array_equal(h, want, err_msg=f"{func}{kw}", strict=True)
        if want.dtype.kind in "fc":
            # NaN kinds as NumPy's. The sign of a zero min/max of mixed +-0.0 is left to
            # the implementation (IEEE minNum/maxNum; NumPy's own SIMD loops differ).
            assert_close(h, want, 0, signed_zeros=False, err_msg=f"{func}{kw}")
        return
    base = func[3:] if func.startswith("nan") else func
    if x.dtype == np.float16 and base in ("var", "std"):
        # NumPy's float16 var/std subtract, square and sum in float16 (the precision caveat
        # of its var/std docs): the sum of the squares of 2**20 values in [-1, 1) passes
        # float16's 65504 and NumPy returns inf for a std of about 0.58. gpupy accumulates
        # every variance in float64 (kernels/src/reduction.rs) and rounds once: its
        # non-finite values are those of the float64 computation rounded to float16.
        want = np.asarray(reference(func, x, **kw)).astype(want.dtype)
    # Infinities and NaNs exactly as NumPy's. Zero signs too, except for sums and means:
    # NumPy 1.x's pairwise sum of -0.0 values was -0.0, NumPy 2's reduction starts from
    # the +0.0 identity (so the sign of an all -0.0 sum is version-defined, not IEEE).
    # Complex products too: a part that cancels to zero has the sign its association
    # order gives ((2j)(2j)(2j) is -0-8j in a tree, +0-8j left to right), and gpupy's
    # reduction multiplies in a tree, NumPy's left to right.
    assert_nonfinite_match(h, want, f"{func}{kw}")
    complex_prod = "prod" in func and x.dtype.kind == "c"
    if not any(k in func for k in ("sum", "mean")) and not complex_prod:
        assert_close(h, want, np.inf, err_msg=f"{func}{kw} (signs of zeros)")
    ref = np.asarray(reference(func, x, **kw))
    ddof = kw.get("ddof", kw.get("correction", 0))
    initial = kw.get("initial", 0.0)
    rest = {k: v for k, v in kw.items() if k not in ("ddof", "correction", "initial")}
    tol = np.asarray(rounded_bound(func, x, want, ref, ddof, initial if "sum" in func else 0.0, **rest))
    ok = np.isfinite(h) & np.isfinite(want) & np.isfinite(ref)
    if h.dtype.kind == "c":
        ok = np.isfinite(h.real) & np.isfinite(h.imag) & np.isfinite(want.real) & np.isfinite(want.imag) & np.isfinite(ref)
    err = np.abs(h.astype(ref.dtype) - ref)
    bad = ok & ~(err <= tol)
    assert not bad.any(), (
        f"{func}{kw}: {bad.sum()} elements over the bound; worst |got - ref| {np.max(np.where(bad, err, 0))}; "
        f"got {h[bad].ravel()[:3]}, ref {ref[bad].ravel()[:3]}, bound {np.broadcast_to(tol, h.shape)[bad].ravel()[:3]}"
    )


def kwargs_for(func, axis):
    if func in ARG and isinstance(axis, tuple):
        return None  # argmin/argmax take one axis
    return {"axis": axis}


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("func", FUNCS)
def test_reductions_match_numpy(request, rng, func, dtype):
    if func in ("nanmin", "nanmax") and np.dtype(dtype).kind == "c":
        # CASES has 1-element slices ((6, 1, 5) axis 1, (1,), ()) each NaN with p = 0.2:
        # an all-NaN slice occurs in all but ~0.1% of seeds.
        known_defect(request, "nanmin/nanmax of an all-NaN complex slice give nan+nanj, NumPy returns the slice's NaN element (nan+0j): NanMin/NanMax start from Ordered::NAN (nan+nanj) and fmin/fmax keep it (kernels/src/reduction.rs extreme_reduction!(NanMin, NAN, fmin))")
    for shape, axis in CASES:
        kw = kwargs_for(func, axis)
        if kw is None:
            continue
        x = data(rng, shape, dtype, func)
        assert_matches_numpy(func, x, gp.asarray(x), **kw)


@pytest.mark.parametrize("case", BIG_CASES, ids=case_id)
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint32, np.int64, np.float16, np.float32, np.float64, np.complex64], ids=dtype_id)
@pytest.mark.parametrize("func", ["sum", "mean", "std", "max", "argmin", "any", "nanmax", "nanargmax", "count_nonzero"])
def test_large_reductions_match_numpy(rng, func, dtype, case):
    shape, axis = case
    x = data(rng, shape, dtype, func)
    assert_matches_numpy(func, x, gp.asarray(x), axis=axis)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=dtype_id)
def test_complex_prod_of_negative_zeros(request, dtype):
    """NumPy's product of one element is that element; gpupy's starts from 1+0j, and
    (1+0j)(-0-0j) has a +0.0 part, so the zero's sign differs (the value is the same)."""
    known_defect(request, "complex prod: -0.0 parts of a lone element come out +0.0 (the reduction combines it with Prod's identity 1+0j, kernels/src/reduce)")
    x = np.array(complex(-0.0, -0.0), dtype=dtype)
    assert_exact(gp.prod(gp.asarray(x)).get(), np.prod(x))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64, np.complex128], ids=dtype_id)
@pytest.mark.parametrize("func", ["sum", "mean", "var", "min", "max", "argmin", "argmax", "prod"])
def test_nan_propagates(request, rng, func, dtype):
    if func == "mean" and np.dtype(dtype).kind == "c":
        known_defect(request, "complex mean with a NaN element gives nan+<finite>j, NumPy nan+nanj (NumPy divides the sum by the count as a complex number; gpupy's Mean finish divides each component by n, kernels/src/reduction.rs)")
    for shape, axis in [((1001,), None), ((40, 33), 0), ((33, 40), 1), ((9,), 0)]:
        x = data(rng, shape, dtype, func, nan=True)
        assert_matches_numpy(func, x, gp.asarray(x), axis=axis)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64], ids=dtype_id)
@pytest.mark.parametrize("func", ["nanmin", "nanmax", "nanmean", "nansum", "nanvar", "nanstd", "nanprod"])
def test_all_nan_slices(request, rng, func, dtype):
    if func in ("nanmin", "nanmax") and np.dtype(dtype).kind == "c":
        known_defect(request, "nanmin/nanmax of an all-NaN complex slice give nan+nanj, NumPy returns the slice's NaN element (nan+0j): NanMin/NanMax start from Ordered::NAN (nan+nanj) and fmin/fmax keep it (kernels/src/reduction.rs extreme_reduction!(NanMin, NAN, fmin))")
    x = data(rng, (6, 50), dtype, func)
    x[2] = np.nan
    x[:, 7] = np.nan
    g = gp.asarray(x)
    for axis in (0, 1, None):
        assert_matches_numpy(func, x, g, axis=axis)


@pytest.mark.parametrize("func", ["nanargmin", "nanargmax"])
def test_nanarg_of_all_nan_slice_raises(rng, func):
    x = random_array(rng, (4, 9), np.float64)
    x[1] = np.nan
    g = gp.asarray(x)
    with pytest.raises(ValueError, match="All-NaN slice"):
        getattr(gp, func)(g, axis=1)
    np.testing.assert_array_equal(getattr(gp, func)(g, axis=0).get(), getattr(np, func)(x, axis=0))


@pytest.mark.parametrize("func", FUNCS)
def test_keepdims_and_methods(rng, func):
    x = data(rng, (5, 6, 7), np.float32, func)
    g = gp.asarray(x)
    for axis in (None, 0, 2, -1, (0, 2)):
        kw = kwargs_for(func, axis)
        if kw is None:
            continue
        assert_matches_numpy(func, x, g, keepdims=True, **kw)
        assert_matches_numpy(func, x, g, keepdims=False, **kw)
    if func in ("sum", "prod", "mean", "var", "std", "min", "max", "argmin", "argmax", "any", "all"):
        for axis in (None, 1):
            want = np.asarray(getattr(x, func)(axis=axis))
            got = getattr(g, func)(axis=axis)
            assert got.dtype == want.dtype and got.shape == want.shape
            if func in EXACT + ARG:
                np.testing.assert_array_equal(got.get(), want, strict=True)
            else:
                # The method runs the function's kernel: bit-identical to the function,
                # which assert_matches_numpy checked above.
                assert_exact(got.get(), getattr(gp, func)(g, axis=axis).get(), err_msg=f"{func} method")


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("func", ["sum", "var", "max", "argmax", "all", "nanmean", "count_nonzero"])
def test_reductions_of_views(rng, func, view):
    for dtype in (np.float32, np.int16, np.complex128):
        base = data(rng, (257, 129), dtype, func)
        x, g = view(base), view(gp.asarray(base))
        for axis in (None, 0, 1):
            assert_matches_numpy(func, x, g, axis=axis)


@pytest.mark.parametrize("func", ["sum", "mean", "max", "argmax", "var"])
def test_reductions_of_views_3d(rng, func):
    base = random_array(rng, (6, 40, 9), np.float64)
    g = gp.asarray(base)
    for key in [(slice(None), slice(None, None, -3), slice(1, None)), (slice(None, None, 2),)]:
        x, v = base[key], g[key]
        for t in [(0, 1, 2), (2, 0, 1), (1, 2, 0)]:
            xt, vt = x.transpose(t), v.transpose(t)
            for axis in (None, 0, 1, 2, (0, 2), (1, 2)):
                kw = kwargs_for(func, axis)
                if kw is not None:
                    assert_matches_numpy(func, xt, vt, **kw)


@pytest.mark.parametrize("func", ["sum", "prod", "mean", "var", "std", "nansum", "nanmean"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.complex64, np.int64, np.uint8, np.bool_], ids=dtype_id)
def test_dtype_argument(rng, func, dtype):
    # Products of small integers: no overflow, whose result depends on the accumulator.
    x = data(rng, (33, 17), np.float32, func) if func != "prod" else rng.integers(-3, 4, (33, 17)).astype(np.int8)
    g = gp.asarray(x)
    for axis in (None, 0):
        want, exc = numpy_call(func, x, axis=axis, dtype=dtype)
        if exc is not None:
            # std into an integer dtype: NumPy 2.4 says "Cannot cast ufunc 'sqrt' output from
            # dtype('float16') to dtype('int8') ...", gpupy NumPy 1.x's "ufunc 'sqrt' output
            # (typecode 'd') could not be coerced to provided output parameter ...".
            words = "ufunc 'sqrt' output" if func == "std" else "If a is inexact, then dtype must be inexact"
            with pytest.raises(expected_error(exc), match=words):
                gpupy_call(func, g, axis=axis, dtype=dtype)
            continue
        got = gpupy_call(func, g, axis=axis, dtype=dtype)
        assert got.dtype == np.asarray(want).dtype
        if np.dtype(dtype).kind in "biu":
            # Integer results are exact; mean/var/std of values in [-1, 1) converted to an
            # integer dtype are those of truncated values (0), in gpupy as in NumPy.
            np.testing.assert_array_equal(got.get(), want, strict=True)
        else:
            # NumPy rounds float32/complex64 partial sums as it goes (a few ulps off for
            # sums that cancel); gpupy accumulates in float64 and rounds once. Both are
            # measured against the wide computation, with rounded_bound's derivation.
            want = np.asarray(want)
            h = got.get()
            ref = np.asarray(reference(func, x.astype(want.dtype), axis=axis))
            assert_nonfinite_match(h, want, func)
            tol = rounded_bound(func, x.astype(want.dtype), want, ref, axis=axis)
            err = np.abs(h.astype(ref.dtype) - ref)
            assert np.all(err <= tol), f"{func} dtype={np.dtype(dtype)}: max error {err.max()} over the bound"


@pytest.mark.parametrize("func", ["sum", "max", "mean", "argmin", "any", "std", "nanmin", "count_nonzero"])
def test_out_argument(rng, func):
    x = data(rng, (9, 11), np.float64, func)
    g = gp.asarray(x)
    want = getattr(np, func)(x, axis=1)
    if func == "count_nonzero":
        # NumPy's count_nonzero has no out=: gpupy refuses it with NumPy's TypeError.
        with pytest.raises(TypeError, match="out"):
            np.count_nonzero(x, axis=1, out=np.empty(9, np.intp))
        with pytest.raises(TypeError, match="out"):
            gp.count_nonzero(g, axis=1, out=gp.empty(9, dtype=np.int64))
        return
    out = gp.asarray(random_array(rng, want.shape, want.dtype))
    r = getattr(gp, func)(g, axis=1, out=out)
    assert r is out
    # out= runs the same kernel as the plain call (checked against NumPy elsewhere):
    # bit-identical, and the plain call matches NumPy within rounded_bound.
    assert_exact(out.get(), getattr(gp, func)(g, axis=1).get(), err_msg=f"{func} out=")
    assert_matches_numpy(func, x, g, axis=1)
    # A full reduction into a 0-d array of another dtype: the result cast like NumPy's
    # (one float64 -> float32 rounding of gpupy's own result).
    out0 = gp.empty((), dtype=np.float32)
    getattr(gp, func)(g, out=out0)
    assert_exact(out0.get(), getattr(gp, func)(g).get().astype(np.float32), err_msg=f"{func} out=0-d float32")
    # no match=: NumPy says "operands could not be broadcast together with remapped shapes"
    # (argmin: "output array does not match result of np.argmin."), gpupy "output parameter
    # has shape (3,), the reduction's result has shape (11,)"
    with pytest.raises(ValueError):
        getattr(gp, func)(g, axis=0, out=gp.empty((3,), dtype=want.dtype))


@pytest.mark.parametrize("func", ["sum", "prod", "min", "max", "nansum", "nanmax"])
def test_initial(rng, func):
    x = data(rng, (4, 7), np.float64, func)
    g = gp.asarray(x)
    for axis in (None, 0, 1):
        assert_matches_numpy(func, x, g, axis=axis, initial=0.25)
    if func in ("min", "max"):
        empty = np.empty((0, 3))
        got = getattr(gp, func)(gp.asarray(empty), axis=0, initial=5.0)
        np.testing.assert_array_equal(got.get(), getattr(np, func)(empty, axis=0, initial=5.0), strict=True)


@pytest.mark.parametrize("func", ["min", "max", "nanmin", "nanmax", "argmin", "argmax", "ptp"])
def test_empty_reductions_without_identity_raise(func):
    for shape, axis in [((0,), None), ((0, 3), 0), ((4, 0), 1), ((0, 0), 0)]:
        x = np.empty(shape)
        _, exc = numpy_call(func, x, axis=axis)
        assert exc is not None
        with pytest.raises(expected_error(exc), match=f"^{re.escape(str(exc))}$"):  # NumPy's whole message
            getattr(gp, func)(gp.asarray(x), axis=axis)
    # ... while reducing the non-empty axis of an empty array is fine.
    x = np.empty((0, 3))
    assert getattr(gp, func)(gp.asarray(x), axis=1).shape == (0,)


@pytest.mark.parametrize("func", ["sum", "prod", "mean", "var", "any", "all", "count_nonzero", "nansum"])
def test_empty_reductions_with_identity(func):
    for shape, axis in [((0,), None), ((0, 3), 0), ((4, 0), 1), ((2, 0, 3), (0, 1)), ((0, 2), 1)]:
        for dtype in (np.float32, np.int32, np.bool_, np.complex64):
            assert_matches_numpy(func, np.empty(shape, dtype), gp.empty(shape, dtype=dtype), axis=axis)


def test_mean_of_empty_slice_warns():
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        r = gp.mean(gp.empty((0,), dtype=np.float32))
    assert np.isnan(float(r))


def test_var_ddof_and_correction(rng):
    x = random_array(rng, (13, 8), np.float64)
    g = gp.asarray(x)
    for ddof in (0, 1, 2.5, 8, 13):
        for axis in (None, 0, 1):
            for func in ("var", "std", "nanvar", "nanstd"):
                assert_matches_numpy(func, x, g, axis=axis, ddof=ddof)
    assert_matches_numpy("var", x, g, correction=1)
    assert_exact(gp.var(g, correction=1).get(), gp.var(g, ddof=1).get(), err_msg="correction= is ddof=")
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously"):
        gp.var(g, ddof=1, correction=1)


def test_axis_errors(rng):
    g = gp.asarray(random_array(rng, (3, 4), np.float32))
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for array of dimension 2"):
        gp.sum(g, axis=2)
    with pytest.raises(np.exceptions.AxisError, match="axis -3 is out of bounds for array of dimension 2"):
        gp.max(g, axis=(0, -3))
    with pytest.raises(ValueError, match="repeated axis"):
        gp.sum(g, axis=(1, -1))
    with pytest.raises(TypeError, match="'tuple' object cannot be interpreted as an integer"):
        gp.argmax(g, axis=(0, 1))
    with pytest.raises(NotImplementedError, match=r"gpupy\.sum does not support where="):
        gp.sum(g, where=gp.asarray(np.ones((3, 4), bool)))
    # Still usable: 12 float32 values summed in float64 (error ~1e-15 relative) and rounded
    # once to float32: within 0.5 ulp, bounded here by 1 ulp of the float32 result.
    assert_close(gp.sum(g).get(), np.sum(g.get(), dtype=np.float64), 1, dtype=np.float32)


def test_full_reductions_are_0d_arrays(rng):
    x = random_array(rng, (1000,), np.float64)
    g = gp.asarray(x)
    for func in ("sum", "mean", "max", "argmax", "any", "std"):
        r = getattr(gp, func)(g)
        assert isinstance(r, gp.ndarray) and r.shape == ()
    assert_matches_numpy("sum", x, g)
    assert int(gp.argmax(g)) == int(np.argmax(x))
    assert bool(gp.any(g > 0.5)) == bool(np.any(x > 0.5))


def test_float32_sum_of_64Mi_values_is_accurate(rng):
    # The target was 1e-6 relative; derived: positive terms summed in float64
    # (gamma_n with n = 2**26: 2**26 * 2**-53 relative, plus the reference's own float64
    # pairwise error, as much again) and one rounding to float32 (2**-24).
    x = rng.random(64 * 2**20, dtype=np.float32)
    ref = np.sum(x, dtype=np.float64)
    got = float(gp.asarray(x).sum())
    bound = (2.0**-24 + 2 * 2.0**26 * 2.0**-53) * ref
    assert abs(got - ref) <= bound, (got, ref, bound)


def assert_average(got, x, w, axis, keepdims=False):
    """gpupy's average: NumPy's dtype and non-finite values; error bound derived from its
    computation (py/python/gpupy/_reduction.py): products x*w rounded in the result
    dtype (u_res), sums of n terms in float64 (gamma_n, any order), one division and the
    final rounding. Weights are positive, so |sum w| = sum |w|."""
    want = np.asarray(np.average(x, axis=axis, weights=w, keepdims=keepdims))
    h = got.get()
    assert h.dtype == want.dtype and h.shape == want.shape, (h.dtype, want.dtype, h.shape, want.shape)
    assert_nonfinite_match(h, want, "average")
    wide = np.longdouble
    ww = np.ones(x.shape) if w is None else np.asarray(w, dtype=np.float64)
    if w is not None and ww.shape != x.shape:
        shape = [1] * x.ndim
        shape[axis] = ww.shape[0]
        ww = np.broadcast_to(ww.reshape(shape), x.shape)
    ref = np.sum(x.astype(wide) * ww, axis=axis, keepdims=keepdims) / np.sum(ww.astype(wide), axis=axis, keepdims=keepdims)
    n = x.size // max(want.size, 1)
    gamma = (n + 2) * 2 * 2.0**-53  # float64 accumulation and the float64 reference
    u_res = unit_roundoff(want.dtype)
    scale = np.sum(np.abs(x.astype(np.float64)) * ww, axis=axis, keepdims=keepdims) / np.sum(ww, axis=axis, keepdims=keepdims)
    bound = (u_res + gamma) * scale + (2 * u_res + gamma) * np.abs(ref)
    err = np.abs(h.astype(wide) - ref)
    assert np.all(err <= bound), f"average: max error {float(np.max(err - bound))} over the bound"


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32], ids=dtype_id)
def test_average(rng, dtype):
    x = random_array(rng, (7, 9), dtype)
    w1 = rng.uniform(0.1, 2.0, 9)
    w2 = rng.uniform(0.1, 2.0, (7, 9))
    g = gp.asarray(x)
    for axis in (None, 0, 1):
        assert_average(gp.average(g, axis=axis), x, None, axis)
        assert_average(gp.average(g, axis=axis, weights=gp.asarray(w2)), x, w2, axis)
    got = gp.average(g, axis=1, weights=gp.asarray(w1), keepdims=True)
    assert_average(got, x, w1, 1, keepdims=True)
    avg, scl = gp.average(g, axis=0, weights=gp.asarray(w2), returned=True)
    assert_average(avg, x, w2, 0)
    # The weight sums: 7 positive float64 terms, gamma_7 relative (+ the reference's).
    wscl = np.sum(w2.astype(np.longdouble), axis=0)
    assert np.all(np.abs(scl.get() - wscl) <= 2 * 8 * 2.0**-53 * wscl)
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        gp.average(g, axis=1, weights=gp.zeros(9))
    with pytest.raises(TypeError, match="Axis must be specified"):
        gp.average(g, weights=gp.asarray(w1))
    # NumPy 2.4: "Shape of weights must be consistent with shape of a along specified
    # axis."; older NumPy (and gpupy): "Length of weights not compatible with specified axis."
    with pytest.raises(ValueError, match=r"of weights .* specified axis"):
        gp.average(g, axis=0, weights=gp.asarray(w1))


def test_ptp_and_count_nonzero(rng):
    x = random_array(rng, (50, 3), np.int16)
    x[::3] = 0
    g = gp.asarray(x)
    for axis in (None, 0, 1):
        np.testing.assert_array_equal(gp.ptp(g, axis=axis).get(), np.ptp(x, axis=axis), strict=True)
        np.testing.assert_array_equal(gp.count_nonzero(g, axis=axis).get(), np.asarray(np.count_nonzero(x, axis=axis)).astype(np.int64))
    with pytest.raises(TypeError, match="numpy boolean subtract"):
        gp.ptp(gp.asarray(x > 0))  # NumPy: no subtract for bool


def special_rows(dtype):
    """Rows of four values with special cases; the reductions run along rows, columns
    and the whole array."""
    fi = np.finfo(dtype)
    s, t, m = float(fi.smallest_subnormal), float(fi.tiny), float(fi.max)
    rows = [
        [1.0, np.inf, 2.0, -1.0],  # +inf
        [np.inf, -np.inf, 1.0, 0.5],  # inf - inf: NaN
        [0.5, np.nan, np.inf, -2.0],  # NaN wins over inf
        [np.nan, np.nan, 1.0, 2.0],  # argmax/argmin: the first NaN
        [-0.0, -0.0, -0.0, -0.0],  # signed zeros
        [s, s, -t / 4, t],  # subnormals: no flush to zero
        [m, 1.0, -1.0, 0.5],  # the dtype's largest value
        [m, m, 1.0, 1.0],  # overflow to inf in every precision's sum
        [-m, -2.0, 3.0, -m],  # negative overflow
    ]
    return np.array(rows, dtype=dtype)


SPECIAL_FUNCS = ["sum", "prod", "mean", "var", "std", "min", "max", "argmin", "argmax", "ptp",
                 "nansum", "nanprod", "nanmean", "nanmin", "nanmax", "nanargmin", "nanargmax"]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=dtype_id)
@pytest.mark.parametrize("func", SPECIAL_FUNCS)
def test_special_values(func, dtype):
    """Infinities, NaNs (argmax/argmin report the first NaN), signed zeros, subnormals
    and the dtype's extremes give NumPy's results.

    mean/var/std leave out the rows near the dtype's largest value: gpupy accumulates
    them in float64 (float32 for float16 sums), where the intermediate sums and squares do
    not overflow as NumPy's float32 (float16) ones do; that difference is the point of
    the wide accumulators (kernels/src/reduction.rs), not an error."""
    x = special_rows(dtype)
    if func.replace("nan", "") in ("mean", "var", "std"):
        x = x[:6]
    g = gp.asarray(x)
    for axis in (1, 0, None):
        assert_matches_numpy(func, x, g, axis=axis)
    # Each row alone (a 1-d reduction takes the full-reduction kernels).
    for i in range(x.shape[0]):
        assert_matches_numpy(func, x[i], g[i])
