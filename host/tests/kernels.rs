//! Device tests stamped per kernel family and dtype from the kernel crate's own tables:
//! every module of the registry loads and resolves every kernel it declares, and the
//! elementwise, cast, copy, fill, `arange`, reduction, scan and sort kernels each run on
//! a tiny input and are checked against their CPU meaning (the same Rust the kernels
//! are compiled from, run on the host). The Python suite checks the same kernels
//! against NumPy; these check the registry's wiring (each handle launches the kernel
//! of its op, dtype and variant) without Python.
//!
//! Without a GPU each test prints why it is skipped and passes (the Rust harness has no
//! run-time skip), unless `GPUPY_REQUIRE_GPU=1`, which makes that a failure.
#![feature(f16)]
#![allow(clippy::approx_constant)]

mod common;
use common::gpu;

use gpupy_host::ops::elementwise::{Operand, Scalar, binary, copy, fill, unary};
use gpupy_host::ops::{elementwise::arange, reduce};
use gpupy_host::table::{BinaryOp, ReduceOp, UnaryOp};
use gpupy_host::{Array, DType, device};
use gpupy_kernels::dtype::{Cast, DTypeIndex, c64, c128};
use gpupy_kernels::elementwise::ops;
use gpupy_kernels::modules::MODULES;
use gpupy_kernels::reduce::reduction::{self, Finish};
use gpupy_kernels::registry::Kernel;

/// Element types as plain bytes, and compared with the precision the GPU's math allows.
trait Elem: Copy + std::fmt::Debug + 'static {
    fn from_f64(x: f64) -> Self;
    /// Equal, or (floats) within `rel` of each other relative to their magnitude; NaN
    /// equals NaN.
    fn close(self, other: Self) -> bool;
    /// The value as (real, imaginary) parts in float64, for error bounds.
    fn parts(self) -> (f64, f64);
    /// The unit roundoff of the type (0 for exact types).
    const U: f64;
}

/// Relative tolerances between the GPU (libdevice) and the CPU (std) forms of the same
/// meaning. These tests check the registry's wiring (each handle runs its op, dtype and
/// variant), so a wrong kernel is off by far more than any rounding; accuracy against
/// the documented per-function bounds is the Python suite's (`tests/compare.py`). 16
/// ulp of each type covers libdevice's documented maxima (at most 4 ulp for the real
/// functions tested here, `atanhf` and `powf` among the largest) plus std's, with the
/// ill-conditioning of `arctanh` near 1 and of complex powers with large exponents.
const TOL_F16: f64 = 16.0 * 9.77e-4;
const TOL_F32: f64 = 16.0 * 1.19e-7;
const TOL_F64: f64 = 16.0 * 2.22e-16;

fn close_f(a: f64, b: f64, tol: f64, tiny: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a.is_infinite() || b.is_infinite() {
        return a == b;
    }
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(tiny)
}

macro_rules! int_elem {
    ($($t:ty)*) => {$(
        impl Elem for $t {
            fn from_f64(x: f64) -> Self { x as i64 as $t }
            fn close(self, other: Self) -> bool { self == other }
            fn parts(self) -> (f64, f64) { (self as f64, 0.0) }
            const U: f64 = 0.0;
        }
    )*};
}
int_elem!(i8 i16 i32 i64 u8 u16 u32 u64);

impl Elem for bool {
    const U: f64 = 0.0;
    fn parts(self) -> (f64, f64) {
        (self as u8 as f64, 0.0)
    }
    fn from_f64(x: f64) -> Self {
        x > 0.0
    }
    fn close(self, other: Self) -> bool {
        self == other
    }
}
impl Elem for f16 {
    const U: f64 = 4.88e-4;
    fn parts(self) -> (f64, f64) {
        (self as f64, 0.0)
    }
    fn from_f64(x: f64) -> Self {
        x as f16
    }
    fn close(self, other: Self) -> bool {
        close_f(self as f64, other as f64, TOL_F16, 6.1e-5)
    }
}
impl Elem for f32 {
    const U: f64 = 5.96e-8;
    fn parts(self) -> (f64, f64) {
        (self as f64, 0.0)
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn close(self, other: Self) -> bool {
        close_f(self as f64, other as f64, TOL_F32, 1.2e-38)
    }
}
impl Elem for f64 {
    const U: f64 = 1.11e-16;
    fn parts(self) -> (f64, f64) {
        (self, 0.0)
    }
    fn from_f64(x: f64) -> Self {
        x
    }
    fn close(self, other: Self) -> bool {
        close_f(self, other, TOL_F64, 2.3e-308)
    }
}
impl Elem for c64 {
    const U: f64 = 5.96e-8;
    fn parts(self) -> (f64, f64) {
        (self.re as f64, self.im as f64)
    }
    fn from_f64(x: f64) -> Self {
        c64::new(x as f32, (0.5 - x) as f32)
    }
    fn close(self, other: Self) -> bool {
        // Complex results are compared on their magnitude (a part that cancels to
        // nearly zero carries the error of the other), within 64 ulp: complex powers
        // amplify the rounding of the logarithm by |exponent * log(base)|, up to about 8
        // for these operands, on top of 16 ulp.
        let scale = (self.re as f64).hypot(self.im as f64);
        let near = |a: f32, b: f32| close_f(a as f64, b as f64, 4.0 * TOL_F32, scale.max(1.2e-38));
        near(self.re, other.re) && near(self.im, other.im)
    }
}
impl Elem for c128 {
    const U: f64 = 1.11e-16;
    fn parts(self) -> (f64, f64) {
        (self.re, self.im)
    }
    fn from_f64(x: f64) -> Self {
        c128::new(x, 0.5 - x)
    }
    fn close(self, other: Self) -> bool {
        let scale = self.re.hypot(self.im);
        let near = |a: f64, b: f64| close_f(a, b, 4.0 * TOL_F64, scale.max(2.3e-308));
        near(self.re, other.re) && near(self.im, other.im)
    }
}

fn dtype_of<T: DTypeIndex>() -> DType {
    DType::ALL[T::INDEX]
}

/// The bytes of `v` (plain-data element types).
fn bytes_of<T: Copy>(v: &[T]) -> Vec<u8> {
    // SAFETY: every `Elem` type is plain data without padding (integers, floats, and
    // the `#[repr(C)]` complex pairs), so its bytes are initialized.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
        .to_vec()
}

fn download<T: Copy + Default>(a: &Array) -> Vec<T> {
    let mut out = vec![T::default(); a.size()];
    let mut bytes = vec![0u8; a.nbytes()];
    gpupy_host::ops::elementwise::copy::to_host(a, &mut bytes).unwrap();
    // SAFETY: `out` holds exactly `a.size()` elements of T, `bytes` as many bytes of
    // the same dtype, and every bit pattern the kernels write is a valid T.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.as_mut_ptr().cast::<u8>(), bytes.len())
    };
    out
}

/// Deterministic values in (-4, 4), neither zero nor a ramp (a small LCG).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 8.0
        })
        .collect()
}

fn upload<T: Elem + DTypeIndex>(dev: &'static device::Device, v: &[T], shape: &[usize]) -> Array {
    Array::from_host(dev, &bytes_of(v), shape, dtype_of::<T>()).unwrap()
}

fn assert_close<T: Elem>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(g.close(*w), "{what}: element {i}: GPU {g:?}, CPU {w:?}");
    }
}

#[test]
fn every_module_resolves_every_kernel() {
    let Some(dev) = gpu("every_module_resolves_every_kernel") else {
        return;
    };
    let kernels = dev.kernels().unwrap();
    let mut checked = 0;
    for spec in MODULES.iter() {
        if !kernels.available(spec.module) {
            eprintln!("{}: not for this GPU ({})", spec.name, spec.arch.name());
            continue;
        }
        for i in 0..spec.kernels.len() {
            dev.kernel(Kernel::new(spec.module, i))
                .unwrap_or_else(|e| panic!("{}: {e}", spec.kernels[i]));
            checked += 1;
        }
        // A handle past the table is an error, not a launch.
        assert!(
            dev.kernel(Kernel::new(spec.module, spec.kernels.len()))
                .is_err()
        );
    }
    assert!(checked > 1000, "only {checked} kernels resolved");
}

/// `op` on every variant (two arrays, array and scalar either side, a transposed view,
/// broadcast rows) against the CPU meaning `O::apply`.
fn check_binary<O, T>(dev: &'static device::Device, op: BinaryOp)
where
    O: ops::BinaryOp<T>,
    T: Elem + DTypeIndex + Default,
    O::Out: Elem + DTypeIndex + Default,
{
    let what = |v: &str| format!("{}[{}] {v}", op.name(), dtype_of::<T>().name());
    let (rows, cols) = (5, 64);
    // Integer powers raise NumPy's ValueError for negative exponents (checked on the
    // host before the kernel runs): for `power` both operands, each the exponent in one
    // of the cases below, are non-negative.
    let exponent = |x: f64| if op == BinaryOp::Power { x.abs() } else { x };
    let a: Vec<T> = values(rows * cols, 1)
        .into_iter()
        .map(|x| T::from_f64(exponent(x)))
        .collect();
    let b: Vec<T> = values(rows * cols, 2)
        .into_iter()
        .map(|x| T::from_f64(exponent(x)))
        .collect();
    let (ga, gb) = (
        upload(dev, &a, &[rows, cols]),
        upload(dev, &b, &[rows, cols]),
    );
    let d = dtype_of::<T>();
    // Two contiguous arrays.
    let got = binary(op, d, Operand::Array(&ga), Operand::Array(&gb), None).unwrap();
    let want: Vec<O::Out> = a.iter().zip(&b).map(|(&x, &y)| O::apply(x, y)).collect();
    assert_close(&download::<O::Out>(&got), &want, &what("vv"));
    // A scalar on either side.
    let s = Scalar::from_bytes(d, &bytes_of(&[b[3]])).unwrap();
    let got = binary(op, d, Operand::Scalar(s), Operand::Array(&ga), None).unwrap();
    let want: Vec<O::Out> = a.iter().map(|&x| O::apply(b[3], x)).collect();
    assert_close(&download::<O::Out>(&got), &want, &what("vs, scalar first"));
    let got = binary(op, d, Operand::Array(&ga), Operand::Scalar(s), None).unwrap();
    let want: Vec<O::Out> = a.iter().map(|&x| O::apply(x, b[3])).collect();
    assert_close(&download::<O::Out>(&got), &want, &what("vs, scalar second"));
    // Transposed views: the strided kernel.
    let (ta, tb) = (ga.transpose(None).unwrap(), gb.transpose(None).unwrap());
    let got = binary(op, d, Operand::Array(&ta), Operand::Array(&tb), None).unwrap();
    let want: Vec<O::Out> = (0..cols)
        .flat_map(|j| (0..rows).map(move |i| i * cols + j))
        .map(|k| O::apply(a[k], b[k]))
        .collect();
    assert_close(&download::<O::Out>(&got), &want, &what("strided"));
    // A row broadcast against every row: the rows kernel.
    let row = upload(dev, &b[..cols], &[cols]);
    let got = binary(op, d, Operand::Array(&ga), Operand::Array(&row), None).unwrap();
    let want: Vec<O::Out> = a
        .iter()
        .enumerate()
        .map(|(k, &x)| O::apply(x, b[k % cols]))
        .collect();
    assert_close(&download::<O::Out>(&got), &want, &what("rows"));
}

macro_rules! binary_tests {
    ([] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => {
        mod binary {
            use super::*;
            $(
                #[test]
                fn $op() {
                    let Some(dev) = gpu(concat!("binary::", stringify!($op))) else { return };
                    $( check_binary::<ops::$Op, $ty>(dev, BinaryOp::$Op); )*
                }
            )*
        }
    };
}
gpupy_kernels::for_each_binary_op!(binary_tests);

/// `op` on a contiguous array and on a transposed view against `O::apply`.
fn check_unary<O, T>(dev: &'static device::Device, op: UnaryOp)
where
    O: ops::UnaryOp<T>,
    T: Elem + DTypeIndex + Default,
    O::Out: Elem + DTypeIndex + Default,
{
    let what = |v: &str| format!("{}[{}] {v}", op.name(), dtype_of::<T>().name());
    let (rows, cols) = (3, 37);
    // Values in (-4, 4): outside a function's domain both sides must give NaN.
    let a: Vec<T> = values(rows * cols, 3)
        .into_iter()
        .map(T::from_f64)
        .collect();
    let ga = upload(dev, &a, &[rows, cols]);
    let d = dtype_of::<T>();
    let got = unary(op, d, &ga, None).unwrap();
    let want: Vec<O::Out> = a.iter().map(|&x| O::apply(x)).collect();
    assert_close(&download::<O::Out>(&got), &want, &what("contig"));
    let got = unary(op, d, &ga.transpose(None).unwrap(), None).unwrap();
    let want: Vec<O::Out> = (0..cols)
        .flat_map(|j| (0..rows).map(move |i| i * cols + j))
        .map(|k| O::apply(a[k]))
        .collect();
    assert_close(&download::<O::Out>(&got), &want, &what("strided"));
}

macro_rules! unary_tests {
    ([] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => {
        mod unary {
            use super::*;
            $(
                #[test]
                fn $op() {
                    let Some(dev) = gpu(concat!("unary::", stringify!($op))) else { return };
                    $( check_unary::<ops::$Op, $ty>(dev, UnaryOp::$Op); )*
                }
            )*
        }
    };
}
gpupy_kernels::for_each_unary_op!(unary_tests);

/// Casts from each dtype to every dtype (but bfloat16, covered by the Python suite),
/// contiguous and strided, against `Cast`; one test per source dtype.
macro_rules! cast_tests {
    ($($from:ident)*) => {
        mod cast {
            use super::*;
            $(
                #[test]
                fn $from() {
                    let Some(dev) = gpu(concat!("cast::", stringify!($from))) else { return };
                    let (rows, cols) = (4, 33);
                    let a: Vec<$from> =
                        values(rows * cols, 4).into_iter().map(|x| $from::from_f64(x * 10.0)).collect();
                    let ga = upload(dev, &a, &[rows, cols]);
                    let t = ga.transpose(None).unwrap();
                    casts_to!(dev, a, ga, t, rows, cols, $from: bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128);
                }
            )*
        }
    };
}
macro_rules! casts_to {
    ($dev:ident, $a:ident, $ga:ident, $t:ident, $rows:ident, $cols:ident, $from:ident: $($to:ident)*) => {$(
        let what = concat!("cast ", stringify!($from), " -> ", stringify!($to));
        let want: Vec<$to> = $a.iter().map(|&x| Cast::<$to>::cast(x)).collect();
        let got = copy::astype(&$ga, dtype_of::<$to>()).unwrap();
        assert_close(&download::<$to>(&got), &want, what);
        let got = copy::astype(&$t, dtype_of::<$to>()).unwrap();
        let want: Vec<$to> = (0..$cols)
            .flat_map(|j| (0..$rows).map(move |i| i * $cols + j))
            .map(|k| Cast::<$to>::cast($a[k]))
            .collect();
        assert_close(&download::<$to>(&got), &want, &format!("{what} (strided)"));
    )*};
}
cast_tests!(bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128);

#[test]
fn copies_and_fills_every_item_size() {
    let Some(dev) = gpu("copies_and_fills_every_item_size") else {
        return;
    };
    macro_rules! sizes {
        ($($t:ident)*) => {$(
            let a: Vec<$t> = values(6 * 7, 5).into_iter().map($t::from_f64).collect();
            let ga = upload(dev, &a, &[6, 7]);
            // A transposed copy: the strided copy kernel of this item size.
            let t = ga.transpose(None).unwrap();
            let out = Array::empty(dev, &[7, 6], dtype_of::<$t>()).unwrap();
            copy::copy_into(&t, &out).unwrap();
            let want: Vec<$t> = (0..7).flat_map(|j| (0..6).map(move |i| i * 7 + j)).map(|k| a[k]).collect();
            assert_close(&download::<$t>(&out), &want, concat!("copy ", stringify!($t)));
            // A fill whose bytes differ (no memset shortcut): the fill kernel.
            let v = $t::from_f64(-2.75);
            let full = fill::full(dev, &[37], dtype_of::<$t>(), &bytes_of(&[v])).unwrap();
            assert_close(&download::<$t>(&full), &[v; 37], concat!("fill ", stringify!($t)));
        )*};
    }
    sizes!(i8 i16 f32 f64 c128);
}

#[test]
fn arange_every_dtype() {
    let Some(dev) = gpu("arange_every_dtype") else {
        return;
    };
    macro_rules! types {
        ($($t:ident)*) => {$(
            let (first, second) = ($t::from_f64(3.0), $t::from_f64(1.0));
            let got = arange::arange(dev, 50, dtype_of::<$t>(), &bytes_of(&[first]), &bytes_of(&[second])).unwrap();
            let want: Vec<$t> = (0..50u64)
                .map(|i| <$t as gpupy_kernels::elementwise::arange::Arange>::at(first, second, i))
                .collect();
            assert_close(&download::<$t>(&got), &want, concat!("arange ", stringify!($t)));
        )*};
    }
    types!(i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128);
}

/// Reduction `R` of `T` along each axis of a `rows x cols` array (the block kernel for
/// the last axis, the serial one for the first, and the merge of split launches for a
/// long column) against a CPU fold in the same order of meaning.
fn check_reduce<R, T>(dev: &'static device::Device, op: ReduceOp)
where
    R: reduction::Reduction<T>,
    T: Elem + DTypeIndex + Default,
    R::Out: Elem + DTypeIndex + Default,
{
    for (rows, cols, axis) in [(7, 300, 1usize), (300, 7, 0), (40000, 2, 0)] {
        let a: Vec<T> = values(rows * cols, 6)
            .into_iter()
            .map(T::from_f64)
            .collect();
        let ga = upload(dev, &a, &[rows, cols]);
        let n = if axis == 1 { cols } else { rows };
        let finish = Finish {
            n: n as f64,
            ddof: 0.0,
            root: 0,
            _pad: 0,
        };
        let got = reduce::reduce(&ga, op, &[axis], finish).unwrap();
        let outputs = if axis == 1 { rows } else { cols };
        let want: Vec<R::Out> = (0..outputs)
            .map(|o| {
                let mut acc = R::init();
                for i in 0..n {
                    let k = if axis == 1 {
                        o * cols + i
                    } else {
                        i * cols + o
                    };
                    acc = R::fold(acc, a[k], i as i64);
                }
                R::finish(acc, &finish)
            })
            .collect();
        let what = format!(
            "{}[{}] {rows}x{cols} axis {axis}",
            op.name(),
            dtype_of::<T>().name()
        );
        let got = download::<R::Out>(&got);
        // Sums, products, means and variances depend on the order of their terms: the
        // GPU's tree and the CPU's loop each lie within (n-1) u of the exact result
        // relative to the sum of the terms' magnitudes (Higham, Accuracy and Stability,
        // 4.2), so they may differ by twice that; u is the output's (the accumulators of
        // float16 and float32 are wider). Order-free reductions (extrema, their
        // indices, any/all, counts) must agree to the last bit.
        let ordered = matches!(
            op.name(),
            "sum" | "nansum" | "prod" | "nanprod" | "mean" | "nanmean" | "var" | "nanvar"
        );
        if ordered && <R::Out as Elem>::U > 0.0 {
            let mag = |(re, im): (f64, f64)| re.hypot(im);
            for (o, (&g, &w)) in got.iter().zip(&want).enumerate() {
                let terms: Vec<f64> = (0..n)
                    .map(|i| {
                        mag(a[if axis == 1 {
                            o * cols + i
                        } else {
                            i * cols + o
                        }]
                        .parts())
                    })
                    .collect();
                let scale = match op.name() {
                    "sum" | "nansum" => terms.iter().sum::<f64>(),
                    "mean" | "nanmean" => terms.iter().sum::<f64>() / n as f64,
                    // Each squared deviation is at most (|x| + |mean|)^2 <= (2 max|x|)^2.
                    "var" | "nanvar" => 4.0 * terms.iter().fold(0.0f64, |m, &x| m.max(x)).powi(2),
                    // Products do not cancel: relative to the product itself.
                    _ => mag(w.parts()),
                };
                let bound = 2.0 * n as f64 * <R::Out as Elem>::U * scale;
                let ((gr, gi), (wr, wi)) = (g.parts(), w.parts());
                let err = (gr - wr).hypot(gi - wi);
                let nonfinite = !mag(w.parts()).is_finite() && g.close(w);
                assert!(
                    nonfinite || err <= bound,
                    "{what}: output {o}: GPU {g:?}, CPU {w:?}, bound {bound:e}"
                );
            }
        } else {
            assert_close(&got, &want, &what);
        }
    }
}

macro_rules! reduce_tests {
    ([] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => {
        mod reductions {
            use super::*;
            $(
                #[test]
                fn $op() {
                    let Some(dev) = gpu(concat!("reductions::", stringify!($op))) else { return };
                    $( check_reduce::<reduction::$Op, $ty>(dev, ReduceOp::$Op); )*
                }
            )*
        }
    };
}
gpupy_kernels::for_each_reduce_op!(reduce_tests);

#[test]
fn lazy_modules_load_on_first_use() {
    let Some(dev) = gpu("lazy_modules_load_on_first_use") else {
        return;
    };
    let a = upload(dev, &[1.0f32, 2.0, 3.0], &[3]);
    let b = binary(
        BinaryOp::Add,
        DType::Float32,
        Operand::Array(&a),
        Operand::Array(&a),
        None,
    )
    .unwrap();
    assert_eq!(download::<f32>(&b), vec![2.0, 4.0, 6.0]);
    let loaded = dev.kernels().unwrap().loaded();
    assert!(loaded.contains(&gpupy_kernels::registry::Module::Elementwise));
}
