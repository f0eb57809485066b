//! Builds the kernel crate for `nvptx64-nvidia-cuda` once per module of the registry
//! (`gpupy_kernels::modules::MODULES`, read here as a build dependency), links CUDA's
//! libdevice into each, lowers it to PTX for the module's architecture, and assembles
//! that PTX to cubins for the GPUs gpupy is tuned on. Each module's PTX and cubins are
//! embedded in the host library (`images.rs`); `src/module.rs` loads a module on the
//! first launch of one of its kernels.
//!
//! Every kernel is also checked here: `ptxas -v` must report no stack frame and no
//! spills, since local memory in these kernels means a slow path nobody asked for.
//!
//! Tools: the pinned nightly with `rust-src` and `llvm-tools` (rust-toolchain.toml), and
//! `ptxas` + `libdevice.10.bc` from the `nvidia-cuda-nvcc-cu12` wheel (or a CUDA toolkit).
//!
//! `GPUPY_KERNELS=stub` skips all of it and embeds empty images: for `cargo check`,
//! `clippy` and CPU-only tests of the host and bindings while writing code (a full kernel
//! build takes many minutes and ptxas needs ~14 GB for the elementwise module). A library
//! built so cannot load any kernel; never ship one.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use gpupy_kernels::modules::MODULES;
use gpupy_kernels::registry::{Arch, ModuleSpec};

/// PTX of the sm_70 modules is emitted for this virtual architecture, so the driver can
/// compile it for any GPU from Volta on; other modules use their own (`registry::Arch`).
const PTX_ARCH: &str = "sm_70";
/// `opt`'s flags. libdevice reads `__CUDA_PREC_SQRT` through NVVM reflection; unset it is
/// 0 and `__nv_sqrtf` (also inside acos, hypot, ...) lowers to `sqrt.approx.f32`. nvcc's
/// default is the correctly rounded square root (`-prec-sqrt=true`), as NumPy's.
/// (The reflection pass must be named ahead of the O3 pipeline: the copy of it that `-O3`
/// adds by itself does not read `--nvvm-reflect-add`.)
const OPT_FLAGS: [&str; 2] = [
    "-passes=nvvm-reflect,default<O3>",
    "--nvvm-reflect-add=__CUDA_PREC_SQRT=1",
];
/// Cubins built ahead of time, so Hopper GPUs load without a JIT step (a cubin runs on
/// GPUs of the same major version). Other GPUs compile the PTX once; the driver caches it.
const CUBIN_ARCH: &str = "sm_90";
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
    println!("cargo:rerun-if-env-changed=GPUPY_KERNELS");
    if env::var("GPUPY_KERNELS").as_deref() == Ok("stub") {
        println!("cargo:warning=GPUPY_KERNELS=stub: no kernels built, this library cannot launch any");
        write_stub_images(&out);
        return;
    }

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
    let tools = Tools {
        llvm_bin,
        libdevice: cuda.join("nvvm/libdevice/libdevice.10.bc"),
        ptxas: cuda.join("bin/ptxas"),
    };

    // One module after another through cargo (they share its target dir and lock); the
    // LLVM and ptxas stages of each run on a thread of their own meanwhile.
    let target_dir = out.join("kernels-target");
    let reports: Vec<String> = std::thread::scope(|s| {
        let mut stages = Vec::new();
        for spec in MODULES.iter() {
            let bc = out.join(format!("{}.bc", spec.name));
            let stamp = out.join(format!("{}.sources", spec.name));
            let sources = module_sources(&kernels, spec.name, &rustc);
            if !(bc.exists() && std::fs::read(&stamp).ok().as_deref() == Some(&sources[..])) {
                build_kernel_bitcode(&kernels, &target_dir, spec.name, &bc);
                std::fs::write(&stamp, &sources).unwrap();
            }
            let (tools, out) = (&tools, &out);
            stages.push(s.spawn(move || lower_module(tools, spec, &bc, out)));
        }
        stages
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| fail("a module's build thread panicked"))
            })
            .collect()
    });
    std::fs::write(out.join("ptxas.txt"), reports.concat()).unwrap();
    std::fs::write(out.join("stack_allowed.txt"), LIBDEVICE_TRIG.join("\n")).unwrap();
    write_images(&out);
}

/// The LLVM tools (from the toolchain's `llvm-tools`) and CUDA's (from the wheel).
struct Tools {
    llvm_bin: PathBuf,
    libdevice: PathBuf,
    ptxas: PathBuf,
}

/// `module.bc` -> + libdevice -> optimized -> PTX for the module's architecture ->
/// cubins; checks that the PTX holds exactly the module's registered kernels and that
/// no kernel uses local memory. Skipped when the outputs are newer than the bitcode
/// (cargo found the module unchanged). Returns the ptxas reports.
fn lower_module(tools: &Tools, spec: &ModuleSpec, bc: &Path, out: &Path) -> String {
    let stem = spec.name;
    let arch = spec.arch.name();
    let ptx = out.join(format!("{stem}.ptx"));
    let report_file = out.join(format!("{stem}.ptxas.txt"));
    let modified = |p: &Path| p.metadata().and_then(|m| m.modified()).ok();
    // The lowering's own flags are part of what the outputs depend on: a change to them
    // must lower again even though the bitcode did not change.
    let recipe_file = out.join(format!("{stem}.recipe"));
    let recipe = format!("{OPT_FLAGS:?} {PTX_ARCH}");
    if let (Some(b), Some(r)) = (modified(bc), modified(&report_file))
        && r > b
        && std::fs::read_to_string(&recipe_file).ok().as_deref() == Some(recipe.as_str())
    {
        return std::fs::read_to_string(&report_file).unwrap_or_default();
    }
    let linked = out.join(format!("{stem}.linked.bc"));
    let optimized = out.join(format!("{stem}.opt.bc"));
    run(Command::new(tools.llvm_bin.join("llvm-link"))
        .arg(bc)
        .arg(&tools.libdevice)
        .arg("--only-needed")
        .arg("-o")
        .arg(&linked));
    run(Command::new(tools.llvm_bin.join("opt"))
        .args(OPT_FLAGS)
        .arg(&linked)
        .arg("-o")
        .arg(&optimized));
    let raw = out.join(format!("{stem}.raw.ptx"));
    // Every module is lowered for sm_70 (the newer instructions are inline PTX, which
    // LLVM passes through), then `retarget` names the module's own target and ISA.
    run(Command::new(tools.llvm_bin.join("llc"))
        .args(["-O3", &format!("-mcpu={PTX_ARCH}")])
        .arg(&optimized)
        .arg("-o")
        .arg(&raw));
    let text = std::fs::read_to_string(&raw).unwrap();
    check_entries(spec, &text);
    std::fs::write(&ptx, retarget(&text, arch, spec.arch.ptx_isa())).unwrap();
    let mut report = String::new();
    for target in cubin_archs(spec.arch) {
        let cubin = out.join(format!("{stem}.{target}.cubin"));
        let extra: &[&str] = match (spec.arch, *target) {
            (Arch::Sm70 | Arch::Sm80, CUBIN_ARCH) => &["--split-compile=0"],
            _ => &[],
        };
        report.push_str(&assemble(&tools.ptxas, &ptx, target, &cubin, extra));
    }
    // ptxas serializes wgmma (waits after every instruction) when it cannot prove the
    // pipeline safe; that is a slow path nobody asked for.
    if spec.arch == Arch::Sm90a && report.contains("serialized") {
        fail(&format!("ptxas serialized wgmma in {stem}:\n{report}"));
    }
    std::fs::write(&report_file, &report).unwrap();
    std::fs::write(&recipe_file, &recipe).unwrap();
    report
}

/// `images.rs` with an empty image per module (`GPUPY_KERNELS=stub`): loading one fails
/// in the driver with an error, never silently.
fn write_stub_images(out: &Path) {
    let entry = "    Image { ptx: None, cubin_sm90: &[] },\n".repeat(MODULES.len());
    let code = format!("pub static IMAGES: [Image; MODULE_COUNT] = [\n{entry}];\n");
    std::fs::write(out.join("images.rs"), code).unwrap();
    std::fs::write(out.join("ptxas.txt"), "").unwrap();
    std::fs::write(out.join("stack_allowed.txt"), "").unwrap();
}

/// The cubins built for a module of `arch`: sm_90 for every module that can run there
/// (so Hopper loads without a JIT step; a cubin runs on GPUs of its major version), and
/// for the sm_80 module an sm_80 one too, only as a check that it assembles for the
/// GPUs that JIT it from the PTX.
fn cubin_archs(arch: Arch) -> &'static [&'static str] {
    match arch {
        Arch::Sm70 | Arch::Sm90 => &[CUBIN_ARCH],
        Arch::Sm80 => &[CUBIN_ARCH, "sm_80"],
        Arch::Sm90a => &["sm_90a"],
    }
}

/// Fails the build unless the module's PTX defines exactly the kernels its table
/// declares: a declared kernel that was not compiled, or an entry point that no table
/// lists, is a build error.
fn check_entries(spec: &ModuleSpec, ptx: &str) {
    let compiled: std::collections::BTreeSet<&str> = ptx
        .lines()
        .filter_map(|l| l.split(".entry ").nth(1))
        .map(|rest| rest.trim().trim_end_matches('(').trim())
        .collect();
    let declared: std::collections::BTreeSet<&str> = spec.kernels.iter().copied().collect();
    let missing: Vec<_> = declared.difference(&compiled).collect();
    let extra: Vec<_> = compiled.difference(&declared).collect();
    if !missing.is_empty() || !extra.is_empty() {
        fail(&format!(
            "module {}: declared but not compiled: {missing:?}; compiled but not declared: {extra:?}",
            spec.name
        ));
    }
}

/// `images.rs`: every module's PTX and cubins as statics, in `MODULES` order, for
/// `src/module.rs` to embed.
fn write_images(out: &Path) {
    let mut code = String::from(
        "/// Every module's images, in `MODULES` order.\npub static IMAGES: [Image; MODULE_COUNT] = [\n",
    );
    for spec in MODULES.iter() {
        let stem = spec.name;
        let ptx = if spec.arch == Arch::Sm90a {
            "None".to_string()
        } else {
            format!(
                "Some(concat!(include_str!(concat!(env!(\"OUT_DIR\"), \"/{stem}.ptx\")), \"\\0\"))"
            )
        };
        let cubin = if spec.arch == Arch::Sm90a {
            "sm_90a"
        } else {
            CUBIN_ARCH
        };
        code.push_str(&format!(
            "    Image {{ ptx: {ptx}, cubin_sm90: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{stem}.{cubin}.cubin\")) }},\n"
        ));
    }
    code.push_str("];\n");
    std::fs::write(out.join("images.rs"), code).unwrap();
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

/// `cargo rustc` on the kernel crate for nvptx64 with `module`'s feature, emitting the
/// fat-LTO'd LLVM bitcode of that module's entry points to `bc` (so libdevice can be
/// linked in). `immediate-abort` (for `core` too) turns every panic into `trap`, so the
/// module refers to no `core::panicking` function that would be left unresolved. Every
/// module shares one target dir (`core` is built once). `main` skips the call when the
/// module's sources (`module_sources`) are those of its last build.
fn build_kernel_bitcode(kernels: &Path, target_dir: &Path, module: &str, bc: &Path) {
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
            "--features",
            module,
        ])
        .arg("--target-dir")
        .arg(target_dir)
        .arg("--")
        .arg(format!("--emit=llvm-bc={}", bc.display()));
    run(&mut cmd);
    if !bc.exists() {
        fail(&format!("no kernel bitcode at {}", bc.display()));
    }
}

/// A fingerprint of everything a module's bitcode is built from: the toolchain, the
/// crate's manifest, its top-level files, the module's family folder and the folders
/// those name through `crate::<family>` (transitively). cargo alone rebuilds every
/// module after any change in the crate, since they are one crate under different
/// features; with this, a change to one family rebuilds that family's modules (and
/// those that use its code) only. `modules.rs` names every family's kernel table, which
/// no module's code depends on, so its references are not followed.
fn module_sources(kernels: &Path, module: &str, rustc: &str) -> Vec<u8> {
    use std::collections::BTreeSet;
    use std::hash::{DefaultHasher, Hasher};
    let src = kernels.join("src");
    let family = module.split('-').next().unwrap_or(module);
    let mut files: BTreeSet<PathBuf> = BTreeSet::new();
    let mut folders: BTreeSet<String> = BTreeSet::from([family.to_string()]);
    let mut queue: Vec<PathBuf> = std::fs::read_dir(&src)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    queue.extend(files_under(&src.join(family)));
    while let Some(file) = queue.pop() {
        if !files.insert(file.clone()) || file.file_name().is_some_and(|n| n == "modules.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for name in text.split("crate::").skip(1) {
            let name: String = name
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if src.join(&name).is_dir() && folders.insert(name.clone()) {
                queue.extend(files_under(&src.join(&name)));
            }
        }
    }
    let mut hash = DefaultHasher::new();
    hash.write(rustc.as_bytes());
    hash.write(&std::fs::read(kernels.join("Cargo.toml")).unwrap_or_default());
    for file in &files {
        hash.write(file.to_string_lossy().as_bytes());
        hash.write(&std::fs::read(file).unwrap_or_default());
    }
    let folders: Vec<String> = folders.into_iter().collect();
    format!("{:016x} {}\n", hash.finish(), folders.join(" ")).into_bytes()
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
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
