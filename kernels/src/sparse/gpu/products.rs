//! Products with a dense operand: SpMV by lanes per row or by merge path (with its
//! fix-up of the carries), SpMM and the transposed SpMM.

use super::device::{AtomicAdd, group_rows, group_sum, warp_rows};
use crate::gpu::{
    Shared, block_idx, grid_stride, ld_shared_words, smem_addr, st_shared_words, sync_threads,
    thread_idx,
};
use crate::sparse::Sp;
use crate::sparse::merge_path::{
    FIXUP_LANES, MERGE_ITEMS, MERGE_THREADS, MERGE_TILE, block_carry, consume, lookback,
    merge_layout, merge_splits, opens_run, run_share, search,
};
use crate::sparse::value::{Index, Value, row_range};

/// `y = A x` by groups of `a.lanes` lanes per row.
///
/// # Safety
/// `indptr` holds `a.rows + 1` indices, `indices` and `data` `a.nnz` entries, `x`
/// `a.cols` values, `y` `a.rows`; `a.lanes` is a power of two up to 32; the block size
/// is a multiple of 32.
#[inline(always)]
pub(super) unsafe fn spmv_lanes<V: Value, I: Index>(
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

/// The merge-path tiles' splits, a thread per split: `coords[2 s]`, `coords[2 s + 1]`
/// = the split `(i, j)` of diagonal `min(s * MERGE_TILE, rows + nnz)`. A separate pass
/// (as CUB's `DeviceSpmv` searches first): each search is a chain of ~log2(rows)
/// dependent reads of `indptr`, which inside the SpMV kernel would hold a whole block.
///
/// # Safety
/// `indptr` holds `a.rows + 1` indices; `coords` `2 * merge_splits(rows, nnz)` words.
#[inline(always)]
pub(super) unsafe fn spmv_search<I: Index>(a: &Sp, indptr: *const I, coords: *mut u64) {
    let (rows, nnz) = (a.rows, a.nnz);
    let total = rows + nnz;
    // SAFETY: r < rows reads indptr[r + 1], inside its rows + 1.
    let end = |r: u64| {
        let e = unsafe { (*indptr.add(r as usize + 1)).bound() };
        if e < nnz { e } else { nnz }
    };
    let (mut s, stride) = grid_stride();
    while s < merge_splits(rows, nnz) {
        let (i, j) = search((s * MERGE_TILE).min(total), rows, 0, nnz, end);
        // SAFETY: s < merge_splits: two words per split.
        unsafe {
            *coords.add(2 * s as usize) = i;
            *coords.add(2 * s as usize + 1) = j;
        }
        s += stride;
    }
}

/// `y = A x` by merge path, one tile of `MERGE_TILE` merge steps per block: see
/// `merge_path::spmv_blocks`, which this follows step for step. Block `b` reads its
/// tile's splits from `coords` (the search pass) and leaves its carry in
/// `carry_rows[b]`, `carry_vals[b]` for `spmv_fixup`.
///
/// # Safety
/// As `spmv_lanes`, and: the grid has `ceil((rows + nnz) / MERGE_TILE)` blocks of
/// `MERGE_THREADS` threads and `merge_shared_bytes(size_of V)` bytes of shared memory;
/// `coords` holds the search pass's splits; `carry_rows`, `carry_vals` hold one slot
/// per block.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn spmv_merge<V: Value, I: Index>(
    a: &Sp,
    indptr: *const I,
    indices: *const I,
    data: *const V,
    x: *const V,
    y: *mut V,
    coords: *const u64,
    carry_rows: *mut u64,
    carry_vals: *mut V,
) {
    let vbytes = core::mem::size_of::<V>() as u32;
    let [ends, prods, crow, cval] = merge_layout(vbytes);
    let (t, b) = (thread_idx() as u64, block_idx() as u64);
    let (rows, nnz) = (a.rows, a.nnz);
    // SAFETY (all closures): r < rows reads indptr[r + 1], inside its rows + 1.
    let end = |r: u64| {
        let e = unsafe { (*indptr.add(r as usize + 1)).bound() };
        if e < nnz { e } else { nnz }
    };
    let total = rows + nnz;
    let (d0, d1) = (b * MERGE_TILE, ((b + 1) * MERGE_TILE).min(total));
    // SAFETY: the search pass wrote splits b and b + 1 (merge_splits of them).
    let (i0, j0, i1, j1) = unsafe {
        (
            *coords.add(2 * b as usize),
            *coords.add(2 * b as usize + 1),
            *coords.add(2 * b as usize + 2),
            *coords.add(2 * b as usize + 3),
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

/// Adds the merge-path blocks' carries to `y`: a warp per block; the warp of a block
/// that opens a run of blocks carrying one row sums the run (`merge_path::fixup`).
///
/// # Safety
/// `carry_rows`, `carry_vals` hold `blocks` slots written by `spmv_merge`; `y` holds
/// `rows` values; the block size is a multiple of 32.
#[inline(always)]
pub(super) unsafe fn spmv_fixup<V: Value>(
    blocks: u64,
    rows: u64,
    carry_rows: *const u64,
    carry_vals: *const V,
    y: *mut V,
) {
    // SAFETY: k < blocks.
    let carry = |k: u64| unsafe { (*carry_rows.add(k as usize), *carry_vals.add(k as usize)) };
    // One item per warp: `b` is warp-uniform, so every lane reaches the shuffles.
    warp_rows(blocks, FIXUP_LANES, |b, lane| {
        let run = b.and_then(|b| opens_run(b, rows, carry).map(|row| (b, row)));
        let share = match run {
            Some((b, row)) => run_share(b, lane, FIXUP_LANES, blocks, row, carry),
            None => V::ZERO,
        };
        let sum = group_sum(share, FIXUP_LANES);
        if let Some((_, r)) = run
            && lane == 0
        {
            // SAFETY: r < rows; one warp per row (the first block of its run).
            unsafe { *y.add(r as usize) = (*y.add(r as usize)).add(sum) };
        }
    });
}

/// `Y = A X` for C-contiguous `X` (`cols x k`) and `Y` (`rows x k`): a group of
/// `a.lanes` lanes takes a tile of as many columns of one row of `Y`, so the group's
/// reads of a row of `X` coalesce and each entry of `A` is read once per tile.
///
/// # Safety
/// As `spmv_lanes` with `x` holding `cols * k` values and `y` `rows * k`.
#[inline(always)]
pub(super) unsafe fn spmm<V: Value, I: Index>(
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
pub(super) unsafe fn spmm_t<V: AtomicAdd, I: Index>(
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
