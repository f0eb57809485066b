use core::arch::asm;
use core::sync::atomic::{AtomicU64, Ordering};

use super::{FIRST, IndexValue, NONZERO_OFFSETS, offset_term, unravel};
use crate::args::Strided;
use crate::gpu::{Shared, block_dim, block_idx, grid_stride, smem_addr, sync_threads, thread_idx};

/// `off[..] (+)= index * stride` over `s` (operands: off, idx); records in `err` the
/// lowest linear position whose index is out of range.
///
/// # Safety
/// Every offset `s` produces lies inside `off` and `idx`; `err` points to one u64.
#[inline(always)]
unsafe fn index_offsets<T: IndexValue>(
    s: &Strided<2>,
    idx: *const T,
    off: *mut i64,
    extent: u64,
    stride: i64,
    flags: u32,
    err: *mut u64,
) {
    let (start, step) = grid_stride();
    let mut i = start;
    while i < s.len {
        let [o, x] = s.offsets(i);
        // SAFETY: offsets are in bounds by the host's check.
        let v = unsafe { *idx.offset(x as isize) };
        let term = match offset_term(v, extent, stride, flags) {
            Some(t) => t,
            None => {
                // SAFETY: err is a valid, 8-byte aligned u64 in device memory, only
                // ever accessed atomically while kernels run.
                unsafe { AtomicU64::from_ptr(err) }.fetch_min(i, Ordering::Relaxed);
                0
            }
        };
        // SAFETY: as above.
        unsafe {
            let p = off.offset(o as isize);
            *p = if flags & FIRST != 0 {
                term
            } else {
                (*p).wrapping_add(term)
            };
        }
        i += step;
    }
}

/// `out[..] = src[x + off[k]]` over `s` (operands: out, src, off).
///
/// # Safety
/// Every offset `s` produces lies inside its operand, and every `x + off[k]` inside
/// `src` (the host checked every index before the launch).
#[inline(always)]
unsafe fn gather<T: Copy>(s: &Strided<3>, src: *const T, off: *const i64, out: *mut T) {
    let (start, step) = grid_stride();
    let mut i = start;
    while i < s.len {
        let [o, x, k] = s.offsets(i);
        // SAFETY: per the contract.
        unsafe {
            let d = *off.offset(k as isize);
            *out.offset(o as isize) = *src.offset((x + d) as isize);
        }
        i += step;
    }
}

/// `dst[d + off[k]] = val[..]` over `s` (operands: val, dst, off). With repeated
/// indices, which write lands is unspecified.
///
/// # Safety
/// As for `gather`, with `dst` in place of `src`; `val` does not overlap `dst`.
#[inline(always)]
unsafe fn scatter<T: Copy>(s: &Strided<3>, val: *const T, off: *const i64, dst: *mut T) {
    let (start, step) = grid_stride();
    let mut i = start;
    while i < s.len {
        let [v, d, k] = s.offsets(i);
        // SAFETY: per the contract.
        unsafe {
            let o = *off.offset(k as isize);
            *dst.offset((d + o) as isize) = *val.offset(v as isize);
        }
        i += step;
    }
}

/// `out[..] = cond[..] ? x[..] : y[..]` over `s` (operands: out, cond, x, y). `out` may
/// be `y` itself at the same offsets (a masked fill in place).
///
/// # Safety
/// Every offset `s` produces lies inside its operand; `out` overlaps no input except
/// exactly (the same element at the same position).
#[inline(always)]
unsafe fn select<T: Copy>(s: &Strided<4>, cond: *const u8, x: *const T, y: *const T, out: *mut T) {
    let (start, step) = grid_stride();
    let mut i = start;
    while i < s.len {
        let [o, c, a, b] = s.offsets(i);
        // SAFETY: per the contract.
        unsafe {
            let v = if *cond.offset(c as isize) != 0 {
                *x.offset(a as isize)
            } else {
                *y.offset(b as isize)
            };
            *out.offset(o as isize) = v;
        }
        i += step;
    }
}

/// The 32-lane ballot of `pred`; every lane of the warp must call it.
#[inline(always)]
fn ballot(pred: bool) -> u32 {
    let r: u32;
    // SAFETY: register-only; all 32 lanes take part (mask 0xffffffff), which holds
    // because the callers' loops are uniform over the block.
    unsafe {
        asm!(
            "{{ .reg .pred p; setp.ne.u32 p, {f}, 0; vote.sync.ballot.b32 {r}, p, 0xffffffff; }}",
            f = in(reg32) pred as u32,
            r = out(reg32) r,
            options(nostack, nomem)
        )
    };
    r
}

/// This block's chunk of `0..n`: `chunk` elements from `block * chunk`.
#[inline(always)]
fn chunk_of(n: u64, chunk: u64) -> (u64, u64) {
    let begin = block_idx() as u64 * chunk;
    let end = if begin + chunk < n { begin + chunk } else { n };
    (begin, end)
}

/// `counts[block] += number of nonzero bytes in this block's chunk of mask[..n]`.
///
/// # Safety
/// `mask` holds `n` bytes; `counts` one zeroed u64 per block; the block size is a
/// multiple of 32.
#[inline(always)]
unsafe fn nonzero_count(mask: *const u8, n: u64, chunk: u64, counts: *mut u64) {
    let (begin, end) = chunk_of(n, chunk);
    let t = thread_idx() as u64;
    let mut total: u64 = 0;
    let mut tile = begin;
    while tile < end {
        let e = tile + t;
        // SAFETY: e < end <= n.
        let f = e < end && unsafe { *mask.add(e as usize) } != 0;
        total += ballot(f).count_ones() as u64;
        tile += block_dim() as u64;
    }
    if thread_idx().is_multiple_of(32) && total != 0 {
        // SAFETY: one slot per block, 8-byte aligned device memory, only touched
        // atomically by this launch.
        unsafe { AtomicU64::from_ptr(counts.add(block_idx() as usize)) }
            .fetch_add(total, Ordering::Relaxed);
    }
}

/// Writes every true element of this block's chunk at its rank: `starts[block]` plus
/// the true elements before it in the chunk. `NONZERO_COORDS` writes coordinate `c`
/// of axis `a` at `out[a * nnz + rank]` (shape `s.shape`); `NONZERO_OFFSETS` writes
/// `s.offsets(e)[0]` at `out[rank]`.
///
/// # Safety
/// `mask` holds `n` bytes and `starts` one u64 per block (the exclusive scan of the
/// counts); `out` holds `ndim * nnz` (coords) or `nnz` (offsets) int64; the block size
/// is a multiple of 32 and the launch gives `block_dim / 32 * 4` bytes of shared memory.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn nonzero_write(
    mask: *const u8,
    n: u64,
    chunk: u64,
    starts: *const u64,
    s: &Strided<1>,
    nnz: u64,
    out: *mut i64,
    mode: u32,
) {
    let (begin, end) = chunk_of(n, chunk);
    let t = thread_idx();
    let (lane, warp, nwarps) = (t % 32, t / 32, block_dim() / 32);
    let below = (1u32 << lane) - 1;
    // SAFETY: one start per block.
    let mut base = unsafe { *starts.add(block_idx() as usize) };
    let mut tile = begin;
    while tile < end {
        let e = tile + t as u64;
        // SAFETY: e < end <= n.
        let f = e < end && unsafe { *mask.add(e as usize) } != 0;
        let votes = ballot(f);
        if lane == 0 {
            // SAFETY: warp < nwarps slots fit the launch's shared size.
            unsafe { u32::st_shared(smem_addr(warp * 4), votes.count_ones()) };
        }
        sync_threads();
        let (mut before, mut tile_total) = (0u64, 0u64);
        let mut w = 0;
        while w < nwarps {
            // SAFETY: slot w was written before the barrier.
            let c = unsafe { u32::ld_shared(smem_addr(w * 4)) } as u64;
            if w < warp {
                before += c;
            }
            tile_total += c;
            w += 1;
        }
        if f {
            let rank = base + before + (votes & below).count_ones() as u64;
            if mode == NONZERO_OFFSETS {
                // SAFETY: rank < nnz, the total of all counts.
                unsafe { *out.add(rank as usize) = s.offsets(e)[0] };
            } else {
                unravel(s, e, |axis, c| {
                    // SAFETY: axis < ndim and rank < nnz.
                    unsafe { *out.add(axis * nnz as usize + rank as usize) = c as i64 };
                });
            }
        }
        // Every thread has read the slots before the next tile overwrites them.
        sync_threads();
        base += tile_total;
        tile += block_dim() as u64;
    }
}

macro_rules! offsets_entries {
    ([] $($t:ident)*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_index_offsets_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn offsets(
                s: Strided<2>,
                idx: *const $t,
                off: *mut i64,
                extent: u64,
                stride: i64,
                flags: u32,
                err: *mut u64,
            ) {
                // SAFETY: the host launches with offsets inside both arrays and err
                // pointing to one u64.
                unsafe { index_offsets::<$t>(&s, idx, off, extent, stride, flags, err) }
            }
        };
    )* };
}
crate::for_each_index_type!(offsets_entries);

macro_rules! move_entries {
    ([] $(($bytes:literal, $ty:ident))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_gather_", stringify!($bytes)))]
            unsafe extern "ptx-kernel" fn g(s: Strided<3>, src: *const $ty, off: *const i64, out: *mut $ty) {
                // SAFETY: the host checked every index and every layout.
                unsafe { gather::<$ty>(&s, src, off, out) }
            }
            #[unsafe(export_name = concat!("gpupy_scatter_", stringify!($bytes)))]
            unsafe extern "ptx-kernel" fn sc(s: Strided<3>, val: *const $ty, off: *const i64, dst: *mut $ty) {
                // SAFETY: as above; the host copies a value that overlaps dst first.
                unsafe { scatter::<$ty>(&s, val, off, dst) }
            }
            #[unsafe(export_name = concat!("gpupy_select_", stringify!($bytes)))]
            unsafe extern "ptx-kernel" fn sel(s: Strided<4>, cond: *const u8, x: *const $ty, y: *const $ty, out: *mut $ty) {
                // SAFETY: the host checked every layout and the overlaps.
                unsafe { select::<$ty>(&s, cond, x, y, out) }
            }
        };
    )* };
}
crate::for_each_item_size!(move_entries);

#[unsafe(export_name = "gpupy_nonzero_count")]
unsafe extern "ptx-kernel" fn count(mask: *const u8, n: u64, chunk: u64, counts: *mut u64) {
    // SAFETY: the host launches per nonzero_count's contract.
    unsafe { nonzero_count(mask, n, chunk, counts) }
}

#[unsafe(export_name = "gpupy_nonzero_write")]
#[allow(clippy::too_many_arguments)]
unsafe extern "ptx-kernel" fn write(
    mask: *const u8,
    n: u64,
    chunk: u64,
    starts: *const u64,
    s: Strided<1>,
    nnz: u64,
    out: *mut i64,
    mode: u32,
) {
    // SAFETY: the host launches per nonzero_write's contract.
    unsafe { nonzero_write(mask, n, chunk, starts, &s, nnz, out, mode) }
}
