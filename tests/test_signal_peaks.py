"""gpupyx.scipy.signal's peak finding against scipy.signal (on the CPU): ``find_peaks``
with every condition (``height``, ``threshold``, ``distance``, ``prominence``,
``width``, ``wlen``, ``rel_height``, ``plateau_size``; scalar, interval and per-sample
array borders), ``peak_prominences``, ``peak_widths`` (with and without
``prominence_data``, ``wlen``), ``argrelmin``, ``argrelmax``, ``argrelextrema`` (orders,
modes, axes), on random signals, signals with plateaus, NaN and infinities, reversed
views, every input dtype (converted to float64, as SciPy does), empty and short
signals; SciPy's errors and ``PeakPropertyWarning`` (a RuntimeWarning).

Indices and properties must be identical: gpupy follows SciPy's comparisons and
float64 arithmetic operation for operation (see ``_peak_search.py``).
"""

import re
import warnings

import numpy as np
import pytest

import gpupy as gp
import gpupyx.scipy.signal as gsig
from helpers import dtype_id

sig = pytest.importorskip("scipy.signal")

pytestmark = pytest.mark.gpu


def same(got, want):
    """Identical results: arrays (dtype, shape, values, NaN positions), tuples, dicts."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    if isinstance(want, dict):
        assert set(got) == set(want), (sorted(got), sorted(want))
        for key in want:
            same(got[key], want[key])
        return
    assert isinstance(got, gp.ndarray)
    g = got.get()
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype, g.shape, want.shape)
    np.testing.assert_array_equal(g, want)


def outcome(call):
    """(result or exception, [(warning category is a RuntimeWarning, message)])."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except Exception as e:  # noqa: BLE001 - compared with SciPy's
            result = e
    messages = sorted(str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)
                      and "some peaks have" in str(w.message))
    return result, messages


def same_as_scipy(call, scipy_call):
    got, got_warnings = outcome(call)
    want, want_warnings = outcome(scipy_call)
    assert got_warnings == want_warnings
    if isinstance(want, Exception):
        assert type(got) is type(want) and str(got) == str(want), (got, want)
        return
    if isinstance(got, Exception):
        raise got
    same(got, want)


def signals(rng):
    """Random signals of several kinds and lengths (float64)."""
    out = []
    for n in [0, 1, 2, 3, 5, 50, 1000, 4097]:
        out.append(rng.standard_normal(n))
        out.append(np.round(rng.standard_normal(n) * 2))  # plateaus
        out.append(rng.integers(0, 4, n).astype(float))  # many plateaus and equal peaks
    x = np.round(rng.standard_normal(300), 1)
    x[[5, 50, 51, 120]] = np.nan
    out.append(x)
    x = rng.standard_normal(300)
    x[[7, 100]] = np.inf
    x[8] = -np.inf
    out.append(x)
    out.append(np.sin(np.linspace(0, 20, 500)) + 0.1 * rng.standard_normal(500))
    return out


CONDITIONS = [
    dict(),
    dict(height=0.5),
    dict(height=(None, 1.0)),
    dict(threshold=0.1),
    dict(threshold=(0.01, 1)),
    dict(distance=3),
    dict(distance=20.5),
    dict(prominence=0.3),
    dict(prominence=(0.1, 2), wlen=15),
    dict(width=2),
    dict(width=(1, 10), rel_height=0.8),
    dict(plateau_size=2),
    dict(plateau_size=(1, 3)),
    dict(height=0, threshold=0, distance=5, prominence=0.1, width=1, wlen=31.5, rel_height=0.3, plateau_size=1),
    dict(prominence=0, wlen=2),
    dict(width=0, rel_height=0),
]


@pytest.mark.parametrize("case", range(len(CONDITIONS)))
def test_find_peaks(rng, case):
    kw = CONDITIONS[case]
    for x in signals(rng):
        same_as_scipy(lambda: gsig.find_peaks(gp.asarray(x), **kw), lambda: sig.find_peaks(x, **kw))


def test_find_peaks_array_borders(rng):
    """Per-sample borders (arrays the size of x, read at the peaks), host or device."""
    x = np.round(rng.standard_normal(500), 1)
    low, high = rng.uniform(-1, 0.5, 500), rng.uniform(0.5, 3, 500)
    for name in ["height", "threshold", "prominence", "width", "plateau_size"]:
        for border in [(low, high), (low, None), (None, high), low]:
            kw = {name: border}
            gkw = {name: tuple(gp.asarray(b) if isinstance(b, np.ndarray) else b for b in border)
                   if isinstance(border, tuple) else gp.asarray(border)}
            same_as_scipy(lambda: gsig.find_peaks(gp.asarray(x), **gkw), lambda: sig.find_peaks(x, **kw))
            same_as_scipy(lambda: gsig.find_peaks(gp.asarray(x), **kw), lambda: sig.find_peaks(x, **kw))
    same_as_scipy(lambda: gsig.find_peaks(gp.asarray(x), height=np.ones(3)), lambda: sig.find_peaks(x, height=np.ones(3)))
    same_as_scipy(lambda: gsig.find_peaks(gp.asarray(x), height=(0, np.ones(3))),
                  lambda: sig.find_peaks(x, height=(0, np.ones(3))))


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.uint8, np.bool_, np.float16], ids=dtype_id)
def test_find_peaks_dtypes_and_views(rng, dtype):
    x = (rng.standard_normal(700) * 20).astype(dtype) if dtype != np.bool_ else rng.integers(0, 2, 700).astype(bool)
    for view in (lambda a: a, lambda a: a[::-1], lambda a: a[1::3]):
        kw = dict(prominence=1, width=(1, None), distance=2)
        same_as_scipy(lambda: gsig.find_peaks(view(gp.asarray(x)), **kw), lambda: sig.find_peaks(view(x), **kw))


def test_peak_prominences_and_widths(rng):
    for x in signals(rng):
        p, _ = sig.find_peaks(x)
        for wlen in [None, 2, 5, 40.5]:
            same_as_scipy(lambda: gsig.peak_prominences(gp.asarray(x), gp.asarray(p), wlen=wlen),
                          lambda: sig.peak_prominences(x, p, wlen=wlen))
            for rel_height in [0, 0.5, 1, 2]:
                same_as_scipy(lambda: gsig.peak_widths(gp.asarray(x), p, rel_height=rel_height, wlen=wlen),
                              lambda: sig.peak_widths(x, p, rel_height=rel_height, wlen=wlen))
        if x.size > 3:
            # Arbitrary indices (not maxima, repeated, NaN positions), and given prominence data.
            q = rng.integers(0, x.size, 20)
            same_as_scipy(lambda: gsig.peak_prominences(gp.asarray(x), q), lambda: sig.peak_prominences(x, q))
            same_as_scipy(lambda: gsig.peak_widths(gp.asarray(x), q), lambda: sig.peak_widths(x, q))
            data = sig.peak_prominences(x, p)
            same_as_scipy(lambda: gsig.peak_widths(gp.asarray(x), gp.asarray(p), 0.7,
                                                   tuple(gp.asarray(d) for d in data)),
                          lambda: sig.peak_widths(x, p, 0.7, data))


def test_peak_errors(rng):
    x = rng.standard_normal(50)
    p = np.array([3, 10, 20])
    cases = [
        (lambda m: m.find_peaks(x.reshape(5, 10))),
        (lambda m: m.find_peaks(x, distance=0.5)),
        (lambda m: m.find_peaks(x, prominence=1, wlen=1)),
        (lambda m: m.find_peaks(x, width=1, rel_height=-1)),
        (lambda m: m.peak_prominences(x, [1, 60, -1])),
        (lambda m: m.peak_prominences(x, [1.0, 2.0])),
        (lambda m: m.peak_prominences(x, [[1, 2]])),
        (lambda m: m.peak_prominences(x, p, wlen=0)),
        (lambda m: m.peak_widths(x, p, prominence_data=(np.ones(3), p - 1, p + 1))),
        (lambda m: m.peak_widths(x, p, prominence_data=(np.ones(3), p + 1, p + 2))),
        (lambda m: m.peak_widths(x, p, prominence_data=(np.ones(2), p - 1, p + 1))),
        (lambda m: m.peak_widths(x, p, rel_height=-0.1)),
    ]
    for case in cases:
        same_as_scipy(lambda: case(gsig), lambda: case(sig))
    for empty in ([], np.zeros(0, np.float64)):
        same_as_scipy(lambda: gsig.peak_prominences(gp.asarray(x), empty), lambda: sig.peak_prominences(x, empty))
        same_as_scipy(lambda: gsig.peak_widths(gp.asarray(x), empty), lambda: sig.peak_widths(x, empty))
    with pytest.warns(RuntimeWarning, match=re.escape("some peaks have a prominence of 0")):
        gsig.peak_prominences(gp.asarray(x), [0])


@pytest.mark.parametrize("mode", ["clip", "wrap"])
@pytest.mark.parametrize("order", [1, 2, 5])
def test_argrel(rng, mode, order):
    for x in [rng.standard_normal(100), rng.standard_normal((5, 40)), np.round(rng.standard_normal((3, 4, 30))),
              rng.integers(0, 3, (7, 9)).astype(np.int16), np.zeros(0)]:
        for axis in range(x.ndim):
            for f, gf in [(sig.argrelmin, gsig.argrelmin), (sig.argrelmax, gsig.argrelmax)]:
                same_as_scipy(lambda: gf(gp.asarray(x), axis=axis, order=order, mode=mode),
                              lambda: f(x, axis=axis, order=order, mode=mode))
            same_as_scipy(lambda: gsig.argrelextrema(gp.asarray(x), np.greater_equal, axis, order, mode),
                          lambda: sig.argrelextrema(x, np.greater_equal, axis, order, mode))
        xr = x[::-1]
        same_as_scipy(lambda: gsig.argrelmax(gp.asarray(x)[::-1], order=order, mode=mode),
                      lambda: sig.argrelmax(xr, order=order, mode=mode))


def test_argrel_errors(rng):
    x = rng.standard_normal(20)
    for order in [0, 1.5]:
        same_as_scipy(lambda: gsig.argrelmax(gp.asarray(x), order=order), lambda: sig.argrelmax(x, order=order))
    with pytest.raises(IndexError):
        gsig.argrelmax(gp.asarray(x), mode="raise")
