"""gpupy against NumPy, and CuPy when installed, in one run on one GPU.

GPU times come from CUDA events around each call (after warm-up, the median of many
runs); NumPy times from the wall clock. Each row prints the achieved rate next to the
limit that applies: bandwidth rows against a device-to-device copy measured here, matmul
rows in TFLOP/s.

    python benchmarks/bench.py            # the full table
    python benchmarks/bench.py --quick    # fewer repetitions
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import gpupy as gp

try:
    import cupy as cp
except Exception:  # CuPy is optional: its columns stay empty without it
    cp = None

MI = 1 << 20


def device_line():
    """The GPU's name and the library versions: the first line of a benchmark's table."""
    props = gp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    return f"device: {name}; numpy {np.__version__}" + (f", cupy {cp.__version__}" if cp else ", cupy not installed")


def gpu_ms(xp, fn, warmup, reps):
    """Median milliseconds of fn() between two CUDA events of library xp."""
    return b2b_ms(xp, fn, warmup, reps, inner=1)


def b2b_ms(xp, fn, warmup, reps, inner=10):
    """Median milliseconds per call of `inner` calls back to back between two CUDA events:
    the GPU's throughput, the host's launch work overlapping the previous call's kernels
    (`gpu_ms` times one call alone, its launch latency included)."""
    for _ in range(warmup):
        fn()
    start, end = xp.cuda.Event(), xp.cuda.Event()
    times = []
    for _ in range(reps):
        start.record()
        for _ in range(inner):
            fn()
        end.record()
        end.synchronize()
        times.append(xp.cuda.get_elapsed_time(start, end) / inner)
    return statistics.median(times)


def host_ms(fn, warmup, reps):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def per_call_us(xp, fn, calls, rounds):
    """Median host time of one call over `rounds` batches of `calls` calls, synchronized at the end."""
    for _ in range(calls):
        fn()
    xp.cuda.Device().synchronize()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        xp.cuda.Device().synchronize()
        times.append((time.perf_counter() - t) / calls * 1e6)
    return statistics.median(times)


def first_result_seconds():
    """Wall time from `import gpupy` to the first result, in a fresh process with no driver cache."""
    code = (
        "import time; t = time.perf_counter(); import gpupy as gp; "
        "r = (gp.ones(3) + 1).get(); assert r.tolist() == [2.0, 2.0, 2.0]; print(time.perf_counter() - t)"
    )
    env = dict(os.environ, CUDA_CACHE_DISABLE="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    reps, warm = (10, 2) if args.quick else (50, 5)
    np_reps = 2 if args.quick else 5
    rng = np.random.default_rng()
    props = gp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(f"device: {name}, {props['multiProcessorCount']} SMs, CC {props['major']}.{props['minor']}")
    print(f"numpy {np.__version__}" + (f", cupy {cp.__version__}" if cp else ", cupy not installed"))
    rows = []

    def row(case, gpupy_ms, cupy_ms, numpy_ms, rate, unit, limit=None):
        rows.append(dict(case=case, gpupy_ms=gpupy_ms, cupy_ms=cupy_ms, numpy_ms=numpy_ms, rate=rate, unit=unit, limit=limit))

    # Device-to-device copy: the bandwidth ceiling for the memory-bound rows.
    n = 64 * MI
    x32 = rng.random(n, dtype=np.float32)
    y32 = rng.random(n, dtype=np.float32)
    ga, gb = gp.asarray(x32), gp.asarray(y32)
    gout = gp.empty(n, dtype=np.float32)
    copy_ms = gpu_ms(gp, lambda: gout.__setitem__(Ellipsis, ga), warm, reps)
    copy_gbs = 2 * 4 * n / copy_ms / 1e6
    cupy_copy_ms = None
    if cp is not None:
        ca, cb = cp.asarray(x32), cp.asarray(y32)
        cout = cp.empty(n, dtype=np.float32)
        cupy_copy_ms = gpu_ms(cp, lambda: cp.copyto(cout, ca), warm, reps)
    row("copy 64 Mi float32 (d2d)", copy_ms, cupy_copy_ms, None, copy_gbs, "GB/s")

    # a + b, 64 Mi float32: 3 x 4 bytes per element.
    add_ms = gpu_ms(gp, lambda: ga + gb, warm, reps)
    cupy_add = gpu_ms(cp, lambda: ca + cb, warm, reps) if cp else None
    np_add = host_ms(lambda: x32 + y32, 1, np_reps)
    row("add 64 Mi float32", add_ms, cupy_add, np_add, 3 * 4 * n / add_ms / 1e6, "GB/s", copy_gbs)

    # sum, 64 Mi float32: 4 bytes per element.
    sum_ms = gpu_ms(gp, lambda: ga.sum(), warm, reps)
    cupy_sum = gpu_ms(cp, lambda: ca.sum(), warm, reps) if cp else None
    np_sum = host_ms(lambda: x32.sum(), 1, np_reps)
    row("sum 64 Mi float32", sum_ms, cupy_sum, np_sum, 4 * n / sum_ms / 1e6, "GB/s", copy_gbs)
    exact = float(np.sum(x32, dtype=np.float64))
    rel = abs(float(ga.sum()) - exact) / exact
    # Other full reductions of the same data: 4 bytes read per element.
    for name, gfn, cfn, nfn in [
        ("argmax 64 Mi float32", lambda: ga.argmax(), lambda: ca.argmax(), lambda: x32.argmax()),
        ("max 64 Mi float32", lambda: ga.max(), lambda: ca.max(), lambda: x32.max()),
        ("std 64 Mi float32", lambda: ga.std(), lambda: ca.std(), lambda: x32.std()),
    ]:
        g = gpu_ms(gp, gfn, warm, reps)
        c = gpu_ms(cp, cfn, warm, reps) if cp else None
        h = host_ms(nfn, 1, np_reps)
        row(name, g, c, h, 4 * n / g / 1e6, "GB/s", copy_gbs)
    # More elementwise kernels on the same 64 Mi float32 data: bytes moved per element.
    for name, gfn, cfn, nfn, nbytes in [
        ("multiply 64 Mi float32", lambda: ga * gb, lambda: ca * cb, lambda: x32 * y32, 12),
        ("sin 64 Mi float32", lambda: gp.sin(ga), lambda: cp.sin(ca), lambda: np.sin(x32), 8),
        ("exp 64 Mi float32", lambda: gp.exp(ga), lambda: cp.exp(ca), lambda: np.exp(x32), 8),
        ("less 64 Mi float32 -> bool", lambda: ga < gb, lambda: ca < cb, lambda: x32 < y32, 9),
        ("a + 1.5, 64 Mi float32", lambda: ga + 1.5, lambda: ca + 1.5, lambda: x32 + 1.5, 8),
    ]:
        g = gpu_ms(gp, gfn, warm, reps)
        c = gpu_ms(cp, cfn, warm, reps) if cp else None
        h = host_ms(nfn, 1, np_reps)
        row(name, g, c, h, nbytes * n / g / 1e6, "GB/s", copy_gbs)
    del ga, gb, gout, x32, y32
    if cp is not None:
        del ca, cb, cout

    # Broadcast and transposed adds on 8192 x 8192 float32.
    side = 8192
    m = rng.random((side, side), dtype=np.float32)
    v = rng.random(side, dtype=np.float32)
    m2 = rng.random((side, side), dtype=np.float32)
    gm, gv, gm2 = gp.asarray(m), gp.asarray(v), gp.asarray(m2)
    cases = [
        ("(8192,8192) + (8192,) broadcast", lambda: gm + gv, 2 * 4 * side * side + 4 * side),
        ("a.T + b.T (transposed views)", lambda: gm.T + gm2.T, 3 * 4 * side * side),
        ("a.T + a (mixed layouts)", lambda: gm.T + gm, 3 * 4 * side * side),
    ]
    for name, gfn, nbytes in cases:
        g = gpu_ms(gp, gfn, warm, reps)
        row(name, g, None, None, nbytes / g / 1e6, "GB/s", copy_gbs)
    if cp is not None:
        cm, cv, cm2 = cp.asarray(m), cp.asarray(v), cp.asarray(m2)
        for (name, _, nbytes), cfn in zip(cases, [lambda: cm + cv, lambda: cm.T + cm2.T, lambda: cm.T + cm]):
            r = next(r for r in rows if r["case"] == name)
            r["cupy_ms"] = gpu_ms(cp, cfn, warm, reps)
        del cm, cv, cm2
    # Reductions along each axis of 8192 x 8192 float32: 4 bytes read per element.
    for name, gfn, cfn, nfn in [
        ("sum(axis=0) 8192^2 float32", lambda: gm.sum(axis=0), lambda: cm.sum(axis=0), lambda: m.sum(axis=0)),
        ("sum(axis=1) 8192^2 float32", lambda: gm.sum(axis=1), lambda: cm.sum(axis=1), lambda: m.sum(axis=1)),
        ("std(axis=0) 8192^2 float32", lambda: gm.std(axis=0), lambda: cm.std(axis=0), lambda: m.std(axis=0)),
        ("max(axis=1) 8192^2 float32", lambda: gm.max(axis=1), lambda: cm.max(axis=1), lambda: m.max(axis=1)),
        ("argmax(axis=0) 8192^2 float32", lambda: gm.argmax(axis=0), lambda: cm.argmax(axis=0), lambda: m.argmax(axis=0)),
    ]:
        if cp is not None:
            cm = cp.asarray(m)
        g = gpu_ms(gp, gfn, warm, reps)
        c = gpu_ms(cp, cfn, warm, reps) if cp else None
        h = host_ms(nfn, 0, 1)
        row(name, g, c, h, 4 * side * side / g / 1e6, "GB/s", copy_gbs)
    if cp is not None:
        del cm
    del gm, gv, gm2, m, v, m2

    # Matrix products: 2 n^3 FLOPs.
    for size, dtype in [(1024, np.float32), (4096, np.float32), (4096, np.float64)]:
        a = rng.random((size, size)).astype(dtype)
        b = rng.random((size, size)).astype(dtype)
        ga, gb = gp.asarray(a), gp.asarray(b)
        g = gpu_ms(gp, lambda: ga @ gb, warm, max(reps // 2, 5))
        c = None
        if cp is not None:
            ca, cb = cp.asarray(a), cp.asarray(b)
            c = gpu_ms(cp, lambda: ca @ cb, warm, max(reps // 2, 5))
        h = host_ms(lambda: a @ b, 1, np_reps if size <= 1024 else 1)
        row(f"matmul {size} {np.dtype(dtype).name}", g, c, h, 2 * size**3 / g / 1e9, "TFLOP/s")

    # Per-call overhead of a + b on 1000 float32 elements (host time per call).
    x = rng.random(1000, dtype=np.float32)
    ga, gb = gp.asarray(x), gp.asarray(x)
    g_us = per_call_us(gp, lambda: ga + gb, 2000, 15)
    c_us = None
    if cp is not None:
        ca, cb = cp.asarray(x), cp.asarray(x)
        c_us = per_call_us(cp, lambda: ca + cb, 2000, 15)
    n_us = host_ms(lambda: x + x, 100, 200) * 1e3
    row("a + b, 1000 float32, per call", g_us / 1e3, c_us / 1e3 if c_us else None, n_us / 1e3, g_us, "us/call")

    startup = first_result_seconds()

    print()
    head = f"{'case':32} {'gpupy':>10} {'cupy':>10} {'numpy':>10} {'cupy/gpupy':>11} {'numpy/gpupy':>12}  rate"
    print(head)
    print("-" * len(head) + "-" * 24)
    fmt = lambda v: f"{v:10.4f}" if v is not None else f"{'-':>10}"
    for r in rows:
        speedup_cp = f"{r['cupy_ms'] / r['gpupy_ms']:11.2f}" if r["cupy_ms"] else f"{'-':>11}"
        speedup_np = f"{r['numpy_ms'] / r['gpupy_ms']:12.1f}" if r["numpy_ms"] else f"{'-':>12}"
        rate = f"{r['rate']:.1f} {r['unit']}"
        if r["limit"]:
            rate += f" ({100 * r['rate'] / r['limit']:.0f}% of copy)"
        print(f"{r['case']:32} {fmt(r['gpupy_ms'])} {fmt(r['cupy_ms'])} {fmt(r['numpy_ms'])} {speedup_cp} {speedup_np}  {rate}")
    print("(times in ms; cupy/gpupy > 1 means gpupy is faster; per-call row: ms per call, rate in us)")
    print(f"float32 sum of 64 Mi values in [0, 1): relative error vs float64 = {rel:.2e}")
    print(f"import gpupy -> first result (CUDA_CACHE_DISABLE=1, fresh process): {startup:.3f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(rows=rows, sum_rel_error=rel, startup_s=startup, device=name), f, indent=1)


if __name__ == "__main__":
    main()
