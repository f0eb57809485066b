//! The block reflector of a QR panel in the "UT" form, in one launch: from the panel's
//! reflectors `h` (`m x k`, `k <= LU_PANEL_COLS`) and `tau`, the explicit `V`
//! (`dense::ut_v`) and `M = striu(V^H V) + diag(1 / tau)` (`dense::ut_m`), which the
//! blocked QR applies as `I - V M^-1 V^H` (`_decomp.py`).
//!
//! Written as array operations (masks, a product, selects) this was about 15 launches
//! per panel, twice per panel of `qr` (once for `R`, once for `Q`): the 4096 x 4096
//! float64 QR issued 13,000 launches and waited on the host. Here:
//!
//! 1. each block takes chunks of `UT_THREADS` rows (chunk `blockIdx.x`, then every
//!    `gridDim.x`-th): a thread builds one row of `V`, writes it out and stages it in
//!    shared memory; then each thread adds one 4 x 4 tile of `V^H V` over 16 of the
//!    chunk's rows (only the tiles on and above the diagonal);
//! 2. the block adds its threads' tiles (the 8 row groups in order) and writes its
//!    partial Gram matrix to the scratch;
//! 3. the last block of the matrix to finish (a counter, counted up once per block)
//!    adds the blocks' partials in block order and writes `M`: the same bits on every
//!    run.

use core::arch::asm;
use core::ptr::read_volatile;

use super::dense::args::{LU_PANEL_COLS as W, UT_THREADS, UtArgs};
use super::dense::{ut_m, ut_v};
use super::scalar::Scalar;
use crate::dtype::{c64, c128};
use crate::gpu::{
    block_idx, block_idx_y, grid_dim, ld_shared_words, smem_addr, st_shared_words, sync_threads,
    thread_idx, unroll,
};

/// The Gram matrix's tiles: `TILE x TILE` elements, `SIDE x SIDE` of them.
const TILE: usize = 4;
const SIDE: usize = W / TILE;
/// Row groups of a chunk: each thread has one tile and one group.
const GROUPS: usize = UT_THREADS as usize / (SIDE * SIDE);
const GROUP_ROWS: usize = UT_THREADS as usize / GROUPS;

/// # Safety
/// The host's launch (`host/src/ops/linalg/grid.rs`, `qr_ut`): blocks of `UT_THREADS`
/// threads, one matrix per `blockIdx.y`; `h` and `v` hold `m x k` (`v` is `h` itself
/// or overlaps nothing), `tau` `k`, `mt` `k x k`, `k <= W`; the scratch zeroed, with a
/// u32 counter per matrix and, from byte `partials`, `gridDim.x * W * W` elements per
/// matrix; `qr_ut_shared(size_of::<T>())` bytes of dynamic shared memory.
#[inline(always)]
unsafe fn run<T: Scalar>(p: UtArgs) {
    let (m, k) = (p.m as usize, p.k as usize);
    let matrix = block_idx_y() as usize;
    let (blk, blocks) = (block_idx() as usize, grid_dim() as usize);
    let (t, nt) = (thread_idx() as usize, UT_THREADS as usize);
    let size = size_of::<T>();
    // SAFETY (pointers): this matrix's operands, per the contract.
    let (h, v, tau_p, mt, counter, partials) = unsafe {
        (
            (p.h as *const T).add(matrix * p.h_batch as usize),
            (p.v as *mut T).add(matrix * p.v_batch as usize),
            (p.tau as *const T).add(matrix * p.tau_batch as usize),
            (p.mt as *mut T).add(matrix * p.m_batch as usize),
            (p.scratch as *mut u32).add(matrix),
            ((p.scratch + p.partials) as *mut T).add(matrix * blocks * W * W),
        )
    };
    let (ldh, ldv, ldm) = (p.ldh as usize, p.ldv as usize, p.ldm as usize);
    let mut tau = [T::ZERO; W];
    unroll!(c in 0..W => {
        if c < k {
            // SAFETY: c < k.
            tau[c] = unsafe { *tau_p.add(c) };
        }
    });
    // Shared: V's staged rows (`r * W + c`), later the threads' tiles; a flag after them.
    let at = |e: usize| smem_addr((e * size) as u32);
    let flag = (nt * W * size) as u32;
    let tile = t % (SIDE * SIDE);
    let (ti, tj, group) = (tile / SIDE, tile % SIDE, t / (SIDE * SIDE));
    let mut acc = [[T::ZERO; TILE]; TILE];

    // 1. Rows of V, and this thread's tile over its group's rows of each chunk.
    let mut chunk = blk;
    while chunk * nt < m {
        let row = chunk * nt + t;
        unroll!(c in 0..W => {
            let mut x = T::ZERO;
            if row < m && c < k {
                // SAFETY: row < m, c < k in h and v; h is read below the diagonal only
                // (where it holds reflectors), before this thread writes v there.
                unsafe {
                    let hv = if row > c { *h.add(row * ldh + c) } else { T::ZERO };
                    x = ut_v(row, c, hv, tau[c]);
                    *v.add(row * ldv + c) = x;
                }
            }
            // SAFETY: element t * W + c of the staged rows.
            unsafe { st_shared_words(at(t * W + c), x) };
        });
        sync_threads();
        if ti <= tj {
            for r in group * GROUP_ROWS..(group + 1) * GROUP_ROWS {
                let mut a = [T::ZERO; TILE];
                let mut b = [T::ZERO; TILE];
                unroll!(x in 0..TILE => {
                    // SAFETY: staged above (rows past m are zeros).
                    unsafe {
                        a[x] = ld_shared_words::<T>(at(r * W + ti * TILE + x));
                        b[x] = ld_shared_words::<T>(at(r * W + tj * TILE + x));
                    }
                });
                unroll!(x in 0..TILE => {
                    unroll!(y in 0..TILE => {
                        acc[x][y] = acc[x][y].add(a[x].conj().mul(b[y]));
                    });
                });
            }
        }
        // The next chunk's rows overwrite the staged ones.
        sync_threads();
        chunk += blocks;
    }

    // 2. The block's partial Gram matrix: the groups' tiles added in group order.
    unroll!(x in 0..TILE => {
        unroll!(y in 0..TILE => {
            // SAFETY: slot (group, tile, x, y) of GROUPS * W * W elements, the size of
            // the staged rows.
            unsafe { st_shared_words(at(((group * SIDE * SIDE + tile) * TILE + x) * TILE + y), acc[x][y]) };
        });
    });
    sync_threads();
    let mut e = t;
    while e < W * W {
        let (i, j) = (e / W, e % W);
        let slot = ((i / TILE) * SIDE + j / TILE) * TILE * TILE + (i % TILE) * TILE + j % TILE;
        let mut s = T::ZERO;
        for g in 0..GROUPS {
            // SAFETY: stored above.
            s = s.add(unsafe { ld_shared_words::<T>(at(g * W * W + slot)) });
        }
        // SAFETY: this block's partial, element e.
        unsafe { *partials.add(blk * W * W + e) = s };
        e += nt;
    }

    // 3. The last block to arrive adds the partials in block order.
    sync_threads();
    if t == 0 {
        let old: u32;
        // SAFETY: the matrix's counter (zeroed scratch). The release orders this
        // block's partials (seen by this thread through the barrier) before the
        // arrival; the acquire, the other blocks' partials before the reads below
        // (as `gpu_grid::grid_sync`).
        unsafe {
            asm!("atom.acq_rel.gpu.global.add.u32 {o}, [{p}], 1;", o = out(reg32) old,
                 p = in(reg64) counter, options(nostack));
            st_shared_words(smem_addr(flag), (old + 1 == blocks as u32) as u32);
        }
    }
    sync_threads();
    // SAFETY: stored above.
    if unsafe { ld_shared_words::<u32>(smem_addr(flag)) } == 0 {
        return;
    }
    let mut e = t;
    while e < W * W {
        let (i, j) = (e / W, e % W);
        if i < k && j < k {
            let mut s = T::ZERO;
            if i < j {
                for b in 0..blocks {
                    // SAFETY: block b's partial; volatile: no stale L1 line.
                    s = s.add(unsafe { read_volatile(partials.add(b * W * W + e)) });
                }
            }
            // SAFETY: i, j < k. (tau from memory: a run-time index into the register
            // copy would put it on the stack.)
            unsafe { *mt.add(i * ldm + j) = ut_m(i, j, s, *tau_p.add(i)) };
        }
        e += nt;
    }
}

crate::for_each_dense_type!(typed_entries, "qr_ut", UtArgs);
