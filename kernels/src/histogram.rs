//! Counting: `bincount`, `histogram` (uniform bins and explicit edges) and the min/max
//! scan they start from.
//!
//! Every counting kernel is one grid-stride pass that maps each element to a bin (or to
//! none) and adds 1, or its weight, to that bin with an atomic. When the bins fit in
//! shared memory (`PRIVATE_COUNT_BINS` counters, `PRIVATE_WEIGHT_BINS` weights), each
//! block first counts into its own shared-memory histogram, where atomics are cheap and
//! contention stays inside the block, then adds its nonzero bins to the global result;
//! otherwise every element goes straight to a global atomic.
//!
//! `gpupy_minmax_<t>` finds the smallest and largest value (and whether there is a NaN)
//! with integer atomics on order-preserving keys, since CUDA has no float min/max atomics.
//!
//! The bin functions (`uniform_bin`, `edges_bin`) and the keys compile for the host too,
//! where `cargo test` checks them against NumPy's rules.

use crate::dtype::Cast;

/// Most bins a block counts privately in shared memory (u32 counters, 32 KiB).
pub const PRIVATE_COUNT_BINS: u64 = 8192;
/// Most bins a block sums weights privately in shared memory (f64, 32 KiB).
pub const PRIVATE_WEIGHT_BINS: u64 = 4096;
/// Threads per block of the counting kernels.
pub const HIST_BLOCK: u32 = 256;

/// Order-preserving keys: `a < b` exactly when `key(a) < key(b)` (NaN excluded), so
/// min/max run on unsigned integer atomics.
pub trait MinMaxKey: Copy {
    fn key(self) -> u64;
    fn is_nan(self) -> bool;
}

impl MinMaxKey for i64 {
    #[inline(always)]
    fn key(self) -> u64 {
        (self as u64) ^ (1 << 63)
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        false
    }
}

/// Floats: flip every bit of a negative value, only the sign bit of a positive one.
impl MinMaxKey for f64 {
    #[inline(always)]
    fn key(self) -> u64 {
        let b = self.to_bits();
        if b >> 63 != 0 { !b } else { b | 1 << 63 }
    }
    #[inline(always)]
    #[allow(clippy::eq_op)]
    fn is_nan(self) -> bool {
        self != self
    }
}

/// float32 and float16 widen exactly to float64, which keeps their order.
macro_rules! widened_key {
    ($($t:ty)*) => { $(
        impl MinMaxKey for $t {
            #[inline(always)]
            fn key(self) -> u64 {
                (self as f64).key()
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                (self as f64).is_nan()
            }
        }
    )* };
}
widened_key!(f32 f16);

/// The value of an `i64` key.
pub fn i64_from_key(k: u64) -> i64 {
    (k ^ (1 << 63)) as i64
}

/// The value of a float key (every float kernel keys the value widened to float64).
pub fn f64_from_key(k: u64) -> f64 {
    f64::from_bits(if k >> 63 != 0 { k & !(1 << 63) } else { !k })
}

/// NumPy's bin of `v` in `histogram`'s uniform-bins path, exactly:
/// `int((v - lo) / denom * scale)` with each operation in NumPy's dtype (`v - lo` in the
/// bin-edge type `T`, the division and product in `D`), the last edge counted in the last
/// bin, then the correction against the bin edges (`v < edge[i]` moves down one bin,
/// `v >= edge[i + 1]` up one, except from the last bin). `None` outside `[lo, hi]` (NaN too).
#[inline(always)]
pub fn uniform_bin<T, D>(
    v: T,
    lo: T,
    hi: T,
    denom: D,
    scale: D,
    nbins: u64,
    edge: impl Fn(u64) -> T,
) -> Option<u64>
where
    T: Copy + PartialOrd + core::ops::Sub<Output = T> + Cast<D>,
    D: Copy + core::ops::Div<Output = D> + core::ops::Mul<Output = D> + Cast<i64>,
{
    if !(v >= lo && v <= hi) {
        return None;
    }
    let f: D = Cast::<D>::cast(v - lo) / denom * scale;
    let last = nbins as i64 - 1;
    // NumPy moves index `nbins` (v on the last edge) to the last bin. Anything further out
    // cannot come from a value inside [lo, hi]; clamping keeps memory safe regardless.
    let mut i = Cast::<i64>::cast(f).clamp(0, last);
    if i > 0 && v < edge(i as u64) {
        i -= 1;
    }
    if i != last && v >= edge(i as u64 + 1) {
        i += 1;
    }
    Some(i as u64)
}

/// NumPy's bin of `v` for explicit, monotonic edges `edge(0..=nbins)`: the last `i` with
/// `edge(i) <= v`, where bin `i` is `[edge(i), edge(i + 1))` and the last bin also holds
/// its right edge (NumPy's `searchsorted` left on every edge but the last, right on it).
/// `None` below the first edge, above the last, and for NaN.
#[inline(always)]
// `!(v <= last edge)` is deliberate: it is also true for NaN, which falls in no bin.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub fn edges_bin<T: Copy + PartialOrd>(v: T, nbins: u64, edge: impl Fn(u64) -> T) -> Option<u64> {
    // Upper bound among the first nbins edges: how many are <= v.
    let (mut lo, mut hi) = (0u64, nbins);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if edge(mid) <= v {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo == 0 {
        return None;
    }
    let i = lo - 1;
    if i == nbins - 1 && !(v <= edge(nbins)) {
        return None;
    }
    Some(i)
}

#[cfg(target_arch = "nvptx64")]
mod gpu_kernels {
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
        unsafe {
            asm!("red.add.f64 [{a}], {v};", a = in(reg64) p, v = in(reg64) w, options(nostack))
        }
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
        ($($t:ident)*) => { $(
            const _: () = {
                #[unsafe(export_name = concat!("gpupy_minmax_", stringify!($t)))]
                unsafe extern "ptx-kernel" fn entry(x: *const $t, n: u64, out: *mut u64) {
                    // SAFETY: the host launches per minmax's contract.
                    unsafe { minmax::<$t>(x, n, out) }
                }
            };
        )* };
    }
    minmax_entries!(i64 f16 f32 f64);

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
            histogram_entries!($kind $weighted: (f16, f16) (f16, f64) (f32, f32) (f32, f64) (f64, f64));
            histedges_entries!($kind $weighted: i64 f32 f64);
        )* };
    }

    macro_rules! histogram_entries {
        ($kind:ident $weighted:literal: $(($t:ident, $d:ident))*) => { $(
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
        ($kind:ident $weighted:literal: $($t:ident)*) => { $(
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_order() {
        let fs = [
            f64::NEG_INFINITY,
            -1e300,
            -1.5,
            -0.0,
            0.0,
            1e-310,
            2.0,
            f64::INFINITY,
        ];
        for w in fs.windows(2) {
            assert!(w[0].key() < w[1].key(), "{} {}", w[0], w[1]);
        }
        for v in fs {
            assert_eq!(f64_from_key(v.key()).to_bits(), v.to_bits());
        }
        let is = [i64::MIN, -5, -1, 0, 1, i64::MAX];
        for w in is.windows(2) {
            assert!(w[0].key() < w[1].key());
        }
        for v in is {
            assert_eq!(i64_from_key(v.key()), v);
        }
        assert_eq!(f64_from_key((-3.5f32).key()), -3.5);
        assert_eq!(f64_from_key((0.25f16).key()), 0.25);
    }

    #[test]
    fn uniform_bins_follow_numpy() {
        let e = [0.0, 0.25, 0.5, 0.75, 1.0];
        let bin = |v: f64| uniform_bin::<f64, f64>(v, 0.0, 1.0, 1.0, 4.0, 4, |k| e[k as usize]);
        assert_eq!(bin(0.0), Some(0));
        assert_eq!(bin(0.25), Some(1)); // on an inner edge: the bin to its right
        assert_eq!(bin(0.999), Some(3));
        assert_eq!(bin(1.0), Some(3)); // the last edge is in the last bin
        assert_eq!(bin(-0.1), None);
        assert_eq!(bin(1.1), None);
        assert_eq!(bin(f64::NAN), None);
        // np.histogram([0.3], bins=10, range=(0, 1)) counts 0.3 in bin 2: 0.3 * 10 gives
        // index 3, but linspace's edge 3 is 3 * 0.1 = 0.30000000000000004 > 0.3.
        let e: Vec<f64> = (0..=10)
            .map(|i| if i == 10 { 1.0 } else { i as f64 * 0.1 })
            .collect();
        let b = uniform_bin::<f64, f64>(0.3, 0.0, 1.0, 1.0, 10.0, 10, |k| e[k as usize]);
        assert_eq!(b, Some(2));
    }

    #[test]
    fn explicit_edges_follow_searchsorted() {
        let e = [0.0, 1.0, 1.0, 2.0, 4.0];
        let bin = |v: f64| edges_bin(v, 4, |k| e[k as usize]);
        assert_eq!(bin(-1.0), None);
        assert_eq!(bin(0.0), Some(0));
        assert_eq!(bin(0.5), Some(0));
        assert_eq!(bin(1.0), Some(2)); // the empty bin [1, 1) holds nothing
        assert_eq!(bin(3.9), Some(3));
        assert_eq!(bin(4.0), Some(3)); // right edge of the last bin
        assert_eq!(bin(4.5), None);
        assert_eq!(bin(f64::NAN), None);
        let ints = [1i64, 3, 3];
        assert_eq!(edges_bin(3i64, 2, |k| ints[k as usize]), Some(1));
        assert_eq!(edges_bin(2i64, 2, |k| ints[k as usize]), Some(0));
    }
}
