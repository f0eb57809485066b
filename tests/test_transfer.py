"""Host <-> device transfers and pinned memory (issue #15).

Transfers take three paths (``host/src/transfer.rs``): one driver call below 4 MiB or
from pinned memory, and from 4 MiB of pageable memory a pipeline of worker threads, each
with two pinned staging buffers of 2 MiB. The sizes below cross each boundary: under
one stage, between the stage and the pipeline's start, an odd size whose last piece is
short, and one that gives every worker several pieces. Values are compared exactly
(a copy changes no bit).
"""

import gc

import numpy as np
import pytest

import gpupy as gp
import gpupyx
from helpers import ALL_DTYPES, assert_equal_to_numpy, dtype_id, random_array

pytestmark = pytest.mark.gpu

MI = 1 << 20
# Bytes: one direct call, below the pipeline, just above it (one short piece), many pieces.
SIZES = [3, 1 * MI + 5, 4 * MI + 12, 37 * MI + 1000]


def elements(nbytes, dtype):
    return max(1, nbytes // np.dtype(dtype).itemsize)


@pytest.mark.parametrize("nbytes", SIZES, ids=lambda b: f"{b}B")
@pytest.mark.parametrize("dtype", [np.float32, np.complex128, np.int8, np.bool_], ids=dtype_id)
def test_pageable_round_trip(rng, nbytes, dtype):
    """``asarray`` then ``asnumpy`` of a pageable NumPy array gives its bits back."""
    x = random_array(rng, (elements(nbytes, dtype),), dtype)
    g = gp.asarray(x)
    assert_equal_to_numpy(g, x)
    back = gp.asnumpy(g)
    assert back.dtype == x.dtype and back.flags.c_contiguous
    np.testing.assert_array_equal(back, x, strict=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_every_dtype_both_ways(rng, dtype):
    """Every dtype, large enough for the pipeline, both ways, and views of other
    layouts (made contiguous on the device before the copy out)."""
    x = random_array(rng, (515, 2053), dtype)
    g = gp.asarray(x)
    np.testing.assert_array_equal(g.get(), x, strict=True)
    np.testing.assert_array_equal(gp.asnumpy(g.T), x.T, strict=True)
    np.testing.assert_array_equal(gp.asnumpy(g[::-3, 5::2]), x[::-3, 5::2], strict=True)
    # Non-contiguous host input: NumPy's order="C" copy first.
    y = np.asfortranarray(x)[:, ::-1]
    np.testing.assert_array_equal(gp.asarray(y).get(), y, strict=True)


@pytest.mark.parametrize("nbytes", SIZES, ids=lambda b: f"{b}B")
def test_pinned_arrays_both_ways(rng, nbytes):
    """``gpupyx.empty_pinned`` arrays go straight to the copy engine: in by ``asarray``,
    out by ``get(out=)``, exact."""
    n = elements(nbytes, np.float64)
    p = gpupyx.empty_pinned((n,), dtype=np.float64)
    x = random_array(rng, (n,), np.float64)
    p[...] = x
    g = gp.asarray(p)
    assert_equal_to_numpy(g, x)
    out = gpupyx.zeros_pinned((n,), dtype=np.float64)
    assert not out.any()
    assert g.get(out=out) is out
    np.testing.assert_array_equal(out, x, strict=True)


@pytest.mark.parametrize("stream", ["non_blocking", "blocking", "ptds"])
def test_transfers_follow_the_current_stream(rng, stream):
    """On a non-null stream (the per-thread default stream included, whose handle
    names a different stream on each worker thread) the pipeline's copies come after the
    work queued on it: the copy out sees the finished product, the copy in lands before
    the next kernel reads it."""
    s = gp.cuda.Stream.ptds if stream == "ptds" else gp.cuda.Stream(non_blocking=stream == "non_blocking")
    a = random_array(rng, (1536, 1536), np.float32)
    x = np.rint(a * 8)  # small integers: every product is exact
    with s:
        g = gp.asarray(x)
        for _ in range(6):
            g = g @ gp.asarray(np.eye(1536, dtype=np.float32)[::-1])  # reverse the columns
        got = gp.asnumpy(g)
    np.testing.assert_array_equal(got, x, strict=True)  # six reversals: the identity


def test_get_and_set_with_stream_and_out(rng):
    """``set(arr, stream=)``, ``get(stream=, out=)`` and ``asnumpy(stream=, out=)``."""
    s = gp.cuda.Stream(non_blocking=True)
    x = random_array(rng, (700, 3000), np.float32)
    g = gp.empty(x.shape, dtype=np.float32)
    g.set(x, stream=s)
    s.synchronize()
    out = np.empty_like(x)
    assert g.get(stream=s, out=out) is out
    np.testing.assert_array_equal(out, x, strict=True)
    out2 = gpupyx.empty_like_pinned(x)
    assert gp.asnumpy(g, stream=s, out=out2) is out2
    np.testing.assert_array_equal(out2, x, strict=True)
    with pytest.raises(ValueError, match="Shape mismatch"):
        g.set(x[:10])


def test_pinned_memory_pointer_and_pool(rng):
    """``gp.cuda.alloc_pinned_memory`` blocks come from the pinned pool
    (``gp.cuda.get_default_pinned_memory_pool()`` / ``gp.get_default_pinned_memory_pool``,
    a ``gp.cuda.PinnedMemoryPool``) and go back to it when the last reference is gone;
    ``free_all_blocks`` returns the cache to the driver."""
    pool = gp.cuda.get_default_pinned_memory_pool()
    assert pool is gp.get_default_pinned_memory_pool()
    assert isinstance(pool, gp.cuda.PinnedMemoryPool)
    assert gp.cuda.pinned_memory.get_default_pinned_memory_pool() is pool
    gc.collect()
    pool.free_all_blocks()
    used0 = pool.used_bytes()
    assert pool.n_free_blocks() == 0
    m = gp.cuda.alloc_pinned_memory(3 * MI + 1)
    assert isinstance(m, gp.cuda.PinnedMemoryPointer)
    assert m.size == 3 * MI + 1 and m.ptr != 0 and int(m) == m.ptr
    assert pool.used_bytes() >= used0 + 3 * MI + 1
    assert pool.total_bytes() >= pool.used_bytes()
    # NumPy arrays over the block keep it: the block stays used while one lives.
    a = np.frombuffer(m.buffer(), dtype=np.uint8)
    a[:] = 7
    ptr = m.ptr
    del m
    gc.collect()
    assert pool.used_bytes() >= used0 + 3 * MI + 1
    assert a.sum(dtype=np.int64) == 7 * (3 * MI + 1)
    del a
    gc.collect()
    assert pool.used_bytes() == used0 and pool.n_free_blocks() == 1
    assert pool.free_bytes() >= 3 * MI
    # The cached block is reused for the same size class.
    again = gp.cuda.alloc_pinned_memory(3 * MI + 1)
    assert again.ptr == ptr and pool.n_free_blocks() == 0
    del again
    gc.collect()
    pool.free_all_blocks()
    assert pool.n_free_blocks() == 0 and pool.total_bytes() == pool.used_bytes() == used0


@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 0, 2), (129, 257)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.uint16], ids=dtype_id)
def test_empty_and_zeros_pinned(rng, shape, dtype):
    """``gpupyx.empty_pinned``/``zeros_pinned``/``*_like_pinned``: NumPy arrays of the
    shape and dtype (C order; F order on request), writable, zeros where asked."""
    e = gpupyx.empty_pinned(shape, dtype=dtype)
    assert isinstance(e, np.ndarray) and e.shape == shape and e.dtype == dtype
    assert e.flags.c_contiguous and e.flags.writeable
    z = gpupyx.zeros_pinned(shape, dtype=dtype)
    np.testing.assert_array_equal(z, np.zeros(shape, dtype), strict=True)
    x = random_array(rng, shape, dtype)
    zl = gpupyx.zeros_like_pinned(x)
    el = gpupyx.empty_like_pinned(x)
    assert zl.shape == el.shape == x.shape and zl.dtype == el.dtype == x.dtype and not zl.any()
    e[...] = x
    np.testing.assert_array_equal(gp.asnumpy(gp.asarray(e)), x, strict=True)
    if len(shape) == 2:
        f = gpupyx.empty_pinned(shape, dtype=dtype, order="F")
        assert f.flags.f_contiguous


def test_empty_pinned_bad_arguments():
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        gpupyx.empty_pinned((2, -1))
    with pytest.raises(ValueError, match="order must be 'C' or 'F'"):
        gpupyx.empty_pinned((2,), order="K")
    with pytest.raises(TypeError, match="data type"):
        gpupyx.empty_pinned((2,), dtype="not a dtype")


def test_non_blocking_get_and_set_with_pinned_memory(rng):
    """``get(out=pinned, blocking=False)`` and ``set(pinned, stream=)`` only queue the
    copy on the stream; after the stream's synchronize the values are there. The host
    array is kept alive until the copy has run even when the caller drops it."""
    s = gp.cuda.Stream(non_blocking=True)
    x = random_array(rng, (1000, 777), np.float64)
    g = gp.empty(x.shape, dtype=np.float64)
    p = gpupyx.empty_pinned(x.shape, dtype=np.float64)
    p[...] = x
    g.set(p, stream=s)
    del p
    gc.collect()
    with s:
        doubled = g * 2.0
    out = gpupyx.zeros_pinned(x.shape, dtype=np.float64)
    assert doubled.get(stream=s, out=out, blocking=False) is out
    s.synchronize()
    np.testing.assert_array_equal(out, x * 2.0, strict=True)
    # A pageable out= cannot be copied asynchronously: the copy completes on return.
    pageable = np.zeros_like(x)
    doubled.get(stream=s, out=pageable, blocking=False)
    np.testing.assert_array_equal(pageable, x * 2.0, strict=True)


class _Held:
    """What a user allocator returns: ``ptr`` and the object that keeps the memory."""

    def __init__(self, ptr, keep):
        self.ptr, self.keep = ptr, keep


def test_set_allocator_routes_device_allocations(rng):
    """``gp.cuda.set_allocator(f)`` makes every new device buffer ``f(size)``'s memory
    (here PyTorch's caching allocator); results stay right; ``get_allocator`` reports it;
    ``set_allocator(None)`` restores gpupy's pool."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    sizes = []

    def torch_alloc(size):
        sizes.append(size)
        t = torch.empty(size, dtype=torch.uint8, device="cuda")
        return _Held(t.data_ptr(), t)

    # Small integers: every product and sum below is exact in float32.
    x = np.rint(random_array(rng, (301, 129), np.float32) * 100)
    pool = gp.get_default_memory_pool()
    gp.cuda.set_allocator(torch_alloc)
    try:
        assert gp.cuda.get_allocator() is torch_alloc
        used = pool.used_bytes()
        g = gp.asarray(x)
        y = (g * 3.0).sum(axis=0)
        assert_equal_to_numpy(g, x)
        np.testing.assert_array_equal(y.get(), (x * np.float32(3.0)).sum(axis=0), strict=True)
        assert x.nbytes in sizes and pool.used_bytes() == used
    finally:
        gp.cuda.set_allocator(None)
    assert gp.cuda.get_allocator() is None
    count = len(sizes)
    assert_equal_to_numpy(gp.asarray(x) + 1, x + 1)
    assert len(sizes) == count


def test_allocator_failures_are_python_errors():
    def out_of_memory(size):
        raise MemoryError("no")

    def broken(size):
        raise RuntimeError("broken allocator")

    try:
        gp.cuda.set_allocator(out_of_memory)
        with pytest.raises(gp.cuda.memory.OutOfMemoryError, match="Out of memory allocating 4,000 bytes"):
            gp.empty(1000, dtype=np.float32)
        gp.cuda.set_allocator(broken)
        with pytest.raises(ValueError, match="the allocator set by set_allocator failed: RuntimeError: broken allocator"):
            gp.empty(1000, dtype=np.float32)
        gp.cuda.set_allocator(lambda size: _Held(1, None))
        with pytest.raises(ValueError, match="not aligned to 256 bytes"):
            gp.empty(1000, dtype=np.float32)
    finally:
        gp.cuda.set_allocator(None)
    with pytest.raises(TypeError, match="allocator must be callable or None"):
        gp.cuda.set_allocator(3)
    assert_equal_to_numpy(gp.ones(5), np.ones(5))


def test_set_pinned_memory_allocator(rng):
    """``gp.cuda.set_pinned_memory_allocator(f)``: pinned arrays come from ``f`` (here
    CuPy's pinned allocator) and still copy at once both ways; ``None`` restores the
    pool."""
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    sizes = []

    def cupy_pinned(size):
        sizes.append(size)
        return cp.cuda.alloc_pinned_memory(size)

    x = random_array(rng, (5000,), np.complex64)
    gp.cuda.set_pinned_memory_allocator(cupy_pinned)
    try:
        p = gpupyx.empty_pinned(x.shape, dtype=x.dtype)
        assert sizes == [x.nbytes]
        p[...] = x
        np.testing.assert_array_equal(gp.asarray(p).get(), x, strict=True)
    finally:
        gp.cuda.set_pinned_memory_allocator(None)
    q = gpupyx.empty_pinned((3,))
    assert sizes == [x.nbytes] and q.shape == (3,)
