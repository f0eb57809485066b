"""Every matrix-product path the present GPU can run, on every run: the path switches
(``gpupy.config.matmul_switches``: a forced tile, no tensor cores, no sm_90 float64
shape, no wgmma) are set per test, so an H100/H200 run checks the Ampere float64 shape,
large ``mma.sync`` and the SIMT tiles too, not only the path the heuristics pick. Each
case asserts the kernel family that ran (``gpupy.config.matmul_path()``) and the result
within ``compare.product_bound`` (see ``test_matmul.py``). The paths that ran are listed
in the terminal summary's ``matmul paths ran`` section (conftest.py)."""

import numpy as np
import pytest

import gpupy as gp
from test_matmul import assert_product_close

pytestmark = pytest.mark.gpu

def capability():
    return gp.cuda.Device().compute_capability


def run(request, rng, dtype, m, k, n, switches, want_path, tf32=False, transpose_b=False):
    x = rng.standard_normal((m, k)).astype(dtype)
    y = rng.standard_normal((k, n)).astype(dtype)
    a = gp.asarray(x)
    b = gp.asarray(np.ascontiguousarray(y.T)).T if transpose_b else gp.asarray(y)
    with gp.config.matmul_switches(**switches), gp.config.allow_tf32(tf32):
        got = a @ b
        path = gp.config.matmul_path()
    label = ",".join(f"{k}={v}" for k, v in sorted(switches.items())) or "default"
    request.node.user_properties.append(("matmul_path", f"{np.dtype(dtype).name}{' tf32' if tf32 else ''} {label}: {path}"))
    assert path == want_path, f"{switches}: ran {path}, want {want_path}"
    assert_product_close(got, x, y, tf32=tf32)


# (dtype, switches, path it must take on sm_90, on sm_80): None where the path needs
# what the GPU lacks.
CASES = [
    (np.float32, {}, "simt", "simt"),
    (np.float32, {"tile": "64x64"}, "simt", "simt"),
    (np.float32, {"tile": "128x128v"}, "simt", "simt"),
    (np.float64, {}, "mma", "mma"),  # sm_90: the m16n8k8 shape
    (np.float64, {"no_sm90": True}, "mma", "mma"),  # Ampere's m8n8k4 shape on Hopper
    (np.float64, {"no_tc": True}, "simt", "simt"),
    (np.float64, {"tile": "64x64", "no_sm90": True}, "mma", "mma"),
    (np.float16, {}, "wgmma", "mma"),
    (np.float16, {"no_wgmma": True}, "mma", "mma"),
    (np.float16, {"no_wgmma": True, "tile": "128x128"}, "mma", "mma"),
    (np.float16, {"no_tc": True}, "simt", "simt"),
]


def case_id(c):
    dtype, switches, *_ = c
    s = ",".join(f"{k}={v}" for k, v in switches.items()) or "default"
    return f"{np.dtype(dtype).name}-{s}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_path_the_gpu_has(request, rng, case):
    dtype, switches, sm90, sm80 = case
    major = int(capability()[0])
    want = sm90 if major >= 9 else sm80 if major >= 8 else "simt"
    # 17 x 9 tiles of 128x256 fill an H100/H200 (wgmma needs one per SM); a short k
    # keeps the exact reference (long double, on the CPU) cheap.
    run(request, rng, dtype, 2176, 16, 2304, switches, want)


@pytest.mark.parametrize("transpose_b", [False, True], ids=["nn", "nt"])
def test_tf32_paths(request, rng, transpose_b):
    major = int(capability()[0])
    run(request, rng, np.float32, 2176, 16, 2304, {}, "wgmma" if major >= 9 else "mma", tf32=True, transpose_b=transpose_b)
    run(request, rng, np.float32, 2176, 16, 2304, {"no_wgmma": True}, "mma", tf32=True, transpose_b=transpose_b)


def test_switches_restore_and_read_back():
    before = gp._gpupy._matmul_switches()
    with gp.config.matmul_switches(tile="64x64", no_tc=True):
        assert gp._gpupy._matmul_switches() == ("64x64", True, False, False)
    assert gp._gpupy._matmul_switches() == before
