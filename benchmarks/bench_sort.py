"""Sorting and searching: gpupy against CuPy (when installed) and NumPy in one run.

GPU times are CUDA-event medians after warm-up (``bench.gpu_ms``); NumPy's are wall-clock
medians. The issue's targets: ``sort`` of 64 Mi float32 and ``argsort`` of 16 Mi float32
within 1.5x of CuPy's time (the ``cupy/gpupy`` column at least 0.67).

    python benchmarks/bench_sort.py            # the full table
    python benchmarks/bench_sort.py --quick    # fewer repetitions
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import MI, cp, device_line, gpu_ms, host_ms  # noqa: E402

import gpupy as gp  # noqa: E402


def cases(rng):
    """(name, numpy input, gpupy call, cupy call, numpy call, keys per call)."""
    f64m = rng.random(64 * MI, dtype=np.float32)
    f16m = rng.random(16 * MI, dtype=np.float32)
    i16m = rng.integers(-(2**62), 2**62, size=16 * MI, dtype=np.int64)
    f1m = rng.random(MI, dtype=np.float32)
    rows2d = rng.random((4096, 4096), dtype=np.float32)
    dup = rng.integers(0, 1000, size=16 * MI).astype(np.float32)
    queries = rng.random(16 * MI, dtype=np.float32)
    sorted16 = np.sort(f16m)
    gs = gp.asarray(sorted16)
    cs = cp.asarray(sorted16) if cp is not None else None
    small = rng.random(10_000, dtype=np.float32)
    return [
        ("sort 64 Mi float32", f64m, lambda x: gp.sort(x), lambda x: cp.sort(x), np.sort, 64 * MI),
        ("argsort 16 Mi float32", f16m, lambda x: gp.argsort(x), lambda x: cp.argsort(x), np.argsort, 16 * MI),
        ("sort 16 Mi float32", f16m, lambda x: gp.sort(x), lambda x: cp.sort(x), np.sort, 16 * MI),
        ("sort 16 Mi int64", i16m, lambda x: gp.sort(x), lambda x: cp.sort(x), np.sort, 16 * MI),
        ("argsort 16 Mi int64", i16m, lambda x: gp.argsort(x), lambda x: cp.argsort(x), np.argsort, 16 * MI),
        ("sort 1 Mi float32", f1m, lambda x: gp.sort(x), lambda x: cp.sort(x), np.sort, MI),
        ("sort 10k float32", small, lambda x: gp.sort(x), lambda x: cp.sort(x), np.sort, 10_000),
        ("sort (4096,4096) f32 axis=-1", rows2d, lambda x: gp.sort(x, axis=-1), lambda x: cp.sort(x, axis=-1), lambda x: np.sort(x, axis=-1), 16 * MI),
        ("sort (4096,4096) f32 axis=0", rows2d, lambda x: gp.sort(x, axis=0), lambda x: cp.sort(x, axis=0), lambda x: np.sort(x, axis=0), 16 * MI),
        ("unique 16 Mi (1000 values)", dup, lambda x: gp.unique(x), lambda x: cp.unique(x), np.unique, 16 * MI),
        ("median 16 Mi float32", f16m, lambda x: gp.median(x), lambda x: cp.median(x), np.median, 16 * MI),
        (
            "searchsorted 16 Mi into 16 Mi",
            queries,
            lambda x: gp.searchsorted(gs, x),
            lambda x: cp.searchsorted(cs, x),
            lambda x: np.searchsorted(sorted16, x),
            16 * MI,
        ),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--no-numpy", action="store_true", help="skip the (slow) NumPy column")
    args = parser.parse_args()
    reps, warm = (7, 2) if args.quick else (25, 3)
    rng = np.random.default_rng(0)
    print(device_line())
    head = f"{'case':32} {'gpupy ms':>10} {'cupy ms':>10} {'numpy ms':>10} {'cupy/gpupy':>11} {'numpy/gpupy':>12} {'gpupy Gkeys/s':>14}"
    print(head)
    print("-" * len(head))
    for case, x, gfn, cfn, nfn, keys in cases(rng):
        gx = gp.asarray(x)
        g = gpu_ms(gp, lambda: gfn(gx), warm, reps)
        c = None
        if cp is not None:
            cx = cp.asarray(x)
            c = gpu_ms(cp, lambda: cfn(cx), warm, reps)
            del cx
        h = None if args.no_numpy else host_ms(lambda: nfn(x), 0, 1 if x.size > MI else 5)
        del gx
        fmt = lambda v: f"{v:10.3f}" if v is not None else f"{'-':>10}"
        ratio_c = f"{c / g:11.2f}" if c else f"{'-':>11}"
        ratio_n = f"{h / g:12.1f}" if h else f"{'-':>12}"
        print(f"{case:32} {fmt(g)} {fmt(c)} {fmt(h)} {ratio_c} {ratio_n} {keys / g / 1e6:14.2f}", flush=True)
    print("(cupy/gpupy > 1: gpupy is faster; target for sort 64 Mi / argsort 16 Mi float32: >= 0.67)")


if __name__ == "__main__":
    main()
