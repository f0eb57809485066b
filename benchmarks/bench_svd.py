"""Singular values (``linalg.svdvals``) and the 2-norm of matrices: gpupy's one-sided
Jacobi kernel against CuPy (cuSOLVER: ``gesvd``, or the batched Jacobi ``gesvdjBatched``
for small batched matrices) and NumPy (LAPACK ``gesdd``) in one run.

GPU times are CUDA-event medians after warm-up (``bench.gpu_ms``); NumPy's are wall-clock
medians. Also printed: the largest error of each library's singular values against
NumPy's float64 result, relative to the largest singular value.

    python benchmarks/bench_svd.py            # every row
    python benchmarks/bench_svd.py --quick    # fewer repetitions
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import cp, device_line, gpu_ms, host_ms  # noqa: E402

import gpupy as gp  # noqa: E402

# name, shape, dtype
CASES = [
    ("64x64 f64", (64, 64), np.float64),
    ("256x256 f64", (256, 256), np.float64),
    ("1024x1024 f64", (1024, 1024), np.float64),
    ("1024x1024 f32", (1024, 1024), np.float32),
    ("4096x256 f64 (tall)", (4096, 256), np.float64),
    ("512x512 c128", (512, 512), np.complex128),
    ("10000 x 16x16 f32 (batched)", (10000, 16, 16), np.float32),
    ("1000 x 64x48 f64 (batched)", (1000, 64, 48), np.float64),
]


def random(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def svdvals_error(got, want):
    return float(np.max(np.abs(got.astype(np.float64) - want)) / np.max(np.abs(want)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    reps, warm = (5, 1) if args.quick else (15, 2)
    rng = np.random.default_rng(0)
    print(device_line())
    head = f"{'svdvals':30} {'gpupy ms':>10} {'cupy ms':>10} {'numpy ms':>10} {'cupy/gpupy':>11} {'numpy/gpupy':>12} {'gpupy err':>10} {'cupy err':>10}"
    print(head)
    print("-" * len(head))
    for case, shape, dtype in CASES:
        x = random(rng, shape, dtype)
        wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
        want = np.linalg.svd(wide, compute_uv=False)
        gx = gp.asarray(x)
        g = gpu_ms(gp, lambda: gp.linalg.svdvals(gx), warm, reps)
        g_err = svdvals_error(gp.linalg.svdvals(gx).get(), want)
        c = c_err = None
        if cp is not None:
            cx = cp.asarray(x)
            c = gpu_ms(cp, lambda: cp.linalg.svd(cx, compute_uv=False), warm, reps)
            c_err = svdvals_error(cp.linalg.svd(cx, compute_uv=False).get(), want)
        h = host_ms(lambda: np.linalg.svd(x, compute_uv=False), 1, 3)
        fmt = lambda v, w=10, p=3: f"{v:{w}.{p}f}" if v is not None else f"{'-':>{w}}"
        err = lambda v: f"{v:10.1e}" if v is not None else f"{'-':>10}"
        print(
            f"{case:30} {fmt(g)} {fmt(c)} {fmt(h)} {fmt(c / g if c else None, 11, 2)} {fmt(h / g, 12, 2)} {err(g_err)} {err(c_err)}",
            flush=True,
        )
    print("(cupy/gpupy, numpy/gpupy > 1: gpupy is faster; errors are max |s - s_ref| / s_max against LAPACK in float64)")


if __name__ == "__main__":
    main()
