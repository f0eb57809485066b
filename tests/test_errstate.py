"""gpupy's floating-point error settings (gpupy/_errstate.py): NumPy's functions and
errstate, recorded (GPU kernels do not trap), kept apart from NumPy's own settings,
validated as NumPy validates. Only the last test makes arrays (GPU)."""

import threading
import warnings

import numpy as np
import pytest

import gpupy as gp

DEFAULT = {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}


@pytest.fixture(autouse=True)
def fresh_state():
    """Each test starts from NumPy's defaults in both libraries and leaves them so."""
    with np.errstate(), gp.errstate(all=None):
        gp.seterr(**DEFAULT)
        np.seterr(**DEFAULT)
        yield


def test_seterr_returns_previous_and_records():
    assert gp.geterr() == DEFAULT
    old = gp.seterr(divide="raise", under="print")
    assert old == DEFAULT
    assert gp.geterr() == {"divide": "raise", "over": "warn", "under": "print", "invalid": "warn"}
    old = gp.seterr(all="ignore", over="call")  # all= first, then the named ones (NumPy's rule)
    assert gp.geterr() == {"divide": "ignore", "over": "call", "under": "ignore", "invalid": "ignore"}
    # The result is a copy: changing it changes nothing.
    d = gp.geterr()
    d["divide"] = "raise"
    assert gp.geterr()["divide"] == "ignore"


def test_settings_are_gpupys_own():
    gp.seterr(all="raise")
    assert np.geterr() == DEFAULT  # NumPy's settings are untouched...
    np.seterr(divide="ignore")
    assert gp.geterr()["divide"] == "raise"  # ...and do not change gpupy's
    with np.errstate(all="ignore"):
        assert gp.geterr()["over"] == "raise"


def test_seterr_validates_as_numpy():
    with pytest.raises(ValueError, match="invalid error mode 'bad'"):
        gp.seterr(divide="bad")
    with pytest.raises(TypeError):
        gp.seterr(nonsense="raise")
    assert gp.geterr() == DEFAULT  # a refused call changes nothing


def test_errstate_context_and_nesting():
    with gp.errstate(divide="ignore", invalid="raise") as ctx:
        assert isinstance(ctx, gp.errstate)
        assert gp.geterr() == {"divide": "ignore", "over": "warn", "under": "ignore", "invalid": "raise"}
        with gp.errstate(all="warn"):
            assert set(gp.geterr().values()) == {"warn"}
        assert gp.geterr()["invalid"] == "raise"
    assert gp.geterr() == DEFAULT
    # Restored after an exception too.
    with pytest.raises(RuntimeError):
        with gp.errstate(over="raise"):
            raise RuntimeError
    assert gp.geterr() == DEFAULT


def test_errstate_not_reentrant_and_validates():
    es = gp.errstate(divide="ignore")
    with es:
        with pytest.raises(TypeError, match="twice"):
            with es:
                pass
    with pytest.raises(ValueError, match="invalid error mode"):
        with gp.errstate(over="loud"):
            pass
    assert gp.geterr() == DEFAULT


def test_errstate_as_decorator():
    @gp.errstate(all="ignore")
    def inside():
        return gp.geterr()

    assert set(inside().values()) == {"ignore"}
    assert set(inside().values()) == {"ignore"}  # a fresh context for each call
    assert gp.geterr() == DEFAULT


def test_errcall_and_bufsize():
    log = []
    assert gp.geterrcall() is None
    assert gp.seterrcall(log.append) is None
    assert gp.geterrcall() == log.append
    with gp.errstate(call=print):
        assert gp.geterrcall() is print
    assert gp.geterrcall() == log.append
    with pytest.raises(TypeError, match="callable"):
        gp.seterrcall(3)
    assert gp.seterrcall(None) == log.append
    assert np.geterrcall() is None

    assert gp.getbufsize() == np.getbufsize() == 8192
    assert gp.setbufsize(16384) == 8192
    assert gp.getbufsize() == 16384 and np.getbufsize() == 8192
    with pytest.raises(ValueError, match="too small"):
        gp.setbufsize(3)
    assert gp.setbufsize(8192) == 16384


def test_settings_are_per_thread():
    gp.seterr(divide="raise")
    seen = []
    t = threading.Thread(target=lambda: seen.append(gp.geterr()))
    t.start()
    t.join()
    assert seen == [DEFAULT]  # a new thread starts from the defaults, as NumPy's
    assert gp.geterr()["divide"] == "raise"


@pytest.mark.gpu
def test_gpu_kernels_do_not_trap():
    """Whatever the settings, gpupy computes IEEE 754's results, with no exception or
    warning (documented in gpupy/_errstate.py)."""
    x = gp.asarray(np.array([1.0, -1.0, 0.0, 1e308], np.float64))
    zero = gp.zeros(4)
    want = np.array([np.inf, -np.inf, np.nan, np.inf])
    for mode in ("raise", "warn", "ignore", "call"):
        with gp.errstate(all=mode, call=lambda *a: pytest.fail("called")), warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_array_equal((x / zero).get(), want)
            np.testing.assert_array_equal((x * 10.0).get(), np.array([10.0, -10.0, 0.0, np.inf]))
