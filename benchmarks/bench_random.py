"""gpupy.random against CuPy (cupy.random), NumPy and PyTorch in one run on one GPU.

GPU times are CUDA-event medians after warm-up (``bench.gpu_ms``), NumPy's wall-clock
medians. Rows that write memory print the rate of bytes written against a
device-to-device copy of the same bytes measured in this run (bytes copied over the
copy's time: the copy reads and writes, so a pure writer can exceed 100%).

    python benchmarks/bench_random.py            # every row
    python benchmarks/bench_random.py --quick    # fewer repetitions
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import cp, device_line, gpu_ms, host_ms  # noqa: E402

import gpupy as gp  # noqa: E402

try:
    import torch
except Exception:  # PyTorch is optional: its column stays empty without it
    torch = None

N = 2**26


def torch_ms(fn, warmup, reps):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return sorted(times)[len(times) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    reps, warm = (7, 2) if args.quick else (25, 3)
    print(device_line() + (f", torch {torch.__version__}" if torch else ""))
    g = gp.random.default_rng(0)
    c = cp.random.default_rng(0) if cp else None
    n_np = np.random.default_rng(0)
    big32 = gp.empty(N, dtype=np.float32)
    dst32 = gp.empty(N, dtype=np.float32)
    copy_ms = gpu_ms(gp, lambda: dst32.__setitem__(Ellipsis, big32), warm, reps)
    copy_rate = N * 4 / copy_ms / 1e6  # GB/s of bytes written by the copy
    print(f"device-to-device copy of 256 MiB: {copy_ms:.4f} ms = {copy_rate:.0f} GB/s written")
    tg = torch.Generator(device="cuda") if torch else None

    # name, gpupy fn, cupy fn (its Generator, or cupy.random's legacy functions where the
    # Generator lacks the method), numpy fn (or None), torch fn (or None), bytes written
    rows = [
        ("random(2**26, float32)", lambda: g.random(N, dtype=np.float32),
         (lambda: cp.random.random(N, dtype=cp.float32)) if cp else None,
         lambda: n_np.random(N, dtype=np.float32),
         (lambda: torch.rand(N, device="cuda", generator=tg)) if torch else None, N * 4),
        ("random(2**26) float64 NumPy-exact", lambda: g.random(N),
         (lambda: c.random(N)) if cp else None, lambda: n_np.random(N),
         (lambda: torch.rand(N, device="cuda", dtype=torch.float64, generator=tg)) if torch else None, N * 8),
        ("standard_normal(2**26, float32)", lambda: g.standard_normal(N, dtype=np.float32),
         (lambda: c.standard_normal(N, dtype=cp.float32)) if cp else None,
         lambda: n_np.standard_normal(N, dtype=np.float32),
         (lambda: torch.randn(N, device="cuda", generator=tg)) if torch else None, N * 4),
        ("standard_normal(2**26) float64", lambda: g.standard_normal(N),
         (lambda: c.standard_normal(N)) if cp else None, None, None, N * 8),
        ("integers(0, 100, 2**26) int64", lambda: g.integers(0, 100, N),
         (lambda: c.integers(0, 100, N)) if cp else None, lambda: n_np.integers(0, 100, N),
         (lambda: torch.randint(0, 100, (N,), device="cuda", generator=tg)) if torch else None, N * 8),
        ("exponential(2**26) float64", lambda: g.exponential(size=N),
         (lambda: c.exponential(size=N)) if cp else None, None, None, N * 8),
        ("gamma(2.5, 2**24)", lambda: g.gamma(2.5, size=2**24),
         (lambda: c.gamma(2.5, size=2**24)) if cp else None, None, None, 2**24 * 8),
        ("poisson(30, 2**24)", lambda: g.poisson(30.0, 2**24),
         (lambda: c.poisson(30.0, 2**24)) if cp else None, None, None, 2**24 * 8),
        ("binomial(100, 0.3, 2**24)", lambda: g.binomial(100, 0.3, 2**24),
         (lambda: c.binomial(100, 0.3, 2**24)) if cp else None, None, None, 2**24 * 8),
        ("permutation(2**24)", lambda: g.permutation(2**24),
         (lambda: cp.random.permutation(2**24)) if cp else None, None,
         (lambda: torch.randperm(2**24, device="cuda", generator=tg)) if torch else None, 0),
        ("choice(10**6, 10**5, replace=False)", lambda: g.choice(10**6, 10**5, replace=False),
         (lambda: cp.random.choice(10**6, 10**5, replace=False)) if cp else None, None, None, 0),
    ]
    x_gp = gp.arange(2**24, dtype=np.float32)
    x_cp = cp.arange(2**24, dtype=cp.float32) if cp else None
    rows.append(("shuffle of 2**24 float32", lambda: g.shuffle(x_gp),
                 (lambda: cp.random.shuffle(x_cp)) if cp else None, None, None, 0))

    head = f"{'case':40} {'gpupy':>9} {'cupy':>9} {'numpy':>9} {'torch':>9} {'cupy/gpupy':>10} {'numpy/gpupy':>11} {'torch/gpupy':>11}  rate"
    print(head)
    print("-" * (len(head) + 30))
    for name, f, fc, fn, ft, nbytes in rows:
        t = gpu_ms(gp, f, warm, reps)
        tc = gpu_ms(cp, fc, warm, reps) if fc else None
        tn = host_ms(fn, 1, 3) if (fn and not args.quick) else None
        tt = torch_ms(ft, warm, reps) if ft else None
        fmt = lambda v: f"{v:9.4f}" if v is not None else f"{'-':>9}"  # noqa: E731
        ratio = lambda v, w: f"{v / t:{w}.2f}" if v is not None else f"{'-':>{w}}"  # noqa: E731
        rate = ""
        if nbytes:
            r = nbytes / t / 1e6
            rate = f"{r:.0f} GB/s ({100 * r / copy_rate:.0f}% of copy)"
        print(f"{name:40} {fmt(t)} {fmt(tc)} {fmt(tn)} {fmt(tt)} {ratio(tc, 10)} {ratio(tn, 11)} {ratio(tt, 11)}  {rate}")
    print("(times in ms; x/gpupy > 1 means gpupy is faster; NumPy column only without --quick)")


if __name__ == "__main__":
    main()
