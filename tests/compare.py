"""Pure comparison helpers (NumPy only; no gpupy import), re-exported by ``helpers``.

They compare host arrays (``got`` already copied to the host) with a reference, and are
tested without a GPU in ``test_helpers.py``.

Policy, for every float and complex comparison:

- **Non-finite values match exactly**: +inf, -inf and NaN must sit at the same positions
  as in the reference, with the same kind (an inf where the reference is finite, a NaN
  where it has an inf, or -inf for +inf all fail). Complex numbers are checked per
  component. The reference is rounded to the result's dtype first, so a wide reference
  that overflows that dtype expects an inf.
- **Finite values are compared in ulps of the reference's own magnitude** in the
  result's precision: ``|got - want| <= ulps * ulp(want)``, where ``ulp(w)`` is the
  spacing of the binade holding ``|w|`` (``2**(floor(log2|w|) - mantissa_bits)``). There
  is no absolute floor at 1: a result of 1e-3 that is 100 ulp off fails. Complex results
  are compared with the ulp of ``|want|`` (the modulus), the usual normwise measure for
  complex arithmetic, in which a component that cancels has no relative accuracy.
- **Subnormals** (policy): gradual underflow is required by default. Below the smallest
  normal number the ulp is the subnormal spacing (the smallest subnormal), so a result
  flushed to zero is as many ulps off as the subnormal has spacings, and fails. A test
  opts in to flush-to-zero with ``flush_subnormals=True`` only where the operation is
  documented to flush (none in gpupy today); then a zero (of the reference's sign) is
  accepted where the reference is subnormal.
- **Signed zeros**: where the reference is zero the sign of zero must match (NumPy's
  ``-0.0`` and ``0.0`` differ under ``copysign``, ``1/x``, ``arctan2``). Opt out with
  ``signed_zeros=False`` for operations whose zero sign IEEE and NumPy leave to the
  order of evaluation (e.g. a parallel sum of values that cancel is +0.0 either way,
  but a product reduced in another order is not affected; opt out only with a comment).
- Integer and bool results are compared exactly.
"""

import numpy as np

LONGDOUBLE_IS_WIDER = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps

# Explicit mantissa bits and minimum normal exponent of each float format.
_FORMATS = {
    "float16": (10, -14),
    "bfloat16": (7, -126),
    "float32": (23, -126),
    "float64": (52, -1022),
}

# Unit roundoff u = 2**-(mantissa bits + 1) of round-to-nearest in each format.
UNIT_ROUNDOFF = {name: 2.0 ** -(bits + 1) for name, (bits, _) in _FORMATS.items()}
# TF32 keeps 10 explicit mantissa bits of a float32 input and (on tensor cores fed from
# float32 registers) truncates the rest: relative error < 2**-10, not 2**-11.
TF32_TRUNCATION = 2.0**-10


def real_name(dtype):
    """The real format name of a float or complex dtype ('complex64' -> 'float32')."""
    dt = np.dtype(dtype)
    if dt.kind == "c":
        return {8: "float32", 16: "float64"}[dt.itemsize]
    if dt.name not in _FORMATS:
        raise TypeError(f"no float format for {dt}")
    return dt.name


def unit_roundoff(dtype):
    return UNIT_ROUNDOFF[real_name(dtype)]


def smallest_subnormal(dtype):
    bits, emin = _FORMATS[real_name(dtype)]
    return 2.0 ** (emin - bits)


def half_subnormal(dtype):
    """Half the subnormal spacing of ``dtype``: the largest error of rounding onto its
    subnormal grid. A long double, since float64's half spacing (2**-1075) is not a
    float64 (it would round to 0)."""
    bits, emin = _FORMATS[real_name(dtype)]
    return np.ldexp(np.longdouble(1), emin - bits - 1)


def ulp_of(want, dtype):
    """Spacing of ``dtype``'s grid at ``|want|`` (an array of the reference's magnitudes),
    as float64 (or long double for a long double reference). Zero and subnormal
    magnitudes get the subnormal spacing; non-finite entries get 1 (they are compared
    exactly elsewhere)."""
    bits, emin = _FORMATS[real_name(dtype)]
    a = np.abs(np.asarray(want))
    wide = np.longdouble if a.dtype == np.longdouble else np.float64
    a = a.astype(wide)
    finite = np.isfinite(a)
    safe = np.where(finite & (a > 0), a, 1.0)
    _, e = np.frexp(safe)  # safe = m * 2**e with 0.5 <= m < 1: floor(log2) = e - 1
    e = np.where(a > 0, np.maximum(e - 1, emin), emin)
    u = np.ldexp(np.ones_like(safe), (e - bits).astype(np.int32))
    return np.where(finite, u, 1.0).astype(wide)


def _components(x):
    x = np.asarray(x)
    return [x.real, x.imag] if x.dtype.kind == "c" else [x]


def assert_nonfinite_match(got, want, err_msg=""):
    """+inf, -inf and NaN at the same positions (per component for complex)."""
    for part, (g, w) in zip(("real", "imag"), zip(_components(got), _components(want))):
        where = f" ({part} part)" if np.asarray(got).dtype.kind == "c" else ""
        for kind, test in (("NaN", np.isnan), ("+inf", np.isposinf), ("-inf", np.isneginf)):
            gm, wm = test(g), test(w)
            if not np.array_equal(gm, wm):
                bad = np.flatnonzero((gm != wm).ravel())
                i = bad[0]
                raise AssertionError(
                    f"{err_msg}: {kind} positions differ{where} at {bad.size} elements; first at flat "
                    f"index {i}: got {np.ravel(g)[i]!r}, want {np.ravel(w)[i]!r}"
                )


def _rounded(want, dtype):
    """The reference rounded to the result dtype (for the non-finite and zero checks)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(want).astype(dtype)


def assert_close(
    got,
    want,
    ulps,
    *,
    dtype=None,
    precision=None,
    signed_zeros=True,
    flush_subnormals=False,
    err_msg="",
):
    """Host array ``got`` matches the reference ``want`` (see the module docstring).

    ``dtype``: the dtype ``got`` must have (default: ``want``'s, so a float64 reference
    for a float32 result passes ``dtype=np.float32``). ``precision``: the format whose
    ulps measure the error (default ``dtype``; e.g. float32 for a float32 loop cast into
    a float64 ``out=``). ``ulps``: the error bound in those ulps, relative to the exact
    result; state its derivation at the call site. Integer and bool results must be
    equal and ``ulps`` is ignored.
    """
    got = np.asarray(got)
    want = np.asarray(want)
    dtype = np.dtype(want.dtype if dtype is None else dtype)
    assert got.dtype == dtype, f"{err_msg}: dtype {got.dtype}, want {dtype}"
    assert got.shape == want.shape, f"{err_msg}: shape {got.shape}, want {want.shape}"
    if dtype.name == "bfloat16":
        # ml_dtypes' bfloat16 (kind 'V'): compared through float32, which holds every
        # bfloat16 exactly, in ulps of bfloat16.
        want32 = want.astype(np.float32) if want.dtype == dtype else want
        assert_close(got.astype(np.float32), want32, ulps, dtype=np.float32,
                     precision=dtype if precision is None else precision,
                     signed_zeros=signed_zeros, flush_subnormals=flush_subnormals, err_msg=err_msg)
        return
    if dtype.kind in "biuUSVOmM":
        np.testing.assert_array_equal(got, want, err_msg=err_msg, strict=got.dtype == want.dtype)
        return
    precision = np.dtype(dtype if precision is None else precision)
    want_r = _rounded(want, dtype)
    if want_r.dtype != want.dtype and real_name(precision) == "bfloat16":
        want_r = _rounded(_rounded(want, precision), dtype)  # overflow at bfloat16's range
    assert_nonfinite_match(got, want_r, err_msg)

    finite = np.ones(got.shape, bool)
    for g, w in zip(_components(got), _components(want_r)):
        finite &= np.isfinite(g) & np.isfinite(w)
    if not finite.any():
        return
    wide = np.clongdouble if want.dtype.kind == "c" else np.longdouble
    if want.dtype not in (np.longdouble, np.clongdouble):
        wide = np.complex128 if dtype.kind == "c" or want.dtype.kind == "c" else np.float64
    g = got[finite].astype(wide)
    w = want[finite].astype(wide)
    err = np.abs(g - w)
    unit = ulp_of(np.abs(w), precision)
    bound = ulps * unit
    ok = err <= bound
    if flush_subnormals:
        tiny = 2.0 ** _FORMATS[real_name(precision)][1]
        flushed = (np.abs(w) < tiny) & (g == 0)
        ok |= flushed
    if not ok.all():
        bad = np.flatnonzero(~ok)
        worst = bad[np.argmax((err / unit)[bad])]
        raise AssertionError(
            f"{err_msg}: {bad.size} of {ok.size} finite elements off by more than {ulps} ulp "
            f"({precision.name}); worst: got {g[worst]!r}, want {w[worst]!r}, "
            f"{float(err[worst] / unit[worst]):.3g} ulp"
        )
    if signed_zeros:
        for part, (gc, wc) in enumerate(zip(_components(got), _components(want_r))):
            mism = finite & (wc == 0) & (gc == 0) & (np.signbit(gc) != np.signbit(wc))
            if mism.any():
                i = np.flatnonzero(mism.ravel())[0]
                raise AssertionError(
                    f"{err_msg}: sign of zero differs at {mism.sum()} elements"
                    f"{' (imag part)' if part else ''}; first at flat index {i}: got "
                    f"{np.ravel(gc)[i]!r}, want {np.ravel(wc)[i]!r}"
                )


def assert_exact(got, want, err_msg=""):
    """Same dtype, shape and values; NaNs at the same places; signed zeros distinguished
    for floats (an operation that moves or copies values must not change any bit of
    them, NaN payloads aside)."""
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, f"{err_msg}: dtype {got.dtype}, want {want.dtype}"
    assert got.shape == want.shape, f"{err_msg}: shape {got.shape}, want {want.shape}"
    np.testing.assert_array_equal(got, want, err_msg=err_msg, strict=True)
    if want.dtype.kind in "fc":
        assert_close(got, want, 0, err_msg=err_msg)


# ---------------------------------------------------------------------------------------
# Scans


def assert_scan_result(g, want, exact, scale, n, accum, name="scan"):
    """Host result ``g`` of a scan (cumsum/cumprod) of ``n`` terms against NumPy's
    ``want`` and the wide ``exact`` scan; ``scale``: the running sum of |x| for sums, None
    for products; ``accum``: the dtype the scan accumulates in."""
    # +inf, -inf and NaN exactly where NumPy has them (an inf where NumPy is finite, a
    # NaN for an inf or the wrong sign of inf all fail), then zero signs as NumPy's:
    # NumPy's scan starts from the first element, not from an added +0.0 identity, so a
    # run of -0.0 stays -0.0 (and x + (-x) is +0.0 in any order).
    assert_nonfinite_match(g, want, name)
    assert_close(g, want, np.inf, err_msg=f"{name} (signs of zeros)")
    dt = want.dtype
    # Tolerance, derived: the scan accumulates in ``accum`` (unit roundoff u_acc; gpupy:
    # float16 in float32, every other float in float64), then rounds each result once to the dtype
    # (u_out * |exact|; complex: sqrt(2) u_out |z| for the two components). A chain of n
    # additions (multiplications) in u_acc errs by at most gamma_n = n u_acc / (1 - n u_acc)
    # times the running sum of |x| (times |exact| for products), whatever the order of a
    # parallel scan; complex steps round up to 3 times per component (the product's two
    # products and a sum). The wide reference has its own gamma_n in u_ref. Results on the
    # subnormal grid are off by up to half its spacing.
    u_out = unit_roundoff(dt)
    u_acc = unit_roundoff(accum)
    u_ref = float(np.finfo(exact.dtype).eps) / 2
    steps = max(n, 1) * (3 if dt.kind == "c" else 1)
    gamma = steps * (u_acc + u_ref) / (1 - steps * (u_acc + u_ref))
    ok = np.isfinite(g) & np.isfinite(want)
    if dt.kind == "c":
        ok = np.isfinite(g.real) & np.isfinite(g.imag) & np.isfinite(want.real) & np.isfinite(want.imag)
    ok &= np.isfinite(exact)
    ex = exact[ok]
    err = np.abs(g[ok].astype(ex.dtype) - ex)
    sc = np.abs(ex) if scale is None else scale[ok]
    tol = (np.sqrt(2) if dt.kind == "c" else 1) * u_out * np.abs(ex) + gamma * sc + half_subnormal(dt)
    bad = err > tol
    assert not bad.any(), (
        f"{name}: {bad.sum()} of {bad.size} elements off: first at {np.argmax(bad)}, "
        f"got {g[ok][bad][:3]}, exact {ex[bad][:3]}, tol {tol[bad][:3]}"
    )


# ---------------------------------------------------------------------------------------
# Matrix products


# Above this many multiply-adds, a long double product (NumPy has no BLAS for it) is too
# slow for a test, and the float64 product is the reference, its own error in the bound.
LONGDOUBLE_MAX_OPS = 2e8


def _reference_dtype(a, b, op):
    """float64 (complex128) when both operands have at most float32's 24-bit significands
    (every product is then exact in float64 and only the sums round, at 2**-53); long
    double (x86: 64-bit significand) for wider operands, unless the product is too large."""
    cplx = a.dtype.kind == "c" or b.dtype.kind == "c"
    narrow = all(
        (x.dtype.kind in "fc" and unit_roundoff(x.dtype) >= UNIT_ROUNDOFF["float32"])
        or (x.dtype.kind in "biu" and x.dtype.itemsize <= 2)
        for x in (a, b)
    )
    if narrow or not LONGDOUBLE_IS_WIDER:
        return np.dtype(np.complex128 if cplx else np.float64)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) if a.ndim > 2 or b.ndim > 2 else ()
    ops = np.prod(shape, dtype=float) * (a.shape[-2] if a.ndim >= 2 else 1) * (a.shape[-1] if a.ndim else 1) * (b.shape[-1] if b.ndim >= 2 else 1)
    if op is np.matmul and ops > LONGDOUBLE_MAX_OPS:
        return np.dtype(np.complex128 if cplx else np.float64)
    return np.dtype(np.clongdouble if cplx else np.longdouble)


def exact_product(a, b, op=np.matmul):
    """``op(a, b)`` of the given (already rounded) inputs in a wider float
    (``_reference_dtype``), and the unit roundoff of that reference's own arithmetic."""
    a = np.asarray(a)
    b = np.asarray(b)
    wide = _reference_dtype(a, b, op)
    u_ref = float(np.finfo(wide).eps) / 2
    return op(a.astype(wide), b.astype(wide)), u_ref


def product_bound(a, b, k, *, accum, output, c=2.0, tf32=False, op=np.matmul):
    """Elementwise bound on ``|op(a, b) - exact|`` for a k-term inner product.

    Higham's bound for a dot product of length k accumulated in precision ``accum`` is
    ``gamma_k * sum_k |a_ik| |b_kj|`` with ``gamma_k = k u / (1 - k u)``; ``c`` (default
    2) covers accumulators that round toward zero (tensor cores: error < 1 ulp, i.e.
    2u, per addition) and the 4- to 16-term hardware dot steps. TF32 inputs lose up to
    2**-10 of each float32 factor (truncated to 10 mantissa bits): ``2 * 2**-10`` per
    product. The output is rounded once more to ``output``: ``u_out * |exact|``. The
    reference's own error (``k u_ref sum |a||b|``) is added so a float64 product is not
    held to a tighter bound than its float64 reference can check.
    """
    a = np.asarray(a)
    b = np.asarray(b)
    cplx = a.dtype.kind == "c" or b.dtype.kind == "c"
    # A complex product term is 4 real products summed in pairs: 2 more rounding steps
    # per term and |a||b| bounded by the moduli.
    k_eff = 2 * k + 2 if cplx else k
    u = unit_roundoff(accum)
    gamma = k_eff * u / (1 - k_eff * u)
    exact, u_ref = exact_product(a, b, op)
    wide = np.float64 if exact.dtype in (np.float64, np.complex128) else np.longdouble
    abs_prod = op(np.abs(a).astype(wide), np.abs(b).astype(wide))
    per_term = c * gamma
    if tf32:
        per_term += 2 * TF32_TRUNCATION + TF32_TRUNCATION**2
    # Complex: the bounds hold per component; the modulus of the error is sqrt(2) times.
    k2 = np.sqrt(2) if cplx else 1.0
    # The last rounding, onto the output's grid: relative for normal results, half the
    # subnormal spacing below (a float16 outer product can land there).
    last = unit_roundoff(output) * np.abs(exact) + half_subnormal(output).astype(wide)
    bound = k2 * (per_term * abs_prod + 2 * k_eff * u_ref * abs_prod + last)
    return exact, bound


def assert_product_close(
    got, a, b, *, accum=None, c=2.0, tf32=False, op=np.matmul, k=None, dtype=None, output=None, err_msg=""
):
    """Host array ``got`` is ``op(a, b)`` (``np.matmul`` by default; pass
    ``np.dot``/``np.inner``/... with their ``k``) within the elementwise error bound of
    ``product_bound``: non-finite values must match the exact product's, every finite
    element must satisfy ``|got - exact| <= bound``. ``accum`` is the accumulation
    precision (default: the result's real format); ``dtype`` the dtype ``got`` must
    have (default: NumPy's result dtype for ``op(a, b)``); ``output`` the dtype the
    product was rounded to (default ``dtype``; e.g. float32 for a float32 product
    written into a float64 ``out=``)."""
    got = np.asarray(got)
    a = np.asarray(a)
    b = np.asarray(b)
    if dtype is None:
        dtype = np.result_type(a, b)
    dtype = np.dtype(dtype)
    assert got.dtype == dtype, f"{err_msg}: dtype {got.dtype}, want {dtype}"
    if dtype.kind in "biu":
        want = op(a, b)
        np.testing.assert_array_equal(got, want, err_msg=err_msg, strict=True)
        return
    if k is None:
        k = a.shape[-1] if a.ndim else 1
    output = dtype if output is None else np.dtype(output)
    exact, bound = product_bound(a, b, k, accum=accum or real_name(output), output=output, c=c, tf32=tf32, op=op)
    assert got.shape == exact.shape, f"{err_msg}: shape {got.shape}, want {exact.shape}"
    assert_nonfinite_match(got, _rounded(exact, dtype), err_msg)
    finite = np.isfinite(got) & np.isfinite(exact) & np.isfinite(bound)
    err = np.abs(got[finite].astype(exact.dtype) - exact[finite])
    b_ = bound[finite]
    bad = err > b_
    if bad.any():
        i = np.flatnonzero(bad)[np.argmax((err / np.where(b_ > 0, b_, 1))[bad])]
        raise AssertionError(
            f"{err_msg}: {bad.sum()} of {bad.size} elements outside the k={k} product bound; "
            f"worst: got {got[finite][i]!r}, exact {exact[finite][i]!r}, error {float(err[i]):.3g}, "
            f"bound {float(b_[i]):.3g}"
        )
