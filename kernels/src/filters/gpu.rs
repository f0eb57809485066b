//! The filter kernels (see the module comment): a thread per output, grid-strided. The
//! n-d kernels are a walk (the interior box, or a region near the edges) times what is
//! made of each output's window: a weighted sum, an extreme, a rank selection.

use core::arch::asm;

use super::select::{
    Order, extreme, median25, median49, select_strided, select9, select25, select49,
    select49_window,
};
use super::stencil::{
    ORDER_TAPS, OrderTile, ROWS, STENCIL_BLOCK, Stencil2d, THREADS_Y, TILE_H, TILE_W, Tiles,
};
use super::{FILTER_DIMS, Filter1d, FilterBox, FilterNd, Mode, map_coord};
use crate::args::IndexWidth;
use crate::gpu::{
    block_dim, block_idx, grid_dim, grid_stride, smem_generic, sync_threads, thread_idx,
};

/// The arithmetic of the compute types.
pub(super) trait Acc: Order {
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
        let e = Edge {
            x,
            off,
            a,
            c,
            mode,
            cval,
        };
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

/// Rows of its column a thread stages per round.
const STAGE_ROWS: u32 = 4;

/// This block's tile of `a`'s grid: (tile column, tile row, image).
#[inline(always)]
fn tile_of(a: &Stencil2d) -> (u32, u32, u32) {
    let per_image = a.tiles_x * a.tiles_y;
    let z = block_idx() / per_image;
    let rest = block_idx() - z * per_image;
    (rest % a.tiles_x, rest / a.tiles_x, z)
}

/// Stages tile `(tx, ty)` of `image` with its halo into `tile` (`t.rows x t.cols`):
/// straight copies when it lies inside the image, else each element through the
/// boundary mapping (`cval` where `Constant` leaves the image). No barrier.
///
/// # Safety
/// `image` holds `a.h * a.w` elements; `tile` has room for `t.rows * t.cols`.
#[inline(always)]
unsafe fn stage_tile<T: Order>(
    image: *const T,
    a: &Stencil2d,
    t: &Tiles,
    tx: u32,
    ty: u32,
    tile: *mut T,
) {
    let tid = thread_idx();
    let (lane, thread_y) = (tid % TILE_W, tid / TILE_W);
    let inside = t.inside(a, tx, ty);
    let (mode, cval) = (Mode::from_code(a.mode), T::from_f64(a.cval));
    let origin =
        ((ty * TILE_H) as i64 - a.cy as i64) * a.w as i64 + (tx * TILE_W) as i64 - a.cx as i64;
    // Columns `lane`, `lane + TILE_W`, ...; rows `thread_y`, `thread_y + THREADS_Y`, ...
    // in rounds of STAGE_ROWS whose loads are all issued before their stores (one load
    // in flight at a time would leave the staging latency-bound).
    let load = |r: u32, c: u32| -> T {
        if inside {
            // SAFETY: the staged rows and columns lie inside the image (`inside`).
            unsafe { *image.add((origin + r as i64 * a.w as i64 + c as i64) as usize) }
        } else {
            match t.source(a, tx, ty, r, c, mode) {
                // SAFETY: a mapped offset lies inside the image.
                Some(o) => unsafe { *image.add(o) },
                None => cval,
            }
        }
    };
    let mut c = lane;
    while c < t.cols {
        let mut r0 = thread_y;
        while r0 < t.rows {
            let mut v = [cval; STAGE_ROWS as usize];
            for (s, v) in v.iter_mut().enumerate() {
                let r = r0 + s as u32 * THREADS_Y;
                if r < t.rows {
                    *v = load(r, c);
                }
            }
            for (s, v) in v.iter().enumerate() {
                let r = r0 + s as u32 * THREADS_Y;
                if r < t.rows {
                    // SAFETY: r < rows and c < cols: inside the staged tile.
                    unsafe { *tile.add((r * t.cols + c) as usize) = *v };
                }
            }
            r0 += STAGE_ROWS * THREADS_Y;
        }
        c += TILE_W;
    }
}

/// Stores a thread's `ROWS` outputs of column `lane` of tile `(tx, ty)` of image `z`
/// (`value(k)` for row `k`), those inside the image.
///
/// # Safety
/// `out` holds `a.batch * a.h * a.w` elements.
#[inline(always)]
unsafe fn store_column<T>(
    out: *mut T,
    a: &Stencil2d,
    tx: u32,
    ty: u32,
    z: u32,
    mut value: impl FnMut(u32) -> T,
) {
    let tid = thread_idx();
    let (lane, thread_y) = (tid % TILE_W, tid / TILE_W);
    let j = tx * TILE_W + lane;
    let out = out.wrapping_add(z as usize * a.h as usize * a.w as usize + j as usize);
    for k in 0..ROWS {
        let i = ty * TILE_H + thread_y * ROWS + k;
        let v = value(k);
        if i < a.h && j < a.w {
            // SAFETY: (i, j) lies inside image z.
            unsafe { *out.add(i as usize * a.w as usize) = v };
        }
    }
}

/// Dense 2-d correlation of one tile (see `stencil.rs`: the same loops as
/// `Tiles::engine`, the block's threads in place of its thread loops).
///
/// # Safety
/// `x` and `out` hold `a.batch * a.h * a.w` elements, `w` points at weight (0, 0) of a
/// view of `a.kh x a.kw` weights (both at least 1) with element strides `a.ws0`,
/// `a.ws1`; the grid is `a.tiles_x * a.tiles_y * a.batch` blocks of `STENCIL_BLOCK`
/// threads with `Tiles::of(a.kh, a.kw).elements` elements of dynamic shared memory.
#[inline(always)]
unsafe fn stencil2d<T: Acc>(x: *const T, w: *const T, out: *mut T, a: &Stencil2d) {
    let t = Tiles::of(a.kh, a.kw);
    let (tx, ty, z) = tile_of(a);
    let image = x.wrapping_add(z as usize * a.h as usize * a.w as usize);
    let tile = smem_generic(0) as *mut T;
    let weights = tile.wrapping_add((t.rows * t.cols) as usize);
    // SAFETY: the tile's and the weights' room is the block's shared memory.
    unsafe { stage_tile(image, a, &t, tx, ty, tile) };
    let tid = thread_idx();
    let mut k = tid;
    while k < a.kh * a.kw {
        let (ka, kb) = ((k / a.kw) as i64, (k % a.kw) as i64);
        // SAFETY: weight (ka, kb) lies at that offset of the weights' view; slot k of
        // kh * kw staged slots.
        unsafe {
            *weights.add(k as usize) = *w.offset((ka * a.ws0 as i64 + kb * a.ws1 as i64) as isize)
        };
        k += STENCIL_BLOCK;
    }
    sync_threads();

    // Each thread: ROWS consecutive outputs of column `lane`, a window of ROWS staged
    // values sliding down each kernel column.
    let (lane, thread_y) = (tid % TILE_W, tid / TILE_W);
    let column = tile.wrapping_add((thread_y * ROWS * t.cols + lane) as usize);
    // SAFETY: rows below thread_y * ROWS + ROWS + kh - 1 <= rows and columns below
    // lane + kw <= cols are staged.
    let at = |r: u32, b: u32| unsafe { *column.add((r * t.cols + b) as usize) };
    let mut acc = [T::ZERO; ROWS as usize];
    for b in 0..a.kw {
        let mut win: [T; ROWS as usize] = core::array::from_fn(|k| at(k as u32, b));
        for ka in 0..a.kh {
            // SAFETY: ka * kw + b < kh * kw.
            let wv = unsafe { *weights.add((ka * a.kw + b) as usize) };
            for k in 0..ROWS as usize {
                acc[k] = T::fma(wv, win[k], acc[k]);
            }
            if ka + 1 < a.kh {
                for k in 0..ROWS as usize - 1 {
                    win[k] = win[k + 1];
                }
                win[ROWS as usize - 1] = at(ROWS + ka, b);
            }
        }
    }
    // SAFETY: per the contract.
    unsafe { store_column(out, a, tx, ty, z, |k| acc[k as usize]) };
}

/// A tiled 2-d order filter (`OrderTile`): `pick(value, n, select)` makes an output of
/// its window's `n` values (`value(q)` is tap `q`'s).
///
/// # Safety
/// `x` and `out` hold `a.geo.batch * a.geo.h * a.geo.w` elements; `1 <= a.ntaps <=
/// ORDER_TAPS`, every `offs[q]` of a tap lies inside the `kh x kw` box of the tile's
/// rows; the grid as `stencil2d`'s, with `Tiles::order_elements` elements of `T` and
/// then `ORDER_TAPS` words of dynamic shared memory.
#[inline(always)]
unsafe fn order_tile<T: Order>(
    x: *const T,
    out: *mut T,
    a: &OrderTile,
    pick: impl Fn(&dyn Fn(usize) -> T, usize, usize) -> T,
) {
    let g = &a.geo;
    let t = Tiles::of(g.kh, g.kw);
    let (tx, ty, z) = tile_of(g);
    let image = x.wrapping_add(z as usize * g.h as usize * g.w as usize);
    let tile = smem_generic(0) as *mut T;
    let offs = tile.wrapping_add(t.order_elements() as usize) as *mut u32;
    // SAFETY: the tile's room is the block's shared memory.
    unsafe { stage_tile(image, g, &t, tx, ty, tile) };
    if thread_idx() == 0 {
        // Constant indices into the launch struct (a dynamic index would copy it to
        // local memory).
        for q in 0..ORDER_TAPS {
            // SAFETY: the offsets' ORDER_TAPS words follow the tile.
            unsafe { *offs.add(q) = a.offs[q] };
        }
    }
    sync_threads();
    let tid = thread_idx();
    let (lane, thread_y) = (tid % TILE_W, tid / TILE_W);
    let (n, select) = (a.ntaps as usize, a.select as usize);
    let output = |k: u32| {
        let base = tile.wrapping_add(((thread_y * ROWS + k) * t.cols + lane) as usize);
        // SAFETY: q < ntaps; the tap's offset stays inside the staged tile.
        let value = |q: usize| unsafe { *base.add(*offs.add(q) as usize) };
        pick(&value, n, select)
    };
    // SAFETY: per the contract.
    unsafe { store_column(out, g, tx, ty, z, output) };
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
        (
            scratch.wrapping_add(block_idx() as usize * bdim + tid),
            threads,
        )
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
            #[unsafe(export_name = concat!("gpupy_stencil2d_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn st(a: Stencil2d, x: *const $t, w: *const $t, out: *mut $t) {
                // SAFETY: the host launches per stencil2d's contract.
                unsafe { stencil2d::<$t>(x, w, out, &a) }
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
            #[unsafe(export_name = concat!("gpupy_extreme_tile_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn et(a: OrderTile, x: *const $t, out: *mut $t) {
                // SAFETY: the host launches per order_tile's contract.
                unsafe { order_tile(x, out, &a, |v, n, s| extreme(v, n, s == 1)) }
            }
            #[unsafe(export_name = concat!("gpupy_rank_tile9_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn rt9(a: OrderTile, x: *const $t, out: *mut $t) {
                // SAFETY: the host launches per order_tile's contract (ntaps <= 9).
                unsafe { order_tile(x, out, &a, |v, n, r| select9(v, n, r)) }
            }
            #[unsafe(export_name = concat!("gpupy_rank_tile25_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn rt25(a: OrderTile, x: *const $t, out: *mut $t) {
                // SAFETY: the host launches per order_tile's contract (ntaps <= 25).
                unsafe { order_tile(x, out, &a, |v, n, r| select25(v, n, r)) }
            }
            #[unsafe(export_name = concat!("gpupy_rank_tile49_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn rt49(a: OrderTile, x: *const $t, out: *mut $t) {
                // SAFETY: the host launches per order_tile's contract (ntaps <= 49).
                // (8-byte types: the 26-register window; select49 held their 49 values
                // in all 254 registers.)
                if core::mem::size_of::<$t>() == 8 {
                    unsafe { order_tile(x, out, &a, |v, n, r| select49_window(v, n, r)) }
                } else {
                    unsafe { order_tile(x, out, &a, |v, n, r| select49(v, n, r)) }
                }
            }
            #[unsafe(export_name = concat!("gpupy_median_tile25_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn mt25(a: OrderTile, x: *const $t, out: *mut $t) {
                // SAFETY: the host launches per order_tile's contract (ntaps == 25, the
                // rank 12).
                unsafe { order_tile(x, out, &a, |v, _, _| median25(v)) }
            }
            #[unsafe(export_name = concat!("gpupy_median_tile49_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn mt49(a: OrderTile, x: *const $t, out: *mut $t) {
                // SAFETY: the host launches per order_tile's contract (ntaps == 49, the
                // rank 24).
                unsafe { order_tile(x, out, &a, |v, _, _| median49(v)) }
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
