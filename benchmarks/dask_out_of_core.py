"""Out-of-core on one GPU: a float32 array of twice the device's memory, generated chunk
by chunk with ``da.random`` under the ``gpupy`` backend, standardized per column and
summed, ``((x - x.mean(axis=0)) / x.std(axis=0)).sum()``, on a distributed LocalCluster
of one worker that spills.

    python benchmarks/dask_out_of_core.py                 # 2x device memory
    python benchmarks/dask_out_of_core.py --fraction 0.1  # 0.2x device memory, quick

Why it must spill: the final elementwise step needs every chunk of ``x`` and the column
statistics, which need every chunk of ``x``; so all chunks are held at once (2x the
device). The worker's store weighs values by ``dask.sizeof`` (gpupy registers device
bytes for its arrays):

- ``--store tiered`` (default; dask-cuda's device -> host -> disk design): device chunks
  beyond ``--device-limit`` of the device's memory move to host memory (``gpupy.asnumpy``),
  host values beyond ``--host-limit`` of the host's RAM to disk (distributed's own
  ``serialize_bytelist``, i.e. gpupy's ``dask`` serializer); the worker's process-memory
  monitor is off (``memory_limit=0``): these limits are the spilling policy.
- ``--store distributed``: distributed's own SpillBuffer: ``memory_limit`` = device limit /
  the spill target, values beyond it go straight to disk. The run's disk must hold all
  the spill (about 1.6x the device's memory for a full run: more than a 64 GiB disk).

Verification (``--no-verify`` skips it), all against NumPy:

1. sample: the first, a middle and the last chunk of ``x`` equal, bit for bit, the same
   chunks of the same seed under Dask's NumPy backend (gpupy's PCG64 ``random`` is
   NumPy's; Dask spawns the same per-chunk seeds);
2. statistics: every column's mean and std from the run (float32) against a float64
   NumPy reference over the whole array regenerated on the host (NumPy backend, threaded
   scheduler; the same chunks), within worst-case bounds stated at ``check``;
3. the scalar: exactly, the sum is ``S = sum_j (colsum_j - n m_j) / s_j`` for the run's own
   float32 ``m``, ``s`` (zero but for their rounding); ``S`` from the float64 column sums
   against the run's result, within a random-rounding (probabilistic) bound.
"""

import argparse
import math
import shutil
import sys
import tempfile
import threading
import time

import numpy as np

import dask
import dask.array as da
import distributed
import psutil
import zict
from dask.sizeof import sizeof
from distributed.protocol import deserialize_bytes, serialize_bytelist

import gpupy as gp

U32 = np.finfo(np.float32).eps / 2
U64 = np.finfo(np.float64).eps / 2


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fraction", type=float, default=1.0, help="of the full size, 2x device memory (default 1)")
    p.add_argument("--cols", type=int, default=4096)
    p.add_argument("--chunk-mib", type=float, default=512.0, help="bytes per chunk of x (default 512 MiB)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--store", choices=["tiered", "distributed"], default="tiered")
    p.add_argument("--device-limit", type=float, default=0.4, help="of device memory (times --fraction when < 1), for stored chunks")
    p.add_argument("--host-limit", type=float, default=0.6, help="of host RAM (times --fraction when < 1; tiered store)")
    p.add_argument("--spill-dir", default=None)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--no-verify", action="store_true")
    return p.parse_args()


class Monitor(threading.Thread):
    """Samples gpupy's pool (bytes held from the driver, bytes of live arrays), the
    device's used memory and the store's tiers every 20 ms; keeps the maxima."""

    def __init__(self, tiers):
        super().__init__(daemon=True)
        self.pool, self.tiers, self.stop = gp.get_default_memory_pool(), tiers, threading.Event()
        self.peak = {"pool_total": 0, "pool_used": 0, "device_used": 0, **{k: 0 for k in tiers}}

    def sample(self):
        free, total = gp.cuda.Device().mem_info
        now = {"pool_total": self.pool.total_bytes(), "pool_used": self.pool.used_bytes(), "device_used": total - free}
        now.update({k: len(m) for k, m in self.tiers.items()})
        for k, v in now.items():
            self.peak[k] = max(self.peak[k], v)

    def run(self):
        while not self.stop.wait(0.02):
            self.sample()


def tiered_store(device_limit, host_limit, spill_dir):
    """device dict -> host dict (NumPy copies) -> files (distributed's serialization)."""

    def weight(key, value):
        return sizeof(value)

    def to_host(v):
        return gp.asnumpy(v) if isinstance(v, gp.ndarray) else v

    def to_device(v):
        return gp.asarray(v) if isinstance(v, np.ndarray) else v

    disk = zict.Func(lambda v: serialize_bytelist(v, on_error="raise"), deserialize_bytes, zict.File(spill_dir))
    host = zict.Buffer({}, disk, n=host_limit, weight=weight)
    device = zict.Buffer({}, zict.Func(to_host, to_device, host), n=device_limit, weight=weight)
    return device, {"chunks_on_device": device.fast, "chunks_on_host": host.fast, "chunks_on_disk": disk}


def graph(shape, chunks, seed):
    with dask.config.set({"array.backend": "gpupy"}):
        x = da.random.default_rng(seed).random(shape, chunks=chunks, dtype=np.float32)
    m, s = x.mean(axis=0), x.std(axis=0)
    return x, ((x - m) / s).sum(), m, s


def numpy_x(shape, chunks, seed):
    with dask.config.set({"array.backend": "numpy"}):
        return da.random.default_rng(seed).random(shape, chunks=chunks, dtype=np.float32)


def check(x, shape, chunks, seed, total, m, s):
    """The three checks of the module docstring; returns (ok, lines)."""
    n, ncols = shape
    nchunks = len(chunks[0])
    xr = numpy_x(shape, chunks, seed)
    lines, ok = [], True
    for i in sorted({0, nchunks // 2, nchunks - 1}):
        same = np.array_equal(gp.asnumpy(x.blocks[i].compute(scheduler="threads")), xr.blocks[i].compute())
        ok &= same
        lines.append(f"chunk {i}: {'bit-exact' if same else 'DIFFERS'} vs NumPy backend")
    x64 = xr.astype(np.float64)
    colsum, colsq = dask.compute(x64.sum(axis=0), (x64 * x64).sum(axis=0), scheduler="threads")
    m_ref = colsum / n
    s_ref = np.sqrt(np.maximum(colsq / n - m_ref * m_ref, 0))
    # Worst-case bounds. Reference (float64, n terms): n u64 relative: negligible next to
    # float32's. The run's mean: each chunk's column sum rounded to float32 (gpupy sums
    # float32 in a float64 accumulator), then Dask's tree over the C chunks in float32:
    # at most (C + 2) u32 sum|x| / n. The run's std (Dask's moment chunks, combined in
    # float32): the same (C + 4) u32 on the second moment, whose cancellation against m^2
    # scales it by (s^2 + m^2) / s^2 for the std: 2 (C + 4) u32 (s + m^2 / s).
    tol_m = 2 * (nchunks + 2) * U32 * m_ref
    tol_s = 2 * (nchunks + 4) * U32 * (s_ref + m_ref * m_ref / s_ref)
    err_m, err_s = np.abs(m.astype(np.float64) - m_ref), np.abs(s.astype(np.float64) - s_ref)
    ok_m, ok_s = bool(np.all(err_m <= tol_m)), bool(np.all(err_s <= tol_s))
    ok &= ok_m and ok_s
    lines.append(f"column means: max err {err_m.max():.3g} (bound {tol_m.min():.3g}): {'ok' if ok_m else 'FAIL'}")
    lines.append(f"column stds:  max err {err_s.max():.3g} (bound {tol_s.min():.3g}): {'ok' if ok_s else 'FAIL'}")
    m32, s32 = m.astype(np.float64), s.astype(np.float64)
    s_want = float(np.sum((colsum - n * m32) / s32))
    # Random-rounding model (each rounding an independent error of at most u times the
    # value, mean zero): the N elementwise (x - m) / s carry ~2 roundings of |z| each,
    # the per-chunk sums one rounding of the partial, the C-term float32 tree C more:
    # 6 standard deviations of sqrt(N) 2 u32 rms(z) plus the tree's worst case over the
    # partials (|partial| <= sqrt(rows_chunk * cols) * 6 for z of unit variance), plus
    # the reference's float64 column sums (worst case n u64 sum|x| / s per column).
    N = n * ncols
    rows_chunk = chunks[0][0]
    tol_sum = 6 * math.sqrt(N) * 2 * U32 + 2 * nchunks * U32 * (6 * math.sqrt(rows_chunk * ncols) + abs(s_want))
    tol_sum += float(np.sum(n * U64 * colsum / s32))
    err = abs(float(total) - s_want)
    ok_t = err <= tol_sum
    ok &= ok_t
    lines.append(
        f"sum: run {float(total):.6g}, from float64 column sums {s_want:.6g}, "
        f"|diff| {err:.3g} (bound {tol_sum:.3g}): {'ok' if ok_t else 'FAIL'}"
    )
    return ok, lines


def main():
    args = parse_args()
    free, dev_total = gp.cuda.Device().mem_info
    host_total = psutil.virtual_memory().total
    target = 2 * dev_total * args.fraction
    rows_chunk = max(1, int(args.chunk_mib * 2**20 / (4 * args.cols)))
    nchunks = max(1, round(target / (rows_chunk * args.cols * 4)))
    shape = (rows_chunk * nchunks, args.cols)
    chunks = ((rows_chunk,) * nchunks, (args.cols,))
    nbytes = shape[0] * shape[1] * 4
    # Scaled with --fraction, so a quick run spills in the full run's proportions.
    scale = min(1.0, args.fraction)
    device_limit = int(args.device_limit * dev_total * scale)
    host_limit = int(args.host_limit * host_total * scale)
    spill_dir = args.spill_dir or tempfile.mkdtemp(prefix="dask-spill-")
    disk_free = shutil.disk_usage(spill_dir).free
    print(f"device {dev_total / 2**30:.1f} GiB, host RAM {host_total / 2**30:.1f} GiB, disk free {disk_free / 2**30:.1f} GiB")
    print(f"x: {shape} float32 = {nbytes / 2**30:.1f} GiB ({nbytes / dev_total:.2f}x device memory), "
          f"{nchunks} chunks of {rows_chunk} x {args.cols} ({rows_chunk * args.cols * 4 / 2**20:.0f} MiB)")
    spill_need = nbytes - device_limit - (host_limit if args.store == "tiered" else 0)
    if spill_need > disk_free:
        print(f"warning: about {spill_need / 2**30:.0f} GiB would go to disk, {disk_free / 2**30:.0f} GiB free")

    if args.store == "tiered":
        data, tiers = tiered_store(device_limit, host_limit, spill_dir)
        worker = {"data": data, "memory_limit": 0}
    else:
        tiers = {}
        target_frac = dask.config.get("distributed.worker.memory.target")
        worker = {"memory_limit": int(device_limit / target_frac), "local_directory": spill_dir}
    print(f"store: {args.store}, device limit {device_limit / 2**30:.1f} GiB"
          + (f", host limit {host_limit / 2**30:.1f} GiB" if args.store == "tiered" else ""))

    monitor = Monitor(tiers)
    x, total, m, s = graph(shape, chunks, args.seed)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=args.threads, processes=False, dashboard_address=None, **worker
    ) as cluster, distributed.Client(cluster) as client:
        monitor.start()
        t0 = time.perf_counter()
        total_v, m_v, s_v = client.compute([total, m, s], sync=True)
        gp.cuda.Device().synchronize()
        elapsed = time.perf_counter() - t0
        monitor.stop.set()
        monitor.join()
        monitor.sample()
    total_v, m_v, s_v = float(gp.asnumpy(total_v)), gp.asnumpy(m_v), gp.asnumpy(s_v)
    print(f"time: {elapsed:.1f} s ({nbytes / elapsed / 2**30:.2f} GiB/s of x)")
    print(f"result: {total_v:.6g}")
    pk = monitor.peak
    print(f"peak GPU memory: pool held {pk['pool_total'] / 2**30:.2f} GiB, live arrays {pk['pool_used'] / 2**30:.2f} GiB, "
          f"device used {pk['device_used'] / 2**30:.2f} GiB of {dev_total / 2**30:.1f}")
    if tiers:
        print("peak chunks per tier: " + ", ".join(f"{k} {pk[k]}" for k in tiers))
    ok = True
    if not args.no_verify:
        t0 = time.perf_counter()
        ok, lines = check(x, shape, chunks, args.seed, total_v, m_v, s_v)
        for line in lines:
            print("check:", line)
        print(f"check: {'PASS' if ok else 'FAIL'} ({time.perf_counter() - t0:.1f} s)")
    if args.spill_dir is None:
        shutil.rmtree(spill_dir, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
