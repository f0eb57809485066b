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
