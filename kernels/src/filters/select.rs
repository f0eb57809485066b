//! Order statistics of a window: the meaning of the minimum, maximum and rank filters,
//! plain Rust that the GPU kernels call and `cargo test` checks against sorting.
//!
//! - [`extreme`]: SciPy's minimum or maximum (start at the first tap, replace on a
//!   strictly smaller or greater value).
//! - [`select9`]/[`select25`]/[`select49`]: the rank-`r` value of at most 9, 25 or 49
//!   values held in registers. `r + 1` passes of a selection network: pass `k` orders slot `k` against
//!   every later slot, leaving the `k`-th smallest in slot `k` (the upper half selects
//!   from the top instead, so a median of 25 costs 13 passes either way). Every slot
//!   index is a literal (written out by `select_net!`), which keeps the array in
//!   registers on the GPU; unused slots hold the end of the order.
//! - [`select_strided`]: the rank-`r` value of any number of values in memory (a
//!   thread's slice of shared or global scratch, `stride` apart), by Wirth's in-place
//!   partitioning (Hoare's selection): O(n) on average, no recursion.
//!
//! Values are compared with `<`: with NaNs in a window the result is one of the window's
//! values but no particular one (SciPy's order is unspecified there too).

/// A type the rank filters order (`f32`, `f64`, `i64`, `u64`).
pub trait Order: Copy + PartialOrd {
    /// Above or equal to every value (the padding of an ascending selection).
    const HIGHEST: Self;
    /// Below or equal to every value (the padding of a descending selection).
    const LOWEST: Self;
    /// The smaller of two values (either, when equal or unordered).
    fn lesser(self, other: Self) -> Self;
    /// The greater of two values (either, when equal or unordered).
    fn greater(self, other: Self) -> Self;
    /// `cval` in this type from the launch's float64 argument: its value for the float
    /// types, its bits for the integer types.
    fn from_f64(v: f64) -> Self;
}

macro_rules! order_float {
    ($($t:ident)*) => { $(
        impl Order for $t {
            const HIGHEST: $t = $t::INFINITY;
            const LOWEST: $t = $t::NEG_INFINITY;
            #[inline(always)]
            fn lesser(self, other: $t) -> $t {
                self.min(other)
            }
            #[inline(always)]
            fn greater(self, other: $t) -> $t {
                self.max(other)
            }
            #[inline(always)]
            fn from_f64(v: f64) -> $t {
                v as $t
            }
        }
    )* };
}
order_float!(f32 f64);

macro_rules! order_int {
    ($($t:ident)*) => { $(
        impl Order for $t {
            const HIGHEST: $t = $t::MAX;
            const LOWEST: $t = $t::MIN;
            #[inline(always)]
            fn lesser(self, other: $t) -> $t {
                core::cmp::min(self, other)
            }
            #[inline(always)]
            fn greater(self, other: $t) -> $t {
                core::cmp::max(self, other)
            }
            /// The bits of `v` (the host passes a 64-bit integer `cval` so, since a
            /// double cannot hold every one).
            #[inline(always)]
            fn from_f64(v: f64) -> $t {
                v.to_bits() as $t
            }
        }
    )* };
}
order_int!(i64 u64);

/// SciPy's minimum (`max == false`) or maximum of `value(0..n)`, `n >= 1`.
#[inline(always)]
pub fn extreme<T: Order>(value: impl Fn(usize) -> T, n: usize, max: bool) -> T {
    let mut best = value(0);
    for t in 1..n {
        let v = value(t);
        if (max && v > best) || (!max && v < best) {
            best = v;
        }
    }
    best
}

/// Slots `i < j` ordered: the lesser in `i` (the greater when `DESC`).
#[inline(always)]
fn order_pair<T: Order, const DESC: bool, const N: usize>(a: &mut [T; N], i: usize, j: usize) {
    let (x, y) = (a[i], a[j]);
    if DESC {
        (a[i], a[j]) = (x.greater(y), x.lesser(y));
    } else {
        (a[i], a[j]) = (x.lesser(y), x.greater(y));
    }
}

/// Pass `k` for each listed `k` up to `r`: slot `k` against every later slot; `res`
/// takes slot `k` after its pass (so after pass `r`, the answer).
macro_rules! select_net {
    ($a:ident, $r:ident, $res:ident, $desc:ident; $k:literal $($rest:literal)*) => {
        if $k <= $r {
            $( order_pair::<T, $desc, _>(&mut $a, $k, $rest); )*
            $res = $a[$k];
            select_net!($a, $r, $res, $desc; $($rest)*);
        }
    };
    ($a:ident, $r:ident, $res:ident, $desc:ident;) => {};
}

/// `select{N}(value, n, r)`: the rank-`r` value (0 the smallest) of `value(0..n)`,
/// `r < n <= N`, in `N` registers.
macro_rules! select_in_registers {
    ($(#[$doc:meta])* $name:ident, $net:ident, $n:literal; $($k:literal)*) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name<T: Order>(value: impl Fn(usize) -> T, n: usize, r: usize) -> T {
            if 2 * r < n { $net::<T, false>(value, n, r) } else { $net::<T, true>(value, n, n - 1 - r) }
        }

        /// The `r`-th smallest (`r`-th greatest when `DESC`) of `value(0..n)`.
        #[inline(always)]
        #[allow(unused_comparisons)] // pass 0's `0 <= r`, written like every other pass

        fn $net<T: Order, const DESC: bool>(value: impl Fn(usize) -> T, n: usize, r: usize) -> T {
            let mut a = [if DESC { T::LOWEST } else { T::HIGHEST }; $n];
            $( if $k < n { a[$k] = value($k); } )*
            let mut res = a[0];
            select_net!(a, r, res, DESC; $($k)*);
            res
        }
    };
}

select_in_registers!(
    /// The rank-`r` value of at most 9 values, in registers.
    select9, net9, 9; 0 1 2 3 4 5 6 7 8
);
select_in_registers!(
    /// The rank-`r` value of at most 25 values, in registers.
    select25, net25, 25; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24
);

select_in_registers!(
    /// The rank-`r` value of at most 49 values (a 7x7 window), in registers.
    select49, net49, 49; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24
    25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48
);

/// The rank-`r` value of at most 49 values in a window of 26 registers: the first 26
/// values, and each later one in the place of the window's greatest (or least, for the
/// upper ranks), then rank `r` of the window by [`select25`]'s passes. Why: with `r <=
/// 24` (the lower half of 49), the window's greatest has 25 values at or below it, so
/// it is not the rank-`r` value of what remains. 23 x 25 + up to 25 x 24 / 2
/// compare-exchanges against [`select49`]'s up to 900, but half its registers: the
/// 8-byte types' kernel, which held 98 values' 254 registers with [`select49`].
#[inline(always)]
pub fn select49_window<T: Order>(value: impl Fn(usize) -> T, n: usize, r: usize) -> T {
    if 2 * r < n {
        window49::<T, false>(value, n, r)
    } else {
        window49::<T, true>(value, n, n - 1 - r)
    }
}

/// The `r`-th smallest (`r`-th greatest when `DESC`) of `value(0..n)`, `r <= 24`.
#[inline(always)]
fn window49<T: Order, const DESC: bool>(value: impl Fn(usize) -> T, n: usize, r: usize) -> T {
    const W: usize = 26;
    let pad = if DESC { T::LOWEST } else { T::HIGHEST };
    let mut a: [T; W] = core::array::from_fn(|k| if k < n { value(k) } else { pad });
    for t in W..49 {
        if t < n {
            // The window's end of the order (greatest when ascending) into slot W - 1,
            // where the next value replaces it. (Literal slots, as `select_net!`'s: a
            // loop's index would put the window in local memory on the GPU.)
            macro_rules! to_end {
                ($($k:literal)*) => { $( order_pair::<T, DESC, W>(&mut a, $k, W - 1); )* };
            }
            to_end!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24);
            a[W - 1] = value(t);
        }
    }
    let mut res = a[0];
    #[allow(unused_comparisons)]
    {
        select_net!(a, r, res, DESC; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25);
    }
    res
}

/// The most values [`select9`], [`select25`] and [`select49`] take.
pub const REGISTER_TIERS: [usize; 3] = [9, 25, 49];

/// Window `[LO, N)` of `a`: its least value moved to slot `LO`, its greatest to slot
/// `N - 1`, every value kept (compare-exchanges): pairs from both ends first, then the
/// lower ends' minimum and the upper ends' maximum (a middle slot joins both).
#[inline(always)]
fn ends<T: Order, const LO: usize, const N: usize>(a: &mut [T; N]) {
    let (half, odd) = ((N - LO) / 2, (N - LO) % 2 == 1);
    for p in 0..half {
        order_pair::<T, false, N>(a, LO + p, N - 1 - p);
    }
    for i in LO + 1..LO + half + odd as usize {
        order_pair::<T, false, N>(a, LO, i);
    }
    for j in LO + half..N - 1 {
        order_pair::<T, false, N>(a, j, N - 1);
    }
}

/// One round of a forgetful median of `$n` values in a window of `$w` slots, for each
/// listed `R`: the window `[R, $w)`'s ends found and dropped, and the next value
/// (`value($w + R)`, while there is one) into the dropped maximum's slot.
macro_rules! forget {
    ($a:ident, $value:ident, $n:literal, $w:literal; $($r:literal)*) => { $(
        ends::<T, $r, $w>(&mut $a);
        if $w + $r < $n {
            $a[$w - 1] = $value($w + $r);
        }
    )* };
}

/// The median of `2k + 1` values by forgetful selection: a window of `k + 2` values,
/// whose least and greatest are dropped and the next value taken in, until 3 are left,
/// whose middle one is the median. Why: the window and the values not yet taken in are
/// `2j + 1` values with the same median, the window `j + 2` of them; its greatest has
/// `j + 1` of them at or below it and its least `j + 1` at or above, so dropping both
/// leaves `2j - 1` values with that median.
macro_rules! forgetful_median {
    ($(#[$doc:meta])* $name:ident, $n:literal, $w:literal; $($r:literal)*) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name<T: Order>(value: impl Fn(usize) -> T) -> T {
            let mut a: [T; $w] = core::array::from_fn(&value);
            forget!(a, value, $n, $w; $($r)*);
            a[$w - 2]
        }
    };
}

forgetful_median!(
    /// The median of 25 values (rank 12): a window of 14, 12 rounds; 132
    /// compare-exchanges where [`select25`] spends 234.
    median25, 25, 14; 0 1 2 3 4 5 6 7 8 9 10 11
);
forgetful_median!(
    /// The median of 49 values (rank 24): a window of 26, 24 rounds; 480
    /// compare-exchanges where [`select49`] spends 900.
    median49, 49, 26; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23
);

/// The rank-`r` value (0 the smallest) of the `n` values at `base[i * stride]`,
/// `r < n`, reordering them in place (Wirth's selection).
///
/// # Safety
/// `base[i * stride]` is valid for reads and writes for every `i < n`.
#[inline(always)]
pub unsafe fn select_strided<T: Order>(base: *mut T, stride: usize, n: usize, r: usize) -> T {
    // SAFETY: every index below stays in 0..n (the scans are bounded by l and m).
    let at = |i: usize| unsafe { base.add(i * stride) };
    let (mut l, mut m) = (0usize, n - 1);
    while l < m {
        let pivot = unsafe { *at(r) };
        let (mut i, mut j) = (l, m);
        loop {
            while i < m && unsafe { *at(i) } < pivot {
                i += 1;
            }
            while j > l && pivot < unsafe { *at(j) } {
                j -= 1;
            }
            if i <= j {
                unsafe { core::ptr::swap(at(i), at(j)) };
                i += 1;
                if j == 0 {
                    break;
                }
                j -= 1;
            }
            if i > j {
                break;
            }
        }
        if j < r {
            l = i;
        }
        if r < i {
            m = j;
        }
    }
    unsafe { *at(r) }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// A small deterministic generator (no dependencies in the kernel crate).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    /// Values with many ties (`spread` distinct values) and negative ones.
    fn values(rng: &mut Lcg, n: usize, spread: u64) -> Vec<i64> {
        (0..n)
            .map(|_| (rng.next() % spread) as i64 - (spread as i64) / 2)
            .collect()
    }

    fn sorted<T: Order>(v: &[T]) -> Vec<T> {
        let mut s = v.to_vec();
        s.sort_by(|a, b| a.partial_cmp(b).unwrap());
        s
    }

    #[test]
    fn register_selection_matches_sorting() {
        let mut rng = Lcg(7);
        for trial in 0..40 {
            let spread = [3, 10, 1000][trial % 3];
            for n in 1..=49 {
                let v = values(&mut rng, n, spread);
                let f: Vec<f64> = v.iter().map(|&x| x as f64 * 0.5).collect();
                let u: Vec<u64> = v.iter().map(|&x| (x + 600) as u64).collect();
                for r in 0..n {
                    assert_eq!(select49(|t| v[t], n, r), sorted(&v)[r], "49: n={n} r={r}");
                    let w = select49_window(|t| f[t], n, r);
                    assert_eq!(w, sorted(&f)[r], "window: n={n} r={r}");
                    assert_eq!(
                        select49_window(|t| u[t], n, r),
                        sorted(&u)[r],
                        "u64 {n} {r}"
                    );
                    assert_eq!(select49(|t| f[t], n, r), sorted(&f)[r], "f64 n={n} r={r}");
                    if n > 25 {
                        continue;
                    }
                    assert_eq!(select25(|t| v[t], n, r), sorted(&v)[r], "i64 n={n} r={r}");
                    assert_eq!(select25(|t| f[t], n, r), sorted(&f)[r], "f64 n={n} r={r}");
                    assert_eq!(select25(|t| u[t], n, r), sorted(&u)[r], "u64 n={n} r={r}");
                    if n <= 9 {
                        assert_eq!(select9(|t| v[t], n, r), sorted(&v)[r], "9: n={n} r={r}");
                        let g: Vec<f32> = f.iter().map(|&x| x as f32).collect();
                        assert_eq!(select9(|t| g[t], n, r), sorted(&g)[r], "f32 n={n} r={r}");
                    }
                }
            }
        }
    }

    #[test]
    fn forgetful_median_matches_sorting() {
        let mut rng = Lcg(19);
        for trial in 0..3000 {
            let spread = [2, 3, 10, 1000, 1 << 40][trial % 5];
            let v = values(&mut rng, 25, spread);
            let f: Vec<f64> = v.iter().map(|&x| x as f64 * 0.25).collect();
            let u: Vec<u64> = v.iter().map(|&x| x.wrapping_add(1 << 41) as u64).collect();
            assert_eq!(median25(|t| v[t]), sorted(&v)[12], "{v:?}");
            assert_eq!(median25(|t| f[t]), sorted(&f)[12]);
            assert_eq!(median25(|t| u[t]), sorted(&u)[12]);
            let g: Vec<f32> = f.iter().map(|&x| x as f32).collect();
            assert_eq!(median25(|t| g[t]), sorted(&g)[12]);
            let w = values(&mut rng, 49, spread);
            assert_eq!(median49(|t| w[t]), sorted(&w)[24], "{w:?}");
            let h: Vec<f32> = w.iter().map(|&x| x as f32 * 0.5).collect();
            assert_eq!(median49(|t| h[t]), sorted(&h)[24]);
        }
        let up49: Vec<i64> = (0..49).collect();
        assert_eq!(median49(|t| up49[t]), 24);
        assert_eq!(median49(|t| up49[48 - t]), 24);
        // Sorted, reversed and constant windows; infinities are ordinary values.
        let up: Vec<i64> = (0..25).collect();
        assert_eq!(median25(|t| up[t]), 12);
        assert_eq!(median25(|t| up[24 - t]), 12);
        assert_eq!(median25(|_| 7i64), 7);
        let inf: Vec<f64> = (0..25)
            .map(|t| if t % 2 == 0 { f64::INFINITY } else { -1.0 })
            .collect();
        assert_eq!(median25(|t| inf[t]), f64::INFINITY);
    }

    #[test]
    fn extremes_of_the_ends_of_the_order() {
        let mut rng = Lcg(11);
        for n in 1..40 {
            let v = values(&mut rng, n, 50);
            assert_eq!(extreme(|t| v[t], n, false), sorted(&v)[0]);
            assert_eq!(extreme(|t| v[t], n, true), sorted(&v)[n - 1]);
        }
        // Infinities are ordinary values; the extremes of the integer range too.
        let f = [1.0, f64::INFINITY, -3.0, f64::NEG_INFINITY];
        assert_eq!(extreme(|t| f[t], 4, true), f64::INFINITY);
        assert_eq!(select9(|t| f[t], 4, 0), f64::NEG_INFINITY);
        let u = [u64::MAX, 0, 5];
        assert_eq!(select9(|t| u[t], 3, 2), u64::MAX);
        let i = [i64::MIN, 0, i64::MAX];
        assert_eq!(select25(|t| i[t], 3, 0), i64::MIN);
    }

    #[test]
    fn strided_selection_matches_sorting() {
        let mut rng = Lcg(3);
        for trial in 0..30 {
            let spread = [2, 7, 100_000][trial % 3];
            for n in [1, 2, 3, 5, 26, 49, 81, 200, 441] {
                let v = values(&mut rng, n, spread);
                let want = sorted(&v);
                for stride in [1, 3] {
                    for r in [0, n / 3, n / 2, n - 1] {
                        // Each value in slot i * stride; the others poisoned, untouched.
                        let mut buf = std::vec![i64::MIN; n * stride];
                        for (i, &x) in v.iter().enumerate() {
                            buf[i * stride] = x;
                        }
                        let got = unsafe { select_strided(buf.as_mut_ptr(), stride, n, r) };
                        assert_eq!(got, want[r], "n={n} r={r} stride={stride}");
                        let mut kept: Vec<i64> = (0..n).map(|i| buf[i * stride]).collect();
                        kept.sort();
                        assert_eq!(kept, want, "a permutation stays in the slots");
                        if stride > 1 {
                            assert!(
                                (0..n * stride)
                                    .filter(|k| k % stride != 0)
                                    .all(|k| buf[k] == i64::MIN)
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn strided_selection_ends_with_nans() {
        // Unordered values: the answer is one of the window's, and the scans stay inside.
        let v = [f64::NAN, 1.0, f64::NAN, -2.0, 3.0, f64::NAN, 0.5];
        for r in 0..v.len() {
            let mut buf = v;
            let got = unsafe { select_strided(buf.as_mut_ptr(), 1, v.len(), r) };
            assert!(
                v.iter().any(|x| x.to_bits() == got.to_bits()),
                "r={r}: {got}"
            );
        }
    }
}
