"""NumPy's dispatch protocols on gpupy arrays: ``__array_ufunc__`` (NEP 13),
``__array_function__`` (NEP 18) and ``like=`` (NEP 35).

Every call goes through NumPy's own function with gpupy arguments; the result must be
a gpupy array (never a silent host copy) equal to NumPy's on the host data.

Tolerances (float64 data uniform in [-1, 1), at most 24 elements per operand):
- data movement, sorting, selection, comparisons and integer results: exact;
- sums, means, moments and products of at most n = 24 terms of magnitude <= 1, and
  elementwise libdevice functions: |error| <= 2 * gamma_n * n with gamma_n = n u / (1 - n u)
  (u = 2**-53), i.e. ``SUM_TOL`` ~ 1.4e-13 absolute;
- small linear algebra on diagonally dominant matrices of order 4 (cond_2 < 5,
  ||A||_2 <= 8): ``cond * gamma_{3n} * ||A||``, doubled: ``LINALG_TOL`` ~ 1.1e-13
  relative to the result's norm;
- FFTs of 16 points: ``log2(n) * 5 u * ||x||_2`` doubled, ``FFT_TOL`` ~ 1.8e-14 of ||x||.
"""

import io
import warnings

import numpy as np
import pytest

import gpupy as gp
from helpers import random_array

pytestmark = pytest.mark.gpu

U = 2.0**-53


def _gamma(n):
    return n * U / (1 - n * U)


SUM_TOL = 2 * _gamma(24) * 24
LINALG_TOL = 2 * 5 * _gamma(12) * 8
FFT_TOL = 2 * 4 * 5 * U


def _host(x):
    """gpupy results on the host, recursively (tuples, lists, named tuples)."""
    if isinstance(x, gp.ndarray):
        return x.get()
    if isinstance(x, (list, tuple)):
        return [_host(y) for y in x]
    return x


def _assert_device(x):
    """Every array in a result is a gpupy array."""
    if isinstance(x, (list, tuple)):
        for y in x:
            _assert_device(y)
        return
    assert isinstance(x, gp.ndarray), f"expected a gpupy.ndarray, got {type(x).__name__}"


def _assert_same(got, want, tol):
    """``got`` (host values of a gpupy result) equals ``want`` exactly (tol None) or
    within ``tol`` of ``max(1, |want|)``."""
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w, tol)
        return
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if tol is None:
        np.testing.assert_array_equal(got, want)
    else:
        scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
        np.testing.assert_allclose(got, want, rtol=0, atol=tol * scale)


def _to_gpupy(x):
    if isinstance(x, np.ndarray):
        return gp.asarray(x)
    if isinstance(x, list):
        return [_to_gpupy(y) for y in x]
    if isinstance(x, tuple):
        return tuple(_to_gpupy(y) for y in x)
    return x


# ---------------------------------------------------------------------------------------
# The issue's examples


def test_ufunc_call(rng):
    h = random_array(rng, (5, 7))
    g = gp.asarray(h)
    r = np.sin(g)
    _assert_device(r)
    _assert_same(r.get(), np.sin(h), SUM_TOL)


def test_ufunc_out_in_place(rng):
    h = random_array(rng, (5, 7))
    g = gp.asarray(h)
    r = np.add(g, g, out=g)
    assert r is g
    _assert_same(g.get(), h + h, None)


def test_ufunc_out_tuple_and_numpy_out(rng):
    h = random_array(rng, (6,))
    g = gp.asarray(h)
    o = gp.empty_like(g)
    assert np.multiply(g, 2.0, out=(o,)) is o
    _assert_same(o.get(), h * 2.0, None)
    # A NumPy out array: gpupy does not write into host memory behind the caller's back.
    with pytest.raises(TypeError, match="multiply"):
        np.multiply(g, 2.0, out=np.empty(6))


@pytest.mark.parametrize("case", ["concatenate", "mean", "norm", "fft", "asarray_like"])
def test_issue_examples(rng, case):
    h = random_array(rng, (4, 6))
    g = gp.asarray(h)
    if case == "concatenate":
        got, want, tol = np.concatenate([g, g]), np.concatenate([h, h]), None
    elif case == "mean":
        got, want, tol = np.mean(g, axis=0), np.mean(h, axis=0), SUM_TOL
    elif case == "norm":
        got, want, tol = np.linalg.norm(g), np.linalg.norm(h), SUM_TOL
    elif case == "fft":
        h = random_array(rng, (16,))
        got, want = np.fft.fft(gp.asarray(h)), np.fft.fft(h)
        tol = FFT_TOL * np.linalg.norm(h)
    else:
        x = random_array(rng, (3, 2))
        got, want, tol = np.asarray(x, like=g), x, None
    _assert_device(got)
    _assert_same(got.get(), want, tol)


def test_mixing_with_numpy_copies_to_device(rng):
    h = random_array(rng, (4, 6))
    g = gp.asarray(random_array(rng, (4, 6)))
    for r, want in [
        (np.add(h, g), h + g.get()),
        (h + g, h + g.get()),
        (g * h, g.get() * h),
        (np.concatenate([h, g]), np.concatenate([h, g.get()])),
        (np.maximum(h, g), np.maximum(h, g.get())),
    ]:
        _assert_device(r)
        _assert_same(r.get(), want, None)


def test_ufunc_methods_dispatch(rng):
    h = random_array(rng, (5, 6))
    g = gp.asarray(h)
    r = np.add.reduce(g, axis=1)
    _assert_device(r)
    _assert_same(r.get(), np.add.reduce(h, axis=1), SUM_TOL)
    r = np.maximum.accumulate(g, axis=0)
    _assert_device(r)
    _assert_same(r.get(), np.maximum.accumulate(h, axis=0), None)
    r = np.multiply.outer(g[0], g[1])
    _assert_device(r)
    _assert_same(r.get(), np.multiply.outer(h[0], h[1]), None)
    r = np.add.reduceat(g, [0, 2, 5], axis=1)
    _assert_device(r)
    _assert_same(r.get(), np.add.reduceat(h, [0, 2, 5], axis=1), SUM_TOL)
    idx = np.array([0, 1, 1, 4])
    np.add.at(g, idx, 1.0)
    want = h.copy()
    np.add.at(want, idx, 1.0)
    _assert_same(g.get(), want, SUM_TOL)


def test_unknown_ufunc_returns_not_implemented(rng):
    g = gp.asarray(random_array(rng, (3,)))
    with pytest.raises(TypeError, match=r"isnat"):
        np.isnat(g)


def test_unknown_function_raises_naming_it(rng):
    g = gp.asarray(random_array(rng, (3,)))
    with pytest.raises(TypeError, match=r"numpy\.busday_count"):
        np.busday_count(g, g)
    with pytest.raises(TypeError, match=r"numpy\.strings\.zfill|zfill"):
        np.strings.zfill(g, 3)


def test_foreign_array_types_are_deferred_to(rng):
    class Other:
        def __array_function__(self, func, types, args, kwargs):
            return "other"

        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return "other"

    g = gp.asarray(random_array(rng, (3,)))
    assert np.concatenate([g, Other()]) == "other"
    assert np.add(g, Other()) == "other"


# ---------------------------------------------------------------------------------------
# like= (NEP 35)


def _creation_cases(rng):
    text = "1 2 3\n4 5 6\n"
    data = random_array(rng, (5,))
    return [
        ("asarray", (random_array(rng, (2, 3)),), {}),
        ("array", ([[1, 2], [3, 4]],), {"dtype": np.int32}),
        ("arange", (2, 11, 3), {}),
        ("ones", ((2, 3),), {"dtype": np.float32}),
        ("zeros", ((4,),), {}),
        ("full", ((2, 2), 7), {}),
        ("eye", (3,), {"k": 1}),
        ("identity", (4,), {}),
        ("fromfunction", (lambda i, j: i * 3 + j, (2, 3)), {}),
        ("frombuffer", (data.tobytes(),), {}),
        ("fromiter", (iter(range(5)), np.int64), {}),
        ("loadtxt", (io.StringIO(text),), {}),
        ("genfromtxt", (io.StringIO(text),), {}),
    ]


@pytest.mark.parametrize("index", range(13))
def test_like_creates_gpupy_arrays(rng, index):
    name, args, kwargs = _creation_cases(rng)[index]
    like = gp.asarray(random_array(rng, (1,)))
    args_np = tuple(io.StringIO(a.getvalue()) if isinstance(a, io.StringIO) else a for a in args)
    if name == "fromiter":
        args_np = (iter(range(5)), np.int64)
    got = getattr(np, name)(*args, like=like, **kwargs)
    want = getattr(np, name)(*args_np, **kwargs)
    _assert_device(got)
    _assert_same(got.get(), want, None)


def test_like_empty_shape_and_dtype(rng):
    like = gp.asarray(random_array(rng, (1,)))
    r = np.empty((3, 2), dtype=np.int16, like=like)
    _assert_device(r)
    assert r.shape == (3, 2) and r.dtype == np.int16


def test_gpupy_creation_accepts_like(rng):
    like = gp.asarray(random_array(rng, (1,)))
    for f, args in [(gp.asarray, ([1, 2],)), (gp.array, ([1, 2],)), (gp.zeros, (3,)), (gp.ones, (3,)),
                    (gp.empty, (3,)), (gp.full, (3, 1.5)), (gp.eye, (2,)), (gp.identity, (2,)),
                    (gp.arange, (4,))]:
        _assert_device(f(*args, like=like))
        _assert_device(f(*args, like=None))
    with pytest.raises(TypeError, match="like"):
        gp.zeros(3, like=1)


# ---------------------------------------------------------------------------------------
# The table: NumPy functions gpupy implements, through NumPy's own entry points.


def _table(rng):
    """(name, positional args, keyword args, tolerance) over host data; the gpupy call
    gets the same arguments with every NumPy array copied to the device."""
    a = random_array(rng, (4, 6))
    b = random_array(rng, (6, 3))
    v = random_array(rng, (6,))
    s = np.sort(random_array(rng, (9,)))
    i = rng.integers(0, 5, size=(12,))
    m = random_array(rng, (4, 4)) + 4 * np.eye(4)
    sym = m + m.T
    x16 = random_array(rng, (16,))
    fft_tol = FFT_TOL * float(np.linalg.norm(x16)) * 16
    return [
        ("reshape", (a, (3, 8)), {}, None),
        ("ravel", (a,), {}, None),
        ("transpose", (a,), {}, None),
        ("moveaxis", (a, 0, -1), {}, None),
        ("swapaxes", (a, 0, 1), {}, None),
        ("squeeze", (a[None],), {}, None),
        ("expand_dims", (a, 1), {}, None),
        ("broadcast_to", (v, (4, 6)), {}, None),
        ("atleast_2d", (v,), {}, None),
        ("concatenate", ([a, a],), {"axis": 1}, None),
        ("stack", ([a, a],), {"axis": -1}, None),
        ("vstack", ([a, a],), {}, None),
        ("hstack", ([a, a],), {}, None),
        ("split", (a, 2), {"axis": 1}, None),
        ("flip", (a,), {"axis": 0}, None),
        ("roll", (a, 2), {"axis": 1}, None),
        ("tile", (v, 2), {}, None),
        ("repeat", (a, 2), {"axis": 1}, None),
        ("pad", (a, 1), {}, None),
        ("where", (a > 0, a, 0.0), {}, None),
        ("take", (a, [0, 2, 5]), {"axis": 1}, None),
        ("nonzero", (a > 0,), {}, None),
        ("argwhere", (a > 0,), {}, None),
        ("tril", (a,), {}, None),
        ("triu", (a, 1), {}, None),
        ("diag", (v,), {}, None),
        ("sort", (a,), {"axis": 1}, None),
        ("argsort", (a,), {"axis": 0}, None),
        ("unique", (i,), {}, None),
        ("searchsorted", (s, v), {}, None),
        ("clip", (a, -0.5, 0.5), {}, None),
        ("copy", (a,), {}, None),
        ("zeros_like", (a,), {}, None),
        ("ones_like", (a,), {}, None),
        ("full_like", (a, 3.0), {}, None),
        ("count_nonzero", (a > 0,), {"axis": 1}, None),
        ("sum", (a,), {"axis": 1}, SUM_TOL),
        ("prod", (a,), {"axis": 0}, SUM_TOL),
        ("mean", (a,), {}, SUM_TOL),
        ("var", (a,), {"axis": 0}, SUM_TOL),
        ("std", (a,), {"axis": 1, "ddof": 1}, SUM_TOL),
        ("min", (a,), {"axis": 1}, None),
        ("max", (a,), {}, None),
        ("argmin", (a,), {"axis": 0}, None),
        ("argmax", (a,), {}, None),
        ("ptp", (a,), {"axis": 1}, None),
        ("average", (a,), {"axis": 0}, SUM_TOL),
        ("nansum", (a,), {}, SUM_TOL),
        ("nanmax", (a,), {"axis": 0}, None),
        ("cumsum", (a,), {"axis": 1}, SUM_TOL),
        ("cumprod", (v,), {}, SUM_TOL),
        ("diff", (a,), {"axis": 1}, None),
        ("bincount", (i,), {}, None),
        ("histogram", (v,), {"bins": 4}, SUM_TOL),
        ("median", (a,), {"axis": 1}, None),
        ("percentile", (v, 30.0), {}, SUM_TOL),
        ("isclose", (a, a + 1e-9), {}, None),
        ("allclose", (a, a), {}, None),
        ("array_equal", (a, a), {}, None),
        ("dot", (a, b), {}, SUM_TOL),
        ("matmul", (a, b), {}, SUM_TOL),
        ("tensordot", (a, b), {"axes": 1}, SUM_TOL),
        ("einsum", ("ij,jk->ik", a, b), {}, SUM_TOL),
        ("inner", (v, v), {}, SUM_TOL),
        ("outer", (v, v), {}, None),
        ("kron", (m[:2, :2], m[:2, :2]), {}, None),
        ("trace", (m,), {}, SUM_TOL),
        ("linalg.norm", (a,), {}, SUM_TOL),
        ("linalg.det", (m,), {}, LINALG_TOL * 4**4),
        ("linalg.inv", (m,), {}, LINALG_TOL),
        ("linalg.solve", (m, v[:4]), {}, LINALG_TOL),
        ("linalg.eigvalsh", (sym,), {}, LINALG_TOL * 2),
        ("linalg.svd", (m,), {"compute_uv": False}, LINALG_TOL),
        ("linalg.matrix_power", (m, 2), {}, SUM_TOL * 16),
        ("fft.fft", (x16,), {}, fft_tol),
        ("fft.ifft", (x16,), {}, fft_tol),
        ("fft.rfft", (x16,), {}, fft_tol),
        ("fft.fftshift", (x16,), {}, None),
    ]


_TABLE_NAMES = [row[0] for row in _table(np.random.default_rng(0))]


def _resolve(module, name):
    obj = module
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


@pytest.mark.parametrize("name", _TABLE_NAMES)
def test_numpy_function_table(rng, name):
    row = next(r for r in _table(rng) if r[0] == name)
    _, args, kwargs, tol = row
    np_func = _resolve(np, name)
    gp_args = tuple(_to_gpupy(x) for x in args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        want = np_func(*args, **kwargs)
        if _resolve(gp, name) is None:
            # gpupy lacks it: NumPy's entry point raises a TypeError naming it.
            with pytest.raises(TypeError, match=name.split(".")[-1]):
                np_func(*gp_args, **kwargs)
            return
        got = np_func(*gp_args, **kwargs)
    if isinstance(want, (bool, np.bool_)):
        assert bool(got) == bool(want)
        return
    _assert_device(got)
    _assert_same(_host(got), want if not isinstance(want, tuple) else list(want), tol)


def test_table_covers_the_examples():
    """The table goes through every namespace the protocol maps (numpy, linalg, fft)."""
    assert any(n.startswith("linalg.") for n in _TABLE_NAMES)
    assert any(n.startswith("fft.") for n in _TABLE_NAMES)
    assert len(_TABLE_NAMES) == len(set(_TABLE_NAMES))
