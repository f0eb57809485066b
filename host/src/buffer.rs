//! Device buffers: blocks from a device's pool (`pool.rs`), returned to it on drop, or
//! memory that belongs to someone else (an array imported through
//! `__cuda_array_interface__` or DLPack), whose owner the buffer keeps alive.

use std::any::Any;
use std::sync::RwLock;

use cudarc::driver::{result, sys};

use crate::device::Device;
use crate::error::{Error, Result, check};
use crate::pool::size_class;
use crate::stream;

/// A block of device memory; dropping it returns a pool block to its stream's free list
/// or releases the foreign owner.
pub struct Buffer {
    ptr: sys::CUdeviceptr,
    /// The requested size; a pool block itself is `size_class(bytes)`.
    bytes: usize,
    device: &'static Device,
    owner: Owner,
}

enum Owner {
    /// A pool block allocated on the stream with this id.
    Pool { stream: u64 },
    /// Memory held alive by this value (dropped with the buffer).
    Foreign(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
}

impl Buffer {
    pub fn ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }
    pub fn bytes(&self) -> usize {
        self.bytes
    }
    pub fn device(&self) -> &'static Device {
        self.device
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if let Owner::Pool { stream } = self.owner
            && self.bytes > 0
        {
            self.device
                .pool
                .give_back(self.ptr, size_class(self.bytes), stream);
        }
    }
}

/// What runs when the driver is out of memory, before the pool frees its cache and
/// tries again: the bindings set it to Python's garbage collector, which may free arrays
/// that only a reference cycle keeps.
static OOM_HOOK: RwLock<Option<fn()>> = RwLock::new(None);

/// Memory from someone else's allocator: the address of at least the requested bytes,
/// and the value that keeps them allocated until it is dropped.
pub type Allocation = (u64, Box<dyn Any + Send + Sync>);

/// A user's allocator in place of the pool (CuPy's `set_allocator`): called with a size
/// in bytes, it returns memory of the current device, ordered as its owner orders it.
pub type Allocator = Box<dyn Fn(usize) -> Result<Allocation> + Send + Sync>;

static ALLOCATOR: RwLock<Option<Allocator>> = RwLock::new(None);

/// Routes every new device buffer through `allocator` (None: back to gpupy's pool).
pub fn set_allocator(allocator: Option<Allocator>) {
    *ALLOCATOR.write().unwrap_or_else(|p| p.into_inner()) = allocator;
}

/// Sets the out-of-memory hook (see `OOM_HOOK`).
pub fn set_oom_hook(hook: fn()) {
    *OOM_HOOK.write().unwrap_or_else(|p| p.into_inner()) = Some(hook);
}

impl Buffer {
    /// A buffer of at least `bytes` bytes on `device`, 512-byte aligned, for work on
    /// the calling thread's current stream.
    pub fn alloc(device: &'static Device, bytes: usize) -> Result<Buffer> {
        let (_, stream) = stream::current(device);
        let owner = Owner::Pool { stream };
        if bytes == 0 {
            return Ok(Buffer {
                ptr: 0,
                bytes: 0,
                device,
                owner,
            });
        }
        if let Some(allocate) = &*ALLOCATOR.read().unwrap_or_else(|p| p.into_inner()) {
            let (ptr, owner) = allocate(bytes)?;
            if ptr % 256 != 0 {
                return Err(Error::Value(format!(
                    "the allocator returned {ptr:#x}, not aligned to 256 bytes as CUDA's allocations are"
                )));
            }
            return Ok(Buffer {
                ptr,
                bytes,
                device,
                owner: Owner::Foreign(owner),
            });
        }
        let class = size_class(bytes);
        if let Some(ptr) = device.pool.take(stream, class) {
            return Ok(Buffer {
                ptr,
                bytes,
                device,
                owner,
            });
        }
        let ptr = match driver_alloc(device, class)? {
            Some(p) => p,
            None => {
                // Out of memory or over the limit: free what only a cycle keeps alive,
                // return the cache to the driver, and try once more.
                let hook = *OOM_HOOK.read().unwrap_or_else(|p| p.into_inner());
                if let Some(hook) = hook {
                    hook();
                }
                free_all_blocks(device)?;
                driver_alloc(device, class)?.ok_or_else(|| Error::OutOfMemory {
                    requested: bytes,
                    held: device.pool.total_bytes(),
                    limit: device.pool.limit(),
                })?
            }
        };
        Ok(Buffer {
            ptr,
            bytes,
            device,
            owner,
        })
    }

    /// A buffer over `bytes` bytes at `ptr` that `owner` keeps valid.
    ///
    /// # Safety
    /// `ptr..ptr + bytes` is device memory of `device`'s context (or host memory it can
    /// reach), readable (and writable, when it is written) for as long as `owner` lives.
    pub unsafe fn foreign(
        device: &'static Device,
        ptr: u64,
        bytes: usize,
        owner: Box<dyn Any + Send + Sync>,
    ) -> Buffer {
        Buffer {
            ptr,
            bytes,
            device,
            owner: Owner::Foreign(owner),
        }
    }
}

/// A new block of `class` bytes from the driver, counted as used; `None` when the driver
/// is out of memory or the pool's limit would be passed.
fn driver_alloc(device: &'static Device, class: usize) -> Result<Option<sys::CUdeviceptr>> {
    if !device.pool.reserve(class) {
        return Ok(None);
    }
    device.bind()?;
    // SAFETY: the device's context is bound; the size is non-zero.
    match unsafe { result::malloc_sync(class) } {
        Ok(p) => Ok(Some(p)),
        Err(e) => {
            device.pool.unreserve(class);
            if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                Ok(None)
            } else {
                Err(Error::cuda("cuMemAlloc", e))
            }
        }
    }
}

/// Returns every cached block of `device`'s pool to the driver.
pub fn free_all_blocks(device: &Device) -> Result<()> {
    let blocks = device.pool.drain();
    device.bind()?;
    // Work queued earlier, on any stream, may still use a cached block's memory under
    // its last owner: wait for all of it before the driver takes the memory back.
    check("cuCtxSynchronize", result::ctx::synchronize())?;
    for ptr in blocks {
        // SAFETY: ptr came from cuMemAlloc and no live Buffer refers to it.
        check("cuMemFree", unsafe { result::free_sync(ptr) })?;
    }
    Ok(())
}
