//! Triangular solves `op(T) X = B` for one triangle of order at most 128 and many
//! columns of `B`: the diagonal blocks of the blocked LU, Cholesky and triangular
//! solves (`py/python/gpupy/linalg/_decomp.py`). The meaning is `dense::trsm`'s
//! (CPU-tested); this is a faster engine for it when `B` is wide.
//!
//! The block team of `dense::trsm` needs two barriers per row of `X`, which made a
//! 128-row solve cost about 70 us whatever its width. Here a warp owns `COLS` columns
//! of `B` and keeps them in registers, row `r * 32 + lane` in slot `r`: a step takes
//! row `j`'s value from its lane by a shuffle and updates the rows still to come, with
//! no barrier at all. The block only shares `op(T)`, staged once in shared memory as
//! `S[j][i] = op(T)[i][j]` (the diagonal inverted), so that the lanes of a step read one contiguous row of `S`.

use super::dense::args::{DenseArgs, TRSM_WARP_COLS as COLS, TRSM_WARP_SLOTS as SLOTS, flag};
use super::scalar::Scalar;
use crate::dtype::{c64, c128};
use crate::gpu::{
    block_dim, block_idx, block_idx_y, shfl_idx_words, smem_generic, sync_threads, thread_idx,
    unroll,
};

/// # Safety
/// The host's launch (`host/src/ops/linalg/dense.rs`, `trsm`): `n <= 32 * SLOTS`,
/// `n * n` elements of shared memory, `blockIdx.x` numbering groups of
/// `COLS * warps` columns of `b`, matrix `first + blockIdx.y`.
#[inline(always)]
unsafe fn run<T: Scalar>(p: DenseArgs) {
    let (n, k) = (p.n as usize, p.k as usize);
    let matrix = (p.first + block_idx_y()) as usize;
    let (lane, warp, warps) = (
        (thread_idx() % 32) as usize,
        (thread_idx() / 32) as usize,
        (block_dim() / 32) as usize,
    );
    let trans = (p.flags >> flag::TRANS_SHIFT) & 3;
    let unit = p.flags & flag::UNIT != 0;
    // op(T) is lower triangular when exactly one of "lower" and "transposed" holds.
    let forward = (p.flags & flag::LOWER != 0) == (trans == 0);
    let s = smem_generic(0).cast::<T>();
    // SAFETY (staging): (i, j) inside T's n x n and S's n * n elements. A warp reads
    // rows of T with its lanes (coalesced), 4 rows of up to 128 columns at a time:
    // 16 loads in flight per lane, where one at a time left the staging bound by
    // the latency of each.
    unsafe {
        let t = (p.a as *const T).add(matrix * p.a_batch as usize);
        let ld = p.lda as usize;
        let mut i0 = warp;
        while i0 < n {
            let mut v = [[T::ZERO; SLOTS]; 4];
            unroll!(q in 0..4 => {
                let i = i0 + q * warps;
                unroll!(r in 0..SLOTS => {
                    let j = r * 32 + lane;
                    if i < n && j < n {
                        v[q][r] = *t.add(i * ld + j);
                    }
                });
            });
            unroll!(q in 0..4 => {
                let i = i0 + q * warps;
                unroll!(r in 0..SLOTS => {
                    let j = r * 32 + lane;
                    if i < n && j < n {
                        // S[j][i] = op(T)[i][j]: T[i][j] untransposed, else T[j][i];
                        // the diagonal as its reciprocal (a step multiplies by it, as
                        // OpenBLAS's trsm does).
                        let x = if trans == 2 { v[q][r].conj() } else { v[q][r] };
                        let x = if i == j && !unit { T::ONE.div(x) } else { x };
                        *s.add(if trans == 0 { j * n + i } else { i * n + j }) = x;
                    }
                });
            });
            i0 += 4 * warps;
        }
    }
    sync_threads();
    let c0 = (block_idx() as usize * warps + warp) * COLS;
    if c0 >= k {
        return;
    }
    // SAFETY: columns c0 .. c0 + COLS (those below k) of matrix `matrix` of b.
    let b = unsafe { (p.b as *mut T).add(matrix * p.b_batch as usize + c0) };
    let ldb = p.ldb as usize;
    let live = |c: usize| c0 + c < k;
    let mut v = [[T::ZERO; SLOTS]; COLS];
    unroll!(r in 0..SLOTS => {
        let row = r * 32 + lane;
        if row < n {
            unroll!(c in 0..COLS => {
                if live(c) {
                    // SAFETY: row < n, column c0 + c < k.
                    v[c][r] = unsafe { *b.add(row * ldb + c) };
                }
            });
        }
    });
    // op(T)[i][j] for a row i < n of this lane.
    // SAFETY: i, j < n.
    let el = |j: usize, i: usize| unsafe { *s.add(j * n + i) };
    let step = |v: &mut [[T; SLOTS]; COLS], rb: usize, l: usize| {
        let j = rb * 32 + l;
        let mut x = [T::ZERO; COLS];
        unroll!(c in 0..COLS => { x[c] = shfl_idx_words(v[c][rb], l as u32); });
        if !unit {
            let d = el(j, j);
            unroll!(c in 0..COLS => { x[c] = x[c].mul(d); });
            if lane == l {
                unroll!(c in 0..COLS => { v[c][rb] = x[c]; });
            }
        }
        // Row j out of the rows still to come: below it forward, above it backward.
        unroll!(r in 0..SLOTS => {
            let row = r * 32 + lane;
            let later = if forward { r >= rb && row > j && row < n } else { r <= rb && row < j };
            if later {
                let t = el(j, row);
                unroll!(c in 0..COLS => { v[c][r] = v[c][r].sub(t.mul(x[c])); });
            }
        });
    };
    if forward {
        unroll!(rb in 0..SLOTS => {
            for l in 0..n.saturating_sub(rb * 32).min(32) {
                step(&mut v, rb, l);
            }
        });
    } else {
        unroll!(q in 0..SLOTS => {
            let rb = SLOTS - 1 - q;
            for l in (0..n.saturating_sub(rb * 32).min(32)).rev() {
                step(&mut v, rb, l);
            }
        });
    }
    unroll!(r in 0..SLOTS => {
        let row = r * 32 + lane;
        if row < n {
            unroll!(c in 0..COLS => {
                if live(c) {
                    // SAFETY: as for the loads.
                    unsafe { *b.add(row * ldb + c) = v[c][r] };
                }
            });
        }
    });
}

crate::for_each_dense_type!(typed_entries, "trsm_warp", DenseArgs);
