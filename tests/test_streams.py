"""Streams, events and the stream-ordered memory pool (issue #15), with CuPy's names:
``gpupy.cuda.Stream`` / ``ExternalStream`` / ``Event`` / ``get_current_stream`` /
``get_elapsed_time`` and the pool's ``set_limit``.

How ordering is observed. A test queues a *permutation chain* on a stream: ``c = c @ P``
repeated, ``P`` a permutation matrix, so every product is exact (one ``x * 1`` and
zeros per output element; the data are small nonzero integers, exact in float32 and in
TF32 alike) and the final ``c`` is a column permutation of the random start that NumPy
reproduces bit for bit. The chain is ~50 products of 2048 x 2048 float32, about 0.35 ms
each on an H100 (benchmarks/NOTES.md: 4096 in 2.8 ms, 8x the work), so the stream stays
busy for ~15 ms after the host has queued everything (Python queues a product in tens
of microseconds). Work that should run after the chain but runs on another stream, or
a read that does not wait for the stream, sees the chain's unfinished intermediate
buffers and fails the exact comparison. Each such test also asserts that the stream was
still busy when the dependent work was queued, so a machine fast enough to make the
test vacuous fails loudly (raise ``CHAIN_STEPS``) instead of passing silently.

Device uploads (``gp.asarray`` of host data) happen before any chain is queued and are
followed by a device synchronize: a pageable host-to-device copy may return before the
DMA finishes, and CUDA may synchronize the stream before staging it, either of which
would blur the ordering a test means to observe.
"""

import gc
import re
import threading
import time

import numpy as np
import pytest

import gpupy as gp
from helpers import assert_equal_to_numpy, random_array

pytestmark = pytest.mark.gpu

CHAIN_N = 2048
CHAIN_STEPS = 48
MiB = 1 << 20


def pool():
    return gp.get_default_memory_pool()


def new_stream():
    return gp.cuda.Stream(non_blocking=True)


class PermutationChain:
    """``c_{k+1} = c_k @ P`` on the current stream, exactly reproducible on the host.

    ``c0``: random integers in [-30, 30] without 0, float32 (exact; the products
    ``c @ c.T`` of rows stay below 2**24, so even those are exact). ``P[perm[j], j] = 1``,
    so ``(c @ P)[:, j] = c[:, perm[j]]``: after k steps the columns are
    ``c0[:, idx_k]`` with ``idx_k = perm[idx_{k-1}]``. Every intermediate is a new
    allocation on the current stream, freed (on that stream) by the next step.
    """

    def __init__(self, rng, n=CHAIN_N):
        self.n = n
        mag = rng.integers(1, 31, size=(n, n))
        self.c0 = (mag * rng.choice([-1, 1], size=(n, n))).astype(np.float32)
        self.perm = rng.permutation(n)
        p = np.zeros((n, n), np.float32)
        p[self.perm, np.arange(n)] = 1.0
        self.c = gp.asarray(self.c0)
        self.p = gp.asarray(p)
        # The uploads have landed before another stream reads them.
        gp.cuda.Device().synchronize()

    def queue(self, steps=CHAIN_STEPS):
        """Queues ``steps`` products on the current stream; returns the last one."""
        c = self.c
        for _ in range(steps):
            c = gp.matmul(c, self.p)
        return c

    def expected(self, steps=CHAIN_STEPS):
        idx = np.arange(self.n)
        for _ in range(steps):
            idx = self.perm[idx]
        return self.c0[:, idx]


STILL_BUSY = (
    "the stream had already finished the permutation chain when the dependent work was "
    "queued, so this test observed nothing: raise CHAIN_STEPS for this GPU"
)


def wait_until(predicate, seconds=20.0):
    """Polls ``predicate`` (sleeping, so that the GIL is free for callbacks) until it is
    true or ``seconds`` pass; returns its last value."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


# ---------------------------------------------------------------------------------------
# The issue's acceptance snippet


def test_issue_done_when_snippet_runs_exactly():
    """The "Done when" snippet of issue #15, verbatim with ``gp`` for ``cp``: two
    non-blocking streams fill two arrays, the pools give their caches back, and a
    reshaped arange exports a version-3 CUDA array interface. The snippet itself only
    synchronizes the null stream, which does not wait for non-blocking streams, so
    the check synchronizes s1 and s2 before reading."""
    cp = gp
    s1 = cp.cuda.Stream(non_blocking=True); s2 = cp.cuda.Stream(non_blocking=True)  # noqa: E702
    a = cp.empty((1 << 20,), dtype=cp.float32); b = cp.empty_like(a)  # noqa: E702
    with s1: a.fill(1.0)  # noqa: E701
    with s2: b.fill(2.0)  # noqa: E701
    cp.cuda.Stream.null.synchronize()
    pool = cp.get_default_memory_pool(); pool.free_all_blocks()  # noqa: E702
    pinned = cp.get_default_pinned_memory_pool(); pinned.free_all_blocks()  # noqa: E702
    cai = cp.arange(16, dtype=cp.float32).reshape(4, 4).__cuda_array_interface__

    s1.synchronize()
    s2.synchronize()
    assert_equal_to_numpy(a, np.full((1 << 20,), 1.0, np.float32))
    assert_equal_to_numpy(b, np.full((1 << 20,), 2.0, np.float32))
    assert cai["version"] == 3
    assert tuple(cai["shape"]) == (4, 4)
    assert cai["typestr"] == "<f4"
    assert cai["strides"] is None
    assert isinstance(cai["data"][0], int) and cai["data"][0] != 0
    assert cai["data"][1] is False


# ---------------------------------------------------------------------------------------
# Stream objects and the current stream


def test_stream_handles_equality_and_attributes():
    """``ptr`` is the CUDA handle (0 for the legacy null stream, 2 for the per-thread
    default stream as CuPy reports it, a real handle otherwise); streams compare and
    hash by handle, so an ExternalStream wrapping a stream's handle equals it;
    ``device_id`` is the current device; ``Stream(null=True)`` is the null stream."""
    null = gp.cuda.Stream.null
    assert null.ptr == 0
    assert gp.cuda.Stream(null=True) == null
    assert gp.cuda.Stream.ptds.ptr == 2  # CU_STREAM_PER_THREAD, CuPy's Stream.ptds.ptr
    assert gp.cuda.Stream.ptds != null
    s = new_stream()
    t = gp.cuda.Stream()
    for x in (s, t):
        assert isinstance(x.ptr, int) and x.ptr not in (0, 1, 2)
        assert x != null and x == x
        assert x.device_id == gp.cuda.Device().id
    assert s != t and s.ptr != t.ptr
    ext = gp.cuda.ExternalStream(s.ptr)
    assert ext.ptr == s.ptr
    assert ext == s and hash(ext) == hash(s)
    assert ext.device_id == gp.cuda.Device().id  # device_id=-1: the current device
    assert gp.cuda.ExternalStream(s.ptr, device_id=0) == s
    assert len({s, ext, t, null}) == 3


def test_with_and_use_set_the_current_stream_and_nesting_restores_it():
    """``with stream:`` makes it current and restores the previous one on exit (also on
    an exception, and for a stream nested in itself); ``use()`` makes it current and
    returns the stream. The default current stream is the null stream."""
    s1, s2 = new_stream(), gp.cuda.Stream(priority=-1)
    assert gp.cuda.get_current_stream() == gp.cuda.Stream.null
    with s1 as entered:
        assert entered is s1
        assert gp.cuda.get_current_stream() == s1
        with s2:
            assert gp.cuda.get_current_stream() == s2
            with s1:
                assert gp.cuda.get_current_stream() == s1
            assert gp.cuda.get_current_stream() == s2
        assert gp.cuda.get_current_stream() == s1
    assert gp.cuda.get_current_stream() == gp.cuda.Stream.null
    with pytest.raises(KeyError, match="inside"):
        with s2:
            raise KeyError("inside")
    assert gp.cuda.get_current_stream() == gp.cuda.Stream.null
    try:
        assert s1.use() is s1
        assert gp.cuda.get_current_stream() == s1
    finally:
        gp.cuda.Stream.null.use()
    assert gp.cuda.get_current_stream() == gp.cuda.Stream.null


def test_current_stream_is_per_thread(rng):
    """Each Python thread has its own current stream: a new thread starts on the null
    stream even while the main thread is inside ``with s_main:``, its own ``with``
    does not change the main thread's current stream, and work it queues on its
    stream gives NumPy's values."""
    x = random_array(rng, (4096,), np.float32)
    g = gp.asarray(x)
    gp.cuda.Device().synchronize()
    main_stream = new_stream()
    inside, release = threading.Event(), threading.Event()
    seen = {}

    def worker():
        try:
            seen["initial"] = gp.cuda.get_current_stream()
            s = new_stream()
            with s:
                seen["inside_is_s"] = gp.cuda.get_current_stream() == s
                seen["values"] = gp.asnumpy(g * 3.0 - 1.0)
                inside.set()
                release.wait(30)
            seen["after"] = gp.cuda.get_current_stream()
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            seen["error"] = e
            inside.set()

    with main_stream:
        t = threading.Thread(target=worker)
        t.start()
        assert inside.wait(30), "the worker thread did not start"
        assert gp.cuda.get_current_stream() == main_stream
        release.set()
        t.join(30)
        assert not t.is_alive()
        assert gp.cuda.get_current_stream() == main_stream
    assert gp.cuda.get_current_stream() == gp.cuda.Stream.null
    assert "error" not in seen, seen.get("error")
    assert seen["initial"] == gp.cuda.Stream.null
    assert seen["inside_is_s"]
    assert seen["after"] == gp.cuda.Stream.null
    np.testing.assert_array_equal(seen["values"], x * np.float32(3.0) - np.float32(1.0), strict=True)


def test_stream_done_and_synchronize(rng):
    """``done`` is False while queued work runs and True after ``synchronize()``;
    ``synchronize`` waits for all of the stream's work (the chain's result is exact)."""
    chain = PermutationChain(rng)
    s = new_stream()
    assert s.done is True  # nothing queued yet
    with s:
        c = chain.queue()
    assert s.done is False, STILL_BUSY
    s.synchronize()
    assert s.done is True
    with s:
        assert_equal_to_numpy(c, chain.expected())


def test_non_blocking_streams_run_independently(rng):
    """Two non-blocking streams each run their own chain; both results are exact."""
    chain1, chain2 = PermutationChain(rng, 1024), PermutationChain(rng, 1024)
    s1, s2 = new_stream(), new_stream()
    with s1:
        c1 = chain1.queue(steps=40)
    with s2:
        c2 = chain2.queue(steps=41)
    s1.synchronize()
    s2.synchronize()
    assert_equal_to_numpy(c1, chain1.expected(40))
    assert_equal_to_numpy(c2, chain2.expected(41))


def test_blocking_stream_is_ordered_before_later_null_stream_work(rng):
    """A stream made with ``non_blocking=False`` synchronizes with the legacy null
    stream (CUDA's default flags): a read on the null stream after the chain was
    queued on it, with no explicit synchronize, sees the finished chain."""
    chain = PermutationChain(rng)
    s = gp.cuda.Stream(non_blocking=False)
    with s:
        c = chain.queue()
    assert not s.done, STILL_BUSY
    assert gp.cuda.get_current_stream() == gp.cuda.Stream.null
    np.testing.assert_array_equal(c.get(), chain.expected(), strict=True)


def test_per_thread_default_stream_runs_work(rng):
    """``Stream.ptds`` can be made current and runs gpupy work; reads on it see the
    finished chain."""
    chain = PermutationChain(rng, 1024)
    with gp.cuda.Stream.ptds:
        assert gp.cuda.get_current_stream() == gp.cuda.Stream.ptds
        c = chain.queue(steps=20)
        got = c.get()
    np.testing.assert_array_equal(got, chain.expected(20), strict=True)


def test_stream_priority_accepted(rng):
    """``priority=`` (CUDA: lower is higher priority; out-of-range values are clamped)
    makes a working stream."""
    x = random_array(rng, (10_001,), np.float64)
    g = gp.asarray(x)
    gp.cuda.Device().synchronize()
    for priority in (-1, 0):
        s = gp.cuda.Stream(non_blocking=True, priority=priority)
        with s:
            assert_equal_to_numpy(g * 2.0, x * 2.0)


def test_external_stream_shares_the_handle(rng):
    """Work queued through an ``ExternalStream`` of a stream's handle runs on that
    stream: synchronizing the original waits for it, and the wrapper's ``done`` is
    the stream's."""
    chain = PermutationChain(rng)
    s = new_stream()
    ext = gp.cuda.ExternalStream(s.ptr)
    with ext:
        assert gp.cuda.get_current_stream() == s
        c = chain.queue()
    assert not s.done, STILL_BUSY
    s.synchronize()
    assert ext.done is True
    with ext:
        assert_equal_to_numpy(c, chain.expected())


def test_external_stream_from_torch(rng):
    """An ``ExternalStream`` of a PyTorch stream: gpupy work queued on it is waited for
    by ``torch.cuda.Stream.synchronize``."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA device (torch.cuda.is_available() is False)")
    chain = PermutationChain(rng)
    ts = torch.cuda.Stream()
    ext = gp.cuda.ExternalStream(ts.cuda_stream)
    with ext:
        c = chain.queue()
    ts.synchronize()
    assert ext.done is True
    np.testing.assert_array_equal(c.get(), chain.expected(), strict=True)


# ---------------------------------------------------------------------------------------
# Every operation runs on the current stream


# (id, function of (module, c, aux)): run on gpupy (module gp) and NumPy (module np)
# with ``c`` the chain's result and ``aux`` index arrays made before the chain.
STREAM_OPS = [
    ("copy", lambda m, c, aux: c.copy()),
    ("strided_copy", lambda m, c, aux: m.ascontiguousarray(c.T[::3, 1::2])),
    ("astype", lambda m, c, aux: c[:64].astype(m.float64)),
    ("elementwise", lambda m, c, aux: c * 2.0 + 1.0),
    ("where", lambda m, c, aux: m.where(c[:128] > 0, c[:128], -c[:128])),
    ("sum", lambda m, c, aux: c[:, :256].sum(axis=1)),  # |sum| <= 7680: exact
    ("max", lambda m, c, aux: c.max(axis=0)),
    ("argmax", lambda m, c, aux: c[:64].argmax(axis=1)),
    ("cumsum", lambda m, c, aux: m.cumsum(c[:8], axis=1)),  # |partial sums| <= 61440: exact
    ("sort", lambda m, c, aux: m.sort(c[:16], axis=1)),
    ("matmul", lambda m, c, aux: m.matmul(c[:64], c[:64].T)),  # |sums| <= 2048 * 900: exact
    ("take", lambda m, c, aux: m.take(c[5], aux["idx"])),
    ("fancy_index", lambda m, c, aux: c[aux["idx"][:50]]),
    ("concatenate", lambda m, c, aux: m.concatenate([c[:2], c[-3:]])),
    ("reshape_copy", lambda m, c, aux: c.T.reshape(-1)[:5000]),
]


def _fill(m, c, aux):
    """Write after write: a fill that ran before the stream's copy would be
    overwritten by it."""
    y = c[:4].copy()
    y.fill(3.5)
    return y


def _setitem(m, c, aux):
    y = c[:4].copy()
    y[1:3] = 5.0
    return y


STREAM_OPS += [("fill", _fill), ("setitem", _setitem)]


@pytest.mark.parametrize("op", [f for _, f in STREAM_OPS], ids=[n for n, _ in STREAM_OPS])
def test_operations_run_on_the_current_stream(rng, op):
    """Copies, casts, fills, elementwise kernels, reductions, scans, sort, matmul and
    indexing queued inside ``with s:`` after the chain run after it on ``s``: they
    read the finished chain (an operation on another stream would read its unfinished
    buffers) and ``gp.asnumpy`` inside the block waits for them. Exact against NumPy."""
    chain = PermutationChain(rng)
    idx_h = rng.integers(0, CHAIN_N, size=300)
    aux_g = {"idx": gp.asarray(idx_h)}
    gp.cuda.Device().synchronize()
    s = new_stream()
    with s:
        c = chain.queue()
        busy = not s.done  # before op: an op may synchronize on its own, which is fine
        out = op(gp, c, aux_g)
        got = gp.asnumpy(out)
    want = op(np, chain.expected(), {"idx": idx_h})
    np.testing.assert_array_equal(got, want, strict=True)
    assert busy, STILL_BUSY


def test_random_on_a_stream_matches_numpy(rng):
    """The PCG64 ``random`` draw (NumPy-exact, see test_random.py) queued on a
    non-blocking stream gives NumPy's bits, read on that stream."""
    seed = int(rng.integers(2**63))
    s = new_stream()
    with s:
        got = gp.random.default_rng(seed).random(100_003).get()
    want = np.random.default_rng(seed).random(100_003)
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))


HOST_READS = [
    ("float", lambda c: float(c[3, 5]), lambda h: float(h[3, 5])),
    ("bool", lambda c: bool(c[3, 5] > 0), lambda h: bool(h[3, 5] > 0)),
    ("item", lambda c: c[7, 11].item(), lambda h: h[7, 11].item()),
    ("asnumpy", lambda c: gp.asnumpy(c[:64]), lambda h: h[:64]),
    ("get", lambda c: c[:, 100:164].get(), lambda h: h[:, 100:164]),
]


@pytest.mark.parametrize(
    "read,host", [(r, h) for _, r, h in HOST_READS], ids=[n for n, _, _ in HOST_READS]
)
def test_host_reads_synchronize_the_current_stream(rng, read, host):
    """``float(x)``, ``bool(x)``, ``x.item()``, ``gp.asnumpy(x)`` and ``x.get()`` inside
    ``with s:`` wait for the work queued on the non-blocking stream ``s`` and return
    NumPy's values (a read that did not wait would see the chain's unfinished
    buffers)."""
    chain = PermutationChain(rng)
    s = new_stream()
    with s:
        c = chain.queue()
        busy = not s.done
        got = read(c)
    want = host(chain.expected())
    if isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want, strict=True)
    else:
        assert type(got) is type(want) and got == want, (got, want)
    assert busy, STILL_BUSY


# ---------------------------------------------------------------------------------------
# Events


def test_event_timing_on_a_stream(rng):
    """Events recorded on a non-null stream time the work queued on it: after
    ``end.synchronize()`` the stream is done (``end`` was after all its work), the
    elapsed time is positive, at least half the time the host waited in
    ``synchronize`` (the chain was still running then) and at most the host's wall
    time around the whole sequence (plus 0.5 ms for the timers' resolution)."""
    chain = PermutationChain(rng)
    s = new_stream()
    start, end = gp.cuda.Event(), gp.cuda.Event()
    t0 = time.perf_counter()
    start.record(s)
    with s:
        c = chain.queue()
    end.record(s)
    t1 = time.perf_counter()
    end.synchronize()
    t2 = time.perf_counter()
    assert end.done is True and start.done is True
    assert s.done is True, "end.synchronize() returned before the stream's work finished"
    ms = gp.cuda.get_elapsed_time(start, end)
    assert isinstance(ms, float)
    assert ms > 0.0
    assert ms >= 0.5 * (t2 - t1) * 1e3, (ms, (t2 - t1) * 1e3)
    assert ms <= (t2 - t0) * 1e3 + 0.5, (ms, (t2 - t0) * 1e3)
    with s:
        assert_equal_to_numpy(c, chain.expected())


def test_event_record_defaults_to_the_current_stream(rng):
    """``Event.record()`` with no stream records on the current stream: inside
    ``with s:`` after the chain, ``synchronize()`` on it waits for the chain (on the
    null stream it would return while ``s`` is still busy)."""
    chain = PermutationChain(rng)
    s = new_stream()
    ev = gp.cuda.Event()
    with s:
        c = chain.queue()
        ev.record()
    assert ev.done is False, STILL_BUSY
    ev.synchronize()
    assert ev.done is True
    assert s.done is True
    with s:
        assert_equal_to_numpy(c, chain.expected())


def test_stream_record_returns_events(rng):
    """``stream.record()`` returns a new recorded Event; ``record(event)`` records and
    returns the given one; events (timing disabled too) have an int ``ptr``."""
    chain = PermutationChain(rng, 1024)
    s = new_stream()
    with s:
        c = chain.queue(steps=10)
    ev = s.record()
    assert isinstance(ev, gp.cuda.Event)
    assert isinstance(ev.ptr, int) and ev.ptr != 0
    mine = gp.cuda.Event(disable_timing=True)
    assert s.record(mine) is mine
    assert isinstance(mine.ptr, int) and mine.ptr not in (0, ev.ptr)
    mine.synchronize()
    assert mine.done and ev.done and s.done
    with s:
        assert_equal_to_numpy(c, chain.expected(10))


def test_wait_event_orders_two_streams(rng):
    """``s2.wait_event(s1.record())`` makes later work on s2 wait for s1's chain: s2
    reads the finished chain without any host synchronization."""
    chain = PermutationChain(rng)
    s1, s2 = new_stream(), new_stream()
    with s1:
        c = chain.queue()
    ev = s1.record()
    s2.wait_event(ev)
    busy = not ev.done
    with s2:
        y = c * 2.0
        got = y.get()
    np.testing.assert_array_equal(got, chain.expected() * np.float32(2.0), strict=True)
    assert busy, STILL_BUSY


def test_add_callback_and_launch_host_func_run_after_preceding_work(rng):
    """``add_callback(cb, arg)`` calls ``cb(stream, status, arg)`` and
    ``launch_host_func(fn, arg)`` calls ``fn(arg)``, each once, in queue order, only
    after the work queued before them (the chain is still running when they are
    queued and neither has run yet). The test polls ``done`` with sleeps rather than
    calling ``synchronize`` while a Python callback is pending, so that an
    implementation holding the GIL in ``synchronize`` fails here instead of hanging."""
    chain = PermutationChain(rng)
    s = new_stream()
    calls = []
    token = object()
    with s:
        c = chain.queue()
    s.add_callback(lambda stream, status, arg: calls.append(("callback", stream, status, arg)), token)
    s.launch_host_func(lambda arg: calls.append(("host_func", arg)), "second")
    early = list(calls)
    assert wait_until(lambda: len(calls) == 2), f"callbacks did not run: {calls}"
    s.synchronize()
    assert early == [], "a callback ran before the work queued ahead of it"
    kind, stream, status, arg = calls[0]
    assert kind == "callback" and stream == s and status == 0 and arg is token
    assert calls[1] == ("host_func", "second")
    with s:
        assert_equal_to_numpy(c, chain.expected())


# ---------------------------------------------------------------------------------------
# Bad input


def test_bad_stream_and_event_arguments():
    """``Stream(priority="x")`` is a TypeError; ``get_elapsed_time`` needs both events
    recorded (gpupy's message, host/src/event.rs)."""
    with pytest.raises(TypeError, match="(?i)int|priority"):
        gp.cuda.Stream(priority="x")
    a, b = gp.cuda.Event(), gp.cuda.Event()
    with pytest.raises(ValueError, match="both events must be recorded"):
        gp.cuda.get_elapsed_time(a, b)
    a.record()
    with pytest.raises(ValueError, match="both events must be recorded"):
        gp.cuda.get_elapsed_time(a, b)
    b.record()
    b.synchronize()
    assert gp.cuda.get_elapsed_time(a, b) >= 0.0


def test_event_of_another_device_cannot_be_recorded_on_this_one():
    """An Event made on device 1 recorded on a stream of device 0 is refused (CUDA
    requires the event and the stream to share a context)."""
    if gp.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs 2 GPUs: gpupy.cuda.runtime.getDeviceCount() < 2")
    with gp.cuda.Device(1):
        ev = gp.cuda.Event()
    with gp.cuda.Device(0):
        s = new_stream()
        with pytest.raises((ValueError, gp.cuda.CUDARuntimeError), match="(?i)device|context|handle"):
            ev.record(s)


# ---------------------------------------------------------------------------------------
# The stream-ordered memory pool


def test_pool_methods_and_class():
    """The default pool is a ``gp.cuda.MemoryPool``; a freed block is cached
    (``n_free_blocks``, ``free_bytes``), ``free_all_blocks`` gives every cached block
    back."""
    p = pool()
    assert isinstance(p, gp.cuda.MemoryPool)
    gc.collect()
    p.free_all_blocks()
    assert p.n_free_blocks() == 0 and p.free_bytes() == 0
    a = gp.empty((3 * MiB,), dtype=np.float32)
    a.fill(2.5)
    del a
    assert p.n_free_blocks() >= 1
    assert p.free_bytes() >= 12 * MiB
    assert p.free_bytes() == p.total_bytes() - p.used_bytes()
    p.free_all_blocks()
    assert p.n_free_blocks() == 0 and p.free_bytes() == 0
    assert p.total_bytes() == p.used_bytes()


def test_freed_block_is_reused_only_by_its_own_stream():
    """gpupy's rule (CuPy's per-stream arenas): a block freed after use on s1 goes
    back to s1's free list; an allocation of the same size on s2 does not take it,
    the next one on s1 does."""
    p = pool()
    gc.collect()
    p.free_all_blocks()
    s1, s2 = new_stream(), new_stream()
    n = 4 * MiB // 4
    with s1:
        a = gp.empty((n,), dtype=np.float32)
        a.fill(1.25)
        ptr = a.data.ptr
        del a
    with s2:
        b = gp.empty((n,), dtype=np.float32)
        b.fill(-3.0)
        assert b.data.ptr != ptr, "stream s2 took a block that s1 freed"
    with s1:
        c = gp.empty((n,), dtype=np.float32)
        assert c.data.ptr == ptr, "s1 did not reuse its own cached block"
        c.fill(4.0)
    s1.synchronize()
    s2.synchronize()
    assert_equal_to_numpy(b, np.full((n,), -3.0, np.float32))
    assert_equal_to_numpy(c, np.full((n,), 4.0, np.float32))


def test_block_freed_on_a_busy_stream_is_not_handed_to_another(rng):
    """The race the stream-ordered pool prevents. Stream A queues the chain (each
    product's 16 MiB input freed on A while later products are still queued) and then
    ``tmp = c * 2; res = tmp + c; del tmp``: all of these blocks are freed on A while
    A's work on them is pending. Stream B (its own cache warmed with blocks of the
    same size, so that it needs no driver allocation) immediately allocates same-size
    arrays and fills them with 5.0. If the pool handed B any of A's blocks, B's fill
    (running at once) and A's pending products write the same memory: A's result or
    B's fill values come out wrong."""
    chain = PermutationChain(rng)
    sa, sb = new_stream(), new_stream()
    shape = (CHAIN_N, CHAIN_N)
    with sb:
        warm = [gp.empty(shape, dtype=np.float32) for _ in range(10)]
        del warm
    sb.synchronize()
    with sa:
        c = chain.queue()
        tmp = c * 2.0
        res = tmp + c
        del tmp
    with sb:
        bs = [gp.full(shape, 5.0, dtype=np.float32) for _ in range(6)]
        for _ in range(2):
            e = gp.empty(shape, dtype=np.float32)
            e.fill(5.0)
            bs.append(e)
    busy = not sa.done
    sa.synchronize()
    sb.synchronize()
    with sa:
        np.testing.assert_array_equal(res.get(), chain.expected() * np.float32(3.0), strict=True)
    with sb:
        for b in bs:
            np.testing.assert_array_equal(b.get(), np.full(shape, 5.0, np.float32), strict=True)
    assert busy, STILL_BUSY


STRESS_STEPS = 4000
STRESS_DTYPES = [np.float32, np.float64, np.int32, np.int16, np.uint8, np.complex64]


def _full_plus(stream, n, v, dt):
    """``full(n, v) + v`` on ``stream``; the ``full`` temporary is freed on it as soon
    as the add is queued (no local keeps it, nor the result, alive)."""
    with stream:
        return gp.full((n,), v, dtype=dt) + v


def _check_live(live, streams):
    """Every live array holds exactly ``value`` in its dtype (after both streams
    finished), compared with NumPy's ``full``; cheap enough for hundreds of arrays."""
    for s in streams:
        s.synchronize()
    for arr, value, dt in live:
        got = arr.get()
        want = np.full(arr.shape, value, dtype=dt)
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, f"{bad.size} of {got.size} {dt.__name__} elements differ from {value}: first {got[bad[0]]!r}"


def test_pool_stress_two_streams(rng):
    """Thousands of allocations of random sizes (log-uniform, 1 to 2**18 elements, six
    dtypes) on two non-blocking streams, each ``b = full(n, v) + v`` freeing its
    input on its stream while the add is pending; arrays freed while the *other*
    stream is current; bursts of 1024 x 1024 products keep either stream busy. Every
    live array equals NumPy's ``full(n, 2v)`` at each checkpoint; afterwards the
    pool's ``used_bytes`` is back to its starting value."""
    gc.collect()
    p = pool()
    base = p.used_bytes()
    m = gp.asarray(random_array(rng, (1024, 1024), np.float32))
    gp.cuda.Device().synchronize()
    streams = [new_stream(), new_stream()]
    live = []
    allocations = 0
    for step in range(STRESS_STEPS):
        k = int(rng.integers(2))
        s, other = streams[k], streams[1 - k]
        r = rng.random()
        if r < 0.55 or not live:
            n = int(2.0 ** rng.uniform(0, 18))
            dt = STRESS_DTYPES[int(rng.integers(len(STRESS_DTYPES)))]
            v = int(rng.integers(1, 100))
            live.append((_full_plus(s, n, v, dt), 2 * v, dt))
            allocations += 2
        elif r < 0.9:
            i = int(rng.integers(len(live)))
            with other:
                live[i] = live[-1]
                live.pop()
        else:
            with s:
                for _ in range(4):
                    gp.matmul(m, m)
            allocations += 4
        if step % 1000 == 999:
            _check_live(live, streams)
    assert allocations >= 3000
    _check_live(live, streams)
    del live, m
    for s in streams:
        s.synchronize()
    gc.collect()
    assert p.used_bytes() == base, f"used_bytes {p.used_bytes()}, was {base} before the test"


def test_free_all_blocks_waits_for_pending_frees(rng):
    """``free_all_blocks()`` with blocks freed on a stream whose work on them is still
    queued waits for that work before giving the memory back: afterwards the stream
    is done, nothing is cached, and the pending result is exact even when another
    stream immediately reuses the released memory."""
    chain = PermutationChain(rng)
    p = pool()
    s, s2 = new_stream(), new_stream()
    with s:
        c = chain.queue()
        tmp = c * 2.0
        res = tmp + c
        del tmp, c
    assert p.n_free_blocks() > 0
    p.free_all_blocks()
    assert s.done is True, "free_all_blocks returned blocks while their stream still used them"
    assert p.free_bytes() == 0 and p.n_free_blocks() == 0
    assert p.total_bytes() == p.used_bytes()
    with s2:
        fills = [gp.full((CHAIN_N, CHAIN_N), 9.0, dtype=np.float32) for _ in range(4)]
    s2.synchronize()
    with s:
        np.testing.assert_array_equal(res.get(), chain.expected() * np.float32(3.0), strict=True)
    for f in fills:
        np.testing.assert_array_equal(f.get(), np.full((CHAIN_N, CHAIN_N), 9.0, np.float32), strict=True)


OOM_MESSAGE = re.compile(
    r"Out of memory allocating ([\d,]+) bytes \(allocated so far: ([\d,]+) bytes, "
    r"limit set to: ([\d,]+) bytes\)"
)


def test_set_limit(rng):
    """``set_limit(size=L)``: ``get_limit()`` is L; an allocation that would take the
    pool past L raises ``gp.cuda.memory.OutOfMemoryError`` (a MemoryError) with
    CuPy's message "Out of memory allocating N bytes (allocated so far: M bytes,
    limit set to: L bytes)." (N at least the request, M <= L); live arrays are intact
    and gpupy works afterwards; ``set_limit(size=0)`` lifts the limit;
    ``set_limit(fraction=0.5)`` is half the device's memory (CuPy:
    ``fraction * total`` of ``memGetInfo``)."""
    p = pool()
    previous = p.get_limit()
    gc.collect()
    p.free_all_blocks()
    x = random_array(rng, (1 << 16,), np.float64)
    g = gp.asarray(x)
    try:
        limit = p.total_bytes() + 32 * MiB
        p.set_limit(size=limit)
        assert p.get_limit() == limit
        y = random_array(rng, (MiB,), np.float32)  # 4 MiB: under the limit
        gy = gp.asarray(y)
        request = 64 * MiB
        with pytest.raises(gp.cuda.memory.OutOfMemoryError, match="Out of memory allocating") as info:
            gp.empty((request // 4,), dtype=np.float32)
        assert isinstance(info.value, MemoryError)
        m = OOM_MESSAGE.search(str(info.value))
        assert m, f"not CuPy's message shape: {info.value}"
        n, so_far, lim = (int(v.replace(",", "")) for v in m.groups())
        assert n >= request
        assert lim == limit
        assert so_far <= limit
        # The process is usable: live arrays intact, small work succeeds.
        assert_equal_to_numpy(g, x)
        assert_equal_to_numpy(gy * 2.0, y * np.float32(2.0))
        p.set_limit(size=0)
        assert p.get_limit() == 0
        big = gp.empty((request // 4,), dtype=np.float32)
        big.fill(1.5)
        assert_equal_to_numpy(big[-3:], np.full((3,), 1.5, np.float32))
        del big
        p.set_limit(fraction=0.5)
        total = gp.cuda.Device().mem_info[1]
        assert p.get_limit() == int(0.5 * total)
    finally:
        p.set_limit(size=previous)
    assert p.get_limit() == previous


def test_set_limit_bad_arguments():
    """CuPy's checks: a fraction outside [0, 1], a negative size, or both size and
    fraction are ValueErrors; the limit is unchanged after each."""
    p = pool()
    previous = p.get_limit()
    try:
        with pytest.raises(ValueError, match="fraction"):
            p.set_limit(fraction=1.5)
        with pytest.raises(ValueError, match="fraction"):
            p.set_limit(fraction=-0.1)
        with pytest.raises(ValueError, match="size and fraction"):
            p.set_limit(size=1 << 30, fraction=0.5)
        with pytest.raises(ValueError, match="size"):
            p.set_limit(size=-1)
        assert p.get_limit() == previous
    finally:
        p.set_limit(size=previous)


def test_pinned_memory_pool_free_all_blocks(rng):
    """The pinned (page-locked host) pool exists and gives its cache back: after host
    reads on a stream (which may stage through pinned buffers), ``free_all_blocks``
    leaves no free pinned blocks; the reads were right."""
    pinned = gp.get_default_pinned_memory_pool()
    x = random_array(rng, (1 << 18,), np.complex64)
    g = gp.asarray(x)
    gp.cuda.Device().synchronize()
    s = new_stream()
    with s:
        for _ in range(3):
            np.testing.assert_array_equal(gp.asnumpy(g * 2.0), x * np.float32(2.0), strict=True)
    pinned.free_all_blocks()
    assert pinned.n_free_blocks() == 0
