"""gpupy.fft against numpy.fft.

Accuracy (``assert_fft_close``, the one place the tolerance lives): a result must be
within a norm-wise relative error ``||gp - ref||_2 / ||ref||_2 <= C * eps * log2(n)``
of the reference, where ``ref`` is numpy.fft's result computed in float64/complex128
from the same input cast to float64 (complex128), ``eps = numpy.finfo(d).eps`` of the
result's precision ``d`` (float32's for complex64 results, float16's for float16 ones),
``n`` the transform's length (the product of the lengths over the transformed axes; at
least 2, so that a length-1 transform, which rounds once, gets one log2 unit) and
``C = 5``. Derivation: Higham (Accuracy and Stability of Numerical Algorithms, 2nd ed.,
thm 24.2) bounds a radix-2 FFT by ``log2(n) * eta / (1 - log2(n) * eta)`` with
``eta = mu + gamma_4 * (sqrt(2) + mu)``, about ``6.7 u = 3.3 eps`` per level for
twiddles accurate to ``mu ~ u``; C = 5 leaves room for the mixed-radix and Bluestein
paths, the one rounding of the normalization factor and of the output conversion, and
numpy's own float64 error (about ``u64 * log2(n)``, which matters only for complex128
results). Round trips (two transforms) get twice the bound. Integer and boolean inputs
are cast to float64 on both sides (NumPy computes them in double precision too), so the
reference transforms the same values.

Inputs are fresh random data from the ``rng`` fixture (helpers.random_array), never
zeros. Sizes cover every radix path (powers of 2, 3, 5, 7, mixed) and Bluestein (the
primes 11, 13, 17, 97, 1009, 65521 and 4097 = 17 * 241); the large sizes (65521, 2**16,
2**20) run with fewer dtypes and norms.

Errors: NumPy's exception types, and NumPy's messages where they are stable. Where NumPy
raises a bare IndexError for an out-of-range axis, gpupy raises NumPy's AxisError (an
IndexError). Host (NumPy) inputs raise TypeError, as in CuPy.
"""

import itertools
import math
import re
import warnings

import numpy as np
import pytest

import gpupy as gp
from gpupy.fft import _plan
from helpers import (
    ALL_DTYPES,
    VIEW_FUNCS_1D,
    VIEW_FUNCS_2D,
    VIEW_IDS_1D,
    VIEW_IDS_2D,
    assert_equal_to_numpy,
    dtype_id,
    random_array,
    raises_like,
)

pytestmark = pytest.mark.gpu

C = 5  # the accuracy constant of the module docstring
NORMS = [None, "backward", "ortho", "forward"]
SIZES = [1, 2, 3, 5, 7, 8, 11, 13, 16, 17, 30, 64, 97, 100, 128, 210, 243, 256, 729, 1000, 1009, 1024, 2048,
         4096, 4097, 8192]
BIG_SIZES = [65521, 2**16, 3**10, 2**20]
ONE_AXIS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
REAL_INPUT = {"rfft", "ihfft", "rfftn", "rfft2"}  # complex input is a TypeError


# ---------------------------------------------------------------------------------------
# Helpers


def fft_bound(dtype, n):
    """The norm-wise relative error allowed for a result of ``dtype`` from a transform
    of length ``n``: ``C * eps * log2(n)`` (see the module docstring)."""
    return C * np.finfo(dtype).eps * math.log2(max(n, 2))


def assert_fft_close(got, ref, n, *, dtype, precision=None, factor=1, label=""):
    """``got`` (a gpupy array) has NumPy's ``dtype`` and ``ref``'s shape and is within
    ``factor * fft_bound(precision or dtype, n)`` of ``ref`` (float64/complex128) in the
    norm-wise relative error. A zero reference (a boolean input of zeros) must be met
    exactly."""
    assert isinstance(got, gp.ndarray), type(got)
    g = gp.asnumpy(got)
    assert g.dtype == np.dtype(dtype), f"{label}: dtype gpupy {g.dtype}, numpy {np.dtype(dtype)}"
    assert g.shape == ref.shape, f"{label}: shape gpupy {g.shape}, numpy {ref.shape}"
    scale = np.linalg.norm(ref.ravel())
    if scale == 0.0:
        np.testing.assert_array_equal(g, ref.astype(g.dtype), err_msg=label)
        return
    err = np.linalg.norm((g.astype(ref.dtype) - ref).ravel()) / scale
    bound = factor * fft_bound(precision or dtype, n)
    assert err <= bound, f"{label}: relative error {err:.3e} > {bound:.3e} (n={n})"


def wide(x):
    """``x`` cast to float64 (complex128): the reference's input."""
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def numpy_call(name, x, *args, **kwargs):
    """NumPy's ``name`` on ``x`` with NumPy's own deprecation warnings silenced (the
    tests that check them use pytest.warns)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return getattr(np.fft, name)(x, *args, **kwargs)


def check(name, x, *args, length, factor=1, g=None, **kwargs):
    """gpupy's ``name(x, *args, **kwargs)`` on the device copy of ``x`` (or on ``g``, a
    device view with ``x``'s values) against numpy's: NumPy's dtype (from ``x`` itself,
    or from a small input of its dtype for large ones), values within the bound of the
    float64 reference for a transform of ``length`` points."""
    g = gp.asarray(x) if g is None else g
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        got = getattr(gp.fft, name)(g, *args, **kwargs)
    if x.size <= 4096:
        want_dtype = numpy_call(name, x, *args, **kwargs).dtype
    else:
        want_dtype = result_dtype(name, x.dtype, kwargs)
    ref = numpy_call(name, wide(x), *args, **kwargs)
    assert_fft_close(got, ref, length, dtype=want_dtype, factor=factor, label=f"{name} {x.dtype} {args} {kwargs}")
    return got


def result_dtype(name, dtype, kwargs):
    """NumPy's result dtype of ``name`` for an input of ``dtype`` (from a small input:
    for large ones the dtype does not depend on the size)."""
    axes = kwargs.get("axes")
    ndim = 3 if axes is None else max(3, len(axes))
    probe = np.ones((4,) * ndim, dtype)  # only its dtype matters
    return numpy_call(name, probe, **{k: v for k, v in kwargs.items() if k in ("axis", "axes", "norm")}).dtype


def transform_length(in_shape, out_shape, axes):
    """The length ``n`` of the accuracy bound: over the transformed axes (repeats count
    again: the axis is transformed again), the longer of the input's and the result's
    length (the real side of r2c/c2r transforms)."""
    ndim = len(in_shape)
    return math.prod(max(in_shape[ax % ndim], out_shape[ax % ndim]) for ax in axes)


def random_spectrum(rng, shape, dtype):
    """A random complex input for the inverse real transforms (complex64 for float32)."""
    cdt = np.complex64 if np.dtype(dtype) in (np.float32, np.complex64) else np.complex128
    return random_array(rng, shape, cdt)


# ---------------------------------------------------------------------------------------
# One axis: every size, every norm.


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=dtype_id)
def test_c2c_sizes(rng, size, dtype):
    x = random_array(rng, (size,), dtype)
    for norm in NORMS:
        check("fft", x, length=size, norm=norm)
        check("ifft", x, length=size, norm=norm)


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
def test_real_sizes(rng, size, dtype):
    x = random_array(rng, (size,), dtype)
    spec = random_spectrum(rng, (size // 2 + 1,), dtype)
    for norm in NORMS:
        check("rfft", x, length=size, norm=norm)
        check("ihfft", x, length=size, norm=norm)
        check("irfft", spec, size, length=size, norm=norm)
        check("hfft", spec, size, length=size, norm=norm)


@pytest.mark.parametrize("size", BIG_SIZES, ids=str)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=dtype_id)
def test_c2c_big_sizes(rng, size, dtype):
    x = random_array(rng, (size,), dtype)
    check("fft", x, length=size)
    check("ifft", x, length=size, norm="ortho")


@pytest.mark.parametrize("size", BIG_SIZES, ids=str)
def test_real_big_sizes(rng, size):
    x = random_array(rng, (size,), np.float32)
    check("rfft", x, length=size, norm="forward")
    check("irfft", random_spectrum(rng, (size // 2 + 1,), np.float32), size, length=size)


@pytest.mark.parametrize("size", [2 * 8192, 2 * 16384], ids=str)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
def test_real_batched_fused_and_separate_twists(rng, size, axis, dtype):
    """Batched rfft and irfft of even lengths whose half-length transform is one pass
    (2 * 8192 points) and two passes (2 * 16384), along a contiguous and a strided axis,
    the spectrum's zero and Nyquist terms with imaginary parts NumPy ignores."""
    shape = (size, 3) if axis == 0 else (3, size)
    x = random_array(rng, shape, dtype)
    check("rfft", x, axis=axis, length=size)
    spec_shape = (size // 2 + 1, 3) if axis == 0 else (3, size // 2 + 1)
    spec = random_spectrum(rng, spec_shape, dtype)
    assert np.all(np.take(spec, [0, size // 2], axis=axis).imag != 0)
    check("irfft", spec, size, axis=axis, length=size, norm="ortho")


@pytest.mark.parametrize("size", [1, 2, 3, 7, 16, 17, 100, 243, 1009, 4096, 4097, 65521], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
def test_round_trips(rng, size, dtype):
    """ifft(fft(x)) and irfft(rfft(x), n) give x back (two transforms: twice the bound)."""
    x = random_array(rng, (3, size), dtype)
    z = random_array(rng, (3, size), np.complex64 if dtype == np.float32 else np.complex128)
    g, gz = gp.asarray(x), gp.asarray(z)
    for norm in NORMS:
        back = gp.fft.ifft(gp.fft.fft(gz, norm=norm), norm=norm)
        assert_fft_close(back, wide(z), size, dtype=z.dtype, factor=2, label=f"ifft(fft) {norm}")
        back = gp.fft.irfft(gp.fft.rfft(g, norm=norm), size, norm=norm)
        assert_fft_close(back, wide(x), size, dtype=dtype, factor=2, label=f"irfft(rfft) {norm}")
        back = gp.fft.hfft(gp.fft.ihfft(g, norm=norm), size, norm=norm)
        assert_fft_close(back, wide(x), size, dtype=dtype, factor=2, label=f"hfft(ihfft) {norm}")


@pytest.mark.parametrize("size", [1, 2, 3, 8, 11, 30, 97, 256, 1000, 4097], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
def test_rfft_hermitian_symmetry(rng, size, dtype):
    """rfft(x) is the first half of fft(x), whose other half mirrors it conjugated
    (X[n-k] = conj(X[k])), and its zero (and, n even, Nyquist) term is real, all to
    rounding (gpupy's outputs against each other: twice the bound)."""
    x = random_array(rng, (4, size), dtype)
    g = gp.asarray(x)
    half = gp.asnumpy(gp.fft.rfft(g))
    full = gp.asnumpy(gp.fft.fft(g))
    ref = full[:, : size // 2 + 1].astype(np.complex128)
    assert_fft_close(gp.fft.rfft(g), ref, size, dtype=half.dtype, factor=2, label="rfft vs fft")
    if size > 1:
        mirrored = np.conj(full[:, 1:][:, ::-1]).astype(np.complex128)
        assert_fft_close(gp.fft.fft(g)[:, 1:], mirrored, size, dtype=full.dtype, factor=2, label="X[n-k] = conj X[k]")
    bound = 2 * fft_bound(half.dtype, size) * np.linalg.norm(half.astype(np.complex128), axis=1)
    assert (np.abs(half[:, 0].imag) <= bound).all()
    if size % 2 == 0:
        assert (np.abs(half[:, size // 2].imag) <= bound).all()


# ---------------------------------------------------------------------------------------
# Dtypes, axes, views, n.


@pytest.mark.parametrize("name", ONE_AXIS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_every_dtype(rng, name, dtype):
    """NumPy's result dtypes: complex64 from float16/float32/complex64, complex128 from
    the rest; the real inverses of float16 give float16; bool and integers compute in
    double precision. Complex input to the real forward transforms is NumPy's TypeError."""
    x = random_array(rng, (3, 10), dtype)
    if name in REAL_INPUT and x.dtype.kind == "c":
        raises_like(lambda: getattr(gp.fft, name)(gp.asarray(x)), lambda: numpy_call(name, x),
                    match="not supported for the input types")
        return
    for axis, norm in zip([-1, 0, 1, -2], NORMS):
        length = x.shape[axis]
        n = 2 * (length - 1) if name in ("irfft", "hfft") else length
        check(name, x, axis=axis, norm=norm, length=n)


@pytest.mark.parametrize("name", ONE_AXIS)
@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_views_2d(rng, name, view):
    """Non-contiguous, transposed and negative-stride inputs along either axis."""
    dtype = np.float32 if name in REAL_INPUT else np.complex64
    base = random_array(rng, (12, 17), dtype)
    x, g = view(base), view(gp.asarray(base))
    for axis in (0, 1):
        length = x.shape[axis]
        n = 2 * (length - 1) if name in ("irfft", "hfft") else length
        check(name, x, axis=axis, length=n, g=g)


@pytest.mark.parametrize("name", ONE_AXIS)
@pytest.mark.parametrize("view", VIEW_FUNCS_1D, ids=VIEW_IDS_1D)
def test_views_1d(rng, name, view):
    dtype = np.float64 if name in REAL_INPUT else np.complex128
    base = random_array(rng, (41,), dtype)
    x, g = view(base), view(gp.asarray(base))
    n = 2 * (x.shape[0] - 1) if name in ("irfft", "hfft") else x.shape[0]
    check(name, x, length=n, norm="ortho", g=g)
    check(name, x, 16, length=16, g=g)  # and cropped or padded on the way


@pytest.mark.parametrize("name", ONE_AXIS)
@pytest.mark.parametrize("length", [1, 6, 7, 64], ids=str)
def test_n_pads_and_crops(rng, name, length):
    """``n`` shorter than the input crops it, longer pads it with zeros (for irfft/hfft:
    the ``n // 2 + 1`` inputs they use), for odd and even n."""
    dtype = np.float64 if name in REAL_INPUT else np.complex128
    x = random_array(rng, (2, length, 3), dtype)
    for n, norm in zip([1, 2, 5, length, length + 1, 2 * length + 3, 100], itertools.cycle(NORMS)):
        check(name, x, n, axis=1, norm=norm, length=n)


@pytest.mark.parametrize("name", ONE_AXIS)
def test_n_and_axis_as_numpy_integers(rng, name):
    dtype = np.float32 if name in REAL_INPUT else np.complex64
    x = random_array(rng, (5, 9), dtype)
    check(name, x, np.int64(8), np.int32(0), length=8)


# ---------------------------------------------------------------------------------------
# Several axes.


def axes_choices(ndim):
    """Every order of every non-empty subset of the axes, None, a negative spelling, and
    repeated axes (which NumPy transforms again: not an error)."""
    out = [None]
    for k in range(1, ndim + 1):
        out += list(itertools.permutations(range(ndim), k))
    out.append(tuple(ax - ndim for ax in out[-1]))
    out += [(0, 0), (-1, ndim - 1, 0)]
    return out


def real_or_any(names, dtypes):
    """(name, dtype) pairs, without complex inputs to the real forward transforms (their
    TypeError is in test_errors)."""
    return [pytest.param(n, d, id=f"{n}-{dtype_id(d)}") for n in names for d in dtypes
            if not (n in REAL_INPUT and np.dtype(d).kind == "c")]


@pytest.mark.parametrize("name, dtype", real_or_any(["fftn", "ifftn", "rfftn", "irfftn"],
                                                    [np.float32, np.float64, np.complex64, np.int16, np.float16]))
@pytest.mark.parametrize("shape", [(6, 10), (4, 6, 9)], ids=str)
def test_nd_every_axes(rng, name, shape, dtype):
    x = random_array(rng, shape, dtype)
    for axes, norm in zip(axes_choices(len(shape)), itertools.cycle(NORMS)):
        want = numpy_call(name, x, axes=axes, norm=norm)
        n = transform_length(shape, want.shape, range(len(shape)) if axes is None else axes)
        check(name, x, axes=axes, norm=norm, length=n)


@pytest.mark.parametrize("name, dtype", real_or_any(["fft2", "ifft2", "rfft2", "irfft2"],
                                                    [np.float32, np.complex128, np.uint8]))
def test_2d_functions(rng, name, dtype):
    x = random_array(rng, (3, 8, 11), dtype)
    for axes, norm in zip([(-2, -1), (0, 1), (2, 0), (1, 2), (-1, -3)], itertools.cycle(NORMS)):
        kwargs = {"norm": norm} if axes == (-2, -1) else {"axes": axes, "norm": norm}
        want = numpy_call(name, x, **kwargs)
        check(name, x, length=transform_length(x.shape, want.shape, axes), **kwargs)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"])
def test_nd_s_pads_crops_and_minus_one(rng, name):
    """``s`` crops and pads each transformed axis; ``-1`` keeps the input's length."""
    dtype = np.float64 if name in REAL_INPUT else np.complex64
    x = random_array(rng, (5, 6, 9), dtype)
    for s, axes in [((4, 8), (0, 2)), ((7, 3), (2, 1)), ((-1, 12), (1, 2)), ((3, -1), (0, 1)), ((1, 1), (1, 2)),
                    ((2, 9, 4), (0, 1, 2)), ((-1, -1), (2, 0))]:
        want = numpy_call(name, x, s, axes)
        check(name, x, s, axes, length=transform_length(x.shape, want.shape, axes))


ND_VIEWS = [
    ("steps", lambda a: a[::2, :, ::-1]),
    ("transposed", lambda a: a.transpose(2, 0, 1)),
    ("offset_negstep", lambda a: a[1:, ::-2, 3:]),
]


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "irfft2"])
@pytest.mark.parametrize("view", [v for _, v in ND_VIEWS], ids=[i for i, _ in ND_VIEWS])
def test_nd_views(rng, name, view):
    """Device views (steps, transposes, negative strides) under every axis."""
    dtype = np.float32 if name in REAL_INPUT else np.complex128
    base = random_array(rng, (8, 6, 10), dtype)
    x, g = view(base), view(gp.asarray(base))
    for axes in [None, (0, 2), (2, 1), (1,)]:
        if name.endswith("2") and axes is not None and len(axes) != 2:
            continue
        kwargs = {} if axes is None else {"axes": axes}
        want = numpy_call(name, x, **kwargs)
        ax = range(x.ndim) if axes is None else axes
        if name.endswith("2") and axes is None:
            ax = (-2, -1)
        check(name, x, length=transform_length(x.shape, want.shape, ax), g=g, **kwargs)


def test_nd_s_deprecations_as_numpy(rng):
    """NumPy 2's DeprecationWarnings: ``s`` without ``axes`` (then the last len(s)
    axes), and None in ``s`` (the one-axis default at that axis's turn)."""
    x = random_array(rng, (4, 6, 8), np.complex128)
    g = gp.asarray(x)
    with pytest.warns(DeprecationWarning, match="`axes` should not be `None` if `s` is not `None`"):
        got = gp.fft.fftn(g, (3, 5))
    assert_fft_close(got, numpy_call("fftn", x, (3, 5)), 15, dtype=np.complex128)
    with pytest.warns(DeprecationWarning, match="Passing an array containing `None` values to `s`"):
        got = gp.fft.irfftn(g, (3, None), (0, 2))
    want = numpy_call("irfftn", x, (3, None), (0, 2))
    assert_fft_close(got, want, 3 * 14, dtype=want.dtype)
    # -1 is the input's length (for irfftn's last axis too, not 2 * (m - 1)).
    want = numpy_call("irfftn", x, (-1, -1), (0, 2))
    assert want.shape == (4, 6, 8)
    assert_fft_close(gp.fft.irfftn(g, (-1, -1), (0, 2)), want, 4 * 8, dtype=want.dtype)


def test_no_axes(rng):
    """``axes=()``: fftn/ifftn return the input itself (NumPy's loop does nothing); the
    real transforms raise NumPy's IndexError; 0-d inputs transform no axis."""
    x = random_array(rng, (3, 4), np.float32)
    g = gp.asarray(x)
    assert gp.fft.fftn(g, axes=()) is g
    assert gp.fft.ifftn(g, axes=[]) is g
    z = gp.asarray(random_array(rng, (), np.float64))
    assert gp.fft.fftn(z) is z
    raises_like(lambda: gp.fft.rfftn(g, axes=()), lambda: np.fft.rfftn(x, axes=()))
    raises_like(lambda: gp.fft.irfftn(g, axes=()), lambda: np.fft.irfftn(x, axes=()))


# ---------------------------------------------------------------------------------------
# Zero-size batches.


@pytest.mark.parametrize("name", ONE_AXIS)
@pytest.mark.parametrize("shape", [(0, 8), (3, 0, 8), (0,) * 3 + (5,)], ids=str)
def test_empty_batch(name, shape):
    dtype = np.float32 if name in REAL_INPUT else np.complex64
    x = np.empty(shape, dtype)
    for n in (None, 3, 10):
        got = getattr(gp.fft, name)(gp.asarray(x), n)
        want = numpy_call(name, x, n)
        assert isinstance(got, gp.ndarray)
        assert (got.shape, got.dtype) == (want.shape, want.dtype)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "irfft2"])
def test_empty_batch_nd(name):
    dtype = np.float64 if name in REAL_INPUT else np.complex128
    x = np.empty((2, 0, 6, 5), dtype)
    for s in (None, (4, 7)):
        got = getattr(gp.fft, name)(gp.asarray(x), s, axes=(2, 3))
        want = numpy_call(name, x, s, axes=(2, 3))
        assert (got.shape, got.dtype) == (want.shape, want.dtype)
    # Transforming the empty axis itself is n = 0, NumPy's ValueError.
    raises_like(lambda: getattr(gp.fft, name)(gp.asarray(x), axes=(1, 2)),
                lambda: numpy_call(name, x, axes=(1, 2)), match="Invalid number of FFT data points")


# ---------------------------------------------------------------------------------------
# out=


@pytest.mark.parametrize("name", ONE_AXIS + ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"])
def test_out(rng, name):
    """``out=`` of the result's shape is written and returned, as a fresh array, a
    strided view, or of another dtype of the same kind (the result converted into it;
    NumPy casts its ufunc outputs 'same_kind')."""
    dtype = np.float32 if name in REAL_INPUT else np.complex64
    x = random_array(rng, (6, 10), dtype)
    g = gp.asarray(x)
    want = numpy_call(name, x)
    ref = numpy_call(name, wide(x))
    n = transform_length(x.shape, want.shape, (1,) if name in ONE_AXIS else (0, 1))
    kind = want.dtype.kind
    other = {"c": np.complex128, "f": np.float64}[kind]
    outs = [gp.empty(want.shape, want.dtype), gp.empty((want.shape[0] * 2, want.shape[1]), want.dtype)[::2],
            gp.empty(want.shape, other)]
    for out in outs:
        r = getattr(gp.fft, name)(g, out=out)
        assert r is out
        assert_fft_close(out, ref, n, dtype=out.dtype, precision=want.dtype, label=f"{name} out={out.dtype}")


def test_out_narrower_and_real_into_complex(rng):
    x = random_array(rng, (4, 12), np.float64)
    g = gp.asarray(x)
    out = gp.empty((4, 12), np.complex64)
    assert gp.fft.fft(g, out=out) is out  # complex128 computed, stored as complex64
    assert_fft_close(out, numpy_call("fft", x), 12, dtype=np.complex64)
    out = gp.empty((4, 22), np.complex128)  # irfft's float64 into complex: same kind ('f' -> 'c')
    assert gp.fft.irfft(g, out=out) is out
    assert_fft_close(out, numpy_call("irfft", x).astype(np.complex128), 22, dtype=np.complex128)


@pytest.mark.parametrize(
    "name, shape, dtype, match, error",
    [
        ("fft", (4, 5), np.complex128, "output array has wrong shape.", ValueError),
        ("fft", (6,), np.complex128, "output array has wrong shape.", ValueError),
        ("ifft", (4, 7), np.complex128, "output array has wrong shape.", ValueError),
        ("rfft", (4, 6), np.complex128, "output array has wrong shape.", ValueError),
        ("irfft", (4, 6), np.float64, "output array has wrong shape.", ValueError),
        ("fft", (4, 6), np.float64, "Cannot cast ufunc 'fft' output from dtype('complex128') to dtype('float64')",
         TypeError),
        ("ifft", (4, 6), np.int64, "Cannot cast ufunc 'ifft' output", TypeError),
        ("rfft", (4, 4), np.float32, "Cannot cast ufunc 'rfft_n_even' output", TypeError),
        ("irfft", (4, 10), np.int32, "Cannot cast ufunc 'irfft' output from dtype('float64') to dtype('int32')",
         TypeError),
        ("ihfft", (4, 4), np.float64, "Cannot cast ufunc", TypeError),
    ],
)
def test_out_errors(rng, name, shape, dtype, match, error):
    x = random_array(rng, (4, 6), np.float64)
    raises_like(lambda: getattr(gp.fft, name)(gp.asarray(x), out=gp.empty(shape, dtype)),
                lambda: getattr(np.fft, name)(x, out=np.empty(shape, dtype)), match=re.escape(match))
    with pytest.raises(error):
        getattr(gp.fft, name)(gp.asarray(x), out=gp.empty(shape, dtype))


def test_out_must_be_a_device_array(rng):
    g = gp.asarray(random_array(rng, (4, 6), np.float64))
    with pytest.raises(TypeError):
        gp.fft.fft(g, out=np.empty((4, 6), np.complex128))


# ---------------------------------------------------------------------------------------
# NumPy's errors.


# NumPy's two norm messages: the forward transforms' (no space after the first comma) and
# the inverse ones' (from _swap_direction).
FORWARD_NORM = 'Invalid norm value {}; should be "backward","ortho" or "forward".'
INVERSE_NORM = 'Invalid norm value {}; should be "backward", "ortho" or "forward".'
NOT_SUPPORTED = "ufunc '{}' not supported for the input types"

ERROR_CASES = [
    # (id, call with (fft module, real array (4, 6), complex array (4, 6)), NumPy's message or None)
    ("fft_n0", lambda m, a, c: m.fft(c, 0), "Invalid number of FFT data points (0) specified."),
    ("ifft_n-1", lambda m, a, c: m.ifft(c, -1), "Invalid number of FFT data points (-1) specified."),
    ("rfft_n0", lambda m, a, c: m.rfft(a, 0), "Invalid number of FFT data points (0) specified."),
    ("irfft_n0", lambda m, a, c: m.irfft(c, 0), "Invalid number of FFT data points (0) specified."),
    ("hfft_n-3", lambda m, a, c: m.hfft(c, -3), "Invalid number of FFT data points (-3) specified."),
    ("ihfft_n0", lambda m, a, c: m.ihfft(a, 0), "Invalid number of FFT data points (0) specified."),
    ("fft_empty_axis", lambda m, a, c: m.fft(c[:, :0]), "Invalid number of FFT data points (0) specified."),
    ("rfft_empty_axis", lambda m, a, c: m.rfft(a[:0], axis=0), "Invalid number of FFT data points (0) specified."),
    ("irfft_empty_axis", lambda m, a, c: m.irfft(c[:, :0]), "Invalid number of FFT data points (-2) specified."),
    ("irfft_length_1", lambda m, a, c: m.irfft(c[:, :1]), "Invalid number of FFT data points (0) specified."),
    ("hfft_empty_axis", lambda m, a, c: m.hfft(c[:0], axis=0),
     "Invalid number of FFT data points (-2) specified."),
    ("fftn_s0", lambda m, a, c: m.fftn(c, (0, 3), (0, 1)), "Invalid number of FFT data points (0) specified."),
    ("irfftn_s-2", lambda m, a, c: m.irfftn(c, (3, -2), (0, 1)),
     "Invalid number of FFT data points (-2) specified."),
    ("irfftn_empty_last", lambda m, a, c: m.irfftn(c[:, :0]),
     "Invalid number of FFT data points (-2) specified."),
    ("fft_n_float", lambda m, a, c: m.fft(c, 2.5), "'float' object cannot be interpreted as an integer"),
    ("fft_n_half", lambda m, a, c: m.fft(c, 0.5), "Invalid number of FFT data points (0.5) specified."),
    ("fft_n_bool", lambda m, a, c: m.fft(c, True), "an integer is required"),
    ("irfft_n_bool", lambda m, a, c: m.irfft(c, True), "an integer is required"),
    ("fft_norm", lambda m, a, c: m.fft(c, norm="bad"), FORWARD_NORM.format("bad")),
    ("rfft_norm", lambda m, a, c: m.rfft(a, norm="Ortho"), FORWARD_NORM.format("Ortho")),
    ("ifft_norm", lambda m, a, c: m.ifft(c, norm="bad"), INVERSE_NORM.format("bad")),
    ("irfft_norm", lambda m, a, c: m.irfft(c, norm=""), INVERSE_NORM.format("")),
    ("hfft_norm", lambda m, a, c: m.hfft(c, norm="bad"), INVERSE_NORM.format("bad")),
    ("ihfft_norm", lambda m, a, c: m.ihfft(a, norm="bad"), INVERSE_NORM.format("bad")),
    ("fftn_norm", lambda m, a, c: m.fftn(c, norm="bad"), FORWARD_NORM.format("bad")),
    ("irfft2_norm", lambda m, a, c: m.irfft2(c, norm="bad"), INVERSE_NORM.format("bad")),
    ("hfft_n0_norm", lambda m, a, c: m.hfft(c, 0, norm="bad"), INVERSE_NORM.format("bad")),
    ("fft_n0_norm", lambda m, a, c: m.fft(c, 0, norm="bad"), "Invalid number of FFT data points (0) specified."),
    ("fft_axis_n", lambda m, a, c: m.fft(c, 4, axis=2), "axis 2 is out of bounds for array of dimension 2"),
    ("rfft_axis_n", lambda m, a, c: m.rfft(a, 4, axis=-3), "axis -3 is out of bounds for array of dimension 2"),
    ("fft_axis", lambda m, a, c: m.fft(c, axis=2), None),  # NumPy: IndexError; gpupy: AxisError
    ("irfft_axis", lambda m, a, c: m.irfft(c, axis=-3), None),
    ("hfft_axis", lambda m, a, c: m.hfft(c, axis=5), None),
    ("fft_axis_float", lambda m, a, c: m.fft(c, axis=1.0), None),
    ("fft_0d", lambda m, a, c: m.fft(c[0, 0, ...]), None),
    ("fftn_axes", lambda m, a, c: m.fftn(c, axes=(0, 2)), None),
    ("fftn_axes_s", lambda m, a, c: m.fftn(c, (3, 3), axes=(0, -3)),
     "axis -3 is out of bounds for array of dimension 2"),
    ("rfftn_axes", lambda m, a, c: m.rfftn(a, axes=(2, 0)), None),
    ("irfftn_axes_s", lambda m, a, c: m.irfftn(c, (3, 3), axes=(1, 2)), None),
    ("fft2_1d", lambda m, a, c: m.fft2(c[0]), None),
    ("irfft2_1d", lambda m, a, c: m.irfft2(c[0]), None),
    ("fftn_s_longer_than_ndim", lambda m, a, c: m.fftn(c, (2, 2, 2)), None),
    ("fftn_s_axes_lengths", lambda m, a, c: m.fftn(c, (3,), (0, 1)), "Shape and axes have different lengths."),
    ("rfftn_s_axes_lengths", lambda m, a, c: m.rfftn(a, (3, 4, 5), (0, 1)), "Shape and axes have different lengths."),
    ("irfft2_s_axes_lengths", lambda m, a, c: m.irfft2(c, (3, 4, 5)), "Shape and axes have different lengths."),
    ("rfft_complex_even", lambda m, a, c: m.rfft(c), NOT_SUPPORTED.format("rfft_n_even")),
    ("rfft_complex_odd", lambda m, a, c: m.rfft(c, 5), NOT_SUPPORTED.format("rfft_n_odd")),
    ("ihfft_complex", lambda m, a, c: m.ihfft(c), NOT_SUPPORTED.format("rfft_n_even")),
    ("rfftn_complex", lambda m, a, c: m.rfftn(c), NOT_SUPPORTED.format("rfft_n_even")),
    ("rfft2_complex", lambda m, a, c: m.rfft2(c, (3, 3)), NOT_SUPPORTED.format("rfft_n_odd")),
    ("rfft_complex_n0", lambda m, a, c: m.rfft(c, 0), "Invalid number of FFT data points (0) specified."),
    ("rfftn_no_axes", lambda m, a, c: m.rfftn(a, axes=()), None),
    ("fftfreq_float_n", lambda m, a, c: m.fftfreq(4.0), "n should be an integer"),
    ("rfftfreq_float_n", lambda m, a, c: m.rfftfreq(np.float32(4)), "n should be an integer"),
    ("fftfreq_n0", lambda m, a, c: m.fftfreq(0), "float division by zero"),
    ("fftfreq_d0", lambda m, a, c: m.fftfreq(8, 0), "float division by zero"),
    ("fftfreq_negative", lambda m, a, c: m.fftfreq(-3), "negative dimensions are not allowed"),
    ("fftshift_axis", lambda m, a, c: m.fftshift(a, axes=2), None),
    ("ifftshift_axes", lambda m, a, c: m.ifftshift(a, axes=(0, -3)), None),
]


@pytest.mark.parametrize("case", [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_errors(rng, case):
    call, message = case
    x = random_array(rng, (4, 6), np.float64)
    z = random_array(rng, (4, 6), np.complex128)
    g, gz = gp.asarray(x), gp.asarray(z)
    raises_like(lambda: call(gp.fft, g, gz), lambda: call(np.fft, x, z),
                match=None if message is None else re.escape(message))


def test_out_of_range_axes_are_axis_errors(rng):
    """gpupy raises NumPy's AxisError (an IndexError, which NumPy raises bare where no
    n or s was given) for every out-of-range axis."""
    g = gp.asarray(random_array(rng, (4, 6), np.complex64))
    for call in (lambda: gp.fft.fft(g, axis=2), lambda: gp.fft.fftn(g, axes=(0, 2)), lambda: gp.fft.fft2(g[0]),
                 lambda: gp.fft.rfft(g.real, axis=-3), lambda: gp.fft.irfftn(g, (3, 3), axes=(1, 2))):
        with pytest.raises(np.exceptions.AxisError):
            call()


@pytest.mark.parametrize("name", ONE_AXIS + ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"])
def test_host_input_is_a_type_error(rng, name):
    """As cupy.fft: the transforms take device arrays only (NumPy arrays, lists)."""
    x = random_array(rng, (4, 6), np.float64)
    with pytest.raises(TypeError, match="gpupy.ndarray"):
        getattr(gp.fft, name)(x)
    with pytest.raises(TypeError, match="gpupy.ndarray"):
        getattr(gp.fft, name)(x.tolist())


# ---------------------------------------------------------------------------------------
# fftfreq, rfftfreq, fftshift, ifftshift: exact.


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 10, 11, 1000, 4097, np.int16(7), np.int64(8)], ids=str)
def test_fftfreq_rfftfreq_bit_for_bit(rng, n):
    """NumPy's values bit for bit (k * (1.0 / (n * d)) in float64, signed zeros too), and
    its dtypes: float64, complex128 for a complex spacing."""
    for d in [1.0, 0.1, 3, -2.5, rng.uniform(0.01, 10.0), np.float32(0.1), np.float16(0.3), np.array(0.7)]:
        assert_equal_to_numpy(gp.fft.fftfreq(n, d), np.fft.fftfreq(n, d))
        assert_equal_to_numpy(gp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d))
    # A complex spacing: complex128, the same values; the signs of zero parts are left
    # out (they depend on the order of the terms of the complex product k * val).
    for d in [0.25j, 0.5 - 2j]:
        for f in ("fftfreq", "rfftfreq"):
            got, want = getattr(gp.fft, f)(n, d), getattr(np.fft, f)(n, d)
            assert got.dtype == want.dtype == np.complex128
            np.testing.assert_array_equal(gp.asnumpy(got), want)
    assert_equal_to_numpy(gp.fft.fftfreq(n), np.fft.fftfreq(n))
    assert_equal_to_numpy(gp.fft.rfftfreq(n), np.fft.rfftfreq(n))


def test_fftfreq_array_api_keywords():
    """The array API's fftfreq(n, /, *, d, dtype, device): dtype converts NumPy's float64
    values; device places them (None: the current device)."""
    dev = gp.cuda.Device()
    got = gp.fft.fftfreq(9, d=0.5, dtype=gp.float32, device=dev)
    assert got.device == dev
    assert_equal_to_numpy(got, np.fft.fftfreq(9, d=0.5).astype(np.float32))
    assert_equal_to_numpy(gp.fft.rfftfreq(9, d=0.5, dtype=np.float64, device=None), np.fft.rfftfreq(9, d=0.5))
    assert_equal_to_numpy(gp.fft.fftfreq(6, 2.0, dev), np.fft.fftfreq(6, 2.0))  # NumPy's positional device
    assert_equal_to_numpy(gp.fft.rfftfreq(-3), np.fft.rfftfreq(-3))  # empty, as NumPy's
    with pytest.raises(ValueError, match="GPU"):
        gp.fft.fftfreq(4, device="cpu")


@pytest.mark.parametrize("shape", [(1,), (10,), (7,), (3, 4), (5, 6), (2, 3, 5), (0, 3)], ids=str)
@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts(rng, name, shape):
    x = random_array(rng, shape, np.complex64)
    g = gp.asarray(x)
    axes_list = [None, 0, -1, np.int64(0), (0,), [-1]]
    if len(shape) > 1:
        axes_list += [(0, 1), (1, 0), (0, 0), (-1, 0, 1)]
    for axes in axes_list:
        assert_equal_to_numpy(getattr(gp.fft, name)(g, axes), getattr(np.fft, name)(x, axes))
        assert_equal_to_numpy(getattr(gp.fft, name)(g, axes=axes), getattr(np.fft, name)(x, axes=axes))
    # Host input is copied to the device, as CuPy's fftshift does.
    assert_equal_to_numpy(getattr(gp.fft, name)(x), getattr(np.fft, name)(x))


def test_shifts_invert_each_other(rng):
    x = random_array(rng, (7, 10), np.float64)
    g = gp.asarray(x)
    assert_equal_to_numpy(gp.fft.ifftshift(gp.fft.fftshift(g)), x)
    assert_equal_to_numpy(gp.fft.fftshift(gp.fft.ifftshift(g, axes=1), axes=1), x)
    # The shifted frequencies are increasing, as NumPy's.
    assert_equal_to_numpy(gp.fft.fftshift(gp.fft.fftfreq(9, 0.1)), np.fft.fftshift(np.fft.fftfreq(9, 0.1)))


# ---------------------------------------------------------------------------------------
# The plan cache (gpupy.fft.config, CuPy's names) and the plan hook.


def test_plan_cache(rng, capsys):
    config = gp.fft.config
    cache = config.get_plan_cache()
    assert cache is config.get_plan_cache()
    assert isinstance(cache, config.PlanCache)
    size, memsize = cache.get_size(), cache.get_memsize()
    try:
        cache.set_size(16)
        cache.set_memsize(-1)
        assert (cache.get_size(), cache.get_memsize()) == (16, -1)
        cache.clear()
        assert cache.get_curr_size() == 0 and cache.get_curr_memsize() == 0
        x = random_array(rng, (8, 64), np.complex64)
        g = gp.asarray(x)
        gp.fft.fft(g)
        plans = cache.get_curr_size()
        memory = cache.get_curr_memsize()
        assert plans >= 1 and memory >= 0
        assert len(list(cache)) == plans
        # The same length and dtype with other strides, batches and axes: the same plans.
        xw = wide(x)
        for got, want in [(gp.fft.fft(g[::-1]), np.fft.fft(xw[::-1])),
                          (gp.fft.fft(g[::3, ::-1]), np.fft.fft(xw[::3, ::-1])),
                          (gp.fft.fft(g.T, axis=0), np.fft.fft(xw.T, axis=0)),
                          (gp.fft.fft(g[:1]), np.fft.fft(xw[:1]))]:
            assert_fft_close(got, want, 64, dtype=np.complex64)
        assert (cache.get_curr_size(), cache.get_curr_memsize()) == (plans, memory)
        gp.fft.fft(gp.asarray(random_array(rng, (3, 100), np.complex128)))
        assert cache.get_curr_size() > plans
        cache.clear()
        assert cache.get_curr_size() == 0 and cache.get_curr_memsize() == 0
        # Size 0 (or memsize 0) disables the cache; transforms still compute.
        cache.set_size(0)
        assert_fft_close(gp.fft.fft(g), np.fft.fft(wide(x)), 64, dtype=np.complex64)
        assert cache.get_curr_size() == 0
        cache.set_size(16)
        cache.set_memsize(0)
        gp.fft.fft(g)
        assert cache.get_curr_size() == 0
        cache.set_memsize(-1)
        # A limit evicts down to it (least recently used first).
        cache.set_size(1)
        gp.fft.fft(g)
        gp.fft.fft(gp.asarray(random_array(rng, (2, 128), np.complex64)))
        assert cache.get_curr_size() <= 1
        with pytest.raises(ValueError, match="invalid input"):
            cache.set_size(-2)
        with pytest.raises(ValueError, match="invalid input"):
            cache.set_memsize(-5)
        # The module-level names CuPy has.
        config.set_plan_cache_size(5)
        assert config.get_plan_cache_size() == 5 == cache.get_size()
        config.set_plan_cache_max_memsize(1 << 30)
        assert config.get_plan_cache_max_memsize() == 1 << 30 == cache.get_memsize()
        gp.fft.rfft(g.real)
        config.clear_plan_cache()
        assert cache.get_curr_size() == 0
        gp.fft.rfft(g.real)
        cache.show_info()
        config.show_plan_cache_info()
        printed = capsys.readouterr().out
        assert f"plan cache (device {gp.cuda.Device().id})" in printed and "current / max size" in printed
        assert repr(cache).startswith("------------------- gpupy FFT plan cache")
    finally:
        cache.set_size(size)
        cache.set_memsize(memsize)


def test_config_switches_are_accepted(rng):
    """CuPy's switches can be set (CuPy code sets them); gpupy's transforms do not
    depend on them: one axis at a time, on the current device."""
    config = gp.fft.config
    previous = (config.enable_nd_planning, config.use_multi_gpus)
    x = random_array(rng, (4, 6), np.complex64)
    try:
        config.enable_nd_planning = False
        config.use_multi_gpus = True
        assert (config.enable_nd_planning, config.use_multi_gpus) == (False, True)
        assert_fft_close(gp.fft.fftn(gp.asarray(x)), np.fft.fftn(wide(x)), 24, dtype=np.complex64)
    finally:
        config.enable_nd_planning, config.use_multi_gpus = previous


class _Recorder:
    def __init__(self):
        self.seen = []

    def check_transform(self, value_type, dtype, in_shape, axes, out_size):
        self.seen.append((value_type, np.dtype(dtype), in_shape, axes, out_size))


class _Mismatch:
    def check_transform(self, value_type, dtype, in_shape, axes, out_size):
        raise ValueError("Target array size does not match the plan.")


def test_plan_hook(rng):
    """A current plan sees each transform once, as CuPy describes it (value type,
    precision, padded input shape, axes, C2R output size), and can refuse it; none is
    current outside ``using``."""
    assert _plan.current_plan() is None
    x = random_array(rng, (4, 6), np.float64)
    g = gp.asarray(x)
    spec = gp.fft.rfft(g)
    rec = _Recorder()
    with _plan.using(rec) as p:
        assert p is rec and _plan.current_plan() is rec
        got = gp.fft.rfftn(g, axes=(0, -1))
        gp.fft.irfft(spec, 7, axis=1)
        gp.fft.fftn(g.astype(np.float32), (3, 8), axes=(1, 0))
        with pytest.warns(DeprecationWarning, match="containing `None`"):
            gp.fft.irfftn(spec, (5, None), axes=(0, 1))
        gp.fft.ihfft(g[:0], 3)
    assert _plan.current_plan() is None
    c128, f64 = np.dtype(np.complex128), np.dtype(np.float64)
    assert rec.seen == [
        ("R2C", f64, (4, 6), (0, 1), None),
        ("C2R", c128, (4, 4), (1,), 7),
        ("C2C", np.dtype(np.complex64), (8, 3), (1, 0), None),
        ("C2R", c128, (5, 4), (0, 1), 6),
        ("R2C", f64, (0, 3), (1,), None),
    ]
    assert_fft_close(got, np.fft.rfftn(x), 24, dtype=np.complex128)
    with _plan.using(_Mismatch()):
        with pytest.raises(ValueError, match="does not match the plan"):
            gp.fft.fft(g)
        with pytest.raises(ValueError, match="does not match the plan"):
            gp.fft.irfft2(spec)
        with _plan.using(None):  # nesting; None is no plan
            gp.fft.fft(g)
    assert _plan.current_plan() is None


# ---------------------------------------------------------------------------------------
# The array API's fft extension.


def test_array_api_fft_extension(rng):
    assert hasattr(gp, "fft") and gp.fft is gp.fft
    info = gp.__array_namespace_info__()
    assert set(info.capabilities()) == {"boolean indexing", "data-dependent shapes", "max dimensions"}
    x = random_array(rng, (6, 8), np.complex64)
    g = gp.asarray(x)
    assert g.__array_namespace__().fft is gp.fft
    # The standard's keyword forms.
    assert_fft_close(gp.fft.fft(g, n=8, axis=0, norm="ortho"), np.fft.fft(wide(x), n=8, axis=0, norm="ortho"), 8,
                     dtype=np.complex64)
    assert_fft_close(gp.fft.ifftn(g, s=(4, 8), axes=(0, 1), norm="forward"),
                     np.fft.ifftn(wide(x), s=(4, 8), axes=(0, 1), norm="forward"), 32, dtype=np.complex64)
    assert_fft_close(gp.fft.hfft(g, n=10, axis=-1, norm="backward"), np.fft.hfft(wide(x), n=10), 10, dtype=np.float32)
    assert_equal_to_numpy(gp.fft.fftshift(g, axes=(0,)), np.fft.fftshift(x, axes=(0,)))
    for name in ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq",
                 "rfftfreq", "fftshift", "ifftshift"]:
        assert callable(getattr(gp.fft, name)), name
    assert set(gp.fft.__all__) >= {"fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
                                    "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq",
                                    "fftshift", "ifftshift", "config"}

