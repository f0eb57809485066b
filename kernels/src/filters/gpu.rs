//! The filter kernels (see the module comment): a thread per output, grid-strided.

use core::arch::asm;

use super::{FILTER_DIMS, Filter1d, FilterBox, FilterNd, Mode, map_coord};
use crate::args::IndexWidth;
use crate::gpu::grid_stride;

/// The arithmetic of the compute types.
trait Acc: Copy {
    const ZERO: Self;
    fn from_f64(v: f64) -> Self;
    /// `acc + w * x`, rounded once.
    fn fma(w: Self, x: Self, acc: Self) -> Self;
}

macro_rules! acc_impl {
    ($($t:ident $reg:ident $ty:literal)*) => { $(
        impl Acc for $t {
            const ZERO: $t = 0.0;
            #[inline(always)]
            fn from_f64(v: f64) -> $t {
                v as $t
            }
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
    let (first, stride) = grid_stride();
    let small = a.n < 1 << 31;
    let nd = a.ndim as usize;
    let mode = Mode::from_code(a.mode);
    let cval = T::from_f64(a.cval);
    let mut i = first;
    while i < a.n {
        // Coordinates, innermost first; constant indices after unrolling keep them in
        // registers. `p` is the output's element index.
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
        let mut acc = T::ZERO;
        for t in 0..a.ntaps as usize {
            // The tap's input offset, or None where a constant-mode coordinate falls out.
            let mut at = Some(0i64);
            let mut step = 1i64;
            macro_rules! tap {
                ($($d:literal)*) => { $(
                    if $d < nd {
                        let n = a.shape[$d] as i64;
                        // SAFETY: t < ntaps; the offsets hold FILTER_DIMS per tap.
                        let o = unsafe { *off.add(t * FILTER_DIMS + $d) } as i64;
                        at = match (at, map_coord(c[$d] + o, n, mode)) {
                            (Some(q), Some(m)) => Some(q + m * step),
                            _ => None,
                        };
                        step *= n;
                    }
                )* };
            }
            tap!(0 1 2 3 4 5 6 7);
            let _ = step;
            // SAFETY: t < ntaps; a mapped offset is inside the array.
            let wt = unsafe { *w.add(t) };
            let v = match at {
                Some(q) => unsafe { *x.add(q as usize) },
                None => cval,
            };
            acc = T::fma(wt, v, acc);
        }
        // SAFETY: p is inside the array (the region is).
        unsafe { *out.add(p as usize) = acc };
        i += stride;
    }
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
        let mut acc = T::ZERO;
        for t in 0..a.ntaps as usize {
            // SAFETY: t < ntaps; the window of p is inside the array.
            unsafe {
                let q = p as i64 + *lin.add(t);
                acc = T::fma(*w.add(t), *x.add(q as usize), acc);
            }
        }
        // SAFETY: p is inside the array.
        unsafe { *out.add(p as usize) = acc };
        i += stride;
    }
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
