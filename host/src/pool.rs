//! The caching device-memory pool (CuPy's `MemoryPool`, simplified).
//!
//! Requests are rounded up to a size class; a freed block goes onto its class's free list
//! instead of back to the driver, and the next request of that class takes it without a
//! `cuMemAlloc`. Work runs on one stream per device, in order, so a block freed by the
//! host can be handed to the next kernel even while earlier kernels still read it: the
//! stream serializes them.
//!
//! On out-of-memory the pool returns its cached blocks to the driver and tries once more
//! before reporting `Error::OutOfMemory`.

use std::collections::HashMap;
use std::sync::Mutex;

use cudarc::driver::{result, sys};

use crate::device::Device;
use crate::error::{Error, Result, check};

/// Small requests round to 512 bytes (CuPy's granularity, and the alignment every block
/// gets); from 1 MiB up, to a quarter of the power of two below them, so a class wastes at
/// most a fifth of a block and varied large sizes still find reusable blocks.
pub fn size_class(bytes: usize) -> usize {
    const SMALL: usize = 512;
    const LARGE: usize = 1 << 20;
    if bytes <= LARGE {
        return bytes.div_ceil(SMALL) * SMALL;
    }
    let step = (1usize << (usize::BITS - 1 - bytes.leading_zeros())) / 4;
    bytes.div_ceil(step) * step
}

#[derive(Default)]
pub struct Pool {
    /// Free lists, their byte counts, and the bytes in live blocks; one lock for all.
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    free: HashMap<usize, Vec<sys::CUdeviceptr>>,
    /// Bytes held by live buffers (by class size).
    used: usize,
    /// Bytes in the free lists.
    cached: usize,
}

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

impl Pool {
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
        {
            let mut inner = pool.lock();
            if let Some(ptr) = inner.free.get_mut(&class).and_then(Vec::pop) {
                inner.cached -= class;
                inner.used += class;
                return Ok(Buffer { ptr, bytes, device });
            }
        }
        device.bind()?;
        // SAFETY: the device's context is bound; the size is non-zero.
        let ptr = match unsafe { result::malloc_sync(class) } {
            Ok(p) => p,
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                pool.free_all_blocks(device)?;
                // SAFETY: as above.
                unsafe { result::malloc_sync(class) }.map_err(|_| Error::OutOfMemory {
                    requested: bytes,
                    held: pool.used_bytes(),
                    total: device.props.total_global_mem,
                })?
            }
            Err(e) => return Err(Error::cuda("cuMemAlloc", e)),
        };
        pool.lock().used += class;
        Ok(Buffer { ptr, bytes, device })
    }

    fn give_back(&self, ptr: sys::CUdeviceptr, class: usize) {
        let mut inner = self.lock();
        inner.used -= class;
        inner.cached += class;
        inner.free.entry(class).or_default().push(ptr);
    }

    /// Returns every cached block to the driver.
    pub fn free_all_blocks(&self, device: &Device) -> Result<()> {
        let blocks: Vec<(usize, Vec<sys::CUdeviceptr>)> = {
            let mut inner = self.lock();
            inner.cached = 0;
            inner.free.drain().collect()
        };
        device.bind()?;
        // Kernels queued earlier may still use a cached block's memory under its last
        // owner: wait for them before the driver takes it back.
        check("cuCtxSynchronize", result::ctx::synchronize())?;
        for ptr in blocks.into_iter().flat_map(|(_, ptrs)| ptrs) {
            // SAFETY: ptr came from cuMemAlloc and no live Buffer refers to it.
            check("cuMemFree", unsafe { result::free_sync(ptr) })?;
        }
        Ok(())
    }

    /// Bytes in live buffers (CuPy's `used_bytes`, counted by block size).
    pub fn used_bytes(&self) -> usize {
        self.lock().used
    }

    /// Bytes held from the driver: live plus cached (CuPy's `total_bytes`).
    pub fn total_bytes(&self) -> usize {
        let inner = self.lock();
        inner.used + inner.cached
    }

    /// Bytes in cached free blocks (CuPy's `free_bytes`).
    pub fn free_bytes(&self) -> usize {
        self.lock().cached
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // The lock guards plain bookkeeping that is never left half-updated.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_round_up_and_bound_the_waste() {
        assert_eq!(size_class(1), 512);
        assert_eq!(size_class(512), 512);
        assert_eq!(size_class(513), 1024);
        assert_eq!(size_class(1 << 20), 1 << 20);
        for bytes in [
            (1 << 20) + 1,
            3_000_000,
            123_456_789,
            1 << 30,
            (1 << 30) + 7,
        ] {
            let c = size_class(bytes);
            assert!(c >= bytes && c.is_multiple_of(512), "{bytes} -> {c}");
            assert!((c - bytes) * 4 <= bytes, "{bytes} -> {c} wastes too much");
            assert_eq!(size_class(c), c, "a class is its own class");
        }
    }
}
