"""Where a dense linear-algebra call spends its GPU time: one call traced with CUPTI
(through PyTorch's profiler, which records every kernel of the process, gpupy's
included), kernels summed by name, next to the call's wall time and CuPy's. A tool
for choosing what to speed up; ``bench_linalg.py`` is the benchmark.

Cases are ``op:n:dtype`` with op one of solve, inv, det, cholesky, qr, eigh; extra
``:NAME=VALUE`` fields set a blocking constant of ``gpupy.linalg._decomp`` for that
case (``_LU_PANEL``, ``_LU_GRID_THREADS``, ``_LU_GRID_MIN_ROWS``, ``_POTRF_BLOCK``,
``_QR_PANEL``, ``_QR_GRID_THREADS``, ``_QR_BLOCK``, ``_QR_BLOCK_MIN``), and such
cases print only their wall time (a sweep) unless ``--each`` asks for a trace:

    python benchmarks/trace_linalg.py solve:4096:float64 cholesky:4096:float64
    python benchmarks/trace_linalg.py qr:4096:float64 qr:4096:float64:_QR_PANEL=16
    python benchmarks/trace_linalg.py --each getrf solve:4096:float64   # every launch of
                                          # a kernel whose name has "getrf", in order

Needs PyTorch with CUDA (and CuPy for its column). Call times: ``bench.gpu_ms``
(CUDA-event medians of 3 after one warm-up).
"""

import collections
import os
import sys

import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import cp, device_line, gpu_ms  # noqa: E402  (the shared timing helpers)

import gpupy as gp  # noqa: E402
import gpupy.linalg._decomp as decomp  # noqa: E402

KNOBS = ("_LU_PANEL", "_LU_GRID_THREADS", "_LU_GRID_MIN_ROWS", "_POTRF_BLOCK", "_QR_PANEL", "_QR_GRID_THREADS",
         "_QR_BLOCK", "_QR_BLOCK_MIN")
CALLS = {
    "solve": lambda xp, a, b: xp.linalg.solve(a, b),
    "inv": lambda xp, a, b: xp.linalg.inv(a),
    "det": lambda xp, a, b: xp.linalg.det(a),
    "cholesky": lambda xp, a, b: xp.linalg.cholesky(a),
    "qr": lambda xp, a, b: xp.linalg.qr(a),
    "eigh": lambda xp, a, b: xp.linalg.eigh(a),
}


def sync():
    torch.cuda.synchronize()


def inputs(op, n, dtype):
    """A well-conditioned matrix (``X X^T / n + I`` for Cholesky, symmetric for eigh,
    ``X + sqrt(n) I`` otherwise) and a right-hand side."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, n)).astype(dtype)
    if op == "cholesky":
        a = x @ x.T / n + np.eye(n, dtype=dtype)
    elif op == "eigh":
        a = (x + x.T) / 2
    else:
        a = x + dtype(np.sqrt(n)) * np.eye(n, dtype=dtype)
    return a, rng.standard_normal(n).astype(dtype)


def call_ms(call, xp, a, b):
    return gpu_ms(xp, lambda: call(xp, a, b), 1, 3)


def trace(call, a, b, each=None, top=8):
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        call(gp, a, b)
        sync()
    by_name = collections.defaultdict(lambda: [0, 0.0])
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    kernels.sort(key=lambda e: e.time_range.start)
    if each:
        times = [f"{e.device_time_total:.1f}" for e in kernels if each in e.name]
        print(f"  us per launch of *{each}*, in order: " + " ".join(times))
    for e in kernels:
        row = by_name[e.name[:70]]
        row[0] += 1
        row[1] += e.device_time_total / 1e3
    total = sum(t for _, t in by_name.values())
    launches = sum(c for c, _ in by_name.values())
    print(f"  kernels: {total:.2f} ms over {launches} launches")
    for name, (count, ms) in sorted(by_name.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {ms:9.3f} ms {count:5d}x  {name}")


def main(args):
    print(device_line())
    each = None
    if args[:1] == ["--each"]:
        each, args = args[1], args[2:]
    cases = args or ["solve:4096:float64"]
    defaults = {k: getattr(decomp, k) for k in KNOBS}
    for case in cases:
        op, n, dtype, *knobs = case.split(":")
        n, dtype = int(n), np.dtype(dtype).type
        for k, v in defaults.items():
            setattr(decomp, k, v)
        for kv in knobs:
            k, v = kv.split("=")
            if k not in KNOBS:
                raise SystemExit(f"unknown constant {k}; one of {KNOBS}")
            setattr(decomp, k, int(v))
        a, b = inputs(op, n, dtype)
        call = CALLS[op]
        ga, gb = gp.asarray(a), gp.asarray(b)
        line = f"{case}: gpupy {call_ms(call, gp, ga, gb):.2f} ms"
        if cp is not None and not knobs:
            line += f", cupy {call_ms(call, cp, cp.asarray(a), cp.asarray(b)):.2f} ms"
        print(line, flush=True)
        if not knobs or each:
            trace(call, ga, gb, each)


if __name__ == "__main__":
    main(sys.argv[1:])
