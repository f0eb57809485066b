//! Elementwise kernels: one generic body per variant, stamped per (op, dtype) from
//! `table.rs`.
//!
//! Variants:
//! - `vv`, `vs`, `sv`: contiguous arrays (and a scalar passed by value), read and written
//!   16 bytes at a time when every pointer is 16-byte aligned, in a grid-stride loop;
//! - `strided`: any shapes and strides (broadcasting is stride 0), one element per step.
//!
//! `copy_*` and `fill_*` move bits of one item size and serve every dtype of that size.

use crate::args::Strided;
use crate::gpu::grid_stride;
use crate::ops::{self, BinaryOp, Cast};

/// `N` elements of `T`, 16 bytes and 16-byte aligned: one vector load or store.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Pack<T: Copy, const N: usize>([T; N]);

#[inline(always)]
fn aligned16(p: usize) -> bool {
    p % 16 == 0
}

/// One contiguous operand: an array, or a scalar repeated.
#[derive(Clone, Copy)]
enum Operand<T> {
    Array(*const T),
    Scalar(T),
}

impl<T: Copy> Operand<T> {
    #[inline(always)]
    fn aligned(self) -> bool {
        match self {
            Operand::Array(p) => aligned16(p as usize),
            Operand::Scalar(_) => true,
        }
    }
    /// # Safety
    /// `i < len` of the array.
    #[inline(always)]
    unsafe fn get(self, i: u64) -> T {
        match self {
            // SAFETY: the caller keeps i in bounds.
            Operand::Array(p) => unsafe { *p.add(i as usize) },
            Operand::Scalar(s) => s,
        }
    }
    /// # Safety
    /// Elements `N*j .. N*j+N` are in bounds and the pointer is 16-byte aligned.
    #[inline(always)]
    unsafe fn get_pack<const N: usize>(self, j: u64) -> [T; N] {
        match self {
            // SAFETY: the caller checked alignment and bounds.
            Operand::Array(p) => unsafe { (*(p as *const Pack<T, N>).add(j as usize)).0 },
            Operand::Scalar(s) => [s; N],
        }
    }
}

/// `out[i] = O(a[i], b[i])` for contiguous operands.
///
/// # Safety
/// `out` has `n` elements, each array operand too; `out` may alias an input only exactly
/// (in-place), never partially.
#[inline(always)]
unsafe fn binary_contig<T: Copy, O: BinaryOp<T>, const N: usize>(
    a: Operand<T>,
    b: Operand<T>,
    out: *mut T,
    n: u64,
) {
    let (start, stride) = grid_stride();
    let mut tail = 0;
    if a.aligned() && b.aligned() && aligned16(out as usize) {
        let packs = n / N as u64;
        let mut j = start;
        while j < packs {
            // SAFETY: j < packs, so the whole pack is in bounds; alignment checked above.
            unsafe {
                let (x, y) = (a.get_pack::<N>(j), b.get_pack::<N>(j));
                let mut r = x;
                for k in 0..N {
                    r[k] = O::apply(x[k], y[k]);
                }
                *(out as *mut Pack<T, N>).add(j as usize) = Pack(r);
            }
            j += stride;
        }
        tail = packs * N as u64;
    }
    let mut i = tail + start;
    while i < n {
        // SAFETY: i < n.
        unsafe { *out.add(i as usize) = O::apply(a.get(i), b.get(i)) };
        i += stride;
    }
}

/// `out[..] = O(a[..], b[..])` over any strides; operand order in `s.strides` is
/// (out, a, b).
///
/// # Safety
/// The host checked that every offset `s` can produce stays inside each allocation.
#[inline(always)]
unsafe fn binary_strided<T: Copy, O: BinaryOp<T>>(s: &Strided<3>, a: *const T, b: *const T, out: *mut T) {
    let (start, stride) = grid_stride();
    let mut i = start;
    while i < s.len {
        let [o, x, y] = s.offsets(i);
        // SAFETY: offsets are in bounds by the host's check.
        unsafe { *out.offset(o as isize) = O::apply(*a.offset(x as isize), *b.offset(y as isize)) };
        i += stride;
    }
}

/// `out[..] = a[..]` over any strides, moving items of type `T` (a bit pattern).
///
/// # Safety
/// As for `binary_strided`, with operands (out, a).
#[inline(always)]
unsafe fn copy_strided<T: Copy>(s: &Strided<2>, a: *const T, out: *mut T) {
    let (start, stride) = grid_stride();
    let mut i = start;
    while i < s.len {
        let [o, x] = s.offsets(i);
        // SAFETY: offsets are in bounds by the host's check.
        unsafe { *out.offset(o as isize) = *a.offset(x as isize) };
        i += stride;
    }
}

/// `out[..] = a[..] as O` over any strides, operands (out, a).
///
/// # Safety
/// As for `binary_strided`.
#[inline(always)]
unsafe fn cast_strided<I: Copy + Cast<O>, O: Copy>(s: &Strided<2>, a: *const I, out: *mut O) {
    let (start, stride) = grid_stride();
    let mut i = start;
    while i < s.len {
        let [o, x] = s.offsets(i);
        // SAFETY: offsets are in bounds by the host's check.
        unsafe { *out.offset(o as isize) = (*a.offset(x as isize)).cast() };
        i += stride;
    }
}

/// `out[i] = v` for `i < n`.
///
/// # Safety
/// `out` has `n` elements.
#[inline(always)]
unsafe fn fill<T: Copy, const N: usize>(out: *mut T, n: u64, v: T) {
    // Through the binary engine: `a` and `b` are the scalar, the op keeps `a`.
    struct First;
    impl<T> BinaryOp<T> for First {
        #[inline(always)]
        fn apply(a: T, _: T) -> T {
            a
        }
    }
    // SAFETY: forwarded contract.
    unsafe { binary_contig::<T, First, N>(Operand::Scalar(v), Operand::Scalar(v), out, n) }
}

/// Elements of `T` in one 16-byte pack.
macro_rules! lanes {
    ($ty:ty) => {
        16 / core::mem::size_of::<$ty>()
    };
}

macro_rules! binary_entries {
    ([] $(($Op:ident, $op:ident))*) => {
        $( crate::for_each_float_dtype!(binary_entries_for, $Op, $op); )*
    };
}

macro_rules! binary_entries_for {
    ([$Op:ident $op:ident] $(($D:ident, $ty:ident))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_", stringify!($op), "_", stringify!($ty), "_vv"))]
            unsafe extern "ptx-kernel" fn vv(a: *const $ty, b: *const $ty, out: *mut $ty, n: u64) {
                // SAFETY: the host launches with arrays of n elements.
                unsafe { binary_contig::<$ty, ops::$Op, { lanes!($ty) }>(Operand::Array(a), Operand::Array(b), out, n) }
            }
            #[unsafe(export_name = concat!("gpupy_", stringify!($op), "_", stringify!($ty), "_vs"))]
            unsafe extern "ptx-kernel" fn vs(a: *const $ty, b: $ty, out: *mut $ty, n: u64) {
                // SAFETY: as above.
                unsafe { binary_contig::<$ty, ops::$Op, { lanes!($ty) }>(Operand::Array(a), Operand::Scalar(b), out, n) }
            }
            #[unsafe(export_name = concat!("gpupy_", stringify!($op), "_", stringify!($ty), "_sv"))]
            unsafe extern "ptx-kernel" fn sv(a: $ty, b: *const $ty, out: *mut $ty, n: u64) {
                // SAFETY: as above.
                unsafe { binary_contig::<$ty, ops::$Op, { lanes!($ty) }>(Operand::Scalar(a), Operand::Array(b), out, n) }
            }
            #[unsafe(export_name = concat!("gpupy_", stringify!($op), "_", stringify!($ty), "_strided"))]
            unsafe extern "ptx-kernel" fn strided(s: Strided<3>, a: *const $ty, b: *const $ty, out: *mut $ty) {
                // SAFETY: the host checked every offset against the allocations.
                unsafe { binary_strided::<$ty, ops::$Op>(&s, a, b, out) }
            }
        };
    )* };
}

crate::for_each_binary_op!(binary_entries);

macro_rules! move_entries {
    ([] $(($bytes:literal, $ty:ident))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_copy_", stringify!($bytes), "_strided"))]
            unsafe extern "ptx-kernel" fn copy(s: Strided<2>, a: *const $ty, out: *mut $ty) {
                // SAFETY: the host checked every offset against the allocations.
                unsafe { copy_strided::<$ty>(&s, a, out) }
            }
            #[unsafe(export_name = concat!("gpupy_fill_", stringify!($bytes)))]
            unsafe extern "ptx-kernel" fn fill_entry(out: *mut $ty, n: u64, v: $ty) {
                // SAFETY: the host launches with an array of n elements.
                unsafe { fill::<$ty, { lanes!($ty) }>(out, n, v) }
            }
        };
    )* };
}

crate::for_each_item_size!(move_entries);

macro_rules! cast_entries {
    ([] $(($D:ident, $from:ident))*) => {
        $( crate::for_each_float_dtype!(cast_entries_to, $from); )*
    };
}

macro_rules! cast_entries_to {
    ([$from:ident] $(($D:ident, $to:ident))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_cast_", stringify!($from), "_", stringify!($to), "_strided"))]
            unsafe extern "ptx-kernel" fn cast(s: Strided<2>, a: *const $from, out: *mut $to) {
                // SAFETY: the host checked every offset against the allocations.
                unsafe { cast_strided::<$from, $to>(&s, a, out) }
            }
        };
    )* };
}

crate::for_each_float_dtype!(cast_entries);
