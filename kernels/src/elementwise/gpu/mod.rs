//! Elementwise kernels: one generic body per variant, stamped per (op, dtype) from
//! `table.rs`.
//!
//! Variants:
//! - `vv`, `vs`: contiguous arrays (and, for `vs`, a scalar passed by value on either
//!   side), read and written one pack at a time (16 bytes of the wider of input and
//!   output) when every pointer is aligned to its pack, in a grid-stride loop;
//! - `contig` (unary) the same for one input;
//! - `strided`: any shapes and strides (broadcasting is stride 0), one element per step.
//!
//! `cast_*` converts between every pair of dtypes; `copy_*` and `fill_*` move bits of one
//! item size and serve every dtype of that size.

mod arange;

use crate::args::{Rows, Strided};
use crate::dtype::{Cast, bf16, c64, c128, lanes, load_pack, map_pack, store_pack};
use crate::elementwise::ops::{self, BinaryOp, UnaryOp};
use crate::gpu::grid_stride;

/// One contiguous operand: an array, or a scalar repeated.
#[derive(Clone, Copy)]
enum Operand<T> {
    Array(*const T),
    Scalar(T),
}

impl<T: Copy> Operand<T> {
    #[inline(always)]
    fn aligned(self, bytes: usize) -> bool {
        match self {
            Operand::Array(p) => (p as usize).is_multiple_of(bytes),
            Operand::Scalar(_) => true,
        }
    }
    /// # Safety
    /// `i` is in bounds of the array.
    #[inline(always)]
    unsafe fn get(self, i: u64) -> T {
        match self {
            // SAFETY: the caller keeps i in bounds.
            Operand::Array(p) => unsafe { *p.add(i as usize) },
            Operand::Scalar(s) => s,
        }
    }
    /// # Safety
    /// Elements `N*j .. N*j+N` are in bounds and the pointer is aligned to the pack.
    #[inline(always)]
    unsafe fn get_pack<const N: usize>(self, j: u64) -> [T; N] {
        match self {
            // SAFETY: the caller checked alignment and bounds.
            Operand::Array(p) => unsafe { load_pack::<T, N>(p.add(j as usize * N)) },
            Operand::Scalar(s) => [s; N],
        }
    }
}

/// `out[i] = O(a[i], b[i])` for contiguous operands of `n` elements.
///
/// # Safety
/// `out` and every array operand hold `n` elements; `out` may alias an input only
/// exactly (in place), never partially.
#[inline(always)]
unsafe fn binary_contig<T: Copy, O: BinaryOp<T>, const N: usize>(
    a: Operand<T>,
    b: Operand<T>,
    out: *mut O::Out,
    n: u64,
) {
    let (start, stride) = grid_stride();
    let in_bytes = N * core::mem::size_of::<T>();
    let out_bytes = N * core::mem::size_of::<O::Out>();
    let mut tail = 0;
    if a.aligned(in_bytes) && b.aligned(in_bytes) && (out as usize).is_multiple_of(out_bytes) {
        let packs = n / N as u64;
        let mut j = start;
        while j < packs {
            // SAFETY: j < packs keeps the whole pack in bounds; alignment checked above.
            unsafe {
                let (x, y) = (a.get_pack::<N>(j), b.get_pack::<N>(j));
                let r: [O::Out; N] = map_pack(x, y, O::apply);
                store_pack::<O::Out, N>(out.add(j as usize * N), r);
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

/// `out[i] = O(a[i])` for contiguous arrays of `n` elements.
///
/// # Safety
/// As for `binary_contig`.
#[inline(always)]
unsafe fn unary_contig<T: Copy, O: UnaryOp<T>, const N: usize>(
    a: *const T,
    out: *mut O::Out,
    n: u64,
) {
    struct Lift<O>(O);
    impl<T, O: UnaryOp<T>> BinaryOp<T> for Lift<O> {
        type Out = O::Out;
        #[inline(always)]
        fn apply(a: T, _: T) -> O::Out {
            O::apply(a)
        }
    }
    // SAFETY: forwarded contract; the second operand repeats the first.
    unsafe { binary_contig::<T, Lift<O>, N>(Operand::Array(a), Operand::Array(a), out, n) }
}

/// `out[r, c] = O(a[r, c], b[r, c])` over rows that are contiguous or broadcast in each
/// input (see `args::Rows`), a pack of `N` elements per step. Which inputs are contiguous
/// is uniform for a launch, so the loop is chosen once: each variant has its packs in
/// registers (a pack that is either loaded or repeated would be a phi of arrays, which
/// LLVM leaves in local memory for complex types).
///
/// # Safety
/// The host checked that every row lies inside its allocation and that every pointer
/// and row start is aligned to its pack; `(a, b)` are not both broadcast.
#[inline(always)]
unsafe fn binary_rows<T: Copy, O: BinaryOp<T>, const N: usize>(
    r: &Rows,
    a: *const T,
    b: *const T,
    out: *mut O::Out,
) {
    // SAFETY: forwarded contract.
    unsafe {
        match (r.col_step[0] != 0, r.col_step[1] != 0) {
            (true, true) => rows_loop::<T, O, N, true, true>(r, a, b, out),
            (true, false) => rows_loop::<T, O, N, true, false>(r, a, b, out),
            _ => rows_loop::<T, O, N, false, true>(r, a, b, out),
        }
    }
}

/// The loop of `binary_rows` with the inputs' kinds fixed: `CA`/`CB` contiguous rows,
/// else one value per row.
#[inline(always)]
unsafe fn rows_loop<T: Copy, O: BinaryOp<T>, const N: usize, const CA: bool, const CB: bool>(
    r: &Rows,
    a: *const T,
    b: *const T,
    out: *mut O::Out,
) {
    let (start, stride) = grid_stride();
    let total = r.rows * r.packs;
    let mut j = start;
    while j < total {
        let (row, pack) = r.split(j);
        let col = (pack * N as u64) as isize;
        let row = row as isize;
        // SAFETY: rows and packs are aligned and in bounds per the host's check.
        unsafe {
            let pa = a.offset(row * r.row_stride[1] as isize);
            let pb = b.offset(row * r.row_stride[2] as isize);
            let x: [T; N] = if CA {
                load_pack::<T, N>(pa.offset(col))
            } else {
                [*pa; N]
            };
            let y: [T; N] = if CB {
                load_pack::<T, N>(pb.offset(col))
            } else {
                [*pb; N]
            };
            store_pack::<O::Out, N>(
                out.offset(row * r.row_stride[0] as isize + col),
                map_pack(x, y, O::apply),
            );
        }
        j += stride;
    }
}

/// `out[..] = O(a[..], b[..])` over any strides; operands in `s.strides` are (out, a, b).
///
/// # Safety
/// The host checked that every offset `s` can produce stays inside each allocation.
#[inline(always)]
unsafe fn binary_strided<T: Copy, O: BinaryOp<T>>(
    s: &Strided<3>,
    a: *const T,
    b: *const T,
    out: *mut O::Out,
) {
    let (start, stride) = grid_stride();
    let mut i = start;
    while i < s.len {
        let [o, x, y] = s.offsets(i);
        // SAFETY: offsets are in bounds by the host's check.
        unsafe { *out.offset(o as isize) = O::apply(*a.offset(x as isize), *b.offset(y as isize)) };
        i += stride;
    }
}

/// `out[..] = O(a[..])` over any strides; operands (out, a).
///
/// # Safety
/// As for `binary_strided`.
#[inline(always)]
unsafe fn unary_strided<T: Copy, O: UnaryOp<T>>(s: &Strided<2>, a: *const T, out: *mut O::Out) {
    let (start, stride) = grid_stride();
    let mut i = start;
    while i < s.len {
        let [o, x] = s.offsets(i);
        // SAFETY: offsets are in bounds by the host's check.
        unsafe { *out.offset(o as isize) = O::apply(*a.offset(x as isize)) };
        i += stride;
    }
}

/// The identity, for copies: moves items of type `T` as bit patterns.
struct Identity;
impl<T: Copy> UnaryOp<T> for Identity {
    type Out = T;
    #[inline(always)]
    fn apply(a: T) -> T {
        a
    }
}

/// A cast to `O`, for `astype`.
struct CastTo<O>(O);
impl<T: Cast<O>, O: Copy> UnaryOp<T> for CastTo<O> {
    type Out = O;
    #[inline(always)]
    fn apply(a: T) -> O {
        a.cast()
    }
}

/// Keeps the first operand, for fills (both operands are the fill value).
struct First;
impl<T: Copy> BinaryOp<T> for First {
    type Out = T;
    #[inline(always)]
    fn apply(a: T, _: T) -> T {
        a
    }
}

/// Elements per pack for input `$t` and output `$o`.
macro_rules! pack_of {
    ($t:ty, $o:ty) => {
        lanes(core::mem::size_of::<$t>(), core::mem::size_of::<$o>())
    };
}

macro_rules! binary_entries {
    ([] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => { $( $( binary_entry!($Op, $op, $ty); )* )* };
}

macro_rules! binary_entry {
    ($Op:ident, $op:ident, $ty:ident) => {
        const _: () = {
            type Out = <ops::$Op as BinaryOp<$ty>>::Out;
            const N: usize = pack_of!($ty, Out);
            #[unsafe(export_name = concat!("gpupy_", stringify!($op), "_", stringify!($ty), "_vv"))]
            unsafe extern "ptx-kernel" fn vv(a: *const $ty, b: *const $ty, out: *mut Out, n: u64) {
                // SAFETY: the host launches with arrays of n elements.
                unsafe { binary_contig::<$ty, ops::$Op, N>(Operand::Array(a), Operand::Array(b), out, n) }
            }
            /// `scalar_first != 0` computes `O(s, a[i])`, else `O(a[i], s)`.
            #[unsafe(export_name = concat!("gpupy_", stringify!($op), "_", stringify!($ty), "_vs"))]
            unsafe extern "ptx-kernel" fn vs(a: *const $ty, s: $ty, out: *mut Out, n: u64, scalar_first: u32) {
                // SAFETY: as above.
                unsafe {
                    if scalar_first != 0 {
                        binary_contig::<$ty, ops::$Op, N>(Operand::Scalar(s), Operand::Array(a), out, n)
                    } else {
                        binary_contig::<$ty, ops::$Op, N>(Operand::Array(a), Operand::Scalar(s), out, n)
                    }
                }
            }
            #[unsafe(export_name = concat!("gpupy_", stringify!($op), "_", stringify!($ty), "_strided"))]
            unsafe extern "ptx-kernel" fn strided(s: Strided<3>, a: *const $ty, b: *const $ty, out: *mut Out) {
                // SAFETY: the host checked every offset against the allocations.
                unsafe { binary_strided::<$ty, ops::$Op>(&s, a, b, out) }
            }
            #[unsafe(export_name = concat!("gpupy_", stringify!($op), "_", stringify!($ty), "_rows"))]
            unsafe extern "ptx-kernel" fn rows(r: Rows, a: *const $ty, b: *const $ty, out: *mut Out) {
                // SAFETY: the host checked rows, alignment and bounds.
                unsafe { binary_rows::<$ty, ops::$Op, N>(&r, a, b, out) }
            }
        };
    };
}

crate::for_each_binary_op!(binary_entries);

macro_rules! unary_entries {
    ([] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => { $( $( unary_entry!(ops::$Op, $op, $ty); )* )* };
}

macro_rules! unary_entry {
    ($Op:ty, $op:ident, $ty:ident) => {
        const _: () = {
            type Out = <$Op as UnaryOp<$ty>>::Out;
            const N: usize = pack_of!($ty, Out);
            #[unsafe(export_name = concat!("gpupy_", stringify!($op), "_", stringify!($ty), "_contig"))]
            unsafe extern "ptx-kernel" fn contig(a: *const $ty, out: *mut Out, n: u64) {
                // SAFETY: the host launches with arrays of n elements.
                unsafe { unary_contig::<$ty, $Op, N>(a, out, n) }
            }
            #[unsafe(export_name = concat!("gpupy_", stringify!($op), "_", stringify!($ty), "_strided"))]
            unsafe extern "ptx-kernel" fn strided(s: Strided<2>, a: *const $ty, out: *mut Out) {
                // SAFETY: the host checked every offset against the allocations.
                unsafe { unary_strided::<$ty, $Op>(&s, a, out) }
            }
        };
    };
}

crate::for_each_unary_op!(unary_entries);

/// `gpupy_cast_<from>_<to>_{contig,strided}` for every pair of dtypes.
macro_rules! cast_entries {
    ([] $(($D:ident, $from:ident))*) => { $( crate::for_each_dtype!(cast_entries_to, $from); )* };
}
macro_rules! cast_entries_to {
    ([$from:ident] $(($D:ident, $to:ident))*) => { $( cast_entry!($from, $to); )* };
}
macro_rules! cast_entry {
    ($from:ident, $to:ident) => {
        const _: () = {
            const N: usize = pack_of!($from, $to);
            #[unsafe(export_name = concat!("gpupy_cast_", stringify!($from), "_", stringify!($to), "_contig"))]
            unsafe extern "ptx-kernel" fn contig(a: *const $from, out: *mut $to, n: u64) {
                // SAFETY: the host launches with arrays of n elements.
                unsafe { unary_contig::<$from, CastTo<$to>, N>(a, out, n) }
            }
            #[unsafe(export_name = concat!("gpupy_cast_", stringify!($from), "_", stringify!($to), "_strided"))]
            unsafe extern "ptx-kernel" fn strided(s: Strided<2>, a: *const $from, out: *mut $to) {
                // SAFETY: the host checked every offset against the allocations.
                unsafe { unary_strided::<$from, CastTo<$to>>(&s, a, out) }
            }
        };
    };
}
crate::for_each_dtype!(cast_entries);

macro_rules! move_entries {
    ([] $(($bytes:literal, $ty:ident))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_copy_", stringify!($bytes), "_strided"))]
            unsafe extern "ptx-kernel" fn copy(s: Strided<2>, a: *const $ty, out: *mut $ty) {
                // SAFETY: the host checked every offset against the allocations.
                unsafe { unary_strided::<$ty, Identity>(&s, a, out) }
            }
            #[unsafe(export_name = concat!("gpupy_fill_", stringify!($bytes)))]
            unsafe extern "ptx-kernel" fn fill(out: *mut $ty, n: u64, v: $ty) {
                // SAFETY: the host launches with an array of n elements.
                unsafe { binary_contig::<$ty, First, { pack_of!($ty, $ty) }>(Operand::Scalar(v), Operand::Scalar(v), out, n) }
            }
        };
    )* };
}

crate::for_each_item_size!(move_entries);

// The complex types are named in the stamped code through the tables.
#[allow(unused_imports)]
use {bf16 as _, c64 as _, c128 as _};
