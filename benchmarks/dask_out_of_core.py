"""Out-of-core on one GPU: a float32 array larger than the device's memory (by default
twice it), generated chunk by chunk with ``da.random`` under the ``gpupy`` backend,
standardized per column and summed, ``((x - x.mean(axis=0)) / x.std(axis=0)).sum()``,
on a distributed LocalCluster of one worker whose store spills device -> host -> disk.

    python benchmarks/dask_out_of_core.py                    # 2x device memory
    python benchmarks/dask_out_of_core.py --size-factor 1.5  # 1.5x device memory
    python benchmarks/dask_out_of_core.py --fraction 0.05    # everything scaled by 0.05: quick

Why it must spill: the final elementwise step needs every chunk of ``x`` and the column
statistics, which need every chunk of ``x``; so all chunks are held at once.

The store (``TieredStore``, the worker's ``data``; dask-cuda's device -> host -> disk
design, weights by ``dask.sizeof``, which gpupy registers as device bytes): a new value
goes to the device tier; past ``--device-limit`` of the device's memory the oldest
device values are copied to host memory (``gpupy.asnumpy``), past ``--host-limit`` of
the host's RAM the oldest host values are written to disk (distributed's
``serialize_bytelist``: gpupy's ``dask`` serializer for device values). Reads bring a
device copy up for the task but move nothing back (no LRU promotion: the second pass
reads ``x`` in the first pass's order, and an LRU store would evict, at every read, the
chunk read next, so every chunk would go through every tier again). The worker's
process-memory monitor is off (``memory_limit=0``): the tier limits are the policy.
Before it starts, the run checks that ``x`` fits the device and host tiers plus
``--disk-use`` of the free disk, and stops (exit 2) if not, naming the largest
``--size-factor`` that fits.

Verification (``--no-verify`` skips it):

1. sample: the first, a middle and the last chunk of ``x`` equal, bit for bit, the same
   chunks of the same seed under Dask's NumPy backend (gpupy's PCG64 ``random`` is
   NumPy's; Dask spawns the same per-chunk seeds);
2. statistics: every column's mean and std from the run (float32) against float64
   column sums of the same ``x``, regenerated chunk by chunk without spilling: on the
   GPU (``--reference gpu``, default: seconds; its chunks are NumPy's by check 1) or
   on the host with NumPy (``--reference numpy``: about 0.1 GiB/s per core), within
   worst-case bounds stated at ``check``;
3. the scalar: exactly, the sum is ``S = sum_j (colsum_j - n m_j) / s_j`` for the run's
   own float32 ``m``, ``s`` (zero but for their rounding); ``S`` from the float64 column
   sums against the run's result, within a random-rounding (probabilistic) bound.
"""

import argparse
import math
import shutil
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import MutableMapping

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
GiB = 2**30


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size-factor", type=float, default=2.0, help="x's bytes in device memories (default 2)")
    p.add_argument("--fraction", type=float, default=1.0,
                   help="scales x and, when < 1, the tier limits: a quick run that spills in the full run's proportions")
    p.add_argument("--cols", type=int, default=4096)
    p.add_argument("--chunk-mib", type=float, default=512.0, help="bytes per chunk of x (default 512 MiB)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--device-limit", type=float, default=0.5, help="of device memory, for stored values (default 0.5)")
    p.add_argument("--host-limit", type=float, default=0.6, help="of host RAM, for spilled values (default 0.6)")
    p.add_argument("--disk-use", type=float, default=0.85, help="of the spill directory's free disk that may be used")
    p.add_argument("--spill-dir", default=None, help="default: a new directory under the system's temp directory")
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--reference", choices=["gpu", "numpy"], default="gpu", help="where check 2 regenerates x")
    p.add_argument("--no-verify", action="store_true")
    return p.parse_args(argv)


class SpillFile(zict.File):
    """zict.File for Dask's keys (tuples such as ``("random-ab12", 3, 0)``; zict.File
    quotes its keys into file names, so they must be strings): the file name from
    ``str(key)``, as distributed's own spill file (``distributed.spill.AnyKeyFile``).
    zict.File still maps the original key to its file."""

    def _safe_key(self, key):
        return super()._safe_key(str(key))


def _nbytes(frames):
    return sum(memoryview(f).nbytes for f in frames)


class TieredStore(MutableMapping):
    """The worker's data: device, host and disk tiers; first in, first out down the
    tiers; reads move nothing up (module docstring). Counts the bytes and seconds of
    each move and each tier's peak bytes. ``to_host``/``to_device`` convert values
    between the device and host tiers (gpupy's by default; the CPU test of the storage
    layer passes stand-ins)."""

    TIERS = ("device", "host", "disk")

    def __init__(self, device_limit, host_limit, spill_dir, to_host=None, to_device=None, weight=sizeof):
        self.limit = {"device": device_limit, "host": host_limit}
        self.values = {"device": OrderedDict(), "host": OrderedDict()}
        self.disk = SpillFile(spill_dir)
        self.where = {}  # key -> (tier, bytes)
        self.used = dict.fromkeys(self.TIERS, 0)
        self.peak = dict.fromkeys(self.TIERS, 0)
        # [bytes, seconds] per move
        self.moved = {m: [0, 0.0] for m in ("device->host", "host->disk", "disk->host", "host->device")}
        self.to_host = to_host or _to_host
        self.to_device = to_device or _to_device
        self.weight = weight
        self.lock = threading.RLock()

    # -- bookkeeping

    def _put(self, tier, key, value, nbytes):
        if tier == "disk":
            self.disk[key] = value
        else:
            self.values[tier][key] = value
        self.where[key] = (tier, nbytes)
        self.used[tier] += nbytes
        self.peak[tier] = max(self.peak[tier], self.used[tier])

    def _pop_oldest(self, tier):
        key, value = self.values[tier].popitem(last=False)
        _, nbytes = self.where.pop(key)
        self.used[tier] -= nbytes
        return key, value, nbytes

    def _count(self, move, nbytes, t0):
        self.moved[move][0] += nbytes
        self.moved[move][1] += time.perf_counter() - t0

    def _spill(self):
        while self.used["device"] > self.limit["device"] and self.values["device"]:
            key, value, nbytes = self._pop_oldest("device")
            t0 = time.perf_counter()
            host = self.to_host(value)
            self._count("device->host", nbytes, t0)
            self._put("host", key, host, nbytes)
        while self.used["host"] > self.limit["host"] and self.values["host"]:
            key, value, _ = self._pop_oldest("host")
            t0 = time.perf_counter()
            frames = serialize_bytelist(value, compression=False, on_error="raise")
            nbytes = _nbytes(frames)
            self.disk[key] = frames
            self._count("host->disk", nbytes, t0)
            self.where[key] = ("disk", nbytes)
            self.used["disk"] += nbytes
            self.peak["disk"] = max(self.peak["disk"], self.used["disk"])

    # -- MutableMapping

    def __setitem__(self, key, value):
        with self.lock:
            if key in self.where:
                del self[key]
            self._put("device", key, value, self.weight(value))
            self._spill()

    def __getitem__(self, key):
        with self.lock:
            tier, nbytes = self.where[key]
            if tier == "device":
                return self.values["device"][key]
            if tier == "host":
                host = self.values["host"][key]
            else:
                t0 = time.perf_counter()
                host = deserialize_bytes(self.disk[key])
                self._count("disk->host", nbytes, t0)
            t0 = time.perf_counter()
            value = self.to_device(host)
            self._count("host->device", self.weight(value), t0)
            return value

    def __delitem__(self, key):
        with self.lock:
            tier, nbytes = self.where.pop(key)
            if tier == "disk":
                del self.disk[key]
            else:
                del self.values[tier][key]
            self.used[tier] -= nbytes

    def clear(self):
        # (MutableMapping's clear pops, i.e. reads, every value: from disk too)
        with self.lock:
            for key in list(self.where):
                del self[key]

    def __contains__(self, key):
        return key in self.where

    def __iter__(self):
        return iter(list(self.where))

    def __len__(self):
        return len(self.where)


def _to_host(value):
    return gp.asnumpy(value) if isinstance(value, gp.ndarray) else value


def _to_device(value):
    return gp.asarray(value) if isinstance(value, np.ndarray) else value


class Monitor(threading.Thread):
    """Samples gpupy's pool (bytes held from the driver, bytes of live arrays) and the
    device's used memory every 20 ms; keeps the maxima."""

    def __init__(self):
        super().__init__(daemon=True)
        self.pool, self.stop = gp.get_default_memory_pool(), threading.Event()
        self.peak = {"pool_total": 0, "pool_used": 0, "device_used": 0}

    def sample(self):
        free, total = gp.cuda.Device().mem_info
        now = {"pool_total": self.pool.total_bytes(), "pool_used": self.pool.used_bytes(), "device_used": total - free}
        for k, v in now.items():
            self.peak[k] = max(self.peak[k], v)

    def run(self):
        while not self.stop.wait(0.02):
            self.sample()


def graph(shape, chunks, seed):
    with dask.config.set({"array.backend": "gpupy"}):
        x = da.random.default_rng(seed).random(shape, chunks=chunks, dtype=np.float32)
    m, s = x.mean(axis=0), x.std(axis=0)
    return x, ((x - m) / s).sum(), m, s


def numpy_x(shape, chunks, seed):
    with dask.config.set({"array.backend": "numpy"}):
        return da.random.default_rng(seed).random(shape, chunks=chunks, dtype=np.float32)


def column_sums(x, reference):
    """float64 column sums of x and of x * x, chunk by chunk, no spilling."""
    if reference == "numpy":
        x64 = x.astype(np.float64)
        return dask.compute(x64.sum(axis=0), (x64 * x64).sum(axis=0), scheduler="threads")
    # On the GPU: 4 chunks at a time (each with its float64 copy and square).
    x64 = x.astype(np.float64)
    s1, s2 = dask.compute(x64.sum(axis=0), (x64 * x64).sum(axis=0), scheduler="threads", num_workers=4)
    return gp.asnumpy(s1), gp.asnumpy(s2)


def check(x, shape, chunks, seed, total, m, s, reference):
    """The three checks of the module docstring; returns (ok, lines)."""
    n, ncols = shape
    nchunks = len(chunks[0])
    xr = numpy_x(shape, chunks, seed)
    lines, ok = [], True
    for i in sorted({0, nchunks // 2, nchunks - 1}):
        same = np.array_equal(gp.asnumpy(x.blocks[i].compute(scheduler="sync")), xr.blocks[i].compute(scheduler="sync"))
        ok &= same
        lines.append(f"chunk {i}: {'bit-exact' if same else 'DIFFERS'} vs NumPy backend")
    colsum, colsq = column_sums(x if reference == "gpu" else xr, reference)
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


def plan(args, dev_total, host_total, disk_free):
    """x's shape and chunks, and the tier limits (bytes)."""
    rows_chunk = max(1, int(args.chunk_mib * 2**20 / (4 * args.cols)))
    chunk_bytes = rows_chunk * args.cols * 4
    nchunks = max(1, round(args.size_factor * dev_total * args.fraction / chunk_bytes))
    shape = (rows_chunk * nchunks, args.cols)
    chunks = ((rows_chunk,) * nchunks, (args.cols,))
    scale = min(1.0, args.fraction)  # a quick run spills in the full run's proportions
    device_limit = int(args.device_limit * dev_total * scale)
    host_limit = int(args.host_limit * host_total * scale)
    # A tier may pass its limit by one value before it spills.
    capacity = device_limit + host_limit + int(args.disk_use * disk_free) - 2 * chunk_bytes
    return shape, chunks, chunk_bytes, device_limit, host_limit, capacity


def _size(nbytes):
    return f"{nbytes / GiB:.1f} GiB" if abs(nbytes) >= GiB else f"{nbytes / 2**20:.1f} MiB"


def _rate(nbytes, seconds):
    return f"{_size(nbytes)} in {seconds:.1f} s ({nbytes / GiB / seconds:.2f} GiB/s)" if seconds > 0 else "none"


def main(argv=None):
    args = parse_args(argv)
    free, dev_total = gp.cuda.Device().mem_info
    host_total = psutil.virtual_memory().total
    spill_dir = args.spill_dir or tempfile.mkdtemp(prefix="dask-spill-")
    disk_free = shutil.disk_usage(spill_dir).free
    shape, chunks, chunk_bytes, device_limit, host_limit, capacity = plan(args, dev_total, host_total, disk_free)
    nchunks, nbytes = len(chunks[0]), shape[0] * shape[1] * 4
    print(f"device {_size(dev_total)} ({_size(free)} free), host RAM {_size(host_total)}, "
          f"disk free {_size(disk_free)} ({spill_dir})")
    print(f"x: {shape} float32 = {_size(nbytes)} = {nbytes / dev_total:.2f}x device memory; "
          f"{nchunks} chunks of {chunks[0][0]} x {args.cols} ({_size(chunk_bytes)})")
    to_host = max(0, nbytes - device_limit)
    to_disk = max(0, to_host - host_limit)
    print(f"tiers: device {_size(device_limit)}, host {_size(host_limit)}, "
          f"disk {_size(args.disk_use * disk_free)}; expected spill: ~{_size(to_host)} to host, "
          f"~{_size(to_disk)} of it to disk")
    print(f"largest x these tiers hold: {_size(capacity)} "
          f"(--size-factor {capacity / (dev_total * args.fraction):.2f})")
    if nbytes > capacity:
        print("x does not fit the tiers: use a smaller --size-factor (or --spill-dir on a larger disk)")
        if args.spill_dir is None:
            shutil.rmtree(spill_dir, ignore_errors=True)
        return 2

    store = TieredStore(device_limit, host_limit, spill_dir)
    monitor = Monitor()
    x, total, m, s = graph(shape, chunks, args.seed)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=args.threads, processes=False, dashboard_address=None,
        data=store, memory_limit=0,
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
    left = len(store)
    store.clear()
    print(f"time: {elapsed:.1f} s ({nbytes / elapsed / GiB:.2f} GiB/s of x)")
    print(f"result: {total_v:.6g}")
    pk = monitor.peak
    print(f"peak GPU memory: device used {_size(pk['device_used'])} of {_size(dev_total)}; "
          f"gpupy pool held {_size(pk['pool_total'])}, live arrays {_size(pk['pool_used'])}")
    print("peak stored: " + ", ".join(f"{t} {_size(store.peak[t])}" for t in store.TIERS))
    print("moved: " + "; ".join(f"{mv} {_rate(b, sec)}" for mv, (b, sec) in store.moved.items()))
    if left:
        print(f"note: {left} values were still stored after the run")
    ok = True
    if not args.no_verify:
        t0 = time.perf_counter()
        ok, lines = check(x, shape, chunks, args.seed, total_v, m_v, s_v, args.reference)
        for line in lines:
            print("check:", line)
        print(f"check: {'PASS' if ok else 'FAIL'} ({time.perf_counter() - t0:.1f} s, reference on {args.reference})")
    if args.spill_dir is None:
        shutil.rmtree(spill_dir, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
