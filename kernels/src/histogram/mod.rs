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

#[cfg(all(target_arch = "nvptx64", feature = "histogram"))]
mod gpu;

/// The key types of the min/max pass (narrower integers and bool are widened to int64).
#[macro_export]
macro_rules! for_each_minmax_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] i64 f16 f32 f64 } };
}
/// Uniform bins: `(value type, type the bin index is computed in)`.
#[macro_export]
macro_rules! for_each_histogram_pair {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*] (f16, f16) (f16, f64) (f32, f32) (f32, f64) (f64, f64) }
    };
}
/// Explicit bin edges: the comparison types.
#[macro_export]
macro_rules! for_each_edges_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] i64 f32 f64 } };
}

macro_rules! type_names {
    ([$prefix:literal $suffix:literal] $($t:ident)*) => {
        &[$(concat!($prefix, stringify!($t), $suffix)),*]
    };
}
macro_rules! pair_names {
    ([$suffix:literal] $(($t:ident, $d:ident))*) => {
        &[$(concat!("gpupy_histogram_", stringify!($t), "_", stringify!($d), $suffix)),*]
    };
}
macro_rules! type_keys {
    ([] $($t:ident)*) => { &[$(<$t as crate::dtype::DTypeIndex>::INDEX),*] };
}
macro_rules! pair_keys {
    ([] $(($t:ident, $d:ident))*) => {
        &[$((<$t as crate::dtype::DTypeIndex>::INDEX, <$d as crate::dtype::DTypeIndex>::INDEX)),*]
    };
}

crate::module_parts! {
    /// The parts of the histogram module.
    Part in Histogram {
        /// Min, max and NaN flag of the keys (`for_each_minmax_type!`).
        MinMax = crate::for_each_minmax_type!(type_names, "gpupy_minmax_", ""),
        /// `bincount`: counts, then sums of weights.
        Bincount = &["gpupy_bincount_count", "gpupy_bincount_weight"],
        /// Uniform bins, counts (`for_each_histogram_pair!`).
        UniformCount = crate::for_each_histogram_pair!(pair_names, "_count"),
        /// Uniform bins, sums of weights.
        UniformWeight = crate::for_each_histogram_pair!(pair_names, "_weight"),
        /// Explicit edges, counts (`for_each_edges_type!`).
        EdgesCount = crate::for_each_edges_type!(type_names, "gpupy_histedges_", "_count"),
        /// Explicit edges, sums of weights.
        EdgesWeight = crate::for_each_edges_type!(type_names, "gpupy_histedges_", "_weight"),
    }
}

const MINMAX_SLOTS: [u16; crate::dtype::NDTYPES] =
    crate::registry::by_key(crate::for_each_minmax_type!(type_keys));
const EDGES_SLOTS: [u16; crate::dtype::NDTYPES] =
    crate::registry::by_key(crate::for_each_edges_type!(type_keys));
const PAIRS: &[(usize, usize)] = crate::for_each_histogram_pair!(pair_keys);

fn slot(slots: &[u16], dtype: usize) -> Option<usize> {
    slots
        .get(dtype)
        .filter(|&&s| s != u16::MAX)
        .map(|&s| s as usize)
}

/// The min/max kernel for keys of dtype `dtype`.
pub fn minmax(dtype: usize) -> Option<crate::registry::Kernel> {
    slot(&MINMAX_SLOTS, dtype).map(|s| Part::MinMax.at(s))
}

/// The `bincount` kernel.
pub fn bincount(weighted: bool) -> crate::registry::Kernel {
    Part::Bincount.at(weighted as usize)
}

/// The uniform-bins kernel for values of dtype `t` with bin arithmetic in dtype `d`.
pub fn uniform(t: usize, d: usize, weighted: bool) -> Option<crate::registry::Kernel> {
    let i = PAIRS.iter().position(|&p| p == (t, d))?;
    Some(
        if weighted {
            Part::UniformWeight
        } else {
            Part::UniformCount
        }
        .at(i),
    )
}

/// The explicit-edges kernel for values and edges of dtype `t`.
pub fn edges(t: usize, weighted: bool) -> Option<crate::registry::Kernel> {
    let s = slot(&EDGES_SLOTS, t)?;
    Some(
        if weighted {
            Part::EdgesWeight
        } else {
            Part::EdgesCount
        }
        .at(s),
    )
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
