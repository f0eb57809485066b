"""Rust user kernels to PTX, with the Rust toolchain gpupy itself builds with.

``compile_rust_module(source)`` compiles the body of a ``#![no_std]`` Rust crate
(``RawModule(code=..., language='rust')``) to PTX text for ``sm_70``, which the driver
compiles for the GPU at load time. The recipe is the one ``host/build.rs`` uses for
gpupy's own kernels:

1. a crate is written under the build folder: ``Cargo.toml`` (a ``staticlib`` with fat
   LTO, one codegen unit, ``panic = "abort"``, depending on a copy of the device helper
   crate ``rust/gpupy_device``) and ``src/lib.rs`` = a fixed prelude (crate attributes,
   ``use gpupy_device::prelude::*;``, a panic handler that traps) + the user's source;
2. ``cargo rustc --release --target nvptx64-nvidia-cuda -Zbuild-std=core -- --emit=llvm-bc``
   with the pinned nightly gives one LLVM bitcode module (``core`` is built from the
   ``rust-src`` component, once per build folder: every crate shares one target dir);
3. ``llvm-link --only-needed`` with CUDA's ``libdevice.10.bc`` (the math functions),
   ``opt -O3``, ``llc -mcpu=sm_70`` (the ``llvm-tools`` component) give the PTX.

Toolchain: ``$GPUPY_RUSTC`` when set, either a toolchain folder (the one holding
``bin/cargo`` and ``bin/rustc``, e.g.
``~/.rustup/toolchains/nightly-2026-05-19-x86_64-unknown-linux-gnu``) or the path of a
toolchain's ``cargo`` (its ``rustc`` is the one beside it); otherwise rustup's
``PINNED_NIGHTLY`` (the channel of gpupy's ``rust-toolchain.toml``). It needs the
``rust-src`` and ``llvm-tools`` components; libdevice comes from ``$GPUPY_CUDA_NVCC``,
the ``nvidia-cuda-nvcc-cu12`` wheel or a CUDA toolkit.

Results go through the kernel cache (``_cache.cached_compile``). The key is computed
without any toolchain (source, options, toolchain id, architecture, a digest of the
device crate and of this recipe), so a machine with no Rust at all loads kernels from a
cache folder filled elsewhere; the toolchain is looked for only when a kernel must be
built. The build folder is ``$GPUPY_RUST_BUILD_DIR``, by default ``rust-build`` inside
the cache folder.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

from gpupy._userkernel import _cache
from gpupy.cuda.compiler import CompileException

#: The nightly gpupy's own kernels are built with; equal to the channel in the
#: repository's ``rust-toolchain.toml`` (a test checks it).
PINNED_NIGHTLY = "nightly-2026-05-19"
#: The PTX target of a module unless its options name another (``-arch=sm_80``): the
#: driver compiles sm_70 PTX for any GPU from Volta on.
DEFAULT_ARCH = "sm_70"

_TARGET = "nvptx64-nvidia-cuda"
_INSTALL = f"rustup toolchain install {PINNED_NIGHTLY} --component rust-src --component llvm-tools"
_DEVICE_CRATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rust", "gpupy_device")
_LIBDEVICE = os.path.join("nvvm", "libdevice", "libdevice.10.bc")

# What gpupy puts before the user's source in src/lib.rs. The lints allowed are those
# CUDA-style code trips (names like `blockDim`, unused parameters); `unused` also
# silences `unused_features`. The prelude's line count is fixed, so rustc's line numbers
# in src/lib.rs are the user's plus _PRELUDE_LINES.
_PRELUDE = """\
// gpupy's prelude for Rust user kernels (gpupy/_userkernel/_rustc.py).
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch, f16)]
#![allow(non_snake_case, non_camel_case_types, non_upper_case_globals, unused)]
#![allow(unstable_name_collisions, improper_ctypes_definitions, static_mut_refs)]
use gpupy_device::prelude::*;
/// A panic cannot unwind on the GPU: the kernel stops (`trap`), and the host sees the
/// launch fail at its next synchronizing call.
#[panic_handler]
fn __gpupy_panic(_: &core::panic::PanicInfo) -> ! {
    unsafe { core::arch::nvptx::trap() }
}
// ---- your source starts on the next line ----
"""
_PRELUDE_LINES = _PRELUDE.count("\n")

_MANIFEST = """\
[package]
name = "{crate}"
version = "0.0.0"
edition = "2024"
publish = false

[lib]
path = "src/lib.rs"
# A staticlib needs no linker: cargo stops at the fat-LTO'd module we ask rustc to emit.
crate-type = ["staticlib"]

[dependencies]
gpupy_device = {{ path = {device} }}

[profile.release]
opt-level = 3
lto = "fat"
codegen-units = 1
panic = "abort"
debug = false

# Its own workspace, whatever folder the build happens in.
[workspace]
"""

# `immediate-abort` (for `core` too) turns every panic into `trap`, so the module refers
# to no `core::panicking` function that would stay unresolved in the PTX.
_RUSTFLAGS = "-Zunstable-options -Cpanic=immediate-abort -Ctarget-cpu={arch}"
_LLVM_STEPS = ("llvm-link --only-needed", "opt -O3", "llc -O3 -mcpu={arch} {ptx_isa}")


def _ptx_isa_flags(arch):
    """llc's PTX ISA flags for `arch`: at least ISA 7.0 (CUDA 11.0 drivers; gpupy needs a
    CUDA 12 driver anyway), where LLVM would write 6.0/6.3 for sm_70/sm_75 and reject
    instructions such as `atom.add.f16` on generic addresses. Newer targets keep LLVM's
    own (higher) version: an explicit lower one is an error there."""
    number = int(re.match(r"sm_(\d+)", arch).group(1))
    return ["-mattr=+ptx70"] if number < 80 else []


# Variables of an outer cargo (gpupy built from a build script, a cargo-run test) that
# would leak into the nested build: its rustc, flags, target dir or job server.
_OUTER_VARS = (
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "RUSTUP_TOOLCHAIN",
    "MAKEFLAGS",
    "MFLAGS",
)
_KEPT_CARGO_VARS = ("CARGO_HOME",)
_KEPT_CARGO_PREFIXES = ("CARGO_NET_", "CARGO_HTTP_")


def _clean_env():
    """os.environ without an outer cargo's settings: every ``CARGO_*`` variable is a
    cargo config key (target dir, profile, build target...), so all go but the home and
    network ones."""
    env = {}
    for k, v in os.environ.items():
        if k in _OUTER_VARS:
            continue
        if k.startswith("CARGO") and k not in _KEPT_CARGO_VARS and not k.startswith(_KEPT_CARGO_PREFIXES):
            continue
        env[k] = v
    env["RUST_BACKTRACE"] = "0"
    return env


# ---------------------------------------------------------------------------------------
# The cache key: no toolchain needed.

_digest_lock = threading.Lock()
_digest = []


def _driver_digest():
    """sha256 of the device crate's files and of this recipe (prelude, manifest, flags):
    anything that changes the PTX of an unchanged source."""
    with _digest_lock:
        if _digest:
            return _digest[0]
        h = hashlib.sha256()
        for rel in _device_files():
            h.update(rel.encode() + b"\0")
            with open(os.path.join(_DEVICE_CRATE, rel), "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
        for part in (_PRELUDE, _MANIFEST, _RUSTFLAGS, *_LLVM_STEPS):
            h.update(part.encode() + b"\0")
        _digest.append(h.hexdigest())
        return _digest[0]


def _device_files():
    """The device crate's source files, as sorted paths relative to it (no build
    outputs: ``target``, ``Cargo.lock``)."""
    files = []
    for root, dirs, names in os.walk(_DEVICE_CRATE):
        dirs[:] = [d for d in dirs if d not in ("target", "__pycache__") and not d.startswith(".")]
        for n in names:
            if n == "Cargo.toml" or n.endswith(".rs"):
                files.append(os.path.relpath(os.path.join(root, n), _DEVICE_CRATE))
    if not files:
        raise RuntimeError(f"gpupy's Rust device crate is missing from {_DEVICE_CRATE} (a broken install)")
    return sorted(files)


def _toolchain_id():
    """The toolchain as the key names it: the pinned nightly, or the override's path."""
    override = os.environ.get("GPUPY_RUSTC")
    return f"GPUPY_RUSTC={override}" if override else PINNED_NIGHTLY


_ARCH_OPTION = re.compile(r"^(?:-arch|--gpu-architecture)(?:=(.*))?$")
_ARCH_VALUE = re.compile(r"^(?:sm|compute)_(\d+[af]?)$")


def _split_options(options):
    """(architecture, rustc arguments) from ``options``: ``-arch=sm_XX`` /
    ``--gpu-architecture=sm_XX`` (also ``compute_XX``, or the value as the next item) pick
    the PTX target as NVRTC's do; every other item goes to rustc for the user's crate
    (``-Copt-level=2``, ``--cfg feature=\"x\"``, ...)."""
    if isinstance(options, str):
        options = (options,)
    options = tuple(options)
    for o in options:
        if not isinstance(o, str):
            raise TypeError(f"options must be strings, got {type(o).__name__}: {o!r}")
    arch = DEFAULT_ARCH
    rest = []
    it = iter(options)
    for o in it:
        m = _ARCH_OPTION.match(o)
        if m is None:
            rest.append(o)
            continue
        value = m.group(1) if m.group(1) is not None else next(it, "")
        v = _ARCH_VALUE.match(value)
        if v is None:
            raise ValueError(f"{o!r}: the architecture must look like sm_80 or compute_80, got {value!r}")
        arch = "sm_" + v.group(1)
    return options, arch, tuple(rest)


def rust_key_parts(source, options=()):
    """The cache key parts of a Rust module: (source, options..., toolchain id,
    architecture, device crate + recipe digest). Needs no toolchain."""
    options, arch, _ = _split_options(options)
    return _key_parts(source, options, arch)


def _key_parts(source, options, arch):
    return (source, *options, _toolchain_id(), arch, _driver_digest())


# ---------------------------------------------------------------------------------------
# Finding the tools (only when a kernel must be built).


class _Toolchain:
    """The binaries of one toolchain, checked: a nightly with rust-src and llvm-tools."""

    def __init__(self, cargo, rustc, llvm_bin, version, origin):
        self.cargo = cargo
        self.rustc = rustc
        self.llvm_bin = llvm_bin
        self.version = version
        self.origin = origin


_toolchains = {}
_toolchains_lock = threading.Lock()


def _missing(what):
    return RuntimeError(
        f"Rust kernels (language='rust') need {what}. Install the toolchain gpupy builds "
        f"with:\n    {_INSTALL}\n(rustup itself: https://rustup.rs), or set GPUPY_RUSTC to a "
        "nightly toolchain folder that has the rust-src and llvm-tools components."
    )


def _run_text(cmd, env):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr.strip()}")
    return r.stdout


def _locate():
    """(cargo, rustc, origin) of the toolchain to use, unchecked."""
    env = _clean_env()
    override = os.environ.get("GPUPY_RUSTC")
    if override:
        path = os.path.expanduser(override)
        if os.path.isdir(path):
            bindir = os.path.join(path, "bin") if os.path.isdir(os.path.join(path, "bin")) else path
            cargo = os.path.join(bindir, "cargo")
        else:
            bindir, cargo = os.path.dirname(path), path
        rustc = os.path.join(bindir, "rustc")
        if not (os.path.isfile(cargo) and os.path.isfile(rustc)):
            raise RuntimeError(
                f"GPUPY_RUSTC={override} is neither a Rust toolchain folder (with bin/cargo and "
                "bin/rustc) nor the path of a cargo with its rustc beside it."
            )
        return cargo, rustc, f"GPUPY_RUSTC={override}"
    rustup = shutil.which("rustup")
    if rustup is None:
        home = os.environ.get("CARGO_HOME") or os.path.join(os.path.expanduser("~"), ".cargo")
        candidate = os.path.join(home, "bin", "rustup")
        rustup = candidate if os.path.isfile(candidate) else None
    if rustup is None:
        raise _missing("rustup, which was not found (not on PATH, not in ~/.cargo/bin)")
    r = subprocess.run(
        [rustup, "which", "--toolchain", PINNED_NIGHTLY, "rustc"], capture_output=True, text=True, env=env
    )
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or ["not installed"])[0]
        raise _missing(f"the nightly toolchain {PINNED_NIGHTLY} ({first})")
    rustc = r.stdout.strip()
    cargo = os.path.join(os.path.dirname(rustc), "cargo")
    if not os.path.isfile(cargo):
        raise _missing(f"cargo in the toolchain {PINNED_NIGHTLY} (not at {cargo})")
    return cargo, rustc, f"rustup {PINNED_NIGHTLY}"


def _toolchain():
    """The checked toolchain; raises RuntimeError saying what to install. Remembered per
    (GPUPY_RUSTC, PATH, homes) once found; a failure is looked for again next time (the
    user may have installed it meanwhile)."""
    key = tuple(os.environ.get(v) for v in ("GPUPY_RUSTC", "PATH", "RUSTUP_HOME", "CARGO_HOME", "HOME"))
    with _toolchains_lock:
        hit = _toolchains.get(key)
    if hit is not None:
        return hit
    cargo, rustc, origin = _locate()
    env = _clean_env()
    info = _run_text([rustc, "-vV"], env)
    version = info.splitlines()[0].strip() if info else "rustc ?"
    host = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("host:")), "")
    if "nightly" not in version and "-dev" not in version:
        raise _missing(f"a nightly rustc (for the NVPTX target's unstable features); {origin} is `{version}`")
    if _TARGET not in _run_text([rustc, "--print", "target-list"], env).split():
        raise _missing(f"a rustc with the {_TARGET} target; {origin} (`{version}`) has none")
    sysroot = _run_text([rustc, "--print", "sysroot"], env).strip()
    if not os.path.isdir(os.path.join(sysroot, "lib", "rustlib", "src", "rust", "library", "core")):
        raise _missing(f"the rust-src component (to build `core` for {_TARGET}); {origin} lacks it")
    llvm_bin = os.path.join(sysroot, "lib", "rustlib", host, "bin")
    for tool in ("llvm-link", "opt", "llc"):
        if not os.path.isfile(os.path.join(llvm_bin, tool)):
            raise _missing(f"the llvm-tools component (llvm-link, opt, llc); {origin} lacks {tool}")
    tc = _Toolchain(cargo, rustc, llvm_bin, version, origin)
    with _toolchains_lock:
        _toolchains[key] = tc
    return tc


def _find_libdevice():
    """CUDA's libdevice bitcode: $GPUPY_CUDA_NVCC, the nvidia-cuda-nvcc wheel on sys.path,
    $CUDA_HOME/$CUDA_PATH, then the usual toolkit folders (as host/build.rs looks)."""
    override = os.environ.get("GPUPY_CUDA_NVCC")
    if override:
        path = os.path.join(override, _LIBDEVICE)
        if os.path.isfile(path):
            return path
        raise RuntimeError(f"GPUPY_CUDA_NVCC={override} has no {_LIBDEVICE}")
    folders = [os.path.join(p or os.getcwd(), "nvidia", "cuda_nvcc") for p in sys.path]
    folders += [os.environ[v] for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    folders += ["/usr/local/cuda", "/opt/cuda"]
    for folder in folders:
        path = os.path.join(folder, _LIBDEVICE)
        if os.path.isfile(path):
            return path
    raise RuntimeError(
        "Rust kernels (language='rust') link CUDA's libdevice (the math functions), which "
        "was not found. Run `python -m pip install nvidia-cuda-nvcc-cu12`, or set "
        f"GPUPY_CUDA_NVCC to a folder with {_LIBDEVICE} (a CUDA toolkit's root)."
    )


def rust_toolchain_available():
    """(True, what was found) when Rust kernels can be compiled here, else (False, what
    is missing and how to install it). Looks for the tools; compiles nothing."""
    try:
        tc = _toolchain()
        libdevice = _find_libdevice()
    except (RuntimeError, OSError) as e:
        return False, str(e)
    return True, f"{tc.version} ({tc.origin}); libdevice {libdevice}"


# ---------------------------------------------------------------------------------------
# Building.


def _build_root():
    return os.environ.get("GPUPY_RUST_BUILD_DIR") or os.path.join(_cache.cache_dir(), "rust-build")


def _device_copy(root, digest):
    """The build folder's copy of the device crate for this digest, made once: copied to
    a temporary name and renamed, so concurrent processes never see half a copy. A copy
    (not the installed folder) keeps cargo from writing into site-packages."""
    dest = os.path.join(root, f"gpupy_device-{digest[:16]}")
    if os.path.isfile(os.path.join(dest, "Cargo.toml")):
        return dest
    os.makedirs(root, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".gpupy_device-", dir=root)
    try:
        staged = os.path.join(tmp, "crate")
        os.makedirs(staged)
        for rel in _device_files():
            os.makedirs(os.path.join(staged, os.path.dirname(rel)), exist_ok=True)
            shutil.copyfile(os.path.join(_DEVICE_CRATE, rel), os.path.join(staged, rel))
        try:
            os.rename(staged, dest)
        except OSError:
            if not os.path.isfile(os.path.join(dest, "Cargo.toml")):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def _toml_string(s):
    """A TOML basic string (JSON's escaping is valid TOML for paths)."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _build(source, options, name, arch, rustc_args, key):
    """Compiles one module (a cache miss): returns its PTX as bytes."""
    tc = _toolchain()
    libdevice = _find_libdevice()
    root = _build_root()
    device = _device_copy(root, _driver_digest())
    crates = os.path.join(root, "crates")
    os.makedirs(crates, exist_ok=True)
    # One folder per build (the key and a unique suffix): concurrent processes never
    # write the same crate. They share the target dir, whose lock cargo holds.
    work = tempfile.mkdtemp(prefix=f"{key[:16]}-", dir=crates)
    lib_rs = _PRELUDE + source + ("" if source.endswith("\n") else "\n")
    try:
        crate = f"gpupy_user_{key[:16]}"
        os.makedirs(os.path.join(work, "src"))
        with open(os.path.join(work, "Cargo.toml"), "w") as f:
            f.write(_MANIFEST.format(crate=crate, device=_toml_string(device)))
        with open(os.path.join(work, "src", "lib.rs"), "w") as f:
            f.write(lib_rs)
        bc = os.path.join(work, "module.bc")
        env = _clean_env()
        env["RUSTC"] = tc.rustc
        env["RUSTFLAGS"] = _RUSTFLAGS.format(arch=arch)
        cmd = [
            tc.cargo, "rustc", "--release", "--quiet", "--color", "never",
            "--target", _TARGET, "-Zbuild-std=core",
            "--manifest-path", os.path.join(work, "Cargo.toml"),
            # One target dir per architecture: `core` is built once for each, and
            # switching between them does not rebuild it.
            "--target-dir", os.path.join(root, "target", arch),
            "--", f"--emit=llvm-bc={bc}", *rustc_args,
        ]  # fmt: skip
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=work)
        if r.returncode != 0 or not os.path.isfile(bc):
            log = r.stderr
            if f"could not compile `{crate}`" in log:
                note = (
                    f"note: lines 1-{_PRELUDE_LINES} of src/lib.rs are gpupy's prelude: line "
                    f"N of src/lib.rs is line N-{_PRELUDE_LINES} of your source\n"
                )
                raise CompileException(log + note, lib_rs, name, options, backend="rustc")
            hint = ""
            if "crates.io" in log:
                hint = (
                    "\n(-Zbuild-std resolves the dependencies of Rust's standard library "
                    "through crates.io: the first Rust kernel built on a machine needs network "
                    "access, or a cargo home that has that index already.)"
                )
            raise RuntimeError(f"cargo failed to build the Rust module {name!r}:\n{log}{hint}")
        linked, optimized, ptx = (os.path.join(work, n) for n in ("linked.bc", "opt.bc", "module.ptx"))
        _llvm(tc, ["llvm-link", bc, libdevice, "--only-needed", "-o", linked], env)
        # Correctly rounded float32 sqrt in libdevice, as nvcc's default (see host/build.rs).
        _llvm(tc, ["opt", "-passes=nvvm-reflect,default<O3>", "--nvvm-reflect-add=__CUDA_PREC_SQRT=1",
                   linked, "-o", optimized], env)
        _llvm(tc, ["llc", "-O3", f"-mcpu={arch}", *_ptx_isa_flags(arch), optimized, "-o", ptx], env)
        with open(ptx, "rb") as f:
            return f.read()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _llvm(tc, argv, env):
    cmd = [os.path.join(tc.llvm_bin, argv[0]), *argv[1:]]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed on a Rust kernel module:\n{r.stderr}")


def compile_rust_module(source, options=(), name="module"):
    """PTX text (bytes, no trailing NUL) of the Rust crate body ``source``.

    ``source`` is items only: gpupy's prelude sets the crate attributes (``#![no_std]``,
    the features ``abi_ptx``, ``stdarch_nvptx``, ``asm_experimental_arch``, ``f16``),
    imports ``gpupy_device::prelude::*`` and defines the panic handler, so the source
    has none of these; more crate attributes come through options
    (``-Zcrate-attr=feature(portable_simd)``). Kernels are
    ``#[unsafe(no_mangle)] pub unsafe extern "ptx-kernel" fn name(...)``.

    ``options``: strings; ``-arch=sm_XX`` picks the PTX target (default sm_70), the rest
    are rustc arguments for the user's crate. ``name`` names the module in errors.
    Raises ``CompileException`` (backend ``'rustc'``, rustc's diagnostics as its log,
    the full ``src/lib.rs`` as its source) when the code does not compile, and
    RuntimeError saying what to install when the toolchain or libdevice is missing.
    Cached on disk and in memory: a second call with the same arguments builds nothing.
    """
    if not isinstance(source, str):
        raise TypeError(f"Rust source must be str, got {type(source).__name__}")
    options, arch, rustc_args = _split_options(options)
    parts = _key_parts(source, options, arch)

    def build():
        key = _cache.cache_key("rust", parts)
        return _build(source, options, name, arch, rustc_args, key)

    return _cache.cached_compile("rust", parts, build)


def ptx_entries(ptx):
    """The kernel names (``.entry``) a PTX module defines, in order: a kernel missing
    here was not exported (it needs ``#[unsafe(no_mangle)]`` and ``extern "ptx-kernel"``)."""
    text = ptx.decode() if isinstance(ptx, bytes) else ptx
    return re.findall(r"\.entry\s+([A-Za-z_$][\w$]*)", text)


__all__ = [
    "PINNED_NIGHTLY",
    "DEFAULT_ARCH",
    "compile_rust_module",
    "rust_key_parts",
    "rust_toolchain_available",
    "ptx_entries",
]
