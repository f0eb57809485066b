"""Rust user kernels, the compiler side (no GPU): gpupy._userkernel._rustc.

- the pinned nightly matches the repository's rust-toolchain.toml;
- the cache key needs no toolchain, and a cached module loads on a machine without Rust
  (the GPU machines have none and get the cache folder carried over);
- a missing toolchain raises a RuntimeError with the command that installs it;
- where the toolchain is installed (skipped otherwise, with the reason): real modules
  compile to PTX with the expected entry points, the device helpers (shared memory,
  shuffles, atomics, libdevice, c64, f16) compile, ptxas (when found) assembles the PTX
  with no spills, a syntax error raises CompileException with rustc's message, and a
  second compile of the same source hits the cache, in this process and in another.

Each test gets its own cache folder (GPUPY_CACHE_DIR); the Rust build folder
(GPUPY_RUST_BUILD_DIR) is shared by the module so `core` is built once per run.
"""

import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from gpupy._userkernel import _cache, _rustc
from gpupy.cuda.compiler import CompileException

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTALL = "rustup toolchain install nightly-2026-05-19 --component rust-src --component llvm-tools"

HAVE_RUST, RUST_REASON = _rustc.rust_toolchain_available()
needs_rust = pytest.mark.skipif(not HAVE_RUST, reason=f"no Rust toolchain for kernels: {RUST_REASON}")

SAXPY = """
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn saxpy(a: f32, x: *const f32, y: *const f32, out: *mut f32, n: usize) {
    for i in grid_stride_range(n) {
        unsafe { *out.add(i) = a * *x.add(i) + *y.add(i) };
    }
}
"""

# One kernel per helper family, so ptxas's per-kernel report says which one misbehaves.
HELPERS = """
/// Block sum through dynamic shared memory and warp shuffles, one atomic per warp.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn block_sum(x: *const f32, total: *mut f32, n: usize) {
    let smem = shared_ptr::<f32>();
    let t = thread_idx_x() as usize;
    let mut acc = 0.0f32;
    for i in grid_stride_range(n) {
        acc += unsafe { *x.add(i) };
    }
    unsafe { *smem.add(t) = acc };
    sync_threads();
    let mut v = unsafe { *smem.add(t ^ 1) };
    let mut d = 16;
    while d > 0 {
        v += shfl_down(v, d);
        d /= 2;
    }
    v = shfl_idx(v, 0) + shfl_xor(0.0f32, 1) + shfl_up(0.0f32, 1);
    if lane_id() == 0 {
        unsafe { atomic_add(total, v) };
    }
}

/// libdevice through its three spellings.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sines(x: *const f32, y: *mut f32, z: *mut f64, n: usize) {
    for i in grid_stride_range(n) {
        let v = unsafe { *x.add(i) };
        unsafe {
            *y.add(i) = sinf(v) + sin(v) + v.sin();
            *z.add(i) = erf(v as f64) + lgamma(v as f64) + pow(v as f64, 2.5) + fma(1.0, 2.0, v as f64);
        }
    }
}

/// Complex64 arithmetic, a complex128 parameter (a Python complex), f16 math.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn complex_ops(a: *const c64, b: *const c64, out: *mut c64, s: c128, h: *mut f16, n: usize) {
    let sc = c64::new(s.re as f32, s.im as f32);
    for i in grid_stride_range(n) {
        let (p, q) = unsafe { (*a.add(i), *b.add(i)) };
        let r = (p * q + sc) / (q.conj() - 1.0f32) * 2.0f32 - p.norm() + c64::from(p.abs());
        unsafe {
            *out.add(i) = -r;
            *h.add(i) = (*h.add(i) * 1.5f16).sqrt();
        }
    }
}

/// Integer atomics, a fixed-size shared array, barriers with votes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn atomics(counts: *mut u32, m: *mut i64, sums: *mut f64, h: *mut f16, n: usize) {
    let tile = shared_array!(tile: [u32; 256]);
    let t = thread_idx_x() as usize;
    let i = global_thread_idx();
    unsafe { *tile.add(t % 256) = t as u32 };
    sync_threads();
    let w = unsafe { *tile.add((t + 1) % 256) };
    let c = sync_threads_count(w > 3);
    if i < n {
        unsafe {
            atomic_add(counts, c);
            atomic_sub(counts.add(1), 1u32);
            atomic_max(m, i as i64);
            atomic_min(m.add(1), -(i as i64));
            atomic_cas(counts.add(2), 0, w);
            atomic_or(counts.add(3), 1 << (t % 32));
            atomic_add(sums, 1.0f64);
            atomic_add(h, 1.0f16);
        }
    }
    if warp_all(w < 1000) && warp_any(true) && sync_threads_or(w == 7) {
        threadfence();
        unsafe { atomic_exch(sums.add(1), 2.0f64) };
    }
}
"""


def _ptxas():
    """ptxas beside the libdevice gpupy links (the nvidia-cuda-nvcc wheel), or on PATH."""
    try:
        libdevice = _rustc._find_libdevice()
    except RuntimeError:
        libdevice = None
    if libdevice:
        cand = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(libdevice))), "bin", "ptxas")
        if os.path.isfile(cand):
            return cand
    return shutil.which("ptxas")


def _assemble(ptx, tmp_path):
    """ptxas -v's per-kernel report {kernel: (stack bytes, spill line)} for sm_90."""
    ptxas = _ptxas()
    if ptxas is None:
        pytest.skip("ptxas not found (pip install nvidia-cuda-nvcc-cu12)")
    src = tmp_path / "module.ptx"
    src.write_bytes(ptx)
    r = subprocess.run(
        [ptxas, "-arch=sm_90", "-v", str(src), "-o", str(tmp_path / "module.cubin")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    report = {}
    kernel = None
    for line in (r.stdout + r.stderr).splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            kernel = m.group(1)
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and kernel is not None:
            report[kernel] = (int(m.group(1)), int(m.group(2)) + int(m.group(3)))
            kernel = None
    return report


@pytest.fixture(scope="module")
def rust_build_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("rust-build"))


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch, rust_build_dir):
    """An empty kernel cache (disk and memory); the module's shared Rust build folder."""
    monkeypatch.setenv("GPUPY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GPUPY_RUST_BUILD_DIR", rust_build_dir)
    monkeypatch.delenv("GPUPY_RUSTC", raising=False)
    _cache.clear_memory()
    yield tmp_path / "cache"
    _cache.clear_memory()


def _no_rust_env(monkeypatch, tmp_path):
    """An environment where no Rust toolchain can be found."""
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CARGO_HOME", str(tmp_path / "home" / ".cargo"))
    monkeypatch.setenv("RUSTUP_HOME", str(tmp_path / "home" / ".rustup"))
    monkeypatch.delenv("GPUPY_RUSTC", raising=False)


def _channel(path):
    with open(path) as f:
        m = re.search(r'^\s*channel\s*=\s*"([^"]+)"', f.read(), re.MULTILINE)
    assert m is not None, f"no channel in {path}"
    return m.group(1)


def test_pinned_nightly_matches_rust_toolchain_toml():
    assert _rustc.PINNED_NIGHTLY == _channel(os.path.join(ROOT, "rust-toolchain.toml"))
    # The example crate pins the same nightly for users who copy it out of the repository.
    assert _rustc.PINNED_NIGHTLY == _channel(os.path.join(ROOT, "examples", "rust_kernel", "rust-toolchain.toml"))
    assert INSTALL.split()[3] == _rustc.PINNED_NIGHTLY


def test_cache_key_needs_no_toolchain(monkeypatch, tmp_path, fresh_cache):
    _no_rust_env(monkeypatch, tmp_path)
    parts = _rustc.rust_key_parts(SAXPY)
    assert parts[0] == SAXPY
    assert parts[1:3] == (_rustc.PINNED_NIGHTLY, "sm_70")
    assert re.fullmatch(r"[0-9a-f]{64}", parts[3])
    # Everything the PTX depends on is in the key.
    assert _rustc.rust_key_parts(SAXPY, ("-arch=sm_80",))[-2] == "sm_80"
    assert _rustc.rust_key_parts(SAXPY, ("--gpu-architecture", "compute_90"))[-2] == "sm_90"
    assert _rustc.rust_key_parts(SAXPY, ("-Copt-level=2",)) != parts
    assert _rustc.rust_key_parts(SAXPY + " ") != parts
    monkeypatch.setenv("GPUPY_RUSTC", "/opt/my-nightly")
    assert _rustc.rust_key_parts(SAXPY)[-3] == "GPUPY_RUSTC=/opt/my-nightly"
    monkeypatch.delenv("GPUPY_RUSTC")
    # A module in the cache loads with no toolchain at all (a GPU machine given the
    # cache folder of a machine with Rust).
    _cache.store("rust", parts, b"// cached PTX\n")
    _cache.clear_memory()
    assert _rustc.compile_rust_module(SAXPY) == b"// cached PTX\n"


def test_missing_toolchain_says_what_to_install(monkeypatch, tmp_path, fresh_cache):
    _no_rust_env(monkeypatch, tmp_path)
    ok, reason = _rustc.rust_toolchain_available()
    assert not ok and INSTALL in reason
    with pytest.raises(RuntimeError, match=re.escape(INSTALL)):
        _rustc.compile_rust_module(SAXPY)
    monkeypatch.setenv("GPUPY_RUSTC", str(tmp_path))
    with pytest.raises(RuntimeError, match="GPUPY_RUSTC=.*neither a Rust toolchain folder"):
        _rustc.compile_rust_module(SAXPY)


def test_bad_options():
    with pytest.raises(ValueError, match="sm_80 or compute_80"):
        _rustc.rust_key_parts(SAXPY, ("-arch=volta",))
    with pytest.raises(TypeError, match="options must be strings"):
        _rustc.rust_key_parts(SAXPY, (b"-O",))
    with pytest.raises(TypeError, match="must be str"):
        _rustc.compile_rust_module(SAXPY.encode())


def test_ptx_entries():
    ptx = ".visible .entry saxpy(\n.param .f32 a\n)\n.entry add_arrays (\n.func helper(\n"
    assert _rustc.ptx_entries(ptx) == ["saxpy", "add_arrays"]
    assert _rustc.ptx_entries(ptx.encode()) == ["saxpy", "add_arrays"]


@needs_rust
def test_saxpy_compiles_to_ptx(fresh_cache, tmp_path):
    ptx = _rustc.compile_rust_module(SAXPY, name="saxpy")
    text = ptx.decode()
    assert ".visible .entry saxpy(" in text
    assert ".target sm_70" in text
    assert _rustc.ptx_entries(ptx) == ["saxpy"]
    assert not text.endswith("\0")
    assert _assemble(ptx, tmp_path) == {"saxpy": (0, 0)}


@needs_rust
def test_device_helpers_compile(fresh_cache, tmp_path):
    ptx = _rustc.compile_rust_module(HELPERS, name="helpers")
    text = ptx.decode()
    assert sorted(_rustc.ptx_entries(ptx)) == ["atomics", "block_sum", "complex_ops", "sines"]
    assert ".extern .shared .align 16 .b8 gpupy_dyn_smem[]" in text  # shared_ptr
    assert ".shared .align 4 .b8 tile[1024]" in text  # shared_array!
    for instr in ("shfl.sync.down.b32", "shfl.sync.bfly.b32", "shfl.sync.idx.b32", "shfl.sync.up.b32",
                  "atom.add.f32", "atom.add.f64", "atom.add.noftz.f16", "atom.max.s64", "atom.min.s64",
                  "atom.cas.b32", "atom.or.b32", "atom.exch.b64", "bar.red.popc.u32", "vote.sync.ballot.b32",
                  "membar.gl"):  # fmt: skip
        assert instr in text, instr
    # libdevice was linked in: no call to an __nv_ function is left unresolved.
    assert not re.search(r"\.extern \.func.*__nv_", text)
    report = _assemble(ptx, tmp_path)
    assert set(report) == {"atomics", "block_sum", "complex_ops", "sines"}
    for kernel, (stack, spills) in report.items():
        assert spills == 0, kernel
        # libdevice's sin reduces huge arguments (Payne-Hanek) through a small local
        # array, as CUDA's own sinf does; nothing else may use a stack frame.
        assert stack == 0 or kernel == "sines", (kernel, stack)


@needs_rust
def test_arch_option_sets_the_ptx_target(fresh_cache):
    ptx = _rustc.compile_rust_module(SAXPY, options=("-arch=sm_80",), name="saxpy").decode()
    assert ".target sm_80" in ptx and ".visible .entry saxpy(" in ptx


@needs_rust
def test_syntax_error_raises_compile_exception(fresh_cache):
    src = textwrap.dedent("""
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn broken(x: *mut f32) {
            let y: f32 = 1.0
            unsafe { *x = y };
        }
    """)
    for _ in range(2):  # a failure is not cached: the second call reports it again
        with pytest.raises(CompileException) as info:
            _rustc.compile_rust_module(src, options=("-Copt-level=3",), name="broken_mod")
        e = info.value
        assert e.backend == "rustc"
        assert e.name == "broken_mod" and e.options == ("-Copt-level=3",)
        assert "expected `;`" in e.get_message() and e.log == e.get_message()
        assert "src/lib.rs:" in e.log
        assert e.source.endswith(src) and e.source.startswith("// gpupy's prelude")
        # rustc's line number points at the missing semicolon in the full source.
        line = int(re.search(r"src/lib\.rs:(\d+):", e.log).group(1))
        assert e.source.splitlines()[line - 1].strip() == "let y: f32 = 1.0"
    assert not fresh_cache.exists() or not any(n.startswith("rust-") for n in os.listdir(fresh_cache))


@needs_rust
def test_second_compile_hits_the_cache(fresh_cache, monkeypatch, tmp_path):
    builds = []
    real_build = _rustc._build

    def counting_build(*args):
        builds.append(args[2])
        return real_build(*args)

    monkeypatch.setattr(_rustc, "_build", counting_build)
    src = SAXPY.replace("saxpy", "saxpy_cached")
    first = _rustc.compile_rust_module(src, name="m")
    assert _rustc.compile_rust_module(src, name="m") == first  # in memory
    _cache.clear_memory()
    assert _rustc.compile_rust_module(src, name="m") == first  # on disk
    assert builds == ["m"]
    # Another process, with no Rust toolchain at all, finds it on disk.
    env = dict(os.environ, PATH="", HOME=str(tmp_path), CARGO_HOME=str(tmp_path), PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("GPUPY_RUSTC", None)
    code = "import sys; from gpupy._userkernel import _rustc; sys.stdout.buffer.write(_rustc.compile_rust_module(sys.stdin.read()))"
    r = subprocess.run([sys.executable, "-c", code], input=src.encode(), capture_output=True, env=env)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout == first
