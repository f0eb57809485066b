"""gpupyx.scipy.ndimage's interpolation against scipy.ndimage (on the CPU, same values):
``spline_filter1d``, ``spline_filter``, ``map_coordinates``, ``affine_transform``,
``shift``, ``zoom``, ``rotate``; every order 0-5, every mode, prefilter on and off, 1-d
to 3-d, odd shapes, views, every dtype SciPy reads, output arrays and dtypes, ``cval``,
SciPy's errors and warnings.

Tolerances. The kernels do SciPy's float64 arithmetic operation for operation (the
coordinates, the spline weights, the prefilter's recursions, the sum over each window in
SciPy's order, no fused multiply-adds), so results are SciPy's doubles and are compared
exactly, integer and bool outputs included (the same double rounds the same way). The
one exception: the sums that start each prefilter recursion stop after K terms, where
the pole's powers fall below 2^-64 of the first (K = 26, 34 for orders 2, 3; 11 and 15
for the second pole of orders 4 and 5), while SciPy sums whole lines, so results on
longer lines (the padded lines of modes ``nearest`` and ``grid-constant`` are 24
samples longer) may differ by roundings. Bound (``prefilter_bound``): every value the
prefilter computes is at most S = G^ndim max(|x|, |cval|), with G = gain prod_z
1 / (1 - |z|) (the gain scales, a causal pass multiplies a bound by 1 / (1 - |z|), an
anticausal one by |z| / (1 - |z|) <= 1). A pass's own difference is at most 2 ulps of S
(its first value: one rounding plus the dropped tail, below 2^-64 S; it decays by |z| <
1/2 per sample while the roundings it causes add up to at most 1 / (1 - |z|) <= 2
ulps); a difference entering a causal pass leaves it at most doubled, an anticausal
pass does not grow it. Over the P = npoles ndim causal passes and as many anticausal
ones: at most 4 P 2^P eps S in the coefficients, and so in a sampled value (its weights
are nonnegative and sum to 1), plus one float32 rounding for float32 outputs. Those
cases are compared within that bound, for float outputs only; integer outputs are
tested where results are exact.

Integer inputs stay within +-2^40 for the 64-bit types: SciPy's C conversion of a
double at or past 2^63 to an integer is undefined (x86 gives INT64_MIN; Rust's
saturates), as is that of NaN, which no test produces.

SciPy before 1.18 mixed up the first coefficient in its ``reflect`` initial condition
(scipy#24615, fixed in 1.18, which gpupy follows): those cases skip on older SciPy.
"""

import warnings

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.ndimage as gnd
from gpupyx.scipy.ndimage import _interpolation
from helpers import dtype_id, random_array

nd = pytest.importorskip("scipy.ndimage")
scipy = pytest.importorskip("scipy")

pytestmark = pytest.mark.gpu

MODES = ["constant", "grid-constant", "nearest", "reflect", "grid-mirror", "mirror", "wrap",
         "grid-wrap"]
EPS = np.finfo(np.float64).eps
# The longest line whose prefilter sums run whole, and the poles, by order (SciPy's).
EXACT_LEN = {2: 26, 3: 34, 4: 11, 5: 15}
POLES = {2: [np.sqrt(8.0) - 3.0], 3: [np.sqrt(3.0) - 2.0],
         4: [-0.361341225900220177092212841325675255, -0.013725429297339121360331226939128204],
         5: [-0.430575347099973791851434783493520110, -0.043096288203264653822712376822550182]}
PAD = 12
SCIPY_REFLECT_FIXED = tuple(int(v) for v in scipy.__version__.split(".")[:2]) >= (1, 18)
INT_LIMIT = 2 ** 40

REAL_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
               np.uint64, np.float32, np.float64]
COMPLEX_DTYPES = [np.complex64, np.complex128]


def data(rng, shape, dtype=np.float64):
    """Random values of `dtype`: floats in [-10, 10), integers over the type's range
    (64-bit ones within +-2^40), booleans, complex numbers."""
    dt = np.dtype(dtype)
    if dt.kind in "iu" and dt.itemsize == 8:
        lo = 0 if dt.kind == "u" else -INT_LIMIT
        return rng.integers(lo, INT_LIMIT, size=shape).astype(dt)
    x = random_array(rng, shape, dt)
    return (x * 10).astype(dt) if dt.kind in "fc" else x


def skip_old_reflect(mode, order, prefilter=True, filters=False):
    """Skip on SciPy < 1.18 where its reflect initial condition is wrong (see the
    module docstring): modes reflect/grid-mirror, and nearest in the spline filters
    themselves (the sampling functions pad nearest lines, where the error vanishes)."""
    modes = ("reflect", "grid-mirror") + (("nearest",) if filters else ())
    if not SCIPY_REFLECT_FIXED and prefilter and order >= 2 and mode in modes:
        pytest.skip("SciPy < 1.18 mixes up c[0] in its reflect initial condition (scipy#24615)")


def prefilter_bound(x, order, mode, cval=0.0, prefilter=True, axes=None, padded=True):
    """The bound of the module docstring when some prefiltered line of `x` (along
    `axes`, padded as SciPy pads it when `padded`) is longer than its whole-sum length;
    None when every result is exact."""
    if not prefilter or order < 2:
        return None
    axes = list(range(x.ndim)) if axes is None else [a % x.ndim for a in axes]
    pad = PAD if padded and mode in ("nearest", "grid-constant") else 0
    if all(x.shape[a] + 2 * pad <= EXACT_LEN[order] for a in axes):
        return None
    z = np.abs(POLES[order])
    gain = np.prod([(1 - p) * (1 - 1 / p) for p in POLES[order]])
    g = gain * np.prod(1 / (1 - z))
    big = max(float(np.abs(x).max()) if x.size else 0.0, abs(complex(cval)))
    s = g ** len(axes) * big
    p = len(POLES[order]) * len(axes)
    return 4 * p * 2 ** p * EPS * s


def check(got, want, bound=None):
    """`got` (gpupy) equals SciPy's `want` exactly, or within `bound` (see the module
    docstring)."""
    assert isinstance(got, gp.ndarray), type(got)
    g = got.get()
    assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, g.dtype, want.shape,
                                                              want.dtype)
    if want.dtype == np.bool_:
        # SciPy stores C's (unsigned char) conversion in its bool arrays: any nonzero byte.
        np.testing.assert_array_equal(g, want.view(np.uint8) != 0)
        return
    if bound is None:
        np.testing.assert_array_equal(g, want)
        return
    assert want.dtype.kind in "fc", "integer outputs are compared where results are exact"
    wide = np.complex128 if want.dtype.kind == "c" else np.float64
    if want.dtype in (np.float32, np.complex64):
        # Two float64 values within the bound round to float32 within it plus one ulp.
        bound = bound + np.abs(want.astype(wide)) * 2.0 ** -23
    diff = np.abs(g.astype(wide) - want.astype(wide))
    assert (diff <= bound).all(), f"worst {diff.max():.3e} > bound {np.min(bound):.3e}"


def same_warnings(gpupy_call, scipy_call):
    """Both calls' results, asserting they warn alike (category and message)."""
    with warnings.catch_warnings(record=True) as wg:
        warnings.simplefilter("always")
        got = gpupy_call()
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        want = scipy_call()
    key = lambda ws: sorted((w.category.__name__, str(w.message)) for w in ws)  # noqa: E731
    assert key(wg) == key(ws)
    return got, want


def coordinates(rng, shape, out_shape):
    """Coordinates around and inside an array of `shape`: uniform in [-2.5, n + 1.5],
    with exact integers and half-integers among them."""
    cols = []
    for n in shape:
        c = rng.uniform(-2.5, n + 1.5, size=out_shape)
        grid = rng.integers(-6, 2 * n + 4, size=out_shape) / 2.0
        pick = rng.integers(0, 3, size=out_shape)
        cols.append(np.where(pick == 0, grid, c))
    return np.stack(cols)


# ---------------------------------------------------------------------------------------
# The spline prefilter

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", range(6))
def test_spline_filter1d(rng, order, mode):
    skip_old_reflect(mode, order, filters=True)
    cases = [((13,), 0), ((1,), 0), ((2,), 0), ((7, 9), 0), ((7, 9), -1), ((3, 41, 5), 1),
             ((4, 3, 60), 2)]
    for shape, axis in cases:
        x = data(rng, shape)
        want = nd.spline_filter1d(x, order, axis, mode=mode)
        got = gnd.spline_filter1d(gp.asarray(x), order, axis, mode=mode)
        check(got, want, prefilter_bound(x, order, mode, axes=[axis], padded=False))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", [2, 3, 4, 5])
def test_spline_filter(rng, order, mode):
    skip_old_reflect(mode, order, filters=True)
    for shape in [(11,), (6, 7), (3, 4, 5), (1, 5), (9, 1), (37, 3)]:
        x = data(rng, shape)
        want = nd.spline_filter(x, order, mode=mode)
        got = gnd.spline_filter(gp.asarray(x), order, mode=mode)
        check(got, want, prefilter_bound(x, order, mode, padded=False))
    # Each pass stored in the output's dtype before the next (truncated for integers).
    x = data(rng, (6, 7))
    for out in [np.float32, np.int16, "int32", np.uint8]:
        want = nd.spline_filter(x * 3, order, output=out, mode=mode)
        check(gnd.spline_filter(gp.asarray(x * 3), order, output=out, mode=mode), want)
    out = gp.empty((6, 7), np.float64)
    assert gnd.spline_filter(gp.asarray(x), order, output=out, mode=mode) is out
    check(out, nd.spline_filter(x, order, mode=mode))


@pytest.mark.parametrize("dtype", REAL_DTYPES + COMPLEX_DTYPES, ids=dtype_id)
def test_spline_filter_dtypes(rng, dtype):
    x = data(rng, (5, 6), dtype)
    gx = gp.asarray(x)
    for order in [0, 1, 3]:
        got, want = same_warnings(lambda: gnd.spline_filter1d(gx, order, 0),
                                  lambda: nd.spline_filter1d(x, order, 0))
        check(got, want)
    got, want = same_warnings(lambda: gnd.spline_filter(gx, 4, mode="grid-wrap"),
                              lambda: nd.spline_filter(x, 4, mode="grid-wrap"))
    check(got, want)
    # 0-d: a copy.
    got, want = same_warnings(lambda: gnd.spline_filter(gp.asarray(x[0, 0]), 3),
                              lambda: nd.spline_filter(x[0, 0], 3))
    check(got, want)


# ---------------------------------------------------------------------------------------
# map_coordinates

@pytest.mark.parametrize("prefilter", [True, False])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", range(6))
def test_map_coordinates(rng, order, mode, prefilter):
    skip_old_reflect(mode, order, prefilter)
    for shape in [(13,), (6, 7), (4, 5, 3), (1, 4)]:
        x = data(rng, shape)
        c = coordinates(rng, shape, (5, 7))
        want = nd.map_coordinates(x, c, order=order, mode=mode, cval=1.25, prefilter=prefilter)
        got = gnd.map_coordinates(gp.asarray(x), gp.asarray(c), order=order, mode=mode, cval=1.25,
                                  prefilter=prefilter)
        check(got, want, prefilter_bound(x, order, mode, 1.25, prefilter))


def test_map_coordinates_coordinate_arrays(rng):
    x = data(rng, (9, 8))
    gx = gp.asarray(x)
    c = coordinates(rng, x.shape, (4, 6))
    for order in [0, 1, 3]:
        # Integer, bool and float32 coordinates (read as doubles); views; host lists.
        for cc in [np.rint(c).astype(np.int64), np.rint(c).astype(np.int32),
                   np.abs(np.rint(c)).astype(np.uint8), c > 3, c.astype(np.float32)]:
            want = nd.map_coordinates(x, cc, order=order)
            check(gnd.map_coordinates(gx, gp.asarray(cc), order=order), want)
        wide = coordinates(rng, x.shape, (6, 9))
        view = wide[:, ::-2, 1::2]
        check(gnd.map_coordinates(gx, gp.asarray(wide)[:, ::-2, 1::2], order=order),
              nd.map_coordinates(x, view, order=order))
        check(gnd.map_coordinates(gx, c.tolist(), order=order), nd.map_coordinates(x, c, order=order))
        # Any output rank: the coordinates' trailing shape.
        c4 = coordinates(rng, x.shape, (2, 3, 1, 2))
        check(gnd.map_coordinates(gx, gp.asarray(c4), order=order),
              nd.map_coordinates(x, c4, order=order))


# ---------------------------------------------------------------------------------------
# affine_transform

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", [0, 1, 2, 3, 5])
def test_affine_transform_matrix_forms(rng, order, mode):
    skip_old_reflect(mode, order)
    x = data(rng, (9, 11))
    gx = gp.asarray(x)
    rot = np.array([[0.8, -0.35], [0.3, 1.1]])
    offset = np.array([0.75, -1.5])
    aug = np.hstack([rot, offset[:, None]])
    hom = np.vstack([aug, [0.0, 0.0, 1.0]])
    cases = [
        (np.array([0.8, 1.3]), dict(offset=offset)),  # a diagonal: SciPy's zoom-and-shift
        (np.array([1.0, 1.0]), dict(offset=2.5)),
        (rot, dict(offset=offset)),
        (rot, dict(offset=0.5, output_shape=(7, 13))),
        (aug, {}),
        (hom, dict(output_shape=(12, 5))),
        (np.eye(2), {}),
    ]
    bound = prefilter_bound(x, order, mode, 0.5)
    for matrix, kw in cases:
        want = nd.affine_transform(x, matrix, order=order, mode=mode, cval=0.5, **kw)
        got = gnd.affine_transform(gx, gp.asarray(matrix), order=order, mode=mode, cval=0.5, **kw)
        check(got, want, bound)
    x3 = data(rng, (4, 5, 6))
    m3 = np.array([[0.9, 0.1, -0.2], [0.05, 1.1, 0.3], [-0.1, 0.2, 0.8]])
    for matrix, kw in [(m3, dict(offset=(0.5, -1.0, 2.0))), (np.array([0.5, 1.5, 1.0]), {}),
                       (m3, dict(output_shape=(3, 7, 2)))]:
        want = nd.affine_transform(x3, matrix, order=order, mode=mode, cval=0.5, **kw)
        got = gnd.affine_transform(gp.asarray(x3), matrix, order=order, mode=mode, cval=0.5, **kw)
        check(got, want, prefilter_bound(x3, order, mode, 0.5))


@pytest.mark.parametrize("order", [0, 1, 3])
def test_affine_transform_changes_rank(rng, order):
    # A matrix of ndim rows and a different number of columns maps an output of that rank.
    x3 = data(rng, (5, 6, 7))
    m = np.array([[0.7, 0.2], [0.1, 1.2], [-0.3, 0.4]])
    check(gnd.affine_transform(gp.asarray(x3), m, offset=0.5, output_shape=(4, 6), order=order),
          nd.affine_transform(x3, m, offset=0.5, output_shape=(4, 6), order=order))
    x1 = data(rng, (17,))
    m = np.array([[0.5, 1.5, -0.25]])
    check(gnd.affine_transform(gp.asarray(x1), m, output_shape=(3, 4, 2), order=order),
          nd.affine_transform(x1, m, output_shape=(3, 4, 2), order=order))
    x2 = data(rng, (6, 9))
    m = np.array([[0.5], [1.25]])
    check(gnd.affine_transform(gp.asarray(x2), m, output_shape=(7,), order=order, mode="nearest"),
          nd.affine_transform(x2, m, output_shape=(7,), order=order, mode="nearest"))


# ---------------------------------------------------------------------------------------
# shift and zoom

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", range(6))
def test_shift(rng, order, mode):
    skip_old_reflect(mode, order)
    for shape, shifts in [((17,), [0.5, -1.25, 10.3, -2.5, 0.0]), ((6, 9), [(2.5, -0.7), 1.5]),
                          ((3, 4, 5), [(0.25, -1.5, 0.5)])]:
        x = data(rng, shape)
        gx = gp.asarray(x)
        bound = prefilter_bound(x, order, mode, -2.0)
        for s in shifts:
            want = nd.shift(x, s, order=order, mode=mode, cval=-2.0)
            check(gnd.shift(gx, s, order=order, mode=mode, cval=-2.0), want, bound)
            want = nd.shift(x, s, order=order, mode=mode, cval=-2.0, prefilter=False)
            check(gnd.shift(gx, s, order=order, mode=mode, cval=-2.0, prefilter=False), want)


@pytest.mark.parametrize("grid_mode", [False, True])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", range(6))
def test_zoom(rng, order, mode, grid_mode):
    skip_old_reflect(mode, order)
    for shape, zooms in [((9,), [1.7, 0.6, 3.0]), ((5, 7), [(2.0, 0.5), 1.3]),
                         ((3, 4, 5), [(1.5, 0.75, 2.2)])]:
        x = data(rng, shape)
        gx = gp.asarray(x)
        bound = prefilter_bound(x, order, mode, 0.25)
        for z in zooms:
            # grid_mode with constant or wrap: SciPy's advice, as a warning, from both.
            got, want = same_warnings(
                lambda: gnd.zoom(gx, z, order=order, mode=mode, cval=0.25, grid_mode=grid_mode),
                lambda: nd.zoom(x, z, order=order, mode=mode, cval=0.25, grid_mode=grid_mode))
            check(got, want, bound)


def test_zoom_identity_and_empty(rng):
    x = data(rng, (5, 6))
    gx = gp.asarray(x)
    for order in [0, 1, 3]:
        # Zoom 1 with the prefilter is a copy (SciPy's shortcut); without it, a sampling.
        for prefilter in [True, False]:
            check(gnd.zoom(gx, 1, order=order, prefilter=prefilter),
                  nd.zoom(x, 1, order=order, prefilter=prefilter))
    check(gnd.zoom(gx, (1.0, 1.0), output=np.float32), nd.zoom(x, (1.0, 1.0), output=np.float32))
    # Empty outputs and inputs.
    check(gnd.zoom(gx, 0.05), nd.zoom(x, 0.05))
    e = np.zeros((0, 4))
    check(gnd.zoom(gp.asarray(e), 2), nd.zoom(e, 2))
    check(gnd.shift(gp.asarray(e), 1, order=1), nd.shift(e, 1, order=1))
    check(gnd.map_coordinates(gx, gp.asarray(np.zeros((2, 0)))), nd.map_coordinates(x, np.zeros((2, 0))))
    # Zoom from a single sample: its value everywhere.
    one = data(rng, (1, 3))
    check(gnd.zoom(gp.asarray(one), 3), nd.zoom(one, 3))


def test_order_zero_half_integers(rng):
    # Order 0 reads the sample floor(x + 0.5): half-integers round up, SciPy's rule.
    x = data(rng, (9,))
    gx = gp.asarray(x)
    for mode in MODES:
        for s in [0.5, -0.5, 1.5, -2.5, 3.5]:
            check(gnd.shift(gx, s, order=0, mode=mode), nd.shift(x, s, order=0, mode=mode))
        c = np.arange(-7, 21)[None] / 2.0
        check(gnd.map_coordinates(gx, c, order=0, mode=mode),
              nd.map_coordinates(x, c, order=0, mode=mode))
    # Zoom 3 -> 5 samples: coordinates 0, 0.5, 1, 1.5, 2.
    x2 = data(rng, (3, 7))
    for mode in MODES:
        check(gnd.zoom(gp.asarray(x2), (5 / 3, 1), order=0, mode=mode),
              nd.zoom(x2, (5 / 3, 1), order=0, mode=mode))


# ---------------------------------------------------------------------------------------
# rotate

@pytest.mark.parametrize("reshape", [True, False])
@pytest.mark.parametrize("order", [0, 1, 3])
def test_rotate(rng, order, reshape):
    x = data(rng, (9, 13))
    gx = gp.asarray(x)
    for angle in [30, 90, -45, 180, 271.5]:
        for mode in MODES if angle == 30 else ["constant"]:
            if order == 3:
                skip_old_reflect(mode, order)
            want = nd.rotate(x, angle, reshape=reshape, order=order, mode=mode, cval=0.5)
            got = gnd.rotate(gx, angle, reshape=reshape, order=order, mode=mode, cval=0.5)
            check(got, want, prefilter_bound(x, order, mode, 0.5))
    x3 = data(rng, (5, 8, 11))
    gx3 = gp.asarray(x3)
    for axes in [(1, 0), (0, 2), (2, 1), (-1, -2), (0, 1), (1, 2)]:
        for mode in ["constant", "nearest", "grid-wrap"]:
            want = nd.rotate(x3, 35, axes=axes, reshape=reshape, order=order, mode=mode)
            got = gnd.rotate(gx3, 35, axes=axes, reshape=reshape, order=order, mode=mode)
            check(got, want, prefilter_bound(x3, order, mode, 0.0, axes=axes))


def test_rotate_matrix_is_scipys():
    # rotate's matrix uses cephes' sine and cosine of degrees (exact at multiples of 90).
    special = pytest.importorskip("scipy.special")
    angles = [0, 30, 45, 90, 135, 180, 270, 360, -90, 1e-3, 33.3, 400, -1234.5, 1e15]
    for a in angles + list(np.linspace(-720, 720, 97)):
        assert _interpolation._cosdg(a) == special.cosdg(a), a
        assert _interpolation._sindg(a) == special.sindg(a), a


# ---------------------------------------------------------------------------------------
# dtypes, outputs, views

@pytest.mark.parametrize("dtype", REAL_DTYPES + COMPLEX_DTYPES, ids=dtype_id)
def test_input_dtypes(rng, dtype):
    x = data(rng, (5, 7), dtype)
    gx = gp.asarray(x)
    cval = 1.5 - 0.5j if np.dtype(dtype).kind == "c" else 1.5
    c = coordinates(rng, x.shape, (3, 4))
    for order in [0, 1, 3]:
        for mode in ["constant", "mirror"]:
            kw = dict(order=order, mode=mode, cval=cval)
            check(gnd.zoom(gx, 1.6, **kw), nd.zoom(x, 1.6, **kw))
            check(gnd.shift(gx, (0.5, -1.3), **kw), nd.shift(x, (0.5, -1.3), **kw))
            check(gnd.map_coordinates(gx, c, **kw), nd.map_coordinates(x, c, **kw))
            check(gnd.rotate(gx, 20, **kw), nd.rotate(x, 20, **kw))
            check(gnd.affine_transform(gx, [[1, 0.2], [0.1, 0.9]], **kw),
                  nd.affine_transform(x, [[1, 0.2], [0.1, 0.9]], **kw))


def test_grid_constant_padding_takes_the_input_dtype(rng):
    # SciPy pads with np.pad in the input's dtype (300.7 becomes 44 in uint8, 0.5 True
    # in bool) before the prefilter; taps past the padding read cval itself.
    for dtype, cval in [(np.uint8, 300.7), (np.bool_, 0.5), (np.int16, -2.5)]:
        x = data(rng, (6, 5), dtype)
        for order in [2, 3]:
            kw = dict(order=order, mode="grid-constant", cval=cval)
            check(gnd.zoom(gp.asarray(x), 1.7, output=np.float64, **kw),
                  nd.zoom(x, 1.7, output=np.float64, **kw),
                  prefilter_bound(x.astype(np.float64), order, "grid-constant", cval))
            check(gnd.shift(gp.asarray(x), 9.5, output=np.float64, **kw),
                  nd.shift(x, 9.5, output=np.float64, **kw),
                  prefilter_bound(x.astype(np.float64), order, "grid-constant", cval))


@pytest.mark.parametrize("out_dtype", REAL_DTYPES, ids=dtype_id)
def test_output_dtypes_round_as_scipy(rng, out_dtype):
    # Values across every integer type's range, with exact halves: rounding half away
    # from zero, clamping, unsigned negatives to 0, bool's low byte.
    x = data(rng, (6, 7)) * 40
    x[0, :4] = [2.5, -2.5, 0.5, -0.5]
    x[1, :3] = [300.7, -300.7, 1e6]
    gx = gp.asarray(x)
    # Dtype names too, but not "bool" (SciPy: "output must have numeric dtype").
    names = [np.dtype(out_dtype).name] if np.dtype(out_dtype).kind != "b" else []
    for order in [0, 1, 3]:
        for out in [out_dtype] + names:
            check(gnd.shift(gx, 0, output=out, order=order), nd.shift(x, 0, output=out, order=order))
            check(gnd.zoom(gx, 1.5, output=out, order=order), nd.zoom(x, 1.5, output=out, order=order))
        want = nd.map_coordinates(x, [[0.5, 1, 2.25], [1, 0.5, 3]], output=out_dtype, order=order)
        got = gnd.map_coordinates(gx, gp.asarray([[0.5, 1, 2.25], [1, 0.5, 3]]), output=out_dtype,
                                  order=order)
        check(got, want)
        # Output arrays: contiguous, and a strided view (written in place).
        want = nd.zoom(x, 1.5, output=out_dtype, order=order)
        arr = gp.zeros(want.shape, out_dtype)
        assert gnd.zoom(gx, 1.5, output=arr, order=order) is arr
        check(arr, want)
        base = gp.zeros((2 * want.shape[0], want.shape[1]), out_dtype)
        view = base[::-2]
        assert gnd.zoom(gx, 1.5, output=view, order=order) is view
        check(view, want)
        assert not base[-2::-2].get().any()


def test_complex_outputs_and_warnings(rng):
    x = data(rng, (5, 6), np.complex128)
    gx = gp.asarray(x)
    # A real output dtype for complex input: promoted, with SciPy's warning.
    for f, args in [("zoom", (1.5,)), ("shift", (0.5,)), ("rotate", (20,)),
                    ("affine_transform", (np.eye(2),)), ("spline_filter", ()),
                    ("spline_filter1d", ())]:
        got, want = same_warnings(lambda: getattr(gnd, f)(gx, *args, output=np.float32),
                                  lambda: getattr(nd, f)(x, *args, output=np.float32))
        check(got, want)
        out = gp.empty(want.shape, np.complex64)
        assert getattr(gnd, f)(gx, *args, output=out) is out
        check(out, getattr(nd, f)(x, *args, output=np.complex64))
    # 3-d rotation of complex planes, into a new array and into an output array.
    z3 = data(rng, (3, 5, 6), np.complex64)
    for axes in [(0, 2), (1, 2)]:
        want = nd.rotate(z3, 40, axes=axes, order=1, cval=1 + 1j)
        check(gnd.rotate(gp.asarray(z3), 40, axes=axes, order=1, cval=1 + 1j), want)
        out = gp.empty(want.shape, np.complex128)
        assert gnd.rotate(gp.asarray(z3), 40, axes=axes, order=1, output=out) is out
        check(out, nd.rotate(z3, 40, axes=axes, order=1, output=np.complex128))
    # Complex parts zoom without grid_mode, as in SciPy 1.18.
    got, want = same_warnings(lambda: gnd.zoom(gx, 1.5, grid_mode=True, mode="grid-constant"),
                              lambda: nd.zoom(x, 1.5, grid_mode=True, mode="grid-constant"))
    check(got, want)


def test_views_as_inputs(rng):
    base = data(rng, (12, 15))
    gbase = gp.asarray(base)
    views = [lambda a: a[::-1], lambda a: a.T, lambda a: a[1::2, ::3], lambda a: a[::-2, 2:-1]]
    for v in views:
        x, gx = v(base), v(gbase)
        for order in [1, 3]:
            check(gnd.zoom(gx, 1.3, order=order), nd.zoom(x, 1.3, order=order))
            check(gnd.shift(gx, (0.4, -1), order=order, mode="nearest"),
                  nd.shift(x, (0.4, -1), order=order, mode="nearest"))
            check(gnd.rotate(gx, 15, order=order), nd.rotate(x, 15, order=order))
            check(gnd.spline_filter(gx, order=order + 1), nd.spline_filter(x, order=order + 1))
            c = coordinates(rng, x.shape, (7,))
            check(gnd.map_coordinates(gx, c, order=order), nd.map_coordinates(x, c, order=order))
    # A 3-d view rotated about axes that are not the last two.
    base3 = data(rng, (6, 7, 8))
    x3, gx3 = base3[:, ::-1, ::2], gp.asarray(base3)[:, ::-1, ::2]
    for axes in [(0, 2), (1, 0)]:
        check(gnd.rotate(gx3, 50, axes=axes), nd.rotate(x3, 50, axes=axes))


def test_long_lines(rng):
    # Lines longer than the prefilter's whole sums: within the docstring's bound.
    x = data(rng, (61, 47))
    gx = gp.asarray(x)
    c = coordinates(rng, x.shape, (40,))
    for order in [2, 3, 4, 5]:
        for mode in MODES:
            if not SCIPY_REFLECT_FIXED and mode in ("reflect", "grid-mirror"):
                continue
            bound = prefilter_bound(x, order, mode, 0.5)
            check(gnd.zoom(gx, 1.3, order=order, mode=mode, cval=0.5),
                  nd.zoom(x, 1.3, order=order, mode=mode, cval=0.5), bound)
            check(gnd.map_coordinates(gx, c, order=order, mode=mode, cval=0.5),
                  nd.map_coordinates(x, c, order=order, mode=mode, cval=0.5), bound)


def test_more_dimensions(rng):
    # 4 to 6 dimensions (the kernels' general path), and 3-d windows of order 3 to 5.
    for shape in [(3, 4, 3, 5), (2, 3, 2, 2, 3), (2, 2, 1, 2, 3, 2)]:
        x = data(rng, shape)
        gx = gp.asarray(x)
        for order in [0, 1, 2, 3]:
            check(gnd.zoom(gx, 1.4, order=order, mode="mirror"),
                  nd.zoom(x, 1.4, order=order, mode="mirror"))
            # (No padded modes with the prefilter here: SciPy pads every axis by 24.)
            c = coordinates(rng, shape, (4, 3))
            check(gnd.map_coordinates(gx, c, order=order, mode="wrap", cval=2.0),
                  nd.map_coordinates(x, c, order=order, mode="wrap", cval=2.0))
            check(gnd.map_coordinates(gx, c, order=order, mode="grid-constant", cval=2.0,
                                      prefilter=False),
                  nd.map_coordinates(x, c, order=order, mode="grid-constant", cval=2.0,
                                     prefilter=False))
            m = np.eye(x.ndim) * 0.9 + 0.05
            check(gnd.affine_transform(gx, m, offset=0.3, order=order, mode="grid-wrap"),
                  nd.affine_transform(x, m, offset=0.3, order=order, mode="grid-wrap"))
    x = data(rng, (5, 6, 7))
    for order in [3, 4, 5]:
        check(gnd.zoom(gp.asarray(x), 1.2, order=order), nd.zoom(x, 1.2, order=order))


# ---------------------------------------------------------------------------------------
# Errors

def same_error(gpupy_call, scipy_call):
    """Both calls raise the same exception type with the same message."""
    with pytest.raises(Exception) as want:
        scipy_call()
    with pytest.raises(type(want.value)) as got:
        gpupy_call()
    assert str(got.value) == str(want.value), (str(got.value), str(want.value))


def test_errors(rng):
    x = data(rng, (5, 6))
    gx = gp.asarray(x)
    c = np.ones((2, 3))
    cases = [
        ("zoom", (2,), dict(order=6)),
        ("zoom", (2,), dict(order=-1)),
        ("zoom", (2,), dict(mode="foo")),
        ("zoom", (2,), dict(mode="foo", order=1, prefilter=False)),
        ("shift", ([1, 2, 3],), {}),
        ("shift", (1,), dict(cval=1j)),
        ("zoom", ([1, 2, 3],), {}),
        ("zoom", (-1,), {}),
        ("affine_transform", (np.eye(2),), dict(output_shape=(-2, 3))),
        ("spline_filter", (), dict(order=1)),
        ("spline_filter", (), dict(order=6)),
        ("spline_filter", (), dict(mode="bar")),
        ("spline_filter1d", (), dict(order=6)),
        ("spline_filter1d", (), dict(axis=2)),
        ("spline_filter", (), dict(output="complex64")),
        ("spline_filter", (), dict(output="bool_")),
        ("rotate", (30,), dict(axes=(0,))),
        ("rotate", (30,), dict(axes=(0.5, 1))),
        ("rotate", (30,), dict(axes=(0, 2))),
        ("rotate", (30,), dict(axes=(-3, 0))),
        ("affine_transform", (np.ones((3, 3, 3)),), {}),
        ("affine_transform", (np.ones((3, 2)),), {}),
        ("affine_transform", (np.ones((2, 4)),), {}),
        ("affine_transform", (np.ones((3, 3)),), {}),
        ("affine_transform", (np.ones(3),), {}),
        ("affine_transform", (np.ones((0,)),), {}),
        ("affine_transform", (np.eye(2),), dict(offset=[1, 2, 3])),
        ("affine_transform", (np.eye(2),), dict(offset=[[1, 2]])),
        ("affine_transform", (np.eye(2),), dict(offset=[[1, 2], [3, 4]])),
        ("map_coordinates", (c.astype(complex),), {}),
        ("map_coordinates", (np.ones((3, 4)),), {}),
        ("map_coordinates", (np.ones((2,)),), {}),
        ("map_coordinates", (c,), dict(order=7)),
        ("map_coordinates", (c.astype(np.float16),), {}),
        ("zoom", (1.5,), dict(output=np.float16)),
        ("zoom", (1.5,), dict(output=np.complex64)),
        ("zoom", (1.5,), dict(output="float16", order=1)),
    ]
    for name, args, kw in cases:
        same_error(lambda: getattr(gnd, name)(gx, *args, **kw),
                   lambda: getattr(nd, name)(x, *args, **kw))
    # Output arrays of the wrong shape, or real for complex input.
    same_error(lambda: gnd.zoom(gx, 1.5, output=gp.empty((3, 3))),
               lambda: nd.zoom(x, 1.5, output=np.empty((3, 3))))
    same_error(lambda: gnd.affine_transform(gx, np.eye(2), output_shape=[5, 6], output=gp.empty((5, 6))),
               lambda: nd.affine_transform(x, np.eye(2), output_shape=[5, 6], output=np.empty((5, 6))))
    z = x + 1j
    same_error(lambda: gnd.shift(gp.asarray(z), 1, output=gp.empty((5, 6))),
               lambda: nd.shift(z, 1, output=np.empty((5, 6))))
    same_error(lambda: gnd.spline_filter(gp.asarray(z), output="float64"),
               lambda: nd.spline_filter(z, output="float64"))
    # Rank 0, rank 1 for rotate, float16 data (which SciPy's C code does not read).
    s = np.float64(2.0)
    for name, args in [("zoom", (2,)), ("shift", (1,)), ("affine_transform", (np.ones(1),))]:
        same_error(lambda: getattr(gnd, name)(gp.asarray(s), *args),
                   lambda: getattr(nd, name)(s, *args))
    same_error(lambda: gnd.map_coordinates(gp.asarray(s), np.ones((0, 3))),
               lambda: nd.map_coordinates(s, np.ones((0, 3))))
    same_error(lambda: gnd.spline_filter1d(gp.asarray(s)), lambda: nd.spline_filter1d(s))
    same_error(lambda: gnd.rotate(gx[0], 30), lambda: nd.rotate(x[0], 30))
    h = x.astype(np.float16)
    for order in [0, 1, 3]:
        same_error(lambda: gnd.zoom(gp.asarray(h), 1.5, order=order),
                   lambda: nd.zoom(h, 1.5, order=order))
        same_error(lambda: gnd.map_coordinates(gp.asarray(h), c, order=order),
                   lambda: nd.map_coordinates(h, c, order=order))
    same_error(lambda: gnd.spline_filter(gp.asarray(h)), lambda: nd.spline_filter(h))
    # Padding an empty axis for the nearest-mode prefilter.
    e = np.zeros((0, 3))
    same_error(lambda: gnd.zoom(gp.asarray(e), 2, mode="nearest"),
               lambda: nd.zoom(e, 2, mode="nearest"))
    # geometric_transform takes a Python function: not on the GPU.
    with pytest.raises(NotImplementedError, match="use map_coordinates"):
        gnd.geometric_transform(gx, lambda c: c)
