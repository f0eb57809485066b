use core::arch::asm;
use core::sync::atomic::{AtomicU64, Ordering};

use super::{MinMaxKey, edges_bin, uniform_bin};
use crate::dtype::Cast;
use crate::gpu::{
    Shared, block_dim, grid_stride, shfl_down_words, smem_addr, sync_threads, thread_idx,
};

/// Adds `w` to the f64 at `p` (generic address of global memory) atomically.
///
/// # Safety
/// `p` points to an 8-byte aligned f64 in device memory only accessed atomically
/// while the kernel runs.
#[inline(always)]
unsafe fn red_add_f64(p: *mut u64, w: f64) {
    // SAFETY: per the contract.
    unsafe { asm!("red.add.f64 [{a}], {v};", a = in(reg64) p, v = in(reg64) w, options(nostack)) }
}

/// Sums `counts` of bin `b` into the global histogram.
///
/// # Safety
/// `out` holds `b + 1` slots, only accessed atomically while the kernel runs.
#[inline(always)]
unsafe fn global_add<const WEIGHTED: bool>(out: *mut u64, b: u64, count: u64, weight: f64) {
    // SAFETY: per the contract.
    unsafe {
        if WEIGHTED {
            red_add_f64(out.add(b as usize), weight);
        } else {
            AtomicU64::from_ptr(out.add(b as usize)).fetch_add(count, Ordering::Relaxed);
        }
    }
}

/// The counting pass: `out[bin_of(i)] += 1` (or `w[i]`) for `i < n`.
///
/// # Safety
/// `out` holds `nbins` zeroed u64 (counts) or f64 (weights) slots; `w` holds `n` f64
/// when `WEIGHTED`; `bin_of` reads only inside its arrays. With `private`, `nbins` is
/// at most `PRIVATE_COUNT_BINS` (`PRIVATE_WEIGHT_BINS`), the launch gives 4 (8) bytes
/// of shared memory per bin, and no block visits 2^32 elements.
#[inline(always)]
unsafe fn accumulate<const WEIGHTED: bool>(
    n: u64,
    w: *const f64,
    out: *mut u64,
    nbins: u64,
    private: bool,
    bin_of: impl Fn(u64) -> Option<u64>,
) {
    let t = thread_idx() as u64;
    let b = block_dim() as u64;
    let slot = if WEIGHTED { 8 } else { 4 };
    if private {
        let mut k = t;
        while k < nbins {
            // SAFETY: k < nbins slots fit the launch's shared size.
            unsafe {
                if WEIGHTED {
                    u64::st_shared(smem_addr(k as u32 * slot), 0);
                } else {
                    u32::st_shared(smem_addr(k as u32 * slot), 0);
                }
            }
            k += b;
        }
        sync_threads();
    }
    let (start, stride) = grid_stride();
    let mut i = start;
    while i < n {
        if let Some(bin) = bin_of(i)
            && bin < nbins
        {
            // SAFETY: i < n; bin < nbins, inside the shared and the global histogram.
            unsafe {
                let wv = if WEIGHTED { *w.add(i as usize) } else { 0.0 };
                if !private {
                    global_add::<WEIGHTED>(out, bin, 1, wv);
                } else if WEIGHTED {
                    let a = smem_addr(bin as u32 * slot);
                    asm!("red.shared.add.f64 [{a}], {v};", a = in(reg32) a, v = in(reg64) wv, options(nostack));
                } else {
                    let a = smem_addr(bin as u32 * slot);
                    asm!("red.shared.add.u32 [{a}], 1;", a = in(reg32) a, options(nostack));
                }
            }
        }
        i += stride;
    }
    if private {
        sync_threads();
        let mut k = t;
        while k < nbins {
            // SAFETY: k < nbins, written by this block before the barrier.
            unsafe {
                if WEIGHTED {
                    let v = f64::from_bits(u64::ld_shared(smem_addr(k as u32 * slot)));
                    if v != 0.0 {
                        global_add::<true>(out, k, 0, v);
                    }
                } else {
                    let v = u32::ld_shared(smem_addr(k as u32 * slot));
                    if v != 0 {
                        global_add::<false>(out, k, v as u64, 0.0);
                    }
                }
            }
            k += b;
        }
    }
}

/// `out[0] = min(out[0], min key)`, `out[1] = max(out[1], max key)`, `out[2] |= 1` if
/// there is a NaN, over `x[..n]`: per-thread, then per-warp with shuffles, then one
/// atomic per warp.
///
/// # Safety
/// `x` holds `n` elements; `out` three u64 (initialized to `u64::MAX, 0, 0`), only
/// accessed atomically while the kernel runs; the block size is a multiple of 32.
#[inline(always)]
unsafe fn minmax<T: MinMaxKey>(x: *const T, n: u64, out: *mut u64) {
    let (start, stride) = grid_stride();
    let (mut lo, mut hi, mut nan) = (u64::MAX, 0u64, 0u32);
    let mut i = start;
    while i < n {
        // SAFETY: i < n.
        let v = unsafe { *x.add(i as usize) };
        if v.is_nan() {
            nan = 1;
        } else {
            let k = v.key();
            lo = if k < lo { k } else { lo };
            hi = if k > hi { k } else { hi };
        }
        i += stride;
    }
    let mut d = 16;
    while d > 0 {
        let (l, h) = (shfl_down_words(lo, d), shfl_down_words(hi, d));
        lo = if l < lo { l } else { lo };
        hi = if h > hi { h } else { hi };
        nan |= shfl_down_words(nan, d);
        d /= 2;
    }
    if thread_idx().is_multiple_of(32) {
        // SAFETY: per the contract.
        unsafe {
            if lo != u64::MAX || hi != 0 {
                AtomicU64::from_ptr(out).fetch_min(lo, Ordering::Relaxed);
                AtomicU64::from_ptr(out.add(1)).fetch_max(hi, Ordering::Relaxed);
            }
            if nan != 0 {
                AtomicU64::from_ptr(out.add(2)).fetch_or(1, Ordering::Relaxed);
            }
        }
    }
}

macro_rules! minmax_entries {
    ([] $($t:ident)*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_minmax_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn entry(x: *const $t, n: u64, out: *mut u64) {
                // SAFETY: the host launches per minmax's contract.
                unsafe { minmax::<$t>(x, n, out) }
            }
        };
    )* };
}
crate::for_each_minmax_type!(minmax_entries);

macro_rules! counting_entries {
    ($($kind:ident $weighted:literal)*) => { $(
        const _: () = {
            /// `out[x[i]] += 1` (or `w[i]`); the host checked `0 <= x[i] < nbins`.
            #[unsafe(export_name = concat!("gpupy_bincount_", stringify!($kind)))]
            unsafe extern "ptx-kernel" fn bincount(
                x: *const i64, n: u64, w: *const f64, out: *mut u64, nbins: u64, private: u32,
            ) {
                // SAFETY: the host launches per accumulate's contract; x holds n values.
                unsafe {
                    accumulate::<$weighted>(n, w, out, nbins, private != 0, |i| Some(*x.add(i as usize) as u64))
                }
            }
        };
        crate::for_each_histogram_pair!(histogram_entries, $kind, $weighted);
        crate::for_each_edges_type!(histedges_entries, $kind, $weighted);
    )* };
}

macro_rules! histogram_entries {
    ([$kind:ident $weighted:literal] $(($t:ident, $d:ident))*) => { $(
        const _: () = {
            /// NumPy's uniform bins over `[lo, hi]`; `edges` are NumPy's `nbins + 1` edges.
            #[unsafe(export_name = concat!("gpupy_histogram_", stringify!($t), "_", stringify!($d), "_", stringify!($kind)))]
            #[allow(clippy::too_many_arguments)]
            unsafe extern "ptx-kernel" fn hist(
                x: *const $t, n: u64, w: *const f64, out: *mut u64, nbins: u64, private: u32,
                edges: *const $t, lo: f64, hi: f64, denom: f64, scale: f64,
            ) {
                // The host passes values exactly representable in $t and $d.
                let (lo, hi): ($t, $t) = (Cast::<$t>::cast(lo), Cast::<$t>::cast(hi));
                let (denom, scale): ($d, $d) = (Cast::<$d>::cast(denom), Cast::<$d>::cast(scale));
                // SAFETY: x holds n values and edges nbins + 1; uniform_bin reads edges
                // 0..=nbins only.
                unsafe {
                    accumulate::<$weighted>(n, w, out, nbins, private != 0, |i| {
                        let v = *x.add(i as usize);
                        uniform_bin::<$t, $d>(v, lo, hi, denom, scale, nbins, |k| *edges.add(k as usize))
                    })
                }
            }
        };
    )* };
}

macro_rules! histedges_entries {
    ([$kind:ident $weighted:literal] $($t:ident)*) => { $(
        const _: () = {
            /// Bins given by `nbins + 1` monotonic edges, found by binary search.
            #[unsafe(export_name = concat!("gpupy_histedges_", stringify!($t), "_", stringify!($kind)))]
            #[allow(clippy::too_many_arguments)]
            unsafe extern "ptx-kernel" fn hist(
                x: *const $t, n: u64, w: *const f64, out: *mut u64, nbins: u64, private: u32,
                edges: *const $t,
            ) {
                // SAFETY: x holds n values and edges nbins + 1 (edges_bin reads 0..=nbins).
                unsafe {
                    accumulate::<$weighted>(n, w, out, nbins, private != 0, |i| {
                        edges_bin::<$t>(*x.add(i as usize), nbins, |k| *edges.add(k as usize))
                    })
                }
            }
        };
    )* };
}

counting_entries!(count false weight true);
