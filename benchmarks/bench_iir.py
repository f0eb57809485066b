"""gpupyx.scipy.signal's recursive filters (lfilter, sosfilt, filtfilt, sosfiltfilt)
against CuPy's cupyx.scipy.signal (same process, same GPU), issue #19.

GPU times come from CUDA events around each call (after warm-up, the median of the
runs). Each row prints the samples read and written once per call over the time, as a
share of the device-to-device copy bandwidth measured in the same run (a recursive
filter reads its input and writes its output once per pass; the chunk scan of long
lines reads the input twice), and the largest difference from CuPy's result relative
to the output's scale (a check that both computed the same filter).

The engine (a thread per line, or the chunk scan for a few long lines) is chosen by
the host; ``GPUPY_IIR_ENGINE=lines`` or ``=chunks`` forces one where both apply, to
measure the crossover (``--engines`` prints both for the cases where it matters).

    python benchmarks/bench_iir.py              # the full table
    python benchmarks/bench_iir.py --quick      # fewer repetitions
    python benchmarks/bench_iir.py --engines    # also each engine forced
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import cp, device_line, gpu_ms  # noqa: E402  (the shared timing helpers)

import gpupy as gp  # noqa: E402
import gpupyx.scipy.signal as gsig  # noqa: E402

try:
    import cupyx.scipy.signal as csig
except Exception:
    csig = None
import scipy.signal as ssig  # noqa: E402  (the designs)


def cases():
    """(name, shape, axis, call(module, xp, x)); `xp` turns host coefficients into the
    module's arrays (CuPy takes only CuPy arrays)."""
    b4, a4 = ssig.butter(4, 0.1)
    b8, a8 = ssig.butter(8, 0.2)
    b2, a2 = ssig.butter(2, 0.05)
    sos8 = ssig.butter(8, 0.1, output="sos")
    sos16 = ssig.ellip(16, 1, 60, 0.2, output="sos")
    fir = ssig.firwin(64, 0.2)

    def lf(b, a, axis=-1):
        return lambda m, xp, x: m.lfilter(xp(b), xp(a), x, axis=axis)

    def sf(sos, axis=-1):
        return lambda m, xp, x: m.sosfilt(xp(sos), x, axis=axis)

    return [
        ("lfilter butter2, one line", (10_000_000,), -1, lf(b2, a2)),
        ("lfilter butter4, one line", (10_000_000,), -1, lf(b4, a4)),
        ("lfilter butter4, one line 1e6", (1_000_000,), -1, lf(b4, a4)),
        ("lfilter butter8, one line", (10_000_000,), -1, lf(b8, a8)),
        ("lfilter butter4, 16 lines", (16, 1_000_000), -1, lf(b4, a4)),
        ("lfilter butter4, 16 lines axis 0", (1_000_000, 16), 0, lf(b4, a4, 0)),
        ("lfilter butter4, 4096 x 4096", (4096, 4096), -1, lf(b4, a4)),
        ("lfilter butter4, 4096 x 4096 ax 0", (4096, 4096), 0, lf(b4, a4, 0)),
        ("lfilter butter4, 20000 x 1000", (20_000, 1000), -1, lf(b4, a4)),
        ("lfilter butter4 + zi, one line", (10_000_000,), -1,
         lambda m, xp, x: m.lfilter(xp(b4), xp(a4), x, zi=xp(np.ones(4, x.dtype)))[0] if m is gsig else None),
        ("lfilter FIR 64 taps, one line", (10_000_000,), -1, lf(fir, [1.0])),
        ("sosfilt butter8 (4 sec), one line", (10_000_000,), -1, sf(sos8)),
        ("sosfilt ellip16 (8 sec), one line", (10_000_000,), -1, sf(sos16)),
        ("sosfilt butter8, 4096 x 4096", (4096, 4096), -1, sf(sos8)),
        ("sosfilt butter8, 4096 x 4096 ax 0", (4096, 4096), 0, sf(sos8, 0)),
        ("filtfilt butter4, one line 1e6", (1_000_000,), -1,
         lambda m, xp, x: m.filtfilt(xp(b4), xp(a4), x)),
        ("sosfiltfilt butter8, one line 1e6", (1_000_000,), -1,
         lambda m, xp, x: m.sosfiltfilt(xp(sos8), x)),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--engines", action="store_true", help="also time each engine forced")
    args = ap.parse_args()
    warm, reps = (2, 5) if args.quick else (3, 20)
    rng = np.random.default_rng(0)
    print(device_line())
    n = 64 << 20
    a, b = gp.empty(n // 4, np.float32), gp.empty(n // 4, np.float32)
    copy_ms = gpu_ms(gp, lambda: gp.copyto(b, a), warm, reps)
    copy_gbs = 2 * n / copy_ms / 1e6
    print(f"device-to-device copy: {copy_gbs:.0f} GB/s\n")
    head = (f"{'case':36} {'dtype':8} {'gpupy ms':>9} {'cupy ms':>9} {'cupy/gpupy':>10} {'of copy':>8} "
            f"{'|diff|/scale':>12}")
    print(head)
    print("-" * len(head))
    engines = [None, "lines", "chunks"] if args.engines else [None]
    for name, shape, axis, call in cases():
        for dtype in (np.float32, np.float64):
            x = rng.standard_normal(shape).astype(dtype)
            gx = gp.asarray(x)
            c, cy = None, None
            if csig is not None:
                cx = cp.asarray(x)
                try:
                    cy = call(csig, cp.asarray, cx)
                except Exception as e:  # noqa: BLE001 - CuPy may not take a case
                    cy = None
                    print(f"  (cupy: {type(e).__name__}: {e})")
                if cy is not None:
                    c = gpu_ms(cp, lambda: call(csig, cp.asarray, cx), warm, reps)
            for engine in engines:
                if engine is None:
                    os.environ.pop("GPUPY_IIR_ENGINE", None)
                else:
                    os.environ["GPUPY_IIR_ENGINE"] = engine
                g = gpu_ms(gp, lambda: call(gsig, gp.asarray, gx), warm, reps)
                diff = ""
                if cy is not None:
                    gy = call(gsig, gp.asarray, gx).get()
                    scale = max(float(np.abs(gy).max()), 1e-30)
                    diff = f"{float(np.abs(gy - cp.asnumpy(cy)).max()) / scale:12.1e}"
                share = 2 * x.nbytes / g / 1e6 / copy_gbs
                cs = f"{c:9.3f}" if c else f"{'n/a':>9}"
                ratio = f"{c / g:10.2f}" if c else f"{'-':>10}"
                label = name if engine is None else f"  {engine} forced"
                print(f"{label:36} {np.dtype(dtype).name:8} {g:9.3f} {cs} {ratio} {100 * share:7.0f}% {diff}")
            os.environ.pop("GPUPY_IIR_ENGINE", None)
    print("\ncupy/gpupy > 1: gpupy is faster. 'of copy': one read and one write of the signal per "
          "call over the time, against the copy bandwidth.")


if __name__ == "__main__":
    main()
