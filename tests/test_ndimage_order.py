"""gpupyx.scipy.ndimage's order filters and binary morphology, and scipy.signal's
median filters, against SciPy on the CPU.

Every result is one of the window's values (or ``cval``), so gpupy and SciPy agree
exactly: the comparisons are ``assert_array_equal`` with the dtypes equal. Data have
no NaNs (their order is unspecified in both) and, for integers, few distinct values
(many ties) or the dtype's whole range. Windows cover the three selection engines of
``kernels/src/filters``: at most 9 and at most 25 taps in registers, larger ones in
shared memory, and the largest (float64, more than 192 taps) in global scratch; the
edges always select in scratch.
"""

import warnings

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.ndimage as gnd
import gpupyx.scipy.signal as gsig
from helpers import dtype_id, random_array

nd = pytest.importorskip("scipy.ndimage")
sig = pytest.importorskip("scipy.signal")

pytestmark = pytest.mark.gpu

MODES = ["reflect", "constant", "nearest", "mirror", "wrap", "grid-mirror", "grid-constant", "grid-wrap"]
ORDER_DTYPES = [np.float64, np.float32, np.float16, np.int8, np.uint8, np.int16, np.uint16, np.int32,
                np.uint32, np.int64, np.uint64, np.bool_]


def data(rng, shape, dtype, ties=False):
    """Random values of `dtype`; `ties`: few distinct values (small integers). 64-bit
    integers stay within 2**53: SciPy orders them in float64 (its 1-d rank filter in
    int64), which would round or wrap larger ones."""
    if ties:
        return rng.integers(-3, 4, size=shape).astype(dtype) if np.dtype(dtype).kind != "u" else \
            rng.integers(0, 5, size=shape).astype(dtype)
    if np.dtype(dtype) == np.int64:
        return rng.integers(-2**53, 2**53, size=shape, dtype=np.int64)
    if np.dtype(dtype) == np.uint64:
        return rng.integers(0, 2**53, size=shape, dtype=np.uint64)
    x = random_array(rng, shape, dtype)
    return (x * 8).astype(dtype) if np.dtype(dtype).kind == "f" else x


def scipy_order(name):
    """SciPy's order filter `name`, extended to float16 input: gpupy accepts float16
    (as CuPy does) where SciPy raises "array type not supported"; the reference is then
    SciPy's float32 result stored in float16, which is exact (every result is one of the
    window's values, or cval, all float16 values)."""
    f = getattr(nd, name)

    def call(x, *args, **kwargs):
        if x.dtype != np.float16:
            return f(x, *args, **kwargs)
        try:
            return f(x, *args, **kwargs)
        except RuntimeError:
            return f(x.astype(np.float32), *args, **kwargs).astype(np.float16)
    return call


def same(got, want):
    assert isinstance(got, gp.ndarray)
    g = got.get()
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, g.shape, want.dtype, want.shape)
    np.testing.assert_array_equal(g, want)


# ---------------------------------------------------------------------------------------
# minimum / maximum filters

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,axis", [((13,), 0), ((1,), 0), ((7, 33), 1), ((7, 33), 0),
                                        ((3, 4, 129), 1), ((2, 3, 5), -1)], ids=str)
def test_min_max_filter1d(rng, mode, shape, axis):
    x = data(rng, shape, np.float64)
    gx = gp.asarray(x)
    for size in (1, 2, 3, 4, 7, 20):
        for origin in sorted({0, -(size // 2), (size - 1) // 2}):
            for name in ("minimum_filter1d", "maximum_filter1d"):
                want = getattr(nd, name)(x, size, axis, mode=mode, cval=0.25, origin=origin)
                same(getattr(gnd, name)(gx, size, axis, mode=mode, cval=0.25, origin=origin), want)


@pytest.mark.parametrize("dtype", ORDER_DTYPES, ids=dtype_id)
def test_min_max_filters_every_dtype(rng, dtype):
    x = data(rng, (17, 23), dtype)
    gx = gp.asarray(x)
    foot = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 1]], bool)
    for name in ("minimum_filter", "maximum_filter"):
        f, g = scipy_order(name), getattr(gnd, name)
        same(g(gx, size=3), f(x, size=3))
        same(g(gx, size=(2, 5), mode="nearest"), f(x, size=(2, 5), mode="nearest"))
        same(g(gx, footprint=foot, mode="wrap"), f(x, footprint=foot, mode="wrap"))
        # A footprint of 26-49 taps (the tiles' largest tier).
        foot7 = (np.add.outer(np.arange(7), np.arange(7)) % 3 != 0) | np.eye(7, dtype=bool)
        same(g(gx, footprint=foot7, mode="reflect"), f(x, footprint=foot7, mode="reflect"))
        if dtype != np.bool_:
            # cval inside and outside the dtype's range, stored as SciPy stores it.
            for cval in (0.0, 2.5, -7.0):
                same(g(gx, footprint=foot, mode="constant", cval=cval),
                     f(x, footprint=foot, mode="constant", cval=cval))


@pytest.mark.parametrize("mode", MODES)
def test_min_max_filter_footprints_and_origins(rng, mode):
    x = data(rng, (9, 14, 6), np.float32)
    gx = gp.asarray(x)
    feet = [np.ones((3, 3, 3), bool), rng.integers(0, 2, (3, 4, 2)).astype(bool) | (np.arange(24).reshape(3, 4, 2) == 5),
            np.ones((1, 1, 1), bool), np.ones((5, 1, 2), bool)]
    for foot in feet:
        for origin in (0, (1, -1, 0), -1):
            if any(n // 2 + o < 0 or n // 2 + o >= n for n, o in zip(foot.shape, np.broadcast_to(origin, 3))):
                continue
            for name in ("minimum_filter", "maximum_filter"):
                want = getattr(nd, name)(x, footprint=foot, mode=mode, cval=-1.0, origin=origin)
                same(getattr(gnd, name)(gx, footprint=foot, mode=mode, cval=-1.0, origin=origin), want)


def test_min_max_filter_axes_outputs_views(rng):
    x = data(rng, (8, 12, 10), np.float64)
    gx = gp.asarray(x)
    same(gnd.minimum_filter(gx, size=3, axes=(0, 2)), nd.minimum_filter(x, size=3, axes=(0, 2)))
    same(gnd.maximum_filter(gx, size=(2, 4), axes=(2, 1), mode=["wrap", "nearest"]),
         nd.maximum_filter(x, size=(2, 4), axes=(2, 1), mode=["wrap", "nearest"]))
    foot = np.array([[1, 0, 1], [0, 1, 0]], bool)
    same(gnd.maximum_filter(gx, footprint=foot, axes=(0, 1)), nd.maximum_filter(x, footprint=foot, axes=(0, 1)))
    # Non-contiguous and negative-stride views.
    v, gv = x[::-2, 1::3, ::-1], gx[::-2, 1::3, ::-1]
    same(gnd.minimum_filter(gv, size=3), nd.minimum_filter(v, size=3))
    foot3 = np.array([[[1], [0]], [[1], [1]]], bool)
    same(gnd.maximum_filter(gv, footprint=foot3), nd.maximum_filter(v, footprint=foot3))
    # Output arrays and dtypes: separable passes store into the output between passes.
    out = gp.empty(x.shape, np.int16)
    assert gnd.minimum_filter(gx * 100, size=(3, 2, 2), output=out) is out
    same(out, nd.minimum_filter(x * 100, size=(3, 2, 2), output=np.int16))
    same(gnd.maximum_filter(gx, size=3, output=np.float32), nd.maximum_filter(x, size=3, output=np.float32))
    # Empty and 0-d.
    same(gnd.minimum_filter(gp.asarray(np.zeros((0, 4))), size=3), nd.minimum_filter(np.zeros((0, 4)), size=3))
    same(gnd.maximum_filter(gp.asarray(np.array(2.5)), size=1), nd.maximum_filter(np.array(2.5), size=1))


# ---------------------------------------------------------------------------------------
# rank / median / percentile filters

# (footprint shape or footprint, what it exercises)
WINDOWS = [(3,), (5,), (3, 3), (2, 2), (3, 5), (5, 5), (1, 9), (4, 6), (6, 6), (5, 7), (7, 7),
           (3, 3, 3), (15, 15)]


def _footprint(w, ndim):
    return np.ones(w, bool) if len(w) == ndim else None


@pytest.mark.parametrize("window", WINDOWS, ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8, np.uint64], ids=dtype_id)
def test_rank_filter_windows(rng, window, dtype):
    shape = {1: (101,), 2: (19, 37), 3: (7, 11, 9)}[len(window)]
    for ties in (False, True):
        x = data(rng, shape, dtype, ties=ties)
        gx = gp.asarray(x)
        n = int(np.prod(window))
        for rank in sorted({1, n // 3, n // 2, n - 2, -2}):
            if not -n <= rank < n:
                continue
            for mode in ("reflect", "constant", "wrap"):
                want = nd.rank_filter(x, rank, size=window, mode=mode, cval=1)
                same(gnd.rank_filter(gx, rank, size=window, mode=mode, cval=1), want)
        same(gnd.median_filter(gx, size=window, mode="mirror"), nd.median_filter(x, size=window, mode="mirror"))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ORDER_DTYPES, ids=dtype_id)
def test_median_filter_modes_dtypes(rng, mode, dtype):
    x = data(rng, (23, 18), dtype)
    gx = gp.asarray(x)
    median, percentile = scipy_order("median_filter"), scipy_order("percentile_filter")
    same(gnd.median_filter(gx, size=3, mode=mode, cval=3), median(x, size=3, mode=mode, cval=3))
    cross = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], bool)
    same(gnd.median_filter(gx, footprint=cross, mode=mode), median(x, footprint=cross, mode=mode))
    same(gnd.percentile_filter(gx, 30, size=(5, 3), mode=mode), percentile(x, 30, size=(5, 3), mode=mode))
    # 49 taps: the forgetful median and the 49-slot network (rank 14 of 49).
    same(gnd.median_filter(gx, size=7, mode=mode, cval=3), median(x, size=7, mode=mode, cval=3))
    same(gnd.percentile_filter(gx, 30, size=7, mode=mode), percentile(x, 30, size=7, mode=mode))


def test_rank_filter_footprints_origins_views(rng):
    x = data(rng, (21, 30), np.float32)
    gx = gp.asarray(x)
    foot = rng.integers(0, 2, (5, 6)).astype(bool)
    foot[2, 3] = True
    big = rng.integers(0, 2, (13, 11)).astype(bool)  # ~70 taps: shared-memory selection
    for fp in (foot, big):
        n = int(fp.sum())
        for origin in ((0, 0), (1, -2), -1):
            for rank in (1, n // 2, n - 2):
                want = nd.rank_filter(x, rank, footprint=fp, origin=origin, mode="nearest")
                same(gnd.rank_filter(gx, rank, footprint=fp, origin=origin, mode="nearest"), want)
    v, gv = x[::-1, 3::2], gx[::-1, 3::2]
    same(gnd.median_filter(gv, size=(3, 4)), nd.median_filter(v, size=(3, 4)))
    for p in (0, 12.5, 50, 99, 100, -25):
        same(gnd.percentile_filter(gx, p, size=4), nd.percentile_filter(x, p, size=4))
    same(gnd.median_filter(gx, size=3, axes=(1,)), nd.median_filter(x, size=3, axes=(1,)))
    out = gp.empty(x.shape, np.int32)
    assert gnd.median_filter(gx * 10, size=5, output=out) is out
    same(out, nd.median_filter(x * 10, size=5, output=np.int32))
    # Windows longer than the array, empty arrays, 0-d.
    small = data(rng, (3, 2), np.float64)
    same(gnd.median_filter(gp.asarray(small), size=7), nd.median_filter(small, size=7))
    same(gnd.median_filter(gp.asarray(np.zeros((4, 0))), size=3), nd.median_filter(np.zeros((4, 0)), size=3))
    same(gnd.median_filter(gp.asarray(np.array(1.5)), size=1), nd.median_filter(np.array(1.5), size=1))


def test_rank_filter_global_scratch(rng):
    """float64 windows of more than 192 taps select in global scratch."""
    x = data(rng, (40, 45), np.float64)
    gx = gp.asarray(x)
    for rank in (7, 112, 200):
        same(gnd.rank_filter(gx, rank, size=15, mode="reflect"), nd.rank_filter(x, rank, size=15, mode="reflect"))
    xi = data(rng, (30, 31), np.int64, ties=True)
    same(gnd.median_filter(gp.asarray(xi), size=(17, 13)), nd.median_filter(xi, size=(17, 13)))


def test_signal_median_filters(rng):
    x = data(rng, (33, 20), np.float64)
    gx = gp.asarray(x)
    same(gsig.medfilt(gx), sig.medfilt(x))
    same(gsig.medfilt(gx, [5, 3]), sig.medfilt(x, [5, 3]))
    x3 = data(rng, (6, 7, 8), np.int16)
    same(gsig.medfilt(gp.asarray(x3), 3), sig.medfilt(x3, 3))
    for dtype in (np.uint8, np.float32, np.float64, np.int32):
        xi = data(rng, (25, 19), dtype)
        same(gsig.medfilt2d(gp.asarray(xi)), sig.medfilt2d(xi))
        same(gsig.medfilt2d(gp.asarray(xi), [5, 3]), sig.medfilt2d(xi, [5, 3]))
    same(gsig.medfilt2d(gp.asarray(np.arange(25.0).reshape(5, 5)), 5),
         sig.medfilt2d(np.arange(25.0).reshape(5, 5), 5))
    dom = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1]])
    for rank in (0, 2, 5):
        same(gsig.order_filter(gx, dom, rank), sig.order_filter(x, dom, rank))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(gsig.medfilt(gp.asarray(x[:2, :2]), 5), sig.medfilt(x[:2, :2], 5))
    same(gsig.medfilt(gp.asarray(np.array(4.0))), sig.medfilt(np.array(4.0)))


# ---------------------------------------------------------------------------------------
# Binary morphology

STRUCTURES = [None, np.ones((3, 3), bool), np.array([[1, 1], [0, 1]], bool), np.array([[0, 1, 1, 0, 0]], bool),
              np.zeros((3, 3), bool)]


@pytest.mark.parametrize("si", range(len(STRUCTURES)))
@pytest.mark.parametrize("border", [0, 1])
def test_binary_erosion_dilation(rng, si, border):
    structure = STRUCTURES[si]
    x = rng.random((17, 21)) < 0.6
    gx = gp.asarray(x)
    for name in ("binary_erosion", "binary_dilation", "binary_opening", "binary_closing"):
        f, g = getattr(nd, name), getattr(gnd, name)
        shape = (3, 3) if structure is None else structure.shape
        origins = {(3, 3): (0, -1, (0, 1)), (2, 2): (0, -1)}.get(shape, (0,))
        for origin in origins:
            for iterations in (1, 2):
                want = f(x, structure, iterations=iterations, border_value=border, origin=origin)
                same(g(gx, structure, iterations=iterations, border_value=border, origin=origin), want)


def test_binary_morphology_options(rng):
    x = rng.random((15, 16)) < 0.7
    gx = gp.asarray(x)
    mask = rng.random((15, 16)) < 0.8
    # Until nothing changes; masks; output arrays; non-bool input; 3-d; axes.
    same(gnd.binary_erosion(gx, iterations=0), nd.binary_erosion(x, iterations=0))
    same(gnd.binary_dilation(gx, iterations=-1, mask=gp.asarray(mask)), nd.binary_dilation(x, iterations=-1, mask=mask))
    same(gnd.binary_erosion(gx, iterations=3, mask=gp.asarray(mask)), nd.binary_erosion(x, iterations=3, mask=mask))
    out = gp.empty(x.shape, np.int32)
    assert gnd.binary_dilation(gx, output=out) is out
    np.testing.assert_array_equal(out.get(), nd.binary_dilation(x).astype(np.int32))
    xf = rng.standard_normal((9, 8)) * (rng.random((9, 8)) < 0.5)
    same(gnd.binary_erosion(gp.asarray(xf), np.ones((2, 3))), nd.binary_erosion(xf, np.ones((2, 3))))
    x3 = rng.random((6, 7, 5)) < 0.6
    same(gnd.binary_closing(gp.asarray(x3)), nd.binary_closing(x3))
    s3 = nd.generate_binary_structure(3, 2)
    same(gnd.binary_dilation(gp.asarray(x3), s3, border_value=1), nd.binary_dilation(x3, s3, border_value=1))
    same(gnd.binary_erosion(gp.asarray(x3), axes=(0, 2)), nd.binary_erosion(x3, axes=(0, 2)))
    same(gnd.binary_dilation(gx[::-1, 1::2]), nd.binary_dilation(x[::-1, 1::2]))
    same(gnd.binary_erosion(gp.asarray(np.array(True))), nd.binary_erosion(np.array(True)))
    same(gnd.binary_erosion(gp.asarray(np.zeros((0, 3), bool))), nd.binary_erosion(np.zeros((0, 3), bool)))


def test_structures():
    for rank in (0, 1, 2, 3):
        for conn in (0, 1, 2, 3):
            same(gnd.generate_binary_structure(rank, conn), nd.generate_binary_structure(rank, conn))
    s = nd.generate_binary_structure(2, 1)
    for it in (1, 2, 3):
        same(gnd.iterate_structure(gp.asarray(s), it), nd.iterate_structure(s, it))
    got, origin = gnd.iterate_structure(gp.asarray(s), 2, origin=(1, 0))
    want, worigin = nd.iterate_structure(s, 2, origin=(1, 0))
    same(got, want)
    assert list(origin) == list(worigin)


# ---------------------------------------------------------------------------------------
# Errors (SciPy's types and messages) and the pool afterwards

def test_order_errors_like_scipy(rng, pool_baseline):
    x = gp.asarray(rng.standard_normal((5, 6)))
    xh = x.get()
    cases = [
        (lambda m, a: m.minimum_filter(a), RuntimeError, "no footprint"),
        (lambda m, a: m.maximum_filter(a, footprint=np.zeros((2, 2))), ValueError, "All-zero footprint"),
        (lambda m, a: m.minimum_filter1d(a, 0), RuntimeError, "incorrect filter size"),
        (lambda m, a: m.maximum_filter1d(a, 3, origin=2), ValueError, "invalid origin"),
        (lambda m, a: m.minimum_filter(a, footprint=np.array([[1, 0], [0, 1]]), origin=2), ValueError, "invalid origin"),
        (lambda m, a: m.minimum_filter(a, footprint=np.array([[1, 0], [0, 1]]), mode=["wrap", "wrap"]),
         RuntimeError, "sequence of modes"),
        (lambda m, a: m.rank_filter(a, 9, size=3), RuntimeError, "rank not within"),
        (lambda m, a: m.rank_filter(a, -10, size=3), RuntimeError, "rank not within"),
        (lambda m, a: m.rank_filter(a, 1.5, size=3), TypeError, None),
        (lambda m, a: m.percentile_filter(a, 150, size=3), RuntimeError, "invalid percentile"),
        (lambda m, a: m.median_filter(a), RuntimeError, "no footprint or filter size"),
        (lambda m, a: m.median_filter(a, size=3, mode="bogus"), RuntimeError, "boundary mode"),
        (lambda m, a: m.median_filter(a, footprint=np.ones(3)), RuntimeError, "must match"),
        (lambda m, a: m.median_filter(a + 1j, size=3), TypeError, "Complex type not supported"),
        (lambda m, a: m.binary_erosion(a, np.ones(3)), RuntimeError, "same dimensionality"),
        (lambda m, a: m.binary_erosion(a, iterations=1.5), TypeError, "iterations parameter"),
        (lambda m, a: m.binary_erosion(a, mask=np.ones((2, 2))), RuntimeError, "equal sizes"),
        (lambda m, a: m.binary_dilation(a + 1j), TypeError, "Complex type not supported"),
    ]
    for call, exc, match in cases:
        with pytest.raises(exc, match=match):
            call(nd, xh)
        with pytest.raises(exc, match=match):
            call(gnd, x)
    for call, exc, match in [
        (lambda m, a: m.medfilt(a, 4), ValueError, "should be odd"),
        (lambda m, a: m.medfilt2d(a, [3, 2]), ValueError, "should be odd"),
        (lambda m, a: m.order_filter(a, np.ones((2, 3)), 1), ValueError, "odd number"),
        (lambda m, a: m.medfilt(a.astype(np.float16)), ValueError, "not supported by medfilt"),
    ]:
        with pytest.raises(exc, match=match):
            call(sig, xh)
        with pytest.raises(exc, match=match):
            call(gsig, x)
    # Still usable afterwards.
    same(gnd.median_filter(x, size=3), nd.median_filter(xh, size=3))
