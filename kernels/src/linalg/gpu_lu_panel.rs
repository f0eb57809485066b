//! LU panels of the blocked LU spread over the whole GPU: `dense::getrf` (CPU-tested)
//! on an `m x n` panel (`n <= LU_PANEL_COLS`) of a large matrix, whole rows swapped.
//!
//! One block factoring a 4096 x 16 panel spent about 370 us on it (a trace of
//! `solve`, float64, n = 4096): every column step streams the panel through one SM's
//! path to L2, so the time grew with the panel's rows, and panels took 50 of the 64 ms
//! of the solve. Here every thread owns one row of the panel, in registers, and the
//! blocks of a cooperative launch (all resident at once) work on their rows together.
//! A column step needs the whole grid once, for the pivot:
//!
//! 1. each block finds its best candidate row (the first largest `|re| + |im|`, as
//!    LAPACK's `i?amax`), and its owner publishes it, with the value of the key and the
//!    row's elements, in a record in global memory; the owner of row `j` publishes row
//!    `j` too;
//! 2. a grid barrier (one counter per matrix, counted up, never reset within a launch);
//! 3. every block copies all the records into its shared memory (one trip to L2),
//!    picks the same winner from them (the same order of comparisons everywhere) and
//!    takes the pivot row and row `j` from the copy; the two owners exchange their rows,
//!    and every thread below `j` scales and updates its own row with no further
//!    communication.
//!
//! Records alternate between two sets by the parity of the step: a block writes set
//! `j + 1` while a slower one may still read set `j`, and set `j` is written again only
//! after every block has passed the barrier of step `j + 1`. The elements left and right
//! of the panel (`left`, `right` per row) are interchanged at the end, a column per
//! thread over the whole grid, with the pivots every block kept.

use super::dense::args::{LU_PANEL_COLS as W, PanelArgs, SCRATCH_BYTES};
use super::gpu_grid::{Panel, copy_records, grid_sync};
// The shared layout below adds up to `args::lu_panel_shared`.
use super::scalar::Scalar;
use crate::dtype::{c64, c128};
use crate::gpu::{
    block_dim, ld_shared_words, shfl_idx_words, shfl_xor_words, smem_addr, st_shared_words,
    sync_threads, thread_idx, unroll,
};

/// A block's pivot candidate (or row `j`) for the others to read.
#[repr(C)]
pub struct Record<T> {
    /// The candidate's `Code` (`code`: its key; `idx`: its row).
    code: u64,
    idx: u32,
    _pad: u32,
    row: [T; W],
}

/// Where the kernel's shared memory holds what (byte offsets): the block reduction's
/// slots (`SCRATCH_BYTES`), a copy of a step's `records` records, the pivots and the
/// interchanges' plan (adding up to `args::lu_panel_shared`).
struct Layout {
    red: u32,
    records: u32,
    record: u32,
    piv: u32,
    plan: u32,
}

impl Layout {
    #[inline(always)]
    fn new<T>(records: usize) -> Layout {
        let record = size_of::<Record<T>>() as u32;
        let at = SCRATCH_BYTES;
        let piv = at + records as u32 * record;
        Layout {
            red: 0,
            records: at,
            record,
            piv,
            plan: piv + 4 * W as u32,
        }
    }
    /// Record `q`'s code (then its index, then its row).
    #[inline(always)]
    fn key(&self, q: usize) -> u32 {
        self.records + q as u32 * self.record
    }
    /// Element `c` of record `q`'s row.
    #[inline(always)]
    fn el<T>(&self, q: usize, c: usize) -> u32 {
        self.key(q) + 16 + (c * size_of::<T>()) as u32
    }
}

/// A pivot candidate: `code` orders the keys as `Team::argmax` does (no row 0, a NaN
/// key 1, a key `x >= 0` its bits plus 2: the bits of non-negative floats are in
/// their order), `idx` its row.
#[derive(Clone, Copy)]
struct Code {
    code: u64,
    idx: u32,
}

impl Code {
    #[inline(always)]
    fn new(key: Option<f64>, idx: u32) -> Code {
        let code = match key {
            None => 0,
            Some(x) if x.is_nan() => 1,
            Some(x) => x.to_bits() + 2,
        };
        Code { code, idx }
    }
}

impl Code {
    /// The larger code, the smaller row among equal codes: a total order, so a
    /// butterfly gives every lane the same.
    #[inline(always)]
    fn best(self, o: Code) -> Code {
        if o.code > self.code || (o.code == self.code && o.idx < self.idx) {
            o
        } else {
            self
        }
    }
}

/// The warp's best candidate on every lane (the first largest key, as `i?amax`): a
/// butterfly on three words (the `Slot` of `gpu_dense`, a float and a padded index,
/// took four, and float comparisons).
#[inline(always)]
fn warp_best(mut c: Code) -> Code {
    let mut d = 16;
    while d > 0 {
        let o = Code {
            code: shfl_xor_words(c.code, d),
            idx: shfl_xor_words(c.idx, d),
        };
        c = c.best(o);
        d /= 2;
    }
    c
}

/// The block's best candidate on every thread, through 32 slots at shared `at`: one
/// barrier, then every warp combines the warps' bests itself. Callers put a barrier
/// between two calls (the slots are written again).
#[inline(always)]
fn block_best(c: Code, at: u32) -> Code {
    let c = warp_best(c);
    let (lane, warp) = (thread_idx() % 32, thread_idx() / 32);
    if lane == 0 {
        // SAFETY: warp < 32 slots of 16 bytes at `at`.
        unsafe {
            st_shared_words(smem_addr(at + 16 * warp), c.code);
            st_shared_words(smem_addr(at + 16 * warp + 8), c.idx);
        }
    }
    sync_threads();
    let mine = if lane < block_dim() / 32 {
        // SAFETY: stored before the barrier.
        unsafe {
            Code {
                code: ld_shared_words(smem_addr(at + 16 * lane)),
                idx: ld_shared_words(smem_addr(at + 16 * lane + 8)),
            }
        }
    } else {
        NONE
    };
    warp_best(mine)
}

/// No candidate: loses to every row.
const NONE: Code = Code {
    code: 0,
    idx: u32::MAX,
};

/// # Safety
/// The host's launch (`host/src/ops/linalg/grid.rs`, `lu_panel`): a cooperative grid
/// of at least `ceil(m / blockDim.x)` blocks in x (whole warps; later blocks own no
/// rows and help with the interchanges) and one matrix per `blockIdx.y`; `n <= W`;
/// `scratch` zeroed, with a counter per matrix and `2 * (gridDim.x + 1)` records per
/// matrix at byte `records`; `lu_panel_shared(gridDim.x, size_of::<T>())` of dynamic
/// shared memory.
#[inline(always)]
unsafe fn run<T: Scalar>(p: PanelArgs) {
    // SAFETY: the launch's contract above.
    let pn = unsafe {
        Panel::<T, Record<T>>::new(p.a, p.lda, p.a_batch, p.scratch, p.records, p.m, p.n)
    };
    let (g, blk, nt, tid) = (pn.blocks, pn.block, pn.threads, pn.tid);
    let (m, n, row, mine, matrix) = (pn.m, pn.n, pn.row, pn.mine, pn.matrix);
    let (a, ld, counter) = (pn.a, pn.ld, pn.counter);
    let k = m.min(n);
    let sh = Layout::new::<T>(g + 1);
    // SAFETY (shared accesses below): offsets inside `lu_panel_shared(g, size)`.
    let ld_el = |q: usize, c: usize| unsafe { ld_shared_words::<T>(smem_addr(sh.el::<T>(q, c))) };

    let mut v = pn.load_row();
    let mut info = 0u32;
    // The steps written out, so that every index into the row is a constant. (A loop
    // at run time, picking the row's element j by a chain of selects, measured 63 us
    // per 4096 x 16 float64 panel against 58.5.)
    unroll!(j in 0..W => {
        if j < k {
            // 1. This block's candidate; its owner and row j's owner publish.
            let live = mine && row >= j;
            let own = Code::new(live.then(|| v[j].abs1()), row as u32);
            let own = if live { own } else { NONE };
            let best = block_best(own, sh.red);
            let set = pn.set(j);
            let publish = |r: *mut Record<T>, code: u64, idx: u32, v: &[T; W]| {
                // SAFETY: a record of this matrix's scratch, written by this thread
                // alone in this step.
                unsafe {
                    (*r).code = code;
                    (*r).idx = idx;
                    unroll!(c in 0..W => { if c < n { (*r).row[c] = v[c]; } });
                }
            };
            if best.idx == u32::MAX {
                if tid == 0 {
                    // SAFETY: this block's record.
                    publish(unsafe { set.add(blk) }, 0, u32::MAX, &v);
                }
            } else if live && best.idx == row as u32 {
                // SAFETY: as above.
                publish(unsafe { set.add(blk) }, best.code, best.idx, &v);
            }
            if mine && row == j {
                // SAFETY: the row-j record.
                publish(unsafe { set.add(g) }, 0, row as u32, &v);
            }
            // 2. Every block's records are out.
            // SAFETY: every block runs the same steps (k is the same for all).
            unsafe { grid_sync(counter, j as u32) };
            // 3. Every record into shared memory at once (one trip to L2, where
            // reading the keys first and then the winner's row took two).
            let words = sh.record as usize / 8;
            // SAFETY: this step's g + 1 records, and their copy in shared memory.
            unsafe { copy_records(set as *const u64, g + 1, words, words, sh.records) };
            // The same winner everywhere, every warp on its own (no barrier): a lane
            // per block's best, then the warp's best.
            let lane = tid % 32;
            let mut best = NONE;
            let mut q = lane;
            while q < g {
                // SAFETY: copied above.
                let c = unsafe {
                    Code {
                        code: ld_shared_words(smem_addr(sh.key(q))),
                        idx: ld_shared_words(smem_addr(sh.key(q) + 8)),
                    }
                };
                best = best.best(c);
                q += 32;
            }
            let pv = warp_best(best).idx as usize;
            // pv < m: the block of row j has a candidate; its record is pv / nt.
            let (wq, jq) = (pv / nt, g);
            if blk == 0 && tid == 0 {
                // SAFETY: piv holds min(m, n) entries for this matrix.
                unsafe {
                    *(p.piv as *mut i32).add(matrix * p.piv_batch as usize + j) =
                        (pv + p.piv_base as usize) as i32
                };
            }
            if tid == 0 {
                // SAFETY: j < W pivots; read after the barriers at the end.
                unsafe { st_shared_words(smem_addr(sh.piv + 4 * j as u32), pv as u32) };
            }
            if pv != j && mine && (row == j || row == pv) {
                let from = if row == j { wq } else { jq };
                unroll!(c in 0..W => { if c < n { v[c] = ld_el(from, c); } });
            }
            let d = ld_el(wq, j);
            if d == T::ZERO {
                // The column below is zero too (d has the largest magnitude).
                if info == 0 {
                    info = j as u32 + 1;
                }
            } else if mine && row > j {
                let l = v[j].div(d);
                v[j] = l;
                unroll!(c in 0..W => {
                    if c > j && c < n {
                        v[c] = v[c].sub(l.mul(ld_el(wq, c)));
                    }
                });
            }
        }
    });
    if mine {
        unroll!(c in 0..W => {
            if c < n {
                // SAFETY: as for the loads.
                unsafe { *a.add(row * ld + c) = v[c] };
            }
        });
    }
    // SAFETY: the pivots were stored before the barriers of the last step.
    unsafe { interchange(a, ld, &p, &sh, k, n, g * nt, blk * nt + tid) };
    if blk == 0 && tid == 0 {
        // SAFETY: info holds one entry per matrix.
        unsafe { *(p.info as *mut u32).add(matrix) = info };
    }
}

/// The panel's `k` interchanges on the rest of each row (`left` elements before and
/// `right` after the panel's), no block touches them otherwise: a column per thread of
/// the grid (`threads`, this one `me`). Applied one after another the swaps would be a
/// chain of dependent loads per column; instead they are composed first into a plan
/// (which rows move where), so a column loads its at most `2k` moving rows at once and
/// stores them in their places.
///
/// # Safety
/// The pivots of the `k` steps in shared memory (`sh.piv`), every thread calls, the
/// elements around each row inside the matrix (checked by the host).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn interchange<T: Scalar>(
    a: *mut T,
    ld: usize,
    p: &PanelArgs,
    sh: &Layout,
    k: usize,
    n: usize,
    threads: usize,
    me: usize,
) {
    let (left, right) = (p.left as usize, p.right as usize);
    if left + right == 0 {
        return;
    }
    // SAFETY (shared accesses): the pivots and the plan's 2 * 2W words.
    let piv = |j: usize| unsafe { ld_shared_words::<u32>(smem_addr(sh.piv + 4 * j as u32)) };
    let row_at = |s: usize| sh.plan + 4 * s as u32;
    let dest_at = |s: usize| sh.plan + 4 * (2 * W + s) as u32;
    // Warp 0 makes the plan, a lane per slot: row j (j < k) in slot j; a pivot row
    // p_j >= k in slot W + j when no earlier step names it (else the slot is unused).
    if thread_idx() < 32 {
        let lane = thread_idx() as usize;
        let first_step = |r: u32| (0..k).find(|&i| piv(i) == r).unwrap_or(0);
        // The slot of step `lane`'s pivot row.
        let pslot = if lane < k {
            let pj = piv(lane);
            if (pj as usize) < k {
                pj as usize
            } else {
                W + first_step(pj)
            }
        } else {
            0
        };
        let r = if lane < k {
            lane as u32
        } else if lane >= W && lane - W < k {
            let pj = piv(lane - W);
            if pj as usize >= k && first_step(pj) == lane - W {
                pj
            } else {
                u32::MAX
            }
        } else {
            u32::MAX
        };
        // Which slot's original content each slot holds after the swaps in order.
        let mut content = lane as u32;
        for j in 0..k {
            let ps = shfl_idx_words(pslot as u32, j as u32) as usize;
            if ps != j {
                let src = if lane == j {
                    ps
                } else if lane == ps {
                    j
                } else {
                    lane
                };
                content = shfl_idx_words(content, src as u32);
            }
        }
        // SAFETY: plan slots `lane` and `content` (both below 2W = 32).
        unsafe {
            st_shared_words(smem_addr(row_at(lane)), r);
            // Slot `content`'s original goes to this slot's row.
            st_shared_words(smem_addr(dest_at(content as usize)), lane as u32);
        }
    }
    sync_threads();
    let row_of = |s: usize| unsafe { ld_shared_words::<u32>(smem_addr(row_at(s))) };
    let dest = |s: usize| unsafe { ld_shared_words::<u32>(smem_addr(dest_at(s))) } as usize;
    let mut c = me;
    while c < left + right {
        // The column's offset from the first element left of the panel.
        let off = if c < left { c } else { c + n };
        // SAFETY: `left` elements before and `right` after each of the m rows.
        let at = |r: u32| unsafe { a.add(r as usize * ld).sub(left).add(off) };
        let mut x = [[T::ZERO; W]; 2];
        unroll!(h in 0..2 => {
            unroll!(i in 0..W => {
                let r = row_of(h * W + i);
                if r != u32::MAX {
                    // SAFETY: a row of the panel, per `at`.
                    x[h][i] = unsafe { *at(r) };
                }
            });
        });
        unroll!(h in 0..2 => {
            unroll!(i in 0..W => {
                if row_of(h * W + i) != u32::MAX {
                    // SAFETY: as above; the destination slot is a used one.
                    unsafe { *at(row_of(dest(h * W + i))) = x[h][i] };
                }
            });
        });
        c += threads;
    }
}

crate::for_each_dense_type!(typed_entries, "lu_panel", PanelArgs);
