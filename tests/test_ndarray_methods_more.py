"""ndarray methods that forward to gpupy's functions or to NumPy on the host (``conj``,
``conjugate``, ``clip``, ``round``, ``trace``, ``choose``, ``tobytes``, ``tofile``,
``dump``, ``dumps``), against NumPy's methods on the same data. Every result is exact
(conjugation, clipping, rounding to integers and selections are exact; ``trace`` of
small integers sums exactly)."""

import io
import pickle

import numpy as np
import pytest

import gpupy as gp
from helpers import assert_exact

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float32, np.int16, np.bool_])
def test_conj_conjugate(rng, dtype):
    x = (rng.standard_normal((5, 7)) * 4).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * (rng.standard_normal((5, 7)) * 3).astype(dtype)
    g = gp.asarray(x)
    assert_exact(g.conj().get(), x.conj())
    assert_exact(g.conjugate().get(), x.conjugate())
    assert_exact(g[::-1, ::2].conj().get(), x[::-1, ::2].conj())
    if np.dtype(dtype).kind != "c":
        assert g.conj() is g and g.conjugate() is g  # as NumPy's methods


def test_clip_round(rng):
    x = rng.standard_normal((6, 9)) * 10
    g = gp.asarray(x)
    assert_exact(g.clip(-3, 4.5).get(), x.clip(-3, 4.5))
    assert_exact(g.clip(min=0).get(), x.clip(min=0))
    assert_exact(g.clip(max=gp.asarray(x[0])).get(), x.clip(max=x[0]))
    assert_exact(g.round().get(), x.round())
    assert_exact(g.round(0).get(), x.round(0))
    out = gp.empty_like(g)
    assert g.round(out=out) is out
    assert_exact(out.get(), x.round())


def test_trace_choose(rng):
    a = rng.integers(-50, 50, (4, 6, 5))
    g = gp.asarray(a)
    assert_exact(g.trace().get(), np.asarray(a.trace()))
    assert_exact(g.trace(1, 1, 2).get(), a.trace(1, 1, 2))
    idx = rng.integers(0, 3, (4, 5))
    choices = [rng.integers(0, 9, (4, 5)) for _ in range(3)]
    assert_exact(gp.asarray(idx).choose([gp.asarray(c) for c in choices]).get(), idx.choose(choices))


def test_bytes_and_pickles(rng, tmp_path):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    g = gp.asarray(x)
    assert g.tobytes() == x.tobytes()
    assert g.tobytes("F") == x.tobytes("F")
    assert g[:, ::2].tobytes() == x[:, ::2].tobytes()
    path = tmp_path / "raw.bin"
    g.tofile(str(path))
    np.testing.assert_array_equal(np.fromfile(path, dtype=np.float32).reshape(3, 4), x)
    back = pickle.loads(g.dumps())
    assert isinstance(back, gp.ndarray)
    assert_exact(back.get(), x)
    buf = io.BytesIO()
    g.dump(buf)
    buf.seek(0)
    assert_exact(pickle.load(buf).get(), x)
    g.dump(tmp_path / "a.pkl")
    with open(tmp_path / "a.pkl", "rb") as f:
        assert_exact(pickle.load(f).get(), x)


def test_as_strided_and_sliding_windows(rng):
    from numpy.lib.stride_tricks import as_strided as np_as_strided
    from numpy.lib.stride_tricks import sliding_window_view as np_windows

    x = rng.standard_normal((6, 10))
    g = gp.asarray(x)
    # Overlapping rows of a 1-d view, a transposed walk, a broadcast (zero) stride.
    flat, gflat = x.ravel(), g.ravel()
    for shape, strides in [((5, 4), (8, 8)), ((3, 7), (16, 8)), ((10, 6), (8, 80)), ((4, 3), (0, 8))]:
        want = np_as_strided(flat, shape, strides)
        got = gp.lib.stride_tricks.as_strided(gflat, shape, strides)
        assert got.strides == want.strides
        assert_exact(got.get(), want)
    # A view from an offset view, and with negative strides.
    assert_exact(gp.lib.stride_tricks.as_strided(g[2:, 3:], (2, 2), (80, 8)).get(),
                 np_as_strided(x[2:, 3:], (2, 2), (80, 8)))
    assert_exact(gp.lib.stride_tricks.as_strided(g[:, ::-1], (3,), (-8,)).get(),
                 np_as_strided(x[:, ::-1], (3,), (-8,)))
    for window, axis in [((3,), -1), ((2, 4), None), ((2,), 0), ((3, 2), (1, 0))]:
        assert_exact(gp.lib.stride_tricks.sliding_window_view(g, window, axis).get(),
                     np_windows(x, window, axis))
    # Views outside the memory, strides off the item grid, and NumPy's window errors.
    with pytest.raises(ValueError, match="outside"):
        gp.lib.stride_tricks.as_strided(g, (7, 10), (80, 8))
    with pytest.raises(ValueError, match="multiples of the item size"):
        gp.lib.stride_tricks.as_strided(g, (2,), (4,))
    with pytest.raises(ValueError, match="window shape cannot be larger"):
        gp.lib.stride_tricks.sliding_window_view(g, (7,), 0)
