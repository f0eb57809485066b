//! The caching device-memory pool (CuPy's `MemoryPool`, simplified).
//!
//! Requests are rounded up to a size class; a freed block goes onto a free list instead
//! of back to the driver, and the next request of that class takes it without a
//! `cuMemAlloc`. Free lists are kept per stream (by the stream's id, see `stream.rs`),
//! as CuPy's per-stream arenas: a block goes back to the list of the stream it was
//! allocated on, and only allocations on that stream take it, so the stream orders the
//! new owner's work after the old owner's, even while that work is still queued. A block
//! never passes to another stream while work may use it; `free_all_blocks` (which waits
//! for the whole device) and a destroyed stream (after waiting for it) release them.
//!
//! The pool is bookkeeping only (free lists, byte counts and the limit); `buffer.rs`
//! talks to the driver: it allocates on a miss, and on out-of-memory returns the cached
//! blocks to the driver and tries once more before reporting `Error::OutOfMemory`.

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

/// The id of the legacy null stream's free lists (`stream::NULL_ID`).
pub const NULL_STREAM: u64 = 0;

#[derive(Default)]
pub struct Pool {
    /// Free lists, their byte counts, the bytes in live blocks and the limit; one lock.
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Free blocks by (stream id, size class).
    free: HashMap<(u64, usize), Vec<sys::CUdeviceptr>>,
    /// Bytes held by live buffers (by class size).
    used: usize,
    /// Bytes in the free lists.
    cached: usize,
    /// Blocks in the free lists.
    blocks: usize,
    /// The most bytes the pool may hold from the driver (0: no limit).
    limit: usize,
}

impl Pool {
    /// A cached block of size class `class` freed on stream `stream`, if one is free;
    /// counted as used.
    pub(crate) fn take(&self, stream: u64, class: usize) -> Option<sys::CUdeviceptr> {
        let mut inner = self.lock();
        let ptr = inner.free.get_mut(&(stream, class)).and_then(Vec::pop)?;
        inner.cached -= class;
        inner.blocks -= 1;
        inner.used += class;
        Some(ptr)
    }

    /// Whether `class` more bytes from the driver stay within the limit, counting what
    /// the pool holds (live and cached); on success they are counted as used.
    pub(crate) fn reserve(&self, class: usize) -> bool {
        let mut inner = self.lock();
        let held = inner.used + inner.cached;
        if inner.limit > 0 && held.saturating_add(class) > inner.limit {
            return false;
        }
        inner.used += class;
        true
    }

    /// Undoes a `reserve` whose allocation failed.
    pub(crate) fn unreserve(&self, class: usize) {
        self.lock().used -= class;
    }

    /// Every cached block, handed back to the caller to return to the driver.
    pub(crate) fn drain(&self) -> Vec<sys::CUdeviceptr> {
        let mut inner = self.lock();
        inner.cached = 0;
        inner.blocks = 0;
        inner.free.drain().flat_map(|(_, ptrs)| ptrs).collect()
    }

    /// Puts a block of `class` bytes that is no longer used on stream `stream`'s list.
    pub(crate) fn give_back(&self, ptr: sys::CUdeviceptr, class: usize, stream: u64) {
        let mut inner = self.lock();
        inner.used -= class;
        inner.cached += class;
        inner.blocks += 1;
        inner.free.entry((stream, class)).or_default().push(ptr);
    }

    /// Moves the cached blocks of a stream whose work has all finished (it was waited
    /// for and is being destroyed) to the null stream's lists.
    pub(crate) fn retire(&self, stream: u64) {
        let mut inner = self.lock();
        let keys: Vec<_> = inner
            .free
            .keys()
            .filter(|k| k.0 == stream)
            .copied()
            .collect();
        for (s, class) in keys {
            let ptrs = inner.free.remove(&(s, class)).unwrap_or_default();
            let null = inner.free.entry((NULL_STREAM, class)).or_default();
            null.extend(ptrs);
        }
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

    /// Cached free blocks (CuPy's `n_free_blocks`).
    pub fn n_free_blocks(&self) -> usize {
        self.lock().blocks
    }

    /// The most bytes the pool may hold (CuPy's `set_limit`; 0: no limit).
    pub fn set_limit(&self, bytes: usize) {
        self.lock().limit = bytes;
    }

    pub fn limit(&self) -> usize {
        self.lock().limit
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

    #[test]
    fn a_block_is_reused_only_on_the_stream_that_freed_it() {
        let pool = Pool::default();
        assert!(pool.reserve(512));
        pool.give_back(0x1000, 512, 7);
        assert_eq!(
            (pool.used_bytes(), pool.free_bytes(), pool.n_free_blocks()),
            (0, 512, 1)
        );
        assert_eq!(pool.take(8, 512), None, "another stream must not get it");
        assert_eq!(pool.take(7, 1024), None, "another class must not get it");
        assert_eq!(pool.take(7, 512), Some(0x1000));
        assert_eq!((pool.used_bytes(), pool.n_free_blocks()), (512, 0));
    }

    #[test]
    fn a_retired_streams_blocks_go_to_the_null_stream() {
        let pool = Pool::default();
        for (ptr, stream) in [(0x1000, 3), (0x2000, 3), (0x3000, 4)] {
            assert!(pool.reserve(512));
            pool.give_back(ptr, 512, stream);
        }
        pool.retire(3);
        let mut got = [pool.take(0, 512), pool.take(0, 512)];
        got.sort();
        assert_eq!(got, [Some(0x1000), Some(0x2000)]);
        assert_eq!(pool.take(0, 512), None, "stream 4's block stays with it");
        assert_eq!(pool.take(4, 512), Some(0x3000));
    }

    #[test]
    fn the_limit_counts_live_and_cached_bytes() {
        let pool = Pool::default();
        pool.set_limit(2048);
        assert!(pool.reserve(1024));
        assert!(pool.reserve(1024));
        assert!(!pool.reserve(512), "past the limit");
        pool.give_back(0x1000, 1024, 0);
        assert!(!pool.reserve(512), "cached bytes count too");
        assert_eq!(pool.drain(), vec![0x1000]);
        assert!(pool.reserve(512));
        pool.set_limit(0);
        assert!(pool.reserve(1 << 40), "0 is no limit");
    }
}
