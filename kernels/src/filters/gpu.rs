//! The filter kernels (see the module comment): a thread per output, grid-strided. The
//! n-d kernels are a walk (the interior box, or a region near the edges) times what is
//! made of each output's window: a weighted sum, an extreme, a rank selection.

use core::arch::asm;

use super::select::{Order, extreme, select_strided, select9, select25};
use super::{FILTER_DIMS, Filter1d, FilterBox, FilterNd, Mode, map_coord};
use crate::args::IndexWidth;
use crate::gpu::{block_dim, block_idx, grid_dim, grid_stride, smem_generic, thread_idx};

/// The arithmetic of the compute types.
trait Acc: Order {
    const ZERO: Self;
    /// `acc + w * x`, rounded once.
    fn fma(w: Self, x: Self, acc: Self) -> Self;
}

macro_rules! acc_impl {
    ($($t:ident $reg:ident $ty:literal)*) => { $(
        impl Acc for $t {
            const ZERO: $t = 0.0;
            #[inline(always)]
            fn fma(w: $t, x: $t, acc: $t) -> $t {
                let d: $t;
                // SAFETY: register-only arithmetic.
                unsafe {
                    asm!(concat!("fma.rn.", $ty, " {d}, {a}, {b}, {c};"), d = out($reg) d,
                         a = in($reg) w, b = in($reg) x, c = in($reg) acc,
                         options(pure, nomem, nostack))
                };
                d
            }
        }
    )* };
}
acc_impl!(f32 reg32 "f32" f64 reg64 "f64");

/// (quotient, remainder) of `i / extent` by the fast divisor when `small`.
#[inline(always)]
fn divmod(i: u64, extent: u64, magic: u32, shift: u32, small: bool) -> (u64, u64) {
    if small {
        let (q, r) = (i as u32).divmod(extent, magic, shift);
        (q as u64, r as u64)
    } else {
        let (q, r) = i.divmod(extent, 0, 0);
        (q, r as u64)
    }
}

/// `out[i] = sum_t w[t] * x[(o, j + t - center, k)]` over (outer, len, inner).
///
/// # Safety
/// `x` and `out` hold `a.n` elements, `w` holds `a.ntaps`; `a.len` and `a.inner` are at
/// least 1 and their product divides `a.n`.
#[inline(always)]
unsafe fn correlate1d<T: Acc>(x: *const T, w: *const T, out: *mut T, a: &Filter1d) {
    let (start, stride) = grid_stride();
    let small = a.n < 1 << 31;
    let (len, inner, ntaps) = (a.len as i64, a.inner as i64, a.ntaps as i64);
    let mode = Mode::from_code(a.mode);
    let cval = T::from_f64(a.cval);
    let mut i = start;
    while i < a.n {
        let (row, _) = divmod(i, a.inner, a.inner_magic, a.inner_shift, small);
        let (_, j) = divmod(row, a.len, a.len_magic, a.len_shift, small);
        // Element (o, 0, k) of the input: i less j rows of `inner`.
        let base = (i - j * a.inner) as i64;
        let lo = j as i64 - a.center as i64;
        let mut acc = T::ZERO;
        if lo >= 0 && lo + ntaps <= len {
            // Every tap inside the axis: no mapping.
            let mut p = base + lo * inner;
            for t in 0..ntaps {
                // SAFETY: lo + t < len: inside the input; t < ntaps.
                acc = unsafe { T::fma(*w.add(t as usize), *x.add(p as usize), acc) };
                p += inner;
            }
        } else {
            for t in 0..ntaps {
                // SAFETY: t < ntaps; a mapped coordinate is inside 0..len.
                let wt = unsafe { *w.add(t as usize) };
                let v = match map_coord(lo + t, len, mode) {
                    Some(c) => unsafe { *x.add((base + c * inner) as usize) },
                    None => cval,
                };
                acc = T::fma(wt, v, acc);
            }
        }
        // SAFETY: i < n.
        unsafe { *out.add(i as usize) = acc };
        i += stride;
    }
}

/// The taps of an output inside the box: `x[p + lin[t]]`, no boundary tests.
struct Inside<T> {
    x: *const T,
    lin: *const i64,
    p: i64,
}

impl<T: Copy> Inside<T> {
    /// Tap `t`'s input value.
    ///
    /// # Safety
    /// `t < ntaps`, and the window of `p` lies inside `x` (the box's contract).
    #[inline(always)]
    unsafe fn at(&self, t: usize) -> T {
        unsafe { *self.x.add((self.p + *self.lin.add(t)) as usize) }
    }
}

/// The taps of an output at coordinates `c` (innermost first) near an edge: each
/// coordinate mapped by the boundary mode, or `cval` where `Constant` leaves the array.
struct Edge<'a, T> {
    x: *const T,
    off: *const i32,
    a: &'a FilterNd,
    c: [i64; FILTER_DIMS],
    mode: Mode,
    cval: T,
}

impl<T: Copy> Edge<'_, T> {
    /// Tap `t`'s input value (or `cval`).
    ///
    /// # Safety
    /// `t < ntaps`; `off` holds `FILTER_DIMS` offsets per tap; `x` has `a.shape`.
    #[inline(always)]
    unsafe fn at(&self, t: usize) -> T {
        let (a, nd) = (self.a, self.a.ndim as usize);
        // The tap's input offset, or None where a constant-mode coordinate falls out.
        let mut at = Some(0i64);
        let mut step = 1i64;
        macro_rules! tap {
            ($($d:literal)*) => { $(
                if $d < nd {
                    let n = a.shape[$d] as i64;
                    // SAFETY: t < ntaps; the offsets hold FILTER_DIMS per tap.
                    let o = unsafe { *self.off.add(t * FILTER_DIMS + $d) } as i64;
                    at = match (at, map_coord(self.c[$d] + o, n, self.mode)) {
                        (Some(q), Some(m)) => Some(q + m * step),
                        _ => None,
                    };
                    step *= n;
                }
            )* };
        }
        tap!(0 1 2 3 4 5 6 7);
        let _ = step;
        match at {
            // SAFETY: a mapped offset is inside the array.
            Some(q) => unsafe { *self.x.add(q as usize) },
            None => self.cval,
        }
    }
}

/// Calls `each(p, c)` for every output of a region of an n-d array (see `FilterNd`),
/// grid-strided: `p` its element index, `c` its coordinates (innermost first).
#[inline(always)]
fn walk_region(a: &FilterNd, mut each: impl FnMut(i64, [i64; FILTER_DIMS])) {
    let (first, stride) = grid_stride();
    let small = a.n < 1 << 31;
    let nd = a.ndim as usize;
    let mut i = first;
    while i < a.n {
        // Constant indices after unrolling keep the coordinates in registers.
        let mut c = [0i64; FILTER_DIMS];
        let (mut rem, mut p, mut step) = (i, 0i64, 1i64);
        macro_rules! coords {
            ($($d:literal)*) => { $(
                if $d < nd {
                    let (q, r) = divmod(rem, a.rshape[$d], a.rmagic[$d], a.rshift[$d], small);
                    c[$d] = (r + a.start[$d]) as i64;
                    p += c[$d] * step;
                    step *= a.shape[$d] as i64;
                    rem = q;
                }
            )* };
        }
        coords!(0 1 2 3 4 5 6 7);
        let _ = (rem, step); // the last axis's quotient and step are not needed
        each(p, c);
        i += stride;
    }
}

/// Calls `each(p)` for every output of the interior box (see `FilterBox`), grid-strided:
/// `p` its element index.
#[inline(always)]
fn walk_box(a: &FilterBox, mut each: impl FnMut(i64)) {
    let (first, stride) = grid_stride();
    let small = a.n < 1 << 31;
    let nd = a.ndim as usize;
    let mut i = first;
    while i < a.n {
        let mut rem = i;
        let mut p = 0u64;
        macro_rules! coords {
            ($($d:literal)*) => { $(
                if $d < nd {
                    let (q, r) = divmod(rem, a.shape[$d], a.magic[$d], a.shift[$d], small);
                    p += (r + a.start[$d]) * a.stride[$d];
                    rem = q;
                }
            )* };
        }
        coords!(0 1 2 3 4 5 6 7);
        let _ = rem; // the last axis's quotient is not needed
        each(p as i64);
        i += stride;
    }
}

/// `sum_t w[t] * value(t)`, in tap order, one rounding per tap.
///
/// # Safety
/// `w` holds `n` weights; `value(t)` is safe to call for `t < n`.
#[inline(always)]
unsafe fn weighted<T: Acc>(w: *const T, n: usize, value: impl Fn(usize) -> T) -> T {
    let mut acc = T::ZERO;
    for t in 0..n {
        // SAFETY: t < n.
        acc = T::fma(unsafe { *w.add(t) }, value(t), acc);
    }
    acc
}

/// `out[c] = sum_t w[t] * x[c + off[t]]` over a region of an n-d array (see `FilterNd`).
///
/// # Safety
/// `x` and `out` hold the C-contiguous shape `a.shape[..a.ndim]` (every extent at least
/// 1, `ndim <= FILTER_DIMS`), the region lies inside it; `w` holds `a.ntaps` weights
/// and `off` `a.ntaps * FILTER_DIMS` offsets.
#[inline(always)]
unsafe fn correlate_nd<T: Acc>(
    x: *const T,
    w: *const T,
    off: *const i32,
    out: *mut T,
    a: &FilterNd,
) {
    let (mode, cval) = (Mode::from_code(a.mode), T::from_f64(a.cval));
    walk_region(a, |p, c| {
        let e = Edge { x, off, a, c, mode, cval };
        // SAFETY: per the contract (taps below ntaps; p inside the region).
        unsafe { *out.add(p as usize) = weighted(w, a.ntaps as usize, |t| e.at(t)) };
    });
}

/// The interior box of an n-d correlation (see `FilterBox`): no boundary tests.
///
/// # Safety
/// The box lies inside the array `x`/`out` (element strides `a.stride`) and every
/// output in it has its whole window inside; `w` and `lin` hold `a.ntaps` entries.
#[inline(always)]
unsafe fn correlate_box<T: Acc>(
    x: *const T,
    w: *const T,
    lin: *const i64,
    out: *mut T,
    a: &FilterBox,
) {
    walk_box(a, |p| {
        let v = Inside { x, lin, p };
        // SAFETY: per the contract.
        unsafe { *out.add(p as usize) = weighted(w, a.ntaps as usize, |t| v.at(t)) };
    });
}

/// A thread's scratch for `select_strided`: its slots `stride` apart in `scratch`
/// (global memory, one slot column per thread of the grid) or, when `scratch` is null,
/// in the block's dynamic shared memory (one column per thread of the block).
#[inline(always)]
fn scratch_of<T>(scratch: *mut T) -> (*mut T, usize) {
    let (tid, bdim) = (thread_idx() as usize, block_dim() as usize);
    if scratch.is_null() {
        ((smem_generic(0) as *mut T).wrapping_add(tid), bdim)
    } else {
        let threads = bdim * grid_dim() as usize;
        (scratch.wrapping_add(block_idx() as usize * bdim + tid), threads)
    }
}

/// Copies the window into the thread's scratch and selects rank `r` there.
///
/// # Safety
/// The scratch column holds `n` slots (`scratch_of`'s contract with the host);
/// `value(t)` is safe to call for `t < n`; `r < n`.
#[inline(always)]
unsafe fn select_in_scratch<T: Order>(
    (base, stride): (*mut T, usize),
    n: usize,
    r: usize,
    value: impl Fn(usize) -> T,
) -> T {
    for t in 0..n {
        // SAFETY: slot t of the column.
        unsafe { *base.add(t * stride) = value(t) };
    }
    // SAFETY: the column holds n slots.
    unsafe { select_strided(base, stride, n, r) }
}

macro_rules! filter_entries {
    ([] $($t:ident)*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_correlate1d_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn c1(a: Filter1d, x: *const $t, w: *const $t, out: *mut $t) {
                // SAFETY: the host launches per correlate1d's contract.
                unsafe { correlate1d::<$t>(x, w, out, &a) }
            }
            #[unsafe(export_name = concat!("gpupy_correlate_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn cn(
                a: FilterNd, x: *const $t, w: *const $t, off: *const i32, out: *mut $t,
            ) {
                // SAFETY: the host launches per correlate_nd's contract.
                unsafe { correlate_nd::<$t>(x, w, off, out, &a) }
            }
            #[unsafe(export_name = concat!("gpupy_correlate_box_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn cb(
                a: FilterBox, x: *const $t, w: *const $t, lin: *const i64, out: *mut $t,
            ) {
                // SAFETY: the host launches per correlate_box's contract.
                unsafe { correlate_box::<$t>(x, w, lin, out, &a) }
            }
        };
    )* };
}
crate::for_each_filter_type!(filter_entries);

// The order filters. Contracts as the correlations' (`correlate_nd` for the edge
// kernels, `correlate_box` for the box kernels), with no weights; `a.select` is the rank
// (`r < ntaps`) or 0/1 for minimum/maximum; `ntaps >= 1`; a register kernel takes at
// most its tier's taps; the scratch kernels' `scratch` is null with a shared column of
// `ntaps` slots per thread, or global memory of `ntaps` slots per thread of the grid.
macro_rules! order_entries {
    ([] $($t:ident)*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_extreme_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn en(a: FilterNd, x: *const $t, off: *const i32, out: *mut $t) {
                let (mode, cval) = (Mode::from_code(a.mode), <$t as Order>::from_f64(a.cval));
                walk_region(&a, |p, c| {
                    let e = Edge { x, off, a: &a, c, mode, cval };
                    // SAFETY: per the contract above.
                    unsafe { *out.add(p as usize) = extreme(|t| e.at(t), a.ntaps as usize, a.select == 1) };
                });
            }
            #[unsafe(export_name = concat!("gpupy_extreme_box_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn eb(a: FilterBox, x: *const $t, lin: *const i64, out: *mut $t) {
                walk_box(&a, |p| {
                    let v = Inside { x, lin, p };
                    // SAFETY: per the contract above.
                    unsafe { *out.add(p as usize) = extreme(|t| v.at(t), a.ntaps as usize, a.select == 1) };
                });
            }
            #[unsafe(export_name = concat!("gpupy_rank_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn rn(
                a: FilterNd, x: *const $t, off: *const i32, scratch: *mut $t, out: *mut $t,
            ) {
                let (mode, cval) = (Mode::from_code(a.mode), <$t as Order>::from_f64(a.cval));
                let column = scratch_of(scratch);
                walk_region(&a, |p, c| {
                    let e = Edge { x, off, a: &a, c, mode, cval };
                    let (n, r) = (a.ntaps as usize, a.select as usize);
                    // SAFETY: per the contract above.
                    unsafe { *out.add(p as usize) = select_in_scratch(column, n, r, |t| e.at(t)) };
                });
            }
            #[unsafe(export_name = concat!("gpupy_rank_box_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn rb(
                a: FilterBox, x: *const $t, lin: *const i64, scratch: *mut $t, out: *mut $t,
            ) {
                let column = scratch_of(scratch);
                walk_box(&a, |p| {
                    let v = Inside { x, lin, p };
                    let (n, r) = (a.ntaps as usize, a.select as usize);
                    // SAFETY: per the contract above.
                    unsafe { *out.add(p as usize) = select_in_scratch(column, n, r, |t| v.at(t)) };
                });
            }
            #[unsafe(export_name = concat!("gpupy_rank_box9_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn r9(a: FilterBox, x: *const $t, lin: *const i64, out: *mut $t) {
                walk_box(&a, |p| {
                    let v = Inside { x, lin, p };
                    let (n, r) = (a.ntaps as usize, a.select as usize);
                    // SAFETY: per the contract above (n <= 9).
                    unsafe { *out.add(p as usize) = select9(|t| v.at(t), n, r) };
                });
            }
            #[unsafe(export_name = concat!("gpupy_rank_box25_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn r25(a: FilterBox, x: *const $t, lin: *const i64, out: *mut $t) {
                walk_box(&a, |p| {
                    let v = Inside { x, lin, p };
                    let (n, r) = (a.ntaps as usize, a.select as usize);
                    // SAFETY: per the contract above (n <= 25).
                    unsafe { *out.add(p as usize) = select25(|t| v.at(t), n, r) };
                });
            }
        };
    )* };
}
crate::for_each_order_type!(order_entries);
