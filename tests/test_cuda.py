"""gpupy.cuda: devices, device properties, events, the null stream, and the kernels'
ptxas report (the last needs no GPU)."""

import re

import numpy as np
import pytest

import compare
import gpupy as gp
from helpers import assert_equal_to_numpy, random_array


# --- no GPU needed -------------------------------------------------------------------------


def ptxas_entries():
    """{kernel name: its 'N bytes stack frame, N bytes spill stores, N bytes spill loads' line}."""
    report = gp._gpupy.ptxas_report()
    entries = {}
    for name, props in re.findall(r"Function properties for (\w+)\n\s*([^\n]*)", report):
        entries[name] = props
    return report, entries


def test_ptxas_report_has_no_stack_frames_or_spills():
    report, entries = ptxas_entries()
    compiled = set(re.findall(r"Compiling entry function '(\w+)'", report))
    assert compiled, "the report lists no kernels"
    assert compiled <= set(entries), "every compiled kernel has a properties line"
    clean = "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
    allowed = gp._gpupy.ptxas_stack_allowed()
    assert allowed, "the build reports which kernels may use libdevice's local array"
    bad = {}
    for name in compiled:
        props = entries[name].strip()
        if "spill stores" in props and not props.endswith("0 bytes spill stores, 0 bytes spill loads"):
            bad[name] = props  # spills are never allowed
        elif props != clean and not any(a in name for a in allowed):
            bad[name] = props
    assert not bad, f"kernels with a stack frame or spills: {bad}"


def test_ptxas_report_covers_every_kernel_family():
    _, entries = ptxas_entries()
    names = set(entries)
    expected = set()
    for op in ("add", "subtract", "multiply", "divide", "less", "power"):
        for t in ("f32", "f64", "c64"):
            for variant in ("vv", "vs", "strided"):
                expected.add(f"gpupy_{op}_{t}_{variant}")
    for op in ("sin", "exp", "negative", "isnan"):
        for t in ("f16", "f32", "f64", "c128"):
            for variant in ("contig", "strided"):
                expected.add(f"gpupy_{op}_{t}_{variant}")
    for op in ("sum", "argmax", "var", "nanmin"):
        for t in ("f16", "f32", "f64", "c128"):
            for variant in ("block", "serial", "merge"):
                expected.add(f"gpupy_reduce_{op}_{t}_{variant}")
    for t in ("bool", "i8", "u64", "f16", "f32", "c128"):
        for u in ("bool", "i32", "f64", "c64"):
            expected.add(f"gpupy_cast_{t}_{u}_strided")
            expected.add(f"gpupy_cast_{t}_{u}_contig")
    for size in (1, 2, 4, 8, 16):
        expected.add(f"gpupy_copy_{size}_strided")
        expected.add(f"gpupy_fill_{size}")
    assert expected <= names, f"missing from the report: {sorted(expected - names)}"
    for t in ("f32", "f64"):
        assert any(n.startswith(f"gpupy_matmul_{t}_") for n in names), f"no {t} matmul kernel in the report"


# --- GPU ---------------------------------------------------------------------------------


@pytest.mark.gpu
class TestDevice:
    def test_current_device(self):
        d = gp.cuda.Device()
        assert d.id == 0
        assert int(d) == 0
        assert d == gp.cuda.Device(0)
        assert gp.cuda.runtime.getDevice() == 0
        assert repr(d) == "<CUDA Device 0>"

    def test_compute_capability(self):
        cc = gp.cuda.Device(0).compute_capability
        props = gp.cuda.runtime.getDeviceProperties(0)
        assert isinstance(cc, str)
        assert re.fullmatch(r"\d{2,3}", cc), cc
        assert cc == f"{props['major']}{props['minor']}"

    def test_synchronize_after_work(self, rng):
        x = random_array(rng, (512, 512), np.float32)
        y = gp.asarray(x) @ gp.asarray(x)
        gp.cuda.Device().synchronize()
        gp.cuda.runtime.deviceSynchronize()
        ref = x.astype(np.float64) @ x.astype(np.float64)
        err = np.linalg.norm(y.get() - ref) / np.linalg.norm(x) ** 2
        assert err < 1e-5

    def test_with_device_makes_it_current(self, rng):
        with gp.cuda.Device(0) as d:
            assert d.id == 0
            assert gp.cuda.runtime.getDevice() == 0
            x = random_array(rng, (33,), np.float64)
            assert_equal_to_numpy(gp.asarray(x) * 1.0, x)
        assert gp.cuda.runtime.getDevice() == 0

    def test_invalid_device_raises_value_error(self):
        bad = gp.cuda.Device(99)
        words = "invalid device id 99"  # gpupy's message (host/src/device.rs), naming the id
        with pytest.raises(ValueError, match=words):
            bad.synchronize()
        with pytest.raises(ValueError, match=words):
            bad.compute_capability
        with pytest.raises(ValueError, match=words):
            bad.use()
        with pytest.raises(ValueError, match=words):
            with gp.cuda.Device(99):
                pass
        with pytest.raises(ValueError, match=words):
            gp.cuda.runtime.getDeviceProperties(99)
        assert gp.cuda.runtime.getDevice() == 0  # the current device did not change

    def test_device_properties(self):
        props = gp.cuda.runtime.getDeviceProperties(0)
        assert isinstance(props["name"], bytes) and props["name"].strip()
        assert props["multiProcessorCount"] > 0
        assert props["totalGlobalMem"] > 0
        assert props["major"] >= 7
        assert isinstance(props["minor"], int) and props["minor"] >= 0
        assert props["warpSize"] == 32
        assert props["maxThreadsPerBlock"] >= 1024
        assert props["sharedMemPerBlock"] > 0

    def test_device_count(self):
        n = gp.cuda.runtime.getDeviceCount()
        assert isinstance(n, int) and n >= 1
        assert gp.cuda.runtime.getDeviceProperties(n - 1)["totalGlobalMem"] > 0

    def test_mem_info(self):
        free, total = gp.cuda.Device().mem_info
        assert 0 < free <= total
        assert total <= gp.cuda.runtime.getDeviceProperties(0)["totalGlobalMem"]


@pytest.mark.gpu
class TestEventsAndStreams:
    def test_elapsed_time_around_work(self, rng):
        x = random_array(rng, (1024, 1024), np.float32)
        a = gp.asarray(x)
        start, end = gp.cuda.Event(), gp.cuda.Event()
        start.record()
        y = a @ a
        s = y.sum()
        end.record()
        end.synchronize()
        assert end.done and start.done
        ms = gp.cuda.get_elapsed_time(start, end)
        assert isinstance(ms, float) and ms >= 0.0
        ref = x.astype(np.float64) @ x.astype(np.float64)
        # Derived: each product element within 2 gamma_1024(2**-24) (|x| @ |x|)_ij
        # (compare.product_bound), the float64 sum of the float32 products adds gamma_n(2**-53)
        # of the same, and the float32 result rounds once (2**-24 |sum|).
        S = np.abs(x).sum(axis=0).astype(np.float64) @ np.abs(x).sum(axis=1).astype(np.float64)
        k, n = 1024, 1024 * 1024
        bound = (2 * k * 2.0**-24 / (1 - k * 2.0**-24) + 2 * n * 2.0**-53) * S + 2.0**-24 * abs(ref.sum())
        assert abs(float(s) - ref.sum()) <= bound

    def test_events_in_sequence_have_increasing_times(self, rng):
        events = [gp.cuda.Event() for _ in range(3)]
        x = random_array(rng, (256, 256), np.float64)
        a = gp.asarray(x)
        events[0].record()
        b = a @ a
        events[1].record(stream=gp.cuda.Stream.null)
        c = b + a
        events[2].record()
        events[2].synchronize()
        t01 = gp.cuda.get_elapsed_time(events[0], events[1])
        t02 = gp.cuda.get_elapsed_time(events[0], events[2])
        assert 0.0 <= t01 <= t02
        # The product within compare.product_bound (k = x.shape[1]), then one rounding
        # of the sum (u |c|).
        exact, bound = compare.product_bound(x, x, x.shape[1], accum=np.float64, output=np.float64)
        exact = exact + x
        bound = bound + 2.0**-53 * np.abs(exact)
        assert np.all(np.abs(c.get() - exact) <= bound)

    def test_null_stream(self, rng):
        x = random_array(rng, (1000,), np.float32)
        y = gp.asarray(x) * 3.0
        gp.cuda.Stream.null.synchronize()
        assert gp.cuda.get_current_stream() is gp.cuda.Stream.null
        np.testing.assert_array_equal(y.get(), x * np.float32(3.0))

    def test_event_flags(self, rng):
        """``block=True`` (a sleeping wait) and ``interprocess=True`` (which needs
        ``disable_timing=True``, as CUDA and CuPy say) make working events."""
        x = random_array(rng, (2000,), np.float32)
        for kwargs in (dict(block=True), dict(disable_timing=True, interprocess=True), dict(block=True, disable_timing=True)):
            e = gp.cuda.Event(**kwargs)
            y = gp.asarray(x) * 2.0
            e.record()
            e.synchronize()
            assert e.done and e.ptr != 0
            np.testing.assert_array_equal(y.get(), x * np.float32(2.0))
        with pytest.raises(ValueError, match="Timing must be disabled for interprocess events"):
            gp.cuda.Event(interprocess=True)
