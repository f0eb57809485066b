"""gpupyx.scipy.ndimage's correlation filters against scipy.ndimage (on the CPU, same
values): ``correlate1d``, ``convolve1d``, ``correlate``, ``convolve``, the Gaussian,
uniform, Sobel, Prewitt and Laplace filters; every boundary mode, origins, axes,
kernels longer than the axis, views, every dtype SciPy takes, output arrays and dtypes,
SciPy's errors.

Tolerances (``assert_filtered``): a filter output is a sum of ``k`` products (``k`` the
taps of all passes). SciPy sums in float64 in its order; gpupy sums with FMAs in
float64 (float32 for float16/float32 input). Two float64 summations of the same terms
differ by at most ``2 k eps64 S``, where ``S`` is the same filter applied to ``|x|``
with ``|w|``; in float32 the weights' rounding adds one more ``eps32`` per term:
``(k + 2) eps32 S``. Integer outputs are compared exactly where the weights are
integers (exact sums on both sides).
"""

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.ndimage as gnd
from helpers import dtype_id, random_array

nd = pytest.importorskip("scipy.ndimage")

pytestmark = pytest.mark.gpu

MODES = ["reflect", "constant", "nearest", "mirror", "wrap", "grid-mirror", "grid-constant", "grid-wrap"]
EPS = {np.dtype(np.float64): np.finfo(np.float64).eps, np.dtype(np.float32): np.finfo(np.float32).eps}


def compute_eps(dtype):
    return EPS[np.dtype(np.float32 if np.dtype(dtype) in (np.float16, np.float32) else np.float64)]


def assert_filtered(got, want, scale, taps, dtype):
    """`got` (gpupy) against SciPy's `want` within the bound of the module docstring;
    `scale` is the filter of |x| by |w| (float64)."""
    assert isinstance(got, gp.ndarray)
    g = got.get()
    assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, g.dtype, want.shape, want.dtype)
    eps = compute_eps(dtype)
    k = taps + 2 if eps == EPS[np.dtype(np.float32)] else 2 * taps
    bound = k * eps * np.abs(scale)
    if want.dtype == np.float16:
        bound = bound + np.abs(want.astype(np.float64)) * 2.0**-11
    if want.dtype == np.float32:
        bound = bound + np.abs(want.astype(np.float64)) * 2.0**-24
    diff = np.abs(g.astype(np.complex128 if g.dtype.kind == "c" else np.float64) - want)
    both_nan = np.isnan(g) & np.isnan(want) if g.dtype.kind == "f" else False
    bad = (diff > bound) & ~both_nan
    assert not bad.any(), f"{bad.sum()} of {g.size} off; worst {diff[bad].max()} (bound {bound[bad].min()})"


def data(rng, shape, dtype):
    x = random_array(rng, shape, dtype)
    if np.dtype(dtype).kind == "f":
        x = (x * 4).astype(dtype)
    return x


# ---------------------------------------------------------------------------------------
# correlate1d / convolve1d

SHAPES_1D = [((13,), 0), ((5,), 0), ((1,), 0), ((7, 33), 1), ((7, 33), 0), ((3, 4, 129), 1), ((2, 3, 5), -1)]
WEIGHTS = [[0.5], [1.0, -2.0], [0.25, 0.5, 0.25], [1.0, 2.0, 3.0, 4.0], list(np.linspace(-1, 1, 7)),
           list(np.arange(1.0, 14.0))]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,axis", SHAPES_1D, ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=dtype_id)
def test_correlate1d_modes_and_lengths(rng, mode, shape, axis, dtype):
    x = data(rng, shape, dtype)
    gx = gp.asarray(x)
    for w in WEIGHTS:
        for origin in sorted({0, -(len(w) // 2), (len(w) - 1) // 2}):
            want = nd.correlate1d(x, w, axis, mode=mode, cval=1.5, origin=origin)
            scale = nd.correlate1d(np.abs(x.astype(np.float64)), np.abs(w), axis, mode=mode, cval=1.5,
                                   origin=origin)
            got = gnd.correlate1d(gx, w, axis, mode=mode, cval=1.5, origin=origin)
            assert_filtered(got, want, scale, len(w), dtype)
            want = nd.convolve1d(x, w, axis, mode=mode, cval=1.5, origin=origin)
            got = gnd.convolve1d(gx, w, axis, mode=mode, cval=1.5, origin=origin)
            scale = nd.convolve1d(np.abs(x.astype(np.float64)), np.abs(w), axis, mode=mode, cval=1.5,
                                  origin=origin)
            assert_filtered(got, want, scale, len(w), dtype)


INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64, np.uint32, np.bool_]


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.float16], ids=dtype_id)
def test_correlate1d_dtypes(rng, dtype):
    """Integer weights on integer data: exact sums, stored with C's cast as SciPy
    stores them (wrapping outside the type's range). float16, which SciPy refuses and
    CuPy takes, against SciPy on the same values in float32, rounded to float16."""
    x = random_array(rng, (9, 31), dtype)
    if np.dtype(dtype).kind in "iu":
        x = (x % 50).astype(dtype)
    w = [1, -2, 3]
    for mode in ["reflect", "constant", "wrap"]:
        if dtype == np.float16:
            want = nd.correlate1d(x.astype(np.float32), w, 1, mode=mode).astype(np.float16)
        else:
            want = nd.correlate1d(x, w, 1, mode=mode)
        got = gnd.correlate1d(gp.asarray(x), w, 1, mode=mode)
        if dtype == np.float16:
            scale = nd.correlate1d(np.abs(x.astype(np.float64)), np.abs(np.array(w, float)), 1, mode=mode)
            assert_filtered(got, want, scale, 3, dtype)
        else:
            np.testing.assert_array_equal(got.get(), want)
            assert got.dtype == want.dtype
    # Float weights into a float output (no truncation to compare).
    xs = x.astype(np.float32) if dtype == np.float16 else x
    want = nd.correlate1d(xs, [0.3, 0.5, -0.25], 0, output=np.float64)
    got = gnd.correlate1d(gp.asarray(x), [0.3, 0.5, -0.25], 0, output=np.float64)
    scale = nd.correlate1d(np.abs(x.astype(np.float64)), [0.3, 0.5, 0.25], 0)
    assert_filtered(got, want, scale, 3, np.float32 if dtype == np.float16 else np.float64)


@pytest.mark.parametrize("view", [lambda a: a[::2, ::-3], lambda a: a.T, lambda a: a[1:-1, 2:]],
                         ids=["step", "transposed", "offset"])
def test_correlate1d_views_and_outputs(rng, view):
    x = data(rng, (40, 57), np.float64)
    w = [0.1, -0.7, 0.2, 0.4]
    for axis in (0, 1):
        want = nd.correlate1d(view(x), w, axis, mode="mirror")
        got = gnd.correlate1d(view(gp.asarray(x)), w, axis, mode="mirror")
        scale = nd.correlate1d(np.abs(view(x)), np.abs(np.array(w)), axis, mode="mirror")
        assert_filtered(got, want, scale, 4, np.float64)
    # An output array, and an output dtype.
    out = gp.empty(view(x).shape, np.float32)
    r = gnd.correlate1d(view(gp.asarray(x)), w, 0, output=out)
    assert r is out
    np.testing.assert_allclose(out.get(), nd.correlate1d(view(x), w, 0, output=np.float32), rtol=2e-6,
                               atol=1e-6)
    r = gnd.correlate1d(view(gp.asarray(x)), w, 0, output="float32")
    assert r.dtype == np.float32


def test_correlate1d_nan_and_zero_weights():
    """Every weight of a 1-d filter takes part, zeros too (NaN times 0 is NaN)."""
    x = np.array([1.0, np.nan, 3.0, 4.0])
    for w in ([1.0, 0.0, 1.0], [1.0, 1e-17, 1.0]):
        np.testing.assert_array_equal(gnd.correlate1d(gp.asarray(x), w).get(), nd.correlate1d(x, w))


def test_empty_and_complex_1d(rng):
    for shape in [(0,), (0, 5), (4, 0)]:
        x = np.zeros(shape)
        got = gnd.correlate1d(gp.asarray(x), [1.0, 2.0], axis=-1)
        assert got.shape == shape and got.dtype == np.float64
    x = (rng.standard_normal((6, 17)) + 1j * rng.standard_normal((6, 17))).astype(np.complex64)
    w = np.array([1 + 2j, -0.5, 0.25j])
    for xx, ww in [(x, w), (x, w.real), (x.real.copy(), w)]:
        want = nd.correlate1d(xx, ww, 1, mode="wrap")
        got = gnd.correlate1d(gp.asarray(xx), ww, 1, mode="wrap")
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
        want = nd.convolve1d(xx, ww, 0, mode="reflect")
        got = gnd.convolve1d(gp.asarray(xx), ww, 0, mode="reflect")
        np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


# ---------------------------------------------------------------------------------------
# correlate / convolve (n-d)

ND_CASES = [
    ((31, 17), (3, 3)),
    ((16, 25), (4, 5)),
    ((7, 6), (9, 11)),        # weights larger than the image
    ((5, 9, 11), (3, 2, 5)),
    ((65,), (7,)),
    ((2, 3, 4, 5), (3, 1, 3, 2)),
]


@pytest.mark.parametrize("mode", ["reflect", "constant", "nearest", "mirror", "wrap"])
@pytest.mark.parametrize("shape,wshape", ND_CASES, ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=dtype_id)
def test_correlate_and_convolve_nd(rng, mode, shape, wshape, dtype):
    x = data(rng, shape, dtype)
    w = rng.standard_normal(wshape)
    w[rng.random(wshape) < 0.2] = 0.0  # outside SciPy's footprint
    origin = [(-(n // 2) if k % 2 else (n - 1) // 2) for k, n in enumerate(wshape)]
    gx = gp.asarray(x)
    taps = int((np.abs(w) > np.finfo(np.float64).eps).sum())
    for fn, gfn in [(nd.correlate, gnd.correlate), (nd.convolve, gnd.convolve)]:
        for o in (0, origin):
            want = fn(x, w, mode=mode, cval=-0.5, origin=o)
            scale = fn(np.abs(x.astype(np.float64)), np.abs(w), mode=mode, cval=0.5, origin=o)
            got = gfn(gx, w, mode=mode, cval=-0.5, origin=o)
            assert_filtered(got, want, scale, taps, dtype)


@pytest.mark.parametrize("mode", ["reflect", "constant", "nearest", "mirror", "wrap"])
@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (45, 70), (130, 33), (257, 129), (9, 300)], ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=dtype_id)
def test_dense_3x3_streaming_engine(rng, mode, shape, dtype):
    """Dense 3x3 weights on 2-d images (the streaming engine: warps of 32 columns,
    runs of rows, the halo through shuffles): every mode and origin, correlate and
    convolve (reversed weights), a reversed and a strided input; images narrower than
    a warp and shorter than a run. Tolerance as in test_correlate_and_convolve_nd."""
    x = data(rng, (shape[0] * 2, shape[1] + 3), dtype)
    w = rng.uniform(0.5, 1.5, (3, 3)) * rng.choice([-1.0, 1.0], (3, 3))  # no zero tap
    gbig = gp.asarray(x)
    views = [(x[: shape[0], : shape[1]], gbig[: shape[0], : shape[1]]),
             (x[::-2, 3:], gbig[::-2, 3:])]
    for xv, gv in views:
        for fn, gfn in [(nd.correlate, gnd.correlate), (nd.convolve, gnd.convolve)]:
            for o in ((0, 0), (-1, 1), (1, 0)):
                want = fn(xv, w, mode=mode, cval=-0.5, origin=o)
                scale = fn(np.abs(xv.astype(np.float64)), np.abs(w), mode=mode, cval=0.5, origin=o)
                got = gfn(gv, w, mode=mode, cval=-0.5, origin=o)
                assert_filtered(got, want, scale, 9, dtype)


@pytest.mark.parametrize("mode", ["reflect", "constant", "nearest", "mirror", "wrap"])
@pytest.mark.parametrize("k", [3, 5, 7])
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=dtype_id)
def test_dense_vector_streaming_engine(rng, mode, k, dtype):
    """Dense k x k weights centred along the rows on 2-d images whose width is a multiple
    of the 16-byte vector (the vector-streaming engine: a vector per lane, halo lanes,
    runs of rows): one strip and several, images narrower than a strip, shorter than a
    run and than the kernel; vertical origins (the engine takes any); a horizontal
    origin and a misaligned view (the other engines). Tolerance as in
    test_correlate_and_convolve_nd."""
    w = rng.uniform(0.5, 1.5, (k, k)) * rng.choice([-1.0, 1.0], (k, k))  # no zero tap
    for shape in [(1, 4), (3, 8), (37, 124), (70, 256), (130, 500)]:
        x = data(rng, shape, dtype)
        gx = gp.asarray(x)
        # The same values 8 bytes past a 16-byte boundary: no vector loads.
        off = 8 // np.dtype(dtype).itemsize
        flat = gp.asarray(np.concatenate([np.zeros(off, dtype), x.ravel()]).astype(dtype))
        gmis = flat[off:].reshape(shape)
        for gv in (gx, gmis):
            for fn, gfn in [(nd.correlate, gnd.correlate), (nd.convolve, gnd.convolve)]:
                for o in ((0, 0), (1, 0), (-(k // 2), 0), (0, 1)):
                    want = fn(x, w, mode=mode, cval=-0.5, origin=o)
                    scale = fn(np.abs(x.astype(np.float64)), np.abs(w), mode=mode, cval=0.5, origin=o)
                    got = gfn(gv, w, mode=mode, cval=-0.5, origin=o)
                    assert_filtered(got, want, scale, k * k, dtype)


def test_correlate_footprint_axes_views(rng):
    """SciPy's footprint: weights at most DBL_EPSILON in magnitude do not take part (a
    NaN under one stays out); ``axes=`` filters a subset of the axes; strided views."""
    x = np.array([1.0, np.nan, 3.0])
    for w in ([1.0, 1e-17, 1.0], [1.0, 0.0, 1.0]):
        np.testing.assert_array_equal(gnd.correlate(gp.asarray(x), np.array(w)).get(),
                                      nd.correlate(x, np.array(w)))
    x = data(rng, (6, 20, 21), np.float64)
    w = rng.standard_normal((3, 4))
    for axes in [(1, 2), (0, 2), (-1, 0)]:
        want = nd.correlate(x, w, axes=axes, mode="nearest", origin=(1, -1))
        got = gnd.correlate(gp.asarray(x), w, axes=axes, mode="nearest", origin=(1, -1))
        scale = nd.correlate(np.abs(x), np.abs(w), axes=axes, mode="nearest", origin=(1, -1))
        assert_filtered(got, want, scale, 12, np.float64)
    v = lambda a: a[::-1, 3:, ::2]  # noqa: E731
    w3 = rng.standard_normal((2, 3, 3))
    want = nd.convolve(v(x), w3, mode="wrap")
    got = gnd.convolve(v(gp.asarray(x)), w3, mode="wrap")
    assert_filtered(got, want, nd.convolve(np.abs(v(x)), np.abs(w3), mode="wrap"), 18, np.float64)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_id)
def test_correlate_nd_integer_dtypes(rng, dtype):
    x = random_array(rng, (12, 15), dtype)
    if np.dtype(dtype).kind in "iu":
        x = (x % 20).astype(dtype)
    w = np.array([[1, 0, -1], [2, 0, -2], [1, 0, -1]])
    for mode in ["reflect", "constant", "mirror"]:
        want = nd.correlate(x, w, mode=mode, cval=3)
        got = gnd.correlate(gp.asarray(x), w, mode=mode, cval=3)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)


def test_correlate_complex(rng):
    x = (rng.standard_normal((9, 10)) + 1j * rng.standard_normal((9, 10)))
    w = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    for xx, ww in [(x, w), (x, w.real), (x.real.copy(), w)]:
        for fn, gfn in [(nd.correlate, gnd.correlate), (nd.convolve, gnd.convolve)]:
            want = fn(xx, ww, mode="reflect")
            got = gfn(gp.asarray(xx), ww, mode="reflect")
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got.get(), want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


# ---------------------------------------------------------------------------------------
# Separable filters

def chain_scale(absx, passes, mode="reflect"):
    """The bound's S for 1-d passes [(weights, axis)]: |x| through every pass with the
    weights' magnitudes (a pass's error carries through the later ones scaled by
    their |w|, so the errors add up to (sum of taps) eps S)."""
    for w, axis in passes:
        absx = nd.correlate1d(absx, np.abs(np.asarray(w, float)), axis, mode=mode)
    return absx


def gauss(sigma, order, radius=None, truncate=4.0):
    """SciPy's own Gaussian kernel (private, for the bounds' S only)."""
    from scipy.ndimage._filters import _gaussian_kernel1d
    return _gaussian_kernel1d(sigma, order, int(truncate * sigma + 0.5) if radius is None else radius)


@pytest.mark.parametrize("order", [0, 1, 2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=dtype_id)
def test_gaussian_filters(rng, order, dtype):
    x = data(rng, (37, 50), dtype)
    gx = gp.asarray(x)
    a = np.abs(x.astype(np.float64))
    for sigma, kw in [(1.0, {}), (2.5, {"truncate": 3.0}), ((0.8, 3.0), {"radius": 4}), (0.0, {})]:
        sigmas = sigma if isinstance(sigma, tuple) else (sigma, sigma)
        kernels = [gauss(s, order, kw.get("radius"), kw.get("truncate", 4.0)) for s in sigmas if s > 0]
        for mode in ["reflect", "nearest", "constant"]:
            want = nd.gaussian_filter(x, sigma, order=order, mode=mode, cval=0.25, **kw)
            got = gnd.gaussian_filter(gx, sigma, order=order, mode=mode, cval=0.25, **kw)
            scale = chain_scale(a, [(k, ax) for ax, k in enumerate(kernels)], mode) if kernels else a
            if mode == "constant":
                scale = scale + 0.25 * sum(np.abs(k).sum() for k in kernels) ** 2
            assert_filtered(got, want, scale, sum(len(k) for k in kernels), dtype)
        want = nd.gaussian_filter1d(x, 1.7, axis=0, order=order, mode="mirror")
        got = gnd.gaussian_filter1d(gx, 1.7, axis=0, order=order, mode="mirror")
        k = gauss(1.7, order)
        assert_filtered(got, want, chain_scale(a, [(k, 0)], "mirror"), len(k), dtype)


def test_gaussian_filter_integer_image_passes(rng):
    """A uint8 image: each pass is stored as uint8 before the next, as SciPy stores it.
    Sums differ from SciPy's only by rounding, so a truncated pixel may differ by one
    where SciPy's float64 value lies within rounding of an integer."""
    x = rng.integers(0, 256, (64, 80)).astype(np.uint8)
    want = nd.gaussian_filter(x, 1.5)
    got = gnd.gaussian_filter(gp.asarray(x), 1.5).get()
    assert got.dtype == np.uint8
    diff = np.abs(got.astype(int) - want.astype(int))
    assert diff.max() <= 1 and (diff == 0).mean() > 0.99


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=dtype_id)
def test_uniform_and_derivative_filters(rng, dtype):
    x = data(rng, (23, 41), dtype)
    gx = gp.asarray(x)
    a = np.abs(x.astype(np.float64))
    one = lambda passes, mode="reflect": chain_scale(a, passes, mode)  # noqa: E731
    g15 = [one([(gauss(1.5, 2 if k == ax else 0), k) for k in (0, 1)]) for ax in (0, 1)]
    g12 = [one([(gauss(1.2, 1 if k == ax else 0), k) for k in (0, 1)]) for ax in (0, 1)]
    # (call on a module and an array, S, taps). SciPy's uniform filters keep a running
    # sum along each line: its rounding grows with the position, up to the line's
    # length (41) eps times the largest |x|, which the uniform rows' S covers.
    line = np.full(x.shape, 41 * np.abs(a).max())
    cases = [
        (lambda m, v: m.uniform_filter(v, 5, mode="wrap"), one([(np.ones(5) / 5, 0), (np.ones(5) / 5, 1)], "wrap") + line, 10),
        (lambda m, v: m.uniform_filter(v, (3, 4), origin=(1, -2)), one([(np.ones(3) / 3, 0), (np.ones(4) / 4, 1)]) + line, 7),
        (lambda m, v: m.uniform_filter1d(v, 6, axis=0, mode="constant", cval=2.0), one([(np.ones(6) / 6, 0)], "constant") + line + 2, 6),
        (lambda m, v: m.sobel(v, axis=0), one([([1, 0, 1], 0), ([1, 2, 1], 1)]), 6),
        (lambda m, v: m.sobel(v, axis=1, mode="nearest"), one([([1, 0, 1], 1), ([1, 2, 1], 0)], "nearest"), 6),
        (lambda m, v: m.prewitt(v, axis=1), one([([1, 0, 1], 1), ([1, 1, 1], 0)]), 6),
        (lambda m, v: m.laplace(v, mode="mirror"), one([([1, 2, 1], 0)], "mirror") + one([([1, 2, 1], 1)], "mirror"), 7),
        # A sum over axes adds one rounding of the partial sums.
        (lambda m, v: m.gaussian_laplace(v, 1.5), g15[0] + g15[1], 2 * 25 + 1),
        # |sqrt(sum g^2) - sqrt(sum h^2)| <= sum |g - h|, plus sqrt's and the squares'
        # roundings relative to the result.
        (lambda m, v: m.gaussian_gradient_magnitude(v, 1.2), g12[0] + g12[1], 2 * 21 + 4),
    ]
    for call, scale, taps in cases:
        assert_filtered(call(gnd, gx), call(nd, x), scale, taps, dtype)


def test_filter_outputs_and_dtypes(rng):
    x = rng.integers(0, 200, (30, 31)).astype(np.int16)
    gx = gp.asarray(x)
    for gfn, fn in [(gnd.sobel, nd.sobel), (gnd.prewitt, nd.prewitt), (gnd.laplace, nd.laplace)]:
        want = fn(x)
        got = gfn(gx)
        assert got.dtype == np.int16
        np.testing.assert_array_equal(got.get(), want)  # integer weights: exact
        out = gp.empty(x.shape, np.float64)
        assert gfn(gx, output=out) is out
        np.testing.assert_array_equal(out.get(), fn(x, output=np.float64))
    out = gp.empty(x.shape, np.float32)
    r = gnd.gaussian_gradient_magnitude(gp.asarray(x.astype(np.float32)), 2.0, output=out)
    assert r is out


# ---------------------------------------------------------------------------------------
# Errors (SciPy's types and messages) and the pool afterwards

def test_errors_like_scipy(rng, pool_baseline):
    x = gp.asarray(rng.standard_normal((5, 6)))
    xh = x.get()
    cases = [
        (lambda m, a: m.correlate1d(a, [1, 2, 3], mode="bogus"), RuntimeError, "boundary mode"),
        (lambda m, a: m.correlate1d(a, [1, 2, 3], origin=2), ValueError, "Invalid origin"),
        (lambda m, a: m.correlate1d(a, [], 0), RuntimeError, "no filter weights"),
        (lambda m, a: m.correlate1d(a, [[1, 2]], 0), RuntimeError, "no filter weights"),
        (lambda m, a: m.correlate1d(a, [1, 2], axis=2), np.exceptions.AxisError, None),
        (lambda m, a: m.correlate(a, np.ones((3,))), RuntimeError, "must match"),
        (lambda m, a: m.correlate(a, np.ones((3, 3)), origin=(2, 0)), ValueError, "Invalid origin"),
        (lambda m, a: m.correlate(a, np.ones((3, 3)), mode=["reflect", "wrap"]), RuntimeError, None),
        (lambda m, a: m.uniform_filter1d(a, 0), RuntimeError, "incorrect filter size"),
        (lambda m, a: m.uniform_filter1d(a, 3, origin=2), ValueError, "invalid origin"),
        (lambda m, a: m.gaussian_filter(a, 1.0, radius=-1), ValueError, "Radius"),
        (lambda m, a: m.gaussian_filter(a, 1.0, order=-1), ValueError, "order"),
        (lambda m, a: m.gaussian_filter(a, [1.0, 2.0, 3.0]), RuntimeError, "sequence argument"),
        (lambda m, a: m.correlate(a, np.ones((3, 3)), axes=(0, 0)), ValueError, "unique"),
        (lambda m, a: m.correlate1d(a, [1.0, 2.0], cval=1j), TypeError, "real number"),
        (lambda m, a: m.gaussian_filter(a, 1.0, cval=1j), TypeError, "real number"),
        (lambda m, a: m.correlate1d(a, [1.0, 2j], cval=1j), ValueError, "complex-valued cval"),
    ]
    for call, exc, match in cases:
        with pytest.raises(exc, match=match):
            call(nd, xh)
        with pytest.raises(exc, match=match):
            call(gnd, x)
    with pytest.raises(RuntimeError, match="output shape"):
        gnd.correlate1d(x, [1, 2], output=gp.empty((6, 5)))
    with pytest.raises(ValueError, match="at most 8 dimensions"):
        gnd.correlate(gp.ones((1,) * 9), np.ones((1,) * 9))
    # Still usable afterwards.
    np.testing.assert_allclose(gnd.correlate1d(x, [1.0]).get(), xh)


def test_generic_filters_say_what_is_supported(rng):
    x = gp.asarray(rng.standard_normal((5, 6)))
    with pytest.raises(NotImplementedError, match="sliding_window_view"):
        gnd.generic_filter(x, np.mean, size=3)
    with pytest.raises(NotImplementedError, match="generic_filter1d calls a Python function"):
        gnd.generic_filter1d(x, lambda i, o: None, 3)
    # The process stays usable.
    np.testing.assert_array_equal(gnd.uniform_filter(x, 1).get(), x.get())
