"""gpupyx.scipy.sparse against CuPy's cupyx.scipy.sparse (cuSPARSE), same process, same
GPU: the cases of issue #20's "Speed" section.

- SpMV ``A @ x`` on a 2-d Poisson 5-point matrix (16M rows), a uniform random matrix
  (1M x 1M, 16 entries a row) and a power-law matrix (1M rows, Zipf row lengths, one
  row of up to a million entries), float32 and float64. Each row prints the bytes an
  SpMV must move (indptr, indices and values once, x once, y once) over the time, and
  that rate as a share of the device-to-device copy bandwidth measured in the same run:
  the limit of a bandwidth-bound kernel.
- COO to CSR conversion (the uniform matrix's entries in random order, duplicates
  summed), SpGEMM (the Poisson matrix squared), and ``cg`` on the 2-d Poisson problem
  (wall time to the same tolerance, when ``gpupyx.scipy.sparse.linalg`` is present).

GPU times are CUDA events around each call (gpupy's and CuPy's own), after warm-up,
the median of the repetitions; ``cg`` is wall time with a synchronize (the median of
three solves after one warm-up).

    python benchmarks/bench_sparse.py            # the issue's sizes
    python benchmarks/bench_sparse.py --quick    # 1/16 of the rows, fewer repetitions
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import cp, device_line, gpu_ms, host_ms  # noqa: E402  (the shared timing helpers)

import gpupy as gp  # noqa: E402
import gpupyx.scipy.sparse as gsp  # noqa: E402

try:
    import cupyx.scipy.sparse as csp
except Exception:
    csp = None


# ---------------------------------------------------------------------------------------
# Matrices (host CSR arrays: indptr, indices, data in float64, shape)

def poisson2d(n):
    """The 5-point Laplacian of an n x n grid: (n^2 x n^2), 5 entries a row inside."""
    N = n * n
    idx = np.arange(N, dtype=np.int64)
    i, j = idx // n, idx % n
    cols = [idx - n, idx - 1, idx, idx + 1, idx + n]
    vals = [-1.0, -1.0, 4.0, -1.0, -1.0]
    ok = [i > 0, j > 0, np.ones(N, bool), j < n - 1, i < n - 1]
    lengths = np.sum(ok, axis=0)
    indptr = np.zeros(N + 1, np.int64)
    np.cumsum(lengths, out=indptr[1:])
    stacked = np.stack(cols, axis=1)
    mask = np.stack(ok, axis=1)
    indices = stacked[mask]
    data = np.broadcast_to(np.asarray(vals), (N, 5))[mask].copy()
    return indptr, indices, data, (N, N)


def uniform_random(rng, n, per_row):
    """n x n with `per_row` entries a row at uniform random columns (sorted per row)."""
    indices = np.sort(rng.integers(0, n, (n, per_row)), axis=1).ravel()
    indptr = np.arange(n + 1, dtype=np.int64) * per_row
    return indptr, indices, rng.standard_normal(indices.size), (n, n)


def power_law(rng, n):
    """n x n with Zipf(2) row lengths (capped at n; one row is full): a few rows hold
    a large share of the entries."""
    lengths = np.minimum(rng.zipf(2.0, n), n)
    lengths[rng.integers(0, n)] = n
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=indptr[1:])
    # Uniform columns, sorted within each row (a repeated column is a duplicate entry,
    # which both libraries sum in the product).
    rows = np.repeat(np.arange(n), lengths)
    indices = rng.integers(0, n, rows.size)
    indices = indices[np.lexsort((indices, rows))]
    return indptr, indices, rng.standard_normal(indices.size), (n, n)


def to_gpupy(m, dtype):
    indptr, indices, data, shape = m
    return gsp.csr_matrix((gp.asarray(data.astype(dtype)), gp.asarray(indices.astype(np.int32)),
                           gp.asarray(indptr.astype(np.int32))), shape=shape)


def to_cupy(m, dtype):
    indptr, indices, data, shape = m
    return csp.csr_matrix((cp.asarray(data.astype(dtype)), cp.asarray(indices.astype(np.int32)),
                           cp.asarray(indptr.astype(np.int32))), shape=shape)


def spmv_bytes(m, dtype):
    """Bytes an SpMV moves at least: indptr, indices, values, x and y once each."""
    indptr, indices, _, (rows, cols) = m
    v = np.dtype(dtype).itemsize
    return 4 * (rows + 1) + (4 + v) * indices.size + v * (cols + rows)


def row(name, dtype, g, c, extra=""):
    cs = f"{c:9.3f}" if c is not None else f"{'n/a':>9}"
    ratio = f"{c / g:10.2f}" if c is not None else f"{'-':>10}"
    print(f"{name:34} {np.dtype(dtype).name:8} {g:9.3f} {cs} {ratio} {extra}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    warm, reps = (2, 10) if args.quick else (5, 30)
    scale = 4 if args.quick else 1  # quick: a quarter of each grid side, 1/16 of the rows
    rng = np.random.default_rng(0)
    print(device_line())
    n = 64 << 20
    a, b = gp.empty(n // 4, np.float32), gp.empty(n // 4, np.float32)
    copy_gbs = 2 * n / gpu_ms(gp, lambda: gp.copyto(b, a), warm, reps) / 1e6
    print(f"device-to-device copy: {copy_gbs:.0f} GB/s\n")
    head = (f"{'case':34} {'dtype':8} {'gpupy ms':>9} {'cupy ms':>9} {'cupy/gpupy':>10} "
            f"{'GB/s':>7} {'of copy':>8}")
    print(head)
    print("-" * len(head))

    poisson = poisson2d(4096 // scale)
    mats = [("SpMV Poisson 5-pt", poisson),
            ("SpMV uniform 16/row", uniform_random(rng, (1 << 20) // scale ** 2, 16)),
            ("SpMV power-law (Zipf)", power_law(rng, (1 << 20) // scale ** 2))]
    for name, m in mats:
        rows = m[3][0]
        for dtype in (np.float32, np.float64):
            x = rng.standard_normal(m[3][1]).astype(dtype)
            A, gx = to_gpupy(m, dtype), gp.asarray(x)
            g = gpu_ms(gp, lambda: A @ gx, warm, reps)
            c = None
            if csp is not None:
                C, cx = to_cupy(m, dtype), cp.asarray(x)
                c = gpu_ms(cp, lambda: C @ cx, warm, reps)
            gbs = spmv_bytes(m, dtype) / g / 1e6
            plan = A._plan()
            sched = "merge" if plan == 0 else f"{plan} lanes"
            row(f"{name} ({rows >> 20}M rows)" if rows >= 1 << 20 else f"{name} ({rows} rows)", dtype, g, c,
                f"{gbs:7.0f} {gbs / copy_gbs:8.0%}  [{sched}]")

    # COO to CSR: the uniform matrix's entries shuffled, with duplicates (summed).
    indptr, indices, data, shape = mats[1][1]
    rows = np.repeat(np.arange(shape[0]), np.diff(indptr))
    perm = rng.permutation(indices.size)
    r, c_, d = rows[perm], indices[perm], data[perm]
    for dtype in (np.float32, np.float64):
        G = gsp.coo_matrix((gp.asarray(d.astype(dtype)), (gp.asarray(r.astype(np.int32)),
                                                          gp.asarray(c_.astype(np.int32)))), shape=shape)
        g = gpu_ms(gp, lambda: G.tocsr(), warm, reps)
        c = None
        if csp is not None:
            C = csp.coo_matrix((cp.asarray(d.astype(dtype)), (cp.asarray(r.astype(np.int32)),
                                                              cp.asarray(c_.astype(np.int32)))), shape=shape)
            c = gpu_ms(cp, lambda: C.tocsr(), warm, reps)
        row(f"COO->CSR ({indices.size >> 20}M entries)", dtype, g, c)

    # SpGEMM: the Poisson matrix squared (a 2048^2 grid; quick: 512^2).
    pm = poisson2d(2048 // scale)
    for dtype in (np.float32, np.float64):
        A = to_gpupy(pm, dtype)
        g = gpu_ms(gp, lambda: A @ A, max(1, warm // 2), max(3, reps // 5))
        c = None
        if csp is not None:
            C = to_cupy(pm, dtype)
            c = gpu_ms(cp, lambda: C @ C, max(1, warm // 2), max(3, reps // 5))
        row(f"SpGEMM Poisson^2 ({pm[3][0]} rows)", dtype, g, c)

    # cg on the 2-d Poisson problem, wall time to the same tolerance.
    try:
        from gpupyx.scipy.sparse.linalg import cg as gcg
    except Exception:
        gcg = None
    if gcg is None:
        print("cg: gpupyx.scipy.sparse.linalg not available in this build")
        return
    pm = poisson2d(1024 // scale)
    b = rng.standard_normal(pm[3][0])
    for dtype in (np.float32, np.float64):
        tol = 1e-5 if dtype == np.float32 else 1e-8
        A, gb = to_gpupy(pm, dtype), gp.asarray(b.astype(dtype))

        def run_g():
            x, info = gcg(A, gb, rtol=tol, maxiter=20000)
            gp.cuda.Device().synchronize()
            return info

        g = host_ms(run_g, 1, 3)  # median wall ms of 3 after a warm-up (run_g synchronizes)
        c = None
        if csp is not None:
            from cupyx.scipy.sparse.linalg import cg as ccg
            C, cb = to_cupy(pm, dtype), cp.asarray(b.astype(dtype))

            def run_c():
                try:
                    x, info = ccg(C, cb, rtol=tol, maxiter=20000)
                except TypeError:
                    x, info = ccg(C, cb, tol=tol, maxiter=20000)
                cp.cuda.Device().synchronize()
                return info

            c = host_ms(run_c, 1, 3)
        row(f"cg Poisson ({pm[3][0]} rows, rtol {tol:g})", dtype, g, c, "(wall ms)")


if __name__ == "__main__":
    main()
