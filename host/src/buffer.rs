//! Device buffers: blocks from a device's pool (`pool.rs`), returned to it on drop.

use cudarc::driver::{result, sys};

use crate::device::Device;
use crate::error::{Error, Result, check};
use crate::pool::size_class;

/// A block of device memory from the pool; dropping it returns the block.
pub struct Buffer {
    ptr: sys::CUdeviceptr,
    /// The requested size; the block itself is `size_class(bytes)`.
    bytes: usize,
    device: &'static Device,
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
        if self.bytes > 0 {
            self.device.pool.give_back(self.ptr, size_class(self.bytes));
        }
    }
}

impl Buffer {
    /// A buffer of at least `bytes` bytes on `device`, 512-byte aligned.
    pub fn alloc(device: &'static Device, bytes: usize) -> Result<Buffer> {
        if bytes == 0 {
            return Ok(Buffer {
                ptr: 0,
                bytes: 0,
                device,
            });
        }
        let class = size_class(bytes);
        let pool = &device.pool;
        if let Some(ptr) = pool.take(class) {
            return Ok(Buffer { ptr, bytes, device });
        }
        device.bind()?;
        // SAFETY: the device's context is bound; the size is non-zero.
        let ptr = match unsafe { result::malloc_sync(class) } {
            Ok(p) => p,
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                free_all_blocks(device)?;
                // SAFETY: as above.
                unsafe { result::malloc_sync(class) }.map_err(|_| Error::OutOfMemory {
                    requested: bytes,
                    held: pool.used_bytes(),
                    total: device.props.total_global_mem,
                })?
            }
            Err(e) => return Err(Error::cuda("cuMemAlloc", e)),
        };
        pool.record_alloc(class);
        Ok(Buffer { ptr, bytes, device })
    }
}

/// Returns every cached block of `device`'s pool to the driver.
pub fn free_all_blocks(device: &Device) -> Result<()> {
    let blocks = device.pool.drain();
    device.bind()?;
    // Kernels queued earlier may still use a cached block's memory under its last
    // owner: wait for them before the driver takes it back.
    check("cuCtxSynchronize", result::ctx::synchronize())?;
    for ptr in blocks {
        // SAFETY: ptr came from cuMemAlloc and no live Buffer refers to it.
        check("cuMemFree", unsafe { result::free_sync(ptr) })?;
    }
    Ok(())
}
