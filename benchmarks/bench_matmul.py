"""Matrix products: gpupy against CuPy and PyTorch (and NumPy for the small float32
case), in one run on one GPU.

Every GPU time is the median of CUDA-event timings around one call, after warm-up; each
library is timed with its own events on its own default stream. Rows print TFLOP/s
(2*m*n*k per product) and gpupy's ratio to CuPy and PyTorch (in time: above 1 means
gpupy is faster). The TF32 row turns TF32 on in all three libraries
(``gpupy.config.allow_tf32``; CuPy through cuBLAS's math mode, since it reads
``CUPY_TF32`` only at import; PyTorch through ``torch.backends.cuda.matmul.allow_tf32``).
The bfloat16 rows (when ml_dtypes is installed) compare with PyTorch only: CuPy has no
bfloat16; gpupy writes float32, NumPy's matmul result for bfloat16, PyTorch bfloat16.

    python benchmarks/bench_matmul.py            # every row
    python benchmarks/bench_matmul.py --quick    # fewer repetitions
    python benchmarks/bench_matmul.py --only f16 # rows whose name contains "f16"
"""

import argparse
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import gpu_ms, host_ms  # noqa: E402

import gpupy as gp  # noqa: E402

try:
    import cupy as cp
except Exception:  # optional
    cp = None
try:
    import torch
except Exception:  # optional
    torch = None


try:
    from ml_dtypes import bfloat16 as BF16  # NumPy's bfloat16 (gpupy's products give float32)
except ImportError:
    BF16 = None


def torch_ms(fn, warmup, reps):
    """``bench.gpu_ms`` with PyTorch's events (they take ``enable_timing`` and time
    themselves)."""
    for _ in range(warmup):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


# name, (m, k, n) or a batch, numpy dtype, operand layout ("nn": both row-major, "tn":
# A transposed), tf32
CASES = [
    ("f32 1024", (1024, 1024, 1024), np.float32, "nn", False),
    ("f32 4096", (4096, 4096, 4096), np.float32, "nn", False),
    ("f32 8192", (8192, 8192, 8192), np.float32, "nn", False),
    ("f32 4096 A^T", (4096, 4096, 4096), np.float32, "tn", False),
    ("tf32 4096", (4096, 4096, 4096), np.float32, "nn", True),
    ("tf32 8192", (8192, 8192, 8192), np.float32, "nn", True),
    ("f64 1024", (1024, 1024, 1024), np.float64, "nn", False),
    ("f64 4096", (4096, 4096, 4096), np.float64, "nn", False),
    ("f16 4096", (4096, 4096, 4096), np.float16, "nn", False),
    ("f16 8192", (8192, 8192, 8192), np.float16, "nn", False),
    ("f16 8192 B^T", (8192, 8192, 8192), np.float16, "nt", False),
    *([("bf16 4096", (4096, 4096, 4096), BF16, "nn", False),
       ("bf16 8192", (8192, 8192, 8192), BF16, "nn", False),
       ("bf16 8192 B^T", (8192, 8192, 8192), BF16, "nt", False)] if BF16 is not None else []),
    ("c64 2048", (2048, 2048, 2048), np.complex64, "nn", False),
    ("c128 1024", (1024, 1024, 1024), np.complex128, "nn", False),
    ("f32 tall 65536x64 @ 64x65536", (65536, 64, 65536), np.float32, "nn", False),
    ("f32 skinny 65536x4096 @ 4096x64", (65536, 4096, 64), np.float32, "nn", False),
    ("f32 split-k 256x65536 @ 65536x256", (256, 65536, 256), np.float32, "nn", False),
    ("f32 gemv 8192x8192 @ 8192", (8192, 8192, 1), np.float32, "nn", False),
    ("f32 gemv 8192 @ 8192x8192", (1, 8192, 8192), np.float32, "nn", False),
    ("f64 gemv 8192x8192 @ 8192", (8192, 8192, 1), np.float64, "nn", False),
    ("f32 batched 512 x 64^3", (512, 64, 64, 64), np.float32, "nn", False),
    ("int32 1024", (1024, 1024, 1024), np.int32, "nn", False),
]


def operands(xp, shape, dtype, layout, rng):
    """A (m, k) and B (k, n) (or batched) in the layout; vectors for m or n == 1."""
    if len(shape) == 4:
        b, m, k, n = shape
        x = rng.standard_normal((b, m, k)).astype(dtype)
        y = rng.standard_normal((b, k, n)).astype(dtype)
        return xp.asarray(x), xp.asarray(y)
    m, k, n = shape
    if dtype == np.int32:
        x, y = rng.integers(-100, 100, (m, k), dtype=np.int32), rng.integers(-100, 100, (k, n), dtype=np.int32)
    else:
        x = rng.standard_normal((m, k)).astype(dtype)
        y = rng.standard_normal((k, n)).astype(dtype)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.standard_normal((m, k)).astype(dtype)
            y = y + 1j * rng.standard_normal((k, n)).astype(dtype)
    a = xp.asarray(np.ascontiguousarray(x.T)).T if layout[0] == "t" else xp.asarray(x)
    b = xp.asarray(np.ascontiguousarray(y.T)).T if layout[1] == "t" else xp.asarray(y)
    if n == 1:
        b = b[:, 0]
    if m == 1:
        a = a[0]
    return a, b


def flops(shape, dtype):
    f = 2 * np.prod(shape, dtype=np.float64)
    return f * 4 if np.dtype(dtype).kind == "c" else f


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", default="")
    args = p.parse_args()
    warmup, reps = (2, 5) if args.quick else (3, 20)
    rng = np.random.default_rng(0)
    dev = gp.cuda.runtime.getDeviceProperties(0)
    name = dev["name"].decode() if isinstance(dev["name"], bytes) else dev["name"]
    print(f"# {name}; CuPy {cp.__version__ if cp else '-'}; PyTorch {torch.__version__ if torch else '-'}; NumPy {np.__version__}")
    print("| case | gpupy ms | TFLOP/s | CuPy ms | PyTorch ms | vs CuPy | vs PyTorch | NumPy ms |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, shape, dtype, layout, tf32 in CASES:
        if args.only not in label:
            continue
        a, b = operands(gp, shape, dtype, layout, rng)
        with gp.config.allow_tf32(tf32):
            g = gpu_ms(gp, lambda: a @ b, warmup, reps)
        c_ms = t_ms = None
        if cp is not None and dtype is not BF16:  # CuPy has no bfloat16 arrays
            ca, cb = operands(cp, shape, dtype, layout, np.random.default_rng(0))
            ok = True
            if tf32:
                # CuPy reads CUPY_TF32 at import; switch cuBLAS's math mode directly
                # (run with CUPY_TF32=1 if this CuPy lacks the call).
                try:
                    handle = cp.cuda.device.get_cublas_handle()
                    cp.cuda.cublas.setMathMode(handle, cp.cuda.cublas.CUBLAS_TF32_TENSOR_OP_MATH)
                except Exception:
                    import os

                    ok = os.environ.get("CUPY_TF32") == "1"
            if ok:
                c_ms = gpu_ms(cp, lambda: ca @ cb, warmup, reps)
            if tf32 and ok:
                try:
                    cp.cuda.cublas.setMathMode(handle, cp.cuda.cublas.CUBLAS_DEFAULT_MATH)
                except Exception:
                    pass
            del ca, cb
        if torch is not None and dtype != np.int32:
            tdt = {BF16: torch.bfloat16, np.float16: torch.float16, np.float32: torch.float32, np.float64: torch.float64,
                   np.complex64: torch.complex64, np.complex128: torch.complex128}[dtype]
            ta, tb = operands(np, shape, dtype, layout, np.random.default_rng(0))
            # torch.from_numpy takes no bfloat16: through float32, which holds it exactly.
            wide = np.float32 if dtype is BF16 else dtype
            ta = torch.from_numpy(np.ascontiguousarray(ta).astype(wide)).to("cuda", tdt)
            tb = torch.from_numpy(np.ascontiguousarray(tb).astype(wide)).to("cuda", tdt)
            if layout[0] == "t":
                ta = ta.T.contiguous().T
            if layout[1] == "t":
                tb = tb.T.contiguous().T
            torch.backends.cuda.matmul.allow_tf32 = tf32
            t_ms = torch_ms(lambda: ta @ tb, warmup, reps)
            torch.backends.cuda.matmul.allow_tf32 = False
            del ta, tb
        n_ms = None
        if label == "f32 1024":
            na, nb = operands(np, shape, dtype, layout, np.random.default_rng(0))
            n_ms = host_ms(lambda: na @ nb, 1, 5)
        tflops = flops(shape, dtype) / (g * 1e-3) / 1e12
        fmt = lambda v: "" if v is None else f"{v:.3f}"  # noqa: E731
        ratio = lambda v: "" if v is None else f"{v / g:.2f}x"  # noqa: E731
        print(f"| {label} | {g:.3f} | {tflops:.1f} | {fmt(c_ms)} | {fmt(t_ms)} | {ratio(c_ms)} | {ratio(t_ms)} | {fmt(n_ms)} |", flush=True)
        del a, b


if __name__ == "__main__":
    main()
