//! The caching device-memory pool (CuPy's `MemoryPool`, simplified).
//!
//! Requests are rounded up to a size class; a freed block goes onto its class's free list
//! instead of back to the driver, and the next request of that class takes it without a
//! `cuMemAlloc`. Work runs on one stream per device, in order, so a block freed by the
//! host can be handed to the next kernel even while earlier kernels still read it: the
//! stream serializes them.
//!
//! The pool is bookkeeping only (free lists and byte counts); `buffer.rs` talks to the
//! driver: it allocates on a miss, and on out-of-memory returns the cached blocks to the
//! driver and tries once more before reporting `Error::OutOfMemory`.

use std::collections::HashMap;
use std::sync::Mutex;

use cudarc::driver::sys;

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

impl Pool {
    /// A cached block of size class `class`, if one is free; counted as used.
    pub(crate) fn take(&self, class: usize) -> Option<sys::CUdeviceptr> {
        let mut inner = self.lock();
        let ptr = inner.free.get_mut(&class).and_then(Vec::pop)?;
        inner.cached -= class;
        inner.used += class;
        Some(ptr)
    }

    /// Counts a block of `class` bytes just taken from the driver as used.
    pub(crate) fn record_alloc(&self, class: usize) {
        self.lock().used += class;
    }

    /// Every cached block, handed back to the caller to return to the driver.
    pub(crate) fn drain(&self) -> Vec<sys::CUdeviceptr> {
        let mut inner = self.lock();
        inner.cached = 0;
        inner.free.drain().flat_map(|(_, ptrs)| ptrs).collect()
    }

    /// Puts a block of `class` bytes that is no longer used on its free list.
    pub(crate) fn give_back(&self, ptr: sys::CUdeviceptr, class: usize) {
        let mut inner = self.lock();
        inner.used -= class;
        inner.cached += class;
        inner.free.entry(class).or_default().push(ptr);
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
