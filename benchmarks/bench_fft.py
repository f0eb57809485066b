"""gpupy's FFTs against CuPy's (cupy.fft, i.e. cuFFT) in one run on one GPU, and
``gpupyx.scipy.fft.fftn`` against ``scipy.fft.fftn`` on the CPU.

GPU times are CUDA-event medians after warm-up (``bench.gpu_ms``); CuPy keeps its plans
in its plan cache (its default), so both libraries time the transform alone. Each row:

- ms for gpupy and cuFFT, and ``cuFFT/gpupy``: the time ratio, i.e. gpupy's throughput
  over cuFFT's (> 1 means gpupy is faster);
- gpupy's achieved bandwidth (input read once plus output written once, over its time)
  as a share of a device-to-device copy measured in this run (bytes read and written
  over the copy's time): the memory-bound ceiling of a transform done in one pass;
- gpupy's normwise relative error against cuFFT's result (a check that the timed
  kernels compute the transform).

The summary gives the median ratio over the power-of-two rows, the minimum over the rows
whose lengths have factors 3, 5 and 7, and the largest slowdown (gpupy time / cuFFT
time) over the Bluestein rows (prime lengths).

    python benchmarks/bench_fft.py            # every row, up to 2**27 points
    python benchmarks/bench_fft.py --quick    # fewer repetitions, up to 2**24 points
"""

import argparse
import os
import statistics
import sys

import numpy as np
import scipy.fft

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import cp, device_line, gpu_ms, host_ms  # noqa: E402

import gpupy as gp  # noqa: E402
import gpupyx.scipy.fft as gfft  # noqa: E402

C64, C128, F32 = np.complex64, np.complex128, np.float32


def rows(quick):
    """(label, group, op, input shape, input dtype, extra args): ``op`` names a function
    of ``xp.fft``; groups: pow2, 357 (lengths with factors 3, 5, 7), bluestein (primes)."""
    top = 24 if quick else 27
    out = [(f"fft c64 2^{k}", "pow2", "fft", (2**k,), C64, ()) for k in range(10, top + 1)]
    out += [
        ("fft c64 2^10 x 2^14 (batch 1024)", "pow2", "fft", (2**10, 2**14), C64, ()),
        ("fft c64 2^12 x 2^12 (batch 4096)", "pow2", "fft", (2**12, 2**12), C64, ()),
        ("fft c64 64 x 2^20 (batch 64)", "pow2", "fft", (64, 2**20), C64, ()),
    ]
    out += [(f"fft c128 2^{k}", "pow2", "fft", (2**k,), C128, ()) for k in ((16, 20) if quick else (16, 20, 24))]
    out += [
        ("fft2 c64 4096x4096", "pow2", "fft2", (4096, 4096), C64, ()),
        ("rfft2 f32 4096x4096", "pow2", "rfft2", (4096, 4096), F32, ()),
        ("irfft c64 -> f32 2^22", "pow2", "irfft", (2**21 + 1,), C64, (2**22,)),
        ("irfft c64 -> f32 2^10 x 2^14", "pow2", "irfft", (2**10, 2**13 + 1), C64, (2**14,)),
        ("fft c64 3^12", "357", "fft", (3**12,), C64, ()),
        ("fft c64 5^8", "357", "fft", (5**8,), C64, ()),
        ("fft c64 7^7", "357", "fft", (7**7,), C64, ()),
        ("fft c64 2^10*3^5", "357", "fft", (2**10 * 3**5,), C64, ()),
        ("fft c64 1000 x 1000 (batch 1000)", "357", "fft", (1000, 1000), C64, ()),
        ("fft2 c64 1000x1000", "357", "fft2", (1000, 1000), C64, ()),
        ("fft c64 1009 (batch 4096)", "bluestein", "fft", (4096, 1009), C64, ()),
        ("fft c64 65521", "bluestein", "fft", (65521,), C64, ()),
        ("fft c64 999983", "bluestein", "fft", (999983,), C64, ()),
        ("fft c64 2^20+7", "bluestein", "fft", (2**20 + 7,), C64, ()),
    ]
    if not quick:
        out.append(("fft c64 2^24-3", "bluestein", "fft", (2**24 - 3,), C64, ()))
    return out


def device_data(shape, dtype, seed):
    """Random normal values of ``dtype`` made on the device (no host copy of the large
    inputs): complex numbers as pairs of normal floats."""
    rng = gp.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "c":
        real = np.float32 if dt == C64 else np.float64
        return rng.standard_normal(shape[:-1] + (2 * shape[-1],), dtype=real).view(dt)
    return rng.standard_normal(shape, dtype=dt)


def out_bytes(op, shape, dtype, extra):
    """Bytes of the result (the minimum a transform writes)."""
    batch = int(np.prod(shape[:-1]))
    if op == "rfft2":
        return batch * (shape[-1] // 2 + 1) * np.dtype(dtype).itemsize * 2
    if op == "irfft":
        return batch * extra[0] * np.dtype(dtype).itemsize // 2
    return int(np.prod(shape)) * np.dtype(dtype).itemsize


def relative_error(got, want):
    """||got - want|| / ||want||, computed by CuPy on the device (gpupy's result read
    through ``__cuda_array_interface__``, no copy)."""
    g = cp.asarray(got)
    return float(cp.linalg.norm((g - want).ravel()) / cp.linalg.norm(want.ravel()))


def copy_rate(warm, reps):
    """GB/s read and written by a device-to-device copy of 256 MiB."""
    n = 2**26
    src, dst = gp.empty(n, dtype=np.float32), gp.empty(n, dtype=np.float32)
    ms = gpu_ms(gp, lambda: dst.__setitem__(Ellipsis, src), warm, reps)
    print(f"device-to-device copy of 256 MiB: {ms:.4f} ms = {2 * 4 * n / ms / 1e6:.0f} GB/s read + written")
    return 2 * 4 * n / ms / 1e6


def time_row(seed, op, shape, dtype, extra, warm, reps):
    """(gpupy ms, bytes moved, cuFFT ms, relative error): the last two None without CuPy."""
    x = device_data(shape, dtype, seed)
    if op == "irfft":
        # A real signal's spectrum has real first and (even n) last entries; libraries
        # differ in what they do with other values there (pocketfft and gpupy ignore
        # the imaginary parts), so the error column compares like with like.
        x[..., 0] = x[..., 0].real
        x[..., -1] = x[..., -1].real
    t = gpu_ms(gp, lambda: getattr(gp.fft, op)(x, *extra), warm, reps)
    nbytes = x.nbytes + out_bytes(op, shape, dtype, extra)
    if cp is None:
        return t, nbytes, None, None
    c = cp.array(x)  # a CuPy copy of the same values
    tc = gpu_ms(cp, lambda: getattr(cp.fft, op)(c, *extra), warm, reps)
    err = relative_error(getattr(gp.fft, op)(x, *extra), getattr(cp.fft, op)(c, *extra))
    return t, nbytes, tc, err


def free_pools():
    gp.get_default_memory_pool().free_all_blocks()
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()


def tutorial(warm, reps, cpu_reps):
    """CuPy's tutorial case: ``fftn`` of a 2000x2000 int64 image (the int64 -> float64
    conversion included, as the user's call includes it)."""
    image = np.random.default_rng(0).integers(0, 256, size=(2000, 2000), dtype=np.int64)
    g = gp.asarray(image)
    t_gp = gpu_ms(gp, lambda: gfft.fftn(g), warm, reps)
    t_cpu = host_ms(lambda: scipy.fft.fftn(image), 0, cpu_reps)
    line = (f"fftn 2000x2000 int64 (tutorial): gpupyx {t_gp:.3f} ms, "
            f"scipy.fft on the CPU (1 worker) {t_cpu:.1f} ms ({t_cpu / t_gp:.0f}x)")
    if cp is not None:
        import cupyx.scipy.fft

        c = cp.asarray(image)
        t_cp = gpu_ms(cp, lambda: cupyx.scipy.fft.fftn(c), warm, reps)
        line += f", cupyx {t_cp:.3f} ms (cupyx/gpupyx {t_cp / t_gp:.2f})"
    print(line)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, sizes up to 2**24")
    args = parser.parse_args()
    warm, reps = (2, 7) if args.quick else (3, 25)
    print(device_line())
    copy_gbs = copy_rate(warm, reps)

    head = f"{'case':36} {'gpupy ms':>10} {'cuFFT ms':>10} {'cuFFT/gpupy':>11} {'GB/s':>7} {'of copy':>8} {'err':>9}"
    print(head)
    print("-" * len(head))
    ratios = {}
    for i, (label, group, op, shape, dtype, extra) in enumerate(rows(args.quick)):
        t, nbytes, tc, err = time_row(i, op, shape, dtype, extra, warm, reps)
        free_pools()
        gbs = nbytes / t / 1e6
        ratio = None if tc is None else tc / t
        if ratio is not None:
            ratios.setdefault(group, []).append(ratio)
        fmt = lambda v, spec: format(v, spec) if v is not None else "-"  # noqa: E731
        print(f"{label:36} {t:10.4f} {fmt(tc, '10.4f'):>10} {fmt(ratio, '11.2f'):>11} {gbs:7.0f} "
              f"{100 * gbs / copy_gbs:7.0f}% {fmt(err, '9.1e'):>9}")
    print("(ms: CUDA-event medians; cuFFT/gpupy > 1 means gpupy is faster; GB/s: input read + output written)")
    if ratios:
        print(f"median cuFFT/gpupy over power-of-two sizes: {statistics.median(ratios['pow2']):.2f}")
        print(f"min cuFFT/gpupy over 3/5/7 sizes: {min(ratios['357']):.2f}")
        slowdown = max(1 / r for r in ratios["bluestein"])
        print(f"max slowdown over Bluestein sizes (gpupy time / cuFFT time): {slowdown:.2f}")
    tutorial(warm, reps, 1 if args.quick else 3)


if __name__ == "__main__":
    main()
