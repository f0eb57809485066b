//! What the panel kernels spread over the whole GPU share (`gpu_lu_panel`,
//! `gpu_qr_panel`): a grid barrier, and the copy of every block's record of a step
//! into each block's shared memory. Both need a cooperative launch (every block
//! resident at once; `Launch::cooperative` on the host).

use core::arch::asm;
use core::ptr::read_volatile;

use super::dense::args::LU_PANEL_COLS as W;
use super::scalar::Scalar;
use crate::gpu::{
    block_dim, block_idx, block_idx_y, grid_dim, smem_addr, st_shared_words, sync_threads,
    thread_idx, unroll,
};

/// One thread of a panel kernel: where it stands in the grid (a row of the panel per
/// thread, one matrix per `blockIdx.y`), and its matrix's panel, barrier counter and
/// two sets of `blocks + 1` records `R`.
pub struct Panel<T, R> {
    pub blocks: usize,
    pub block: usize,
    pub threads: usize,
    pub tid: usize,
    pub m: usize,
    pub n: usize,
    /// This thread's row, and whether the panel has it.
    pub row: usize,
    pub mine: bool,
    pub matrix: usize,
    pub a: *mut T,
    pub ld: usize,
    pub counter: *mut u32,
    records: *mut R,
}

impl<T: Scalar, R> Panel<T, R> {
    /// # Safety
    /// The host's launch: `a` (row stride `ld`, `a_batch` between matrices) holds the
    /// `m x n` panels, `n <= W`; `scratch` a u32 counter per matrix, and from byte
    /// `records` on, `2 * (gridDim.x + 1)` records `R` per matrix.
    #[inline(always)]
    pub unsafe fn new(
        a: u64,
        ld: u64,
        a_batch: u64,
        scratch: u64,
        records: u64,
        m: u32,
        n: u32,
    ) -> Self {
        let matrix = block_idx_y() as usize;
        let (blocks, block) = (grid_dim() as usize, block_idx() as usize);
        let (threads, tid) = (block_dim() as usize, thread_idx() as usize);
        let row = block * threads + tid;
        // SAFETY (pointers): per the contract, inside the operands and the scratch.
        unsafe {
            Panel {
                blocks,
                block,
                threads,
                tid,
                m: m as usize,
                n: n as usize,
                row,
                mine: row < m as usize,
                matrix,
                a: (a as *mut T).add(matrix * a_batch as usize),
                ld: ld as usize,
                counter: (scratch as *mut u32).add(matrix),
                records: ((scratch + records) as *mut R).add(matrix * 2 * (blocks + 1)),
            }
        }
    }

    /// The record set of `step` (the two sets alternate).
    #[inline(always)]
    pub fn set(&self, step: usize) -> *mut R {
        // SAFETY: one of this matrix's two sets of blocks + 1 records.
        unsafe { self.records.add((step % 2) * (self.blocks + 1)) }
    }

    /// This thread's row of the panel (zeros past `n`, and where it has no row).
    #[inline(always)]
    pub fn load_row(&self) -> [T; W] {
        let mut v = [T::ZERO; W];
        if self.mine {
            unroll!(c in 0..W => {
                if c < self.n {
                    // SAFETY: row < m, c < n.
                    v[c] = unsafe { *self.a.add(self.row * self.ld + c) };
                }
            });
        }
        v
    }
}

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
