//! Builds the kernel crate for `nvptx64-nvidia-cuda`, links CUDA's libdevice into it,
//! lowers it to PTX, and assembles that PTX to cubins for the GPUs gpupy is tuned on.
//! All three are embedded in the host library; see `src/module.rs` for which one loads.
//!
//! Every kernel is also checked here: `ptxas -v` must report no stack frame and no
//! spills, since local memory in these kernels means a slow path nobody asked for.
//!
//! Tools: the pinned nightly with `rust-src` and `llvm-tools` (rust-toolchain.toml), and
//! `ptxas` + `libdevice.10.bc` from the `nvidia-cuda-nvcc-cu12` wheel (or a CUDA toolkit).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// PTX is emitted for this virtual architecture, so the driver can compile it for any GPU
/// from Volta on.
const PTX_ARCH: &str = "sm_70";
/// Cubins built ahead of time, so these GPUs load without a JIT step (a cubin runs on GPUs
/// of the same major version). Other GPUs compile the PTX once; the driver caches it.
const CUBIN_ARCHS: &[&str] = &["sm_90"];
/// Kernels that need sm_80 (tensor-core `mma.sync` shapes, `cp.async`, `ldmatrix`): the
/// sm_70 module cannot hold them, so they are cut out of it into a module of their own,
/// emitted as PTX for this architecture plus cubins for `CUBIN_ARCHS`; the host loads
/// it only on GPUs of compute capability 8.0 and up.
const SM80_PREFIX: &str = "gpupy_mma_";
const SM80_ARCH: &str = "sm_80";
/// Kernels that need sm_90 (the float64 `mma.sync` shapes Hopper runs at its full FP64
/// tensor-core rate): a third module, PTX for sm_90 plus its cubin, loaded on compute
/// capability 9.0 and up.
const SM90_PREFIX: &str = "gpupy_mma90_";
const SM90_ARCH: &str = "sm_90";
/// Kernels that need sm_90a (Hopper's warpgroup `wgmma`, which no other target has): a
/// fourth module, assembled for sm_90a only and loaded on compute capability 9.0 exactly
/// (an sm_90a cubin runs nowhere else).
const SM90A_PREFIX: &str = "gpupy_wgmma_";
const SM90A_ARCH: &str = "sm_90a";

/// Kernels allowed a stack frame: libdevice's sin/cos/tan reduce huge arguments
/// (Payne-Hanek) through a small local array, touched only for |x| beyond about 1e5.
/// CUDA's own sinf does the same. Spills are never allowed.
const LIBDEVICE_TRIG: &[&str] = &[
    "_sin_",
    "_cos_",
    "_tan_",
    "_sinh_c",
    "_cosh_c",
    "_tanh_c",
    "_exp_c",
    "_exp2_c",
    "_expm1_c",
    "power_c",
    "float_power_c",
];
/// Variables of the outer cargo that would leak into the nested kernel build.
const OUTER_CARGO_VARS: &[&str] = &[
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET",
    "CARGO_MAKEFLAGS",
    "MAKEFLAGS",
    "MFLAGS",
];

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let kernels = manifest.parent().unwrap().join("kernels");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed={}", kernels.join("src").display());
    println!(
        "cargo:rerun-if-changed={}",
        kernels.join("Cargo.toml").display()
    );
    println!("cargo:rerun-if-env-changed=GPUPY_CUDA_NVCC");

    let rustc = tool_output("rustc", &["--version"], &kernels);
    if !rustc.contains("nightly") {
        fail(&format!(
            "the kernels need a nightly rustc, found `{}`.\nRun `rustup toolchain install` in the repository root (it reads rust-toolchain.toml).",
            rustc.trim()
        ));
    }
    let sysroot = PathBuf::from(tool_output("rustc", &["--print", "sysroot"], &kernels).trim());
    if !sysroot.join("lib/rustlib/src/rust/library/core").exists() {
        fail(
            "the rust-src component is missing.\nRun `rustup component add rust-src` in the repository root.",
        );
    }
    let llvm_bin = sysroot.join(format!("lib/rustlib/{}/bin", env::var("HOST").unwrap()));
    if !llvm_bin.join("llvm-link").exists() {
        fail(
            "the llvm-tools component is missing.\nRun `rustup component add llvm-tools` in the repository root.",
        );
    }
    let cuda = find_cuda_nvcc();
    let libdevice = cuda.join("nvvm/libdevice/libdevice.10.bc");
    let ptxas = cuda.join("bin/ptxas");

    let bitcode = build_kernel_bitcode(&kernels, &out);
    let linked = out.join("kernels.linked.bc");
    let optimized = out.join("kernels.opt.bc");
    let ptx = out.join("kernels.ptx");
    run(Command::new(llvm_bin.join("llvm-link"))
        .arg(&bitcode)
        .arg(&libdevice)
        .arg("--only-needed")
        .arg("-o")
        .arg(&linked));
    run(Command::new(llvm_bin.join("opt"))
        .args(["-O3"])
        .arg(&linked)
        .arg("-o")
        .arg(&optimized));
    let full = out.join("kernels.full.ptx");
    run(Command::new(llvm_bin.join("llc"))
        .args(["-O3", &format!("-mcpu={PTX_ARCH}")])
        .arg(&optimized)
        .arg("-o")
        .arg(&full));
    let text = std::fs::read_to_string(&full).unwrap();
    let (rest, sm90a) = split_entries(&text, SM90A_PREFIX);
    let (rest, sm90) = split_entries(&rest, SM90_PREFIX);
    let (main, sm80) = split_entries(&rest, SM80_PREFIX);
    std::fs::write(&ptx, main).unwrap();
    let ptx80 = out.join("kernels_sm80.ptx");
    std::fs::write(&ptx80, retarget(&sm80, SM80_ARCH, (7, 0))).unwrap();
    // The sm_90 float64 mma shapes need PTX ISA 7.8.
    let ptx90 = out.join("kernels_sm90.ptx");
    std::fs::write(&ptx90, retarget(&sm90, SM90_ARCH, (7, 8))).unwrap();
    // wgmma needs PTX ISA 8.0.
    let ptx90a = out.join("kernels_sm90a.ptx");
    std::fs::write(&ptx90a, retarget(&sm90a, SM90A_ARCH, (8, 0))).unwrap();
    std::fs::write(out.join("stack_allowed.txt"), LIBDEVICE_TRIG.join("\n")).unwrap();

    for arch in CUBIN_ARCHS {
        let mut reports = String::new();
        for (src, stem) in [(&ptx, "kernels"), (&ptx80, "kernels_sm80")] {
            let cubin = out.join(format!("{stem}.{arch}.cubin"));
            reports.push_str(&assemble(&ptxas, src, arch, &cubin, &["--split-compile=0"]));
        }
        std::fs::write(out.join(format!("ptxas.{arch}.txt")), &reports).unwrap();
    }
    let [report, report_a] = [
        (&ptx90, SM90_ARCH, "kernels_sm90"),
        (&ptx90a, SM90A_ARCH, "kernels_sm90a"),
    ]
    .map(|(src, arch, stem)| {
        assemble(
            &ptxas,
            src,
            arch,
            &out.join(format!("{stem}.{arch}.cubin")),
            &[],
        )
    });
    // ptxas serializes wgmma (waits after every instruction) when it cannot prove the
    // pipeline safe; that is a slow path nobody asked for.
    if report_a.contains("serialized") {
        fail(&format!(
            "ptxas serialized wgmma on {SM90A_ARCH}:\n{report_a}"
        ));
    }
    let all = out.join(format!("ptxas.{SM90_ARCH}.txt"));
    let mut reports = std::fs::read_to_string(&all).unwrap_or_default();
    reports.push_str(&report);
    reports.push_str(&report_a);
    std::fs::write(all, reports).unwrap();
    // The sm_80 module must also assemble for its own architecture (A100-class GPUs
    // JIT it from the PTX).
    assemble(
        &ptxas,
        &ptx80,
        SM80_ARCH,
        &out.join("kernels_sm80.sm_80.cubin"),
        &[],
    );
}

/// `ptxas -v -O3` of `src` for `arch` into `cubin`; fails the build on any spill or stack
/// frame (`check_no_local_memory`). Returns the report.
fn assemble(ptxas: &Path, src: &Path, arch: &str, cubin: &Path, extra: &[&str]) -> String {
    let report = run(Command::new(ptxas)
        .args(["-v", "-O3", &format!("-arch={arch}")])
        .args(extra)
        .arg(src)
        .arg("-o")
        .arg(cubin));
    check_no_local_memory(&report, arch);
    report
}

/// Splits PTX text into (the module without the entries whose names start with `prefix`,
/// the module with only those entries). The header and global declarations go to both;
/// `.func` helpers (libdevice's) only to the first, since the picked entries call none
/// (ptxas would report an undefined function if one did). An item runs from its
/// `.entry`/`.func` line to the first line that is exactly `}` (how LLVM ends a body) or,
/// for a `.func` prototype, `;`.
fn split_entries(ptx: &str, prefix: &str) -> (String, String) {
    let (mut main, mut picked) = (String::new(), String::new());
    // Where the current item goes (to_main, to_picked); None outside items.
    let mut inside: Option<(bool, bool)> = None;
    for line in ptx.split_inclusive('\n') {
        if inside.is_none() {
            if let Some(rest) = line.split(".entry ").nth(1) {
                let mine = rest.trim_start().starts_with(prefix);
                inside = Some((!mine, mine));
            } else if !line.starts_with("//") && line.contains(".func ") {
                inside = Some((true, false));
            }
        }
        let (to_main, to_picked) = inside.unwrap_or((true, true));
        if to_main {
            main.push_str(line);
        }
        if to_picked {
            picked.push_str(line);
        }
        let end = line.trim_end();
        if inside.is_some() && (end == "}" || end == ";") {
            inside = None;
        }
    }
    (main, picked)
}

/// PTX text retargeted to `arch`, with a `.version` of at least `min` (the sm_80
/// instructions need PTX ISA 7.0).
fn retarget(ptx: &str, arch: &str, min: (u32, u32)) -> String {
    ptx.lines()
        .map(|line| {
            if let Some(v) = line.strip_prefix(".version ") {
                let mut it = v.trim().split('.').map(|x| x.parse::<u32>().unwrap_or(0));
                let have = (it.next().unwrap_or(0), it.next().unwrap_or(0));
                let (a, b) = have.max(min);
                format!(".version {a}.{b}\n")
            } else if line.starts_with(".target ") {
                format!(".target {arch}\n")
            } else {
                format!("{line}\n")
            }
        })
        .collect()
}

/// `cargo rustc` on the kernel crate for nvptx64, emitting LLVM bitcode so libdevice can
/// be linked in. `immediate-abort` (for `core` too) turns every panic into `trap`, so the
/// module refers to no `core::panicking` function that would be left unresolved.
fn build_kernel_bitcode(kernels: &Path, out: &Path) -> PathBuf {
    let target_dir = out.join("kernels-target");
    // The rustup proxy from PATH, not `$CARGO`: it picks the pinned nightly from
    // rust-toolchain.toml even when the outer build runs on another toolchain.
    let mut cmd = Command::new("cargo");
    for var in OUTER_CARGO_VARS.iter().chain(&["RUSTUP_TOOLCHAIN"]) {
        cmd.env_remove(var);
    }
    cmd.current_dir(kernels)
        .env(
            "RUSTFLAGS",
            format!("-Zunstable-options -Cpanic=immediate-abort -Ctarget-cpu={PTX_ARCH}"),
        )
        .args([
            "rustc",
            "--release",
            "--target",
            "nvptx64-nvidia-cuda",
            "-Zbuild-std=core",
        ])
        .arg("--target-dir")
        .arg(&target_dir)
        .args(["--", "--emit=llvm-bc"]);
    run(&mut cmd);
    let deps = target_dir.join("nvptx64-nvidia-cuda/release/deps");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&deps)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("gpupy_kernels-") && name.ends_with(".bc")
        })
        .collect();
    // Several hashes can coexist in the target dir; the newest is this build's.
    found.sort_by_key(|p| p.metadata().and_then(|m| m.modified()).ok());
    found
        .pop()
        .unwrap_or_else(|| fail(&format!("no kernel bitcode in {}", deps.display())))
}

/// The folder holding `bin/ptxas` and `nvvm/libdevice/libdevice.10.bc`.
fn find_cuda_nvcc() -> PathBuf {
    let has_tools = |p: &Path| {
        p.join("bin/ptxas").exists() && p.join("nvvm/libdevice/libdevice.10.bc").exists()
    };
    if let Ok(dir) = env::var("GPUPY_CUDA_NVCC") {
        let dir = PathBuf::from(dir);
        if has_tools(&dir) {
            return dir;
        }
        fail(&format!(
            "GPUPY_CUDA_NVCC={} has no bin/ptxas and nvvm/libdevice",
            dir.display()
        ));
    }
    let probe = "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])";
    let pythons = [
        env::var("PYO3_PYTHON").ok(),
        env::var("PYTHON_SYS_EXECUTABLE").ok(),
    ];
    for python in pythons
        .into_iter()
        .flatten()
        .chain(["python3".into(), "python".into()])
    {
        if let Ok(o) = Command::new(&python).args(["-c", probe]).output() {
            let dir = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
            if o.status.success() && has_tools(&dir) {
                return dir;
            }
        }
    }
    for dir in ["/usr/local/cuda", "/opt/cuda"] {
        if has_tools(Path::new(dir)) {
            return dir.into();
        }
    }
    fail(
        "CUDA's ptxas and libdevice were not found.\nRun `python3 -m pip install nvidia-cuda-nvcc-cu12` (in the Python environment that builds gpupy), \
         or set GPUPY_CUDA_NVCC to a folder with bin/ptxas and nvvm/libdevice/libdevice.10.bc.",
    )
}

/// Fails the build if any kernel uses a stack frame or spills registers.
fn check_no_local_memory(report: &str, arch: &str) {
    let mut bad = Vec::new();
    let mut kernel = "";
    for line in report.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            kernel = rest.split('\'').next().unwrap_or("");
        }
        let trig = LIBDEVICE_TRIG.iter().any(|t| kernel.contains(t));
        let stack =
            line.contains("bytes stack frame") && !line.contains(" 0 bytes stack frame") && !trig;
        let spill =
            line.contains("spill") && !line.contains(" 0 bytes spill stores, 0 bytes spill loads");
        if stack || spill {
            bad.push(format!("{kernel}: {}", line.trim()));
        }
    }
    if !bad.is_empty() {
        fail(&format!(
            "kernels use local memory on {arch}:\n{}",
            bad.join("\n")
        ));
    }
}

fn tool_output(tool: &str, args: &[&str], dir: &Path) -> String {
    let mut cmd = Command::new(tool);
    for var in OUTER_CARGO_VARS.iter().chain(&["RUSTUP_TOOLCHAIN"]) {
        cmd.env_remove(var);
    }
    let o = cmd.current_dir(dir).args(args).output().unwrap_or_else(|e| {
        fail(&format!("could not run `{tool}` ({e}).\nInstall Rust with rustup, then run `rustup toolchain install` in the repository root."))
    });
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs a command, returns its stderr+stdout, fails the build with both on error.
fn run(cmd: &mut Command) -> String {
    let o = cmd
        .output()
        .unwrap_or_else(|e| fail(&format!("could not run {cmd:?}: {e}")));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    );
    if !o.status.success() {
        fail(&format!("{cmd:?} failed:\n{text}"));
    }
    text
}

fn fail(msg: &str) -> ! {
    eprintln!("\ngpupy kernel build: {msg}\n");
    std::process::exit(1)
}
