//! SpGEMM (sparse times sparse): the per-row bound, count and fill passes with a
//! hash table per row.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::device::{AtomicAdd, ballot, lanes_below, sync_warp};
use crate::gpu::{
    grid_stride, shfl_down_words, shfl_idx_words, shfl_up_words, shfl_xor_words, smem_generic,
    thread_idx,
};
use crate::sparse::Spgemm;
use crate::sparse::hash::{
    Key, PAIR_CHUNK, RANK_TABLE_MAX, Slots, insert, owner, rank, table_size,
};
use crate::sparse::value::{Index, Value, row_range};

/// Keys of a table as index type `I` stores columns.
pub(super) trait KeyOf: Index {
    type K: Key + AtomicKey;
}
impl KeyOf for i32 {
    type K = u32;
}
impl KeyOf for i64 {
    type K = u64;
}

/// Compare-and-swap of keys at generic addresses.
pub(super) trait AtomicKey: Key {
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
pub(super) struct Table<K, V> {
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

impl<K: Key, V: Value> Table<K, V> {
    /// Stores `key` and `value` in slot `s` (plain stores: the warp's barriers order
    /// them against the table's other accesses).
    ///
    /// # Safety
    /// `s` is below the table's size; the table has values.
    #[inline(always)]
    unsafe fn put(&self, s: u64, key: K, value: V) {
        // SAFETY: per the contract.
        unsafe {
            *self.keys.add(s as usize) = key;
            *self.vals.add(s as usize) = value;
        }
    }
}

/// `hash::chunk_pairs` as a warp runs it: `f(p, q)` for this lane's share of the
/// products of entries `a_start..a_end` of a row of `A` (`b_row(p)`: the bounds of the
/// row of `B` that entry `p` multiplies, `None` for a column outside `B`'s rows). Lane
/// `l` reads entry `l` of each chunk; a scan of the counts through shuffles numbers the
/// products; each product's entry is found by [`owner`] through shuffles. Every lane
/// of the warp must call it with the same range.
#[inline(always)]
fn warp_pairs(
    lane: u64,
    (a_start, a_end): (u64, u64),
    b_row: impl Fn(u64) -> Option<(u64, u64)>,
    mut f: impl FnMut(u64, u64),
) {
    let mut chunk = a_start;
    while chunk < a_end {
        let p = chunk + lane;
        let (start, len) = match if p < a_end { b_row(p) } else { None } {
            Some((bs, be)) => (bs, be - bs),
            None => (0, 0),
        };
        // Inclusive scan of the counts over the lanes (lanes past the chunk add 0).
        let mut incl = len;
        let mut d = 1;
        while d < 32 {
            let v = shfl_up_words(incl, d);
            if lane >= d as u64 {
                incl += v;
            }
            d *= 2;
        }
        let total = shfl_idx_words(incl, 31);
        let mut base = 0;
        while base < total {
            let k = base + lane;
            let j = owner(k, |i| shfl_idx_words(incl, i as u32)) as u32;
            let (bs, end, n) = (
                shfl_idx_words(start, j),
                shfl_idx_words(incl, j),
                shfl_idx_words(len, j),
            );
            if k < total {
                f(chunk + j as u64, bs + (k - (end - n)));
            }
            base += 32;
        }
        chunk += PAIR_CHUNK;
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
pub(super) unsafe fn spgemm_bound<I: Index>(
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
pub(super) unsafe fn spgemm_count<I: KeyOf>(
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
        // Read before the table's clear (whose warp barrier orders memory): the row's
        // bounds then load beside `ub[r]` instead of after it.
        // SAFETY: r < rows; entries below their nnz; B rows below inner.
        let range = unsafe { row_range(a_indptr, r, g.a_nnz) };
        let mut count = 0u64;
        if u > 0 {
            // SAFETY: per the contract (keys only: the values pointer is null).
            let (t, size) =
                unsafe { row_table::<I::K, f32>(g, r, u, goff, gkeys, core::ptr::null_mut()) };
            // SAFETY: the table holds size slots.
            unsafe { clear(&t, size, lane) };
            let b_row = |p: u64| unsafe {
                (*a_indices.add(p as usize))
                    .column(g.inner)
                    .map(|c| row_range(b_indptr, c, g.b_nnz))
            };
            warp_pairs(lane, range, b_row, |_, q| {
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
pub(super) unsafe fn spgemm_fill<V: AtomicAdd, I: KeyOf>(
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
        // Read before the table's clear, as in spgemm_count; C's row bounds too.
        // SAFETY: as in spgemm_count; r < rows, the row's slots clamped inside c_nnz.
        let (range, (base, end)) = unsafe {
            (
                row_range(a_indptr, r, g.a_nnz),
                row_range(c_indptr, r, g.c_nnz),
            )
        };
        if u > 0 {
            // SAFETY: per the contract.
            let (t, size) = unsafe { row_table::<I::K, V>(g, r, u, goff, gkeys, gvals) };
            // SAFETY: the table holds size slots.
            unsafe { clear(&t, size, lane) };
            let b_row = |p: u64| unsafe {
                (*a_indices.add(p as usize))
                    .column(g.inner)
                    .map(|c| row_range(b_indptr, c, g.b_nnz))
            };
            warp_pairs(lane, range, b_row, |p, q| {
                // SAFETY: p < a_nnz, q < b_nnz. The values load beside the column,
                // before the insertion's atomics.
                unsafe {
                    let (c, v) = (
                        (*b_indices.add(q as usize)).column(g.cols),
                        (*a_data.add(p as usize)).mul(*b_data.add(q as usize)),
                    );
                    if let Some(c) = c
                        && let Some((s, _)) = insert(&t, size - 1, I::K::of(c))
                    {
                        t.add(s, v);
                    }
                }
            });
            sync_warp();
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
                // Compact the keys (and values) to the table's front in slot order, a
                // chunk of 32 slots at a time (a slot moves only down, into slots the
                // warp has read already), then rank each among the `done` keys: a scan
                // of the row's entries instead of the table's slots.
                let mut done = 0u64;
                let mut chunk = 0u64;
                while chunk < size {
                    let s = chunk + lane;
                    let (k, v) = if s < size {
                        (t.key(s), t.value(s))
                    } else {
                        (I::K::EMPTY, V::ZERO)
                    };
                    let full = k != I::K::EMPTY;
                    let mask = ballot(full);
                    sync_warp();
                    if full {
                        // SAFETY: below s < size.
                        unsafe { t.put(done + (mask & lanes_below()).count_ones() as u64, k, v) };
                    }
                    done += mask.count_ones() as u64;
                    sync_warp();
                    chunk += 32;
                }
                let mut i = lane;
                while i < done {
                    write(rank(&t, done, t.key(i)), i);
                    i += 32;
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
