"""Custom kernels (issue #18): gpupy's ElementwiseKernel, ReductionKernel and RawKernel
against CuPy's same kernels and gpupy's own built-ins, in one run on one GPU.

GPU times come from CUDA events around each call (after warm-up, the median of many
runs); host overheads from the wall clock over many calls with one synchronization at
the end. The rows and the issue's targets:

(a) ``ElementwiseKernel`` ``y = a * x + b`` on 2**26 float32 (8 bytes moved per
    element) as a share of the device-to-device copy bandwidth measured in this run:
    target at least 90%; CuPy's same kernel beside it; the Rust version when its module
    is available (a Rust toolchain, or a cache folder from
    ``scripts/prebuild_rust_kernels.py``).
(b) ``ReductionKernel`` sum of squares on 2**26 float32 against gpupy's own ``sum`` of
    the same array: target within 10%; CuPy's ReductionKernel and ``cupy.sum`` beside.
    Timed one call between two events (the host's time to launch counts, as the GPU
    waits for it) and ten calls back to back (the GPU's time alone).
(c) host time of one cached call on 1000 elements: gpupy's ElementwiseKernel,
    ReductionKernel, RawKernel and built-in ``a + b``, and CuPy's same four: target
    gpupy's custom-kernel calls at most CuPy's.
(d) cold compile time of a small kernel: NVRTC through ``RawKernel`` and through a first
    ``ElementwiseKernel`` call (fresh ``GPUPY_CACHE_DIR``), CuPy's ``RawKernel.compile``
    (fresh ``CUPY_CACHE_DIR``), and rustc when a Rust toolchain is installed (with
    ``core`` already built; ``n/a`` otherwise, as on the GPU machines).

    python benchmarks/bench_userkernel.py            # the full table
    python benchmarks/bench_userkernel.py --quick    # fewer repetitions
    python benchmarks/bench_userkernel.py --json out.json
"""

import argparse
import json
import os
import sys
import tempfile
import time
import uuid

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
from bench import MI, cp, device_line, gpu_ms, per_call_us  # noqa: E402  (the shared timing helpers)
from userkernel_cases import AXPB, RUST_TUTORIAL, SUM_SQUARES  # noqa: E402  (the Rust kernels the prebuild covers)

import gpupy as gp  # noqa: E402
from gpupy._userkernel import _cache, _rustc  # noqa: E402

AXPB_ARGS = ("float32 x, float32 a, float32 b", "float32 y", "y = a * x + b;", "axpb")
SUM_SQUARES_ARGS = ("T x", "T y", "x * x", "a + b", "y = a", "0", "sum_squares")
SAXPY_SRC = r"""
extern "C" __global__
void saxpy(const float a, const float *x, const float *y, float *out, size_t n)
{
  size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n) {
    out[tid] = a * x[tid] + y[tid];
  }
}
"""


def rust_available(source, options=()):
    """Whether the Rust module of ``source`` can be had here: a toolchain, or the cache."""
    if _rustc.rust_toolchain_available()[0]:
        return True
    return _cache.lookup("rust", _rustc.rust_key_parts(source, options)) is not None


def rust_kernel(case, *layout_args, **layout_kw):
    """The Rust kernel of ``case`` (userkernel_cases), or None when its module for this
    call's layout is neither cached nor buildable."""
    k = case.make(gp)
    plan = k.plan(*layout_args, **layout_kw)
    return k if rust_available(plan.source, k.options) else None


def cold_seconds(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def cold_compiles():
    """(label, gpupy seconds, CuPy seconds or None) of first compiles, each of a source
    no cache has seen."""
    rows = []
    saved = {k: os.environ.get(k) for k in ("GPUPY_CACHE_DIR", "CUPY_CACHE_DIR", "GPUPY_RUST_BUILD_DIR")}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GPUPY_CACHE_DIR"] = os.path.join(tmp, "gpupy")
        os.environ["CUPY_CACHE_DIR"] = os.path.join(tmp, "cupy")
        # Rust's build folder (where `core` is built once) outside the fresh cache, as
        # scripts/prebuild_rust_kernels.py keeps it.
        os.environ.setdefault("GPUPY_RUST_BUILD_DIR", os.path.join(os.path.expanduser("~"), ".gpupy", "rust-build"))
        try:
            _cache.clear_memory()
            tag = uuid.uuid4().hex
            src = SAXPY_SRC + f"// {tag}\n"
            g = cold_seconds(lambda: gp.RawKernel(src, "saxpy"))
            c = None
            if cp is not None:
                ck = cp.RawKernel(src, "saxpy")
                c = cold_seconds(ck.compile)
            rows.append(("NVRTC: RawKernel saxpy (compile only)", g, c))
            x = gp.asarray(np.ones(1000, np.float32))
            op = f"y = a * x + b; /* {tag} */"
            k = gp.ElementwiseKernel(AXPB_ARGS[0], AXPB_ARGS[1], op, "axpb_cold")
            g = cold_seconds(lambda: (k(x, 2.0, 1.0), gp.cuda.Device().synchronize()))
            c = None
            if cp is not None:
                cx = cp.ones(1000, np.float32)
                ck = cp.ElementwiseKernel(AXPB_ARGS[0], AXPB_ARGS[1], op, "axpb_cold")
                c = cold_seconds(lambda: (ck(cx, 2.0, 1.0), cp.cuda.Device().synchronize()))
            rows.append(("NVRTC: first ElementwiseKernel call", g, c))
            ok, detail = _rustc.rust_toolchain_available()
            if ok:
                # `core` for NVPTX is built once per build folder: build it first (the
                # tutorial module), so the row times one user module.
                _rustc.compile_rust_module(RUST_TUTORIAL)
                rsrc = RUST_TUTORIAL + f"\n// {tag}\n"
                g = cold_seconds(lambda: gp.RawKernel(rsrc, "saxpy", language="rust"))
                rows.append(("rustc: RawKernel saxpy (core built)", g, None))
            else:
                rows.append(("rustc: RawKernel saxpy", None, None))
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            _cache.clear_memory()
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    reps, warm = (10, 2) if args.quick else (50, 5)
    calls, rounds = (500, 5) if args.quick else (2000, 15)
    rng = np.random.default_rng(0)
    print(device_line())
    rows = []

    def row(section, case, g, c, note=""):
        rows.append(dict(section=section, case=case, gpupy=g, cupy=c, note=note))

    # --- (a) elementwise: bandwidth against a device-to-device copy --------------------
    n = 64 * MI
    x = rng.uniform(-1, 1, n).astype(np.float32)
    gx = gp.asarray(x)
    gy = gp.empty(n, np.float32)
    copy_ms = gpu_ms(gp, lambda: gy.__setitem__(Ellipsis, gx), warm, reps)
    copy_gbs = 2 * 4 * n / copy_ms / 1e6
    cx = cy = None
    cupy_copy = None
    if cp is not None:
        cx = cp.asarray(x)
        cy = cp.empty(n, np.float32)
        cupy_copy = gpu_ms(cp, lambda: cp.copyto(cy, cx), warm, reps)
    row("a", "copy 64 Mi float32 (d2d)", copy_ms, cupy_copy, f"{copy_gbs:.0f} GB/s (the ceiling)")

    axpb = gp.ElementwiseKernel(*AXPB_ARGS)
    g = gpu_ms(gp, lambda: axpb(gx, 2.0, 1.0, gy), warm, reps)
    c = None
    if cp is not None:
        caxpb = cp.ElementwiseKernel(*AXPB_ARGS)
        c = gpu_ms(cp, lambda: caxpb(cx, 2.0, 1.0, cy), warm, reps)
    share = 2 * 4 * n / g / 1e6 / copy_gbs
    row("a", "ElementwiseKernel axpb, out given", g, c,
        f"{100 * share:.0f}% of copy (target >= 90%){'' if share >= 0.9 else '  BELOW TARGET'}")
    g = gpu_ms(gp, lambda: axpb(gx, 2.0, 1.0), warm, reps)
    c = gpu_ms(cp, lambda: caxpb(cx, 2.0, 1.0), warm, reps) if cp is not None else None
    row("a", "ElementwiseKernel axpb, out allocated", g, c, f"{100 * 8 * n / g / 1e6 / copy_gbs:.0f}% of copy")
    rk = rust_kernel(AXPB, x[:1], 2.0, 1.0)
    if rk is not None:
        g = gpu_ms(gp, lambda: rk(gx, 2.0, 1.0, gy), warm, reps)
        row("a", "Rust ElementwiseKernel axpb, out given", g, None, f"{100 * 8 * n / g / 1e6 / copy_gbs:.0f}% of copy")
    else:
        row("a", "Rust ElementwiseKernel axpb", None, None, "n/a (no toolchain, not in the cache)")

    # --- (b) reduction: sum of squares against gpupy's own sum -------------------------
    ss = gp.ReductionKernel(*SUM_SQUARES_ARGS)
    sum_ms = gpu_ms(gp, lambda: gp.sum(gx), warm, reps)
    cupy_sum = gpu_ms(cp, lambda: cp.sum(cx), warm, reps) if cp is not None else None
    row("b", "gp.sum 64 Mi float32", sum_ms, cupy_sum, f"{4 * n / sum_ms / 1e6:.0f} GB/s ({100 * 4 * n / sum_ms / 1e6 / copy_gbs:.0f}% of copy)")
    g = gpu_ms(gp, lambda: ss(gx), warm, reps)
    c = None
    if cp is not None:
        css = cp.ReductionKernel(*SUM_SQUARES_ARGS)
        c = gpu_ms(cp, lambda: css(cx), warm, reps)
    ratio = g / sum_ms
    row("b", "ReductionKernel sum_squares", g, c,
        f"{ratio:.2f}x gp.sum (target <= 1.10){'' if ratio <= 1.10 else '  ABOVE TARGET'}")
    # The same two back to back, 10 calls between the events: GPU time per call once
    # the host's launch overhead no longer leaves the GPU idle before each call.
    ten = lambda f: lambda: [f() for _ in range(10)]  # noqa: E731
    sum10 = gpu_ms(gp, ten(lambda: gp.sum(gx)), warm, max(reps // 10, 5)) / 10
    g10 = gpu_ms(gp, ten(lambda: ss(gx)), warm, max(reps // 10, 5)) / 10
    c10 = gpu_ms(cp, ten(lambda: css(cx)), warm, max(reps // 10, 5)) / 10 if cp is not None else None
    row("b", "  same, 10 calls back to back (per call)", g10, c10, f"{g10 / sum10:.2f}x gp.sum's {sum10:.4f} ms")
    rss = rust_kernel(SUM_SQUARES, x[:2**22])
    if rss is not None:
        g = gpu_ms(gp, lambda: rss(gx), warm, reps)
        row("b", "Rust ReductionKernel sum_squares", g, None, f"{g / sum_ms:.2f}x gp.sum")
    else:
        row("b", "Rust ReductionKernel sum_squares", None, None, "n/a (no toolchain, not in the cache)")
    exact = float(np.sum(x.astype(np.float64) ** 2))
    err = abs(float(ss(gx).get()) - exact) / exact

    # --- (c) host overhead of a cached call on 1000 elements ---------------------------
    m = 1000
    xs = rng.uniform(-1, 1, m).astype(np.float32)
    ys = rng.uniform(-1, 1, m).astype(np.float32)
    ga, gb, gout = gp.asarray(xs), gp.asarray(ys), gp.empty(m, np.float32)
    saxpy = gp.RawKernel(SAXPY_SRC, "saxpy")
    a32 = np.float32(2.0)
    blocks = (m + 255) // 256
    overhead = [
        ("built-in a + b", lambda: ga + gb, None),
        ("ElementwiseKernel axpb", lambda: axpb(ga, 2.0, 1.0), None),
        ("ReductionKernel sum_squares", lambda: ss(ga), None),
        ("RawKernel saxpy", lambda: saxpy((blocks,), (256,), (a32, ga, gb, gout, m)), None),
    ]
    if cp is not None:
        ca, cb, cout = cp.asarray(xs), cp.asarray(ys), cp.empty(m, np.float32)
        csaxpy = cp.RawKernel(SAXPY_SRC, "saxpy")
        cupy_fns = [lambda: ca + cb, lambda: caxpb(ca, 2.0, 1.0), lambda: css(ca),
                    lambda: csaxpy((blocks,), (256,), (a32, ca, cb, cout, m))]
        overhead = [(label, gfn, cfn) for (label, gfn, _), cfn in zip(overhead, cupy_fns)]
    for label, gfn, cfn in overhead:
        g = per_call_us(gp, gfn, calls, rounds)
        c = per_call_us(cp, cfn, calls, rounds) if cfn is not None else None
        note = "" if c is None else f"{'within' if g <= c else 'ABOVE'} CuPy's"
        row("c", f"{label}, 1000 float32 (us/call)", g, c, note)

    # --- (d) cold compiles -------------------------------------------------------------
    for label, g, c in cold_compiles():
        row("d", f"{label} (s)", g, c, "" if g is not None else "n/a (no Rust toolchain here)")

    print()
    head = f"{'':2}{'case':44} {'gpupy':>10} {'cupy':>10} {'cupy/gpupy':>11}  note"
    print(head)
    print("-" * (len(head) + 30))
    fmt = lambda v: f"{v:10.4f}" if v is not None else f"{'n/a':>10}"  # noqa: E731
    for r in rows:
        ratio = f"{r['cupy'] / r['gpupy']:11.2f}" if r["cupy"] and r["gpupy"] else f"{'-':>11}"
        print(f"{r['section']:2}{r['case']:44} {fmt(r['gpupy'])} {fmt(r['cupy'])} {ratio}  {r['note']}")
    print("(a), (b): ms per call; (c): us per call; (d): seconds. cupy/gpupy > 1: gpupy is faster.")
    print(f"sum_squares of 64 Mi float32 in [-1, 1): relative error vs float64 = {err:.2e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(rows=rows, sum_squares_rel_error=err, copy_gbs=copy_gbs, device=device_line()), f, indent=1)


if __name__ == "__main__":
    main()
