//! Page-locked (pinned) host memory and its caching pool (CuPy's `PinnedMemoryPool`).
//!
//! The copy engines read and write pinned memory directly, at the bus's full rate and
//! asynchronously; pageable memory goes through the driver's own staging. Pinning is
//! slow (the OS maps and locks every page), so freed blocks are kept by size class, as
//! device blocks are (`pool.rs`), for the next request. Blocks are portable: every
//! context of the process may use them.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use cudarc::driver::{result, sys};

use crate::device::Device;
use crate::error::{Error, Result, check};
use crate::pool::size_class;

/// The process's pinned-memory pool.
static POOL: Mutex<Inner> = Mutex::new(Inner {
    free: None,
    used: 0,
    cached: 0,
    blocks: 0,
});

struct Inner {
    /// Free blocks (host addresses) by size class.
    free: Option<HashMap<usize, Vec<usize>>>,
    used: usize,
    cached: usize,
    blocks: usize,
}

fn lock() -> MutexGuard<'static, Inner> {
    // Plain bookkeeping, never left half-updated: a poisoned lock is still sound.
    POOL.lock().unwrap_or_else(|p| p.into_inner())
}

/// A block of pinned host memory; dropping the last handle returns it to the pool.
#[derive(Clone)]
pub struct Pinned(Arc<Block>);

struct Block {
    ptr: usize,
    bytes: usize,
    /// What keeps memory from a user's allocator (None: a block of the pool).
    owner: Option<Box<dyn Any + Send + Sync>>,
}

/// A user's pinned-memory allocator (CuPy's `set_pinned_memory_allocator`): called with
/// a size in bytes, it returns the host address of that much page-locked memory and the
/// value that keeps it.
pub type Allocator =
    Box<dyn Fn(usize) -> Result<(usize, Box<dyn Any + Send + Sync>)> + Send + Sync>;

static ALLOCATOR: RwLock<Option<Allocator>> = RwLock::new(None);

/// Routes every new pinned block through `allocator` (None: back to gpupy's pool).
pub fn set_allocator(allocator: Option<Allocator>) {
    *ALLOCATOR.write().unwrap_or_else(|p| p.into_inner()) = allocator;
}

impl Pinned {
    /// At least `bytes` bytes of pinned memory (`device`'s context makes the driver
    /// call; the block serves every device).
    pub fn alloc(device: &Device, bytes: usize) -> Result<Pinned> {
        if let Some(allocate) = &*ALLOCATOR.read().unwrap_or_else(|p| p.into_inner()) {
            let (ptr, owner) = allocate(bytes)?;
            return Ok(Pinned(Arc::new(Block {
                ptr,
                bytes,
                owner: Some(owner),
            })));
        }
        let class = size_class(bytes.max(1));
        let cached = {
            let mut p = lock();
            let ptr = p
                .free
                .get_or_insert_default()
                .get_mut(&class)
                .and_then(Vec::pop);
            if ptr.is_some() {
                p.cached -= class;
                p.blocks -= 1;
                p.used += class;
            }
            ptr
        };
        let ptr = match cached {
            Some(ptr) => ptr,
            None => {
                let ptr = host_alloc(device, class).or_else(|_| {
                    // Out of pinnable memory: give back the cache and try once more.
                    free_all_blocks(device)?;
                    host_alloc(device, class)
                })?;
                lock().used += class;
                ptr
            }
        };
        Ok(Pinned(Arc::new(Block {
            ptr,
            bytes,
            owner: None,
        })))
    }

    /// The host address of the first byte.
    pub fn ptr(&self) -> usize {
        self.0.ptr
    }
    /// The bytes asked for (the block itself may be larger).
    pub fn bytes(&self) -> usize {
        self.0.bytes
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        if self.owner.is_some() {
            return; // the user's allocator's memory: its owner (dropped next) frees it
        }
        let class = size_class(self.bytes.max(1));
        let mut p = lock();
        p.used -= class;
        p.cached += class;
        p.blocks += 1;
        p.free
            .get_or_insert_default()
            .entry(class)
            .or_default()
            .push(self.ptr);
    }
}

fn host_alloc(device: &Device, class: usize) -> Result<usize> {
    device.bind()?;
    // SAFETY: a context is bound; the size is non-zero. PORTABLE: every context may use
    // the block.
    let p = unsafe { result::malloc_host(class, sys::CU_MEMHOSTALLOC_PORTABLE) }.map_err(|e| {
        if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            Error::OutOfMemory {
                requested: class,
                held: total_bytes(),
                limit: 0,
            }
        } else {
            Error::cuda("cuMemHostAlloc", e)
        }
    })?;
    Ok(p as usize)
}

/// Returns every cached pinned block to the driver (after waiting for the device, whose
/// copies may still read or write them).
pub fn free_all_blocks(device: &Device) -> Result<()> {
    let blocks: Vec<usize> = {
        let mut p = lock();
        p.cached = 0;
        p.blocks = 0;
        p.free
            .take()
            .unwrap_or_default()
            .into_values()
            .flatten()
            .collect()
    };
    device.bind()?;
    check("cuCtxSynchronize", result::ctx::synchronize())?;
    for ptr in blocks {
        // SAFETY: ptr came from cuMemHostAlloc and no live `Pinned` refers to it.
        check("cuMemFreeHost", unsafe {
            result::free_host(ptr as *mut std::ffi::c_void)
        })?;
    }
    Ok(())
}

/// Bytes in live pinned blocks (by class size).
pub fn used_bytes() -> usize {
    lock().used
}

/// Bytes held from the driver: live plus cached.
pub fn total_bytes() -> usize {
    let p = lock();
    p.used + p.cached
}

/// Cached free blocks.
pub fn n_free_blocks() -> usize {
    lock().blocks
}
