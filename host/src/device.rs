//! The driver and the devices. The driver library is loaded at the first GPU use, not at
//! import, and its absence is an ordinary error. Each device gets one primary context,
//! one memory pool and one loaded kernel module, kept for the life of the process (so
//! `&'static Device` is handed out freely).

use std::cell::Cell;
use std::sync::OnceLock;

use cudarc::driver::{result, sys};

use crate::error::{Error, Result, check};
use gpupy_kernels::registry::Kernel;

use crate::module::{Function, Kernels};
use crate::pool::Pool;

/// What `cudaGetDeviceProperties` reports that gpupy uses or exposes.
#[derive(Clone, Debug)]
pub struct Properties {
    pub name: String,
    pub major: i32,
    pub minor: i32,
    pub multi_processor_count: i32,
    pub total_global_mem: usize,
    pub max_threads_per_block: i32,
    pub shared_mem_per_block: i32,
    /// The most dynamic shared memory a kernel may opt in to, per block.
    pub shared_mem_per_block_optin: i32,
    pub warp_size: i32,
    pub l2_cache_size: i32,
    pub clock_rate_khz: i32,
    pub memory_clock_rate_khz: i32,
    pub memory_bus_width: i32,
}

pub struct Device {
    pub id: usize,
    ctx: sys::CUcontext,
    pub props: Properties,
    pub pool: Pool,
    kernels: OnceLock<Kernels>,
}

// SAFETY: a CUcontext handle may be used from any thread (it is bound per thread with
// cuCtxSetCurrent before use); every other field is Sync.
unsafe impl Send for Device {}
unsafe impl Sync for Device {}

/// Driver functions gpupy calls. Checked once at start, so an old driver is reported as
/// an error here rather than as a panic inside cudarc at the first call that needs one.
const REQUIRED_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDeviceGet",
    "cuDeviceGetCount",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuLaunchKernel",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemcpyHtoD_v2",
    "cuMemcpyDtoH_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuMemsetD8Async",
    "cuMemGetInfo_v2",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventQuery",
    "cuEventElapsedTime",
    "cuEventDestroy_v2",
    "cuStreamCreateWithPriority",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuStreamQuery",
    "cuStreamWaitEvent",
    "cuLaunchHostFunc",
    "cuMemcpyHtoDAsync_v2",
    "cuMemHostAlloc",
    "cuMemFreeHost",
    "cuPointerGetAttribute",
    "cuMemcpyDtoHAsync_v2",
    "cuGetErrorName",
    "cuGetErrorString",
];

/// One slot per device, filled on first use.
static DEVICES: OnceLock<Result<Vec<OnceLock<&'static Device>>>> = OnceLock::new();

thread_local! {
    /// The device that `current()` returns on this thread (CuPy's `Device.use()`).
    static CURRENT: Cell<usize> = const { Cell::new(0) };
    /// The context bound to this thread, to skip redundant `cuCtxSetCurrent` calls.
    static BOUND: Cell<usize> = const { Cell::new(0) };
}

fn start_driver() -> Result<Vec<OnceLock<&'static Device>>> {
    // SAFETY: only tries to open the library; cudarc would panic if it were missing.
    if !unsafe { sys::is_culib_present() } {
        return Err(Error::NoDevice(
            "CUDA driver not found: gpupy could not load libcuda.so.1. gpupy needs an NVIDIA GPU and its driver; \
             if they are installed, add the folder holding libcuda.so.1 to LD_LIBRARY_PATH."
                .into(),
        ));
    }
    // SAFETY: the library is present (checked above), so culib() returns without panicking.
    let lib = unsafe { sys::culib() };
    for name in REQUIRED_SYMBOLS {
        // SAFETY: only looks the symbol up; it is not called through this pointer.
        if unsafe { lib.get::<*const ()>(name.as_bytes()) }.is_err() {
            return Err(Error::Cuda {
                call: "driver symbols",
                code: format!(
                    "the installed CUDA driver lacks {name}: update the NVIDIA driver (gpupy needs CUDA 12 or newer)"
                ),
            });
        }
    }
    match result::init() {
        Ok(()) => {}
        Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NO_DEVICE => {
            return Err(Error::NoDevice(
                "no CUDA-capable GPU was found (the driver reports none)".into(),
            ));
        }
        Err(e) => return Err(Error::cuda("cuInit", e)),
    }
    let count = check("cuDeviceGetCount", result::device::get_count())?;
    if count == 0 {
        return Err(Error::NoDevice(
            "no CUDA-capable GPU was found (the driver reports none)".into(),
        ));
    }
    Ok((0..count).map(|_| OnceLock::new()).collect())
}

/// Number of GPUs; an error when there is no driver or no GPU.
pub fn count() -> Result<usize> {
    DEVICES
        .get_or_init(start_driver)
        .as_ref()
        .map(|d| d.len())
        .map_err(Clone::clone)
}

/// What the driver says about this machine's GPUs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Availability {
    /// This many GPUs can be used.
    Ready(usize),
    /// No NVIDIA driver, or a driver that reports no GPU: nothing to run on.
    Absent(String),
    /// A driver that fails (too old, or an error from `cuInit` or the device count):
    /// something to fix, not a machine without a GPU.
    Broken(String),
}

/// The driver's state, without raising (for `is_available` and test skips).
pub fn availability() -> Availability {
    match count() {
        Ok(n) => Availability::Ready(n),
        Err(Error::NoDevice(m)) => Availability::Absent(m),
        Err(e) => Availability::Broken(e.to_string()),
    }
}

/// Whether a GPU can be used, without raising.
pub fn available() -> bool {
    matches!(availability(), Availability::Ready(_))
}

/// Device `id`, starting its context on first use.
pub fn get(id: usize) -> Result<&'static Device> {
    let slots = DEVICES
        .get_or_init(start_driver)
        .as_ref()
        .map_err(Clone::clone)?;
    let slot = slots.get(id).ok_or_else(|| {
        Error::Value(format!(
            "invalid device id {id}: this machine has {} GPU(s)",
            slots.len()
        ))
    })?;
    if let Some(d) = slot.get() {
        return Ok(d);
    }
    let dev = Device::open(id)?;
    // Two threads may race here; the loser's context is the same primary context.
    Ok(*slot.get_or_init(|| Box::leak(Box::new(dev))))
}

/// This thread's current device.
pub fn current() -> Result<&'static Device> {
    get(CURRENT.with(Cell::get))
}

/// Makes `id` this thread's current device.
pub fn set_current(id: usize) -> Result<()> {
    get(id)?;
    CURRENT.with(|c| c.set(id));
    Ok(())
}

pub fn current_id() -> usize {
    CURRENT.with(Cell::get)
}

impl Device {
    fn open(id: usize) -> Result<Device> {
        let dev = check("cuDeviceGet", result::device::get(id as i32))?;
        // SAFETY: `dev` is a valid device handle from cuDeviceGet.
        let ctx = check("cuDevicePrimaryCtxRetain", unsafe {
            result::primary_ctx::retain(dev)
        })?;
        let attr = |a: sys::CUdevice_attribute| -> Result<i32> {
            // SAFETY: valid device handle and attribute enum.
            check("cuDeviceGetAttribute", unsafe {
                result::device::get_attribute(dev, a)
            })
        };
        use sys::CUdevice_attribute::*;
        let props = Properties {
            name: check("cuDeviceGetName", result::device::get_name(dev))?,
            major: attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            minor: attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            multi_processor_count: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            // SAFETY: valid device handle.
            total_global_mem: check("cuDeviceTotalMem", unsafe {
                result::device::total_mem(dev)
            })?,
            max_threads_per_block: attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            shared_mem_per_block: attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            shared_mem_per_block_optin: attr(
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            warp_size: attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            l2_cache_size: attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            clock_rate_khz: attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?,
            memory_clock_rate_khz: attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?,
            memory_bus_width: attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?,
        };
        Ok(Device {
            id,
            ctx,
            props,
            pool: Pool::default(),
            kernels: OnceLock::new(),
        })
    }

    /// Binds this device's context to the calling thread; every driver call goes after it.
    #[inline]
    pub fn bind(&self) -> Result<()> {
        if BOUND.with(Cell::get) != self.ctx as usize {
            // SAFETY: ctx is this device's retained primary context, valid for the process.
            check("cuCtxSetCurrent", unsafe {
                result::ctx::set_current(self.ctx)
            })?;
            BOUND.with(|b| b.set(self.ctx as usize));
        }
        Ok(())
    }

    /// This device's kernels (each module loads on the first use of one of its kernels).
    #[inline]
    pub fn kernels(&self) -> Result<&Kernels> {
        Ok(self.kernels.get_or_init(|| {
            let p = &self.props;
            Kernels::new(p.major, p.minor, p.shared_mem_per_block_optin)
        }))
    }

    /// The function of kernel `k`, with this device's context bound (its module is
    /// loaded on first use).
    #[inline]
    pub fn kernel(&self, k: Kernel) -> Result<Function> {
        self.bind()?;
        self.kernels()?.get(k)
    }

    /// Waits for all work queued on this device.
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        check("cuCtxSynchronize", result::ctx::synchronize())
    }

    /// (free, total) device memory in bytes, as the driver sees it.
    pub fn mem_info(&self) -> Result<(usize, usize)> {
        self.bind()?;
        check("cuMemGetInfo", result::mem_get_info())
    }

    pub fn compute_capability(&self) -> String {
        format!("{}{}", self.props.major, self.props.minor)
    }
}
