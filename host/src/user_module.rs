//! Modules a user brought (`gpupy.RawModule`): a PTX, cubin or fatbin image loaded into
//! a device's context, its functions with their parameter lists, its `__device__`
//! globals and the functions' attributes.
//!
//! gpupy's own kernels come from the registry (`module.rs`) and are never unloaded; a
//! user module is unloaded when the last Python object holding it goes away.

use std::ffi::CString;
use std::sync::Arc;

use cudarc::driver::sys;

use crate::device::Device;
use crate::error::{Error, Result, check_status};
use crate::module::Function;

pub struct UserModule {
    device: &'static Device,
    module: sys::CUmodule,
}
// SAFETY: a module handle is usable from any thread that binds its context, which every
// use below does first.
unsafe impl Send for UserModule {}
unsafe impl Sync for UserModule {}

impl Drop for UserModule {
    fn drop(&mut self) {
        // Work queued with this module's functions may still run: wait for it, since
        // unloading code a running kernel executes is undefined. Errors cannot be
        // reported from a drop; a failed unload only leaks the module.
        if self.device.bind().is_ok() {
            // SAFETY: the context is bound; `module` was loaded in it and is unloaded once.
            unsafe {
                let _ = sys::cuCtxSynchronize();
                let _ = sys::cuModuleUnload(self.module);
            }
        }
    }
}

/// Whether `image` is PTX text (it starts with comments or directives) rather than an
/// ELF cubin or a fatbin, which the driver tells apart by their headers.
pub fn is_ptx(image: &[u8]) -> bool {
    let text = image.trim_ascii_start();
    text.starts_with(b"//") || text.starts_with(b".version") || text.starts_with(b".target")
}

impl UserModule {
    /// Loads `image` into `device`'s context. PTX is compiled by the driver (and must be
    /// NUL-terminated, which is added here).
    pub fn load(device: &'static Device, image: &[u8]) -> Result<Arc<UserModule>> {
        let mut owned;
        let data: &[u8] = if is_ptx(image) && image.last() != Some(&0) {
            owned = image.to_vec();
            owned.push(0);
            &owned
        } else {
            image
        };
        if data.is_empty() {
            return Err(Error::Value("the module image is empty".into()));
        }
        device.bind()?;
        let mut module: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: the context is bound; `data` is a PTX string with its NUL or a complete
        // cubin/fatbin image (the driver validates the header and refuses anything else
        // with an error code), alive for the call.
        check_status("cuModuleLoadData", unsafe {
            sys::cuModuleLoadData(&mut module, data.as_ptr().cast())
        })?;
        Ok(Arc::new(UserModule { device, module }))
    }

    pub fn device(&self) -> &'static Device {
        self.device
    }

    /// The kernel `name` (its mangled name for C++ templates) with its parameter list.
    pub fn function(self: &Arc<Self>, name: &str) -> Result<UserFunction> {
        let cname = CString::new(name)
            .map_err(|_| Error::Value("a kernel name cannot contain NUL".into()))?;
        self.device.bind()?;
        let mut f: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: the context is bound and `module` loaded in it; `cname` is
        // NUL-terminated.
        check_status("cuModuleGetFunction", unsafe {
            sys::cuModuleGetFunction(&mut f, self.module, cname.as_ptr())
        })?;
        let mut params = Vec::new();
        loop {
            let (mut offset, mut size) = (0usize, 0usize);
            // SAFETY: `f` is a function of a loaded module; an index past the last
            // parameter returns CUDA_ERROR_INVALID_VALUE, which ends the list.
            let r = unsafe { sys::cuFuncGetParamInfo(f, params.len(), &mut offset, &mut size) };
            if r != sys::CUresult::CUDA_SUCCESS {
                break;
            }
            params.push(size);
        }
        let mut func = UserFunction {
            module: self.clone(),
            f: Function(f),
            name: name.to_string(),
            param_sizes: params,
            max_threads: 0,
            max_dynamic_shared: 0,
        };
        func.max_threads = func.attribute(MAX_THREADS)?;
        func.max_dynamic_shared = func.attribute(MAX_DYNAMIC_SHARED)?;
        Ok(func)
    }

    /// The device address and size in bytes of the `__device__` variable `name`.
    pub fn global(&self, name: &str) -> Result<(u64, usize)> {
        let cname = CString::new(name)
            .map_err(|_| Error::Value("a global's name cannot contain NUL".into()))?;
        self.device.bind()?;
        let (mut ptr, mut bytes): (sys::CUdeviceptr, usize) = (0, 0);
        // SAFETY: as in `function`; both outputs are valid for one write.
        check_status("cuModuleGetGlobal", unsafe {
            sys::cuModuleGetGlobal_v2(&mut ptr, &mut bytes, self.module, cname.as_ptr())
        })?;
        Ok((ptr, bytes))
    }
}

/// A kernel of a user module. It keeps its module loaded.
pub struct UserFunction {
    module: Arc<UserModule>,
    pub(crate) f: Function,
    pub name: String,
    /// Each parameter's size in bytes, as the compiled kernel declares them.
    pub param_sizes: Vec<usize>,
    /// The launch limits checked before each launch, kept here so a launch asks the
    /// driver nothing: the most threads per block (the kernel's registers decide it)
    /// and the most dynamic shared memory (raised by `set_attribute`).
    pub max_threads: i32,
    pub max_dynamic_shared: i32,
}

const MAX_THREADS: i32 = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK as i32;
const MAX_DYNAMIC_SHARED: i32 =
    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES as i32;

impl UserFunction {
    pub fn device(&self) -> &'static Device {
        self.module.device
    }

    /// A `CUfunction_attribute` by its number (CuPy's `attributes` and properties).
    pub fn attribute(&self, attr: i32) -> Result<i32> {
        let a = attribute(attr)?;
        self.module.device.bind()?;
        let mut v = 0;
        // SAFETY: the context is bound; `f` is a live function; `v` valid for one write.
        check_status("cuFuncGetAttribute", unsafe {
            sys::cuFuncGetAttribute(&mut v, a, self.f.0)
        })?;
        Ok(v)
    }

    /// Sets one of the settable attributes (dynamic shared memory limit, carveout, ...).
    pub fn set_attribute(&mut self, attr: i32, value: i32) -> Result<()> {
        let a = attribute(attr)?;
        self.module.device.bind()?;
        // SAFETY: as in `attribute`; the driver rejects attributes it cannot set.
        check_status("cuFuncSetAttribute", unsafe {
            sys::cuFuncSetAttribute(self.f.0, a, value)
        })?;
        self.max_dynamic_shared = self.attribute(MAX_DYNAMIC_SHARED)?;
        Ok(())
    }
}

/// The driver's attribute enum from its number, refusing numbers it does not define.
fn attribute(n: i32) -> Result<sys::CUfunction_attribute> {
    use sys::CUfunction_attribute as A;
    const ALL: [A; 10] = [
        A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
        A::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
        A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
        A::CU_FUNC_ATTRIBUTE_NUM_REGS,
        A::CU_FUNC_ATTRIBUTE_PTX_VERSION,
        A::CU_FUNC_ATTRIBUTE_BINARY_VERSION,
        A::CU_FUNC_ATTRIBUTE_CACHE_MODE_CA,
        A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        A::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
    ];
    ALL.iter()
        .copied()
        .find(|a| *a as i32 == n)
        .ok_or_else(|| Error::Value(format!("unknown function attribute {n}")))
}
