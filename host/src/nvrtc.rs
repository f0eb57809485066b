//! NVRTC, NVIDIA's run-time CUDA C compiler, for users' own kernels (`gpupy.RawKernel`,
//! `ElementwiseKernel`, ...). None of gpupy's kernels need it: it is loaded only when a
//! user compiles CUDA C, from the paths Python found (the `nvidia-cuda-nvrtc` wheel, a
//! CUDA toolkit, `$GPUPY_NVRTC_PATH`), and its absence is an error that says what to
//! install, never a panic.
//!
//! The C API is a handful of functions with stable signatures since CUDA 11, declared
//! here by hand (cudarc's loader only searches the system library path and panics when
//! the library is missing).

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};

type Program = *mut c_void;
type Status = c_int;

/// The NVRTC entry points gpupy calls.
struct Api {
    /// Keeps the library mapped while the function pointers below are in use.
    _lib: libloading::Library,
    path: String,
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> Status,
    create: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> Status,
    destroy: unsafe extern "C" fn(*mut Program) -> Status,
    compile: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Status,
    log_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    log: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    ptx_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    ptx: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    cubin_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    cubin: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    add_name: unsafe extern "C" fn(Program, *const c_char) -> Status,
    lowered_name: unsafe extern "C" fn(Program, *const c_char, *mut *const c_char) -> Status,
    error_string: unsafe extern "C" fn(Status) -> *const c_char,
}

static LOADED: Mutex<Option<Arc<Api>>> = Mutex::new(None);

/// The library, loaded from the first of `candidates` that opens and has every entry
/// point; later calls reuse it.
fn api(candidates: &[String]) -> Result<Arc<Api>> {
    let mut slot = LOADED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(a) = slot.as_ref() {
        return Ok(a.clone());
    }
    let mut tried = Vec::new();
    for path in candidates {
        match open(path) {
            Ok(a) => {
                let a = Arc::new(a);
                *slot = Some(a.clone());
                return Ok(a);
            }
            Err(e) => tried.push(format!("{path}: {e}")),
        }
    }
    Err(Error::NoDevice(format!(
        "NVRTC (CUDA's run-time compiler, needed for kernels written in CUDA C) was not \
         found. Install it with `pip install nvidia-cuda-nvrtc-cu12` (or `gpupy[nvrtc]`), \
         or set GPUPY_NVRTC_PATH to libnvrtc.so. Tried: {}",
        tried.join("; ")
    )))
}

fn open(path: &str) -> std::result::Result<Api, String> {
    // SAFETY: loading NVRTC runs its initializers, which have no preconditions; each
    // symbol is given the signature of its declaration in nvrtc.h (stable since CUDA 11).
    unsafe {
        let lib = libloading::Library::new(path).map_err(|e| e.to_string())?;
        macro_rules! sym {
            ($name:literal) => {
                *lib.get(concat!($name, "\0").as_bytes())
                    .map_err(|e| format!("{}: {e}", $name))?
            };
        }
        Ok(Api {
            path: path.to_string(),
            version: sym!("nvrtcVersion"),
            create: sym!("nvrtcCreateProgram"),
            destroy: sym!("nvrtcDestroyProgram"),
            compile: sym!("nvrtcCompileProgram"),
            log_size: sym!("nvrtcGetProgramLogSize"),
            log: sym!("nvrtcGetProgramLog"),
            ptx_size: sym!("nvrtcGetPTXSize"),
            ptx: sym!("nvrtcGetPTX"),
            cubin_size: sym!("nvrtcGetCUBINSize"),
            cubin: sym!("nvrtcGetCUBIN"),
            add_name: sym!("nvrtcAddNameExpression"),
            lowered_name: sym!("nvrtcGetLoweredName"),
            error_string: sym!("nvrtcGetErrorString"),
            _lib: lib,
        })
    }
}

impl Api {
    fn check(&self, call: &'static str, status: Status) -> Result<()> {
        if status == 0 {
            return Ok(());
        }
        // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string for any code.
        let text = unsafe { CStr::from_ptr((self.error_string)(status)) };
        Err(Error::Cuda {
            call,
            code: text.to_string_lossy().into_owned(),
        })
    }
}

/// NVRTC's version, (major, minor), and the path it was loaded from.
pub fn version(candidates: &[String]) -> Result<(i32, i32, String)> {
    let api = api(candidates)?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: both pointers are valid for one write.
    api.check("nvrtcVersion", unsafe {
        (api.version)(&mut major, &mut minor)
    })?;
    Ok((major, minor, api.path.clone()))
}

/// What a compilation gave: the image (cubin when asked for and the architecture is a
/// real one, else PTX) when it compiled, NVRTC's log, and the lowered (mangled) name of
/// each name expression.
pub struct Compiled {
    pub image: Option<Vec<u8>>,
    pub log: String,
    pub lowered: Vec<(String, String)>,
}

/// A program handle destroyed on every path out of `compile`.
struct Handle<'a>(&'a Api, Program);
impl Drop for Handle<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle came from nvrtcCreateProgram and is destroyed once.
        unsafe { (self.0.destroy)(&mut self.1) };
    }
}

fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::Value(format!("{what} contains a NUL character")))
}

/// Compiles CUDA C `source` (named `name` in messages) with `options`.
pub fn compile(
    candidates: &[String],
    source: &str,
    name: &str,
    options: &[String],
    name_expressions: &[String],
    want_cubin: bool,
) -> Result<Compiled> {
    let api = api(candidates)?;
    let src = c_string("the kernel source", source)?;
    let cname = c_string("the kernel name", name)?;
    let opts = options
        .iter()
        .map(|o| c_string("a compiler option", o))
        .collect::<Result<Vec<_>>>()?;
    let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let exprs = name_expressions
        .iter()
        .map(|e| c_string("a name expression", e))
        .collect::<Result<Vec<_>>>()?;

    let mut prog: Program = std::ptr::null_mut();
    // SAFETY: `src` and `cname` are NUL-terminated and outlive the call; no headers are
    // passed (count 0, null arrays).
    api.check("nvrtcCreateProgram", unsafe {
        (api.create)(
            &mut prog,
            src.as_ptr(),
            cname.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    })?;
    let handle = Handle(&api, prog);
    for e in &exprs {
        // SAFETY: `prog` is a live program; `e` is NUL-terminated.
        api.check("nvrtcAddNameExpression", unsafe {
            (api.add_name)(prog, e.as_ptr())
        })?;
    }
    // SAFETY: `opt_ptrs` holds `opts.len()` NUL-terminated strings alive for the call.
    let status = unsafe { (api.compile)(prog, opt_ptrs.len() as c_int, opt_ptrs.as_ptr()) };
    let log = read(&api, "nvrtcGetProgramLog", prog, api.log_size, api.log)?;
    let log = String::from_utf8_lossy(log.strip_suffix(b"\0").unwrap_or(&log)).into_owned();
    // Status 6 is NVRTC_ERROR_COMPILATION: the user's error, reported with the log.
    if status == 6 {
        return Ok(Compiled {
            image: None,
            log,
            lowered: Vec::new(),
        });
    }
    api.check("nvrtcCompileProgram", status)?;
    let image = if want_cubin {
        read(&api, "nvrtcGetCUBIN", prog, api.cubin_size, api.cubin)?
    } else {
        read(&api, "nvrtcGetPTX", prog, api.ptx_size, api.ptx)?
    };
    let mut lowered = Vec::with_capacity(exprs.len());
    for (e, text) in exprs.iter().zip(name_expressions) {
        let mut out: *const c_char = std::ptr::null();
        // SAFETY: `prog` compiled with `e` added; NVRTC keeps the returned string alive
        // until the program is destroyed, and it is copied before that.
        api.check("nvrtcGetLoweredName", unsafe {
            (api.lowered_name)(prog, e.as_ptr(), &mut out)
        })?;
        // SAFETY: on success `out` points at a NUL-terminated string owned by `prog`.
        let name = unsafe { CStr::from_ptr(out) }
            .to_string_lossy()
            .into_owned();
        lowered.push((text.clone(), name));
    }
    drop(handle);
    Ok(Compiled {
        image: Some(image),
        log,
        lowered,
    })
}

type SizeFn = unsafe extern "C" fn(Program, *mut usize) -> Status;
type ReadFn = unsafe extern "C" fn(Program, *mut c_char) -> Status;

/// One of the program's outputs (log, PTX, cubin): its size, then its bytes.
fn read(
    api: &Api,
    call: &'static str,
    prog: Program,
    size: SizeFn,
    get: ReadFn,
) -> Result<Vec<u8>> {
    let mut n = 0usize;
    // SAFETY: `prog` is a live program; `n` is valid for one write.
    api.check(call, unsafe { size(prog, &mut n) })?;
    let mut buf = vec![0u8; n];
    // SAFETY: `buf` holds the `n` bytes NVRTC just reported it will write.
    api.check(call, unsafe { get(prog, buf.as_mut_ptr().cast()) })?;
    Ok(buf)
}
