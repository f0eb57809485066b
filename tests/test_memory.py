"""The caching memory pool: blocks are returned and reused, free_all_blocks gives the
cache back, and running out of device memory is a recoverable OutOfMemoryError."""

import gc

import numpy as np
import pytest

import gpupy as gp
from helpers import assert_elementwise_result, assert_equal_to_numpy, random_array

pytestmark = pytest.mark.gpu

SLACK = 1 << 20  # bytes the pool may grow by beyond the first round (it should be 0)


def pool():
    return gp.get_default_memory_pool()


def one_round(rng, n):
    x_host = random_array(rng, (n,), np.float32)
    x = gp.asarray(x_host)
    y = (x + x) * 2.0
    s = float(y.sum())
    ref = float(np.sum((x_host.astype(np.float64) * 4.0)))
    assert abs(s - ref) <= 1e-5 * 4.0 * float(np.sum(np.abs(x_host.astype(np.float64))))
    del x, y


def test_pool_reuses_blocks_over_many_rounds(rng):
    gc.collect()
    p = pool()
    used0 = p.used_bytes()
    n = 100_003
    one_round(rng, n)
    assert p.used_bytes() == used0
    total1 = p.total_bytes()
    assert total1 >= used0 + n * 4  # the round's arrays went through the pool
    for _ in range(100):
        one_round(rng, n)
        assert p.used_bytes() == used0
    assert p.total_bytes() <= total1 + SLACK, f"the pool grew from {total1} to {p.total_bytes()} bytes"
    assert p.free_bytes() == p.total_bytes() - p.used_bytes()


def test_used_bytes_counts_live_arrays(rng):
    gc.collect()
    p = pool()
    used0 = p.used_bytes()
    x = random_array(rng, (3, 1000), np.float64)
    g = gp.asarray(x)
    assert p.used_bytes() >= used0 + g.nbytes
    v = g[::2, 1:]  # a view holds the same block, no new one
    assert p.used_bytes() >= used0 + g.nbytes
    used_with_g = p.used_bytes()
    del g
    assert p.used_bytes() == used_with_g  # the view keeps the block alive
    assert_equal_to_numpy(v, x[::2, 1:])
    del v
    assert p.used_bytes() == used0


def test_free_all_blocks(rng):
    gc.collect()
    p = pool()
    x = random_array(rng, (1025, 3), np.float64)
    keep = gp.asarray(x)
    for shape in [(1000,), (70000,), (3, 5), (2**20 + 7,)]:
        tmp = gp.asarray(random_array(rng, shape, np.float32))
        tmp = tmp * 2.0
        del tmp
    assert p.free_bytes() > 0
    p.free_all_blocks()
    assert p.free_bytes() == 0
    assert p.total_bytes() == p.used_bytes()
    assert p.used_bytes() >= keep.nbytes
    assert_equal_to_numpy(keep, x)  # live arrays are untouched
    y = random_array(rng, (1025, 3), np.float64)
    assert_elementwise_result(keep + gp.asarray(y), x + y)  # allocating again works


def test_out_of_memory_is_a_recoverable_memory_error(rng):
    gc.collect()
    p = pool()
    total = gp.cuda.runtime.getDeviceProperties(0)["totalGlobalMem"]
    x = random_array(rng, (4099,), np.float32)
    g = gp.asarray(x)
    used0 = p.used_bytes()
    with pytest.raises(gp.cuda.OutOfMemoryError, match=r"Out of memory allocating [\d,]+ bytes \(allocated so far: [\d,]+ bytes\)\.") as info:
        gp.empty(int(total * 2) // 4, dtype=np.float32)
    assert isinstance(info.value, MemoryError)
    assert "memory" in str(info.value).lower()
    with pytest.raises(MemoryError, match=r"Out of memory allocating [\d,]+ bytes \(allocated so far: [\d,]+ bytes\)\."):
        gp.empty((int(total * 2) // 8,), dtype=np.float64)
    assert p.used_bytes() == used0
    # Everything still works afterwards.
    assert_equal_to_numpy(g, x)
    y = random_array(rng, (4099,), np.float32)
    assert_elementwise_result(g * gp.asarray(y), x * y)
    s = float(gp.asarray(y).sum())
    assert abs(s - float(np.sum(y.astype(np.float64)))) <= 1e-5 * float(np.sum(np.abs(y)))

