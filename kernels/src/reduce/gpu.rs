//! The reduction engine: three generic kernel bodies, stamped per (reduction, dtype) from
//! `table.rs`, with the meaning of each reduction in `reduction.rs`.
//!
//! - `block`: slices that are contiguous (or at least long): a group of threads (one
//!   block, or one warp for short slices) folds each slice or chunk of a slice, reading
//!   16-byte packs when aligned, then merges through warp shuffles and shared memory.
//!   Reducing a whole array or the last axis runs here.
//! - `serial`: one thread per output folds its slice alone; neighbouring threads own
//!   neighbouring outputs, so reducing across rows (`axis=0` of a C array) reads whole
//!   coalesced rows. `grid.y` splits long slices so that few outputs still fill the GPU.
//! - `merge`: like `block`, over the accumulators that split launches leave behind,
//!   and finishes them.
//!
//! Which one runs, and the splits, is the host's choice (`host/src/ops/reduce/`).

use crate::args::{REDUCE_BLOCK, REDUCE_SMEM, Reduce};
use crate::dtype::{lanes, load_pack};
use crate::gpu::{
    block_idx, block_idx_y, ld_shared_words, shfl_down_words, smem_addr, st_shared_words,
    sync_threads, thread_idx,
};
use crate::reduce::reduction::{self, Reduction};

const WARPS: u32 = REDUCE_BLOCK / 32;

/// Merges `acc` across the warp; the result is valid in lane 0.
#[inline(always)]
fn warp_merge<T, R: Reduction<T>>(mut acc: R::Acc) -> R::Acc {
    let mut d = 16;
    while d > 0 {
        acc = R::merge(acc, shfl_down_words(acc, d));
        d /= 2;
    }
    acc
}

/// Merges `acc` across the block; the result is valid in thread 0. Every thread of the
/// block must call it.
#[inline(always)]
fn block_merge<T, R: Reduction<T>>(acc: R::Acc) -> R::Acc {
    const { assert!(core::mem::size_of::<R::Acc>() as u32 * WARPS <= REDUCE_SMEM) };
    let size = core::mem::size_of::<R::Acc>() as u32;
    let (lane, warp) = (thread_idx() % 32, thread_idx() / 32);
    let acc = warp_merge::<T, R>(acc);
    if lane == 0 {
        // SAFETY: WARPS slots of `size` bytes fit REDUCE_SMEM (asserted above), which the
        // host gives every reduction launch.
        unsafe { st_shared_words(smem_addr(warp * size), acc) };
    }
    sync_threads();
    let mut r = R::init();
    if warp == 0 {
        if lane < WARPS {
            // SAFETY: slot `lane` was written before the barrier.
            r = unsafe { ld_shared_words(smem_addr(lane * size)) };
        }
        r = warp_merge::<T, R>(r);
    }
    r
}

/// Folds a pack whose first element is at position `first`. Unrolled by hand: a rolled
/// loop indexes the pack at run time, which puts it in local memory.
#[inline(always)]
fn fold_pack<T: Copy, R: Reduction<T>, const N: usize>(
    mut acc: R::Acc,
    p: [T; N],
    first: u64,
) -> R::Acc {
    macro_rules! at {
        ($($k:literal)*) => { $( if $k < N { acc = R::fold(acc, p[$k], (first + $k) as i64); } )* };
    }
    at!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    acc
}

/// Folds this thread's share of elements `lo..hi` of the slice at `x`: elements
/// `lo + t, lo + t + nt, ...`, or whole packs of `N` when `packed`.
///
/// # Safety
/// `x[i * step]` is readable for `i` in `lo..hi`; when `packed`, `step` is 1 and `x + lo`
/// is aligned to `N` elements.
#[inline(always)]
unsafe fn fold_share<T: Copy, R: Reduction<T>, const N: usize>(
    x: *const T,
    step: i64,
    lo: u64,
    hi: u64,
    t: u64,
    nt: u64,
    packed: bool,
) -> R::Acc {
    let (mut a0, mut a1) = (R::init(), R::init());
    let mut tail = lo;
    if packed && N > 1 {
        let (first, end) = (lo / N as u64, hi / N as u64);
        let mut j = first + t;
        // Two packs in flight per thread: a memory-bound loop needs the bytes in flight.
        while j + nt < end {
            // SAFETY: j + nt < end keeps both packs inside lo..hi; aligned per the contract.
            let (p, q) = unsafe {
                (
                    load_pack::<T, N>(x.add(j as usize * N)),
                    load_pack::<T, N>(x.add((j + nt) as usize * N)),
                )
            };
            a0 = fold_pack::<T, R, N>(a0, p, j * N as u64);
            a1 = fold_pack::<T, R, N>(a1, q, (j + nt) * N as u64);
            j += 2 * nt;
        }
        if j < end {
            // SAFETY: as above.
            let p = unsafe { load_pack::<T, N>(x.add(j as usize * N)) };
            a0 = fold_pack::<T, R, N>(a0, p, j * N as u64);
        }
        tail = end * N as u64;
    }
    let mut i = tail + t;
    while i + nt < hi {
        // SAFETY: i and i + nt are below hi.
        let (p, q) = unsafe {
            (
                *x.offset(i as isize * step as isize),
                *x.offset((i + nt) as isize * step as isize),
            )
        };
        a0 = R::fold(a0, p, i as i64);
        a1 = R::fold(a1, q, (i + nt) as i64);
        i += 2 * nt;
    }
    if i < hi {
        // SAFETY: i < hi.
        a0 = R::fold(
            a0,
            unsafe { *x.offset(i as isize * step as isize) },
            i as i64,
        );
    }
    R::merge(a0, a1)
}

/// Writes output `o`'s result, or chunk `s`'s accumulator when the slice is split.
/// The merge kernel passes a null `partial`, which removes the second branch at compile
/// time (LLVM 22's straight-line strength reduction crashes on a GEP from null).
///
/// # Safety
/// `o < outputs`, `s < splits`; `out` has `outputs` elements, `partial` (when splits > 1)
/// `outputs * splits`.
#[inline(always)]
unsafe fn store<T, R: Reduction<T>>(
    a: &Reduce,
    o: u64,
    s: u64,
    acc: R::Acc,
    out: *mut R::Out,
    partial: *mut R::Acc,
) {
    // SAFETY: per the contract.
    unsafe {
        if a.splits == 1 || partial.is_null() {
            *out.add(o as usize) = R::finish(acc, &a.finish);
        } else {
            *partial.add((o * a.splits as u64 + s) as usize) = acc;
        }
    }
}

/// The cooperative kernel over inputs of type `T` (see the module comment). The group
/// (warp or block) for output `o` and chunk `s` folds elements `s*chunk ..` of the
/// slice, merges, and its first thread stores.
///
/// # Safety
/// Every slice `o < outputs` at `x + kept.offsets(o)` holds `n` readable elements at
/// `step`; the launch has `REDUCE_BLOCK` threads, `REDUCE_SMEM` shared bytes and
/// `outputs * splits` blocks (block mode) or `outputs / WARPS` rounded up (warp mode).
#[inline(always)]
unsafe fn block<T: Copy, R: Reduction<T>, const N: usize>(
    x: *const T,
    out: *mut R::Out,
    partial: *mut R::Acc,
    a: &Reduce,
) {
    let unit = block_idx() as u64;
    if a.warp_per_output != 0 {
        let o = unit * WARPS as u64 + (thread_idx() / 32) as u64;
        if o >= a.outputs {
            return; // the whole warp leaves: warp mode has no block-wide barrier
        }
        let base = a.kept.offsets(o)[0];
        // SAFETY: the slice of output o is in bounds per the contract.
        let acc = unsafe {
            fold_share::<T, R, N>(
                x.offset(base as isize),
                a.step,
                0,
                a.n,
                (thread_idx() % 32) as u64,
                32,
                a.packed != 0,
            )
        };
        let acc = warp_merge::<T, R>(acc);
        if thread_idx().is_multiple_of(32) {
            // SAFETY: o < outputs; warp mode never splits.
            unsafe { store::<T, R>(a, o, 0, acc, out, partial) };
        }
        return;
    }
    let (o, s) = (unit / a.splits as u64, unit % a.splits as u64);
    let base = a.kept.offsets(o)[0];
    let lo = s * a.chunk;
    let hi = if lo + a.chunk < a.n {
        lo + a.chunk
    } else {
        a.n
    };
    // SAFETY: lo..hi lies inside the slice; chunks are whole packs when packed.
    let acc = unsafe {
        fold_share::<T, R, N>(
            x.offset(base as isize),
            a.step,
            lo,
            hi,
            thread_idx() as u64,
            REDUCE_BLOCK as u64,
            a.packed != 0,
        )
    };
    let acc = block_merge::<T, R>(acc);
    if thread_idx() == 0 {
        // SAFETY: o < outputs and s < splits, from the grid size.
        unsafe { store::<T, R>(a, o, s, acc, out, partial) };
    }
}

/// The one-thread-per-output kernel: thread `o` folds chunk `blockIdx.y` of its slice.
///
/// # Safety
/// As for `block`; the grid is (`outputs / REDUCE_BLOCK` rounded up, `splits`).
#[inline(always)]
unsafe fn serial<T: Copy, R: Reduction<T>>(
    x: *const T,
    out: *mut R::Out,
    partial: *mut R::Acc,
    a: &Reduce,
) {
    let o = block_idx() as u64 * REDUCE_BLOCK as u64 + thread_idx() as u64;
    if o >= a.outputs {
        return;
    }
    let s = block_idx_y() as u64;
    let base = a.kept.offsets(o)[0];
    let lo = s * a.chunk;
    let hi = if lo + a.chunk < a.n {
        lo + a.chunk
    } else {
        a.n
    };
    // Four loads in flight: each thread walks its slice alone.
    let (mut a0, mut a1, mut a2, mut a3) = (R::init(), R::init(), R::init(), R::init());
    // SAFETY: the slice of output o is in bounds per the contract.
    let p = unsafe { x.offset(base as isize) };
    let step = a.step as isize;
    let mut i = lo;
    while i + 4 <= hi {
        // SAFETY: i + 3 < hi.
        let v = unsafe {
            [
                *p.offset(i as isize * step),
                *p.offset((i + 1) as isize * step),
                *p.offset((i + 2) as isize * step),
                *p.offset((i + 3) as isize * step),
            ]
        };
        a0 = R::fold(a0, v[0], i as i64);
        a1 = R::fold(a1, v[1], i as i64 + 1);
        a2 = R::fold(a2, v[2], i as i64 + 2);
        a3 = R::fold(a3, v[3], i as i64 + 3);
        i += 4;
    }
    while i < hi {
        // SAFETY: i < hi.
        a0 = R::fold(a0, unsafe { *p.offset(i as isize * step) }, i as i64);
        i += 1;
    }
    let acc = R::merge(R::merge(a0, a1), R::merge(a2, a3));
    // SAFETY: o < outputs, s < splits.
    unsafe { store::<T, R>(a, o, s, acc, out, partial) };
}

/// Merges and finishes the `splits` accumulators of each output, left by a split launch
/// at `partial[o * splits ..]`; the launch is `block`'s with `n = splits`, one chunk.
///
/// # Safety
/// `partial` holds `outputs * n` accumulators; `a.kept` maps o to `o * n`, `step` is 1.
#[inline(always)]
unsafe fn merge<T, R: Reduction<T>>(partial: *const R::Acc, out: *mut R::Out, a: &Reduce) {
    struct Merged<T, R>(core::marker::PhantomData<(T, R)>);
    impl<T, R: Reduction<T>> Reduction<R::Acc> for Merged<T, R> {
        type Acc = R::Acc;
        type Out = R::Out;
        fn init() -> R::Acc {
            R::init()
        }
        fn fold(acc: R::Acc, x: R::Acc, _: i64) -> R::Acc {
            R::merge(acc, x)
        }
        fn merge(a: R::Acc, b: R::Acc) -> R::Acc {
            R::merge(a, b)
        }
        fn finish(acc: R::Acc, f: &reduction::Finish) -> R::Out {
            R::finish(acc, f)
        }
    }
    // SAFETY: forwarded; accumulators are never read as packs (N = 1).
    unsafe { block::<R::Acc, Merged<T, R>, 1>(partial, out, core::ptr::null_mut(), a) }
}

macro_rules! reduce_entries {
    ([] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => { $( $( reduce_entry!($Op, $op, $ty); )* )* };
}

macro_rules! reduce_entry {
    ($Op:ident, $op:ident, $ty:ident) => {
        const _: () = {
            use crate::dtype::{c128, c64};
            type R = reduction::$Op;
            type Acc = <R as Reduction<$ty>>::Acc;
            type Out = <R as Reduction<$ty>>::Out;
            const N: usize = lanes(core::mem::size_of::<$ty>(), 1);
            #[unsafe(export_name = concat!("gpupy_reduce_", stringify!($op), "_", stringify!($ty), "_block"))]
            unsafe extern "ptx-kernel" fn block_entry(x: *const $ty, out: *mut Out, partial: *mut Acc, a: Reduce) {
                // SAFETY: the host launches per `block`'s contract.
                unsafe { block::<$ty, R, N>(x, out, partial, &a) }
            }
            #[unsafe(export_name = concat!("gpupy_reduce_", stringify!($op), "_", stringify!($ty), "_serial"))]
            unsafe extern "ptx-kernel" fn serial_entry(x: *const $ty, out: *mut Out, partial: *mut Acc, a: Reduce) {
                // SAFETY: the host launches per `serial`'s contract.
                unsafe { serial::<$ty, R>(x, out, partial, &a) }
            }
            #[unsafe(export_name = concat!("gpupy_reduce_", stringify!($op), "_", stringify!($ty), "_merge"))]
            unsafe extern "ptx-kernel" fn merge_entry(partial: *const Acc, out: *mut Out, a: Reduce) {
                // SAFETY: the host launches per `merge`'s contract.
                unsafe { merge::<$ty, R>(partial, out, &a) }
            }
            #[allow(unused_imports)]
            use {c128 as _, c64 as _};
        };
    };
}

crate::for_each_reduce_op!(reduce_entries);
