"""Scans and counting: gpupy against CuPy and NumPy in one run on one GPU.

GPU times come from CUDA events around each call (after warm-up, the median of many
runs); NumPy times from the wall clock. Memory-bound rows print the bytes a minimal
implementation must move (read the input, write the output) per millisecond, next to a
device-to-device copy measured in the same run.

    python benchmarks/bench_scan.py            # the full table
    python benchmarks/bench_scan.py --quick    # fewer repetitions
    python benchmarks/bench_scan.py --json out.json
"""

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import MI, gpu_ms, host_ms  # noqa: E402  (the shared timing helpers)

import gpupy as gp  # noqa: E402

try:
    import cupy as cp
except Exception:  # CuPy is optional: its columns stay empty without it
    cp = None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    reps, warm = (10, 2) if args.quick else (50, 5)
    np_reps = 1 if args.quick else 3
    rng = np.random.default_rng(0)
    props = gp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(f"device: {name}, {props['multiProcessorCount']} SMs, CC {props['major']}.{props['minor']}")
    print(f"numpy {np.__version__}" + (f", cupy {cp.__version__}" if cp else ", cupy not installed"))
    rows = []

    def row(case, g, c, h, nbytes):
        rows.append(dict(case=case, gpupy_ms=g, cupy_ms=c, numpy_ms=h, gbs=nbytes / g / 1e6 if nbytes else None))

    # The ceiling: a device-to-device copy of 64 Mi float32 (read + write).
    n = 64 * MI
    x32 = rng.random(n, dtype=np.float32)
    ga = gp.asarray(x32)
    gout = gp.empty(n, dtype=np.float32)
    copy_ms = gpu_ms(gp, lambda: gout.__setitem__(Ellipsis, ga), warm, reps)
    copy_gbs = 2 * 4 * n / copy_ms / 1e6
    row("copy 64 Mi float32 (d2d)", copy_ms, None, None, 2 * 4 * n)
    del gout

    def case(label, gfn, cfn, nfn, nbytes, numpy_reps=np_reps):
        g = gpu_ms(gp, gfn, warm, reps)
        c = gpu_ms(cp, cfn, warm, reps) if cp is not None and cfn is not None else None
        h = host_ms(nfn, 0, numpy_reps) if nfn is not None else None
        row(label, g, c, h, nbytes)

    ca = cp.asarray(x32) if cp is not None else None
    # 1-D scans: one line cut into parts (reduce, scan of the totals, scan).
    case("cumsum 64 Mi float32", lambda: gp.cumsum(ga), cp and (lambda: cp.cumsum(ca)), lambda: np.cumsum(x32), 8 * n)
    x64 = x32.astype(np.float64)
    g64 = gp.asarray(x64)
    c64 = cp.asarray(x64) if cp is not None else None
    case("cumsum 64 Mi float64", lambda: gp.cumsum(g64), cp and (lambda: cp.cumsum(c64)), lambda: np.cumsum(x64), 16 * n)
    case("cumprod 64 Mi float32", lambda: gp.cumprod(ga), cp and (lambda: cp.cumprod(ca)), None, 8 * n)
    xi = rng.integers(0, 100, n, dtype=np.int32)
    gi = gp.asarray(xi)
    ci = cp.asarray(xi) if cp is not None else None
    case("cumsum 64 Mi int32 -> int64", lambda: gp.cumsum(gi), cp and (lambda: cp.cumsum(ci)), lambda: np.cumsum(xi), 12 * n)
    del g64, c64, x64

    # 2-D scans of 8192 x 8192 float32, along each axis (no transpose copies).
    side = 8192
    m = x32.reshape(side, side)
    gm = ga.reshape(side, side)
    cm = ca.reshape(side, side) if cp is not None else None
    for axis in (0, 1):
        case(
            f"cumsum(axis={axis}) 8192x8192 float32",
            lambda: gp.cumsum(gm, axis=axis),
            cp and (lambda: cp.cumsum(cm, axis=axis)),
            lambda: np.cumsum(m, axis=axis),
            8 * n,
        )
    # Many short rows and few long columns.
    k = n // 100 * 100
    gs = ga[:k].reshape(-1, 100)
    cs = ca[:k].reshape(-1, 100) if cp is not None else None
    case("cumsum(axis=1) rows of 100", lambda: gp.cumsum(gs, axis=1), cp and (lambda: cp.cumsum(cs, axis=1)), None, 8 * k)
    tall = x32.reshape(-1, 16)
    gt = ga.reshape(tall.shape)
    ct = ca.reshape(tall.shape) if cp is not None else None
    case("cumsum(axis=0) 4 Mi x 16", lambda: gp.cumsum(gt, axis=0), cp and (lambda: cp.cumsum(ct, axis=0)), None, 8 * n)
    case("diff 64 Mi float32", lambda: gp.diff(ga), cp and (lambda: cp.diff(ca)), lambda: np.diff(x32), 12 * n)

    # Counting: bincount with few bins (shared-memory histograms) and many (global atomics).
    for bins in (256, 1 << 20):
        xb = rng.integers(0, bins, n, dtype=np.int64)
        gb = gp.asarray(xb)
        cb = cp.asarray(xb) if cp is not None else None
        case(
            f"bincount 64 Mi int64, {bins} bins",
            lambda: gp.bincount(gb),
            cp and (lambda: cp.bincount(cb)),
            lambda: np.bincount(xb),
            8 * n,
            numpy_reps=1,
        )
        del gb, cb, xb
    # histogram: uniform bins over a given range, and over the data's own range.
    xn = rng.standard_normal(n).astype(np.float32)
    gn = gp.asarray(xn)
    cn = cp.asarray(xn) if cp is not None else None
    for label, kw in [("range=(-3,3), 100 bins", dict(bins=100, range=(-3, 3))), ("auto range, 1000 bins", dict(bins=1000))]:
        case(
            f"histogram 64 Mi float32, {label}",
            lambda: gp.histogram(gn, **kw),
            cp and (lambda: cp.histogram(cn, **kw)),
            lambda: np.histogram(xn, **kw),
            4 * n,
            numpy_reps=1,
        )
    edges = np.sort(rng.standard_normal(65)).astype(np.float32)
    ge, ce = gp.asarray(edges), (cp.asarray(edges) if cp is not None else None)
    case(
        "histogram 64 Mi float32, 64 explicit edges",
        lambda: gp.histogram(gn, bins=ge),
        cp and (lambda: cp.histogram(cn, bins=ce)),
        None,
        4 * n,
    )

    # Accuracy of the float32 cumsum (float64 accumulator) against float64.
    exact = np.cumsum(x32.astype(np.float64))
    got = gp.cumsum(ga).get().astype(np.float64)
    rel = float(np.max(np.abs(got - exact) / exact))
    np_rel = float(np.max(np.abs(np.cumsum(x32).astype(np.float64) - exact) / exact))

    print()
    head = f"{'case':44} {'gpupy':>9} {'cupy':>9} {'numpy':>9} {'cupy/gpupy':>11}  rate"
    print(head)
    print("-" * (len(head) + 26))
    fmt = lambda v: f"{v:9.3f}" if v is not None else f"{'-':>9}"
    for r in rows:
        sp = f"{r['cupy_ms'] / r['gpupy_ms']:11.2f}" if r["cupy_ms"] else f"{'-':>11}"
        rate = f"{r['gbs']:.0f} GB/s ({100 * r['gbs'] / copy_gbs:.0f}% of copy)" if r["gbs"] else ""
        print(f"{r['case']:44} {fmt(r['gpupy_ms'])} {fmt(r['cupy_ms'])} {fmt(r['numpy_ms'])} {sp}  {rate}")
    print("(times in ms, medians; cupy/gpupy > 1 means gpupy is faster; rate = minimal bytes moved per time)")
    print(f"float32 cumsum of 64 Mi values in [0, 1): max relative error vs float64 = {rel:.2e} (NumPy's float32 loop: {np_rel:.2e})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(rows=rows, copy_gbs=copy_gbs, cumsum_rel_error=rel, numpy_cumsum_rel_error=np_rel, device=name), f, indent=1)


if __name__ == "__main__":
    main()
