//! What each reduction means, per dtype: a fold of elements into an accumulator, a merge
//! of two accumulators, and a finish that turns the last accumulator into the output.
//! The GPU bodies in `reduce.rs` only decide which elements meet in which order; these
//! plain functions are tested on the CPU.
//!
//! Accumulators follow NumPy's dtypes and are at least as precise: integer sums in
//! int64/uint64, float16 through float32, float32 sums and every mean and variance in
//! float64 (NumPy sums float32 pairwise in float32; a float64 tree is more accurate and,
//! being memory-bound, costs nothing). Every accumulator is at least 4 bytes and a whole
//! number of 32-bit words without padding, so warp shuffles and shared memory move it
//! word by word (`Words`).

use crate::dtype::{Cast, c64, c128};
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports))]
use crate::elementwise::ops::float::Float;

/// Values the host passes to `finish`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Finish {
    /// Elements reduced into each output (the divisor of `mean`).
    pub n: f64,
    /// Delta degrees of freedom of `var`/`std`.
    pub ddof: f64,
    /// 1: take the square root (`std`).
    pub root: u32,
    pub _pad: u32,
}

/// A reduction over elements of type `T`.
pub trait Reduction<T> {
    type Acc: Words;
    type Out: Copy;
    fn init() -> Self::Acc;
    /// Adds element `x`, found at position `i` of its slice (argmin/argmax report it).
    fn fold(acc: Self::Acc, x: T, i: i64) -> Self::Acc;
    /// Combines two partial results; commutative, so any tree order gives one answer.
    fn merge(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    fn finish(acc: Self::Acc, f: &Finish) -> Self::Out;
}

/// Plain data made of whole 32-bit words with no padding, so it can be moved as words.
///
/// # Safety
/// `size_of::<Self>()` is a multiple of 4, alignment at most 8, and every bit pattern
/// that the reductions produce is a valid value (no padding bytes).
pub unsafe trait Words: Copy {}
// SAFETY: primitive types of 4 or 8 bytes; complex are two floats.
unsafe impl Words for i32 {}
unsafe impl Words for u32 {}
unsafe impl Words for i64 {}
unsafe impl Words for u64 {}
unsafe impl Words for f32 {}
unsafe impl Words for f64 {}
unsafe impl Words for c64 {}
unsafe impl Words for c128 {}

/// Sums and products: wrapping for integers (NumPy's), complex arithmetic for complex.
pub trait Ring: Words {
    const ZERO: Self;
    const ONE: Self;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
}
macro_rules! ring_int {
    ($($t:ty),*) => { $( impl Ring for $t {
        const ZERO: $t = 0;
        const ONE: $t = 1;
        #[inline(always)] fn add(self, o: $t) -> $t { self.wrapping_add(o) }
        #[inline(always)] fn mul(self, o: $t) -> $t { self.wrapping_mul(o) }
    } )* };
}
ring_int!(i64, u64);
macro_rules! ring_float {
    ($($t:ty),*) => { $( impl Ring for $t {
        const ZERO: $t = 0.0;
        const ONE: $t = 1.0;
        #[inline(always)] fn add(self, o: $t) -> $t { self + o }
        #[inline(always)] fn mul(self, o: $t) -> $t { self * o }
    } )* };
}
ring_float!(f32, f64);
impl Ring for c128 {
    const ZERO: c128 = c128::new(0.0, 0.0);
    const ONE: c128 = c128::new(1.0, 0.0);
    #[inline(always)]
    fn add(self, o: c128) -> c128 {
        c128::new(self.re + o.re, self.im + o.im)
    }
    #[inline(always)]
    fn mul(self, o: c128) -> c128 {
        c128::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }
}

/// Accumulators of means: a ring that can be divided by a count.
pub trait Average: Ring {
    fn div_count(self, n: f64) -> Self;
}
impl Average for f64 {
    #[inline(always)]
    fn div_count(self, n: f64) -> f64 {
        self / n
    }
}
impl Average for c128 {
    #[inline(always)]
    fn div_count(self, n: f64) -> c128 {
        c128::new(self.re / n, self.im / n)
    }
}

/// An order with NaN: `max`/`min` propagate NaN, `fmax`/`fmin` ignore it (NaN only
/// when both are), and `after`/`before` are the strict orders of argmax/argmin, where
/// NaN comes after everything (NumPy reports the first NaN as both the max and the min).
pub trait Ordered: Words {
    const LOWEST: Self;
    const HIGHEST: Self;
    const NAN: Self;
    fn nan(self) -> bool;
    fn gt(self, o: Self) -> bool;
    fn lt(self, o: Self) -> bool;
    /// `if c { a } else { b }`, field by field: a select of whole structs compiles to a
    /// select of their addresses, which keeps them in local memory.
    fn choose(c: bool, a: Self, b: Self) -> Self;
}
macro_rules! ordered_int {
    ($($t:ty),*) => { $( impl Ordered for $t {
        const LOWEST: $t = <$t>::MIN;
        const HIGHEST: $t = <$t>::MAX;
        const NAN: $t = 0;
        #[inline(always)] fn nan(self) -> bool { false }
        #[inline(always)] fn gt(self, o: $t) -> bool { self > o }
        #[inline(always)] fn lt(self, o: $t) -> bool { self < o }
        #[inline(always)] fn choose(c: bool, a: $t, b: $t) -> $t { if c { a } else { b } }
    } )* };
}
ordered_int!(i32, u32, i64, u64);
macro_rules! ordered_float {
    ($($t:ty),*) => { $( impl Ordered for $t {
        const LOWEST: $t = <$t>::NEG_INFINITY;
        const HIGHEST: $t = <$t>::INFINITY;
        const NAN: $t = <$t>::NAN;
        #[inline(always)] fn nan(self) -> bool { self.is_nan() }
        #[inline(always)] fn gt(self, o: $t) -> bool { self > o }
        #[inline(always)] fn lt(self, o: $t) -> bool { self < o }
        #[inline(always)] fn choose(c: bool, a: $t, b: $t) -> $t { if c { a } else { b } }
    } )* };
}
ordered_float!(f32, f64);
macro_rules! ordered_complex {
    ($($c:ident($r:ty)),*) => { $( impl Ordered for $c {
        const LOWEST: $c = $c::new(<$r>::NEG_INFINITY, <$r>::NEG_INFINITY);
        const HIGHEST: $c = $c::new(<$r>::INFINITY, <$r>::INFINITY);
        const NAN: $c = $c::new(<$r>::NAN, <$r>::NAN);
        #[inline(always)] fn nan(self) -> bool { self.re.is_nan() || self.im.is_nan() }
        // NumPy orders complex numbers lexicographically.
        #[inline(always)] fn gt(self, o: $c) -> bool { self.re > o.re || (self.re == o.re && self.im > o.im) }
        #[inline(always)] fn lt(self, o: $c) -> bool { self.re < o.re || (self.re == o.re && self.im < o.im) }
        #[inline(always)] fn choose(c: bool, a: $c, b: $c) -> $c {
            $c::new(if c { a.re } else { b.re }, if c { a.im } else { b.im })
        }
    } )* };
}
ordered_complex!(c64(f32), c128(f64));

#[inline(always)]
fn max_nan<V: Ordered>(a: V, b: V) -> V {
    V::choose(a.nan() || (!b.nan() && !b.gt(a)), a, b)
}
#[inline(always)]
fn min_nan<V: Ordered>(a: V, b: V) -> V {
    V::choose(a.nan() || (!b.nan() && !b.lt(a)), a, b)
}
#[inline(always)]
fn fmax<V: Ordered>(a: V, b: V) -> V {
    V::choose(b.nan() || (!a.nan() && !b.gt(a)), a, b)
}
#[inline(always)]
fn fmin<V: Ordered>(a: V, b: V) -> V {
    V::choose(b.nan() || (!a.nan() && !b.lt(a)), a, b)
}

/// Everything a reduction needs to know about an input dtype: its accumulator types
/// (NumPy's result dtypes are the `*Out` types).
pub trait Num: Copy + Cast<bool> + Cast<f64> + Cast<c128> {
    /// min/max work in this (NumPy's dtype, widened to 32 bits).
    type Wide: Ordered + Cast<Self>;
    /// argmin/argmax compare this (64 bits or complex128, so `ArgAcc` has no padding).
    type Key: Ordered;
    type Sum: Ring + Cast<Self::SumOut>;
    type SumOut: Copy;
    type Mean: Average + Cast<Self::MeanOut>;
    type MeanOut: Copy;
    /// float64 for real dtypes, complex128 for complex ones.
    type Moment: Moment;
    type VarOut: Copy;
    fn is_nan(self) -> bool;
    fn wide(self) -> Self::Wide;
    fn key(self) -> Self::Key;
    fn sum(self) -> Self::Sum;
    fn mean(self) -> Self::Mean;
    fn var_out(v: f64) -> Self::VarOut;
}

macro_rules! num {
    ($($t:ident: $wide:ty, $key:ty, $sum:ty => $sum_out:ty, $mean:ty => $mean_out:ty, $moment:ty => $var_out:ty;)*) => { $(
        impl Num for $t {
            type Wide = $wide;
            type Key = $key;
            type Sum = $sum;
            type SumOut = $sum_out;
            type Mean = $mean;
            type MeanOut = $mean_out;
            type Moment = $moment;
            type VarOut = $var_out;
            #[inline(always)] fn is_nan(self) -> bool { num!(@nan $t self) }
            #[inline(always)] fn wide(self) -> $wide { Cast::<$wide>::cast(self) }
            #[inline(always)] fn key(self) -> $key { Cast::<$key>::cast(self) }
            #[inline(always)] fn sum(self) -> $sum { Cast::<$sum>::cast(self) }
            #[inline(always)] fn mean(self) -> $mean { Cast::<$mean>::cast(self) }
            #[inline(always)] fn var_out(v: f64) -> $var_out { Cast::<$var_out>::cast(v) }
        }
    )* };
    (@nan f16 $x:ident) => { $x.is_nan() };
    (@nan f32 $x:ident) => { $x.is_nan() };
    (@nan f64 $x:ident) => { $x.is_nan() };
    (@nan c64 $x:ident) => { $x.re.is_nan() || $x.im.is_nan() };
    (@nan c128 $x:ident) => { $x.re.is_nan() || $x.im.is_nan() };
    (@nan $t:ident $x:ident) => { false };
}
num! {
    bool: u32, i64, i64 => i64, f64 => f64, f64 => f64;
    i8: i32, i64, i64 => i64, f64 => f64, f64 => f64;
    i16: i32, i64, i64 => i64, f64 => f64, f64 => f64;
    i32: i32, i64, i64 => i64, f64 => f64, f64 => f64;
    i64: i64, i64, i64 => i64, f64 => f64, f64 => f64;
    u8: u32, u64, u64 => u64, f64 => f64, f64 => f64;
    u16: u32, u64, u64 => u64, f64 => f64, f64 => f64;
    u32: u32, u64, u64 => u64, f64 => f64, f64 => f64;
    u64: u64, u64, u64 => u64, f64 => f64, f64 => f64;
    f16: f32, f64, f32 => f16, f64 => f16, f64 => f16;
    f32: f32, f64, f64 => f32, f64 => f32, f64 => f32;
    f64: f64, f64, f64 => f64, f64 => f64, f64 => f64;
    c64: c64, c128, c128 => c64, c128 => c64, c128 => f32;
    c128: c128, c128, c128 => c128, c128 => c128, c128 => f64;
}

/// Running moments for `var`: a count, a shift `k` (the first value seen) and the sums
/// of `x - k` and `|x - k|^2`. Shifted sums keep the fold to four additions per element
/// (Welford's update needs a division), and the shift removes the cancellation of the
/// textbook formula; merges switch to Chan's parallel formula, exact in any order.
pub trait Moment: Copy {
    type Acc: Words;
    fn empty() -> Self::Acc;
    fn push(acc: Self::Acc, x: Self) -> Self::Acc;
    fn merge(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// (count, sum of squared deviations from the mean).
    fn m2(acc: Self::Acc) -> (f64, f64);
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RealMoments {
    pub n: f64,
    pub k: f64,
    pub s1: f64,
    pub s2: f64,
}
// SAFETY: four f64, no padding.
unsafe impl Words for RealMoments {}

impl Moment for f64 {
    type Acc = RealMoments;
    #[inline(always)]
    fn empty() -> RealMoments {
        RealMoments {
            n: 0.0,
            k: 0.0,
            s1: 0.0,
            s2: 0.0,
        }
    }
    #[inline(always)]
    fn push(a: RealMoments, x: f64) -> RealMoments {
        let k = if a.n == 0.0 { x } else { a.k };
        let d = x - k;
        RealMoments {
            n: a.n + 1.0,
            k,
            s1: a.s1 + d,
            s2: a.s2 + d * d,
        }
    }
    #[inline(always)]
    fn merge(a: RealMoments, b: RealMoments) -> RealMoments {
        if a.n == 0.0 {
            return b;
        }
        if b.n == 0.0 {
            return a;
        }
        // Means relative to `a.k`: data values, so `b.k - a.k` is exact or nearly, and
        // the difference of the means loses nothing to the size of the values.
        let dk = b.k - a.k;
        let d = dk + b.s1 / b.n - a.s1 / a.n;
        let n = a.n + b.n;
        let s1 = a.s1 + b.s1 + b.n * dk;
        let m2 = Self::m2(a).1 + Self::m2(b).1 + d * d * (a.n * b.n / n);
        RealMoments {
            n,
            k: a.k,
            s1,
            s2: m2 + s1 * s1 / n,
        }
    }
    #[inline(always)]
    fn m2(a: RealMoments) -> (f64, f64) {
        if a.n == 0.0 {
            (0.0, 0.0)
        } else {
            (a.n, a.s2 - a.s1 * a.s1 / a.n)
        }
    }
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComplexMoments {
    pub n: f64,
    pub k: c128,
    pub s1: c128,
    /// Sum of `|x - k|^2`.
    pub s2: f64,
}
// SAFETY: six f64, no padding.
unsafe impl Words for ComplexMoments {}

impl Moment for c128 {
    type Acc = ComplexMoments;
    #[inline(always)]
    fn empty() -> ComplexMoments {
        let z = c128::new(0.0, 0.0);
        ComplexMoments {
            n: 0.0,
            k: z,
            s1: z,
            s2: 0.0,
        }
    }
    #[inline(always)]
    fn push(a: ComplexMoments, x: c128) -> ComplexMoments {
        let k = if a.n == 0.0 { x } else { a.k };
        let (dr, di) = (x.re - k.re, x.im - k.im);
        ComplexMoments {
            n: a.n + 1.0,
            k,
            s1: c128::new(a.s1.re + dr, a.s1.im + di),
            s2: a.s2 + dr * dr + di * di,
        }
    }
    #[inline(always)]
    fn merge(a: ComplexMoments, b: ComplexMoments) -> ComplexMoments {
        if a.n == 0.0 {
            return b;
        }
        if b.n == 0.0 {
            return a;
        }
        // As for real moments, relative to `a.k`.
        let (kr, ki) = (b.k.re - a.k.re, b.k.im - a.k.im);
        let dr = kr + b.s1.re / b.n - a.s1.re / a.n;
        let di = ki + b.s1.im / b.n - a.s1.im / a.n;
        let n = a.n + b.n;
        let s1 = c128::new(a.s1.re + b.s1.re + b.n * kr, a.s1.im + b.s1.im + b.n * ki);
        let m2 = Self::m2(a).1 + Self::m2(b).1 + (dr * dr + di * di) * (a.n * b.n / n);
        ComplexMoments {
            n,
            k: a.k,
            s1,
            s2: m2 + (s1.re * s1.re + s1.im * s1.im) / n,
        }
    }
    #[inline(always)]
    fn m2(a: ComplexMoments) -> (f64, f64) {
        if a.n == 0.0 {
            (0.0, 0.0)
        } else {
            (a.n, a.s2 - (a.s1.re * a.s1.re + a.s1.im * a.s1.im) / a.n)
        }
    }
}

/// Value and position of the best element so far (argmin/argmax).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArgAcc<K> {
    pub i: i64,
    pub v: K,
}
// SAFETY: K is one of i64, u64, f64, c128 (`Num::Key`): no padding after an i64.
unsafe impl<K: Ordered> Words for ArgAcc<K> {}

/// Index reported when no element qualified (every element NaN in `nanargmax`); the host
/// turns it into NumPy's ValueError.
pub const NO_INDEX: i64 = i64::MAX;

/// The better of two candidates; `first_wins(a, b)` says when `a`'s value beats `b`'s.
/// Ties go to the lower index, so the result does not depend on the merge order.
#[inline(always)]
fn pick<K: Ordered>(a: ArgAcc<K>, b: ArgAcc<K>, beats: impl Fn(K, K) -> bool) -> ArgAcc<K> {
    let c = beats(a.v, b.v) || (!beats(b.v, a.v) && a.i <= b.i);
    ArgAcc {
        i: if c { a.i } else { b.i },
        v: K::choose(c, a.v, b.v),
    }
}
#[inline(always)]
fn beats_max<K: Ordered>(a: K, b: K) -> bool {
    (a.nan() && !b.nan()) || (!b.nan() && a.gt(b))
}
#[inline(always)]
fn beats_min<K: Ordered>(a: K, b: K) -> bool {
    (a.nan() && !b.nan()) || (!b.nan() && a.lt(b))
}

/// The moments of NaN-free input, as the Moment type.
#[inline(always)]
fn moment_of<T>(x: T) -> T::Moment
where
    T: Num + Cast<T::Moment>,
{
    Cast::<T::Moment>::cast(x)
}

crate::elementwise::ops::op::ops!(
    Sum,
    Prod,
    Mean,
    Min,
    Max,
    ArgMin,
    ArgMax,
    Any,
    All,
    CountNonzero,
    Var,
    NanSum,
    NanProd,
    NanMean,
    NanMin,
    NanMax,
    NanArgMin,
    NanArgMax,
    NanVar
);

macro_rules! ring_reduction {
    ($op:ident, $skip_nan:expr, $init:ident, $combine:ident) => {
        impl<T: Num> Reduction<T> for $op {
            type Acc = T::Sum;
            type Out = T::SumOut;
            #[inline(always)]
            fn init() -> T::Sum {
                <T::Sum as Ring>::$init
            }
            #[inline(always)]
            fn fold(acc: T::Sum, x: T, _: i64) -> T::Sum {
                if $skip_nan && x.is_nan() {
                    acc
                } else {
                    acc.$combine(x.sum())
                }
            }
            #[inline(always)]
            fn merge(a: T::Sum, b: T::Sum) -> T::Sum {
                a.$combine(b)
            }
            #[inline(always)]
            fn finish(acc: T::Sum, _: &Finish) -> T::SumOut {
                acc.cast()
            }
        }
    };
}
ring_reduction!(Sum, false, ZERO, add);
ring_reduction!(Prod, false, ONE, mul);
ring_reduction!(NanSum, true, ZERO, add);
ring_reduction!(NanProd, true, ONE, mul);

impl<T: Num> Reduction<T> for Mean {
    type Acc = T::Mean;
    type Out = T::MeanOut;
    #[inline(always)]
    fn init() -> T::Mean {
        <T::Mean as Ring>::ZERO
    }
    #[inline(always)]
    fn fold(acc: T::Mean, x: T, _: i64) -> T::Mean {
        acc.add(x.mean())
    }
    #[inline(always)]
    fn merge(a: T::Mean, b: T::Mean) -> T::Mean {
        a.add(b)
    }
    #[inline(always)]
    fn finish(acc: T::Mean, f: &Finish) -> T::MeanOut {
        acc.div_count(f.n).cast()
    }
}

/// Sum and count of the non-NaN elements (`nanmean`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SumCount<S> {
    pub n: f64,
    pub s: S,
}
// SAFETY: an f64 then an f64 or complex128: no padding.
unsafe impl Words for SumCount<f64> {}
unsafe impl Words for SumCount<c128> {}

impl<T: Num> Reduction<T> for NanMean
where
    SumCount<T::Mean>: Words,
{
    type Acc = SumCount<T::Mean>;
    type Out = T::MeanOut;
    #[inline(always)]
    fn init() -> Self::Acc {
        SumCount {
            n: 0.0,
            s: <T::Mean as Ring>::ZERO,
        }
    }
    #[inline(always)]
    fn fold(acc: Self::Acc, x: T, _: i64) -> Self::Acc {
        if x.is_nan() {
            acc
        } else {
            SumCount {
                n: acc.n + 1.0,
                s: acc.s.add(x.mean()),
            }
        }
    }
    #[inline(always)]
    fn merge(a: Self::Acc, b: Self::Acc) -> Self::Acc {
        SumCount {
            n: a.n + b.n,
            s: a.s.add(b.s),
        }
    }
    #[inline(always)]
    fn finish(acc: Self::Acc, _: &Finish) -> T::MeanOut {
        acc.s.div_count(acc.n).cast()
    }
}

macro_rules! extreme_reduction {
    ($op:ident, $init:ident, $pick:ident) => {
        impl<T: Num> Reduction<T> for $op {
            type Acc = T::Wide;
            type Out = T;
            #[inline(always)]
            fn init() -> T::Wide {
                <T::Wide as Ordered>::$init
            }
            #[inline(always)]
            fn fold(acc: T::Wide, x: T, _: i64) -> T::Wide {
                $pick(acc, x.wide())
            }
            #[inline(always)]
            fn merge(a: T::Wide, b: T::Wide) -> T::Wide {
                $pick(a, b)
            }
            #[inline(always)]
            fn finish(acc: T::Wide, _: &Finish) -> T {
                acc.cast()
            }
        }
    };
}
extreme_reduction!(Min, HIGHEST, min_nan);
extreme_reduction!(Max, LOWEST, max_nan);
// NaN is the identity of fmin/fmax: an all-NaN slice gives NaN, as NumPy's nanmin.
extreme_reduction!(NanMin, NAN, fmin);
extreme_reduction!(NanMax, NAN, fmax);

macro_rules! arg_reduction {
    ($op:ident, $skip_nan:expr, $init:ident, $beats:ident) => {
        impl<T: Num> Reduction<T> for $op {
            type Acc = ArgAcc<T::Key>;
            type Out = i64;
            #[inline(always)]
            fn init() -> ArgAcc<T::Key> {
                ArgAcc {
                    i: NO_INDEX,
                    v: <T::Key as Ordered>::$init,
                }
            }
            #[inline(always)]
            fn fold(acc: ArgAcc<T::Key>, x: T, i: i64) -> ArgAcc<T::Key> {
                if $skip_nan && x.is_nan() {
                    acc
                } else {
                    pick(acc, ArgAcc { i, v: x.key() }, $beats)
                }
            }
            #[inline(always)]
            fn merge(a: ArgAcc<T::Key>, b: ArgAcc<T::Key>) -> ArgAcc<T::Key> {
                pick(a, b, $beats)
            }
            #[inline(always)]
            fn finish(acc: ArgAcc<T::Key>, _: &Finish) -> i64 {
                acc.i
            }
        }
    };
}
arg_reduction!(ArgMin, false, HIGHEST, beats_min);
arg_reduction!(ArgMax, false, LOWEST, beats_max);
arg_reduction!(NanArgMin, true, HIGHEST, beats_min);
arg_reduction!(NanArgMax, true, LOWEST, beats_max);

macro_rules! logic_reduction {
    ($op:ident, $acc:ty, $out:ty, $init:expr, |$a:ident, $x:ident| $fold:expr, |$p:ident, $q:ident| $merge:expr, |$r:ident| $finish:expr) => {
        impl<T: Num> Reduction<T> for $op {
            type Acc = $acc;
            type Out = $out;
            #[inline(always)]
            fn init() -> $acc {
                $init
            }
            #[inline(always)]
            fn fold($a: $acc, x: T, _: i64) -> $acc {
                let $x = Cast::<bool>::cast(x);
                $fold
            }
            #[inline(always)]
            fn merge($p: $acc, $q: $acc) -> $acc {
                $merge
            }
            #[inline(always)]
            fn finish($r: $acc, _: &Finish) -> $out {
                $finish
            }
        }
    };
}
logic_reduction!(Any, u32, bool, 0, |a, x| a | x as u32, |a, b| a | b, |r| r
    != 0);
logic_reduction!(All, u32, bool, 1, |a, x| a & x as u32, |a, b| a & b, |r| r
    != 0);
logic_reduction!(
    CountNonzero,
    i64,
    i64,
    0,
    |a, x| a + x as i64,
    |a, b| a + b,
    |r| r
);

macro_rules! var_reduction {
    ($op:ident, $skip_nan:expr) => {
        impl<T: Num + Cast<T::Moment>> Reduction<T> for $op {
            type Acc = <T::Moment as Moment>::Acc;
            type Out = T::VarOut;
            #[inline(always)]
            fn init() -> Self::Acc {
                T::Moment::empty()
            }
            #[inline(always)]
            fn fold(acc: Self::Acc, x: T, _: i64) -> Self::Acc {
                if $skip_nan && x.is_nan() {
                    acc
                } else {
                    T::Moment::push(acc, moment_of(x))
                }
            }
            #[inline(always)]
            fn merge(a: Self::Acc, b: Self::Acc) -> Self::Acc {
                T::Moment::merge(a, b)
            }
            #[inline(always)]
            fn finish(acc: Self::Acc, f: &Finish) -> T::VarOut {
                let (n, m2) = T::Moment::m2(acc);
                // Past the degrees of freedom NumPy's var divides by max(n - ddof, 0), which
                // gives inf (or NaN), and its nanvar gives NaN.
                let d = n - f.ddof;
                let v = if d > 0.0 {
                    m2 / d
                } else if $skip_nan {
                    f64::NAN
                } else {
                    m2 / 0.0
                };
                T::var_out(if f.root != 0 { v.sqrt() } else { v })
            }
        }
    };
}
var_reduction!(Var, false);
var_reduction!(NanVar, true);

#[cfg(test)]
mod tests {
    use super::*;

    fn run<R: Reduction<T>, T: Copy>(xs: &[T], f: &Finish) -> R::Out {
        // Two halves merged, as a tree would: checks fold, merge and finish together.
        let half = xs.len() / 2;
        let mut a = R::init();
        for (i, &x) in xs[..half].iter().enumerate() {
            a = R::fold(a, x, i as i64);
        }
        let mut b = R::init();
        for (i, &x) in xs[half..].iter().enumerate() {
            b = R::fold(b, x, (half + i) as i64);
        }
        R::finish(R::merge(b, a), f)
    }
    const F: Finish = Finish {
        n: 0.0,
        ddof: 0.0,
        root: 0,
        _pad: 0,
    };

    #[test]
    fn sums_use_numpy_accumulators() {
        assert_eq!(run::<Sum, i8>(&[100, 100, 100], &F), 300i64);
        assert_eq!(run::<Sum, bool>(&[true, true, false], &F), 2i64);
        assert_eq!(run::<Sum, u8>(&[255, 255], &F), 510u64);
        assert_eq!(
            run::<Prod, i64>(&[i64::MAX, 2], &F),
            i64::MAX.wrapping_mul(2)
        );
        assert_eq!(
            run::<Sum, f16>(&[1.0f32 as f16; 3000], &F),
            3000.0f32 as f16
        );
        assert!(run::<Sum, f32>(&[1.0, f32::NAN], &F).is_nan());
        assert_eq!(run::<NanSum, f32>(&[1.0, f32::NAN, 2.0], &F), 3.0);
        assert_eq!(run::<NanProd, f64>(&[f64::NAN, 3.0, 2.0], &F), 6.0);
        let c = run::<Prod, c64>(&[c64::new(0.0, 1.0), c64::new(0.0, 1.0)], &F);
        assert_eq!(c, c64::new(-1.0, 0.0));
    }

    #[test]
    fn means_divide_by_the_count() {
        let f = Finish { n: 4.0, ..F };
        assert_eq!(run::<Mean, i32>(&[1, 2, 3, 5], &f), 2.75f64);
        assert_eq!(run::<NanMean, f32>(&[1.0, f32::NAN, 2.0], &F), 1.5);
        assert!(run::<NanMean, f64>(&[f64::NAN], &F).is_nan());
        let c = run::<NanMean, c128>(
            &[
                c128::new(1.0, 2.0),
                c128::new(3.0, f64::NAN),
                c128::new(3.0, 4.0),
            ],
            &F,
        );
        assert_eq!(c, c128::new(2.0, 3.0));
    }

    #[test]
    fn extremes_propagate_or_skip_nan() {
        assert_eq!(run::<Max, i8>(&[-5, 7, -128], &F), 7);
        assert_eq!(run::<Min, u16>(&[9, 3, 65535], &F), 3);
        assert!(run::<Max, bool>(&[false, true], &F));
        assert!(run::<Max, f32>(&[1.0, f32::NAN, 3.0], &F).is_nan());
        assert!(run::<Min, f64>(&[f64::NAN, 1.0], &F).is_nan());
        assert_eq!(run::<NanMax, f32>(&[1.0, f32::NAN, 3.0], &F), 3.0);
        assert!(run::<NanMin, f32>(&[f32::NAN, f32::NAN], &F).is_nan());
        let m = run::<Max, c64>(
            &[c64::new(1.0, 9.0), c64::new(2.0, 0.0), c64::new(2.0, -1.0)],
            &F,
        );
        assert_eq!(m, c64::new(2.0, 0.0));
        assert_eq!(
            run::<Max, f16>(&[(1.5f32 as f16), (-2.0f32 as f16)], &F),
            (1.5f32 as f16)
        );
    }

    #[test]
    fn arg_extremes_take_the_first_best() {
        assert_eq!(run::<ArgMax, f32>(&[1.0, 3.0, 2.0, 3.0], &F), 1);
        assert_eq!(run::<ArgMin, i8>(&[4, -1, -1, 0], &F), 1);
        assert_eq!(run::<ArgMax, f64>(&[1.0, f64::NAN, 5.0, f64::NAN], &F), 1);
        assert_eq!(run::<ArgMin, f64>(&[1.0, 0.0, f64::NAN], &F), 2);
        assert_eq!(run::<NanArgMin, f64>(&[1.0, 0.0, f64::NAN], &F), 1);
        assert_eq!(run::<NanArgMax, f32>(&[f32::NAN, f32::NAN], &F), NO_INDEX);
        assert_eq!(run::<ArgMax, u64>(&[0, u64::MAX, u64::MAX], &F), 1);
        assert_eq!(run::<ArgMin, i64>(&[i64::MIN, 0, i64::MIN], &F), 0);
        assert_eq!(run::<ArgMax, f32>(&[f32::NEG_INFINITY; 3], &F), 0);
        assert_eq!(
            run::<ArgMax, c64>(
                &[c64::new(1.0, 0.0), c64::new(1.0, 2.0), c64::new(0.0, 9.0)],
                &F
            ),
            1
        );
    }

    #[test]
    fn logic_counts_nonzero() {
        assert!(run::<Any, f32>(&[0.0, 0.0, -0.5], &F));
        assert!(!run::<All, i32>(&[1, 0, 2], &F));
        assert!(run::<All, c64>(&[c64::new(0.0, 1.0)], &F));
        assert!(run::<All, u8>(&[], &F));
        assert_eq!(run::<CountNonzero, f64>(&[0.0, f64::NAN, -0.0, 2.0], &F), 2);
    }

    #[test]
    fn variance_is_stable() {
        let xs: Vec<f64> = (0..1000).map(|i| 1e9 + (i % 7) as f64).collect();
        let mean = xs.iter().sum::<f64>() / 1000.0;
        let want = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / 999.0;
        let got = run::<Var, f64>(&xs, &Finish { ddof: 1.0, ..F });
        assert!((got - want).abs() <= 1e-12 * want, "{got} {want}");
        let sd = run::<Var, f32>(&[1.0, 2.0, 3.0, 4.0], &Finish { root: 1, ..F });
        assert!((sd - 1.25f32.sqrt()).abs() < 1e-7);
        assert!(run::<Var, f64>(&[1.0], &Finish { ddof: 1.0, ..F }).is_nan());
        assert_eq!(
            run::<Var, i32>(&[2, 4], &Finish { ddof: 2.0, ..F }),
            f64::INFINITY
        );
        let c = run::<Var, c64>(&[c64::new(1.0, 1.0), c64::new(-1.0, -1.0)], &F);
        assert_eq!(c, 2.0f32);
        assert_eq!(run::<NanVar, f64>(&[1.0, f64::NAN, 3.0], &F), 1.0);
        assert!(run::<NanVar, f64>(&[1.0, f64::NAN, 3.0], &Finish { ddof: 2.0, ..F }).is_nan());
    }
}
