"""Host <-> device transfers: gpupy against CuPy (and PyTorch), in one run on one GPU.

Each row is a synchronous copy timed on the wall clock (a transfer's end is on the
host), the median of several runs after a warm-up, in GB/s (10^9 bytes per second):

- pageable in: ``gp.asarray(numpy_array)`` / ``cp.asarray`` / ``torch.from_numpy(...).cuda()``;
- pageable out: ``gp.asnumpy(x)`` / ``cp.asnumpy`` / ``t.cpu()`` (each makes a new
  NumPy array, as user code does);
- pinned in and out: the same from and into NumPy arrays in pinned memory
  (``gpupyx.empty_pinned``; CuPy's ``cupyx.empty_pinned``; PyTorch's pinned tensors).

The limit row is the bus: a ``bandwidthTest``-style copy of pinned memory by the
driver in one call (CuPy's ``runtime.memcpy``), measured here for each size.

    python benchmarks/bench_transfer.py            # 1 MiB .. 2 GiB
    python benchmarks/bench_transfer.py --quick    # fewer repetitions, up to 256 MiB
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

import gpupy as gp  # noqa: E402
import gpupyx  # noqa: E402
from bench import cp, device_line  # noqa: E402

try:
    import torch

    if not torch.cuda.is_available():
        torch = None
except Exception:  # PyTorch is optional: its column stays empty without it
    torch = None


def wall_ms(fn, warmup, reps):
    """Median wall-clock ms of fn() followed by a device synchronization (a library may
    return before an asynchronous copy from pinned memory ends)."""

    def call():
        fn()
        gp.cuda.Device().synchronize()

    for _ in range(warmup):
        call()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        call()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def gbps(nbytes, ms):
    return nbytes / ms / 1e6 if ms else float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, sizes up to 256 MiB")
    args = parser.parse_args()
    warm, reps = (1, 5) if args.quick else (2, 11)
    sizes = [1 << 20, 16 << 20, 256 << 20] + ([] if args.quick else [2 << 30])
    print(device_line() + (f", torch {torch.__version__}" if torch else ""))
    head = f"{'case':34s} {'size':>8s} {'gpupy':>9s} {'cupy':>9s} {'torch':>9s} {'gp/cupy':>8s} {'gp/torch':>8s} {'of bus':>7s}"
    print(head)
    print("-" * len(head))
    for nbytes in sizes:
        n = nbytes // 4
        label = f"{nbytes >> 20} MiB"
        host = np.random.default_rng(0).random(n, dtype=np.float32)
        pin = gpupyx.empty_pinned(n, dtype=np.float32)
        pin[...] = host
        g = gp.asarray(host)
        bus_in = bus_out = None
        rows = {}
        if cp is not None:
            import cupyx

            c = cp.asarray(host)
            cpin = cupyx.empty_pinned(n, dtype=np.float32)
            cpin[...] = host
            rt = cp.cuda.runtime
            bus_in = wall_ms(lambda: rt.memcpy(c.data.ptr, cpin.ctypes.data, nbytes, rt.memcpyHostToDevice), warm, reps)
            bus_out = wall_ms(lambda: rt.memcpy(cpin.ctypes.data, c.data.ptr, nbytes, rt.memcpyDeviceToHost), warm, reps)
        if torch is not None:
            th = torch.from_numpy(host)
            tpin = th.pin_memory()
            td = th.cuda()
        rows["pageable in"] = (
            wall_ms(lambda: gp.asarray(host), warm, reps),
            wall_ms(lambda: cp.asarray(host), warm, reps) if cp is not None else None,
            wall_ms(lambda: th.cuda(), warm, reps) if torch is not None else None,
            bus_in,
        )
        rows["pageable out"] = (
            wall_ms(lambda: gp.asnumpy(g), warm, reps),
            wall_ms(lambda: cp.asnumpy(c), warm, reps) if cp is not None else None,
            wall_ms(lambda: td.cpu(), warm, reps) if torch is not None else None,
            bus_out,
        )
        rows["pinned in"] = (
            wall_ms(lambda: gp.asarray(pin), warm, reps),
            wall_ms(lambda: cp.asarray(cpin), warm, reps) if cp is not None else None,
            wall_ms(lambda: tpin.cuda(non_blocking=False), warm, reps) if torch is not None else None,
            bus_in,
        )
        rows["pinned out"] = (
            wall_ms(lambda: g.get(out=pin), warm, reps),
            wall_ms(lambda: c.get(out=cpin), warm, reps) if cp is not None else None,
            wall_ms(lambda: tpin.copy_(td), warm, reps) if torch is not None else None,
            bus_out,
        )
        for case, (tg, tc, tt, tb) in rows.items():
            fmt = lambda t: f"{gbps(nbytes, t):9.1f}" if t else f"{'-':>9s}"  # noqa: E731
            ratio = lambda t: f"{t / tg:8.2f}" if t else f"{'-':>8s}"  # noqa: E731
            share = f"{100 * tb / tg:6.0f}%" if tb else f"{'-':>7s}"
            print(f"{case:34s} {label:>8s} {fmt(tg)} {fmt(tc)} {fmt(tt)} {ratio(tc)} {ratio(tt)} {share}")
        if bus_in:
            print(f"{'bus (pinned, one driver call) in':34s} {label:>8s} {gbps(nbytes, bus_in):9.1f}")
            print(f"{'bus (pinned, one driver call) out':34s} {label:>8s} {gbps(nbytes, bus_out):9.1f}")
    print("(GB/s; gp/x > 1 means gpupy is faster; 'of bus' is gpupy's rate as a share of the pinned bus rate)")
    streams(warm, reps)


def overlap_ms(xp, x_dev, x_pin, a, warm, reps):
    """(copy, compute, both) ms: a pinned 256 MiB upload on one stream (``set`` with
    ``stream=`` only queues it), a 4096^2 float32 matmul on another, and both at once."""
    s1, s2 = xp.cuda.Stream(non_blocking=True), xp.cuda.Stream(non_blocking=True)

    def copy():
        x_dev.set(x_pin, stream=s1)

    def compute():
        with s2:
            a @ a

    def both():
        copy()
        compute()

    return [wall_ms(f, warm, reps) for f in (copy, compute, both)]


def per_call_us(xp, calls=2000):
    """Host microseconds per small ``a + b`` with a non-null stream current."""
    a = xp.ones(1000, dtype=np.float32)
    with xp.cuda.Stream(non_blocking=True) as s:
        for _ in range(50):
            a + a
        s.synchronize()
        t = time.perf_counter()
        for _ in range(calls):
            a + a
        s.synchronize()
    return (time.perf_counter() - t) / calls * 1e6


def streams(warm, reps):
    print()
    print("streams: a 256 MiB pinned upload on one stream beside a 4096^2 float32 matmul on another")
    n = 64 << 20
    libs = [("gpupy", gp, gpupyx)]
    if cp is not None:
        import cupyx

        libs.append(("cupy", cp, cupyx))
    for name, xp, xpx in libs:
        pin = xpx.empty_pinned(n, dtype=np.float32)
        pin[...] = 1.0
        dev = xp.empty(n, dtype=np.float32)
        a = xp.ones((4096, 4096), dtype=np.float32)
        t_copy, t_compute, t_both = overlap_ms(xp, dev, pin, a, warm, reps)
        hidden = (t_copy + t_compute - t_both) / min(t_copy, t_compute)
        print(
            f"{name:6s} copy {t_copy:7.3f} ms  matmul {t_compute:7.3f} ms  both {t_both:7.3f} ms"
            f"  (overlap hides {100 * hidden:4.0f}% of the shorter)  a+b on a stream: {per_call_us(xp):5.1f} us/call"
        )


if __name__ == "__main__":
    main()
