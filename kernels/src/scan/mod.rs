//! Scans (`cumsum`, `cumprod` and their NaN-skipping forms) along one axis of an N-d
//! array, written once and stamped per (op, element type) by `scan_entries!`.
//!
//! The host sees a scan as `lines` independent lines of `n` elements: `ScanArgs::lines`
//! maps a line index to the (input, output) offsets of its first element, and `step`
//! walks along the line. No transpose copy is needed for any axis. Two strategies:
//!
//! - `rows`: the elements of a line are contiguous (the last axis, or any axis with unit
//!   stride). A block scans tiles of `block * N` elements: each thread scans its `N`
//!   consecutive elements in registers, the block scans the thread totals (warp shuffles,
//!   then one shared slot per warp), and a running carry crosses tiles. A long line is
//!   cut into `parts` that many blocks scan at once, reduce-then-scan: `rows_reduce`
//!   writes each part's total, the host scans those totals (with these same kernels) and
//!   `rows` starts each part from the total of the parts before it.
//! - `cols`: each thread owns one line and walks it serially. With lines adjacent in
//!   memory (scanning across rows: a non-last axis) neighbouring threads read neighbouring
//!   addresses, so every access coalesces. Too few lines to fill the GPU are cut into
//!   parts the same way (`cols_reduce`, host scan of the totals, `cols`).
//!
//! Accuracy: each element type scans in a wider accumulator where one exists (float16 in
//! float32, float32 in float64, complex64 in complex128) and rounds once per output, so a
//! float32 cumsum stays close to the float64 result instead of a serial float32 loop's.
//! Integers scan in int64 with wrapping arithmetic: the host casts every integer (and bool)
//! input to int64 first, and uint64 shares the int64 kernels (wrapping `+`/`*` are the
//! same bits).
//!
//! The element semantics (`ScanElem`, `Combine`) and the launch struct compile for the host
//! too, where `cargo test` checks them; the kernels exist only in the nvptx64 build.

use crate::args::Strided;
use crate::dtype::{c64, c128};
use crate::elementwise::ops::complex as cx;

/// Launch parameters of every scan kernel, passed by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanArgs {
    /// Line index -> (input, output) element offset of the line's first element;
    /// `lines.len` is the number of lines.
    pub lines: Strided<2>,
    /// Elements per line.
    pub n: u64,
    /// Element strides along a line: (input, output).
    pub step: [i64; 2],
    /// Parts each line is cut into (1: one pass).
    pub parts: u64,
    /// Elements per part (the last part may be shorter). For `rows` a multiple of the
    /// tile (`block * items_per_thread`) unless `parts == 1`.
    pub part_len: u64,
    /// Nonzero: NaN inputs count as the op's identity (`nancumsum`, `nancumprod`).
    pub nan: u32,
    pub _pad: u32,
}

/// Elements each thread of a `rows` block holds in registers, by element size: enough
/// loads in flight per thread while the accumulators (twice as wide for float32) fit.
pub const fn items_per_thread(elem_bytes: usize) -> usize {
    match elem_bytes {
        0..=4 => 8,
        5..=8 => 4,
        _ => 2,
    }
}

/// Bytes of dynamic shared memory a `rows` launch needs: one accumulator slot (at most
/// 16 bytes) per warp of a block of up to 1024 threads.
pub const ROWS_SHARED_BYTES: u32 = 32 * 16;

/// An element type with scan kernels, and the accumulator it scans in.
pub trait ScanElem: Copy {
    type Acc: Copy;
    fn widen(self) -> Self::Acc;
    fn narrow(a: Self::Acc) -> Self;
    /// NaN (for complex: either part), the values `nan` mode replaces by the identity.
    fn is_nan(self) -> bool;
}

/// An associative combine with its identity, per accumulator type.
pub trait Combine<A: Copy> {
    /// `op(ID, x)` is `x` bit for bit: a float sum starts from -0.0, since 0.0 + -0.0 is
    /// +0.0 and NumPy's running sum of a leading -0.0 stays -0.0.
    const ID: A;
    /// What `nan` mode puts in place of a NaN: NumPy's 0 (+0.0) or 1.
    const FILL: A;
    fn op(a: A, b: A) -> A;
    /// An input value as the scan combines it (`Prod` on complex keeps data off its
    /// identity marker).
    #[inline(always)]
    fn load(x: A) -> A {
        x
    }
}

/// `cumsum`: wrapping for integers.
pub struct Sum;
/// `cumprod`: wrapping for integers.
pub struct Prod;

macro_rules! combine_real {
    ($($t:ty => $id:expr, $zero:expr, $one:expr, $add:expr, $mul:expr);* $(;)?) => { $(
        impl Combine<$t> for Sum {
            const ID: $t = $id;
            const FILL: $t = $zero;
            #[inline(always)]
            fn op(a: $t, b: $t) -> $t { $add(a, b) }
        }
        impl Combine<$t> for Prod {
            const ID: $t = $one;
            const FILL: $t = $one;
            #[inline(always)]
            fn op(a: $t, b: $t) -> $t { $mul(a, b) }
        }
    )* };
}
combine_real! {
    i64 => 0, 0, 1, i64::wrapping_add, i64::wrapping_mul;
    f32 => -0.0, 0.0, 1.0, |a: f32, b: f32| a + b, |a: f32, b: f32| a * b;
    f64 => -0.0, 0.0, 1.0, |a: f64, b: f64| a + b, |a: f64, b: f64| a * b;
}

impl Combine<c128> for Sum {
    const ID: c128 = c128::new(-0.0, -0.0);
    const FILL: c128 = c128::new(0.0, 0.0);
    #[inline(always)]
    fn op(a: c128, b: c128) -> c128 {
        cx::add(a, b)
    }
}
/// The bits of complex `Prod`'s identity, a NaN payload that data never carries (`load`
/// turns any input NaN with it into the canonical NaN). IEEE complex multiplication has no
/// exact identity: (1+0j)(a-0j) has imaginary part +0.0 for a > 0, so an identity that
/// is multiplied would turn a first element's -0.0 part into +0.0 where NumPy's cumprod,
/// which starts from the first element, keeps it. `op` skips the marker instead.
const PROD_ID_BITS: u64 = 0x7ff8_5ca1_ab1e_0001;

impl Combine<c128> for Prod {
    const ID: c128 = c128::new(f64::from_bits(PROD_ID_BITS), f64::from_bits(PROD_ID_BITS));
    const FILL: c128 = c128::new(1.0, 0.0);
    #[inline(always)]
    fn op(a: c128, b: c128) -> c128 {
        if a.re.to_bits() == PROD_ID_BITS {
            b
        } else if b.re.to_bits() == PROD_ID_BITS {
            a
        } else {
            cx::mul(a, b)
        }
    }
    #[inline(always)]
    fn load(x: c128) -> c128 {
        if x.re.to_bits() == PROD_ID_BITS {
            c128::new(f64::NAN, x.im)
        } else {
            x
        }
    }
}

macro_rules! scan_elem {
    ($($t:ty => $acc:ty, |$x:ident| $nan:expr, |$w:ident| $widen:expr, |$a:ident| $narrow:expr);* $(;)?) => { $(
        impl ScanElem for $t {
            type Acc = $acc;
            #[inline(always)]
            fn widen(self) -> $acc { let $w = self; $widen }
            #[inline(always)]
            fn narrow($a: $acc) -> $t { $narrow }
            #[inline(always)]
            #[allow(clippy::eq_op)]
            fn is_nan(self) -> bool { let $x = self; $nan }
        }
    )* };
}
scan_elem! {
    i64 => i64, |_x| false, |w| w, |a| a;
    f16 => f32, |x| x != x, |w| w as f32, |a| a as f16;
    f32 => f64, |x| x != x, |w| w as f64, |a| a as f32;
    f64 => f64, |x| x != x, |w| w, |a| a;
    c64 => c128, |x| x.re != x.re || x.im != x.im, |w| c128::new(w.re as f64, w.im as f64),
        |a| c64::new(a.re as f32, a.im as f32);
    c128 => c128, |x| x.re != x.re || x.im != x.im, |w| w, |a| a;
}

/// An input element as the accumulator sees it: widened, or the identity for a NaN in
/// `nan` mode.
#[inline(always)]
pub fn load_value<E: ScanElem, O: Combine<E::Acc>>(x: E, nan: bool) -> E::Acc {
    if nan && x.is_nan() {
        O::FILL
    } else {
        O::load(x.widen())
    }
}

/// The serial scan one `cols` thread runs, as a plain function: `cargo test` checks the
/// element semantics through it.
pub fn scan_serial<E: ScanElem, O: Combine<E::Acc>>(x: &[E], nan: bool, out: &mut [E]) {
    let mut run = O::ID;
    for (o, &v) in out.iter_mut().zip(x) {
        run = O::op(run, load_value::<E, O>(v, nan));
        *o = E::narrow(run);
    }
}

#[cfg(all(target_arch = "nvptx64", feature = "scan"))]
mod gpu;

/// The scans and the element types each is stamped for: `(name, combine type, [types])`.
/// Narrower inputs are widened on the host, as NumPy's accumulate dtypes.
#[macro_export]
macro_rules! for_each_scan {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*]
            (sum, Sum, [i64 f16 f32 f64 c64 c128])
            (prod, Prod, [i64 f16 f32 f64 c64 c128])
        }
    };
}

macro_rules! scan_names {
    ([$suffix:literal] $(($op:ident, $O:ident, [$($t:ident)*]))*) => {
        &[$($(concat!("gpupy_scan_", stringify!($op), "_", stringify!($t), $suffix),)*)*]
    };
}
macro_rules! scan_loops {
    ([] $(($op:ident, $O:ident, [$($t:ident)*]))*) => {
        &[$((stringify!($op), &[$(crate::loops::Loop {
            input: <$t as crate::dtype::DTypeIndex>::INDEX,
            output: <$t as crate::dtype::DTypeIndex>::INDEX,
        }),*])),*]
    };
}

crate::module_parts! {
    /// The parts of the scan module, one per kernel of the two strategies.
    Part in Scan {
        /// Lines contiguous in memory: a block scans tiles.
        Rows = crate::for_each_scan!(scan_names, "_rows"),
        /// The totals of the parts of long contiguous lines.
        RowsReduce = crate::for_each_scan!(scan_names, "_rows_reduce"),
        /// A thread per line.
        Cols = crate::for_each_scan!(scan_names, "_cols"),
        /// The totals of the parts of long lines walked a thread per line.
        ColsReduce = crate::for_each_scan!(scan_names, "_cols_reduce"),
    }
}

const LOOPS: &[(&str, &[crate::loops::Loop])] = crate::for_each_scan!(scan_loops);
const SLOTS: [[u16; crate::dtype::NDTYPES]; LOOPS.len()] = crate::loops::loop_slots(LOOPS);

/// The kernel of `part` for scan `op` (its index in `for_each_scan!`: 0 sum, 1 prod)
/// over elements of dtype `dtype`, if that scan is stamped for it.
pub fn kernel(part: Part, op: usize, dtype: usize) -> Option<crate::registry::Kernel> {
    let slot = *SLOTS.get(op)?.get(dtype)?;
    (slot != u16::MAX).then(|| part.at(slot as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cumsum<E: ScanElem>(x: &[E], nan: bool) -> Vec<E>
    where
        Sum: Combine<E::Acc>,
    {
        let mut out = x.to_vec();
        scan_serial::<E, Sum>(x, nan, &mut out);
        out
    }

    fn cumprod<E: ScanElem>(x: &[E], nan: bool) -> Vec<E>
    where
        Prod: Combine<E::Acc>,
    {
        let mut out = x.to_vec();
        scan_serial::<E, Prod>(x, nan, &mut out);
        out
    }

    #[test]
    fn integers_wrap_like_numpy() {
        assert_eq!(
            cumsum(&[i64::MAX, 1, 1], false),
            vec![i64::MAX, i64::MIN, i64::MIN + 1]
        );
        assert_eq!(cumprod(&[1i64 << 62, 4, 3], false), vec![1 << 62, 0, 0]);
        // uint64 shares the kernel: u64::MAX + 2 wraps to 1.
        let got = cumsum(&[u64::MAX as i64, 2], false);
        assert_eq!(got[1] as u64, 1);
    }

    #[test]
    fn floats_accumulate_wide_and_round_once() {
        // 2^24 + 1 + 1 is exact in f64; a float32 loop would stall at 2^24.
        let x = [16777216.0f32, 1.0, 1.0];
        assert_eq!(cumsum(&x, false), vec![16777216.0, 16777216.0, 16777218.0]);
        let h = [f16::from_bits(0x6800), 1.0, 1.0]; // 2048 + 1 + 1 in float16
        assert_eq!(
            cumsum(&h, false)
                .iter()
                .map(|v| *v as f32)
                .collect::<Vec<_>>(),
            vec![2048.0, 2048.0, 2050.0]
        );
    }

    #[test]
    fn nan_mode_uses_the_identity() {
        let x = [1.0f64, f64::NAN, 2.0];
        assert!(cumsum(&x, false)[2].is_nan());
        assert_eq!(cumsum(&x, true), vec![1.0, 1.0, 3.0]);
        assert_eq!(cumprod(&[2.0f32, f32::NAN, 3.0], true), vec![2.0, 2.0, 6.0]);
        // A complex value with one NaN part counts as NaN, as in numpy.isnan.
        let c = [
            c64::new(1.0, 1.0),
            c64::new(f32::NAN, 0.0),
            c64::new(0.0, 2.0),
        ];
        assert_eq!(
            cumsum(&c, true),
            vec![c64::new(1.0, 1.0), c64::new(1.0, 1.0), c64::new(1.0, 3.0)]
        );
    }

    /// NumPy's running sum keeps a leading -0.0 (its scan starts from the first element);
    /// `nan` mode's zero is +0.0.
    #[test]
    fn signed_zeros_as_numpy() {
        let bits = |v: Vec<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let got = cumsum(&[-0.0f64, -0.0, 0.0, -0.0], false);
        assert_eq!(bits(got), bits(vec![-0.0, -0.0, 0.0, 0.0]));
        assert_eq!(bits(cumsum(&[f64::NAN], true)), bits(vec![0.0]));
        assert_eq!(bits(cumsum(&[-0.0, f64::NAN], true)), bits(vec![-0.0, 0.0]));
        let c = cumsum(&[c64::new(-0.0, -0.0)], false)[0];
        assert!(c.re.is_sign_negative() && c.im.is_sign_negative() && c.re == 0.0);
        assert_eq!(
            cumprod(&[-0.0f32, 2.0], false)[0].to_bits(),
            (-0.0f32).to_bits()
        );
    }

    #[test]
    fn complex_product() {
        let c = [
            c128::new(0.0, 1.0),
            c128::new(0.0, 1.0),
            c128::new(2.0, 0.0),
        ];
        assert_eq!(
            cumprod(&c, false),
            vec![
                c128::new(0.0, 1.0),
                c128::new(-1.0, 0.0),
                c128::new(-2.0, 0.0)
            ]
        );
        // The first element as NumPy's sequential product keeps it: a -0.0 part stays.
        let first = cumprod(&[c128::new(2.0, -0.0), c128::new(-1.0, 0.0)], false);
        assert!(first[0].im == 0.0 && first[0].im.is_sign_negative());
        // (-1+0j)(-1+0j) = 1-0j.
        let p = cumprod(&[c64::new(-1.0, 0.0), c64::new(-1.0, 0.0)], false);
        assert!(p[1].im == 0.0 && p[1].im.is_sign_negative() && p[1].re == 1.0);
        // Data carrying the identity's NaN payload is still NaN, not skipped.
        let marked = f64::from_bits(PROD_ID_BITS);
        let m = cumprod(&[c128::new(marked, 0.0), c128::new(3.0, 0.0)], false);
        assert!(m[1].re.is_nan());
        assert!(
            cumprod(&[c128::new(3.0, 0.0), c128::new(marked, 1.0)], false)[1]
                .re
                .is_nan()
        );
    }

    #[test]
    fn items_keep_sixteen_to_thirty_two_bytes_per_thread() {
        assert_eq!(items_per_thread(2), 8);
        assert_eq!(items_per_thread(4), 8);
        assert_eq!(items_per_thread(8), 4);
        assert_eq!(items_per_thread(16), 2);
    }

    #[test]
    fn handles_name_their_kernels() {
        for (op, name) in ["sum", "prod"].into_iter().enumerate() {
            let k = kernel(Part::ColsReduce, op, 11).unwrap();
            assert_eq!(
                KERNELS[k.index as usize],
                format!("gpupy_scan_{name}_f64_cols_reduce")
            );
            let k = kernel(Part::Rows, op, 4).unwrap();
            assert_eq!(
                KERNELS[k.index as usize],
                format!("gpupy_scan_{name}_i64_rows")
            );
            assert!(kernel(Part::Rows, op, 3).is_none());
        }
    }
}
