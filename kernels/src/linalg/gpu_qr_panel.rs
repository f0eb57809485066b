//! Householder QR panels of the blocked QR spread over the whole GPU: `dense::geqrf`
//! (CPU-tested) on an `m x n` panel (`n <= LU_PANEL_COLS`), a row per thread in
//! registers, the blocks of one cooperative launch (as `gpu_lu_panel`).
//!
//! One block factoring a 4096 x 32 float64 panel took 3.2 ms: its time grew with the
//! rows, as the LU panel's did. Here a column step needs the whole grid twice:
//!
//! 1. the column's norm below the diagonal: each block sums its rows' squares (float64),
//!    publishes the sum in its record (and the owner of row `j` the element `alpha`);
//!    after a grid barrier every block adds the records in the same order and takes
//!    the same reflector from `dense::reflector`; the rows below `j` scale themselves;
//! 2. `w = v^H A` over the columns right of `j`: each block sums its rows' products
//!    (column by column through shared memory) into its record; after a second barrier
//!    every block adds the records in the same order, and every row applies the
//!    reflector, `a_i -= v_i conj(tau) w`.
//!
//! Records alternate between two sets by the parity of the barrier, as in
//! `gpu_lu_panel` (see there why that is enough).

use super::dense::args::{LU_PANEL_COLS as W, QrPanelArgs, SCRATCH_BYTES};
use super::dense::{Reflector, reflector};
use super::gpu_grid::{Panel, copy_records, grid_sync};
use super::scalar::Scalar;
use crate::dtype::{c64, c128};
use crate::gpu::{
    block_dim, ld_shared_words, shfl_xor_words, smem_addr, st_shared_words, sync_threads,
    thread_idx, unroll,
};

/// A block's partial sums of a step for the others to read.
#[repr(C)]
pub struct Record<T> {
    /// Step 1: the block's sum of squares.
    norm2: f64,
    _pad: u64,
    /// Step 1: `alpha` in element 0 (the row-`j` record); step 2: the block's `w`.
    row: [T; W],
}

/// Shared memory (byte offsets, adding up to `args::qr_panel_shared`): the block
/// reduction's slots, a copy of the records, the threads' products `P[c][t]`, and the
/// scaled sums `conj(tau) w`.
struct Layout {
    records: u32,
    record: u32,
    products: u32,
    sums: u32,
}

impl Layout {
    #[inline(always)]
    fn new<T>(records: usize, threads: usize) -> Layout {
        let record = size_of::<Record<T>>() as u32;
        let products = SCRATCH_BYTES + records as u32 * record;
        Layout {
            records: SCRATCH_BYTES,
            record,
            products,
            sums: products + (threads * W * size_of::<T>()) as u32,
        }
    }
    /// `P[c][t]` of `threads`.
    #[inline(always)]
    fn product<T>(&self, c: usize, t: usize, threads: usize) -> u32 {
        self.products + ((c * threads + t) * size_of::<T>()) as u32
    }
    /// `conj(tau) w[c]`.
    #[inline(always)]
    fn tw<T>(&self, c: usize) -> u32 {
        self.sums + (c * size_of::<T>()) as u32
    }
    #[inline(always)]
    fn norm2(&self, q: usize) -> u32 {
        self.records + q as u32 * self.record
    }
    #[inline(always)]
    fn el<T>(&self, q: usize, c: usize) -> u32 {
        self.norm2(q) + 16 + (c * size_of::<T>()) as u32
    }
}

/// The sum of `x` over the warp, on every lane (the butterfly adds the same pairs in
/// the same order on every lane: the same bits everywhere).
#[inline(always)]
fn warp_sum<T: Scalar>(mut x: T, lanes: u32) -> T {
    let mut d = lanes / 2;
    while d > 0 {
        x = x.add(shfl_xor_words(x, d));
        d /= 2;
    }
    x
}

/// The block's sum of `x` on every thread, the same bits in every block for the same
/// inputs; through the 32 slots of 8 bytes at shared 0, one barrier. Callers put a
/// barrier between two calls.
#[inline(always)]
fn block_sum(x: f64) -> f64 {
    let s = warp_sum(x, 32);
    let (lane, warp) = (thread_idx() % 32, thread_idx() / 32);
    if lane == 0 {
        // SAFETY: warp < 32 slots inside SCRATCH_BYTES.
        unsafe { st_shared_words(smem_addr(8 * warp), s) };
    }
    sync_threads();
    let mine = if lane < block_dim() / 32 {
        // SAFETY: stored before the barrier.
        unsafe { ld_shared_words::<f64>(smem_addr(8 * lane)) }
    } else {
        0.0
    };
    warp_sum(mine, 32)
}

/// # Safety
/// The host's launch (`host/src/ops/linalg/grid.rs`, `qr_panel`): a cooperative grid
/// of `ceil(m / blockDim.x)` blocks of 128, 256 or 512 threads in x and one matrix per
/// `blockIdx.y`; `n <= W`; `scratch` zeroed, with a counter per matrix and
/// `2 * (gridDim.x + 1)` records per matrix at byte `records`;
/// `qr_panel_shared(gridDim.x, blockDim.x, size_of::<T>())` of dynamic shared memory.
#[inline(always)]
unsafe fn run<T: Scalar>(p: QrPanelArgs) {
    // SAFETY: the launch's contract above.
    let pn = unsafe {
        Panel::<T, Record<T>>::new(p.a, p.lda, p.a_batch, p.scratch, p.records, p.m, p.n)
    };
    let (g, blk, nt, tid) = (pn.blocks, pn.block, pn.threads, pn.tid);
    let (m, n, row, mine, matrix) = (pn.m, pn.n, pn.row, pn.mine, pn.matrix);
    let (a, ld, counter) = (pn.a, pn.ld, pn.counter);
    let k = m.min(n);
    let sh = Layout::new::<T>(g + 1, nt);
    let words = sh.record as usize / 8;
    // SAFETY (shared accesses below): offsets inside `qr_panel_shared(g, nt, size)`.
    let ld_el = |q: usize, c: usize| unsafe { ld_shared_words::<T>(smem_addr(sh.el::<T>(q, c))) };
    // A column sum: `per` threads per column (a power of two up to 32, in one warp).
    let per = nt / W;
    let (col, part) = (tid / per, tid % per);

    let mut v = pn.load_row();
    let mut barrier = 0u32;
    for j in 0..k {
        // The row's element j, by selects (the loop is not written out: its body is
        // long).
        let mut vj = v[0];
        unroll!(c in 0..W => { if c == j { vj = v[c]; } });
        // 1. The norm below the diagonal, and alpha.
        let own = if mine && row > j {
            T::re64(vj.abs2())
        } else {
            0.0
        };
        let part_sum = block_sum(own);
        let set = pn.set(barrier as usize);
        // SAFETY: this block's record and the row-j record, each written by one thread.
        unsafe {
            if tid == 0 {
                (*set.add(blk)).norm2 = part_sum;
            }
            if mine && row == j {
                (*set.add(g)).row[0] = vj;
            }
            grid_sync(counter, barrier);
            let head = 2 + size_of::<T>().div_ceil(8);
            copy_records(set as *const u64, g + 1, words, head, sh.records);
        }
        barrier += 1;
        let mut s = 0.0;
        let mut q = tid % 32;
        while q < g {
            // SAFETY: copied above.
            s += unsafe { ld_shared_words::<f64>(smem_addr(sh.norm2(q))) };
            q += 32;
        }
        let xnorm2 = warp_sum(s, 32);
        let alpha = ld_el(g, 0);
        let mut tau = T::ZERO;
        if let Some(Reflector { tau: t, beta, scal }) = reflector(alpha, xnorm2) {
            tau = t;
            // The row's v_i (1 on the diagonal, implicit), and beta on the diagonal.
            let vi = if row == j { T::ONE } else { vj.mul(scal) };
            if mine && row >= j {
                let x = if row == j { beta } else { vi };
                unroll!(c in 0..W => { if c == j { v[c] = x; } });
            }
            if j + 1 < n {
                // 2. w = v^H A over columns j + 1..n: this thread's products, then the
                // block's sums column by column.
                let live = mine && row >= j;
                unroll!(c in 0..W => {
                    if c < n {
                        let x = if live && c > j { vi.conj().mul(v[c]) } else { T::ZERO };
                        // SAFETY: P[c][tid].
                        unsafe { st_shared_words(smem_addr(sh.product::<T>(c, tid, nt)), x) };
                    }
                });
                sync_threads();
                let mut w = T::ZERO;
                let mut r = part;
                while r < nt {
                    // SAFETY: P[col][r], stored above.
                    w = w.add(unsafe {
                        ld_shared_words::<T>(smem_addr(sh.product::<T>(col, r, nt)))
                    });
                    r += per;
                }
                let w = warp_sum(w, per as u32);
                let set = pn.set(barrier as usize);
                // SAFETY: this block's record, element `col` written by one thread.
                unsafe {
                    if part == 0 && col < n {
                        (*set.add(blk)).row[col] = w;
                    }
                    grid_sync(counter, barrier);
                    let used = 2 + (n * size_of::<T>()).div_ceil(8);
                    copy_records(set as *const u64, g, words, used, sh.records);
                }
                barrier += 1;
                // The same sums everywhere: the blocks' in a fixed order.
                let mut w = T::ZERO;
                let mut q = part;
                while q < g {
                    w = w.add(ld_el(q, col));
                    q += per;
                }
                let w = warp_sum(w, per as u32);
                if part == 0 && col < n {
                    // conj(tau) w: H^H applies with conj(tau), as `dense::geqrf`.
                    // SAFETY: tw[col].
                    unsafe { st_shared_words(smem_addr(sh.tw::<T>(col)), tau.conj().mul(w)) };
                }
                sync_threads();
                if live {
                    unroll!(c in 0..W => {
                        if c > j && c < n {
                            // SAFETY: tw[c], stored above.
                            let tw = unsafe { ld_shared_words::<T>(smem_addr(sh.tw::<T>(c))) };
                            v[c] = v[c].sub(vi.mul(tw));
                        }
                    });
                }
            }
        }
        if blk == 0 && tid == 0 {
            // SAFETY: tau holds min(m, n) entries per matrix.
            unsafe { *(p.tau as *mut T).add(matrix * p.tau_batch as usize + j) = tau };
        }
    }
    if mine {
        let vout = p.v as *mut T;
        unroll!(c in 0..W => {
            if c < n {
                // SAFETY: row < m, c < n in a; c < k in v (`m x k`, when asked).
                unsafe {
                    *a.add(row * ld + c) = v[c];
                    if !vout.is_null() && c < k {
                        let x = if row > c { v[c] } else if row == c { T::ONE } else { T::ZERO };
                        *vout.add(matrix * p.v_batch as usize + row * p.ldv as usize + c) = x;
                    }
                }
            }
        });
    }
}

crate::for_each_dense_type!(typed_entries, "qr_panel", QrPanelArgs);
