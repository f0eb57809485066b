"""gpupyx.scipy.ndimage's interpolation against CuPy's cupyx.scipy.ndimage (same process,
same GPU), issue #19: ``zoom``, ``rotate``, ``map_coordinates`` on a 2048^2 float32
image, spline orders 1 and 3 (3 includes the spline prefilter, which both libraries
run in float64 as SciPy does), and the prefilter alone.

GPU times come from CUDA events around each call (after warm-up, the median of many
runs). Each row also prints the output's size over the time (output pixels per
nanosecond), and whether the two libraries' results agree (the largest difference over
the largest magnitude; CuPy's kernels contract to fused multiply-adds and round integer
outputs differently, gpupy computes SciPy's arithmetic, so they differ by rounding).

    python benchmarks/bench_ndimage_interp.py            # the full table
    python benchmarks/bench_ndimage_interp.py --quick    # fewer repetitions
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import cp, device_line, gpu_ms  # noqa: E402  (the shared timing helpers)

import gpupy as gp  # noqa: E402
import gpupyx.scipy.ndimage as gnd  # noqa: E402

try:
    import cupyx.scipy.ndimage as cnd
except Exception:
    cnd = None

N = 2048


def cases(rng):
    """(name, call(module, image, coordinates)): each call takes its library's arrays."""
    out = []
    for order in (1, 3):
        out += [
            (f"zoom x1.5, order {order}", lambda m, x, c, o=order: m.zoom(x, 1.5, order=o)),
            (f"zoom x0.5, order {order}", lambda m, x, c, o=order: m.zoom(x, 0.5, order=o)),
            (f"rotate 30, order {order}", lambda m, x, c, o=order: m.rotate(x, 30, order=o)),
            (f"rotate 30 no reshape, order {order}",
             lambda m, x, c, o=order: m.rotate(x, 30, order=o, reshape=False)),
            (f"map_coordinates, order {order}",
             lambda m, x, c, o=order: m.map_coordinates(x, c, order=o)),
            (f"shift (0.3, -2.7) nearest, order {order}",
             lambda m, x, c, o=order: m.shift(x, (0.3, -2.7), order=o, mode="nearest")),
        ]
    out += [("spline_filter order 3", lambda m, x, c: m.spline_filter(x, 3)),
            ("spline_filter1d order 3 axis 0", lambda m, x, c: m.spline_filter1d(x, 3, axis=0)),
            ("spline_filter1d order 3 axis 1", lambda m, x, c: m.spline_filter1d(x, 3, axis=1))]
    return out


def agreement(g, c):
    """The largest difference of two results over the largest magnitude."""
    g, c = g.get().astype(np.float64), cp.asnumpy(c).astype(np.float64)
    if g.shape != c.shape:
        return f"shapes {g.shape} vs {c.shape}"
    scale = max(np.abs(c).max(), 1e-300)
    return f"{np.abs(g - c).max() / scale:.1e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    warm, reps = (2, 10) if args.quick else (5, 40)
    rng = np.random.default_rng(0)
    print(device_line())
    x = rng.standard_normal((N, N)).astype(np.float32)
    # A coordinate field: the image's own grid, rotated a little and displaced by noise.
    yy, xx = np.meshgrid(np.arange(N, dtype=np.float32), np.arange(N, dtype=np.float32),
                         indexing="ij")
    coords = np.stack([yy + 0.1 * xx + rng.uniform(-2, 2, (N, N)).astype(np.float32),
                       xx - 0.1 * yy + rng.uniform(-2, 2, (N, N)).astype(np.float32)])
    gx, gc = gp.asarray(x), gp.asarray(coords)
    cx = cc = None
    if cnd is not None:
        cx, cc = cp.asarray(x), cp.asarray(coords)
    head = (f"{'case (2048^2 float32)':40} {'gpupy ms':>9} {'cupy ms':>9} {'cupy/gpupy':>10} "
            f"{'gpupy px/ns':>11} {'max diff':>9}")
    print(head)
    print("-" * len(head))
    for name, call in cases(rng):
        g = gpu_ms(gp, lambda: call(gnd, gx, gc), warm, reps)
        size = call(gnd, gx, gc).size
        c = agree = None
        if cnd is not None:
            c = gpu_ms(cp, lambda: call(cnd, cx, cc), warm, reps)
            agree = agreement(call(gnd, gx, gc), call(cnd, cx, cc))
        cs = f"{c:9.3f}" if c else f"{'n/a':>9}"
        ratio = f"{c / g:10.2f}" if c else f"{'-':>10}"
        print(f"{name:40} {g:9.3f} {cs} {ratio} {size / g / 1e6:11.2f} {agree or '-':>9}")
    print("\ncupy/gpupy > 1: gpupy is faster. CuPy's default order is 1 where SciPy's is 3; "
          "every call here names its order.")


if __name__ == "__main__":
    main()
