use core::arch::asm;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::dtype::load_pack;
use crate::dtype::{c64, c128};
use crate::gpu::{Shared, block_idx, shfl_up_words, smem_addr, sync_threads, thread_idx, unroll};
use crate::sort::radix::*;

/// The lanes of the warp whose `v` equals this lane's; every lane must call it.
#[inline(always)]
fn match_any(v: u32) -> u32 {
    let r: u32;
    // SAFETY: register-only; all 32 lanes take part (the callers' loops are uniform).
    unsafe {
        asm!("match.any.sync.b32 {r}, {v}, 0xffffffff;", r = out(reg32) r, v = in(reg32) v,
             options(nostack, nomem))
    };
    r
}

/// Orders the warp's shared-memory accesses before and after it.
#[inline(always)]
fn sync_warp() {
    // SAFETY: all 32 lanes reach it (uniform control flow in the callers).
    unsafe { asm!("bar.warp.sync 0xffffffff;", options(nostack)) }
}

/// `shared[a] += v`, atomically.
///
/// # Safety
/// `a` is a 4-byte aligned shared-window address inside the launch's shared size.
#[inline(always)]
unsafe fn atom_add32(a: u32, v: u32) {
    // SAFETY: per the contract.
    unsafe {
        asm!("red.shared.add.u32 [{a}], {v};", a = in(reg32) a, v = in(reg32) v, options(nostack))
    }
}

/// Stores a value of any sort dtype to shared memory, as bits of its size.
///
/// # Safety
/// `a` is a shared-window address inside the launch's shared size, aligned to the
/// value's size.
#[inline(always)]
unsafe fn st_item<T: Copy>(a: u32, v: T) {
    // SAFETY: per the contract; each arm moves exactly size_of::<T>() bytes.
    unsafe {
        match core::mem::size_of::<T>() {
            1 => {
                let b = core::mem::transmute_copy::<T, u8>(&v) as u32;
                asm!("st.shared.u8 [{a}], {b};", a = in(reg32) a, b = in(reg32) b, options(nostack))
            }
            2 => {
                let b = core::mem::transmute_copy::<T, u16>(&v) as u32;
                asm!("st.shared.u16 [{a}], {b};", a = in(reg32) a, b = in(reg32) b, options(nostack))
            }
            4 => {
                let b = core::mem::transmute_copy::<T, u32>(&v);
                asm!("st.shared.u32 [{a}], {b};", a = in(reg32) a, b = in(reg32) b, options(nostack))
            }
            8 => {
                let b = core::mem::transmute_copy::<T, u64>(&v);
                asm!("st.shared.u64 [{a}], {b};", a = in(reg32) a, b = in(reg64) b, options(nostack))
            }
            _ => {
                let [x, y] = core::mem::transmute_copy::<T, [u64; 2]>(&v);
                asm!("st.shared.v2.u64 [{a}], {{{x}, {y}}};", a = in(reg32) a, x = in(reg64) x,
                     y = in(reg64) y, options(nostack))
            }
        }
    }
}

/// Loads a value stored by `st_item`.
///
/// # Safety
/// As for `st_item`; the bytes there were written by `st_item::<T>`.
#[inline(always)]
unsafe fn ld_item<T: Copy>(a: u32) -> T {
    // SAFETY: per the contract; each arm reads exactly size_of::<T>() bytes.
    unsafe {
        match core::mem::size_of::<T>() {
            1 => {
                let b: u32;
                asm!("ld.shared.u8 {b}, [{a}];", a = in(reg32) a, b = out(reg32) b, options(nostack, readonly));
                core::mem::transmute_copy(&(b as u8))
            }
            2 => {
                let b: u32;
                asm!("ld.shared.u16 {b}, [{a}];", a = in(reg32) a, b = out(reg32) b, options(nostack, readonly));
                core::mem::transmute_copy(&(b as u16))
            }
            4 => {
                let b: u32;
                asm!("ld.shared.u32 {b}, [{a}];", a = in(reg32) a, b = out(reg32) b, options(nostack, readonly));
                core::mem::transmute_copy(&b)
            }
            8 => {
                let b: u64;
                asm!("ld.shared.u64 {b}, [{a}];", a = in(reg32) a, b = out(reg64) b, options(nostack, readonly));
                core::mem::transmute_copy(&b)
            }
            _ => {
                let (x, y): (u64, u64);
                asm!("ld.shared.v2.u64 {{{x}, {y}}}, [{a}];", a = in(reg32) a, x = out(reg64) x,
                     y = out(reg64) y, options(nostack, readonly));
                core::mem::transmute_copy(&[x, y])
            }
        }
    }
}

/// The pass's digit of a value and its index (a key digit without `IDX`).
#[inline(always)]
fn digit_of<T: SortKey, const IDX: bool>(p: &SortPass, v: T, idx: u32) -> u32 {
    if !IDX || p.row_len == 0 {
        v.digit(p.digit)
    } else {
        ((idx / p.row_len) >> (8 * p.digit)) & 0xff
    }
}

/// The status word at `p`, as the last block to store it left it.
///
/// # Safety
/// `p` is an 8-byte aligned address in global memory.
#[inline(always)]
unsafe fn ld_status(p: *const u64) -> u64 {
    let v: u64;
    // SAFETY: per the contract. Not `pure`: each call must load again (spin loops).
    unsafe {
        asm!("ld.relaxed.gpu.global.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p,
             options(nostack, readonly))
    };
    v
}

/// Publishes the status word `v` at `p` to every block of the grid.
///
/// # Safety
/// `p` is an 8-byte aligned address in global memory that no other thread stores to.
#[inline(always)]
unsafe fn st_status(p: *mut u64, v: u64) {
    // SAFETY: per the contract; one 64-bit store, seen whole or not at all.
    unsafe {
        asm!("st.relaxed.gpu.global.u64 [{p}], {v};", p = in(reg64) p, v = in(reg64) v,
             options(nostack))
    }
}

/// Adds, for every key digit `k`, how many values of this block's chunk
/// (`[block * chunk, (block + 1) * chunk)` of `0..n`) have digit `d` to
/// `counts[k * RADIX + d]`.
///
/// # Safety
/// `keys` holds `n` values, 16-byte aligned; `chunk` is a whole number of tiles and
/// `block * chunk < n`; `counts` holds `T::DIGITS * RADIX` u32, zero before the launch;
/// the launch has `SORT_BLOCK` threads and `hist_smem(T::DIGITS)` shared bytes.
#[inline(always)]
unsafe fn histogram<T: SortKey, const N: usize>(
    n: u64,
    chunk: u64,
    keys: *const T,
    counts: *mut u32,
) {
    let t = thread_idx();
    let parts = hist_parts(T::DIGITS);
    let bins = T::DIGITS * RADIX;
    // SAFETY (every shared access below): word (k * RADIX + d) * parts + q lies in
    // hist_smem(T::DIGITS) for k < DIGITS, d < RADIX, q < parts.
    let mut i = t;
    while i < bins * parts {
        unsafe { u32::st_shared(smem_addr(i * 4), 0) };
        i += SORT_BLOCK;
    }
    sync_threads();
    let begin = block_idx() as u64 * chunk;
    let end = if begin + chunk < n { begin + chunk } else { n };
    let part = smem_addr(t % parts * 4);
    let add = |v: T| {
        for k in 0..T::DIGITS {
            unsafe { atom_add32(part + (k * RADIX + v.digit(k)) * parts * 4, 1) };
        }
    };
    // Rounds of four 16-byte packs per thread, all four loads in flight at once.
    let round = 4 * (SORT_BLOCK as usize * N) as u64;
    let mut r = begin;
    while r + round <= end {
        let at = |q: u32| r + ((q * SORT_BLOCK + t) as usize * N) as u64;
        // SAFETY: every pack lies in [r, r + round) within the chunk, aligned because
        // chunks are whole tiles of a 16-byte aligned array.
        let packs: [[T; N]; 4] = unsafe {
            [
                load_pack::<T, N>(keys.add(at(0) as usize)),
                load_pack::<T, N>(keys.add(at(1) as usize)),
                load_pack::<T, N>(keys.add(at(2) as usize)),
                load_pack::<T, N>(keys.add(at(3) as usize)),
            ]
        };
        unroll!(q in 0..4 => {
            unroll!(k in 0..N => {
                add(packs[q][k]);
            });
        });
        r += round;
    }
    // The rest one value at a time.
    let mut e = r + t as u64;
    while e < end {
        // SAFETY: e < end <= n.
        add(unsafe { *keys.add(e as usize) });
        e += SORT_BLOCK as u64;
    }
    sync_threads();
    // Thread t sums bins t, t + SORT_BLOCK, ..., starting at a copy that differs per
    // thread (fewer bank conflicts); empty bins cost no global atomic.
    let mut i = t;
    while i < bins {
        let mut sum = 0;
        for q in 0..parts {
            let l = (q + t) % parts;
            sum += unsafe { u32::ld_shared(smem_addr((i * parts + l) * 4)) };
        }
        if sum != 0 {
            // SAFETY: i < DIGITS * RADIX, inside counts.
            unsafe { AtomicU32::from_ptr(counts.add(i as usize)) }
                .fetch_add(sum, Ordering::Relaxed);
        }
        i += SORT_BLOCK;
    }
}

/// Turns `counts[pass][digit]` into each pass's exclusive prefix sums over digits, in
/// place: the key passes' counts come from the histogram kernel, the row passes' from
/// the row count (every row number occurs `row_len` times).
///
/// # Safety
/// `counts` holds `passes * RADIX` u32 (`passes <= MAX_PASSES`), its first
/// `key_passes * RADIX` the histogram kernel's complete result; `rows * row_len` is
/// below 2^32; one block of `SORT_BLOCK` threads and `SORT_WARPS * 4` shared bytes.
#[inline(always)]
unsafe fn starts(counts: *mut u32, key_passes: u32, passes: u32, rows: u32, row_len: u32) {
    let t = thread_idx();
    for pass in 0..passes {
        // SAFETY: pass < passes and t < RADIX.
        let at = unsafe { counts.add((pass * RADIX + t) as usize) };
        let c = if pass < key_passes {
            // SAFETY: as above.
            unsafe { *at }
        } else {
            (row_digit_count(rows as u64, pass - key_passes, t) * row_len as u64) as u32
        };
        // SAFETY: the warp totals use SORT_WARPS words at offset 0.
        let s = unsafe { block_exclusive_scan(c, 0) };
        // SAFETY: as above.
        unsafe { *at = s };
        // The next pass's scan rewrites the warp totals.
        sync_threads();
    }
}

/// The exclusive prefix sum of `v` over the block's threads, in thread order.
///
/// # Safety
/// Every thread of the block calls it; one word per warp of shared memory at byte
/// `offset` is free; the caller syncs before reusing them.
#[inline(always)]
unsafe fn block_exclusive_scan(v: u32, offset: u32) -> u32 {
    let t = thread_idx();
    let (lane, warp) = (t % 32, t / 32);
    let mut x = v;
    let mut d = 1;
    while d < 32 {
        let y = shfl_up_words(x, d);
        if lane >= d {
            x += y;
        }
        d *= 2;
    }
    if lane == 31 {
        // SAFETY: warp < warps words at `offset`.
        unsafe { u32::st_shared(smem_addr(offset + warp * 4), x) };
    }
    sync_threads();
    let mut before = 0;
    let mut w = 0;
    while w < warp {
        // SAFETY: written before the barrier.
        before += unsafe { u32::ld_shared(smem_addr(offset + w * 4)) };
        w += 1;
    }
    before + x - v
}

/// One stable pass over one tile (see the module comment). Without `IDX` the pass
/// moves values only (a key pass of a plain sort): a kernel of its own, so that the
/// common case pays no registers for indices. With `IDX`: `keys_in` null: the pass
/// needs no values (row passes of an argsort); `keys_out` null: the values are not
/// written; `idx_in` null: the indices are `0..n`; `idx_out` 0: the indices are not
/// written, else u32 or (`INDEX_OUT_I64`) int64.
///
/// # Safety
/// Non-null arrays hold `p.n` elements; in key mode `keys_in` is not null; without
/// `IDX` the pass is in key mode, `keys_out` is not null and the indices are unused;
/// `starts`
/// holds this pass's `RADIX` digit starts from `starts`; `ticket` is this pass's
/// counter, zero before the launch; `status` holds `RADIX` words per tile, each zero
/// or written by an earlier pass of this sort; the launch has one block per tile
/// (`ceil(n / tile_len)`), `SORT_BLOCK` threads and `onesweep_smem(size_of::<T>(),
/// IDX)` shared bytes.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn onesweep<T: SortKey, const ITEMS: usize, const IDX: bool>(
    p: &SortPass,
    keys_in: *const T,
    keys_out: *mut T,
    idx_in: *const u32,
    idx_out: u64,
    starts: *const u32,
    ticket: *mut u32,
    status: *mut u64,
) {
    let t = thread_idx();
    let (lane, warp) = (t % 32, t / 32);
    let size = core::mem::size_of::<T>() as u32;
    let tile = SORT_BLOCK * ITEMS as u32;
    let stage_idx = SMEM_STAGE + tile * size;
    let with_keys = !IDX || !keys_in.is_null();
    let with_idx = IDX;
    // SAFETY (every shared access below): the addresses lie inside onesweep_smem by
    // the layout constants (the index area only when with_idx); digits are < RADIX,
    // tile positions < tile.
    if t == 0 {
        // The tile number is the ticket, not the block index: tiles are taken in the
        // order blocks start, so the earlier tiles a look-back waits on are running.
        // SAFETY: ticket is a valid, aligned u32 in global memory.
        let id = unsafe { AtomicU32::from_ptr(ticket) }.fetch_add(1, Ordering::Relaxed);
        unsafe { u32::st_shared(smem_addr(SMEM_TILE), id) };
    }
    for w in 0..SORT_WARPS {
        unsafe { u32::st_shared(smem_addr(SMEM_COUNTERS + (w * RADIX + t) * 4), 0) };
    }
    sync_threads();
    let id = unsafe { u32::ld_shared(smem_addr(SMEM_TILE)) };
    let start = id as u64 * tile as u64;
    let end = if start + (tile as u64) < p.n {
        start + tile as u64
    } else {
        p.n
    };
    // Warp w holds the w-th run of 32 * ITEMS values; item j of a lane is value
    // j * 32 + lane of it, so (j, lane) order is input order.
    let seg = start + (warp * 32 * ITEMS as u32) as u64;
    let mut vals = [T::ZERO; ITEMS];
    let mut idxs = [0u32; ITEMS];
    unroll!(j in 0..ITEMS => {
        let i = seg + (j as u32 * 32 + lane) as u64;
        if i < end {
            if with_keys {
                // SAFETY: i < end <= n.
                vals[j] = unsafe { *keys_in.add(i as usize) };
            }
            if with_idx {
                // SAFETY: as above.
                idxs[j] = if idx_in.is_null() {
                    i as u32
                } else {
                    unsafe { *idx_in.add(i as usize) }
                };
            }
        }
    });
    // Rank within the warp: (digit << 16) | rank, or u32::MAX past the end.
    let mut ranks = [0u32; ITEMS];
    unroll!(j in 0..ITEMS => {
        let i = seg + (j as u32 * 32 + lane) as u64;
        let valid = i < end;
        let d = if valid {
            digit_of::<T, IDX>(p, vals[j], idxs[j])
        } else {
            RADIX
        };
        let peers = match_any(d);
        let lower = (peers & ((1u32 << lane) - 1)).count_ones();
        let a = smem_addr(SMEM_COUNTERS + (warp * RADIX + d) * 4);
        let c = if valid {
            unsafe { u32::ld_shared(a) }
        } else {
            0
        };
        sync_warp();
        if valid && lower == 0 {
            unsafe { u32::st_shared(a, c + peers.count_ones()) };
        }
        sync_warp();
        ranks[j] = if valid {
            (d << 16) | (c + lower)
        } else {
            u32::MAX
        };
    });
    sync_threads();
    // Thread t owns digit t: the per-warp counts become the digit's offsets in the
    // tile (warps in order, then digits in order).
    let mut total = 0u32;
    for w in 0..SORT_WARPS {
        let a = smem_addr(SMEM_COUNTERS + (w * RADIX + t) * 4);
        unsafe {
            let c = u32::ld_shared(a);
            u32::st_shared(a, total);
            total += c;
        }
    }
    // Publish the tile's count at once, before anything else, so the look-backs of
    // later tiles wait as little as possible; tile 0's count is already its prefix.
    // SAFETY: id < ceil(n / tile) tiles, each with RADIX words; only this thread of
    // this block stores to this word in this pass.
    let mine = unsafe { status.add(id as usize * RADIX as usize + t as usize) };
    unsafe { st_status(mine, status_word(p.pass, id == 0, total)) };
    // SAFETY: SMEM_SCAN has room for SORT_WARPS words.
    let before = unsafe { block_exclusive_scan(total, SMEM_SCAN) };
    for w in 0..SORT_WARPS {
        let a = smem_addr(SMEM_COUNTERS + (w * RADIX + t) * 4);
        unsafe { u32::st_shared(a, u32::ld_shared(a) + before) };
    }
    sync_threads();
    // Stage the tile in digit order; this needs no global offsets, so it goes before
    // the look-back and its shared-memory traffic overlaps the earlier tiles' progress.
    unroll!(j in 0..ITEMS => {
        let r = ranks[j];
        if r != u32::MAX {
            let d = r >> 16;
            unsafe {
                let pos = u32::ld_shared(smem_addr(SMEM_COUNTERS + (warp * RADIX + d) * 4))
                    + (r & 0xffff);
                if with_keys {
                    st_item(smem_addr(SMEM_STAGE + pos * size), vals[j]);
                }
                if with_idx {
                    u32::st_shared(smem_addr(stage_idx + pos * 4), idxs[j]);
                }
            }
        }
    });
    // Look-back for digit t: sum the earlier tiles' counts, newest first, until one
    // word holds an inclusive prefix. Tile 0 always publishes one, so the walk ends.
    let mut excl = 0u32;
    if id > 0 {
        let published = status_word(p.pass, false, 0);
        let mut j = id - 1;
        loop {
            // SAFETY: j < id, a tile of this launch.
            let at = unsafe { status.add(j as usize * RADIX as usize + t as usize) };
            let mut s = unsafe { ld_status(at) };
            // Tile j's block holds an earlier ticket, so it is running and publishes
            // its aggregate before it waits on anything.
            while s < published {
                s = unsafe { ld_status(at) };
            }
            excl = excl.wrapping_add(s as u32);
            if (s >> 32) & 1 != 0 {
                break;
            }
            j -= 1;
        }
        // SAFETY: as for the aggregate above.
        unsafe { st_status(mine, status_word(p.pass, true, excl.wrapping_add(total))) };
    }
    // Tile position i of digit t goes to output position scatter[t] + i (wrapping
    // u32 arithmetic: the true position is below n < 2^32).
    // SAFETY: t < RADIX.
    let base = unsafe { *starts.add(t as usize) }.wrapping_add(excl);
    unsafe { u32::st_shared(smem_addr(SMEM_SCATTER + t * 4), base.wrapping_sub(before)) };
    sync_threads();
    // Write the staged tile out: consecutive threads, consecutive positions of a
    // digit's run.
    let len = (end - start) as u32;
    unroll!(k in 0..ITEMS => {
        let i = k as u32 * SORT_BLOCK + t;
        if i < len {
            let v: T = if with_keys {
                unsafe { ld_item(smem_addr(SMEM_STAGE + i * size)) }
            } else {
                T::ZERO
            };
            let x = if with_idx {
                unsafe { u32::ld_shared(smem_addr(stage_idx + i * 4)) }
            } else {
                0
            };
            let d = digit_of::<T, IDX>(p, v, x);
            let pos =
                unsafe { u32::ld_shared(smem_addr(SMEM_SCATTER + d * 4)) }.wrapping_add(i) as usize;
            // SAFETY: pos < n (the digit starts and the look-back place every value
            // inside the output).
            unsafe {
                if !IDX || !keys_out.is_null() {
                    *keys_out.add(pos) = v;
                }
                if IDX && idx_out != 0 {
                    if p.flags & INDEX_OUT_I64 != 0 {
                        *(idx_out as *mut i64).add(pos) = (x % p.out_row_len) as i64;
                    } else {
                        *(idx_out as *mut u32).add(pos) = x;
                    }
                }
            }
        }
    });
}

macro_rules! sort_entries {
    ([] $(($name:ident, $t:ident))*) => { $(
        const _: () = {
            const SIZE: usize = core::mem::size_of::<$t>();
            const N: usize = if SIZE >= 16 { 1 } else { 16 / SIZE };
            const ITEMS: usize = items_per_thread(SIZE) as usize;

            #[unsafe(export_name = concat!("gpupy_sort_histogram_", stringify!($name)))]
            unsafe extern "ptx-kernel" fn h(n: u64, chunk: u64, keys: *const $t, counts: *mut u32) {
                // SAFETY: the host launches per histogram's contract.
                unsafe { histogram::<$t, N>(n, chunk, keys, counts) }
            }

            #[unsafe(export_name = concat!("gpupy_sort_onesweep_", stringify!($name)))]
            #[allow(clippy::too_many_arguments)]
            unsafe extern "ptx-kernel" fn s(
                p: SortPass,
                keys_in: *const $t,
                keys_out: *mut $t,
                idx_in: *const u32,
                idx_out: u64,
                starts: *const u32,
                ticket: *mut u32,
                status: *mut u64,
            ) {
                // SAFETY: the host launches per onesweep's contract.
                unsafe { onesweep::<$t, ITEMS, false>(&p, keys_in, keys_out, idx_in, idx_out, starts, ticket, status) }
            }

            #[unsafe(export_name = concat!("gpupy_sort_onesweep_idx_", stringify!($name)))]
            #[allow(clippy::too_many_arguments)]
            unsafe extern "ptx-kernel" fn si(
                p: SortPass,
                keys_in: *const $t,
                keys_out: *mut $t,
                idx_in: *const u32,
                idx_out: u64,
                starts: *const u32,
                ticket: *mut u32,
                status: *mut u64,
            ) {
                // SAFETY: the host launches per onesweep's contract.
                unsafe { onesweep::<$t, ITEMS, true>(&p, keys_in, keys_out, idx_in, idx_out, starts, ticket, status) }
            }
        };
    )* };
}
crate::for_each_sort_dtype!(sort_entries);

#[unsafe(export_name = "gpupy_sort_starts")]
unsafe extern "ptx-kernel" fn starts_entry(
    counts: *mut u32,
    key_passes: u32,
    passes: u32,
    rows: u32,
    row_len: u32,
) {
    // SAFETY: the host launches per starts' contract.
    unsafe { starts(counts, key_passes, passes, rows, row_len) }
}
