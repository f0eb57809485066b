//! Barriers and memory fences: CUDA's `__syncthreads` (and its `_count`/`_and`/`_or`
//! forms), `__syncwarp` and `__threadfence*`.
//!
//! A block barrier must be reached by every thread of the block (from control flow that
//! is the same for the whole block), or the block hangs: the same rule as in CUDA C.
//! The asm blocks here have no `nomem` option on purpose: that is what keeps the compiler
//! from moving loads and stores across a barrier or fence.

use core::arch::asm;
use core::arch::nvptx;

/// `__syncthreads()`: waits until every thread of the block has reached it, and makes
/// their earlier writes to shared and global memory visible to the block.
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: a barrier has no memory-safety preconditions (a divergent barrier hangs,
    // it does not corrupt memory).
    unsafe { nvptx::_syncthreads() }
}

/// `__syncthreads_count(p)`: a block barrier that returns on how many threads `p` held.
#[inline(always)]
pub fn sync_threads_count(p: bool) -> u32 {
    let r: u32;
    // SAFETY: a barrier with a reduction over a register; as `sync_threads`.
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {x}, 0; bar.red.popc.u32 {r}, 0, p; }}",
             x = in(reg32) p as u32, r = out(reg32) r, options(nostack))
    };
    r
}

/// `__syncthreads_and(p)`: a block barrier that returns whether `p` held on every thread.
#[inline(always)]
pub fn sync_threads_and(p: bool) -> bool {
    let r: u32;
    // SAFETY: as `sync_threads_count`.
    unsafe {
        asm!("{{ .reg .pred p, q; setp.ne.u32 p, {x}, 0; bar.red.and.pred q, 0, p; selp.u32 {r}, 1, 0, q; }}",
             x = in(reg32) p as u32, r = out(reg32) r, options(nostack))
    };
    r != 0
}

/// `__syncthreads_or(p)`: a block barrier that returns whether `p` held on any thread.
#[inline(always)]
pub fn sync_threads_or(p: bool) -> bool {
    let r: u32;
    // SAFETY: as `sync_threads_count`.
    unsafe {
        asm!("{{ .reg .pred p, q; setp.ne.u32 p, {x}, 0; bar.red.or.pred q, 0, p; selp.u32 {r}, 1, 0, q; }}",
             x = in(reg32) p as u32, r = out(reg32) r, options(nostack))
    };
    r != 0
}

/// `__syncwarp()`: waits for all 32 lanes of the warp and orders their memory accesses
/// (needed between warp-level steps through shared memory since Volta's independent
/// thread scheduling). Every lane of the warp must call it.
#[inline(always)]
pub fn sync_warp() {
    // SAFETY: a warp barrier over the full mask.
    unsafe { asm!("bar.warp.sync 0xffffffff;", options(nostack)) }
}

/// `__threadfence_block()`: this thread's writes before it are seen by its block before
/// its writes after it.
#[inline(always)]
pub fn threadfence_block() {
    // SAFETY: a fence only orders memory accesses.
    unsafe { asm!("membar.cta;", options(nostack)) }
}

/// `__threadfence()`: as `threadfence_block`, for every thread of the device (the fence
/// a "last block done" reduction needs before its atomic counter).
#[inline(always)]
pub fn threadfence() {
    // SAFETY: as above.
    unsafe { asm!("membar.gl;", options(nostack)) }
}

/// `__threadfence_system()`: as `threadfence`, also toward the host and peer devices.
#[inline(always)]
pub fn threadfence_system() {
    // SAFETY: as above.
    unsafe { asm!("membar.sys;", options(nostack)) }
}
