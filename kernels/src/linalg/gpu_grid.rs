//! What the panel kernels spread over the whole GPU share (`gpu_lu_panel`,
//! `gpu_qr_panel`): a grid barrier, and the copy of every block's record of a step
//! into each block's shared memory. Both need a cooperative launch (every block
//! resident at once; `Launch::cooperative` on the host).

use core::arch::asm;
use core::ptr::read_volatile;

use crate::gpu::{
    block_dim, grid_dim, smem_addr, st_shared_words, sync_threads, thread_idx, unroll,
};

/// Arrives at grid barrier number `step` (from 0) of this matrix's `counter` and waits
/// for every block: after it, every block's writes before it are visible. Every thread
/// of the block calls it.
///
/// # Safety
/// `counter` is this matrix's zeroed counter; every block of the grid (resident at once:
/// a cooperative launch) calls with the same `step`s in order.
#[inline(always)]
pub unsafe fn grid_sync(counter: *mut u32, step: u32) {
    sync_threads();
    if thread_idx() == 0 {
        let target = (step + 1) * grid_dim();
        // SAFETY: the counter is a valid u32 in global memory (the host's scratch). The
        // release orders this block's writes (seen by this thread through the barrier
        // above) before the arrival; the acquire loads order what follows after the
        // others' arrivals (cooperative groups' grid.sync, with fences).
        unsafe {
            asm!("red.release.gpu.global.add.u32 [{p}], 1;", p = in(reg64) counter,
                 options(nostack));
            loop {
                let v: u32;
                asm!("ld.acquire.gpu.global.u32 {v}, [{p}];", v = out(reg32) v,
                     p = in(reg64) counter, options(nostack));
                if v >= target {
                    break;
                }
            }
        }
    }
    sync_threads();
}

/// Copies the first `words` 8-byte words of each of `count` records (`stride` words
/// apart) from global memory to shared memory at byte `dst` (the same layout), eight loads
/// in flight per thread so that the whole copy is one trip to L2; ends with a barrier.
/// The loads are volatile, so that no stale L1 line of an earlier step is read.
///
/// # Safety
/// The records lie in global memory and their copy inside the launch's shared memory;
/// every thread calls (after the grid barrier that published the records).
#[inline(always)]
pub unsafe fn copy_records(src: *const u64, count: usize, stride: usize, words: usize, dst: u32) {
    let (nt, total) = (block_dim() as usize, count * words);
    let mut base = thread_idx() as usize;
    while base < total {
        let mut x = [0u64; 8];
        unroll!(u in 0..8 => {
            let w = base + u * nt;
            if w < total {
                // (32-bit division: the 64-bit one is a long call on the GPU.)
                let (q, i) = (w as u32 / words as u32, w as u32 % words as u32);
                // SAFETY: word i < words of record q < count.
                x[u] = unsafe { read_volatile(src.add(q as usize * stride + i as usize)) };
            }
        });
        unroll!(u in 0..8 => {
            let w = base + u * nt;
            if w < total {
                let (q, i) = (w as u32 / words as u32, w as u32 % words as u32);
                // SAFETY: the copy's word.
                unsafe { st_shared_words(smem_addr(dst + 8 * (q * stride as u32 + i)), x[u]) };
            }
        });
        base += 8 * nt;
    }
    sync_threads();
}
