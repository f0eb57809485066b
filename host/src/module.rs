//! The embedded kernel modules, loaded on first use.
//!
//! `build.rs` embeds each module of the registry (`gpupy_kernels::modules::MODULES`) as
//! PTX plus a cubin for sm_90. A module loads the first time one of its kernels is
//! asked for, so an import and a first `a + b` load only the elementwise module (no
//! matmul or sort cubin). Hopper GPUs load the cubin directly (no JIT); any other GPU
//! from Volta on loads the PTX and the driver compiles it (and caches the result).
//! Loading resolves every function of the module once into a table indexed like the
//! module's kernel list, so a launch does no string formatting or driver lookup.

use std::ffi::{CString, c_void};
use std::sync::{Mutex, OnceLock};

use cudarc::driver::{result, sys};
use gpupy_kernels::modules::{MODULES, spec_of};
use gpupy_kernels::registry::{Kernel, MODULE_COUNT, Module};

use crate::error::{Error, Result, check};

/// One module's embedded images: PTX (absent for sm_90a, which only Hopper runs) and the
/// cubin for compute capability 9.x (sm_90a's for that module).
pub struct Image {
    pub ptx: Option<&'static str>,
    pub cubin_sm90: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/images.rs"));

/// `ptxas -v` output for every kernel of every module (registers, stack, spills).
pub static PTXAS_REPORT_SM90: &str = include_str!(concat!(env!("OUT_DIR"), "/ptxas.txt"));
/// Name fragments of the kernels allowed a stack frame (libdevice's trigonometric
/// argument reduction; see `build.rs`), one per line.
pub static PTXAS_STACK_ALLOWED: &str = include_str!(concat!(env!("OUT_DIR"), "/stack_allowed.txt"));

/// A kernel's function handle. CUfunction is a raw pointer; handles are valid on any
/// thread that has the module's context bound, which every launch path ensures.
#[derive(Clone, Copy, Debug)]
pub struct Function(pub(crate) sys::CUfunction);
// SAFETY: see above; the handle itself is immutable.
unsafe impl Send for Function {}
unsafe impl Sync for Function {}

/// A loaded module: never unloaded (it lives as long as its device's context).
struct Loaded {
    _module: sys::CUmodule,
    functions: Vec<Function>,
}
// SAFETY: a module handle is usable from any thread with its context bound.
unsafe impl Send for Loaded {}
unsafe impl Sync for Loaded {}

/// The kernels of one device: its modules, each loaded on first use.
pub struct Kernels {
    major: i32,
    minor: i32,
    /// The device's opt-in limit of dynamic shared memory per block, given to the
    /// kernels of modules that stage more than the default 48 KiB.
    max_shared: i32,
    modules: [OnceLock<Loaded>; MODULE_COUNT],
    loading: Mutex<()>,
}

impl Kernels {
    /// The kernels of a GPU of compute capability `major.minor`; nothing loads yet.
    pub fn new(major: i32, minor: i32, max_shared: i32) -> Kernels {
        Kernels {
            major,
            minor,
            max_shared,
            modules: std::array::from_fn(|_| OnceLock::new()),
            loading: Mutex::new(()),
        }
    }

    /// Whether `module` can run on this GPU (its architecture; see `registry::Arch`).
    pub fn available(&self, module: Module) -> bool {
        spec_of(module).arch.runs_on(self.major, self.minor)
    }

    /// Whether the tensor-core kernels can run (compute capability 8.0 and up).
    pub fn has_tensor_cores(&self) -> bool {
        self.available(Module::MatmulMma)
    }

    /// Whether the sm_90 tensor-core kernels can run (compute capability 9.0 and up).
    pub fn has_sm90(&self) -> bool {
        self.available(Module::MatmulMma90)
    }

    /// Whether the sm_90a `wgmma` kernels can run (compute capability 9.0).
    pub fn has_wgmma(&self) -> bool {
        self.available(Module::MatmulWgmma)
    }

    /// Which modules are loaded so far (for tests of lazy loading).
    pub fn loaded(&self) -> Vec<Module> {
        MODULES
            .iter()
            .filter(|s| self.modules[s.module as usize].get().is_some())
            .map(|s| s.module)
            .collect()
    }

    /// The function of kernel `k`, loading its module on first use. The device's context
    /// must be bound (`Device::kernel` binds it).
    pub fn get(&self, k: Kernel) -> Result<Function> {
        let loaded = self.module(k.module)?;
        loaded
            .functions
            .get(k.index as usize)
            .copied()
            .ok_or_else(|| {
                Error::Value(format!(
                    "kernel handle {k:?} is outside its module's table (a gpupy bug)"
                ))
            })
    }

    fn module(&self, m: Module) -> Result<&Loaded> {
        let cell = &self.modules[m as usize];
        if let Some(l) = cell.get() {
            return Ok(l);
        }
        let _guard = self.loading.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(l) = cell.get() {
            return Ok(l);
        }
        let loaded = self.load(m)?;
        Ok(cell.get_or_init(|| loaded))
    }

    fn load(&self, m: Module) -> Result<Loaded> {
        let spec = spec_of(m);
        if !self.available(m) {
            return Err(Error::NoDevice(format!(
                "gpupy's {} kernels need a GPU of compute capability {}; this one is {}.{}",
                spec.name,
                spec.arch.name(),
                self.major,
                self.minor
            )));
        }
        let image = &IMAGES[m as usize];
        let data: *const c_void = match (self.major, image.ptx) {
            (9, _) => image.cubin_sm90.as_ptr().cast(),
            (_, Some(ptx)) => ptx.as_ptr().cast(),
            // Only sm_90a modules lack PTX, and `available` admits them on compute
            // capability 9.0 alone, which takes the cubin.
            (_, None) => {
                return Err(Error::NoDevice(format!(
                    "no PTX for {} modules (a gpupy bug)",
                    spec.arch.name()
                )));
            }
        };
        // SAFETY: `data` is a complete cubin, or NUL-terminated PTX, that lives forever.
        let module = check("cuModuleLoadData", unsafe {
            result::module::load_data(data)
        })?;
        let mut functions = Vec::with_capacity(spec.kernels.len());
        for name in spec.kernels {
            let c = CString::new(*name).expect("kernel names have no NUL");
            // SAFETY: the module is loaded and never unloaded; the name is NUL-terminated.
            let f = unsafe { result::module::get_function(module, c) }.map_err(|_| {
                Error::NoDevice(format!(
                    "kernel {name} is missing from gpupy's {} module (a build problem)",
                    spec.name
                ))
            })?;
            if spec.large_shared {
                // SAFETY: a valid function handle; the attribute only raises the limit
                // of dynamic shared memory its launches may ask for.
                check("cuFuncSetAttribute", unsafe {
                    sys::cuFuncSetAttribute(
                        f,
                        sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        self.max_shared,
                    )
                    .result()
                })?;
            }
            functions.push(Function(f));
        }
        Ok(Loaded {
            _module: module,
            functions,
        })
    }

    /// The most dynamic shared memory a launch of `module`'s kernels may ask for.
    pub fn shared_limit(&self, module: Module) -> u32 {
        if spec_of(module).large_shared {
            self.max_shared.max(0) as u32
        } else {
            48 * 1024
        }
    }
}
