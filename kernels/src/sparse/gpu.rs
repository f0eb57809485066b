//! The sparse kernels (see the module comment). Row-wise kernels give each row a group
//! of `lanes` threads; the groups of a warp walk their rows in step (`warp_rows`), so
//! the shuffles that combine a group's lanes always find all 32 lanes of the warp.

use core::arch::asm;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::hash::{Key, RANK_TABLE_MAX, Slots, insert, lane_pairs, rank, table_size};
use super::merge::{Divide, merge_rows};
use super::merge_path::{
    MERGE_ITEMS, MERGE_THREADS, MERGE_TILE, block_carry, consume, fixup, lookback, merge_layout,
    search,
};
use super::rows::{NO_POSITION, SEG_SUM, combine};
use super::value::{Index, Value, row_range};
use super::{
    Merge2, Sp, Spgemm, VALID_DECREASING, VALID_DUPLICATE, VALID_LAST_OVER, VALID_NEGATIVE,
    VALID_START, VALID_TOO_LARGE, VALID_UNSORTED,
};
use crate::dtype::{c64, c128};
use crate::gpu::{
    Shared, block_idx, grid_stride, ld_shared_words, shfl_down_words, shfl_xor_words, smem_addr,
    smem_generic, st_shared_words, sync_threads, thread_idx,
};

// ---------------------------------------------------------------------------------------
// Device helpers

/// Values that global (and shared, through generic addresses) memory can add to
/// atomically: a complex value is two atomic adds, one per part.
trait AtomicAdd: Value {
    /// # Safety
    /// `p` is an aligned address of a `Self` only accessed atomically while the kernel
    /// runs (global memory, or shared memory through a generic address).
    unsafe fn atomic_add(p: *mut Self, v: Self);
}

/// `red.add` on a generic address.
macro_rules! red_add {
    ($name:ident, $t:ident, $reg:ident, $ty:literal) => {
        /// # Safety
        /// As `AtomicAdd::atomic_add`.
        #[inline(always)]
        unsafe fn $name(p: *mut $t, v: $t) {
            // SAFETY: per the contract.
            unsafe {
                asm!(concat!("red.add.", $ty, " [{a}], {v};"), a = in(reg64) p, v = in($reg) v,
                     options(nostack))
            }
        }
    };
}
red_add!(red_f32, f32, reg32, "f32");
red_add!(red_f64, f64, reg64, "f64");

impl AtomicAdd for f32 {
    #[inline(always)]
    unsafe fn atomic_add(p: *mut f32, v: f32) {
        // SAFETY: per the contract.
        unsafe { red_f32(p, v) }
    }
}
impl AtomicAdd for f64 {
    #[inline(always)]
    unsafe fn atomic_add(p: *mut f64, v: f64) {
        // SAFETY: per the contract.
        unsafe { red_f64(p, v) }
    }
}
impl AtomicAdd for c64 {
    #[inline(always)]
    unsafe fn atomic_add(p: *mut c64, v: c64) {
        let q = p.cast::<f32>();
        // SAFETY: per the contract; the parts are the struct's two f32 fields.
        unsafe {
            red_f32(q, v.re);
            red_f32(q.add(1), v.im);
        }
    }
}
impl AtomicAdd for c128 {
    #[inline(always)]
    unsafe fn atomic_add(p: *mut c128, v: c128) {
        let q = p.cast::<f64>();
        // SAFETY: per the contract; the parts are the struct's two f64 fields.
        unsafe {
            red_f64(q, v.re);
            red_f64(q.add(1), v.im);
        }
    }
}

/// `bar.warp.sync`: the warp's lanes meet, and their memory accesses before it are
/// visible to each other after it. Every lane must reach it.
#[inline(always)]
fn sync_warp() {
    // SAFETY: a warp barrier; callers reach it from warp-uniform control flow.
    unsafe { asm!("bar.warp.sync 0xffffffff;", options(nostack)) }
}

/// The lanes of the warp for which `p` holds (`vote.sync.ballot`). Every lane must call.
#[inline(always)]
fn ballot(p: bool) -> u32 {
    let r: u32;
    // SAFETY: register-only warp vote with all lanes taking part.
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {f}, 0; vote.sync.ballot.b32 {r}, p, 0xffffffff; }}",
             f = in(reg32) p as u32, r = out(reg32) r, options(nostack, nomem))
    };
    r
}

/// The lanes below this one (`%lanemask_lt`).
#[inline(always)]
fn lanes_below() -> u32 {
    let r: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {r}, %lanemask_lt;", r = out(reg32) r, options(pure, nomem, nostack)) };
    r
}

/// Walks rows by groups of `lanes` threads, warps in step: calls `each(row, sub)` with
/// this thread's row (`None` past the last row, so that the caller still takes part in
/// its group's shuffles) and its lane in the group. The block size is a multiple of 32.
#[inline(always)]
fn warp_rows(rows: u64, lanes: u64, mut each: impl FnMut(Option<u64>, u64)) {
    let (gid, threads) = grid_stride();
    let lane = gid % 32;
    let (sub, group) = (lane % lanes, lane / lanes);
    let per_warp = 32 / lanes;
    let step = threads / 32 * per_warp;
    // Every lane of a warp has the same `base`: the loop is warp-uniform.
    let mut base = gid / 32 * per_warp;
    while base < rows {
        let r = base + group;
        each((r < rows).then_some(r), sub);
        base += step;
    }
}

/// Walks rows by groups of `lanes` threads with no shuffles: `each(row, sub)`.
#[inline(always)]
fn group_rows(rows: u64, lanes: u64, mut each: impl FnMut(u64, u64)) {
    let (gid, threads) = grid_stride();
    let sub = gid % lanes;
    let step = threads / lanes;
    let mut r = gid / lanes;
    while r < rows {
        each(r, sub);
        r += step;
    }
}

/// Sums `v` over each group of `lanes` lanes (a butterfly: every lane gets the sum).
#[inline(always)]
fn group_sum<V: Value>(mut v: V, lanes: u64) -> V {
    let mut off = lanes / 2;
    while off > 0 {
        v = v.add(shfl_xor_words(v, off as u32));
        off /= 2;
    }
    v
}

// ---------------------------------------------------------------------------------------
// SpMV and SpMM

/// `y = A x` by groups of `a.lanes` lanes per row.
///
/// # Safety
/// `indptr` holds `a.rows + 1` indices, `indices` and `data` `a.nnz` entries, `x`
/// `a.cols` values, `y` `a.rows`; `a.lanes` is a power of two up to 32; the block size
/// is a multiple of 32.
#[inline(always)]
unsafe fn spmv_lanes<V: Value, I: Index>(
    a: &Sp,
    indptr: *const I,
    indices: *const I,
    data: *const V,
    x: *const V,
    y: *mut V,
) {
    let lanes = a.lanes as u64;
    warp_rows(a.rows, lanes, |row, sub| {
        let mut acc = V::ZERO;
        if let Some(r) = row {
            // SAFETY: r < rows; entries below nnz; valid columns below cols.
            unsafe {
                let (s, e) = row_range(indptr, r, a.nnz);
                let mut p = s + sub;
                while p < e {
                    if let Some(c) = (*indices.add(p as usize)).column(a.cols) {
                        acc = V::mul_add(*data.add(p as usize), *x.add(c as usize), acc);
                    }
                    p += lanes;
                }
            }
        }
        let acc = group_sum(acc, lanes);
        if let Some(r) = row
            && sub == 0
        {
            // SAFETY: r < rows.
            unsafe { *y.add(r as usize) = acc };
        }
    });
}

/// `y = A x` by merge path, one tile of `MERGE_TILE` merge steps per block: see
/// `merge_path::spmv_blocks`, which this follows step for step. Block `b` leaves its
/// carry in `carry_rows[b]`, `carry_vals[b]` for `spmv_fixup`.
///
/// # Safety
/// As `spmv_lanes`, and: the grid has `ceil((rows + nnz) / MERGE_TILE)` blocks of
/// `MERGE_THREADS` threads and `merge_shared_bytes(size_of V)` bytes of shared memory;
/// `carry_rows`, `carry_vals` hold one slot per block.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn spmv_merge<V: Value, I: Index>(
    a: &Sp,
    indptr: *const I,
    indices: *const I,
    data: *const V,
    x: *const V,
    y: *mut V,
    carry_rows: *mut u64,
    carry_vals: *mut V,
) {
    let vbytes = core::mem::size_of::<V>() as u32;
    let [coords, ends, prods, crow, cval] = merge_layout(vbytes);
    let (t, b) = (thread_idx() as u64, block_idx() as u64);
    let (rows, nnz) = (a.rows, a.nnz);
    let total = rows + nnz;
    // SAFETY (all closures): r < rows reads indptr[r + 1], inside its rows + 1.
    let end = |r: u64| {
        let e = unsafe { (*indptr.add(r as usize + 1)).bound() };
        if e < nnz { e } else { nnz }
    };
    let (d0, d1) = (b * MERGE_TILE, ((b + 1) * MERGE_TILE).min(total));
    if t < 2 {
        let (i, j) = search(if t == 0 { d0 } else { d1 }, rows, 0, nnz, end);
        // SAFETY: the four coordinate words are inside the launch's shared size.
        unsafe {
            u64::st_shared(smem_addr(coords + 16 * t as u32), i);
            u64::st_shared(smem_addr(coords + 16 * t as u32 + 8), j);
        }
    }
    sync_threads();
    // SAFETY: as above.
    let (i0, j0, i1, j1) = unsafe {
        (
            u64::ld_shared(smem_addr(coords)),
            u64::ld_shared(smem_addr(coords + 8)),
            u64::ld_shared(smem_addr(coords + 16)),
            u64::ld_shared(smem_addr(coords + 24)),
        )
    };
    // A corrupt indptr (not non-decreasing) can make the splits cross; an empty tile
    // then keeps every access below inside the staged arrays.
    let (i1, j1) = if i1 >= i0 && j1 >= j0 {
        (i1, j1)
    } else {
        (i0, j0)
    };
    // Stage the row ends of rows i0..=i1 (those below rows) and the products j0..j1: a
    // tile holds i1 - i0 row ends and j1 - j0 entries, MERGE_TILE steps in all.
    let nends = if i0 < rows {
        (i1 + 1).min(rows) - i0
    } else {
        0
    };
    let mut k = t;
    while k < nends {
        // SAFETY: k <= i1 - i0 <= MERGE_TILE slots of ends.
        unsafe { u64::st_shared(smem_addr(ends + 8 * k as u32), end(i0 + k)) };
        k += MERGE_THREADS as u64;
    }
    let mut k = t;
    while k < j1 - j0 {
        let p = j0 + k;
        // SAFETY: p < j1 <= nnz; a valid column is below cols; k < MERGE_TILE slots.
        unsafe {
            let v = match (*indices.add(p as usize)).column(a.cols) {
                Some(c) => (*data.add(p as usize)).mul(*x.add(c as usize)),
                None => V::ZERO,
            };
            st_shared_words(smem_addr(prods + vbytes * k as u32), v);
        }
        k += MERGE_THREADS as u64;
    }
    sync_threads();
    // SAFETY (closures): rows i0..i0 + nends and products j0..j1 were staged above.
    let local_end = |r: u64| {
        if r - i0 < nends {
            unsafe { u64::ld_shared(smem_addr(ends + 8 * (r - i0) as u32)) }
        } else {
            j1
        }
    };
    let prod =
        |j: u64| unsafe { ld_shared_words::<V>(smem_addr(prods + vbytes * (j - j0) as u32)) };
    let len = d1 - d0;
    let dl = (t * MERGE_ITEMS).min(len);
    let (ri, j) = search(dl, i1 - i0, j0, j1 - j0, |r| local_end(i0 + r));
    let mut first: Option<(u64, V)> = None;
    let (ci, _, cv) = consume(
        (i0 + ri, j),
        MERGE_ITEMS.min(len - dl),
        rows,
        j1,
        local_end,
        prod,
        |r, s| {
            if first.is_none() {
                first = Some((r, s));
            } else {
                // SAFETY: emitted rows are below rows.
                unsafe { *y.add(r as usize) = s };
            }
        },
    );
    // SAFETY: t < MERGE_THREADS slots of each carry array.
    unsafe {
        u64::st_shared(smem_addr(crow + 8 * t as u32), ci);
        st_shared_words(smem_addr(cval + vbytes * t as u32), cv);
    }
    sync_threads();
    // SAFETY: k < MERGE_THREADS.
    let carry = |k: u64| unsafe {
        (
            u64::ld_shared(smem_addr(crow + 8 * k as u32)),
            ld_shared_words::<V>(smem_addr(cval + vbytes * k as u32)),
        )
    };
    if let Some((r, s)) = first {
        // SAFETY: r < rows.
        unsafe { *y.add(r as usize) = lookback(t, r, s, carry) };
    }
    if t == MERGE_THREADS as u64 - 1 {
        let (r, s) = block_carry(MERGE_THREADS as u64, carry);
        // SAFETY: one slot per block.
        unsafe {
            *carry_rows.add(b as usize) = r;
            *carry_vals.add(b as usize) = s;
        }
    }
}

/// Adds the merge-path blocks' carries to `y` (a thread per block).
///
/// # Safety
/// `carry_rows`, `carry_vals` hold `blocks` slots written by `spmv_merge`; `y` holds
/// `rows` values.
#[inline(always)]
unsafe fn spmv_fixup<V: Value>(
    blocks: u64,
    rows: u64,
    carry_rows: *const u64,
    carry_vals: *const V,
    y: *mut V,
) {
    let (mut b, stride) = grid_stride();
    // SAFETY: k < blocks.
    let carry = |k: u64| unsafe { (*carry_rows.add(k as usize), *carry_vals.add(k as usize)) };
    while b < blocks {
        if let Some((r, s)) = fixup(b, blocks, rows, carry) {
            // SAFETY: r < rows; one thread per row (the first block of its run).
            unsafe { *y.add(r as usize) = (*y.add(r as usize)).add(s) };
        }
        b += stride;
    }
}

/// `Y = A X` for C-contiguous `X` (`cols x k`) and `Y` (`rows x k`): a group of
/// `a.lanes` lanes takes a tile of as many columns of one row of `Y`, so the group's
/// reads of a row of `X` coalesce and each entry of `A` is read once per tile.
///
/// # Safety
/// As `spmv_lanes` with `x` holding `cols * k` values and `y` `rows * k`.
#[inline(always)]
unsafe fn spmm<V: Value, I: Index>(
    a: &Sp,
    indptr: *const I,
    indices: *const I,
    data: *const V,
    x: *const V,
    y: *mut V,
) {
    let (g, k) = (a.lanes as u64, a.k);
    let tiles = k.div_ceil(g);
    group_rows(a.rows * tiles, g, |item, sub| {
        let (r, j) = (item / tiles, item % tiles * g + sub);
        if j < k {
            let mut acc = V::ZERO;
            // SAFETY: r < rows, j < k; entries below nnz; columns below cols.
            unsafe {
                let (s, e) = row_range(indptr, r, a.nnz);
                for p in s..e {
                    if let Some(c) = (*indices.add(p as usize)).column(a.cols) {
                        acc = V::mul_add(*data.add(p as usize), *x.add((c * k + j) as usize), acc);
                    }
                }
                *y.add((r * k + j) as usize) = acc;
            }
        }
    });
}

/// `Y += A^T X` for C-contiguous `X` (`rows x k`) and zeroed `Y` (`cols x k`), by
/// atomic adds: lanes per row of `A` over its entries.
///
/// # Safety
/// As `spmv_lanes` with `x` holding `rows * k` values and `y` `cols * k`, accessed only
/// atomically while the kernel runs.
#[inline(always)]
unsafe fn spmm_t<V: AtomicAdd, I: Index>(
    a: &Sp,
    indptr: *const I,
    indices: *const I,
    data: *const V,
    x: *const V,
    y: *mut V,
) {
    let (lanes, k) = (a.lanes as u64, a.k);
    group_rows(a.rows, lanes, |r, sub| {
        // SAFETY: r < rows; entries below nnz; columns below cols.
        unsafe {
            let (s, e) = row_range(indptr, r, a.nnz);
            let mut p = s + sub;
            while p < e {
                if let Some(c) = (*indices.add(p as usize)).column(a.cols) {
                    let d = *data.add(p as usize);
                    for j in 0..k {
                        V::atomic_add(
                            y.add((c * k + j) as usize),
                            d.mul(*x.add((r * k + j) as usize)),
                        );
                    }
                }
                p += lanes;
            }
        }
    });
}

// ---------------------------------------------------------------------------------------
// Segments, conversions, checks

/// Over each segment `s` of `values` (`starts[s]..starts[s + 1]`, `a.rows` segments of
/// `a.nnz` values): the sum (`SEG_SUM`) or the extreme and its first position
/// (`SEG_MAX`, `SEG_MIN`) into `out_v[s]` and `out_p[s]` (-1 for an empty segment);
/// either pointer may be null.
///
/// # Safety
/// `starts` holds `rows + 1` indices, `values` `nnz` values, non-null outputs `rows`
/// slots; `a.lanes` a power of two up to 32; the block size a multiple of 32.
#[inline(always)]
unsafe fn segment<V: Value, I: Index>(
    a: &Sp,
    starts: *const I,
    values: *const V,
    out_v: *mut V,
    out_p: *mut i64,
) {
    let lanes = a.lanes as u64;
    warp_rows(a.rows, lanes, |row, sub| {
        let mut acc = (V::ZERO, NO_POSITION);
        if let Some(r) = row {
            // SAFETY: r < rows; positions below nnz.
            unsafe {
                let (s, e) = row_range(starts, r, a.nnz);
                let mut p = s + sub;
                while p < e {
                    acc = combine(a.op, acc, (*values.add(p as usize), p));
                    p += lanes;
                }
            }
        }
        let mut off = lanes / 2;
        while off > 0 {
            let other = (
                shfl_xor_words(acc.0, off as u32),
                shfl_xor_words(acc.1, off as u32),
            );
            acc = combine(a.op, acc, other);
            off /= 2;
        }
        if let (Some(r), 0) = (row, sub) {
            // SAFETY: r < rows slots of the non-null outputs.
            unsafe {
                if !out_v.is_null() {
                    *out_v.add(r as usize) = acc.0;
                }
                if !out_p.is_null() && a.op != SEG_SUM {
                    *out_p.add(r as usize) = if acc.1 == NO_POSITION {
                        -1
                    } else {
                        acc.1 as i64
                    };
                }
            }
        }
    });
}

/// `out[r * rs + c * cs] += data[p]` for each entry `p` of row `r` at column `c`
/// (zeroed `out`). With more than one lane per row the host knows the rows hold no
/// duplicates (lanes never add to one element).
///
/// # Safety
/// As `spmv_lanes`; `out` spans every `r * rs + c * cs` for `r < rows`, `c < cols`.
#[inline(always)]
unsafe fn to_dense<V: Value, I: Index>(
    a: &Sp,
    indptr: *const I,
    indices: *const I,
    data: *const V,
    out: *mut V,
    rs: i64,
    cs: i64,
) {
    let lanes = a.lanes as u64;
    group_rows(a.rows, lanes, |r, sub| {
        // SAFETY: r < rows, valid columns below cols: inside out per the contract.
        unsafe {
            let (s, e) = row_range(indptr, r, a.nnz);
            let mut p = s + sub;
            while p < e {
                if let Some(c) = (*indices.add(p as usize)).column(a.cols) {
                    let q = out.offset(r as isize * rs as isize + c as isize * cs as isize);
                    *q = (*q).add(*data.add(p as usize));
                }
                p += lanes;
            }
        }
    });
}

/// `out[p] = r` for each entry `p` of row `r`.
///
/// # Safety
/// `indptr` holds `rows + 1` indices, `out` `nnz` slots.
#[inline(always)]
unsafe fn expand_rows<I: Index>(a: &Sp, indptr: *const I, out: *mut I) {
    let lanes = a.lanes as u64;
    group_rows(a.rows, lanes, |r, sub| {
        // SAFETY: entries below nnz.
        unsafe {
            let (s, e) = row_range(indptr, r, a.nnz);
            let mut p = s + sub;
            while p < e {
                *out.add(p as usize) = I::from_u64(r);
                p += lanes;
            }
        }
    });
}

/// The format checks (`VALID_*` flags, or'ed into `out[0]`; `out[1] = indptr[rows]`):
/// SciPy's `check_format(full_check=True)` on the entries below `indptr[rows]` (SciPy
/// prunes the others), plus whether every row is sorted and free of duplicates.
///
/// # Safety
/// `indptr` holds `rows + 1` indices, `indices` `nnz`; `out` two u64, the first
/// zeroed, only accessed atomically while the kernel runs.
#[inline(always)]
unsafe fn validate<I: Index>(a: &Sp, indptr: *const I, indices: *const I, out: *mut u64) {
    let lanes = a.lanes as u64;
    // SAFETY: indptr[0] and indptr[rows] exist.
    let (first, last) = unsafe { ((*indptr).raw(), (*indptr.add(a.rows as usize)).raw()) };
    let limit = if last < 0 {
        0
    } else if last as u64 > a.nnz {
        a.nnz
    } else {
        last as u64
    };
    let mut flags = 0u64;
    if grid_stride().0 == 0 {
        flags |= if first != 0 { VALID_START } else { 0 };
        flags |= if last > a.nnz as i64 {
            VALID_LAST_OVER
        } else {
            0
        };
        // SAFETY: out holds two words; only this thread writes the second.
        unsafe { *out.add(1) = last as u64 };
    }
    group_rows(a.rows, lanes, |r, sub| {
        // SAFETY: r < rows; positions below limit <= nnz.
        unsafe {
            if sub == 0 && (*indptr.add(r as usize)).raw() > (*indptr.add(r as usize + 1)).raw() {
                flags |= VALID_DECREASING;
            }
            let (s, e) = row_range(indptr, r, limit);
            let mut p = s + sub;
            while p < e {
                let v = (*indices.add(p as usize)).raw();
                flags |= if v < 0 { VALID_NEGATIVE } else { 0 };
                flags |= if v >= a.cols as i64 {
                    VALID_TOO_LARGE
                } else {
                    0
                };
                if p + 1 < e {
                    let w = (*indices.add(p as usize + 1)).raw();
                    flags |= if v > w { VALID_UNSORTED } else { 0 };
                    flags |= if v == w { VALID_DUPLICATE } else { 0 };
                }
                p += lanes;
            }
        }
    });
    if flags != 0 {
        // SAFETY: out[0] is only accessed atomically.
        unsafe { AtomicU64::from_ptr(out).fetch_or(flags, Ordering::Relaxed) };
    }
}

/// `out[0] = max(out[0], longest row)`: a thread per row, a warp maximum, one atomic
/// per warp.
///
/// # Safety
/// `indptr` holds `rows + 1` indices; `out` one u64 only accessed atomically while the
/// kernel runs; the block size is a multiple of 32.
#[inline(always)]
unsafe fn row_max<I: Index>(a: &Sp, indptr: *const I, out: *mut u64) {
    let (mut r, stride) = grid_stride();
    let mut m = 0u64;
    while r < a.rows {
        // SAFETY: r < rows.
        let (s, e) = unsafe { row_range(indptr, r, a.nnz) };
        m = m.max(e - s);
        r += stride;
    }
    let mut d = 16;
    while d > 0 {
        m = m.max(shfl_down_words(m, d));
        d /= 2;
    }
    if thread_idx().is_multiple_of(32) && m > 0 {
        // SAFETY: out is only accessed atomically.
        unsafe { AtomicU64::from_ptr(out).fetch_max(m, Ordering::Relaxed) };
    }
}

// ---------------------------------------------------------------------------------------
// SpGEMM

/// Keys of a table as index type `I` stores columns.
trait KeyOf: Index {
    type K: Key + AtomicKey;
}
impl KeyOf for i32 {
    type K = u32;
}
impl KeyOf for i64 {
    type K = u64;
}

/// Compare-and-swap of keys at generic addresses.
trait AtomicKey: Key {
    /// # Safety
    /// `p` is an aligned key slot only accessed atomically while the table is built.
    unsafe fn cas_empty(p: *mut Self, key: Self) -> Self;
    /// # Safety
    /// As `cas_empty`.
    unsafe fn load(p: *mut Self) -> Self;
}
impl AtomicKey for u32 {
    #[inline(always)]
    unsafe fn cas_empty(p: *mut u32, key: u32) -> u32 {
        // SAFETY: per the contract.
        match unsafe { AtomicU32::from_ptr(p) }.compare_exchange(
            u32::EMPTY,
            key,
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(old) | Err(old) => old,
        }
    }
    #[inline(always)]
    unsafe fn load(p: *mut u32) -> u32 {
        // SAFETY: per the contract.
        unsafe { AtomicU32::from_ptr(p) }.load(Ordering::Relaxed)
    }
}
impl AtomicKey for u64 {
    #[inline(always)]
    unsafe fn cas_empty(p: *mut u64, key: u64) -> u64 {
        // SAFETY: per the contract.
        match unsafe { AtomicU64::from_ptr(p) }.compare_exchange(
            u64::EMPTY,
            key,
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(old) | Err(old) => old,
        }
    }
    #[inline(always)]
    unsafe fn load(p: *mut u64) -> u64 {
        // SAFETY: per the contract.
        unsafe { AtomicU64::from_ptr(p) }.load(Ordering::Relaxed)
    }
}

/// A row's table: keys (and values, for the fill pass) at generic addresses, in the
/// warp's shared memory or in global scratch.
struct Table<K, V> {
    keys: *mut K,
    vals: *mut V,
}

impl<K: AtomicKey, V: AtomicAdd> Slots<K, V> for Table<K, V> {
    #[inline(always)]
    fn claim(&self, s: u64, key: K) -> K {
        // SAFETY: s is below the table's size (insert masks it).
        unsafe { K::cas_empty(self.keys.add(s as usize), key) }
    }
    #[inline(always)]
    fn add(&self, s: u64, v: V) {
        // SAFETY: as above; a count-pass table has no values and never adds.
        unsafe { V::atomic_add(self.vals.add(s as usize), v) }
    }
    #[inline(always)]
    fn key(&self, s: u64) -> K {
        // SAFETY: as above.
        unsafe { K::load(self.keys.add(s as usize)) }
    }
    #[inline(always)]
    fn value(&self, s: u64) -> V {
        // SAFETY: as above; read after the warp's barrier, which orders the adds.
        unsafe { core::ptr::read_volatile(self.vals.add(s as usize)) }
    }
}

/// Per row of `A`: `ub[r]` its number of products, `gsize[r]` the slots of its global
/// table (0 when its table fits a warp's shared slots); `stats[0] += sum gsize`,
/// `stats[1] = max(stats[1], max ub)`. A thread per row.
///
/// # Safety
/// `a_indptr` holds `rows + 1` indices, `a_indices` `a_nnz`, `b_indptr` `inner + 1`;
/// `ub`, `gsize` `rows` slots; `stats` two u64 (zeroed) only accessed atomically.
#[inline(always)]
unsafe fn spgemm_bound<I: Index>(
    g: &Spgemm,
    a_indptr: *const I,
    a_indices: *const I,
    b_indptr: *const I,
    ub: *mut i64,
    gsize: *mut i64,
    stats: *mut u64,
) {
    let (mut r, stride) = grid_stride();
    let (mut total, mut most) = (0u64, 0u64);
    while r < g.rows {
        let mut u = 0u64;
        // SAFETY: r < rows; entries below a_nnz; valid columns below inner.
        unsafe {
            let (s, e) = row_range(a_indptr, r, g.a_nnz);
            for p in s..e {
                if let Some(c) = (*a_indices.add(p as usize)).column(g.inner) {
                    let (bs, be) = row_range(b_indptr, c, g.b_nnz);
                    u += be - bs;
                }
            }
            let size = table_size(u);
            let global = if u > 0 && size > g.warp_slots {
                size
            } else {
                0
            };
            *ub.add(r as usize) = u as i64;
            *gsize.add(r as usize) = global as i64;
            total += global;
        }
        most = most.max(u);
        r += stride;
    }
    let mut d = 16;
    while d > 0 {
        total += shfl_down_words(total, d);
        most = most.max(shfl_down_words(most, d));
        d /= 2;
    }
    if thread_idx().is_multiple_of(32) {
        // SAFETY: stats is only accessed atomically.
        unsafe {
            AtomicU64::from_ptr(stats).fetch_add(total, Ordering::Relaxed);
            AtomicU64::from_ptr(stats.add(1)).fetch_max(most, Ordering::Relaxed);
        }
    }
}

/// The table of row `r` with `u` products: (keys, values, slots), in this warp's share
/// of shared memory (`warp_slots` keys, then as many values when `gvals` is not null)
/// or at `goff[r]` in the global scratch. A null `gvals` makes a keys-only table (the
/// count pass), whose values pointer is null.
///
/// # Safety
/// The launch gives each warp `warp_slots * (size_of K + size_of V)` bytes of shared
/// memory (`warp_slots * size_of K` for a keys-only table); `goff[r]` is the offset of a
/// scratch table of `table_size(u)` slots when that exceeds `warp_slots`.
#[inline(always)]
unsafe fn row_table<K, V>(
    g: &Spgemm,
    r: u64,
    u: u64,
    goff: *const i64,
    gkeys: *mut K,
    gvals: *mut V,
) -> (Table<K, V>, u64) {
    let size = table_size(u);
    let kb = core::mem::size_of::<K>() as u64;
    let vb = if gvals.is_null() {
        0
    } else {
        core::mem::size_of::<V>() as u64
    };
    if size <= g.warp_slots {
        let warp = (thread_idx() / 32) as u64;
        let base = smem_generic((warp * g.warp_slots * (kb + vb)) as u32);
        let keys = base.cast::<K>();
        let vals = if vb == 0 {
            core::ptr::null_mut()
        } else {
            // SAFETY: the warp's share holds warp_slots keys, then warp_slots values.
            unsafe { base.add((g.warp_slots * kb) as usize) }.cast::<V>()
        };
        (Table { keys, vals }, size)
    } else {
        // SAFETY: per the contract.
        let off = unsafe { *goff.add(r as usize) } as usize;
        // SAFETY: the scratch tables lie inside gkeys/gvals (host layout).
        let t = unsafe {
            Table {
                keys: gkeys.add(off),
                vals: if gvals.is_null() {
                    gvals
                } else {
                    gvals.add(off)
                },
            }
        };
        (t, size)
    }
}

/// Clears a table's `size` slots (keys empty, values zero unless `vals` is null): the
/// warp's lanes in turn, then a warp barrier.
///
/// # Safety
/// The table holds `size` slots.
#[inline(always)]
unsafe fn clear<K: Key, V: Value>(t: &Table<K, V>, size: u64, lane: u64) {
    let mut s = lane;
    while s < size {
        // SAFETY: s < size.
        unsafe {
            *t.keys.add(s as usize) = K::EMPTY;
            if !t.vals.is_null() {
                *t.vals.add(s as usize) = V::ZERO;
            }
        }
        s += 32;
    }
    sync_warp();
}

/// The symbolic pass: `counts[r]` = distinct columns of row `r` of `A B`, a warp per
/// row; `stats[0] += sum counts`, `stats[1] = max(stats[1], max count)`.
///
/// # Safety
/// As `spgemm_bound` plus: `b_indices` holds `b_nnz` indices; `ub` is the bound pass's
/// output; `gkeys`, `goff` as `row_table` (values unused); `counts` `rows` slots;
/// `stats` two zeroed u64 only accessed atomically; blocks of `SPGEMM_BLOCK` threads.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn spgemm_count<I: KeyOf>(
    g: &Spgemm,
    a_indptr: *const I,
    a_indices: *const I,
    b_indptr: *const I,
    b_indices: *const I,
    ub: *const i64,
    goff: *const i64,
    gkeys: *mut I::K,
    counts: *mut i64,
    stats: *mut u64,
) {
    let (gid, threads) = grid_stride();
    let lane = gid % 32;
    let (mut r, step) = (gid / 32, threads / 32);
    let (mut total, mut most) = (0u64, 0u64);
    while r < g.rows {
        // SAFETY: r < rows.
        let u = unsafe { *ub.add(r as usize) } as u64;
        let mut count = 0u64;
        if u > 0 {
            // SAFETY: per the contract (keys only: the values pointer is null).
            let (t, size) =
                unsafe { row_table::<I::K, f32>(g, r, u, goff, gkeys, core::ptr::null_mut()) };
            // SAFETY: the table holds size slots.
            unsafe { clear(&t, size, lane) };
            // SAFETY: r < rows; entries below their nnz; B rows below inner.
            let range = unsafe { row_range(a_indptr, r, g.a_nnz) };
            let b_row = |p: u64| unsafe {
                (*a_indices.add(p as usize))
                    .column(g.inner)
                    .map(|c| row_range(b_indptr, c, g.b_nnz))
            };
            lane_pairs(lane, 32, range, b_row, |_, q| {
                // SAFETY: q < b_nnz.
                if let Some(c) = unsafe { (*b_indices.add(q as usize)).column(g.cols) }
                    && let Some((_, true)) = insert(&t, size - 1, I::K::of(c))
                {
                    count += 1;
                }
            });
        }
        // Warp-uniform: every lane of the warp has the same row.
        let mut d = 16;
        while d > 0 {
            count += shfl_xor_words(count, d);
            d /= 2;
        }
        if lane == 0 {
            // SAFETY: r < rows.
            unsafe { *counts.add(r as usize) = count as i64 };
            total += count;
            most = most.max(count);
        }
        sync_warp();
        r += step;
    }
    if lane == 0 && (total > 0 || most > 0) {
        // SAFETY: stats is only accessed atomically.
        unsafe {
            AtomicU64::from_ptr(stats).fetch_add(total, Ordering::Relaxed);
            AtomicU64::from_ptr(stats.add(1)).fetch_max(most, Ordering::Relaxed);
        }
    }
}

/// The numeric pass: row `r` of `C = A B` into `c_indices`/`c_data` at `c_indptr[r]`,
/// sorted when its table has at most `RANK_TABLE_MAX` slots (else in slot order, for
/// the host to sort), a warp per row.
///
/// # Safety
/// As `spgemm_count` plus: `a_data`, `b_data` hold `a_nnz`, `b_nnz` values; `gvals`
/// beside `gkeys`; `c_indptr` holds `rows + 1` indices (the scanned counts),
/// `c_indices`/`c_data` `c_nnz` slots.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn spgemm_fill<V: AtomicAdd, I: KeyOf>(
    g: &Spgemm,
    a_indptr: *const I,
    a_indices: *const I,
    a_data: *const V,
    b_indptr: *const I,
    b_indices: *const I,
    b_data: *const V,
    ub: *const i64,
    goff: *const i64,
    gkeys: *mut I::K,
    gvals: *mut V,
    c_indptr: *const I,
    c_indices: *mut I,
    c_data: *mut V,
) {
    let (gid, threads) = grid_stride();
    let lane = gid % 32;
    let (mut r, step) = (gid / 32, threads / 32);
    while r < g.rows {
        // SAFETY: r < rows.
        let u = unsafe { *ub.add(r as usize) } as u64;
        if u > 0 {
            // SAFETY: per the contract.
            let (t, size) = unsafe { row_table::<I::K, V>(g, r, u, goff, gkeys, gvals) };
            // SAFETY: the table holds size slots.
            unsafe { clear(&t, size, lane) };
            // SAFETY: as in spgemm_count.
            let range = unsafe { row_range(a_indptr, r, g.a_nnz) };
            let b_row = |p: u64| unsafe {
                (*a_indices.add(p as usize))
                    .column(g.inner)
                    .map(|c| row_range(b_indptr, c, g.b_nnz))
            };
            lane_pairs(lane, 32, range, b_row, |p, q| {
                // SAFETY: p < a_nnz, q < b_nnz.
                unsafe {
                    if let Some(c) = (*b_indices.add(q as usize)).column(g.cols)
                        && let Some((s, _)) = insert(&t, size - 1, I::K::of(c))
                    {
                        t.add(s, (*a_data.add(p as usize)).mul(*b_data.add(q as usize)));
                    }
                }
            });
            sync_warp();
            // SAFETY: r < rows; the row's slots are clamped inside c_nnz.
            let (base, end) = unsafe { row_range(c_indptr, r, g.c_nnz) };
            let cap = end - base;
            let write = |at: u64, s: u64| {
                if at < cap {
                    // SAFETY: base + at < end <= c_nnz.
                    unsafe {
                        *c_indices.add((base + at) as usize) = I::from_u64(t.key(s).col());
                        *c_data.add((base + at) as usize) = t.value(s);
                    }
                }
            };
            if size <= RANK_TABLE_MAX {
                let mut s = lane;
                while s < size {
                    let k = t.key(s);
                    if k != I::K::EMPTY {
                        write(rank(&t, size, k), s);
                    }
                    s += 32;
                }
            } else {
                // In slot order: each lane's place is the occupied slots before it.
                let mut done = 0u64;
                let mut chunk = 0u64;
                while chunk < size {
                    let s = chunk + lane;
                    let full = s < size && t.key(s) != I::K::EMPTY;
                    let mask = ballot(full);
                    if full {
                        write(done + (mask & lanes_below()).count_ones() as u64, s);
                    }
                    done += mask.count_ones() as u64;
                    chunk += 32;
                }
            }
        }
        sync_warp();
        r += step;
    }
}

// ---------------------------------------------------------------------------------------
// Elementwise operations of two matrices

/// A row of a canonical matrix, read in place.
struct Row<V, I> {
    start: u64,
    len: u64,
    indices: *const I,
    data: *const V,
}

impl<V: Value, I: Index> Row<V, I> {
    /// # Safety
    /// `indptr` holds `r + 2` indices; the row's entries lie below `nnz` (clamped).
    #[inline(always)]
    unsafe fn of(indptr: *const I, indices: *const I, data: *const V, r: u64, nnz: u64) -> Self {
        // SAFETY: per the contract.
        let (s, e) = unsafe { row_range(indptr, r, nnz) };
        Row {
            start: s,
            len: e - s,
            indices,
            data,
        }
    }
    #[inline(always)]
    fn parts(&self) -> (u64, impl Fn(u64) -> u64 + '_, impl Fn(u64) -> V + '_) {
        // SAFETY (both): p < len, so start + p is an entry of the row.
        (
            self.len,
            move |p: u64| unsafe { (*self.indices.add((self.start + p) as usize)).bound() },
            move |p: u64| unsafe { *self.data.add((self.start + p) as usize) },
        )
    }
}

/// `counts[r]` = stored results of row `r` of `op(A, B)`, a thread per row.
///
/// # Safety
/// `a_*`, `b_*` hold the two matrices' arrays (`rows + 1` indptr, `a_nnz`/`b_nnz`
/// entries); `counts` `rows` slots.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn merge_count<V: Divide, I: Index>(
    m: &Merge2,
    a_indptr: *const I,
    a_indices: *const I,
    a_data: *const V,
    b_indptr: *const I,
    b_indices: *const I,
    b_data: *const V,
    counts: *mut i64,
) {
    let (mut r, stride) = grid_stride();
    while r < m.rows {
        // SAFETY: r < rows.
        let (ra, rb) = unsafe {
            (
                Row::of(a_indptr, a_indices, a_data, r, m.a_nnz),
                Row::of(b_indptr, b_indices, b_data, r, m.b_nnz),
            )
        };
        let mut n = 0i64;
        merge_rows(m.op, ra.parts(), rb.parts(), |_, _| n += 1);
        // SAFETY: r < rows.
        unsafe { *counts.add(r as usize) = n };
        r += stride;
    }
}

/// Row `r` of `op(A, B)` into `c_indices`/`c_data` at `c_indptr[r]`.
///
/// # Safety
/// As `merge_count`, with `c_indptr` (`rows + 1`, the scanned counts) and `c_nnz`
/// slots of `c_indices`, `c_data`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn merge_fill<V: Divide, I: Index>(
    m: &Merge2,
    a_indptr: *const I,
    a_indices: *const I,
    a_data: *const V,
    b_indptr: *const I,
    b_indices: *const I,
    b_data: *const V,
    c_indptr: *const I,
    c_indices: *mut I,
    c_data: *mut V,
) {
    let (mut r, stride) = grid_stride();
    while r < m.rows {
        // SAFETY: r < rows.
        let (ra, rb, (base, end)) = unsafe {
            (
                Row::of(a_indptr, a_indices, a_data, r, m.a_nnz),
                Row::of(b_indptr, b_indices, b_data, r, m.b_nnz),
                row_range(c_indptr, r, m.c_nnz),
            )
        };
        let mut at = base;
        merge_rows(m.op, ra.parts(), rb.parts(), |c, v| {
            if at < end {
                // SAFETY: at < end <= c_nnz.
                unsafe {
                    *c_indices.add(at as usize) = I::from_u64(c);
                    *c_data.add(at as usize) = v;
                }
            }
            at += 1;
        });
        r += stride;
    }
}

// ---------------------------------------------------------------------------------------
// Entry points

macro_rules! pair_entries {
    ([] $(($v:ident, $i:ident))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_spmv_lanes_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn lanes(a: Sp, indptr: *const $i, indices: *const $i, data: *const $v, x: *const $v, y: *mut $v) {
                // SAFETY: the host launches per spmv_lanes' contract.
                unsafe { spmv_lanes::<$v, $i>(&a, indptr, indices, data, x, y) }
            }
            #[unsafe(export_name = concat!("gpupy_spmv_merge_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn merge(
                a: Sp, indptr: *const $i, indices: *const $i, data: *const $v, x: *const $v, y: *mut $v,
                carry_rows: *mut u64, carry_vals: *mut $v,
            ) {
                // SAFETY: the host launches per spmv_merge's contract.
                unsafe { spmv_merge::<$v, $i>(&a, indptr, indices, data, x, y, carry_rows, carry_vals) }
            }
            #[unsafe(export_name = concat!("gpupy_spmm_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn mm(a: Sp, indptr: *const $i, indices: *const $i, data: *const $v, x: *const $v, y: *mut $v) {
                // SAFETY: the host launches per spmm's contract.
                unsafe { spmm::<$v, $i>(&a, indptr, indices, data, x, y) }
            }
            #[unsafe(export_name = concat!("gpupy_spmm_t_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn mm_t(a: Sp, indptr: *const $i, indices: *const $i, data: *const $v, x: *const $v, y: *mut $v) {
                // SAFETY: the host launches per spmm_t's contract.
                unsafe { spmm_t::<$v, $i>(&a, indptr, indices, data, x, y) }
            }
            #[unsafe(export_name = concat!("gpupy_segment_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn seg(a: Sp, starts: *const $i, values: *const $v, out_v: *mut $v, out_p: *mut i64) {
                // SAFETY: the host launches per segment's contract.
                unsafe { segment::<$v, $i>(&a, starts, values, out_v, out_p) }
            }
            #[unsafe(export_name = concat!("gpupy_todense_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn dense(
                a: Sp, indptr: *const $i, indices: *const $i, data: *const $v, out: *mut $v, rs: i64, cs: i64,
            ) {
                // SAFETY: the host launches per to_dense's contract.
                unsafe { to_dense::<$v, $i>(&a, indptr, indices, data, out, rs, cs) }
            }
            #[unsafe(export_name = concat!("gpupy_spgemm_fill_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn fill(
                g: Spgemm, a_indptr: *const $i, a_indices: *const $i, a_data: *const $v,
                b_indptr: *const $i, b_indices: *const $i, b_data: *const $v,
                ub: *const i64, goff: *const i64, gkeys: *mut <$i as KeyOf>::K, gvals: *mut $v,
                c_indptr: *const $i, c_indices: *mut $i, c_data: *mut $v,
            ) {
                // SAFETY: the host launches per spgemm_fill's contract.
                unsafe {
                    spgemm_fill::<$v, $i>(&g, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data,
                        ub, goff, gkeys, gvals, c_indptr, c_indices, c_data)
                }
            }
            #[unsafe(export_name = concat!("gpupy_merge_count_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn mcount(
                m: Merge2, a_indptr: *const $i, a_indices: *const $i, a_data: *const $v,
                b_indptr: *const $i, b_indices: *const $i, b_data: *const $v, counts: *mut i64,
            ) {
                // SAFETY: the host launches per merge_count's contract.
                unsafe { merge_count::<$v, $i>(&m, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, counts) }
            }
            #[unsafe(export_name = concat!("gpupy_merge_fill_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn mfill(
                m: Merge2, a_indptr: *const $i, a_indices: *const $i, a_data: *const $v,
                b_indptr: *const $i, b_indices: *const $i, b_data: *const $v,
                c_indptr: *const $i, c_indices: *mut $i, c_data: *mut $v,
            ) {
                // SAFETY: the host launches per merge_fill's contract.
                unsafe {
                    merge_fill::<$v, $i>(&m, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data,
                        c_indptr, c_indices, c_data)
                }
            }
        };
    )* };
}
crate::for_each_sparse_pair!(pair_entries);

macro_rules! value_entries {
    ([] $($v:ident)*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_spmv_fixup_", stringify!($v)))]
            unsafe extern "ptx-kernel" fn fix(blocks: u64, rows: u64, carry_rows: *const u64, carry_vals: *const $v, y: *mut $v) {
                // SAFETY: the host launches per spmv_fixup's contract.
                unsafe { spmv_fixup::<$v>(blocks, rows, carry_rows, carry_vals, y) }
            }
        };
    )* };
}
crate::for_each_sparse_value!(value_entries);

macro_rules! index_entries {
    ([] $($i:ident)*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_sparse_validate_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn valid(a: Sp, indptr: *const $i, indices: *const $i, out: *mut u64) {
                // SAFETY: the host launches per validate's contract.
                unsafe { validate::<$i>(&a, indptr, indices, out) }
            }
            #[unsafe(export_name = concat!("gpupy_sparse_row_max_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn longest(a: Sp, indptr: *const $i, out: *mut u64) {
                // SAFETY: the host launches per row_max's contract.
                unsafe { row_max::<$i>(&a, indptr, out) }
            }
            #[unsafe(export_name = concat!("gpupy_expand_rows_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn expand(a: Sp, indptr: *const $i, out: *mut $i) {
                // SAFETY: the host launches per expand_rows' contract.
                unsafe { expand_rows::<$i>(&a, indptr, out) }
            }
            #[unsafe(export_name = concat!("gpupy_spgemm_bound_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn bound(
                g: Spgemm, a_indptr: *const $i, a_indices: *const $i, b_indptr: *const $i,
                ub: *mut i64, gsize: *mut i64, stats: *mut u64,
            ) {
                // SAFETY: the host launches per spgemm_bound's contract.
                unsafe { spgemm_bound::<$i>(&g, a_indptr, a_indices, b_indptr, ub, gsize, stats) }
            }
            #[unsafe(export_name = concat!("gpupy_spgemm_count_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn count(
                g: Spgemm, a_indptr: *const $i, a_indices: *const $i, b_indptr: *const $i, b_indices: *const $i,
                ub: *const i64, goff: *const i64, gkeys: *mut <$i as KeyOf>::K, counts: *mut i64, stats: *mut u64,
            ) {
                // SAFETY: the host launches per spgemm_count's contract.
                unsafe { spgemm_count::<$i>(&g, a_indptr, a_indices, b_indptr, b_indices, ub, goff, gkeys, counts, stats) }
            }
        };
    )* };
}
crate::for_each_sparse_index!(index_entries);
