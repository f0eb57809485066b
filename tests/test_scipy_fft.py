"""``gpupyx.scipy.fft`` against ``scipy.fft`` on the same values.

Every result is compared with SciPy's in two ways: its dtype and shape with SciPy's
result for the same input (float32 stays single precision), and its values with SciPy's
result computed on the input widened to ``helpers.wide_dtype`` (float64 for
single-precision results, long double where wider for double-precision ones), from the
values the GPU computes on (float16 as float32, integers as float64).

Tolerance, normwise: ``||got - ref|| / ||ref|| <= 5 eps log2(max(n, 2)) C`` with ``eps``
the result precision's machine epsilon. A radix-2 FFT of length n computed with
accurate twiddles errs by at most ``log2(n) eta / (1 - log2(n) eta)``, ``eta`` about 3
eps (Higham, Accuracy and Stability of Numerical Algorithms, Thm 24.2); 5 eps log2 n
leaves room for other radices and Bluestein's algorithm. n-d transforms run one pass per
axis whose errors add, so ``n`` is the product of the lengths. ``C`` is 1 for the FFTs;
2 for DCTs and DSTs, whose pre- and post-processing adds a twiddle product, its
rounding and one scaling (about 3 eps, whatever the length), with ``n`` the length of
the FFT they run (2(N-1) for DCT-I, 2(N+1) for DST-I, N for the others).
"""

import inspect
import math
from functools import partial

import numpy as np
import pytest
import scipy.fft as sfft

import gpupy as gp
import gpupyx
import gpupyx.scipy.fft as gfft
from helpers import VIEW_FUNCS_1D, VIEW_FUNCS_2D, VIEW_IDS_1D, VIEW_IDS_2D, dtype_id, random_array, wide_dtype

pytestmark = pytest.mark.gpu

SIZES = [1, 2, 3, 5, 7, 8, 16, 17, 30, 64, 97, 100, 128, 1000, 1009, 4096]
FLOAT_COMPLEX = [np.float32, np.float64, np.complex64, np.complex128]
NORMS = [None, "backward", "ortho", "forward"]
DCT_C = 2  # the DCT/DST constant of the module docstring


def scipy_input(x):
    """``x`` as SciPy (and gpupyx) compute on it."""
    if x.dtype == np.float16:
        return x.astype(np.float32)
    return x if x.dtype.kind in "fc" else x.astype(np.float64)


def wide(x):
    x = scipy_input(x)
    return x.astype(wide_dtype(x.dtype))


def check(got, f, x, *args, n, c=1, **kwargs):
    """``got`` (a gpupy array) is SciPy's ``f(x, *args, **kwargs)``: its dtype and shape,
    and its values within the module's tolerance for transform length ``n``."""
    want = f(x, *args, **kwargs)
    ref = f(wide(x), *args, **kwargs)
    assert isinstance(got, gp.ndarray), type(got)
    g = got.get()
    assert g.dtype == want.dtype, f"dtype: gpupyx {g.dtype}, scipy {want.dtype}"
    assert g.shape == want.shape, f"shape: gpupyx {g.shape}, scipy {want.shape}"
    scale = np.sqrt(np.sum(np.abs(ref) ** 2))
    err = np.sqrt(np.sum(np.abs(g.astype(ref.dtype) - ref) ** 2))
    tol = 5 * np.finfo(g.dtype).eps * math.log2(max(n, 2)) * c
    if scale == 0:
        assert err == 0
    else:
        assert err <= tol * scale, f"relative error {float(err / scale):.3e} > {tol:.3e}"


def pair(rng, shape, dtype):
    x = random_array(rng, shape, dtype)
    return x, gp.asarray(x)


def dct_fft_len(name, type, n):
    """The length of the FFT a DCT/DST of length ``n`` runs (see the module docstring)."""
    if type == 1:
        return 2 * (n - 1) if "dct" in name else 2 * (n + 1)
    return n


# --------------------------------------------------------------------------------------
# One-axis FFTs


@pytest.mark.parametrize("dtype", FLOAT_COMPLEX, ids=dtype_id)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_c2c(rng, name, n, dtype):
    x, g = pair(rng, (3, n), dtype)
    for norm in NORMS:
        check(getattr(gfft, name)(g, norm=norm), getattr(sfft, name), x, norm=norm, n=n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", ["rfft", "ihfft"])
def test_r2c(rng, name, n, dtype):
    x, g = pair(rng, (2, n), dtype)
    for norm in NORMS:
        check(getattr(gfft, name)(g, norm=norm), getattr(sfft, name), x, norm=norm, n=n)


@pytest.mark.parametrize("dtype", FLOAT_COMPLEX, ids=dtype_id)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", ["irfft", "hfft"])
def test_c2r(rng, name, n, dtype):
    """``n`` real outputs from ``n // 2 + 1`` inputs (real input is taken as complex);
    without ``n``, ``2 (m - 1)`` outputs from ``m`` inputs."""
    x, g = pair(rng, (2, n // 2 + 1), dtype)
    for norm in NORMS:
        check(getattr(gfft, name)(g, n, norm=norm), getattr(sfft, name), x, n, norm=norm, n=n)
        if x.shape[-1] > 1:
            m = 2 * (x.shape[-1] - 1)
            check(getattr(gfft, name)(g, norm=norm), getattr(sfft, name), x, norm=norm, n=m)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft", "irfft", "hfft"])
def test_n_pads_and_truncates_along_any_axis(rng, name):
    kind = np.float64 if name in ("rfft", "ihfft") else np.complex128
    x, g = pair(rng, (9, 4, 6), kind)
    for axis in (0, 1, -1, -3):
        for n in (1, 3, 8, 9, 20):
            check(getattr(gfft, name)(g, n, axis), getattr(sfft, name), x, n, axis, n=n)


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint16, np.bool_, np.float16], ids=dtype_id)
def test_non_float_input_is_computed_as_scipy_does(rng, dtype):
    """float16 is computed in float32 (complex64 results), integers and booleans in
    float64."""
    x, g = pair(rng, (3, 20), dtype)
    for name in ("fft", "ifft", "rfft", "ihfft", "irfft", "hfft"):
        check(getattr(gfft, name)(g), getattr(sfft, name), x, n=38)
    for name in ("fftn", "rfftn", "irfftn", "hfftn", "ihfftn"):
        check(getattr(gfft, name)(g), getattr(sfft, name), x, n=3 * 38)
    for name in ("dctn", "idstn"):
        check(getattr(gfft, name)(g), getattr(sfft, name), x, n=3 * 20, c=DCT_C)


@pytest.mark.parametrize("view", VIEW_FUNCS_1D, ids=VIEW_IDS_1D)
def test_strided_1d_inputs(rng, view):
    for dtype in (np.float32, np.complex128):
        x, g = pair(rng, (64,), dtype)
        xv, gv = view(x), view(g)
        n = xv.shape[0]
        for name in ("fft", "ifft", "irfft", "hfft") + (("rfft", "ihfft") if dtype == np.float32 else ()):
            check(getattr(gfft, name)(gv), getattr(sfft, name), xv, n=2 * n)
        for name in ("dct", "idst"):
            for type in (1, 2, 3, 4):
                check(getattr(gfft, name)(gv, type), getattr(sfft, name), xv, type, n=2 * n + 2, c=DCT_C)


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_strided_2d_inputs(rng, view):
    for dtype in (np.float64, np.complex64):
        x, g = pair(rng, (12, 10), dtype)
        xv, gv = view(x), view(g)
        for name in ("fft2", "ifftn", "irfft2", "hfftn") + (("rfftn", "ihfft2") if dtype == np.float64 else ()):
            check(getattr(gfft, name)(gv), getattr(sfft, name), xv, n=2 * xv.size)
        for axis in (0, 1):
            check(gfft.fft(gv, axis=axis), sfft.fft, xv, axis=axis, n=12)
            check(gfft.dst(gv, 3, axis=axis), sfft.dst, xv, 3, axis=axis, n=12, c=DCT_C)
        check(gfft.dctn(gv, 2), sfft.dctn, xv, 2, n=xv.size, c=DCT_C)


# --------------------------------------------------------------------------------------
# Several axes

# (input shape, s, axes): SciPy's defaults, -1 entries, negative and unsorted axes,
# padding and truncation, one axis, every axis of a 3-d array.
ND_CASES = [
    ((6, 10), None, None),
    ((6, 10), (4, 16), None),
    ((5, 6, 7), None, None),
    ((5, 6, 7), (3, 8), None),
    ((5, 6, 7), (4, -1), (2, 0)),
    ((5, 6, 7), None, (-1, 0)),
    ((5, 6, 7), None, [1]),
    ((5, 6, 7), 9, 1),
    ((5, 6, 7), (2, 3, 9), None),
    ((4, 1, 17), None, (1, 2)),
]
ND_IDS = [f"{shape}-s{s}-axes{axes}" for shape, s, axes in ND_CASES]


def resolve_axes(ndim, s, axes):
    """SciPy's transformed axes: ``axes``, else the last ``len(s)``, else all."""
    if axes is None:
        k = ndim if s is None else len(np.atleast_1d(s))
        return list(range(ndim - k, ndim))
    return [a % ndim for a in np.atleast_1d(axes)]


def nd_len(x, out_shape, s, axes):
    """The product over the transformed axes of the longer of the input's and the
    output's lengths (for C2R the output's, for R2C the input's)."""
    return math.prod(max(x.shape[a], out_shape[a]) for a in resolve_axes(x.ndim, s, axes))


@pytest.mark.parametrize("dtype", FLOAT_COMPLEX, ids=dtype_id)
@pytest.mark.parametrize("shape,s,axes", ND_CASES, ids=ND_IDS)
def test_nd(rng, shape, s, axes, dtype):
    x, g = pair(rng, shape, dtype)
    names = ["fftn", "ifftn", "irfftn", "hfftn"] + (["rfftn", "ihfftn"] if x.dtype.kind == "f" else [])
    for name in names:
        n = nd_len(x, getattr(sfft, name)(x, s, axes).shape, s, axes)
        for norm in (None, "ortho", "forward"):
            check(getattr(gfft, name)(g, s, axes, norm), getattr(sfft, name), x, s, axes, norm, n=n)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=dtype_id)
def test_2d_functions(rng, dtype):
    x, g = pair(rng, (3, 8, 9), dtype)
    names = ["fft2", "ifft2", "irfft2", "hfft2"] + (["rfft2", "ihfft2"] if x.dtype.kind == "f" else [])
    for name in names:
        check(getattr(gfft, name)(g), getattr(sfft, name), x, n=2 * x.size)
        check(getattr(gfft, name)(g, (5, 12), (2, 0)), getattr(sfft, name), x, (5, 12), (2, 0), n=2 * 5 * 12 * 3)


def test_no_axes(rng):
    """SciPy returns the input itself for a complex transform over no axis (without
    checking ``norm``); the real ones refuse it."""
    x, g = pair(rng, (3, 4), np.int32)
    assert gfft.fftn(g, axes=[]) is g
    assert gfft.ifftn(g, axes=(), norm="bad") is g
    assert gfft.dctn(g, type=9, axes=[], norm="bad") is g
    assert sfft.fftn(x, axes=[]) is x
    for name in ("rfftn", "irfftn", "hfftn", "ihfftn"):
        with pytest.raises(ValueError, match="at least 1 axis must be transformed"):
            getattr(sfft, name)(x.astype(np.float64), axes=[])
        with pytest.raises(ValueError, match="at least 1 axis must be transformed"):
            getattr(gfft, name)(g.astype(np.float64), axes=[])


def test_empty_batch():
    """Zero transforms (an empty batch axis) give empty results of SciPy's shape."""
    x = np.ones((0, 8))
    g = gp.ones((0, 8))
    results = [(getattr(gfft, name)(g), getattr(sfft, name)(x)) for name in ("fft", "rfft", "irfft", "hfft", "dct")]
    results.append((gfft.fftn(g, axes=[1]), sfft.fftn(x, axes=[1])))
    results.append((gfft.dstn(g, 4, axes=[1]), sfft.dstn(x, 4, axes=[1])))
    for got, want in results:
        assert (got.shape, got.dtype) == (want.shape, want.dtype)
    assert gfft.dct(gp.ones((0, 1)), type=1).shape == (0, 1)  # as SciPy: no error without data


# --------------------------------------------------------------------------------------
# DCT and DST


@pytest.mark.parametrize("dtype", FLOAT_COMPLEX, ids=dtype_id)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("name", ["dct", "idct", "dst", "idst"])
def test_dct_dst(rng, name, type, n, dtype):
    """Every norm, with and without ``orthogonalize`` (complex input: SciPy ignores it
    and so do we, see ``test_complex_dct_ignores_orthogonalize``)."""
    if type == 1 and n == 1 and name in ("dct", "idct"):
        pytest.skip("DCT-I needs n > 1 (test_dct1_of_one_sample)")
    x, g = pair(rng, (2, n), dtype)
    f, gf_ = getattr(sfft, name), getattr(gfft, name)
    for norm in NORMS:
        for orth in (None, True, False):
            check(gf_(g, type, norm=norm, orthogonalize=orth), f, x, type, norm=norm, orthogonalize=orth,
                  n=dct_fft_len(name, type, n), c=DCT_C)


@pytest.mark.parametrize("name", ["dct", "idct", "dst", "idst"])
def test_dct_n_and_axis(rng, name):
    x, g = pair(rng, (5, 6, 7), np.float64)
    for type in (1, 2, 3, 4):
        for axis in (0, 1, -1):
            for n in (None, 2, 4, 9):
                length = n or x.shape[axis]
                check(getattr(gfft, name)(g, type, n, axis), getattr(sfft, name), x, type, n, axis,
                      n=dct_fft_len(name, type, length), c=DCT_C)


@pytest.mark.parametrize("dtype", FLOAT_COMPLEX, ids=dtype_id)
@pytest.mark.parametrize("shape,s,axes", ND_CASES[:9], ids=ND_IDS[:9])
@pytest.mark.parametrize("name", ["dctn", "idctn", "dstn", "idstn"])
def test_dctn(rng, name, shape, s, axes, dtype):
    x, g = pair(rng, shape, dtype)
    lengths = [getattr(sfft, name)(x, 2, s, axes).shape[a] for a in resolve_axes(x.ndim, s, axes)]
    for type in (1, 2, 3, 4):
        n = math.prod(dct_fft_len(name, type, m) for m in lengths)
        for norm in (None, "ortho"):
            check(getattr(gfft, name)(g, type, s, axes, norm), getattr(sfft, name), x, type, s, axes, norm,
                  n=n, c=DCT_C)
    check(getattr(gfft, name)(g, 2, s, axes, "ortho", orthogonalize=False), getattr(sfft, name), x, 2, s, axes,
          "ortho", orthogonalize=False, n=math.prod(lengths), c=DCT_C)


def test_complex_dct_ignores_orthogonalize(rng):
    """SciPy transforms complex input as its two parts without passing ``orthogonalize``
    on: the parts are orthogonalized exactly when ``norm="ortho"``."""
    x, g = pair(rng, (3, 16), np.complex128)
    for type in (1, 2, 3):
        got = gfft.dct(g, type, norm="ortho", orthogonalize=False).get()
        parts = sfft.dct(x.real, type, norm="ortho") + 1j * sfft.dct(x.imag, type, norm="ortho")
        np.testing.assert_allclose(got, parts, rtol=1e-13, atol=1e-13)
        assert not np.allclose(got.real, sfft.dct(x.real, type, norm="ortho", orthogonalize=False))


def test_dct1_of_one_sample(rng):
    """SciPy refuses a DCT-I of one sample with a RuntimeError ('zero-length FFT
    requested' from pocketfft; newer SciPy's ducc0 words it otherwise): gpupyx raises
    the same type with pocketfft's words."""
    for x in (random_array(rng, (3, 1)), random_array(rng, (1,), np.complex64)):
        for name in ("dct", "idct"):
            with pytest.raises(RuntimeError):
                getattr(sfft, name)(x, 1)
            with pytest.raises(RuntimeError, match="zero-length FFT requested"):
                getattr(gfft, name)(gp.asarray(x), 1)
        with pytest.raises(RuntimeError, match="zero-length FFT requested"):
            gfft.dctn(gp.asarray(random_array(rng, (4, 5))), 1, s=(1, 5))
    check(gfft.dst(gp.asarray(x), 1), sfft.dst, x, 1, n=4, c=DCT_C)  # DST-I of one sample is fine


# --------------------------------------------------------------------------------------
# SciPy's errors


def same_error(gpupy_call, scipy_call, exact_message=True):
    """Both calls raise; gpupyx's error is an instance of SciPy's type and, where SciPy's
    message is its own (not a binding's or tuple indexing's), has the same message."""
    with pytest.raises(Exception) as want:
        scipy_call()
    with pytest.raises(type(want.value)) as got:
        gpupy_call()
    if exact_message:
        assert str(got.value) == str(want.value)


def test_errors(rng):
    x, g = pair(rng, (4, 5), np.float64)
    c, gc = pair(rng, (4, 5), np.complex128)
    one, gone = pair(rng, (1,), np.float64)
    cases = [
        # (function name, args, kwargs, SciPy's own message?)
        ("fft", (0,), {}, True), ("fft", (-1,), {}, True), ("fft", (0.5,), {}, True), ("fft", (2.0,), {}, False),
        ("fft", (), {"axis": 2}, False), ("fft", (), {"axis": -3}, False), ("fft", (), {"norm": "bad"}, True),
        ("fft", (), {"workers": 0}, True), ("ifft", (), {"norm": "Ortho"}, True), ("rfft", (0,), {}, True),
        ("irfft", (-1,), {}, True), ("irfft", (-3,), {}, True), ("dct", (), {"type": 5}, True),
        ("dct", (), {"type": 0}, True), ("dst", (), {"type": 7}, True), ("idst", (), {"type": -2}, True),
        ("dct", (), {"type": 2.0}, False), ("dct", (), {"norm": "bad"}, True), ("dct", (), {"n": 0}, True),
        ("dst", (), {"axis": 3}, False), ("dct", (), {"norm": "bad", "type": 7}, True),
        ("dct", (), {"n": 0, "type": 7}, True), ("dct", (), {"workers": 0}, True),
        ("fftn", (), {"axes": [0, 0]}, True), ("fftn", (), {"axes": [2]}, True),
        ("fftn", (), {"s": [3, 3], "axes": [0]}, True), ("fftn", (), {"s": [3, 3, 3]}, True),
        ("fftn", (), {"s": [0, 3]}, True), ("fftn", (), {"s": [-2, 3]}, True), ("fftn", (), {"s": [2.0, 3]}, True),
        ("rfftn", (), {"s": [None, 3]}, True), ("irfftn", (), {"axes": (1, -1)}, True),
        ("dctn", (), {"type": 5}, True), ("dstn", (), {"axes": [0, 0]}, True), ("idctn", (), {"s": (0,)}, True),
        ("hfft2", (), {"norm": "bad"}, True),
    ]
    for name, args, kwargs, exact in cases:
        same_error(partial(getattr(gfft, name), g, *args, **kwargs), partial(getattr(sfft, name), x, *args, **kwargs),
                   exact)
    for name in ("rfft", "ihfft", "rfftn", "ihfftn", "rfft2", "ihfft2"):
        same_error(partial(getattr(gfft, name), gc), partial(getattr(sfft, name), c))  # "x must be a real sequence"
    for name in ("irfft", "hfft"):
        same_error(partial(getattr(gfft, name), gone), partial(getattr(sfft, name), one))  # "Invalid ... (0)"
    for name in ("fft", "dct"):
        same_error(partial(getattr(gfft, name), gp.ones((3, 0))), partial(getattr(sfft, name), np.ones((3, 0))))
        same_error(partial(getattr(gfft, name), gp.ones(())), partial(getattr(sfft, name), np.ones(())), False)
    same_error(lambda: gfft.fft(g, workers=-10_000), lambda: sfft.fft(x, workers=-10_000))
    with pytest.raises(TypeError, match="gpupy.ndarray"):
        gfft.fft(x)  # host arrays are refused, as CuPy refuses them


def test_zero_length_inverse_is_refused(rng):
    """Where SciPy returns an array of the wrong length for a zero-length inverse (an
    accident of pocketfft's C2R), gpupyx raises, as numpy.fft does."""
    g = gp.asarray(random_array(rng, (3, 1), np.complex128))
    with pytest.raises(ValueError, match=r"invalid number of data points \(0\) specified"):
        gfft.irfft(g[0], 0)
    with pytest.raises(ValueError, match=r"Invalid number of data points \(0\) specified"):
        gfft.irfftn(g)
    with pytest.raises(ValueError):
        np.fft.irfft(np.ones(3), 0)


def test_workers_and_overwrite_x_are_accepted(rng):
    x, g = pair(rng, (4, 16), np.complex64)
    for workers in (1, 4, -1):
        check(gfft.fft(g, workers=workers, overwrite_x=True), sfft.fft, x, n=16)
        check(gfft.dct(g, workers=workers, overwrite_x=True), sfft.dct, x, n=16, c=DCT_C)
    np.testing.assert_array_equal(g.get(), x)  # never overwritten


# --------------------------------------------------------------------------------------
# Helpers: next_fast_len, frequencies, shifts


def smooth_numbers(limit):
    """Every product of 2, 3, 5, 7, 11 and 13 up to ``limit``, sorted."""
    found, todo = {1}, [1]
    while todo:
        m = todo.pop()
        for p in (2, 3, 5, 7, 11, 13):
            if m * p <= limit and m * p not in found:
                found.add(m * p)
                todo.append(m * p)
    return sorted(found)


def test_next_fast_len():
    smooth = smooth_numbers(2**21)
    for target in list(range(1, 3000)) + [4097, 65521, 2**20 + 7, 999_983]:
        want = next(m for m in smooth if m >= target)
        assert gfft.next_fast_len(target) == want
        assert gfft.next_fast_len(target, real=True) == want
    assert gfft.next_fast_len(0) == 0 == sfft.next_fast_len(0)
    assert gfft.next_fast_len(np.int64(17)) == 18
    assert gfft.next_fast_len(2**80 + 1) >= 2**80 + 1
    same_error(lambda: gfft.next_fast_len(-1), lambda: sfft.next_fast_len(-1))
    same_error(lambda: gfft.next_fast_len(2.0), lambda: sfft.next_fast_len(2.0))


def test_frequencies_and_shifts(rng):
    for n in (1, 8, 9):
        for d in (1.0, 0.25):
            np.testing.assert_allclose(gfft.fftfreq(n, d).get(), sfft.fftfreq(n, d), rtol=1e-15)
            np.testing.assert_allclose(gfft.rfftfreq(n, d).get(), sfft.rfftfreq(n, d), rtol=1e-15)
    x, g = pair(rng, (5, 6, 7), np.float32)
    for axes in (None, 0, (1, 2), [-1]):
        np.testing.assert_array_equal(gfft.fftshift(g, axes).get(), sfft.fftshift(x, axes))
        np.testing.assert_array_equal(gfft.ifftshift(g, axes).get(), sfft.ifftshift(x, axes))


# --------------------------------------------------------------------------------------
# Plans (CuPy's get_fft_plan)


def test_plan_as_argument_and_context(rng):
    x, g = pair(rng, (4, 8), np.complex64)
    plan = gfft.get_fft_plan(g, axes=1)
    assert (plan.value_type, plan.dtype, plan.axes, plan.shape, plan.batch, plan.nx) == (
        "C2C", np.complex64, (1,), (8,), 4, 8)
    check(gfft.fft(g, plan=plan), sfft.fft, x, n=8)
    with plan:
        check(gfft.ifft(g), sfft.ifft, x, n=8)
        with pytest.raises(RuntimeError, match="either as a context manager or as an argument"):
            gfft.fft(g, plan=plan)
        with pytest.raises(ValueError, match="dtype mismatch"):
            gfft.fft(g.astype(np.complex128))
        with pytest.raises(ValueError, match="Target array size does not match the plan"):
            gfft.fft(g, n=16)
        with pytest.raises(ValueError, match="Batch size does not match the plan"):
            gfft.fft(g[:2])
        with pytest.raises(ValueError, match="Target array size does not match the plan"):
            gp.fft.fft(g, 16)  # an entered plan governs gpupy.fft too, as CuPy's governs cupy.fft
        check(gfft.dct(g.real), sfft.dct, x.real, n=8, c=DCT_C)  # real-to-real transforms ignore it
        plan2 = gfft.get_fft_plan(g)
        with plan2:  # nested: the inner plan applies
            check(gfft.fft2(g), sfft.fft2, x, n=32)
        check(gfft.fft(g), sfft.fft, x, n=8)
    check(gfft.fft(g.astype(np.complex128)), sfft.fft, x.astype(np.complex128), n=8)  # no plan after the block
    # A one-axis plan is checked by length and batch only, as cuFFT's Plan1d: the plan of
    # axis 1 of a (4, 8) array serves axis 0 of an (8, 4) one.
    check(gfft.fft(g.T, axis=0, plan=plan), sfft.fft, x.T, axis=0, n=8)


def test_nd_plans(rng):
    x, g = pair(rng, (4, 8), np.float32)
    c2c = gfft.get_fft_plan(g)
    assert (c2c.dtype, c2c.shape, c2c.axes, c2c.nx) == (np.complex64, (4, 8), (0, 1), None)
    check(gfft.fftn(g, plan=c2c), sfft.fftn, x, n=32)
    check(gfft.ifft2(g, axes=(1, 0), plan=c2c), sfft.ifft2, x, axes=(1, 0), n=32)
    r2c = gfft.get_fft_plan(g, value_type="R2C")
    check(gfft.rfft2(g, plan=r2c), sfft.rfft2, x, n=32)
    h = gfft.rfft2(g)
    c2r = gfft.get_fft_plan(h, shape=(4, 8), value_type="C2R")
    assert c2r.shape == (4, 8)
    check(gfft.irfft2(h, plan=c2r), sfft.irfft2, h.get(), n=32)
    with pytest.raises(ValueError, match="The FFT plan and a.shape do not match"):
        gfft.fftn(g, s=(4, 4), plan=c2c)
    with pytest.raises(ValueError, match="axes"):
        gfft.fftn(g[None], axes=(1, 2), plan=c2c)
    with pytest.raises(ValueError, match="dtype mismatch"):
        gfft.fftn(g, plan=r2c)
    with pytest.raises(ValueError, match="The FFT plan transforms 2 axes, the call 1"):
        gfft.fft(g, plan=c2c)
    with pytest.raises(ValueError, match="expected plan"):
        gfft.fft(g, plan="plan")
    for name in ("hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn"):
        with pytest.raises(NotImplementedError, match=f"{name} plan is currently not yet supported"):
            getattr(gfft, name)(g, plan=c2c)
    with gfft.get_fft_plan(h, axes=-1, value_type="C2R"):  # hfft runs a C2R: an entered plan is checked
        check(gfft.irfft(h), sfft.irfft, h.get(), n=8)
        check(gfft.hfft(h), sfft.hfft, h.get(), n=8)
        with pytest.raises(ValueError, match="Target array size"):
            gfft.irfft(h, 9)


def test_get_fft_plan_errors(rng):
    g = gp.asarray(random_array(rng, (4, 8), np.complex64))
    with pytest.raises(ValueError, match="Shape and axes have different lengths"):
        gfft.get_fft_plan(g, shape=(1, 2), axes=0)
    with pytest.raises(ValueError, match=r"The chosen axis \(2\) exceeds the number of dimensions of a \(2\)"):
        gfft.get_fft_plan(g, axes=2)
    with pytest.raises(ValueError, match="value_type"):
        gfft.get_fft_plan(g, value_type="R2R")
    with pytest.raises(TypeError):
        gfft.get_fft_plan(np.ones(4))


# --------------------------------------------------------------------------------------
# The CuPy tutorial, SciPy's signatures, the package


def test_tutorial_fftn_of_an_int64_image(rng):
    array_cpu = random_array(rng, (2000, 2000), np.int64)
    array_gpu = gp.asarray(array_cpu)
    import gpupyx.scipy.fft as fft_gpu

    check(fft_gpu.fftn(array_gpu), sfft.fftn, array_cpu, n=2000 * 2000)


PUBLIC = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
          "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "dct", "idct", "dst", "idst", "dctn", "idctn",
          "dstn", "idstn", "next_fast_len", "fftshift", "ifftshift"]


@pytest.mark.parametrize("name", PUBLIC)
def test_signature_is_scipys(name):
    assert inspect.signature(getattr(gfft, name)) == inspect.signature(getattr(sfft, name))


def test_package_layout():
    assert set(gfft.__all__) == set(PUBLIC) | {"fftfreq", "rfftfreq", "get_fft_plan"}
    assert gpupyx.scipy.fft is gfft  # lazy attribute of gpupyx, as cupyx.scipy
    from gpupyx.scipy import fftpack

    assert fftpack.get_fft_plan is gfft.get_fft_plan
    assert gfft.fftfreq is gp.fft.fftfreq and gfft.fftshift is gp.fft.fftshift
