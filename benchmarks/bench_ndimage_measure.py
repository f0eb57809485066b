"""gpupyx.scipy.ndimage's labels, measurements by label and distance transform against
CuPy's cupyx.scipy.ndimage (same process, same GPU) and SciPy on the CPU (on a quarter
of each axis, wall clock), issue #19.

GPU times come from CUDA events around each call (after warm-up, the median of many
runs); every call includes its reads back to the host (`label` reads the count, as
CuPy's does). Binary images are random at the percolation threshold of their structure
(long snaking components, the hard case for union-find) or denser; the measurements
take a random float image and 1000 labels in 64x64 tiles.

    python benchmarks/bench_ndimage_measure.py            # the full table
    python benchmarks/bench_ndimage_measure.py --quick    # fewer repetitions
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import cp, device_line, gpu_ms  # noqa: E402  (the shared timing helpers)

import gpupy as gp  # noqa: E402
import gpupyx.scipy.ndimage as gnd  # noqa: E402

try:
    import cupyx.scipy.ndimage as cnd
except Exception:
    cnd = None
try:
    import scipy.ndimage as snd
except Exception:
    snd = None


def cases(rng):
    """(name, shape, make the arguments for a module, call)."""
    full = np.ones((3, 3), bool)

    def binary(density):
        return lambda shape: (rng.random(shape) < density,)

    def labelled(shape):
        # 1000 labels in 64x64 tiles (CuPy's sums loop over the index per element, so
        # its time grows with the number of labels).
        tiles = rng.integers(0, 1001, size=tuple(k // 64 for k in shape))
        labels = np.kron(tiles, np.ones((64,) * len(shape), np.int32)).astype(np.int32)
        x = rng.random(shape)
        return x, labels, np.arange(1, 1001)

    return [
        ("label cross, density 0.593", (4096, 4096), binary(0.593), lambda m, x: m.label(x)),
        ("label full 3x3, density 0.407", (4096, 4096), binary(0.407), lambda m, x: m.label(x, full)),
        ("label cross, density 0.9", (4096, 4096), binary(0.9), lambda m, x: m.label(x)),
        ("label 3-d cross, density 0.312", (256, 256, 256), binary(0.312), lambda m, x: m.label(x)),
        ("edt, 50% background", (4096, 4096), binary(0.5), lambda m, x: m.distance_transform_edt(x)),
        ("edt, 1% background", (4096, 4096), binary(0.99), lambda m, x: m.distance_transform_edt(x)),
        ("edt + indices, 1% background", (4096, 4096), binary(0.99),
         lambda m, x: m.distance_transform_edt(x, return_indices=True)),
        ("edt 3-d, 1% background", (256, 256, 256), binary(0.99), lambda m, x: m.distance_transform_edt(x)),
        ("sum_labels, all labels", (4096, 4096), labelled, lambda m, x, l, i: m.sum_labels(x, l, i)),
        ("mean, all labels", (4096, 4096), labelled, lambda m, x, l, i: m.mean(x, l, i)),
        ("maximum, all labels", (4096, 4096), labelled, lambda m, x, l, i: m.maximum(x, l, i)),
        ("find_objects", (4096, 4096), lambda shape: (labelled(shape)[1],), lambda m, l: m.find_objects(l)),
    ]


def device(m, args):
    if m is gnd:
        return [gp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    return [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]


def quarter(a):
    return a[tuple(slice(0, max(1, k // 4)) for k in a.shape)] if isinstance(a, np.ndarray) and a.ndim else a


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    warm, reps = (1, 5) if args.quick else (3, 20)
    rng = np.random.default_rng(0)
    print(device_line())
    head = f"{'case':32} {'shape':16} {'gpupy ms':>9} {'cupy ms':>9} {'cupy/gpupy':>10} {'scipy ms (1/4 axes)':>21}"
    print(head)
    print("-" * len(head))
    for name, shape, make, call in cases(rng):
        host_args = make(shape)
        gargs = device(gnd, host_args)
        g = gpu_ms(gp, lambda: call(gnd, *gargs), warm, reps)
        c = None
        if cnd is not None:
            cargs = device(cnd, host_args)
            try:
                c = gpu_ms(cp, lambda: call(cnd, *cargs), warm, reps)
            except Exception as e:  # noqa: BLE001 - a CuPy limitation is a table entry
                print(f"  (cupy: {type(e).__name__}: {e})")
        s = None
        if snd is not None:
            small = [quarter(a) if k < 2 else a for k, a in enumerate(host_args)]
            t = time.perf_counter()
            call(snd, *small)
            s = (time.perf_counter() - t) * 1e3
        cs = f"{c:9.3f}" if c else f"{'n/a':>9}"
        ratio = f"{c / g:10.2f}" if c else f"{'-':>10}"
        ss = f"{s:21.1f}" if s is not None else f"{'n/a':>21}"
        print(f"{name:32} {str(shape):16} {g:9.3f} {cs} {ratio} {ss}")
    print("\ncupy/gpupy > 1: gpupy is faster.")


if __name__ == "__main__":
    main()
