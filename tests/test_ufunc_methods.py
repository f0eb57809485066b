"""gpupy's ufunc methods (``reduce``, ``accumulate``, ``outer``, ``at``, ``reduceat``) and
the ``where=``, ``casting=``, ``order=``, ``subok=``, ``signature=`` keywords of a ufunc
call, against NumPy's on the same host data: shapes (empty, 0-d, odd sizes),
non-contiguous and negative-stride views, dtypes, axes, and NumPy's errors.

Integer and boolean results, minimum/maximum, and data movement are compared exactly
(integer arithmetic wraps the same way in any order). Float results: gpupy combines
the operands in another order than NumPy's loop (a tree, a log-step scan, or a sum
first for subtract), so each result is within n roundings of the exact value for n
combined operands, each step rounding once (plus at most 4 ulps of libdevice for
hypot/logaddexp/arctan2): ``rtol = atol = 2 * 5 * n * eps`` of the result dtype
(``_float_tol``), absolute against ``max(1, |result|)``.

arctan2 is folded left to right by both libraries (NumPy's order); the difference is
libdevice's atan2 (at most 2 ulp) against libm's (at most 1 ulp), at most 3 ulp per step.
A difference in the running value ``a`` carries into ``arctan2(a, x)`` with relative gain
``t / ((1 + t^2) atan t) <= 1`` (``t = a / x > 0``: the test data are positive), so n
steps differ by at most ``3 n`` ulp relative, within ``_float_tol``.

The reference is NumPy's ``reduce``/``reduceat``, except where the installed NumPy's
reduction of a ufunc is not the left fold of its own elementwise calls
(``_numpy_reduce_is_its_fold``): NumPy 2.5's float64 arctan2.reduce returns
``arctan2(x[0], x[-1])``. There the reference is that fold, of NumPy's elementwise
calls (``_LeftFold``), after NumPy's own call (its errors, result shape and dtype).
"""

import numpy as np
import pytest

import gpupy as gp
from helpers import ALL_DTYPES, SAMPLE_DTYPES, dtype_id, random_array, raises_like

pytestmark = pytest.mark.gpu

SHAPES = [(7,), (4, 5), (3, 0), (0,), (2, 3, 4)]
SHAPE_IDS = ["7", "4x5", "3x0", "0", "2x3x4"]


def _views(h, g):
    """Pairs (host view, device view) of one shape: contiguous, strided, reversed."""
    yield h, g
    if h.ndim >= 1 and h.shape[0] > 1:
        yield h[::-1], g[::-1]
    if h.ndim >= 2:
        yield h.T, g.T
        yield h[:, ::2], g[:, ::2]


def _float_tol(dtype, n):
    return 2 * 5 * max(n, 1) * float(np.finfo(dtype).eps)


def _compare(got, want, n):
    """gpupy result ``got`` against NumPy's ``want`` (n: operands combined per element)."""
    assert isinstance(got, gp.ndarray), type(got)
    h = got.get()
    want = np.asarray(want)
    assert h.shape == want.shape
    assert h.dtype == want.dtype, (h.dtype, want.dtype)
    if want.dtype.kind in "fc":
        tol = _float_tol(want.dtype, n)
        scale = max(1.0, float(np.nanmax(np.abs(want)))) if want.size and np.isfinite(want).any() else 1.0
        np.testing.assert_allclose(h, want, rtol=tol, atol=tol * scale, equal_nan=True)
    else:
        np.testing.assert_array_equal(h, want)


def _data(rng, shape, dtype, name):
    if name in ("gcd", "lcm"):
        return rng.integers(-60, 60, size=shape).astype(dtype)
    if name in ("divide", "floor_divide", "remainder", "power") and np.dtype(dtype).kind in "iu":
        return rng.integers(1, 4, size=shape).astype(dtype)  # no division by zero, no overflow
    x = random_array(rng, shape, dtype)
    if name in ("divide", "power", "logaddexp", "arctan2", "hypot") and np.dtype(dtype).kind in "fc":
        x = (np.abs(x) + 0.5).astype(dtype)  # away from zero: no overflow in quotients
    return x


REDUCIBLE = {
    "add": ALL_DTYPES,
    "multiply": ALL_DTYPES,
    "minimum": ALL_DTYPES,
    "maximum": ALL_DTYPES,
    "fmin": [np.float32, np.float64],
    "fmax": [np.float16, np.float64],
    "logical_and": SAMPLE_DTYPES,
    "logical_or": SAMPLE_DTYPES,
    "logical_xor": [np.bool_, np.int32, np.float64],
    "bitwise_and": [np.bool_, np.int8, np.uint16, np.int64],
    "bitwise_or": [np.bool_, np.uint8, np.int32],
    "bitwise_xor": [np.bool_, np.int16, np.uint64],
    "subtract": [np.int8, np.int64, np.uint32, np.float32, np.float64, np.complex128],
    "divide": [np.float32, np.float64, np.complex64],
    "gcd": [np.int32, np.int64],
    "lcm": [np.int32],
    "hypot": [np.float32, np.float64],
    "logaddexp": [np.float64],
    "arctan2": [np.float64],
}
CASES = [(name, dt) for name, dts in REDUCIBLE.items() for dt in dts if hasattr(gp, name)]
CASE_IDS = [f"{name}-{dtype_id(dt)}" for name, dt in CASES]
# Two dtypes per ufunc (its first and last), for the methods whose cost is per index set.
FEW = [(name, dt) for name, dts in REDUCIBLE.items() for dt in (dts[:1] if len(dts) == 1 else [dts[0], dts[-1]])
       if hasattr(gp, name)]
FEW_IDS = [f"{name}-{dtype_id(dt)}" for name, dt in FEW]


def _numpy_reduce_is_its_fold(npf, dtype):
    """Whether the installed NumPy's ``npf.reduce`` over ``dtype`` is the left fold of its
    own elementwise calls, ``npf(npf(x0, x1), x2) ...`` (it is not for NumPy 2.5's float64
    arctan2: its loop, given the reduction's aliased output, combines x[0] with each x[j]
    without chaining, so the result is ``arctan2(x[0], x[-1])``)."""
    if np.dtype(dtype).kind not in "fc":
        return True
    x = np.array([1.1, 0.7, 1.05, 0.99, 1.2, 0.57]).astype(dtype)
    with np.errstate(all="ignore"):
        fold = x[0]
        for v in x[1:]:
            fold = npf(fold, v)
        reduced = npf.reduce(x)
    return bool(np.allclose(reduced, fold, rtol=1e3 * np.finfo(dtype).eps, atol=0))


class _LeftFold:
    """NumPy's ``reduce`` and ``reduceat`` of ``npf`` as left folds of NumPy's elementwise
    ``npf`` calls, for a ufunc whose installed NumPy reduction is not. NumPy's own call
    runs first: its errors, and its result's shape and dtype."""

    def __init__(self, npf):
        self.npf = npf

    def _fold(self, x, start=None, mask=None):
        """Left fold over the last axis of ``x``, from ``start`` when given, skipping the
        elements where ``mask`` is False (NumPy requires ``initial`` with a mask here)."""
        acc = start
        for j in range(x.shape[-1]):
            if acc is None:
                acc = x[..., j].copy()
            else:
                new = self.npf(acc, x[..., j])
                acc = new if mask is None else np.where(mask[..., j], new, acc)
        return acc

    def reduce(self, h, axis=0, dtype=None, keepdims=False, initial=np._NoValue, where=True):
        want = self.npf.reduce(h, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)
        want = np.asarray(want)
        if want.size == 0:
            return want
        x = np.asarray(h).astype(want.dtype)
        mask = np.broadcast_to(where, x.shape)
        # The reduced axes moved to the end and merged, in C order (NumPy has accepted
        # several only for reorderable ufuncs).
        axes = list(range(x.ndim)) if axis is None else [int(a) % x.ndim for a in np.atleast_1d(axis)]
        keep = [d for d in range(x.ndim) if d not in axes]
        lead = tuple(x.shape[d] for d in keep) + (-1,)
        x, mask = x.transpose(keep + axes).reshape(lead), mask.transpose(keep + axes).reshape(lead)
        start = None if initial is np._NoValue else np.full(x.shape[:-1], initial, want.dtype)
        r = self._fold(x, start, None if where is True else mask)
        if r is None:
            return want
        return np.asarray(r, want.dtype).reshape(want.shape)

    def reduceat(self, h, indices, axis=0, dtype=None):
        want = self.npf.reduceat(h, indices, axis=axis, dtype=dtype)
        idx = np.asarray(indices).astype(np.intp).reshape(-1)
        x = np.moveaxis(np.asarray(h).astype(want.dtype), axis, -1)
        cols = []
        for i, s in enumerate(idx.tolist()):
            if i + 1 == idx.size:
                e = x.shape[-1]
            else:
                e = idx[i + 1] if s < idx[i + 1] else s + 1  # NumPy: x[s] alone where indices do not increase
            cols.append(self._fold(x[..., s:e]))
        if not cols:
            return want
        r = np.moveaxis(np.stack(cols, axis=-1), -1, axis)
        assert r.shape == want.shape, (r.shape, want.shape)
        return r.astype(want.dtype)


def _reference(npf, dtype):
    """What gpupy's reduce/reduceat of ``npf`` over ``dtype`` is compared with: NumPy's
    ufunc, or the left fold of its elementwise calls where NumPy's reduction is not it."""
    return npf if _numpy_reduce_is_its_fold(npf, dtype) else _LeftFold(npf)


def _axes(ndim, name):
    axes = [0, -1, None] if ndim else [None]
    if ndim >= 2 and name not in ("subtract", "divide", "arctan2"):
        axes.append((0, ndim - 1))
    return axes


def _outcome(f):
    try:
        return f(), None
    except Exception as e:  # noqa: BLE001 - NumPy's error is what gpupy must give
        return None, e


def _check(gp_call, np_call, n):
    with np.errstate(all="ignore"):
        want, err = _outcome(np_call)
    if err is not None:
        raises_like(gp_call, np_call)
        return
    _compare(gp_call(), want, n)


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("name,dtype", CASES, ids=CASE_IDS)
def test_reduce(rng, name, dtype, shape):
    h0 = _data(rng, shape, dtype, name)
    npf, gpf = _reference(getattr(np, name), dtype), getattr(gp, name)
    for h, g in _views(h0, gp.asarray(h0)):
        for axis in _axes(h.ndim, name):
            for keepdims in (False, True):
                n = h.size if axis is None else int(np.prod([h.shape[a] for a in np.atleast_1d(axis)]))
                _check(lambda: gpf.reduce(g, axis=axis, keepdims=keepdims),
                       lambda: npf.reduce(h, axis=axis, keepdims=keepdims), n)


@pytest.mark.parametrize("name,dtype", CASES, ids=CASE_IDS)
def test_reduce_initial_where_dtype_out(rng, name, dtype):
    h = _data(rng, (5, 6), dtype, name)
    g = gp.asarray(h)
    npf, gpf = _reference(getattr(np, name), dtype), getattr(gp, name)
    mask = rng.integers(0, 2, size=(5, 6)).astype(bool)
    initial = np.ones((), dtype)[()]
    _check(lambda: gpf.reduce(g, axis=1, initial=initial), lambda: npf.reduce(h, axis=1, initial=initial), 7)
    _check(lambda: gpf.reduce(g, axis=0, initial=initial, where=gp.asarray(mask)),
           lambda: npf.reduce(h, axis=0, initial=initial, where=mask), 6)
    _check(lambda: gpf.reduce(g, axis=None, where=mask[0], initial=initial),
           lambda: npf.reduce(h, axis=None, where=mask[0], initial=initial), 31)
    if np.dtype(dtype).kind in "iu":
        _check(lambda: gpf.reduce(g, axis=0, dtype=np.float64), lambda: npf.reduce(h, axis=0, dtype=np.float64), 6)
    with np.errstate(all="ignore"):
        want, err = _outcome(lambda: npf.reduce(h, axis=1))
    if err is None:
        out = gp.empty(want.shape, want.dtype)
        assert gpf.reduce(g, axis=1, out=out) is out
        _compare(out, want, 6)
        out2 = gp.empty(want.shape, want.dtype)
        assert gpf.reduce(g, axis=1, out=(out2,)) is out2


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("name,dtype", CASES, ids=CASE_IDS)
def test_accumulate(rng, name, dtype, shape):
    h0 = _data(rng, shape, dtype, name)
    npf, gpf = getattr(np, name), getattr(gp, name)
    for h, g in _views(h0, gp.asarray(h0)):
        for axis in ([0, -1] if h.ndim else [0]):
            n = h.shape[axis] if h.ndim else 1
            _check(lambda: gpf.accumulate(g, axis=axis), lambda: npf.accumulate(h, axis=axis), n)
    if h0.ndim == 2:
        _check(lambda: gpf.accumulate(gp.asarray(h0), axis=1, dtype=np.complex128),
               lambda: npf.accumulate(h0, axis=1, dtype=np.complex128), h0.shape[1])


@pytest.mark.parametrize("name,dtype", CASES, ids=CASE_IDS)
def test_outer(rng, name, dtype):
    a = _data(rng, (3,), dtype, name)
    b = _data(rng, (2, 4), dtype, name)
    npf, gpf = getattr(np, name), getattr(gp, name)
    _check(lambda: gpf.outer(gp.asarray(a), gp.asarray(b)), lambda: npf.outer(a, b), 2)
    _check(lambda: gpf.outer(gp.asarray(b)[:, ::-1], gp.asarray(a)), lambda: npf.outer(b[:, ::-1], a), 2)


REDUCEAT_INDICES = [[0], [0, 2, 1, 3], [0, 1, 2, 3, 4, 5, 6], [6, 0], [1, 1, 1], [0, 3, 3, 1], [0, 1, 4], [2, 5, 6]]


@pytest.mark.parametrize("name,dtype", FEW, ids=FEW_IDS)
@pytest.mark.parametrize("indices", REDUCEAT_INDICES, ids=[str(i) for i in REDUCEAT_INDICES])
def test_reduceat(rng, name, dtype, indices):
    h0 = _data(rng, (3, 7), dtype, name)
    npf, gpf = _reference(getattr(np, name), dtype), getattr(gp, name)
    g0 = gp.asarray(h0)
    _check(lambda: gpf.reduceat(g0, indices, axis=1), lambda: npf.reduceat(h0, indices, axis=1), 7)
    _check(lambda: gpf.reduceat(g0[::-1, ::-1], gp.asarray(np.array(indices)), axis=-1),
           lambda: npf.reduceat(h0[::-1, ::-1], np.array(indices), axis=-1), 7)
    _check(lambda: gpf.reduceat(g0.T, [i % 3 for i in indices], axis=1),
           lambda: npf.reduceat(h0.T, [i % 3 for i in indices], axis=1), 3)


@pytest.mark.parametrize("name,dtype", CASES + [("negative", np.float32), ("negative", np.int16),
                                               ("square", np.int64), ("power", np.float64)],
                         ids=CASE_IDS + ["negative-float32", "negative-int16", "square-int64", "power-float64"])
def test_at(rng, name, dtype):
    npf, gpf = getattr(np, name), getattr(gp, name)
    h = _data(rng, (9,), dtype, name)
    idx = rng.integers(0, 9, size=20)  # repeats: unbuffered semantics
    binary = npf.nin == 2
    for target, key in [((9,), idx), ((3, 3), (idx % 3, idx // 3)), ((3, 3), (slice(None), [0, 0, 2]))]:
        want = h.reshape(target).copy()
        got = gp.asarray(want)
        shape = want[key].shape
        b = _data(rng, shape, dtype, name)
        with np.errstate(all="ignore"):
            npf.at(want, key, b) if binary else npf.at(want, key)
        assert (gpf.at(got, key, gp.asarray(b)) if binary else gpf.at(got, key)) is None
        _compare(got, want, 20)


def test_at_int_float_truncates_each_time(rng):
    want = np.zeros(4, np.int8)
    got = gp.asarray(want)
    np.add.at(want, [0, 0, 0, 2], 0.75)
    gp.add.at(got, [0, 0, 0, 2], 0.75)
    _compare(got, want, 1)


def test_at_errors(rng):
    h = random_array(rng, (5,))
    raises_like(lambda: gp.add.at(gp.asarray(h), [0]), lambda: np.add.at(h.copy(), [0]), "second operand")
    raises_like(lambda: gp.negative.at(gp.asarray(h), [0], 1.0), lambda: np.negative.at(h.copy(), [0], 1.0),
                "unary")
    raises_like(lambda: gp.add.at(gp.asarray(h), [7], 1.0), lambda: np.add.at(h.copy(), [7], 1.0))
    hb = h > 0  # a unary ufunc with no loop for the dtype: NumPy's TypeError
    raises_like(lambda: gp.negative.at(gp.asarray(hb), [0, 1]), lambda: np.negative.at(hb.copy(), [0, 1]),
                "boolean negative")


def test_method_errors(rng):
    h = random_array(rng, (4, 3))
    g = gp.asarray(h)
    empty_h, empty_g = np.empty((0, 3)), gp.empty((0, 3))
    raises_like(lambda: gp.minimum.reduce(empty_g, axis=0), lambda: np.minimum.reduce(empty_h, axis=0),
                "zero-size array to reduction operation minimum which has no identity")
    _compare(gp.minimum.reduce(empty_g, axis=1), np.minimum.reduce(empty_h, axis=1), 1)
    raises_like(lambda: gp.sin.reduce(g), lambda: np.sin.reduce(h), "reduce only supported for binary functions")
    raises_like(lambda: gp.sin.accumulate(g), lambda: np.sin.accumulate(h), "accumulate only supported")
    raises_like(lambda: gp.sin.outer(g, g), lambda: np.sin.outer(h, h), "outer product only supported")
    raises_like(lambda: gp.sin.reduceat(g, [0]), lambda: np.sin.reduceat(h, [0]), "reduceat only supported")
    raises_like(lambda: gp.subtract.reduce(g, axis=(0, 1)), lambda: np.subtract.reduce(h, axis=(0, 1)),
                "not reorderable")
    raises_like(lambda: gp.minimum.reduce(g, where=gp.asarray(h > 0)), lambda: np.minimum.reduce(h, where=h > 0),
                "initial")
    raises_like(lambda: gp.add.reduce(g, axis=2), lambda: np.add.reduce(h, axis=2))
    raises_like(lambda: gp.add.reduceat(g, [0, 5]), lambda: np.add.reduceat(h, [0, 5]),
                r"index 5 out-of-bounds in add.reduceat \[0, 4\)")
    raises_like(lambda: gp.add.reduceat(g, [-1]), lambda: np.add.reduceat(h, [-1]), "out-of-bounds")
    raises_like(lambda: gp.add.accumulate(gp.asarray(np.float64(1.0))),
                lambda: np.add.accumulate(np.asarray(1.0)), "cannot accumulate on a scalar")
    _compare(gp.add.reduceat(g, []), np.add.reduceat(h, []), 1)


# ---------------------------------------------------------------------------------------
# where=, casting=, order=, subok=, signature=


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_where_with_out(rng, dtype):
    a, b = random_array(rng, (4, 5), dtype), random_array(rng, (4, 5), dtype)
    mask = rng.integers(0, 2, size=(5,)).astype(bool)
    out_h = random_array(rng, (4, 5), np.add(a, b).dtype)
    out_g = gp.asarray(out_h)
    with np.errstate(all="ignore"):
        np.add(a, b, out=out_h, where=mask)
    assert gp.add(gp.asarray(a), gp.asarray(b), out=out_g, where=gp.asarray(mask)) is out_g
    _compare(out_g, out_h, 1)


def test_where_without_out_keeps_masked_values_deterministic(rng):
    a = random_array(rng, (3, 4))
    mask = rng.integers(0, 2, size=(3, 4)).astype(bool)
    with pytest.warns(UserWarning, match="where"):
        r1 = gp.sqrt(gp.asarray(np.abs(a)), where=gp.asarray(mask))
    with pytest.warns(UserWarning, match="where"):
        r2 = gp.sqrt(gp.asarray(np.abs(a)), where=mask)
    np.testing.assert_array_equal(r1.get(), r2.get())
    np.testing.assert_allclose(r1.get()[mask], np.sqrt(np.abs(a))[mask], rtol=2 * np.finfo(np.float64).eps)


@pytest.mark.parametrize("kwargs", [
    {"casting": "no"}, {"casting": "equiv"}, {"casting": "safe"}, {"casting": "same_kind"}, {"casting": "unsafe"},
    {"casting": "safe", "dtype": np.float32}, {"casting": "unsafe", "dtype": np.int16},
    {"signature": "ff->f"}, {"signature": (None, None, np.float32)}, {"signature": "dd->d", "casting": "no"},
    {"subok": False}, {"subok": True}, {"casting": "bogus"}, {"bogus": 1},
], ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
def test_casting_and_signature(rng, kwargs):
    a = random_array(rng, (3, 4), np.float64)
    b = random_array(rng, (3, 4), np.float32)
    _check(lambda: gp.add(gp.asarray(a), gp.asarray(b), **kwargs), lambda: np.add(a, b, **kwargs), 1)


def test_output_casting_error(rng):
    a = random_array(rng, (5,), np.float64)
    out_h, out_g = np.zeros(5, np.int32), gp.zeros(5, np.int32)
    raises_like(lambda: gp.add(gp.asarray(a), 1.0, out=out_g, casting="same_kind"),
                lambda: np.add(a, 1.0, out=out_h, casting="same_kind"),
                r"Cannot cast ufunc 'add' output from dtype\('float64'\) to dtype\('int32'\)")
    raises_like(lambda: gp.add(gp.asarray(a), 1.0, casting="no", dtype=np.float32),
                lambda: np.add(a, 1.0, casting="no", dtype=np.float32), "Cannot cast ufunc 'add' input 0")
    assert gp.add(gp.asarray(a), 1.0, out=out_g, casting="unsafe") is out_g
    np.add(a, 1.0, out=out_h, casting="unsafe")
    _compare(out_g, out_h, 1)


@pytest.mark.parametrize("order", ["K", "A", "C", "F", "k", None])
@pytest.mark.parametrize("layout", ["C", "F", "T-view"])
def test_order(rng, order, layout):
    h = random_array(rng, (4, 6))
    if layout == "F":
        h = np.asfortranarray(h)
    g = gp.asarray(h) if layout != "F" else gp.asfortranarray(gp.asarray(h))
    if layout == "T-view":
        h, g = h.T, g.T
    want = np.add(h, 1.0, order=order)
    got = gp.add(g, 1.0, order=order)
    _compare(got, want, 1)
    assert got.flags.c_contiguous == want.flags.c_contiguous
    assert got.flags.f_contiguous == want.flags.f_contiguous
    raises_like(lambda: gp.add(g, 1.0, order="X"), lambda: np.add(h, 1.0, order="X"), "order must be one of")


def test_positional_out_and_duplicates(rng):
    a = random_array(rng, (5,))
    out = gp.empty(5)
    assert gp.multiply(gp.asarray(a), 2.0, out, where=True) is out
    _compare(out, a * 2.0, 1)
    raises_like(lambda: gp.multiply(gp.asarray(a), 2.0, out, out=out, casting="unsafe"),
                lambda: np.multiply(a, 2.0, np.empty(5), out=np.empty(5)), "both a positional and keyword")
