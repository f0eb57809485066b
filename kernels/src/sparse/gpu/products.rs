//! Products with a dense operand: SpMV by lanes per row or by merge path (with its
//! fix-up of the carries), SpMM and the transposed SpMM.

use super::device::{AtomicAdd, ballot, group_rows, group_sum, warp_rows};
use crate::gpu::{
    Shared, block_idx, ld_shared_words, smem_addr, st_shared_words, sync_threads, thread_idx,
};
use crate::sparse::Sp;
use crate::sparse::merge_path::{
    FIXUP_LANES, MERGE_ITEMS, MERGE_THREADS, MERGE_TILE, block_carry, consume, ends_before,
    lookback, merge_layout, merge_splits, opens_run, run_share, search, search_wide, wide_probe,
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
                // Four of the lane's entries at a time (those below the row's end),
                // every load issued before the first product: a row's loads overlap
                // instead of waiting one after another (index, then x), short rows
                // included. The sum keeps the lane's order. (Scalars, not arrays:
                // arrays would live on the stack.)
                let entry = |q: u64| {
                    if q < e {
                        (
                            (*indices.add(q as usize)).column(a.cols),
                            *data.add(q as usize),
                        )
                    } else {
                        (None, V::ZERO)
                    }
                };
                let gather = |(c, d): (Option<u64>, V)| c.map(|c| (d, *x.add(c as usize)));
                let fma = |acc: V, t: Option<(V, V)>| match t {
                    Some((d, v)) => V::mul_add(d, v, acc),
                    None => acc,
                };
                while p < e {
                    let (u0, u1) = (entry(p), entry(p + lanes));
                    let (u2, u3) = (entry(p + 2 * lanes), entry(p + 3 * lanes));
                    let (t0, t1, t2, t3) = (gather(u0), gather(u1), gather(u2), gather(u3));
                    acc = fma(fma(fma(fma(acc, t0), t1), t2), t3);
                    p += 4 * lanes;
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

/// The merge-path tiles' splits, a warp per split: `coords[2 s]`, `coords[2 s + 1]` =
/// the split `(i, j)` of diagonal `min(s * MERGE_TILE, rows + nnz)`. A separate pass
/// (as CUB's `DeviceSpmv` searches first), and a 32-way search
/// (`merge_path::search_wide`, the lanes probing side by side): a binary search is a
/// chain of ~log2(rows) dependent reads of `indptr`, which inside the SpMV kernel would
/// hold a whole block.
///
/// # Safety
/// `indptr` holds `a.rows + 1` indices; `coords` `2 * merge_splits(rows, nnz)` words;
/// the block size is a multiple of 32.
#[inline(always)]
pub(super) unsafe fn spmv_search<I: Index>(a: &Sp, indptr: *const I, coords: *mut u64) {
    let (rows, nnz) = (a.rows, a.nnz);
    let total = rows + nnz;
    // SAFETY: r < rows reads indptr[r + 1], inside its rows + 1.
    let end = |r: u64| {
        let e = unsafe { (*indptr.add(r as usize + 1)).bound() };
        if e < nnz { e } else { nnz }
    };
    // One split per warp: `s` is warp-uniform, so every lane takes part in the votes.
    warp_rows(merge_splits(rows, nnz), 32, |s, lane| {
        let d = s.map_or(0, |s| (s * MERGE_TILE).min(total));
        let before = |lo: u64, hi: u64| {
            let p = wide_probe(lo, hi, lane);
            ballot(p.is_some_and(|p| ends_before(end(p), p, d, 0))).count_ones() as u64
        };
        let (i, j) = search_wide(d, rows, 0, nnz, before);
        if let Some(s) = s
            && lane == 0
        {
            // SAFETY: s < merge_splits: two words per split.
            unsafe {
                *coords.add(2 * s as usize) = i;
                *coords.add(2 * s as usize + 1) = j;
            }
        }
    });
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
    // Each thread issues all its global loads before its first shared store: the
    // stores are `asm` statements, which order memory, so a load placed after one would
    // wait for the loads before it. Written out for the tile's 7 items a thread (8 row
    // ends, as a tile holds up to MERGE_TILE + 1), in scalars: arrays would live on the
    // stack.
    const _: () = assert!(MERGE_ITEMS == 7);
    let step = MERGE_THREADS as u64;
    let end_at = |n: u64| {
        let k = t + n * step;
        if k < nends { end(i0 + k) } else { 0 }
    };
    let (e0, e1, e2, e3) = (end_at(0), end_at(1), end_at(2), end_at(3));
    let (e4, e5, e6, e7) = (end_at(4), end_at(5), end_at(6), end_at(7));
    let entry_at = |n: u64| {
        let k = t + n * step;
        if k < j1 - j0 {
            let p = (j0 + k) as usize;
            // SAFETY: p < j1 <= nnz.
            unsafe { ((*indices.add(p)).column(a.cols), *data.add(p)) }
        } else {
            (None, V::ZERO)
        }
    };
    let (u0, u1, u2, u3) = (entry_at(0), entry_at(1), entry_at(2), entry_at(3));
    let (u4, u5, u6) = (entry_at(4), entry_at(5), entry_at(6));
    let product = |(c, d): (Option<u64>, V)| match c {
        // SAFETY: a valid column is below cols.
        Some(c) => d.mul(unsafe { *x.add(c as usize) }),
        None => V::ZERO,
    };
    let (v0, v1, v2, v3) = (product(u0), product(u1), product(u2), product(u3));
    let (v4, v5, v6) = (product(u4), product(u5), product(u6));
    let put_end = |n: u64, e: u64| {
        let k = t + n * step;
        if k < nends {
            // SAFETY: k < nends <= MERGE_TILE + 1 slots of ends.
            unsafe { u64::st_shared(smem_addr(ends + 8 * k as u32), e) };
        }
    };
    put_end(0, e0);
    put_end(1, e1);
    put_end(2, e2);
    put_end(3, e3);
    put_end(4, e4);
    put_end(5, e5);
    put_end(6, e6);
    put_end(7, e7);
    let put_product = |n: u64, v: V| {
        let k = t + n * step;
        if k < j1 - j0 {
            // SAFETY: k < MERGE_TILE slots of products.
            unsafe { st_shared_words(smem_addr(prods + vbytes * k as u32), v) };
        }
    };
    put_product(0, v0);
    put_product(1, v1);
    put_product(2, v2);
    put_product(3, v3);
    put_product(4, v4);
    put_product(5, v5);
    put_product(6, v6);
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
