"""Every ufunc against NumPy: every dtype NumPy has a loop for, broadcasting, weak Python
scalars, NumPy scalars, non-contiguous views, ``out=`` and ``dtype=``.

Results must have NumPy's dtype. Integer and bool results must be equal. Float results:
non-finite values and signed zeros exactly as NumPy's; finite values within the error
bound of ``helpers.ufunc_ulps`` (CUDA libdevice's documented maximum error, in ulps of the
result's own magnitude, against the exact result computed in a wider dtype; IEEE
operations bit-exact), see ``helpers.py`` and ``compare.py``.
"""

import warnings

import numpy as np
import pytest

import gpupy as gp
from helpers import ALL_DTYPES, assert_close, assert_exact, assert_ufunc_result, dtype_id, known_defect, random_array, ufunc_ulps

pytestmark = pytest.mark.gpu

BINARY = [n for n in gp._math._UFUNC_NAMES if getattr(gp, n).nin == 2]
UNARY = [n for n in gp._math._UFUNC_NAMES if getattr(gp, n).nin == 1]

# Inputs kept inside each function's domain for a useful comparison (outside it both
# give NaN, which is checked once per dtype anyway).
DOMAIN = {
    "arccosh": lambda x: 1 + abs(x),
    "log": abs,
    "log2": abs,
    "log10": abs,
    "sqrt": abs,
    "log1p": abs,
    # log(e^a + e^b) of two non-negative numbers: no cancellation between the larger
    # argument and log1p(exp(-|a - b|)) (for mixed signs the result can be near 0 and
    # its relative error unbounded, in NumPy's formula as in ours).
    "logaddexp": abs,
    "logaddexp2": abs,
}

# gpupy's complex formulas for these (kernels/src/ops/complex.rs, math.rs) form 1 + z (or
# exp(z) - 1, z + sqrt(z^2 + 1)) and lose |1 + z| u absolutely, which is many ulps of a
# result near |z| when |z| is small. For |z| >= 0.5 that loss is a few ulps of the result
# (|result| >= ~0.4, absolute error <= ~6 u), inside COMPLEX_FUNCTION_ULPS; the random
# complex inputs of these functions are moved there, and small |z| is tested on fixed
# values by test_complex_small_argument (known defects, except log1p: NumPy's complex
# log1p is the same log(1 + z) formula, with the same error near 0).
SMALL_Z_CANCELLING = {"arcsin", "arcsinh", "arctan", "arctanh", "expm1", "log1p"}


def inputs(rng, name, shape, dtype):
    x = random_array(rng, shape, dtype)
    if name in DOMAIN and np.dtype(dtype).kind in "fc":
        x = DOMAIN[name](x).astype(dtype)
    if name in SMALL_Z_CANCELLING and np.dtype(dtype).kind == "c":
        r = np.abs(x)
        x = np.where(r < 0.5, np.where(r > 0, x / np.where(r > 0, r, 1), 1) * (0.5 + r), x).astype(dtype)
    if name in ("left_shift", "right_shift", "power") and np.dtype(dtype).kind in "iu":
        # Shift counts and exponents within the width (NumPy refuses negative integer powers).
        x = (np.abs(x.astype(np.int64)) % (8 * np.dtype(dtype).itemsize)).astype(dtype)
    return x


def compare(got, want, name, precision=None, inputs=None, label=None):
    """gpupy result ``got`` matches NumPy's ``want`` (``helpers.assert_ufunc_result``);
    ``name``: the ufunc's own name, which selects the error bound; ``label``: the failure
    message's prefix (default ``name``); ``inputs``: the NumPy operands, for the exact
    wide-dtype reference."""
    assert_ufunc_result(got, want, name, inputs=inputs, precision=precision, err_msg=label)


def numpy_outcome(call):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except Exception as e:  # noqa: BLE001 - gpupy must raise the same type
            return None, type(e)


def check(gcall, ncall, name, inputs=None, label=None):
    """Both raise the same type, or gpupy's result matches NumPy's. ``name`` is the
    ufunc's name (it selects the bound: a decorated name such as "sin special values"
    would be taken for an exact operation); ``label`` prefixes the failure message."""
    want, exc = numpy_outcome(ncall)
    if exc is not None:
        with pytest.raises(exc):  # no match=: a shared checker; numpy_outcome keeps only the type
            gcall()
        return
    compare(gcall(), want, name, inputs=inputs, label=label)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", UNARY)
def test_unary_every_dtype(rng, name, dtype):
    x = inputs(rng, name, (1027,), dtype)
    check(lambda: getattr(gp, name)(gp.asarray(x)), lambda: getattr(np, name)(x), name, inputs=(x,))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", BINARY)
def test_binary_every_dtype(rng, name, dtype):
    x = inputs(rng, name, (1029,), dtype)
    y = inputs(rng, name, (1029,), dtype)
    if name in ("floor_divide", "remainder", "fmod") and np.dtype(dtype).kind in "iu":
        y[::7] = 0  # division by zero gives 0 in both
    check(lambda: getattr(gp, name)(gp.asarray(x), gp.asarray(y)), lambda: getattr(np, name)(x, y), name, inputs=(x, y))


SMALL_Z = {np.complex64: [1e-3 + 5e-4j, -2e-3 + 1e-3j, 3e-3 - 2e-3j, -1e-3 - 1e-3j],
           np.complex128: [1e-6 + 5e-7j, -2e-6 + 1e-6j, 3e-6 - 2e-6j, -1e-6 - 1e-6j]}
SMALL_Z_FORMULA = {
    "arcsinh": "log(z + sqrt(z^2 + 1))",
    "arcsin": "-i asinh(iz), asinh as log(z + sqrt(z^2 + 1))",
    "arctanh": "(log(1 + z) - log(1 - z)) / 2",
    "arctan": "-i atanh(iz), atanh as (log(1 + z) - log(1 - z)) / 2",
    "expm1": "exp(z) - 1",
}


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=dtype_id)
@pytest.mark.parametrize("name", sorted(SMALL_Z_FORMULA))
def test_complex_small_argument(request, name, dtype):
    """Complex functions that vanish at 0 keep their relative accuracy for small |z|, as
    NumPy's (npymath's casinh/catanh, expm1 through expm1 and sin(y/2)^2 do): within
    COMPLEX_FUNCTION_ULPS of the wide reference. gpupy's formulas cancel there (an
    emulation of them in NumPy float32/float64 gives 50-400 ulp for complex64 and 1e5 ulp
    for complex128 at these values)."""
    known_defect(request, "complex " + name + " loses relative accuracy for small |z| (cancellation; " + SMALL_Z_FORMULA[name] + "; kernels/src/ops/complex.rs, math.rs); NumPy uses accurate algorithms (npy_casinh/npy_catanh, expm1 with sin^2(y/2))")
    x = np.array(SMALL_Z[dtype], dtype=dtype)
    check(lambda: getattr(gp, name)(gp.asarray(x)), lambda: getattr(np, name)(x), name, inputs=(x,),
          label=f"{name} small |z|")


SCALARS = [True, 3, -2, 2.5, -0.75, 1.5 - 2j, np.float32(1.25), np.int16(7), np.float64(-3.5), np.uint8(5)]


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int32, np.uint64, np.float16, np.float32, np.float64, np.complex64], ids=dtype_id)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "power", "maximum", "less", "equal", "floor_divide", "bitwise_and", "arctan2"])
def test_scalar_operands_follow_nep50(rng, name, dtype):
    x = inputs(rng, name, (33,), dtype)
    g = gp.asarray(x)
    f, nf = getattr(gp, name), getattr(np, name)
    for s in SCALARS:
        if name == "power" and np.dtype(dtype).kind in "iu" and not isinstance(s, (float, complex, np.floating)) and s < 0:
            continue
        check(lambda: f(g, s), lambda: nf(x, s), name, label=f"{name}(x, {s!r})")
        check(lambda: f(s, g), lambda: nf(s, x), name, label=f"{name}({s!r}, x)")


@pytest.mark.parametrize("name", ["add", "multiply", "less", "maximum", "arctan2", "logical_xor", "right_shift"])
@pytest.mark.parametrize(
    "shapes",
    [((3, 1, 4), (5, 4)), ((), (7,)), ((0, 3), (1, 3)), ((2, 3), ()), ((1,), (6, 1)), ((4, 1, 1, 3), (2, 1, 1))],
    ids=str,
)
def test_broadcasting(rng, name, shapes):
    dtype = np.int32 if name == "right_shift" else np.float32
    x = inputs(rng, name, shapes[0], dtype)
    y = inputs(rng, name, shapes[1], dtype)
    check(lambda: getattr(gp, name)(gp.asarray(x), gp.asarray(y)), lambda: getattr(np, name)(x, y), name, inputs=(x, y))


@pytest.mark.parametrize("name", ["sin", "exp", "negative", "isnan", "sqrt", "floor", "absolute"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int16], ids=dtype_id)
def test_unary_on_views(rng, name, dtype):
    x = inputs(rng, name, (37, 41), dtype)
    g = gp.asarray(x)
    for view in (lambda a: a.T, lambda a: a[::-2, 1::3], lambda a: a[5, ::-1], lambda a: a[1:, 2:]):
        check(lambda: getattr(gp, name)(view(g)), lambda: getattr(np, name)(view(x)), name, inputs=(view(x),))


@pytest.mark.parametrize("name", ["add", "subtract", "hypot", "greater_equal", "fmax"])
def test_binary_on_views_and_mixed_dtypes(rng, name):
    x = inputs(rng, name, (23, 29), np.float64)
    y = inputs(rng, name, (29, 23), np.float32)
    i = random_array(rng, (23, 29), np.int8)
    gx, gy, gi = gp.asarray(x), gp.asarray(y), gp.asarray(i)
    f, nf = getattr(gp, name), getattr(np, name)
    check(lambda: f(gx[::-1], gy.T), lambda: nf(x[::-1], y.T), name, inputs=(x[::-1], y.T))
    check(lambda: f(gi, gy.T[:, ::-1]), lambda: nf(i, y.T[:, ::-1]), name)
    check(lambda: f(gx[1::2, ::3], gi[1::2, ::3]), lambda: nf(x[1::2, ::3], i[1::2, ::3]), name)


def test_out_and_dtype_arguments(rng):
    x = random_array(rng, (8, 9), np.float32)
    y = random_array(rng, (9,), np.float64)
    gx, gy = gp.asarray(x), gp.asarray(y)
    out = gp.empty((8, 9), dtype=np.float32)  # float64 result cast into float32: same_kind
    r = gp.add(gx, gy, out=out)
    assert r is out
    compare(out, np.add(x, y, out=np.empty((8, 9), np.float32)), "add")  # float64 add, one cast
    out2 = gp.empty((8, 9), dtype=np.float64)
    gp.sin(gx, out=(out2,))
    # NumPy runs the float32 loop and casts into the float64 output.
    compare(out2, np.sin(x, out=np.empty((8, 9), np.float64)), "sin", precision=np.float32)
    compare(gp.multiply(gx, gy, dtype=np.float32), np.multiply(x, y, dtype=np.float32), "multiply")
    with pytest.raises(TypeError, match=r"Cannot cast ufunc 'add' output from dtype\('float64'\) to dtype\('int32'\)"):
        gp.add(gx, gy, out=gp.empty((8, 9), dtype=np.int32))
    # NumPy: "operands could not be broadcast together with shapes (8,9) (9,) (8,8) "; gpupy:
    # "non-broadcastable output operand with shape (8,8) doesn't match the broadcast shape (8,9)".
    with pytest.raises(ValueError, match="broadcast"):
        gp.add(gx, gy, out=gp.empty((8, 8), dtype=np.float64))
    # Positional out, as NumPy allows.
    out3 = gp.empty((8, 9), dtype=np.float64)
    gp.subtract(gx, gy, out3)
    compare(out3, np.subtract(x, y), "subtract")


def test_inplace_operators_cast_like_numpy(rng):
    x = random_array(rng, (50,), np.float32)
    y = random_array(rng, (50,), np.float64)
    g = gp.asarray(x)
    g += gp.asarray(y)
    x += y
    compare(g, x, "add")  # += float64 into float32: the float64 sum cast once, as NumPy
    i = random_array(rng, (50,), np.int32)
    gi = gp.asarray(i)
    with pytest.raises(TypeError, match=r"Cannot cast ufunc 'add' output from dtype\('float64'\) to dtype\('int32'\)"):
        gi += gp.asarray(y)  # float64 into int32 is not same_kind
    gi //= 3
    i //= 3
    compare(gi, i, "//=")
    gi <<= 2
    i <<= 2
    compare(gi, i, "<<=")


def test_operators_map_to_ufuncs(rng):
    x = inputs(rng, "power", (40,), np.int32)
    y = inputs(rng, "power", (40,), np.int32) % 5 + 1
    gx, gy = gp.asarray(x), gp.asarray(y)
    for g, n in [
        (gx ** gy, x ** y), (gx // gy, x // y), (gx % gy, x % y), (gx & gy, x & y), (gx | gy, x | y),
        (gx ^ gy, x ^ y), (gx << gy, x << y), (gx >> gy, x >> y), (-gx, -x), (+gx, +x), (~gx, ~x),
        (abs(gx), abs(x)), (gx < gy, x < y), (gx <= 3, x <= 3), (gx == gy, x == y), (gx != gy, x != y),
        (gx > gy, x > y), (gx >= gy, x >= y), (2 ** gy, 2 ** y), (7 // gy, 7 // y), (100 % gy, 100 % y),
    ]:
        compare(g, n, "operator")
    q, r = divmod(gx, gy)
    compare(q, x // y, "floor_divide")
    compare(r, x % y, "remainder")
    f = random_array(rng, (40,), np.float64)
    compare(gp.asarray(f) < x, f < x, "comparison with a NumPy array")


def test_ufunc_attributes():
    assert gp.add.nin == 2 and gp.add.nout == 1 and gp.sin.nin == 1
    assert gp.add.__name__ == "add"
    assert "ff->f" in gp.add.types and "dd->?" in gp.less.types
    assert isinstance(gp.sqrt, gp.ufunc)
    assert gp.true_divide is gp.divide and gp.mod is gp.remainder and gp.abs is gp.absolute


def special_values(dtype):
    """±0, ±inf, NaN, ±1, the smallest subnormal, a subnormal, the smallest normal, the
    largest finite value and its negative, and two ordinary values, in ``dtype``."""
    fi = np.finfo(dtype)
    vals = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, float(fi.smallest_subnormal),
            -float(fi.tiny) / 4, float(fi.tiny), float(fi.max), float(fi.min), 0.3, -2.5]
    return np.array(vals, dtype=dtype)


SPECIAL_BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin", "copysign",
                  "nextafter", "arctan2", "hypot", "floor_divide", "remainder", "fmod", "power"]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=dtype_id)
@pytest.mark.parametrize("name", UNARY)
def test_special_values_unary(name, dtype):
    """Non-finite values, signed zeros, subnormals (no flush to zero) and the dtype's
    extremes give NumPy's results; where NumPy raises, gpupy raises the same type."""
    vals = special_values(dtype)
    check(lambda: getattr(gp, name)(gp.asarray(vals)), lambda: getattr(np, name)(vals), name, inputs=(vals,),
          label=f"{name} special values")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=dtype_id)
@pytest.mark.parametrize("name", SPECIAL_BINARY)
def test_special_values_binary(request, name, dtype):
    if name == "hypot" and dtype == np.float64:
        known_defect(request, "hypot(+-DBL_MAX, y) for finite nonzero |y| <= 2.5 gives inf (NumPy: DBL_MAX) in the float64 Hypot loop (kernels/src/ops/math.rs Hypot -> ops/float.rs __nv_hypot)")
    vals = special_values(dtype)
    a, b = np.meshgrid(vals, vals)
    check(lambda: getattr(gp, name)(gp.asarray(a), gp.asarray(b)), lambda: getattr(np, name)(a, b), name, inputs=(a, b),
          label=f"{name} special values")


def test_math_helpers(rng):
    z = random_array(rng, (30,), np.complex128)
    x = random_array(rng, (30,), np.float32) * 100
    gz, gx = gp.asarray(z), gp.asarray(x)
    # angle is arctan2(imag, real) (libdevice's atan2 against NumPy's); in degrees one more
    # rounded product by 180/pi (1 ulp).
    compare(gp.angle(gz), np.angle(z), "arctan2")
    assert_close(gp.angle(gz, deg=True).get(), np.angle(z, deg=True), ufunc_ulps("arctan2", np.float64, False) + 1, err_msg="angle deg")
    for d in (0, 1, 2, -1):
        # rint(a * 10**d) / 10**d in the dtype, as NumPy: bit-exact (name "rint": exact).
        compare(gp.around(gx, d), np.around(x, d), "rint")
    compare(gp.clip(gx, -10, 20), np.clip(x, -10, 20), "clip")
    compare(gp.clip(gx, None, 5.0), np.clip(x, None, 5.0), "clip")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.complex64, np.uint16], ids=dtype_id)
@pytest.mark.parametrize("name", ["add", "subtract", "less", "maximum"])
def test_row_broadcast_and_sliced_rows(rng, name, dtype):
    """Rows contiguous or repeated in every operand take the packed rows kernel; rows
    that do not hold whole aligned packs fall back to the strided one. Both must agree
    with NumPy."""
    f, nf = getattr(gp, name), getattr(np, name)
    for rows, cols in [(37, 64), (5, 48), (9, 33), (1, 128), (130, 16)]:
        m = random_array(rng, (rows, cols + 16), dtype)
        v = random_array(rng, (cols,), dtype)
        c = random_array(rng, (rows, 1), dtype)
        gm, gv, gc = gp.asarray(m), gp.asarray(v), gp.asarray(c)
        for gcall, ncall in [
            (lambda: f(gm[:, :cols], gv), lambda: nf(m[:, :cols], v)),  # row vector, sliced rows
            (lambda: f(gv, gm[:, 16:]), lambda: nf(v, m[:, 16:])),  # rows starting off alignment
            (lambda: f(gm[:, :cols], gc), lambda: nf(m[:, :cols], c)),  # column vector
            (lambda: f(gc, gv), lambda: nf(c, v)),  # outer
            (lambda: f(gm[::2, :cols], gm[1::2, 8 : cols + 8][: (rows // 2)] if rows > 1 else gm[:1, :cols]),
             lambda: nf(m[::2, :cols], m[1::2, 8 : cols + 8][: (rows // 2)] if rows > 1 else m[:1, :cols])),
        ]:
            # Every case is checked: where NumPy raises, gpupy must raise the same type.
            check(gcall, ncall, name)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64, np.complex128, np.int32], ids=dtype_id)
def test_nan_to_num_and_infinity_tests(rng, dtype):
    x = random_array(rng, (40,), dtype)
    if np.dtype(dtype).kind in "fc":
        special = np.array([np.nan, np.inf, -np.inf, -0.0]).astype(dtype)
        x[:4] = special
        if np.dtype(dtype).kind == "c":
            x[4] = complex(np.inf, np.nan)
    g = gp.asarray(x)
    with np.errstate(all="ignore"):
        # nan_to_num only replaces values: bit-exact, dtype and -0.0 included.
        assert_exact(gp.nan_to_num(g).get(), np.nan_to_num(x))
        assert_exact(gp.nan_to_num(g, nan=1.5, posinf=9.0, neginf=-9.0).get(), np.nan_to_num(x, nan=1.5, posinf=9.0, neginf=-9.0))
        if np.dtype(dtype).kind == "f":
            np.testing.assert_array_equal(gp.isposinf(g).get(), np.isposinf(x))
            np.testing.assert_array_equal(gp.isneginf(g).get(), np.isneginf(x))


def test_divmod_function(rng):
    x = random_array(rng, (50,), np.float64) * 10
    y = random_array(rng, (50,), np.float64) + 2.0
    q, r = gp.divmod(gp.asarray(x), gp.asarray(y))
    nq, nr = np.divmod(x, y)
    compare(q, nq, "floor_divide")
    compare(r, nr, "remainder")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=dtype_id)
def test_sign_of_complex_zeros_is_positive_zero(dtype):
    """NumPy 2's complex ``sign``: 0 (+0.0 in both parts) for every signed zero, the unit
    along an infinite part (NaN for two), ``z / |z|`` otherwise; compared bit for bit."""
    inf, nan = np.inf, np.nan
    parts = [(-0.0, -0.0), (-0.0, 0.0), (0.0, -0.0), (0.0, 0.0), (-3.0, -0.0), (0.0, -2.5), (nan, -0.0),
             (-0.0, inf), (inf, inf), (-inf, 2.0), (3.0, -inf), (inf, nan), (nan, inf)]
    x = np.array([complex(re, im) for re, im in parts], dtype=dtype)
    with np.errstate(invalid="ignore"):
        want = np.sign(x)
    assert_exact(gp.sign(gp.asarray(x)).get(), want)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=dtype_id)
@pytest.mark.parametrize("name", ["arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "sqrt", "log"])
def test_branch_cuts_take_the_side_of_the_zeros_sign(name, dtype):
    # C99 Annex G (NumPy): on a branch cut the sign of the zero part picks the side, e.g.
    # arcsin(2+0j) = pi/2 + 1.317j but arcsin(2-0j) = pi/2 - 1.317j.
    vals = [complex(x, z) for x in (2.0, -2.0, 3.5, -1.5) for z in (0.0, -0.0)]
    vals += [complex(z, y) for y in (2.0, -2.0, 3.5) for z in (0.0, -0.0)]
    x = np.array(vals, dtype=dtype)
    check(lambda: getattr(gp, name)(gp.asarray(x)), lambda: getattr(np, name)(x), name, inputs=(x,))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
def test_sqrt_is_correctly_rounded(rng, dtype):
    """IEEE 754 and NumPy round the square root correctly; CUDA's libdevice does only
    when asked (``__CUDA_PREC_SQRT``, set by the kernel build), else float32 ``sqrt``
    is ``sqrt.approx`` and can be an ulp off. Exact equality over random magnitudes,
    subnormals, zeros and infinities."""
    x = rng.random(200_003).astype(dtype) * np.exp2(rng.integers(-140, 120, 200_003)).astype(dtype)
    x[:6] = [0.0, -0.0, np.inf, np.finfo(dtype).tiny / 4, np.finfo(dtype).max, 1.0]
    got = gp.sqrt(gp.asarray(x)).get()
    np.testing.assert_array_equal(got, np.sqrt(x))
    # The same through a libdevice function that uses sqrt inside (complex absolute).
    # (Finite operands below the top of the range: libdevice's hypot, within 2 ulps,
    # may round hypot(max, y) up to inf.) The bound: libdevice's hypot is within 2 ulps
    # of the exact value, and for float64 the reference (NumPy's hypot in float64)
    # within 1 more; float32's reference, computed in float64, is correctly rounded.
    z = (x[6:1006] + 1j * x[1006:2006][::-1]).astype(np.complex64 if dtype == np.float32 else np.complex128)
    want = np.abs(z.astype(np.complex128)).astype(dtype)
    assert_close(gp.absolute(gp.asarray(z)).get(), want, 2 if dtype == np.float32 else 3, dtype=dtype)
