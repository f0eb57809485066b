"""Dense linear algebra (issue #17): gpupy.linalg and gpupyx.scipy.linalg against CuPy
(cuSOLVER, through cupy.linalg and cupyx.scipy.linalg) and NumPy (LAPACK on this
machine's CPUs) in one run on one GPU.

Rows: ``solve`` (one right-hand side), ``inv``, ``cholesky``, ``qr`` (reduced, Q formed)
and ``det`` at n = 1024, 4096, 8192 in float32 and float64; batches of small matrices
(10,000 of 8x8, 16x16, 32x32 and 1,000 of 64x64) for ``solve``, ``inv``, ``cholesky``,
``eigh`` and ``svd``; ``eigh`` and ``svd`` with vectors at 1024 and 4096; a few
``gpupyx.scipy.linalg`` calls against ``cupyx.scipy.linalg``.

GPU times are CUDA-event medians after warm-up (``bench.gpu_ms``), NumPy's wall-clock
medians (NumPy is skipped above n = 4096 unless ``--numpy-max`` says otherwise: it
prints 'skipped'). Columns: milliseconds; ``cupy/gpupy`` and ``numpy/gpupy`` (time
ratios: above 1, gpupy is faster); gpupy's GFLOP/s from the conventional operation
counts below, and that rate as a share of the nominal peak of the dtype; ``err``, a
normwise residual of gpupy's result (backward error of the solve, ``||A X - I||``,
``||A - L L^H||``, ``||A - Q R||``, ``||A V - V W||``, ``||A - U S Vh||``, each over the
norms of its terms: a check that the timed call computes what it should).

Peaks used for the share column (nominal NVIDIA H100 SXM5 figures; other GPUs get the
same numbers, so read the share relative to an H100): float64 67 TFLOP/s (FP64 tensor
cores), float32 67 TFLOP/s (SIMT FP32). Operation counts (real; complex counts are not
used here): LU 2/3 n^3, triangular solves 2 n^2 k, inverse 2 n^3, Cholesky 1/3 n^3,
QR with Q formed 8/3 n^3 (square), determinant 2/3 n^3, ``eigh`` with vectors 9 n^3,
SVD with vectors 22 n^3.

    python benchmarks/bench_linalg.py              # every row
    python benchmarks/bench_linalg.py --quick      # n = 1024 and a few batched rows, fewer repetitions
    python benchmarks/bench_linalg.py --only solve # rows whose label contains 'solve'
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import cp, device_line, gpu_ms, host_ms  # noqa: E402

import gpupy as gp  # noqa: E402
import gpupyx.scipy.linalg as gsl  # noqa: E402

try:
    import cupyx.scipy.linalg as csl
except Exception:  # CuPy is optional
    csl = None

PEAK_TFLOPS = {np.dtype(np.float64): 67.0, np.dtype(np.float32): 67.0}
F32, F64 = np.float32, np.float64


def flops(op, n, batch=1, k=1):
    """Conventional operation counts (see the module docstring)."""
    n3 = float(n) ** 3
    counts = {
        "solve": 2 / 3 * n3 + 2 * n * n * k,
        "inv": 2 * n3,
        "cholesky": n3 / 3,
        "qr": 8 / 3 * n3,
        "det": 2 / 3 * n3,
        "eigh": 9 * n3,
        "svd": 22 * n3,
        "lu_factor": 2 / 3 * n3,
        "expm": 0.0,  # no single convention (Pade degree and squarings vary)
    }
    return counts[op] * batch


def rows(quick):
    """(label, op, batch, n, dtype, library): ``library`` 'np' for numpy.linalg-style
    calls, 'sp' for scipy.linalg-style ones."""
    out = []
    sizes = [1024] if quick else [1024, 4096, 8192]
    for op in ["solve", "inv", "cholesky", "qr", "det"]:
        for n in sizes:
            for dt in (F32, F64):
                out.append((f"{op} {np.dtype(dt).name} {n}", op, 1, n, dt, "np"))
    batched = [(10_000, 16)] if quick else [(10_000, 8), (10_000, 16), (10_000, 32), (1_000, 64)]
    for op in ["solve", "inv", "cholesky", "eigh", "svd"]:
        for b, n in batched:
            for dt in (F32, F64):
                out.append((f"{op} {np.dtype(dt).name} {b} x {n}x{n}", op, b, n, dt, "np"))
    for op in ["eigh", "svd"]:
        for n in ([1024] if quick else [1024, 4096]):
            for dt in (F32, F64):
                out.append((f"{op} {np.dtype(dt).name} {n} (vectors)", op, 1, n, dt, "np"))
    for op, n in ([("solve", 1024)] if quick else [("solve", 4096), ("lu_factor", 4096), ("expm", 1024)]):
        for dt in (F32, F64):
            out.append((f"scipy.{op} {np.dtype(dt).name} {n}", op, 1, n, dt, "sp"))
    return out


def make_inputs(op, batch, n, dtype, seed):
    """Device operands (gpupy arrays): random normal matrices (plus ``sqrt(n)`` on the
    diagonal for solves and inverses, so that every matrix of a batch is comfortably
    nonsingular), Hermitian ones for ``eigh``, ``X X^T / n + I`` for Cholesky, and one
    right-hand side vector per matrix."""
    rng = gp.random.default_rng(seed)
    shape = (n, n) if batch == 1 else (batch, n, n)
    x = rng.standard_normal(shape, dtype=dtype)
    # Python floats only in the arithmetic below: a NumPy float64 scalar would promote
    # float32 operands to float64 (NEP 50).
    if op in ("solve", "inv", "det", "lu_factor"):
        a = x + gp.asarray(float(np.sqrt(n)) * np.eye(n, dtype=dtype))
    elif op == "cholesky":
        a = gp.matmul(x, x.mT) / float(n) + gp.asarray(np.eye(n, dtype=dtype))
    elif op == "eigh":
        a = (x + x.mT) / 2.0
    elif op == "expm":
        a = x / float(4 * np.sqrt(n))  # norm about 1/2: a fixed Pade degree
    else:
        a = x
    b = rng.standard_normal(shape[:-1], dtype=dtype)
    assert a.dtype == np.dtype(dtype) and b.dtype == np.dtype(dtype)
    return a, b


def linalg_call(xp, op, a, b):
    """``xp.linalg.<op>`` on ``a`` (and ``b``, one right-hand side per matrix) for
    ``xp`` = gpupy, cupy or numpy: the same call in each library."""
    vec = b if a.ndim == 2 else b[..., None]
    return {
        "solve": lambda: xp.linalg.solve(a, vec),
        "inv": lambda: xp.linalg.inv(a),
        "cholesky": lambda: xp.linalg.cholesky(a),
        "qr": lambda: xp.linalg.qr(a),
        "det": lambda: xp.linalg.det(a),
        "eigh": lambda: xp.linalg.eigh(a),
        "svd": lambda: xp.linalg.svd(a, full_matrices=False),
    }[op]


def gp_call(op, lib, a, b):
    if lib == "sp":
        if op == "solve":
            return lambda: gsl.solve(a, b)
        if op == "lu_factor":
            return lambda: gsl.lu_factor(a)
        return lambda: gsl.expm(a)
    return linalg_call(gp, op, a, b)


def other_call(xp, op, lib, a, b):
    """The same call in CuPy (``xp`` = cupy) or NumPy (``xp`` = numpy); None when that
    library has no such function."""
    if lib == "sp":
        if xp is np:
            import scipy.linalg as sla
        else:
            sla = csl
        f = getattr(sla, op, None)  # cupyx.scipy.linalg has no solve
        if f is None:
            return None
        return (lambda: f(a, b)) if op == "solve" else (lambda: f(a))
    return linalg_call(xp, op, a, b)


def _nrm(x):
    return float(gp.linalg.norm(x.reshape(-1)))


def _wide(x):
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def residual(op, lib, a, b, out):
    """gpupy's normwise residual for the row (see the module docstring), formed in
    float64 from the operands and gpupy's result; None where there is none to form."""
    if op in ("det", "expm", "lu_factor"):
        return None
    a, b = _wide(a), _wide(b)
    out = tuple(_wide(o) for o in out) if isinstance(out, tuple) else _wide(out)
    if op == "solve":
        x = out if lib == "sp" or a.ndim == 2 else out[..., 0]
        r = gp.matmul(a, x[..., None])[..., 0] - b
        return _nrm(r) / (_nrm(a) * _nrm(x))  # over the whole batch at once
    eye = gp.asarray(np.eye(a.shape[-1], dtype=a.dtype))
    if op == "inv":
        return _nrm(gp.matmul(a, out) - eye) / (_nrm(a) * _nrm(out))
    if op == "cholesky":
        return _nrm(a - gp.matmul(out, out.mT)) / _nrm(a)
    if op == "qr":
        q, r = out
        return _nrm(a - gp.matmul(q, r)) / _nrm(a)
    if op == "eigh":
        w, v = out
        return _nrm(gp.matmul(a, v) - v * w[..., None, :]) / _nrm(a)
    u, s, vh = out
    return _nrm(a - gp.matmul(u * s[..., None, :], vh)) / _nrm(a)


def free_pools():
    gp.get_default_memory_pool().free_all_blocks()
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()


def tutorial():
    """The tutorial's check: a 1024 x 1024 float32 system (uniform random entries plus n
    on the diagonal), relative residual ||A x - b|| / ||b|| below 1e-4."""
    n = 1024
    rng = np.random.default_rng(0)
    a = (rng.random((n, n)) + n * np.eye(n)).astype(np.float32)
    b = rng.random(n).astype(np.float32)
    for name, solve in [("gpupy.linalg.solve", gp.linalg.solve), ("gpupyx.scipy.linalg.solve", gsl.solve)]:
        x = gp.asnumpy(solve(gp.asarray(a), gp.asarray(b))).astype(np.float64)
        r = np.linalg.norm(a.astype(np.float64) @ x - b) / np.linalg.norm(b.astype(np.float64))
        print(f"tutorial 1024 float32: {name}: relative residual {r:.2e} ({'ok' if r < 1e-4 else 'ABOVE 1e-4'})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1024 and a few batched rows, fewer repetitions")
    parser.add_argument("--only", default="", help="run only the rows whose label contains this text")
    parser.add_argument("--numpy-max", type=int, default=4096, help="largest n timed with NumPy (default 4096)")
    args = parser.parse_args()
    warm, reps = (1, 3) if args.quick else (2, 10)
    print(device_line())
    print(f"peaks for the share column: float64 {PEAK_TFLOPS[np.dtype(F64)]:.0f} TFLOP/s, "
          f"float32 {PEAK_TFLOPS[np.dtype(F32)]:.0f} TFLOP/s (nominal H100 SXM)")
    head = (f"{'case':34} {'gpupy ms':>10} {'cupy ms':>10} {'numpy ms':>10} {'cupy/gpupy':>10} {'numpy/gpupy':>11} "
            f"{'GFLOP/s':>9} {'of peak':>8} {'err':>9}")
    print(head)
    print("-" * len(head))
    fmt = lambda v, spec: "-" if v is None else (v if isinstance(v, str) else format(v, spec))  # noqa: E731
    for i, (label, op, batch, n, dtype, lib) in enumerate(rows(args.quick)):
        if args.only and args.only not in label:
            continue
        a, b = make_inputs(op, batch, n, dtype, i)
        gp.cuda.Device().synchronize()  # CuPy reads these arrays on its own stream
        call = gp_call(op, lib, a, b)
        big = n >= 4096
        t = gpu_ms(gp, call, warm, 3 if big and not args.quick else reps)
        err = residual(op, lib, a, b, call())
        tc = None
        if cp is not None:
            ca, cb = cp.asarray(a), cp.asarray(b)  # views of gpupy's memory (__cuda_array_interface__)
            ccall = other_call(cp, op, lib, ca, cb)
            if ccall is not None:
                tc = gpu_ms(cp, ccall, warm, 3 if big and not args.quick else reps)
            del ca, cb
        tn = None
        if n <= args.numpy_max:
            na, nb = gp.asnumpy(a), gp.asnumpy(b)
            ncall = other_call(np, op, lib, na, nb)
            tn = host_ms(ncall, 1 if not big else 0, 1 if big or args.quick else 3)
            del na, nb
        else:
            tn = "skipped"
        f = flops(op, n, batch)
        gflops = f / (t * 1e-3) / 1e9 if f else None
        share = None if gflops is None else 100 * gflops / (PEAK_TFLOPS[np.dtype(dtype)] * 1e3)
        print(f"{label:34} {t:10.3f} {fmt(tc, '10.3f'):>10} {fmt(tn, '10.1f'):>10} "
              f"{fmt(None if tc is None else tc / t, '10.2f'):>10} "
              f"{fmt(None if not isinstance(tn, float) else tn / t, '11.2f'):>11} "
              f"{fmt(gflops, '9.0f'):>9} {fmt(share, '7.1f') + ('%' if share is not None else ''):>8} "
              f"{fmt(err, '9.1e'):>9}", flush=True)
        del a, b
        free_pools()
    print("(ms: CUDA-event medians, NumPy wall clock; ratios above 1: gpupy faster; err: normwise residual)")
    tutorial()


if __name__ == "__main__":
    main()
