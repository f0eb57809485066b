"""gpupyx.scipy.ndimage's filters and gpupyx.scipy.signal's convolutions against CuPy's
cupyx.scipy.ndimage/signal (same process, same GPU) and SciPy on the CPU (a quarter of
each axis, wall clock), issue #19.

GPU times come from CUDA events (after warm-up, the median of many runs): around ten
calls back to back (the throughput) and around one call alone (its latency, the host's
launch work included). Kernel arrays are uploaded once, before the timed calls. Each row prints the image bytes read and written once per call over the time,
as a share of the device-to-device copy bandwidth measured in the same run (a filter
that reads its input once and writes its output once is bound by it; the separable
filters make one pass per axis).

    python benchmarks/bench_ndimage.py            # the full table
    python benchmarks/bench_ndimage.py --quick    # fewer repetitions
    python benchmarks/bench_ndimage.py --only convolve2d,median   # some cases
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import b2b_ms, cp, device_line, gpu_ms  # noqa: E402  (the shared timing helpers)

import gpupy as gp  # noqa: E402
import gpupyx.scipy.ndimage as gnd  # noqa: E402
import gpupyx.scipy.signal as gsig  # noqa: E402

try:
    import cupyx.scipy.ndimage as cnd
    import cupyx.scipy.signal as csig
except Exception:
    cnd = csig = None
try:
    import scipy.ndimage as snd
    import scipy.signal as ssig
except Exception:
    snd = ssig = None

# (gpupy, CuPy, SciPy) modules of each family.
FAMILIES = {"ndimage": (gnd, cnd, snd), "signal": (gsig, csig, ssig)}


_UPLOADED = {}


def dev(m, a, dtype=None):
    """A kernel argument in module `m`'s array type (CuPy takes only CuPy arrays; `dtype`:
    converted first), made once per (module, kernel, dtype) and then reused, so the timed
    calls do not include its upload (`a` is one of the arrays `cases` makes, alive for the
    whole run)."""
    key = (id(m), id(a), dtype)
    got = _UPLOADED.get(key)
    if got is None:
        h = np.asarray(a) if dtype is None else np.asarray(a).astype(dtype)
        if m is not None and m in (cnd, csig):
            got = cp.asarray(h)
        elif m in (gnd, gsig):
            got = gp.asarray(h)
        else:
            got = h
        _UPLOADED[key] = got
    return got


def cases(rng):
    w5 = rng.standard_normal((5, 5))
    w3d = rng.standard_normal((3, 3, 3))
    taps9 = list(rng.standard_normal(9))
    k3 = rng.standard_normal((3, 3))
    k31 = rng.standard_normal((31, 31))
    ks = {k: rng.standard_normal((k, k)) for k in (3, 5, 7, 15)}
    # The kernels in the image's dtype, so the result keeps it (a float32 image with a
    # float64 kernel gives a float64 image: the last row, a mixed-precision case whose
    # output is twice the input's bytes).
    conv2d = [(f"convolve2d {k}x{k} same fill", (4096, 4096), "signal",
               lambda m, x, k=k: m.convolve2d(x, dev(m, ks[k], x.dtype), mode="same"))
              for k in (3, 5, 7, 15)]
    return [
        ("convolve2d 3x3 same symm (1k^2)", (1024, 1024), "signal",
         lambda m, x: m.convolve2d(x, dev(m, k3, x.dtype), mode="same", boundary="symm")),
        *conv2d,
        ("convolve2d 3x3, float64 kernel", (4096, 4096), "signal",
         lambda m, x: m.convolve2d(x, dev(m, ks[3]), mode="same")),
        ("fftconvolve 31x31 same", (4096, 4096), "signal", lambda m, x: m.fftconvolve(x, dev(m, k31), mode="same")),
        ("correlate1d 9 taps, axis 1", (4096, 4096), "ndimage", lambda m, x: m.correlate1d(x, dev(m, taps9), axis=1)),
        ("correlate1d 9 taps, axis 0", (4096, 4096), "ndimage", lambda m, x: m.correlate1d(x, dev(m, taps9), axis=0)),
        *[(f"gaussian_filter sigma {s}", (4096, 4096), "ndimage",
           lambda m, x, s=s: m.gaussian_filter(x, float(s))) for s in (1, 3, 10)],
        ("median_filter 3x3", (4096, 4096), "ndimage", lambda m, x: m.median_filter(x, 3)),
        ("median_filter 5x5", (4096, 4096), "ndimage", lambda m, x: m.median_filter(x, 5)),
        ("median_filter 7x7", (4096, 4096), "ndimage", lambda m, x: m.median_filter(x, 7)),
        ("minimum_filter 5", (4096, 4096), "ndimage", lambda m, x: m.minimum_filter(x, 5)),
        ("rank_filter 7x7 rank 10", (4096, 4096), "ndimage", lambda m, x: m.rank_filter(x, 10, 7)),
        ("binary_erosion 3x3 cross", (4096, 4096), "ndimage", lambda m, x: m.binary_erosion(x > 0)),
        ("uniform_filter 5", (4096, 4096), "ndimage", lambda m, x: m.uniform_filter(x, 5)),
        ("sobel axis 0", (4096, 4096), "ndimage", lambda m, x: m.sobel(x, axis=0)),
        ("convolve 5x5, reflect", (4096, 4096), "ndimage", lambda m, x: m.convolve(x, dev(m, w5))),
        ("correlate 5x5, constant", (4096, 4096), "ndimage", lambda m, x: m.correlate(x, dev(m, w5), mode="constant")),
        ("convolve 3x3x3", (256, 256, 256), "ndimage", lambda m, x: m.convolve(x, dev(m, w3d))),
        ("laplace", (4096, 4096), "ndimage", lambda m, x: m.laplace(x)),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated parts of the case names to run")
    args = ap.parse_args()
    only = [p for p in args.only.split(",") if p]
    warm, reps = (2, 10) if args.quick else (5, 40)
    rng = np.random.default_rng(0)
    print(device_line())
    # The copy bandwidth of this GPU, measured now.
    n = 64 << 20
    a, b = gp.empty(n // 4, np.float32), gp.empty(n // 4, np.float32)
    copy_ms = b2b_ms(gp, lambda: gp.copyto(b, a), warm, reps)
    copy_gbs = 2 * n / copy_ms / 1e6
    print(f"device-to-device copy: {copy_gbs:.0f} GB/s\n")
    head = (f"{'case':30} {'dtype':8} {'gpupy ms':>9} {'cupy ms':>9} {'cupy/gpupy':>10} {'of copy':>8}"
            f" {'1 call: gpupy':>13} {'cupy':>7} {'ratio':>6} {'scipy ms (1/4 axes)':>21}")
    print(head)
    print("-" * len(head))
    for name, shape, family, call in cases(rng):
        if only and not any(p in name for p in only):
            continue
        gmod, cmod, smod = FAMILIES[family]
        for dtype in (np.float32, np.float64):
            x = rng.standard_normal(shape).astype(dtype)
            gx = gp.asarray(x)
            g = b2b_ms(gp, lambda: call(gmod, gx), warm, reps)
            g1 = gpu_ms(gp, lambda: call(gmod, gx), warm, reps)
            c = c1 = None
            if cmod is not None:
                cx = cp.asarray(x)
                c = b2b_ms(cp, lambda: call(cmod, cx), warm, reps)
                c1 = gpu_ms(cp, lambda: call(cmod, cx), warm, reps)
            s = None
            if smod is not None:
                small = x[tuple(slice(0, max(1, k // 4)) for k in shape)]
                t = time.perf_counter()
                call(smod, small)
                s = (time.perf_counter() - t) * 1e3
            share = 2 * x.nbytes / g / 1e6 / copy_gbs
            cs = f"{c:9.3f}" if c else f"{'n/a':>9}"
            ratio = f"{c / g:10.2f}" if c else f"{'-':>10}"
            one = f"{g1:13.3f} {c1:7.3f} {c1 / g1:6.2f}" if c1 else f"{g1:13.3f} {'n/a':>7} {'-':>6}"
            ss = f"{s:21.1f}" if s is not None else f"{'n/a':>21}"
            print(f"{name:30} {np.dtype(dtype).name:8} {g:9.3f} {cs} {ratio} {100 * share:7.0f}% {one} {ss}",
                  flush=True)
    print("\ncupy/gpupy > 1: gpupy is faster. 'gpupy ms'/'cupy ms': calls back to back (the GPU's "
          "throughput); '1 call': one call between two events (its launch latency included). "
          "'of copy': one read and one write of the image per call over the back-to-back time, "
          "against the copy bandwidth.")


if __name__ == "__main__":
    main()
