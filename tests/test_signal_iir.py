"""gpupyx.scipy.signal's recursive filters against scipy.signal (on the CPU, same
values): ``lfilter`` (direct form II transposed, with ``zi``; filters without feedback;
orders above the register kernels'), ``lfiltic``, ``lfilter_zi``, ``sosfilt`` (with
``zi``, more sections than one launch holds), ``sosfilt_zi``, ``filtfilt`` (every pad
type, Gustafsson's method) and ``sosfiltfilt``; Butterworth, Chebyshev and elliptic
designs of orders 1 to 10 and random FIR filters; every compute dtype, 1-d to 3-d, every
axis, views with negative strides, long single lines (the chunk scan) and many short
lines (a thread per line), empty inputs; result dtypes and SciPy's errors.

Tolerances. The reference is SciPy in float64 (complex128) on the same rounded inputs:
the data cast to the compute dtype, the coefficients rounded to it and divided by
``a[0]`` in it, as SciPy divides. With ``u`` the unit roundoff of the compute type
(counted twice for complex types: each part of a complex product-and-sum rounds twice):

- one section of order K: each of its K state updates per sample,
  ``z_i <- b_{i+1} x - a_{i+1} y + z_{i+1}``, rounds at most twice, an error of at most
  ``2 u (|b_{i+1}| |x| + |a_{i+1}| |y| + |z_{i+1}|) <= 4 u S``, where
  ``S = sum |b_k| X + sum |a_k| Y + Z`` (k >= 1; X, Y, Z the largest input, output and
  initial state) bounds every state. An error in a state reaches the output through the
  feedback, at most ``||g||_1`` times (``g`` the impulse response of ``1 / a(z)``), so
  ``|dy| <= u (4 K ||g||_1 S + 2 Y)``, the output's own rounding included. SciPy's
  float64 reference errs by the same with float64's ``u``; the bound is the sum;
- a filter without feedback, a sum of T taps (plus an initial state): at most T + 1
  roundings, ``|dy| <= 2 (T + 1) u (sum |b| X + Z)`` for both sides together;
- a cascade: each section's bound (from its own input and output), carried through
  the later sections by the l1 norms of their impulse responses;
- the chunk scan (lines of 2048 samples and more; ``kernels/src/iir/chunks.rs``): a
  chunk starts from a computed state, the end of a chain of at most ``22 + 2 q`` state
  additions and matrix-vector products by the powers ``M^k`` of the chunk matrix
  (``D + 1`` roundings each, D the kernel's states, q the carry's items per thread), each
  error carried onward by at most ``gamma = max_k ||M^k||`` and to the outputs by
  ``H = max_j sum_k |h_k[j]|`` (``h_k`` the output from unit state k with no input):
  ``|dy| <= u gamma H S' (22 + 2 q + (D + 1) sum ||M^k||)`` over the chain's matrices,
  ``S'`` the state bound with Y raised to ``||h||_1 X + H Z`` (a chunk's partial
  sums). The test replicates the host's choice of chunk length to get these; it adds
  this term whenever a line is long enough for the scan.

A design whose bound exceeds 1% of its output (float32 at high orders and low cutoffs,
where the direct form is that badly conditioned: SciPy's own float32 results are as
inexact) is not compared; each test checks that enough designs were. Integer results
do not arise (every filter computes in floating point).
"""

import functools
import math
import re
import warnings

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.signal as gsig
from helpers import dtype_id, random_array

sig = pytest.importorskip("scipy.signal")

pytestmark = pytest.mark.gpu

COMPUTE = [np.float32, np.float64, np.complex64, np.complex128]
MAX_GROWTH = 4.0  # kernels/src/iir/chunks.rs: MAX_GROWTH, MIN_CHUNKS, MAX_CHUNK, LEVELS
MIN_CHUNKS, MAX_CHUNK, LEVELS, BLOCK = 8, 1 << 16, 7, 128
CHUNKED_LEN = 2048  # host/src/ops/iir/mod.rs: the shortest line the chunk scan takes
# Designs (of the 90) each dtype must compare, at the least: the rest are too badly
# conditioned in it (see the module docstring).
MIN_COMPARED = {np.dtype(np.float64): 80, np.dtype(np.complex128): 80, np.dtype(np.float32): 45,
                np.dtype(np.complex64): 45}


# ---------------------------------------------------------------------------------------
# Designs and references

def designs(kinds=("butter", "cheby1", "ellip"), orders=range(1, 11), cutoffs=(0.1, 0.3, 0.6)):
    """SciPy's designs as (name, b, a)."""
    out = []
    for kind in kinds:
        for n in orders:
            for wn in cutoffs:
                b, a = {"butter": lambda: sig.butter(n, wn),
                        "cheby1": lambda: sig.cheby1(n, 1, wn),
                        "ellip": lambda: sig.ellip(n, 1, 40, wn)}[kind]()
                out.append((f"{kind}{n}@{wn}", b, a))
    return out


def sos_designs(orders=(1, 2, 4, 7, 12, 20), cutoffs=(0.15, 0.5)):
    out = []
    for n in orders:
        for wn in cutoffs:
            out.append((f"butter{n}@{wn}", sig.butter(n, wn, output="sos")))
            out.append((f"ellip{n}@{wn}", sig.ellip(n, 1, 40, wn, output="sos")))
    return out


def unit_roundoff(dtype):
    dt = np.dtype(dtype)
    u = np.finfo(dt).eps / 2  # finfo of a complex dtype is its real part's
    return 2 * u if dt.kind == "c" else u


def wide(dtype):
    return np.complex128 if np.dtype(dtype).kind == "c" else np.float64


def normalized(b, a, dtype):
    """SciPy's coefficients in the compute dtype (rounded, divided by a[0] in it, padded
    to one length) as complex128."""
    dt = np.dtype(dtype)
    b, a = np.atleast_1d(np.asarray(b, dt)), np.atleast_1d(np.asarray(a, dt))
    n = max(len(a), len(b))
    b, a = np.pad(b, (0, n - len(b))), np.pad(a, (0, n - len(a)))
    return (b / a[0]).astype(np.complex128), (a / a[0]).astype(np.complex128)


def stable_in(a, dtype):
    """Whether the denominator, rounded to `dtype`, keeps its poles inside the unit
    circle (else SciPy's own filter diverges there too)."""
    a = np.asarray(a, np.dtype(dtype)).astype(np.complex128)
    return len(a) < 2 or np.abs(np.roots(a)).max() < 1 - 1e-9


def real_if(v, dtype):
    return v if np.dtype(dtype).kind == "c" else v.real


def reference(b, a, x, axis, zi, dtype):
    """SciPy's float64 filter of the rounded input by the rounded, normalized
    coefficients: ``(y, zf)``."""
    bn, an = normalized(b, a, dtype)
    w = wide(dtype)
    bn, an = real_if(bn, dtype), real_if(an, dtype)
    xw = np.asarray(x).astype(dtype).astype(w)
    if zi is None:
        return sig.lfilter(bn, an, xw, axis=axis), None
    return sig.lfilter(bn, an, xw, axis=axis, zi=np.asarray(zi).astype(dtype).astype(w))


def response_length(a):
    """Samples until the impulse response of ``1 / a`` has died away (its last half
    holds less than 1e-9 of its l1 norm), at most 2**21."""
    return _response_length(tuple(np.asarray(a, np.complex128)))


@functools.lru_cache(maxsize=None)
def _response_length(a):
    a = np.array(a)
    n = 1 << 12
    while True:
        g = np.abs(sig.lfilter([1.0], a, np.eye(1, n)[0]))
        if g[n // 2:].sum() <= 1e-9 * g.sum() or n >= 1 << 21:
            return n
        n *= 2


def l1_impulse(b, a, n):
    return _l1_impulse(tuple(np.asarray(b, np.complex128)), tuple(np.asarray(a, np.complex128)), n)


@functools.lru_cache(maxsize=None)
def _l1_impulse(b, a, n):
    return float(np.abs(sig.lfilter(np.array(b), np.array(a), np.eye(1, n)[0])).sum())


def zero_input_peak(a, n):
    """H: the largest sum over unit initial states of the output with no input."""
    return _zero_input_peak(tuple(np.asarray(a, np.complex128)), n)


@functools.lru_cache(maxsize=None)
def _zero_input_peak(a, n):
    a = np.array(a)
    k = len(a) - 1
    total = np.zeros(n)
    for i in range(k):
        total += np.abs(sig.lfilter(np.zeros(1), a, np.zeros(n), zi=np.eye(1, k, i)[0])[0])
    return float(total.max()) if k else 0.0


def tier(states):
    """The states of the register kernel that runs a recursion of `states` states."""
    return next(d for d in (2, 4, 8, 16) if states <= d)


def one_step_matrix(a, d):
    """The zero-input step of direct form II transposed on `d` states (a padded)."""
    a = np.pad(np.asarray(a, np.complex128), (0, d + 1 - len(a)))
    m = np.zeros((d, d), np.clongdouble)
    for i in range(d):
        m[i, 0] = -a[i + 1]
        if i + 1 < d:
            m[i, i + 1] = 1
    return m


def norm_inf(m):
    return float(np.abs(m).sum(axis=1).max())


def growth(m, limit):
    """The host's ``power_growth``: max ||m^k|| for k up to `limit`, or None."""
    p, g = np.eye(len(m), dtype=m.dtype), 1.0
    for _ in range(min(limit, 256)):
        p = p @ m
        n = norm_inf(p)
        if not math.isfinite(n) or n > MAX_GROWTH:
            return None
        g = max(g, n)
        if n <= 0.5:
            return g
    return g if limit <= 256 else None


def chunk_factor(one_step, d, n):
    """``gamma (22 + 2q + (D + 1) sum ||M^k||)`` for the chunk length the host takes
    (the first of base, 4 base, ... whose powers stay bounded); 0 when none does."""
    base = max(32, 1 << math.ceil(math.log2(14 * d)))
    chunk = base
    while chunk <= MAX_CHUNK:
        chunks = -(-n // chunk)
        if chunks < MIN_CHUNKS:
            return 0.0
        m = np.linalg.matrix_power(one_step, chunk)
        g = growth(m, chunks)
        if g is not None:
            q = -(-(-(-chunks // BLOCK)) // BLOCK)
            powers = [np.linalg.matrix_power(m, 1 << k) for k in range(LEVELS)]
            block = np.linalg.matrix_power(m, BLOCK)
            carry = [np.linalg.matrix_power(block, q << k) for k in range(LEVELS)]
            chain = 2 * sum(map(norm_inf, powers)) + 2 * q * norm_inf(block) + sum(map(norm_inf, carry))
            return g * (22 + 2 * q + (d + 1) * chain)
        chunk *= 4
    return 0.0


def section_bound(bn, an, x_max, y_max, z_max, u, n):
    """``u (4 K ||g||_1 S + 2 Y)`` of one section (normalized complex128 coefficients)."""
    k = len(an) - 1
    if k == 0 or not np.any(an[1:]):
        return 2 * (k + 2) * u * (np.abs(bn).sum() * x_max + z_max)
    g = l1_impulse([1.0], an, n)
    s = np.abs(bn[1:]).sum() * x_max + np.abs(an[1:]).sum() * y_max + z_max
    return u * (4 * k * g * s + 2 * y_max)


def lfilter_bound(b, a, x, y, zi, dtype, line_len):
    """The bound of the module docstring for ``lfilter`` (gpupy's and SciPy's float64
    rounding; the chunk term when the lines are long enough)."""
    bn, an = normalized(b, a, dtype)
    n = response_length(an)
    x_max = float(np.abs(np.asarray(x).astype(dtype)).max(initial=0))
    y_max = float(np.abs(y).max(initial=0))
    z_max = float(np.abs(np.asarray(zi).astype(dtype)).max(initial=0)) if zi is not None else 0.0
    bound = sum(section_bound(bn, an, x_max, y_max, z_max, u, n)
                for u in (unit_roundoff(dtype), unit_roundoff(wide(dtype))))
    k = len(an) - 1
    if line_len >= CHUNKED_LEN and 0 < k <= 16 and np.any(an[1:]):
        h, l1 = zero_input_peak(an, n), l1_impulse(bn, an, n)
        s2 = (np.abs(bn[1:]).sum() * x_max + np.abs(an[1:]).sum() * max(y_max, l1 * x_max + h * z_max)
              + z_max)
        d = tier(k)
        bound += unit_roundoff(dtype) * h * s2 * chunk_factor(one_step_matrix(an, d), d, line_len)
    return bound


def assert_filtered(got, want, bound, dtype):
    assert isinstance(got, gp.ndarray)
    g = got.get()
    assert g.shape == want.shape, (g.shape, want.shape)
    assert g.dtype == np.dtype(dtype), (g.dtype, dtype)
    err = float(np.abs(g.astype(wide(dtype)) - want).max(initial=0))
    assert err <= bound, f"error {err:.3e} > bound {bound:.3e}"


def state_bound(b, a, bound, dtype):
    """The final states' bound: a state is a sum of the later taps' products, so it errs
    by the output's bound times ``1 + sum |a_k|`` (the feedback of the output's error,
    and the products' own rounding, already in ``bound``)."""
    _, an = normalized(b, a, dtype)
    return bound * (1 + float(np.abs(an[1:]).sum()))


def data(rng, shape, dtype):
    return random_array(rng, shape, dtype)


def comparable(bound, y):
    """Whether a design's bound says something about its output (see the docstring)."""
    return bound <= 1e-2 * max(float(np.abs(y).max(initial=0)), 1e-300)


# ---------------------------------------------------------------------------------------
# lfilter

SHAPES = [((257,), 0), ((5, 300), -1), ((300, 6), 0), ((3, 40, 5), 1), ((2, 3, 70), 2), ((4, 3, 2), 0)]


@pytest.mark.parametrize("shape,axis", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", COMPUTE, ids=dtype_id)
def test_lfilter_designs(rng, shape, axis, dtype):
    x = data(rng, shape, dtype)
    gx = gp.asarray(x)
    compared = 0
    for name, b, a in designs():
        if not stable_in(a, dtype):
            continue
        if np.dtype(dtype).kind == "c":
            # A complex filter: rotate the design's poles and zeros a little.
            turn = np.exp(0.3j * np.arange(len(a)))
            b, a = (b * turn).astype(dtype), (a * turn).astype(dtype)
        k = max(len(a), len(b)) - 1
        zshape = list(x.shape)
        zshape[axis] = k
        zi = data(rng, zshape, dtype)
        want, wzf = reference(b, a, x, axis, zi, dtype)
        bound = lfilter_bound(b, a, x, want, zi, dtype, x.shape[axis])
        if not comparable(bound, want):
            continue
        y, zf = gsig.lfilter(gp.asarray(b.astype(dtype)), a.astype(dtype), gx, axis=axis, zi=gp.asarray(zi))
        assert_filtered(y, want, bound, dtype)
        assert_filtered(zf, wzf, state_bound(b, a, bound, dtype), dtype)
        y_rest = gsig.lfilter(b.astype(dtype), a.astype(dtype), gx, axis=axis)
        assert_filtered(y_rest, reference(b, a, x, axis, None, dtype)[0], bound, dtype)
        compared += 1
    assert compared >= MIN_COMPARED[np.dtype(dtype)], compared


@pytest.mark.parametrize("dtype", COMPUTE, ids=dtype_id)
def test_lfilter_without_feedback(rng, dtype):
    """FIR filters (``a = [1]``, SciPy's convolution path; ``a = [c]``; and ``a`` with a
    zero tail, SciPy's recursive path), every tap count, both axes, with and without
    ``zi``."""
    for taps in (1, 2, 5, 33, 130):
        b = data(rng, taps, dtype)
        for a in ([1.0], [2.5], [1.0, 0.0, 0.0]):
            a = np.asarray(a, dtype)
            k = max(len(a), taps) - 1
            for shape, axis in (((3, 211), -1), ((150, 4), 0)):
                x = data(rng, shape, dtype)
                zshape = list(shape)
                zshape[axis] = k
                zi = data(rng, zshape, dtype)
                want, wzf = reference(b, a, x, axis, zi, dtype)
                bound = lfilter_bound(b, a, x, want, zi, dtype, shape[axis])
                y, zf = gsig.lfilter(b, a, gp.asarray(x), axis=axis, zi=gp.asarray(zi))
                assert_filtered(y, want, bound, dtype)
                assert_filtered(zf, wzf, bound, dtype)
                assert_filtered(gsig.lfilter(b, a, gp.asarray(x), axis=axis),
                                reference(b, a, x, axis, None, dtype)[0], bound, dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128], ids=dtype_id)
def test_lfilter_orders_above_the_register_kernels(rng, dtype):
    """Orders 17 to 40 with feedback: the states live in global memory. Poles of radius
    0.35 at random angles (conjugate pairs: a real filter), and for order 40 evenly
    spread (``a(z) = 1 + r^40 z^-40``)."""
    for order in (17, 24, 40):
        if order < 40:
            half = rng.uniform(0.1, np.pi, order // 2)
            poles = np.concatenate([0.35 * np.exp(1j * half), 0.35 * np.exp(-1j * half), [0.35] * (order % 2)])
        else:
            poles = 0.35 * np.exp(2j * np.pi * (np.arange(order) + 0.5) / order)
        a = np.poly(poles).real
        b = data(rng, order + 1, np.float64)
        x = data(rng, (7, 400), dtype)
        zi = data(rng, (7, order), dtype)
        want, wzf = reference(b, a, x, -1, zi, dtype)
        bound = lfilter_bound(b, a, x, want, zi, dtype, 400)
        assert comparable(bound, want)
        y, zf = gsig.lfilter(b, a, gp.asarray(x), zi=gp.asarray(zi))
        assert_filtered(y, want, bound, dtype)
        assert_filtered(zf, wzf, state_bound(b, a, bound, dtype), dtype)


@pytest.mark.parametrize("dtype", COMPUTE, ids=dtype_id)
def test_lfilter_long_lines(rng, dtype):
    """Lines long enough for the chunk scan: one line of 10**6 samples, a few lines of
    150 000 along the last and the first axis (the scan over a transposed copy), orders
    1 to 16 (every register kernel), with and without ``zi``."""
    cases = [((1_000_000,), 0, 4), ((3, 150_001), -1, 2), ((150_001, 3), 0, 8), ((2, 70_000), 1, 16),
             ((40_000,), 0, 1)]
    for shape, axis, order in cases:
        b, a = sig.butter(order, 0.3) if order <= 8 else sig.butter(order, 0.45)
        if np.dtype(dtype).kind == "c":
            b = b * (1 + 0.5j)
        b, a = b.astype(dtype), a.astype(dtype)
        if not stable_in(a, dtype):
            continue
        x = data(rng, shape, dtype)
        zshape = list(shape)
        zshape[axis] = order
        zi = data(rng, zshape, dtype)
        for z in (zi, None):
            want, wzf = reference(b, a, x, axis, z, dtype)
            bound = lfilter_bound(b, a, x, want, z, dtype, shape[axis])
            out = gsig.lfilter(b, a, gp.asarray(x), axis=axis, zi=None if z is None else gp.asarray(z))
            y, zf = out if z is not None else (out, None)
            assert_filtered(y, want, bound, dtype)
            if z is not None:
                assert_filtered(zf, wzf, state_bound(b, a, bound, dtype), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=dtype_id)
def test_lfilter_many_short_lines(rng, dtype):
    """Tens of thousands of lines: a thread per line, contiguous and strided."""
    b, a = (c.astype(dtype) for c in sig.cheby1(5, 1, 0.25))
    for shape, axis in (((20_000, 96), -1), ((96, 20_000), 0), ((50, 64, 300), 1)):
        x = data(rng, shape, dtype)
        want, _ = reference(b, a, x, axis, None, dtype)
        bound = lfilter_bound(b, a, x, want, None, dtype, shape[axis])
        assert_filtered(gsig.lfilter(b, a, gp.asarray(x), axis=axis), want, bound, dtype)


def test_lfilter_views_and_input_dtypes(rng):
    """Non-contiguous and reversed inputs and states; integer, boolean and float16 data
    promote as SciPy promotes; complex coefficients with real data."""
    b, a = sig.butter(3, 0.35)
    base = data(rng, (9, 40, 8), np.float64)
    for view in (lambda v: v[::2, ::-3, 1:], lambda v: v.transpose(2, 0, 1)[:, ::-1], lambda v: v[..., 5]):
        x = view(base)
        for axis in range(x.ndim):
            zshape = list(x.shape)
            zshape[axis] = 3
            zbase = data(rng, [n * 2 for n in zshape], np.float64)
            zi = zbase[tuple(slice(None, None, -2) for _ in zshape)]
            want, wzf = reference(b, a, x, axis, zi, np.float64)
            bound = lfilter_bound(b, a, x, want, zi, np.float64, x.shape[axis])
            y, zf = gsig.lfilter(b, a, view(gp.asarray(base)), axis=axis,
                                 zi=gp.asarray(zbase)[tuple(slice(None, None, -2) for _ in zshape)])
            assert_filtered(y, want, bound, np.float64)
            assert_filtered(zf, wzf, state_bound(b, a, bound, np.float64), np.float64)
    for dtype in (np.int16, np.uint8, np.bool_, np.float16, np.int64):
        x = data(rng, (6, 90), dtype)
        want_dtype = sig.lfilter(b, a, x[:, :3]).dtype
        got = gsig.lfilter(b, a, gp.asarray(x))
        assert got.dtype == want_dtype
        want, _ = reference(b, a, x.astype(want_dtype), -1, None, want_dtype)
        assert_filtered(got, want, lfilter_bound(b, a, x.astype(want_dtype), want, None, want_dtype, 90),
                        want_dtype)
    bc = b * np.exp(0.4j * np.arange(4))
    x = data(rng, (4, 120), np.float32)
    got = gsig.lfilter(bc, a, gp.asarray(x))
    assert got.dtype == sig.lfilter(bc, a, x[:, :2]).dtype == np.complex128
    want, _ = reference(bc, a, x, -1, None, np.complex128)
    assert_filtered(got, want, lfilter_bound(bc, a, x, want, None, np.complex128, 120), np.complex128)


@pytest.mark.parametrize("a", [[1.0], [1.0, -0.5]], ids=["fir", "iir"])
def test_lfilter_empty(rng, a):
    b = [0.5, 0.25]
    for shape, axis in (((0,), 0), ((3, 0), 1), ((0, 5), 1), ((4, 0, 2), 1), ((0, 3), 0)):
        x = gp.asarray(np.empty(shape))
        y = gsig.lfilter(b, a, x, axis=axis)
        assert y.shape == shape and y.dtype == np.float64
        zshape = list(shape)
        zshape[axis] = 1
        zi = data(rng, zshape, np.float64)
        y, zf = gsig.lfilter(b, a, x, axis=axis, zi=gp.asarray(zi))
        assert y.shape == shape
        # No sample or no line: nothing moves the states.
        np.testing.assert_array_equal(zf.get(), zi)


def same_error(gpupy_call, scipy_call):
    """Both raise, gpupy SciPy's exception type with SciPy's very message."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as want:
            scipy_call()
        with pytest.raises(type(want.value)) as got:
            gpupy_call()
    assert str(got.value) == str(want.value)


def test_lfilter_errors():
    x = np.ones((3, 4))
    cases = [
        (([1, 2], [1, 3], np.arange(3)), {}),  # integer result type
        (([1, 2], [1], np.arange(3)), {}),
        (([1, 2], [0, 0.3], x), {}),  # a[0] == 0
        (([1, 2], [1, 0.3], x), {"axis": 2}),
        (([1, 2], [1, 0.3], x), {"axis": -3}),
        (([1, 2], [1.0], x), {"axis": 2}),
        (([1, 2], [1, 0.3], x), {"zi": np.zeros((3, 2))}),
        (([1, 2], [1, 0.3], x), {"zi": np.zeros(1)}),
        (([1, 2], [1, 0.3], x), {"zi": np.zeros((1, 1, 1))}),
        (([1, 2], [1, 0.3], np.ones(4)), {"zi": np.zeros(2)}),
        (([1, 2], [1, 0.3], x), {"axis": 0, "zi": np.zeros((2, 1))}),
        (([1, 2], [1.0], x), {"zi": np.zeros((2, 1))}),
        (([1, 2], [1.0], x), {"zi": np.zeros(3)}),
        (([1, 2], [1.0], x), {"zi": np.zeros((3, 1)), "axis": 3}),
        (([1, 2], [1, 0.3], np.float64(3)), {}),
        (([1, 2], [1.0], np.float64(3)), {}),
        (([[1, 2]], [1, 2], x), {}),
        (([], [1, 2], x), {}),
        (([1.0], [], x), {}),
        ((np.float16([1, 2]), np.float16([1, 0.5]), x.astype(np.float16)), {}),
        ((np.float16([1, 2]), np.float16([1]), x.astype(np.float16)), {}),
    ]
    for args, kw in cases:
        dev = tuple(gp.asarray(v) if isinstance(v, np.ndarray) and v.ndim else v for v in args)
        dkw = {k: gp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        same_error(lambda: gsig.lfilter(*dev, **dkw), lambda: sig.lfilter(*args, **kw))


def test_lfilter_result_dtypes(rng):
    for bt in (np.int64, np.float32, np.float64, np.complex64):
        for at in (np.int64, np.float32, np.float64):
            for xt in (np.bool_, np.int8, np.float16, np.float32, np.float64, np.complex64):
                for alen in (1, 2):
                    b = data(rng, 3, bt)
                    a = np.array([1, 0.5][:alen]).astype(at)
                    x = data(rng, (2, 5), xt)
                    try:
                        want = sig.lfilter(b, a, x)
                    except NotImplementedError as e:
                        with pytest.raises(NotImplementedError, match=re.escape(str(e).strip())):
                            gsig.lfilter(b, a, gp.asarray(x))
                        continue
                    assert gsig.lfilter(b, a, gp.asarray(x)).dtype == want.dtype, (bt, at, xt, alen)
                    zi = np.zeros((2, 2), np.float32)
                    assert gsig.lfilter(b, a, gp.asarray(x), zi=zi)[1].dtype == sig.lfilter(b, a, x, zi=zi)[1].dtype


# ---------------------------------------------------------------------------------------
# Initial conditions

def test_lfiltic(rng):
    for b, a in (sig.butter(4, 0.2), ([1, 2, 3], [2, 0.5]), ([0.5], [1, -0.9, 0.2]), (np.float32([1, 2]),
                                                                                        np.float32([1, 0.3]))):
        for y, x in (([1.5, -2.0], None), (data(rng, 7, np.float64), data(rng, 2, np.float64)), ([1], [2, 3, 4, 5]),
                     ([3 + 1j], None)):
            want = sig.lfiltic(b, a, y, x)
            got = gsig.lfiltic(gp.asarray(np.asarray(b)), a, y, x)
            assert isinstance(got, gp.ndarray) and got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got.get(), want, rtol=8 * np.finfo(want.dtype).eps, atol=0)
    for args, msg in ((([[1, 2]], [1], [1]), "Filter coefficients `b` must be 1-D."),
                      (([1, 2], [[1]], [1]), "Filter coefficients `a` must be 1-D."),
                      (([1, 2], [], [1]), "There must be at least one `a` coefficient."),
                      (([1, 2], [0, 1], [1]), "First `a` filter coefficient must be non-zero.")):
        same_error(lambda: gsig.lfiltic(*args), lambda: sig.lfiltic(*args))
        with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
            gsig.lfiltic(*args)


def test_lfilter_zi():
    """SciPy 1.18's formula (``zi[k] = sum_{j>k} (b_j - y_inf a_j)``), checked by its
    meaning: from ``zi``, a step input gives a constant output (SciPy's filter), and
    against SciPy within the formula's rounding (``4 n u`` of the terms' magnitude;
    SciPy 1.17 solves a linear system instead, within its condition number)."""
    for b, a in (sig.butter(5, 0.25), sig.cheby1(3, 1, 0.6), ([1, 2, 3], [2, 0.5]), ([0.5, 0.1], [1, -0.9, 0.2, 0.05]),
                 (np.float32([1, 2]), np.float32([1, 0.3])), ([1 + 1j, 0.5], [1, 0.5j])):
        got = gsig.lfilter_zi(gp.asarray(np.asarray(b)), a)
        want = sig.lfilter_zi(b, a)
        assert isinstance(got, gp.ndarray) and got.dtype == want.dtype and got.shape == want.shape
        dt = got.dtype
        u = unit_roundoff(dt)
        zi = got.get().astype(wide(dt))
        bn, an = normalized(b, a, wide(dt))
        y_inf = bn.sum() / an.sum()
        terms = np.abs(bn).sum() + abs(y_inf) * np.abs(an).sum()
        cond = np.linalg.cond(np.eye(len(an) - 1) - one_step_matrix(an, len(an) - 1).astype(complex).T)
        np.testing.assert_allclose(zi, want, rtol=0, atol=4 * len(an) * u * terms * cond)
        step = sig.lfilter(real_if(bn, dt), real_if(an, dt), np.ones(50), zi=real_if(zi, dt))[0]
        np.testing.assert_allclose(step, np.full(50, y_inf), rtol=0, atol=16 * len(an) * u * terms * cond)
    # SciPy 1.18's checks (1.17 strips leading zeros of a and words them otherwise).
    with pytest.raises(ValueError, match=r"^First coefficient of parameter `a` must be non-zero!$"):
        gsig.lfilter_zi([1, 2], [0, 1])
    with pytest.raises(ValueError, match=r"^Filter not stable due to sum\(a\) == 0, i.e., having a pole at z = 1!$"):
        gsig.lfilter_zi([1, 2], [1, -1])
    with pytest.raises(ValueError, match=r"^Numerator `b` and Denominator `a` must be 1-D arrays, but "
                                         r"b.shape = \(1, 2\), a.shape = \(2,\)!$"):
        gsig.lfilter_zi([[1, 2]], [1, 0.5])


def test_sosfilt_zi():
    for sos in (sig.butter(6, 0.3, output="sos"), sig.ellip(5, 1, 40, 0.2, output="sos"),
                sig.butter(2, 0.3, output="sos").astype(np.float32), np.array([[1, 2, 1, 1, 0, 0]])):
        got = gsig.sosfilt_zi(gp.asarray(sos))
        want = sig.sosfilt_zi(sos)
        assert isinstance(got, gp.ndarray) and got.dtype == want.dtype and got.shape == want.shape
        u = unit_roundoff(got.dtype)
        step = sig.sosfilt(sos.astype(np.float64), np.ones(60), zi=got.get().astype(np.float64))[0]
        gain = np.prod(sos[:, :3].sum(axis=1) / sos[:, 3:].sum(axis=1))
        scale = np.abs(sos).sum() * max(1.0, np.abs(want).max())
        np.testing.assert_allclose(step, np.full(60, gain), rtol=0, atol=64 * sos.size * u * scale)
        np.testing.assert_allclose(got.get(), want, rtol=0, atol=64 * sos.size * u * scale)
    for bad in (np.ones((2, 5)), np.ones(6)):
        same_error(lambda: gsig.sosfilt_zi(bad), lambda: sig.sosfilt_zi(bad))


# ---------------------------------------------------------------------------------------
# sosfilt

def cascade_reference(sos, x, axis, zi, dtype):
    """SciPy's float64 cascade of the rounded sections, section by section: the output,
    the final states and each section's (input, output) extremes."""
    w = wide(dtype)
    sos_r = np.asarray(sos).astype(dtype).astype(w)
    v = np.asarray(x).astype(dtype).astype(w)
    zfs, levels = [], []
    for s in range(len(sos_r)):
        zs = None if zi is None else np.asarray(zi).astype(dtype).astype(w)[s]
        x_max = float(np.abs(v).max(initial=0))
        if zs is None:
            v = sig.lfilter(sos_r[s, :3], sos_r[s, 3:], v, axis=axis)
        else:
            v, zf = sig.lfilter(sos_r[s, :3], sos_r[s, 3:], v, axis=axis, zi=zs)
            zfs.append(zf)
        levels.append((x_max, float(np.abs(v).max(initial=0)),
                       0.0 if zs is None else float(np.abs(zs).max(initial=0))))
    return v, (np.stack(zfs) if zfs else None), levels


def sosfilt_bound(sos, levels, dtype, line_len):
    """Each section's bound carried through the later sections (module docstring), plus
    the chunk term of each launch of up to 8 sections for long lines."""
    sos_c = np.asarray(sos).astype(dtype).astype(np.complex128)
    n = max(response_length(s[3:]) for s in sos_c)
    gains = [l1_impulse(s[:3], s[3:], n) for s in sos_c]
    total = 0.0
    for i, (s, (x_max, y_max, z_max)) in enumerate(zip(sos_c, levels)):
        e = sum(section_bound(s[:3], s[3:], x_max, y_max, z_max, u, n)
                for u in (unit_roundoff(dtype), unit_roundoff(wide(dtype))))
        total += e * np.prod(gains[i + 1:])
    if line_len >= CHUNKED_LEN:
        for g0 in range(0, len(sos_c), 8):
            group = sos_c[g0:g0 + 8]
            d = tier(2 * len(group))
            one = group_one_step(group, d)
            peak = group_zero_input_peak(group, n)
            lv = levels[g0:g0 + len(group)]
            l1 = np.prod(gains[:g0 + len(group)])
            s2 = max(np.abs(s[1:3]).sum() * x + np.abs(s[4:]).sum() * max(y, l1 * lv[0][0] + peak * z) + z
                     for s, (x, y, z) in zip(group, lv))
            total += unit_roundoff(dtype) * peak * s2 * chunk_factor(one, d, line_len) * np.prod(gains[g0 + len(group):])
    return total


def sos_state_bound(sos, bound, dtype):
    """As ``state_bound``, for the section whose states err most (every section's
    output errs by at most the cascade's bound: the later sections' gains are at least
    the ... carried into ``bound`` already; a section's states by ``1 + |a1| + |a2|``
    times its output's)."""
    a = np.asarray(sos).astype(dtype).astype(np.complex128)[:, 4:]
    return bound * (1 + float(np.abs(a).sum(axis=1).max()))


def group_one_step(group, d):
    """The zero-input step of a cascade (states section-major), padded to `d`."""
    m = np.zeros((d, d), np.clongdouble)
    for e in range(2 * len(group)):
        z = np.zeros((len(group), 2), complex)
        z.flat[e] = 1
        _, zf = sig.sosfilt(group, np.zeros(1, complex), zi=z)
        m[: 2 * len(group), e] = zf.ravel()
    return m


def group_zero_input_peak(group, n):
    total = np.zeros(n)
    for e in range(2 * len(group)):
        z = np.zeros((len(group), 2), complex)
        z.flat[e] = 1
        total += np.abs(sig.sosfilt(group, np.zeros(n, complex), zi=z)[0])
    return float(total.max())


SOS_SHAPES = [((301,), 0), ((4, 250), -1), ((250, 3), 0), ((3, 50, 4), 1)]


@pytest.mark.parametrize("shape,axis", SOS_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", COMPUTE, ids=dtype_id)
def test_sosfilt(rng, shape, axis, dtype):
    x = data(rng, shape, dtype)
    compared = 0
    for name, sos in sos_designs():
        sos = sos.astype(dtype)
        if np.dtype(dtype).kind == "c":
            sos[:, :3] *= np.exp(0.2j * np.arange(1, len(sos) + 1))[:, None]
        if not all(stable_in(s[3:], dtype) for s in sos):
            continue
        zshape = [len(sos)] + list(shape)
        zshape[axis % len(shape) + 1] = 2
        zi = data(rng, zshape, dtype)
        want, wzf, levels = cascade_reference(sos, x, axis, zi, dtype)
        bound = sosfilt_bound(sos, levels, dtype, shape[axis])
        if not comparable(bound, want):
            continue
        y, zf = gsig.sosfilt(gp.asarray(sos), gp.asarray(x), axis=axis, zi=gp.asarray(zi))
        assert_filtered(y, want, bound, dtype)
        assert_filtered(zf, wzf, sos_state_bound(sos, bound, dtype), dtype)
        want_rest, _, rest = cascade_reference(sos, x, axis, None, dtype)
        assert_filtered(gsig.sosfilt(sos, gp.asarray(x), axis=axis), want_rest,
                        sosfilt_bound(sos, rest, dtype, shape[axis]), dtype)
        compared += 1
    assert compared >= 8, compared


@pytest.mark.parametrize("dtype", COMPUTE, ids=dtype_id)
def test_sosfilt_long_lines(rng, dtype):
    for shape, axis, sections in (((600_000,), 0, 2), ((2, 90_000), -1, 4), ((90_000, 2), 0, 6),
                                  ((50_000,), 0, 11), ((3, 4_000), 1, 8)):
        sos = sig.butter(2 * sections, 0.3, output="sos").astype(dtype)
        x = data(rng, shape, dtype)
        zshape = [sections] + list(shape)
        zshape[axis % len(shape) + 1] = 2
        zi = data(rng, zshape, dtype)
        want, wzf, levels = cascade_reference(sos, x, axis, zi, dtype)
        bound = sosfilt_bound(sos, levels, dtype, shape[axis])
        y, zf = gsig.sosfilt(sos, gp.asarray(x), axis=axis, zi=gp.asarray(zi))
        assert_filtered(y, want, bound, dtype)
        assert_filtered(zf, wzf, sos_state_bound(sos, bound, dtype), dtype)


def test_sosfilt_views_and_sections_without_feedback(rng):
    """Reversed and strided inputs; sections without feedback (a1 = a2 = 0)."""
    sos = sig.cheby1(6, 1, 0.3, output="sos")
    base = data(rng, (7, 3000), np.float64)
    x = base[::-2, ::3]
    want, _, levels = cascade_reference(sos, x, -1, None, np.float64)
    assert_filtered(gsig.sosfilt(sos, gp.asarray(base)[::-2, ::3]), want, sosfilt_bound(sos, levels, np.float64, 1000),
                    np.float64)
    fir = np.array([[1.0, 0.5, 0.25, 1.0, 0.0, 0.0], [0.5, -1.0, 0.3, 1.0, 0.0, 0.0]])
    x = data(rng, 5000, np.float64)
    want, _, levels = cascade_reference(fir, x, 0, None, np.float64)
    assert_filtered(gsig.sosfilt(fir, gp.asarray(x)), want, sosfilt_bound(fir, levels, np.float64, 5000), np.float64)


def test_nonfinite_inputs_spread_as_in_scipy(rng):
    """A NaN stays local in SciPy's convolution path (``a = [1]``) and reaches every
    later sample through the recursion (``0 * NaN`` even where ``a[1:]`` is zero);
    gpupy's engines (a thread per line, the chunk scan) do the same."""
    for n in (500, 50_000):
        x = data(rng, n, np.float64)
        x[n // 3] = np.nan
        cases = [(lambda v: gsig.lfilter([1.0, 0.5], [1.0], v), lambda v: sig.lfilter([1.0, 0.5], [1.0], v)),
                 (lambda v: gsig.lfilter([1.0, 0.5], [1.0, 0.0], v), lambda v: sig.lfilter([1.0, 0.5], [1.0, 0.0], v)),
                 (lambda v: gsig.lfilter(*sig.butter(3, 0.3), v), lambda v: sig.lfilter(*sig.butter(3, 0.3), v)),
                 (lambda v: gsig.sosfilt([[1.0, 0.5, 0.25, 1.0, 0.0, 0.0]], v),
                  lambda v: sig.sosfilt([[1.0, 0.5, 0.25, 1.0, 0.0, 0.0]], v))]
        for ours, theirs in cases:
            np.testing.assert_array_equal(np.isnan(ours(gp.asarray(x)).get()), np.isnan(theirs(x)))


def test_sosfilt_empty_and_errors():
    x = np.ones((3, 4))
    sos = sig.butter(2, 0.2, output="sos")
    cases = [
        ((sos, np.float64(1)), {}),
        ((np.ones((2, 5)), x), {}),
        ((np.ones((2, 2, 6)), x), {}),
        ((np.ones((1, 6)) * 2, x), {}),
        ((np.ones((1, 6), int), np.ones(4, int)), {}),
        ((sos, x), {"zi": np.zeros((1, 3, 3))}),
        ((sos, x), {"zi": np.zeros((2, 3, 2))}),
        ((sos, x), {"axis": 2}),
        ((sos, x), {"axis": -3}),
        ((np.ones((0, 6)), x), {}),
        ((sos, np.ones((3, 0))), {}),
        ((sos, np.ones((3, 0))), {"zi": np.zeros((1, 3, 2))}),
    ]
    for args, kw in cases:
        dev = tuple(gp.asarray(v) if isinstance(v, np.ndarray) and v.ndim else v for v in args)
        dkw = {k: gp.asarray(v) for k, v in kw.items()}
        same_error(lambda: gsig.sosfilt(*dev, **dkw), lambda: sig.sosfilt(*args, **kw))
    # No lines: the empty result, the states as given.
    zi = np.ones((1, 2, 0))
    y, zf = gsig.sosfilt(sos, gp.asarray(np.ones((0, 5))), axis=1, zi=gp.asarray(zi.transpose(0, 2, 1)))
    wy, wzf = sig.sosfilt(sos, np.ones((0, 5)), axis=1, zi=zi.transpose(0, 2, 1))
    assert y.shape == wy.shape and zf.shape == wzf.shape


# ---------------------------------------------------------------------------------------
# Forward-backward filters

def extended(x, n, padtype, axis):
    """SciPy's edge extensions (``scipy/signal/_arraytools.py``), written out."""
    if padtype is None or n < 1:
        return x
    take = lambda sl: x[tuple(sl if d == axis % x.ndim else slice(None) for d in range(x.ndim))]  # noqa: E731
    first, last = take(slice(0, 1)), take(slice(-1, None))
    before, after = take(slice(n, 0, -1)), take(slice(-2, -(n + 2), -1))
    if padtype == "odd":
        before, after = 2 * first - before, 2 * last - after
    elif padtype == "constant":
        before, after = np.repeat(first, n, axis=axis), np.repeat(last, n, axis=axis)
    return np.concatenate((before, x, after), axis=axis)


def two_pass_bound(run_bound, x, axis, zi, gain, peak, padtype, padlen, ntaps):
    """A forward pass then a backward one, each from ``zi`` times its first sample: the
    first pass's bound carried through the second (by the filter's gain ``||h||_1``, and
    through the second pass's scaled initial state by ``H`` times ``max |zi|``), plus
    the second's own. ``run_bound(x, zi)`` is one pass's ``(y, bound)`` in float64."""
    edge = 3 * ntaps if padlen is None else padlen
    ext = extended(x, edge if padtype is not None else 0, padtype, axis)
    first = np.take(ext, [0], axis=axis)
    y1, b1 = run_bound(ext, first)
    last = np.take(y1, [-1], axis=axis)
    y2, b2 = run_bound(np.flip(y1, axis=axis), last)
    return b1 * (gain + peak * float(np.abs(zi).max())) + b2


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128], ids=dtype_id)
def test_filtfilt(rng, dtype):
    for (b, a), shape, axis in ((sig.butter(3, 0.2), (500,), 0), (sig.cheby1(4, 1, 0.4), (3, 400), -1),
                                (sig.ellip(2, 1, 40, 0.3), (300, 4), 0), (sig.butter(2, 0.5), (2, 90, 3), 1),
                                (sig.butter(4, 0.3), (1, 20_000), 1)):
        x = data(rng, shape, dtype)
        # SciPy's filtfilt computes in the result type of the (float64) design, x and zi.
        out = np.result_type(b.dtype, x.dtype)
        bn, an = normalized(b, a, out)
        n = response_length(an)
        zi = sig.lfilter_zi(b, a)

        def run_bound(v, v0):
            z = np.moveaxis(np.multiply.outer(zi, np.moveaxis(v0, axis, 0)[0]), 0, axis % v.ndim)
            y, _ = reference(b, a, v, axis, z, out)
            return y, lfilter_bound(b, a, v, y, z, out, v.shape[axis])

        for kw in ({}, {"padtype": "even"}, {"padtype": "constant"}, {"padtype": None}, {"padlen": 7},
                   {"padtype": "odd", "padlen": 0}):
            want = sig.filtfilt(b, a, x, axis=axis, **kw)
            got = gsig.filtfilt(b, a, gp.asarray(x), axis=axis, **kw)
            assert got.dtype == want.dtype == out
            bound = two_pass_bound(run_bound, x.astype(wide(out)), axis, zi, l1_impulse(bn, an, n),
                                   zero_input_peak(an, n), kw.get("padtype", "odd"), kw.get("padlen"),
                                   max(len(a), len(b)))
            assert_filtered(got, want.astype(wide(out)), bound, out)


def test_filtfilt_gust(rng):
    """Gustafsson's initial conditions: the four passes from rest, then a least-squares
    correction ``y = y_fb + W c`` with ``M c = delta``. The passes' error e (their
    bound) reaches ``delta`` twice and ``y`` once: ``|dy| <= e (1 + 2 ||W||_2
    ||M^+||_2)`` (``W`` and ``M`` built from the filter's responses, as SciPy builds
    them; their own rounding is float64's, far below)."""
    b, a = sig.butter(3, 0.25)
    x = data(rng, (3, 120), np.float64)
    bn, an = normalized(b, a, np.float64)
    n = response_length(an)
    order = 3
    for irlen in (None, 40):
        m = 120 if irlen is None else irlen
        obs = np.zeros((m, order))
        obs[:, 0] = sig.lfilter(b, a, np.zeros(m), zi=np.eye(1, order)[0])[0]
        for k in range(1, order):
            obs[k:, k] = obs[:-k, 0]
        s_ = sig.lfilter(b, a, obs[::-1], axis=0)
        if m == 120:
            big_m, w = np.hstack((s_[::-1] - obs, obs[::-1] - s_)), np.hstack((s_[::-1], obs[::-1]))
        else:
            big_m, w = np.zeros((2 * m, 2 * order)), np.zeros((2 * m, 2 * order))
            big_m[:m, :order], big_m[m:, order:] = s_[::-1] - obs, obs[::-1] - s_
            w[:m, :order], w[m:, order:] = s_[::-1], obs[::-1]
        amplify = 1 + 2 * np.linalg.norm(w, 2) * np.linalg.norm(np.linalg.pinv(big_m), 2)
        y1 = reference(b, a, x, -1, None, np.float64)[0]
        e = 2 * lfilter_bound(b, a, x, y1, None, np.float64, 120) * (1 + l1_impulse(bn, an, n))
        want = sig.filtfilt(b, a, x, method="gust", irlen=irlen)
        got = gsig.filtfilt(b, a, gp.asarray(x), method="gust", irlen=irlen)
        assert_filtered(got, want, 2 * e * amplify, np.float64)


def test_filtfilt_errors():
    b, a = sig.butter(2, 0.3)
    x = np.ones((3, 20))
    for kw in ({"method": "foo"}, {"padtype": "foo"}, {"padlen": 20}, {"axis": 2}):
        same_error(lambda: gsig.filtfilt(b, a, gp.asarray(x), **kw), lambda: sig.filtfilt(b, a, x, **kw))
    same_error(lambda: gsig.filtfilt(b, a, gp.asarray(np.ones((3, 7)))), lambda: sig.filtfilt(b, a, np.ones((3, 7))))
    # SciPy 1.18: a[0] == 0 fails in lfilter_zi first.
    with pytest.raises(ValueError, match=r"^First coefficient of parameter `a` must be non-zero!$"):
        gsig.filtfilt([1, 2], [0, 1], gp.asarray(np.ones(30)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
def test_sosfiltfilt(rng, dtype):
    for sos, shape, axis in ((sig.butter(4, 0.2, output="sos"), (400,), 0),
                             (sig.ellip(5, 1, 40, 0.35, output="sos"), (3, 300), -1),
                             (sig.butter(3, 0.4, output="sos"), (200, 2), 0),
                             (sig.butter(6, 0.25, output="sos"), (30_000,), 0)):
        x = data(rng, shape, dtype)
        out = np.result_type(sos.dtype, x.dtype)
        zi = sig.sosfilt_zi(sos)
        sos_c = sos.astype(np.complex128)
        n = max(response_length(s_[3:]) for s_ in sos_c)
        gain = float(np.prod([l1_impulse(s_[:3], s_[3:], n) for s_ in sos_c]))
        peak = group_zero_input_peak(sos_c, n)

        def run_bound(v, v0):
            z = np.moveaxis(np.multiply.outer(zi, np.moveaxis(v0, axis, 0)[0]), 1, axis % v.ndim + 1)
            y, _, levels = cascade_reference(sos, v, axis, z, out)
            return y, sosfilt_bound(sos, levels, out, v.shape[axis])

        for kw in ({}, {"padtype": "even"}, {"padtype": None}, {"padlen": 11}):
            want = sig.sosfiltfilt(sos, x, axis=axis, **kw)
            got = gsig.sosfiltfilt(gp.asarray(sos), gp.asarray(x), axis=axis, **kw)
            assert got.dtype == want.dtype == out
            ntaps = 2 * len(sos) + 1 - min((sos[:, 2] == 0).sum(), (sos[:, 5] == 0).sum())
            bound = two_pass_bound(run_bound, x.astype(np.float64), axis, zi, gain, peak, kw.get("padtype", "odd"),
                                   kw.get("padlen"), ntaps)
            assert_filtered(got, want, bound, out)
    x = np.ones((3, 20))
    for kw in ({"padtype": "foo"}, {"padlen": 20}):
        same_error(lambda: gsig.sosfiltfilt(sig.butter(2, 0.3, output="sos"), gp.asarray(x), **kw),
                   lambda: sig.sosfiltfilt(sig.butter(2, 0.3, output="sos"), x, **kw))
