"""``gpupyx.scipy.fftpack`` against ``scipy.fftpack`` on the same values.

Comparison and tolerance as in ``test_scipy_fft.py`` (``check``): SciPy's dtype and
shape, values within ``5 eps log2(max(n, 2))`` normwise of SciPy's result on the widened
input, with ``n`` the transform length (the product of the lengths for n-d transforms).
``rfft``/``irfft`` are compared in fftpack's packed real layout.
"""

import inspect
from functools import partial

import numpy as np
import pytest
import scipy.fftpack as sfp

import gpupy as gp
import gpupyx.scipy.fft as gfft
from gpupyx.scipy import fftpack
from helpers import VIEW_FUNCS_1D, VIEW_IDS_1D, dtype_id, random_array
from test_scipy_fft import SIZES, check, pair, same_error

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128], ids=dtype_id)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_fft_ifft(rng, name, n, dtype):
    x, g = pair(rng, (3, n), dtype)
    check(getattr(fftpack, name)(g), getattr(sfp, name), x, n=n)
    for m in (1, n + 3, max(1, n // 2)):
        check(getattr(fftpack, name)(g, m), getattr(sfp, name), x, m, n=m)
    check(getattr(fftpack, name)(g.T, axis=0), getattr(sfp, name), x.T, axis=0, n=n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16], ids=dtype_id)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", ["rfft", "irfft"])
def test_packed_real(rng, name, n, dtype):
    """The packed layout, for even and odd lengths, with ``n`` padding and truncating
    (for ``irfft``, of the packed input, as fftpack does), along either axis."""
    x, g = pair(rng, (3, n), dtype)
    f, gf_ = getattr(sfp, name), getattr(fftpack, name)
    check(gf_(g), f, x, n=n)
    for m in (1, 2, n + 3, max(1, n - 1)):
        check(gf_(g, m), f, x, m, n=m)
    check(gf_(g.T, axis=0), f, x.T, axis=0, n=n)
    check(gf_(g[::-1, ::-1].T, n + 1, 0), f, x[::-1, ::-1].T, n + 1, 0, n=n + 1)


def test_rfft_irfft_are_inverses(rng):
    """Two transforms, each within the bound; the inverse is orthogonal up to its scale,
    so the errors add: ``||back - x|| <= 2 (5 eps log2 n) ||x||``."""
    x, g = pair(rng, (4, 30), np.float64)
    back = fftpack.irfft(fftpack.rfft(g)).get()
    tol = 2 * 5 * np.finfo(np.float64).eps * np.log2(30)
    assert np.linalg.norm(back - x) <= tol * np.linalg.norm(x)


@pytest.mark.parametrize("view", VIEW_FUNCS_1D, ids=VIEW_IDS_1D)
def test_strided_inputs(rng, view):
    x, g = pair(rng, (64,), np.float32)
    xv, gv = view(x), view(g)
    for name in ("fft", "ifft", "rfft", "irfft"):
        check(getattr(fftpack, name)(gv), getattr(sfp, name), xv, n=xv.shape[0])


@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=dtype_id)
def test_nd(rng, dtype):
    x, g = pair(rng, (4, 5, 6), dtype)
    for shape, axes in [(None, None), ((3, 4, 8), None), ((3, 8), (0, 2)), (None, (1,)), (None, (-1, 0))]:
        for name in ("fftn", "ifftn"):
            check(getattr(fftpack, name)(g, shape, axes), getattr(sfp, name), x, shape, axes, n=4 * 5 * 8)
    for name in ("fft2", "ifft2"):
        check(getattr(fftpack, name)(g), getattr(sfp, name), x, n=30)
        check(getattr(fftpack, name)(g, (3, 7)), getattr(sfp, name), x, (3, 7), n=21)
        check(getattr(fftpack, name)(g, (3, 7), (0, 1)), getattr(sfp, name), x, (3, 7), (0, 1), n=21)


def test_errors(rng):
    x, g = pair(rng, (2, 3, 4), np.float64)
    c, gc = pair(rng, (3, 4), np.complex64)
    # fftpack needs axes when shape does not name every axis.
    same_error(lambda: fftpack.fftn(g, (3, 3)), lambda: sfp.fftn(x, (3, 3)))
    same_error(lambda: fftpack.ifftn(g, 3), lambda: sfp.ifftn(x, 3))
    for name in ("rfft", "irfft"):
        ours, theirs = getattr(fftpack, name), getattr(sfp, name)
        same_error(partial(ours, gc), partial(theirs, c))  # x must be a real sequence
        same_error(partial(ours, g, 0), partial(theirs, x, 0))
        same_error(partial(ours, g, axis=3), partial(theirs, x, axis=3), False)
    same_error(lambda: fftpack.fft(g, -2), lambda: sfp.fft(x, -2))


def test_tutorial_round_trip(rng):
    """CuPy's tutorial: ``X = fftpack.fft(x); fftpack.ifft(X)`` on 2**20 complex64 points
    of magnitude about 1 gives ``x`` back within 1e-5."""
    x = random_array(rng, (2**20,), np.complex64)
    x_gpu = gp.asarray(x)
    X = fftpack.fft(x_gpu)
    back = fftpack.ifft(X)
    assert back.dtype == np.complex64
    assert np.max(np.abs(back.get() - x)) < 1e-5


def test_plans(rng):
    """``get_fft_plan`` is re-exported as CuPy does, and the fftpack transforms take it
    positionally (``plan`` follows ``overwrite_x``) and as a context."""
    assert fftpack.get_fft_plan is gfft.get_fft_plan
    x, g = pair(rng, (4, 16), np.complex64)
    plan = fftpack.get_fft_plan(g, axes=-1)
    check(fftpack.fft(g, None, -1, False, plan), sfp.fft, x, n=16)
    with plan:
        check(fftpack.ifft(g), sfp.ifft, x, n=16)
        with pytest.raises(ValueError, match="Target array size does not match the plan"):
            fftpack.fft(g, 8)
    plan2 = fftpack.get_fft_plan(g, axes=(0, 1))
    check(fftpack.fft2(g, plan=plan2), sfp.fft2, x, n=64)
    r, gr = pair(rng, (4, 16), np.float32)
    check(fftpack.rfft(gr, plan=fftpack.get_fft_plan(gr, axes=-1, value_type="R2C")), sfp.rfft, r, n=16)
    with fftpack.get_fft_plan(gr, shape=(16,), axes=-1, value_type="C2R"):  # irfft takes no plan= but is checked
        check(fftpack.irfft(gr), sfp.irfft, r, n=16)
        with pytest.raises(ValueError, match="Target array size"):
            fftpack.irfft(gr, 15)


@pytest.mark.parametrize("name", ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft"])
def test_signature_extends_scipys(name):
    """SciPy's parameters, then CuPy's ``plan`` (``irfft`` has none, as in CuPy)."""
    ours = list(inspect.signature(getattr(fftpack, name)).parameters.values())
    theirs = list(inspect.signature(getattr(sfp, name)).parameters.values())
    assert ours[: len(theirs)] == theirs
    assert [p.name for p in ours[len(theirs):]] == ([] if name == "irfft" else ["plan"])
