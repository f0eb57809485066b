"""gpupyx.scipy.signal's convolutions against scipy.signal (on the CPU, same values):
``convolve2d``, ``correlate2d`` (every mode and boundary, ``fillvalue``, the 'valid'
swap), ``convolve``/``correlate`` (n-d, methods direct and fft), ``fftconvolve``
(modes, ``axes``), result dtypes and SciPy's errors.

Tolerances. Direct sums: as in test_ndimage_filters (``2 k eps64 S`` in float64,
``(k + 2) eps32 S`` in float32, ``S`` the convolution of ``|x|`` and ``|w|``, ``k`` the
kernel's taps); integers exactly. FFT convolutions: the per-element error of a
convolution through FFTs of length ``N`` is at most ``c eps log2(N) ||x||_2 ||w||_2``;
we state ``c = 8`` for both libraries' errors together.
"""

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.signal as gsig
from helpers import dtype_id, random_array

sig = pytest.importorskip("scipy.signal")

pytestmark = pytest.mark.gpu

MODES = ["full", "same", "valid"]
BOUNDARIES = ["fill", "wrap", "symm"]


def assert_direct(got, want, scale, taps, dtype):
    assert isinstance(got, gp.ndarray)
    g = got.get()
    assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, g.dtype, want.shape, want.dtype)
    if np.dtype(dtype).kind in "iub":
        np.testing.assert_array_equal(g, want)
        return
    single = np.dtype(dtype) in (np.float32, np.complex64, np.float16)
    eps = np.finfo(np.float32 if single else np.float64).eps
    k = taps + 2 if single else 2 * taps
    bound = k * eps * np.abs(scale) + (np.abs(want) * eps if single else 0)
    diff = np.abs(g.astype(np.complex128) - want)
    assert (diff <= bound).all(), f"worst {diff.max()} (bound there {bound.flat[diff.argmax()]})"


def data(rng, shape, dtype):
    x = random_array(rng, shape, dtype)
    if np.dtype(dtype).kind in "iu":
        x = (x % 40).astype(dtype)
    return x


SHAPES_2D = [((17, 23), (3, 3)), ((70, 45), (3, 3)), ((16, 9), (4, 6)), ((5, 7), (8, 9)), ((1, 30), (1, 5)), ((12, 12), (12, 12))]


@pytest.mark.parametrize("boundary", BOUNDARIES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shapes", SHAPES_2D, ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=dtype_id)
def test_convolve2d_and_correlate2d(rng, boundary, mode, shapes, dtype):
    s1, s2 = shapes
    x, w = data(rng, s1, dtype), data(rng, s2, dtype)
    if mode == "valid" and not (all(a >= b for a, b in zip(s1, s2)) or all(b >= a for a, b in zip(s1, s2))):
        return
    for fn, gfn in [(sig.convolve2d, gsig.convolve2d), (sig.correlate2d, gsig.correlate2d)]:
        for fill in (0, 1.5):
            if fill and boundary != "fill":
                continue
            want = fn(x, w, mode=mode, boundary=boundary, fillvalue=fill)
            scale = fn(np.abs(x.astype(np.float64)), np.abs(w.astype(np.float64)), mode=mode,
                       boundary=boundary, fillvalue=abs(fill))
            got = gfn(gp.asarray(x), gp.asarray(w), mode=mode, boundary=boundary, fillvalue=fill)
            assert_direct(got, want, scale, w.size if w.size <= x.size or mode != "valid" else x.size, dtype)


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.uint8, np.int64, np.complex128, np.complex64],
                         ids=dtype_id)
def test_convolve2d_dtypes(rng, dtype):
    x, w = data(rng, (14, 19), dtype), data(rng, (3, 4), dtype)
    for mode, boundary in [("full", "fill"), ("same", "symm"), ("valid", "wrap")]:
        for fn, gfn in [(sig.convolve2d, gsig.convolve2d), (sig.correlate2d, gsig.correlate2d)]:
            want = fn(x, w, mode=mode, boundary=boundary)
            got = gfn(gp.asarray(x), gp.asarray(w), mode=mode, boundary=boundary)
            scale = fn(np.abs(x.astype(np.complex128)), np.abs(w.astype(np.complex128)), mode=mode,
                       boundary=boundary)
            # Complex products: four real sums per element.
            assert_direct(got, want, 2 * np.abs(scale), w.size, dtype)


def fft_bound(x, w, n):
    eps = np.finfo(np.float32 if x.dtype in (np.float32, np.complex64) else np.float64).eps
    return 8 * eps * np.log2(max(n, 2)) * np.linalg.norm(x.ravel()) * np.linalg.norm(w.ravel())


FFT_CASES = [((1000,), (31,), None), ((64, 70), (9, 5), None), ((8, 9, 10), (3, 3, 3), None),
             ((30, 40), (1, 7), None), ((30, 40), (30, 7), [1]), ((5, 40), (1, 9), [1])]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", FFT_CASES, ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128], ids=dtype_id)
def test_fftconvolve(rng, mode, case, dtype):
    s1, s2, axes = case
    x, w = data(rng, s1, dtype), data(rng, s2, dtype)
    want = sig.fftconvolve(x, w, mode=mode, axes=axes)
    got = gsig.fftconvolve(gp.asarray(x), gp.asarray(w), mode=mode, axes=axes)
    assert got.dtype == want.dtype and got.shape == want.shape
    exact = sig.convolve(x.astype(np.complex128), w.astype(np.complex128), mode=mode, method="direct") \
        if axes is None else want
    n = int(np.prod([a + b - 1 for a, b in zip(s1, s2)]))
    np.testing.assert_allclose(got.get(), exact if axes is None else want, rtol=0,
                               atol=fft_bound(x, w, n))


@pytest.mark.parametrize("method", ["direct", "fft", "auto"])
@pytest.mark.parametrize("mode", MODES)
def test_convolve_and_correlate_nd(rng, method, mode):
    for s1, s2, dtype in [((40,), (7,), np.float64), ((7,), (40,), np.float64), ((12, 13), (4, 3), np.float32),
                          ((6, 7, 8), (2, 3, 3), np.float64), ((50, 60), (5, 5), np.int32)]:
        x, w = data(rng, s1, dtype), data(rng, s2, dtype)
        for fn, gfn in [(sig.convolve, gsig.convolve), (sig.correlate, gsig.correlate)]:
            if mode == "valid" and not (all(a >= b for a, b in zip(s1, s2)) or all(b >= a for a, b in zip(s1, s2))):
                continue
            want = fn(x, w, mode=mode, method="direct")
            got = gfn(gp.asarray(x), gp.asarray(w), mode=mode, method=method)
            assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
            n = int(np.prod([a + b - 1 for a, b in zip(s1, s2)]))
            if np.dtype(dtype).kind in "iu":
                np.testing.assert_array_equal(got.get(), want)  # exact sums; fft results rounded
            else:
                np.testing.assert_allclose(got.get(), want, rtol=0, atol=fft_bound(x, w, n) + 1e-300)


def test_choose_conv_method(rng):
    x = gp.asarray(rng.standard_normal((30, 30)))
    assert gsig.choose_conv_method(x, gp.ones((3, 3))) == "direct"
    assert gsig.choose_conv_method(x, gp.ones((20, 20))) == "fft"
    assert gsig.choose_conv_method(gp.ones(10, dtype=bool), gp.ones(100, dtype=bool)) == "direct"
    big = gp.asarray(np.full(100, 2**30, np.int64))
    assert gsig.choose_conv_method(big, big) == "direct"  # FFTs would round such sums
    method, times = gsig.choose_conv_method(x, gp.ones((9, 9)), measure=True)
    assert method in ("fft", "direct") and set(times) == {"fft", "direct"}
    for m, a in [(sig, x.get()), (gsig, x)]:
        with pytest.raises(ValueError, match="incompatible shapes"):
            m.fftconvolve(a, np.ones((3, 4)), axes=[0])


def test_signal_errors(rng, pool_baseline):
    """SciPy's errors and messages, with nothing left in the pool (no FFT runs here:
    the FFT plan cache keeps device memory by design)."""
    x = gp.asarray(rng.standard_normal((30, 30)))
    xh = x.get()
    cases = [
        (lambda m, a: m.convolve2d(a, np.ones(3)), ValueError, "2-D"),
        (lambda m, a: m.correlate2d(a, np.ones((3, 3)), mode="bogus"), ValueError, "mode flags"),
        (lambda m, a: m.convolve2d(a, np.ones((3, 3)), boundary="bogus"), ValueError, "boundary flags"),
        (lambda m, a: m.convolve2d(a, np.ones((40, 3)), mode="valid"), ValueError, "at least as large"),
        (lambda m, a: m.convolve(a, np.ones(3)), ValueError, "dimensionality"),
        (lambda m, a: m.convolve(a, np.ones((3, 3)), method="bogus"), ValueError, "method flags"),
        (lambda m, a: m.fftconvolve(a, np.ones(3)), ValueError, "dimensionality"),
    ]
    for call, exc, match in cases:
        with pytest.raises(exc, match=match):
            call(sig, xh)
        with pytest.raises(exc, match=match):
            call(gsig, x)
    np.testing.assert_allclose(gsig.convolve2d(x, gp.ones((1, 1))).get(), xh)
