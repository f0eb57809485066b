//! The measure kernels (see the module comment): the labelling steps a thread per
//! element, the bounding boxes and extremes a thread per run of `RUN` elements, the
//! feature transform a thread per line. All grid-strided.

use core::arch::asm;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::edt::{Stack, line_of, squared_distance, voronoi_line};
use super::extrema::{firsts_of_run, keys_of_run};
use super::grid::{Axis, Neighbour, edges};
use super::objects::boxes_of_run;
use super::union_find::{BACKGROUND, Forest, find, initial_parent, link};
use super::{BoxArgs, EDT_DIMS, EdtArgs, LabelArgs, RUN, SlotArgs};
use crate::args::IndexWidth;
use crate::gpu::grid_stride;

// ---------------------------------------------------------------------------------------
// Labelling

/// A parent-link width: `u32` or `u64` words, read, stored and lowered atomically
/// (relaxed: the unions need only each word's atomicity, see `union_find`).
trait LinkWord: Copy {
    /// # Safety
    /// `p` points to a word of device memory only accessed atomically while the kernel
    /// runs.
    unsafe fn load(p: *mut Self) -> u64;
    /// # Safety
    /// As for `load`.
    unsafe fn store(p: *mut Self, v: u64);
    /// # Safety
    /// As for `load`.
    unsafe fn fetch_min(p: *mut Self, v: u64) -> u64;
}

impl LinkWord for u32 {
    #[inline(always)]
    unsafe fn load(p: *mut u32) -> u64 {
        // SAFETY: per the trait contract.
        let v = unsafe { AtomicU32::from_ptr(p) }.load(Ordering::Relaxed);
        if v == u32::MAX { BACKGROUND } else { v as u64 }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u32, v: u64) {
        // SAFETY: per the trait contract. BACKGROUND becomes u32::MAX; indices fit (the
        // host takes u64 links from 2^32 - 1 elements on).
        unsafe { AtomicU32::from_ptr(p) }.store(v as u32, Ordering::Relaxed)
    }
    #[inline(always)]
    unsafe fn fetch_min(p: *mut u32, v: u64) -> u64 {
        // SAFETY: per the trait contract (v is an index, below u32::MAX).
        unsafe { AtomicU32::from_ptr(p) }.fetch_min(v as u32, Ordering::Relaxed) as u64
    }
}

impl LinkWord for u64 {
    #[inline(always)]
    unsafe fn load(p: *mut u64) -> u64 {
        // SAFETY: per the trait contract.
        unsafe { AtomicU64::from_ptr(p) }.load(Ordering::Relaxed)
    }
    #[inline(always)]
    unsafe fn store(p: *mut u64, v: u64) {
        // SAFETY: per the trait contract.
        unsafe { AtomicU64::from_ptr(p) }.store(v, Ordering::Relaxed)
    }
    #[inline(always)]
    unsafe fn fetch_min(p: *mut u64, v: u64) -> u64 {
        // SAFETY: per the trait contract.
        unsafe { AtomicU64::from_ptr(p) }.fetch_min(v, Ordering::Relaxed)
    }
}

/// The parent links: `n` words at `p`.
struct Links<W> {
    p: *mut W,
}

impl<W: LinkWord> Forest for Links<W> {
    #[inline(always)]
    fn parent(&self, i: u64) -> u64 {
        // SAFETY: the labelling kernels only pass element indices below n.
        unsafe { W::load(self.p.add(i as usize)) }
    }
    #[inline(always)]
    fn set_parent(&self, i: u64, v: u64) {
        // SAFETY: as above.
        unsafe { W::store(self.p.add(i as usize), v) }
    }
    #[inline(always)]
    fn lower_parent(&self, i: u64, v: u64) -> u64 {
        // SAFETY: as above.
        unsafe { W::fetch_min(self.p.add(i as usize), v) }
    }
}

/// Calls `each(i, edges)` for every element `i`, grid-strided, with the grid edges it
/// lies on (for `Neighbour::of`).
///
/// # Safety
/// `axes` holds `a.ndim` axes whose extents multiply to `a.n` (each at least 1).
#[inline(always)]
unsafe fn each_element(a: &LabelArgs, axes: *const Axis, mut each: impl FnMut(u64, (u64, u64))) {
    let (start, stride) = grid_stride();
    let small = a.n < 1 << 31;
    let mut i = start;
    while i < a.n {
        // SAFETY: d < ndim.
        let e = edges(i, a.ndim as usize, small, |d| unsafe { *axes.add(d) });
        each(i, e);
        i += stride;
    }
}

macro_rules! label_entries {
    ([] $($w:ident)*) => { $(
        const _: () = {
            // Contracts: `mask` and `parent` hold `a.n` elements (a C-contiguous grid of
            // the axes `axes`, innermost first, at least one element), `nbrs` the
            // `a.neighbours` earlier neighbours of the structure; indices fit `$w`
            // (kernels::measure::wide_links).
            #[unsafe(export_name = concat!("gpupy_label_init_", stringify!($w)))]
            unsafe extern "ptx-kernel" fn init(
                a: LabelArgs, mask: *const u8, axes: *const Axis, nbrs: *const Neighbour, parent: *mut $w,
            ) {
                let links = Links { p: parent };
                // SAFETY: element indices below n.
                let fg = |j: u64| unsafe { *mask.add(j as usize) } != 0;
                // SAFETY: per the contract (k < neighbours).
                unsafe {
                    each_element(&a, axes, |i, e| {
                        let nb = |k: usize| (*nbrs.add(k)).of(i, e);
                        links.set_parent(i, initial_parent(i, fg, a.neighbours as usize, nb))
                    })
                };
            }
            #[unsafe(export_name = concat!("gpupy_label_link_", stringify!($w)))]
            unsafe extern "ptx-kernel" fn unite(
                a: LabelArgs, mask: *const u8, axes: *const Axis, nbrs: *const Neighbour, parent: *mut $w,
            ) {
                let links = Links { p: parent };
                // SAFETY: element indices below n.
                let fg = |j: u64| unsafe { *mask.add(j as usize) } != 0;
                // SAFETY: per the contract (k < neighbours); parent holds init's links.
                unsafe {
                    each_element(&a, axes, |i, e| {
                        let nb = |k: usize| (*nbrs.add(k)).of(i, e);
                        link(&links, i, fg, a.neighbours as usize, nb)
                    })
                };
            }
            // `roots[i]` = 1 where element i is a root, else 0 (int64, what the scan of
            // the ranks reads); every parent its root.
            #[unsafe(export_name = concat!("gpupy_label_flatten_", stringify!($w)))]
            unsafe extern "ptx-kernel" fn flatten(a: LabelArgs, parent: *mut $w, roots: *mut i64) {
                let links = Links { p: parent };
                let (start, stride) = grid_stride();
                let mut i = start;
                while i < a.n {
                    let p = links.parent(i);
                    let root = if p == BACKGROUND {
                        false
                    } else {
                        let r = find(&links, p);
                        if r != p {
                            links.set_parent(i, r);
                        }
                        r == i
                    };
                    // SAFETY: i < n.
                    unsafe { *roots.add(i as usize) = root as i64 };
                    i += stride;
                }
            }
            number_entry!($w i32);
            number_entry!($w i64);
        };
    )* };
}

/// `out[i]` = the inclusive count of roots up to element i's root (its label), 0 for
/// background. Contract: `parent` holds flattened links of `a.n` elements, `rank` the
/// inclusive scan of `flatten`'s root flags (int64), `out` `a.n` labels.
macro_rules! number_entry {
    ($w:ident $o:ident) => { const _: () = {
        #[unsafe(export_name = concat!("gpupy_label_number_", stringify!($w), "_", stringify!($o)))]
        unsafe extern "ptx-kernel" fn number(a: LabelArgs, parent: *mut $w, rank: *const i64, out: *mut $o) {
            let links = Links { p: parent };
            let (start, stride) = grid_stride();
            let mut i = start;
            while i < a.n {
                let p = links.parent(i);
                // SAFETY: p is a root index below n; i < n.
                unsafe {
                    *out.add(i as usize) = if p == BACKGROUND { 0 } else { *rank.add(p as usize) as $o };
                }
                i += stride;
            }
        }
    }; };
}

crate::for_each_link_type!(label_entries);

// ---------------------------------------------------------------------------------------
// Bounding boxes and extremes: a thread per run of RUN elements.

/// Calls `each(first, end)` for this thread's runs of `n` elements.
#[inline(always)]
fn each_run(n: u64, mut each: impl FnMut(u64, u64)) {
    let (start, stride) = grid_stride();
    let mut r = start;
    while r * RUN < n {
        each(r * RUN, (r * RUN + RUN).min(n));
        r += stride;
    }
}

/// `*p = min(*p, v)` atomically.
///
/// # Safety
/// `p` points to a u64 of device memory only accessed atomically while the kernel runs.
#[inline(always)]
unsafe fn lower(p: *mut u64, v: u64) {
    // SAFETY: per the contract.
    unsafe { AtomicU64::from_ptr(p) }.fetch_min(v, Ordering::Relaxed);
}

/// `*p = max(*p, v)` atomically.
///
/// # Safety
/// As for `lower`.
#[inline(always)]
unsafe fn raise(p: *mut u64, v: u64) {
    // SAFETY: per the contract.
    unsafe { AtomicU64::from_ptr(p) }.fetch_max(v, Ordering::Relaxed);
}

macro_rules! box_entries {
    ([] $($t:ident)*) => { $(
        const _: () = {
            // Contract: `labels` holds the `a.n` elements of a C-contiguous grid of the
            // axes `axes` (`a.ndim >= 1` of them, innermost first); `boxes` the
            // `2 a.ndim a.max_label` slots (starts from u64::MAX, ends from 0).
            #[unsafe(export_name = concat!("gpupy_find_objects_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn boxes(a: BoxArgs, labels: *const $t, axes: *const Axis, boxes: *mut u64) {
                let small = a.n < 1 << 31;
                each_run(a.n, |first, end| {
                    boxes_of_run(
                        first,
                        end,
                        a.ndim as usize,
                        small,
                        // SAFETY: d < ndim.
                        |d| unsafe { *axes.add(d) },
                        // SAFETY: i < n.
                        |i| unsafe { *labels.add(i as usize) } as i64,
                        a.max_label,
                        // SAFETY: the slots of labels 1..=max_label.
                        |k, v| unsafe { lower(boxes.add(k as usize), v) },
                        // SAFETY: as above.
                        |k, v| unsafe { raise(boxes.add(k as usize), v) },
                    )
                });
            }
        };
    )* };
}
crate::for_each_label_type!(box_entries);

macro_rules! extreme_entries {
    ([] $($t:ident)*) => { $(
        const _: () = {
            // Contracts: `values` and `slots` hold `a.n` elements; `keys` and `pos` two
            // u64 per slot (keys: minima from u64::MAX, maxima from 0; pos from
            // u64::MAX); `firsts` runs after `keys` on its result.
            #[unsafe(export_name = concat!("gpupy_label_keys_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn keys(a: SlotArgs, values: *const $t, slots: *const i64, keys: *mut u64) {
                each_run(a.n, |first, end| {
                    keys_of_run(
                        first,
                        end,
                        // SAFETY: i < n.
                        |i| unsafe { *values.add(i as usize) },
                        // SAFETY: i < n.
                        |i| unsafe { *slots.add(i as usize) },
                        a.slots,
                        // SAFETY: k < 2 slots.
                        |k, v| unsafe { lower(keys.add(k as usize), v) },
                        // SAFETY: as above.
                        |k, v| unsafe { raise(keys.add(k as usize), v) },
                    )
                });
            }
            #[unsafe(export_name = concat!("gpupy_label_firsts_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn firsts(
                a: SlotArgs, values: *const $t, slots: *const i64, keys: *const u64, pos: *mut u64,
            ) {
                each_run(a.n, |first, end| {
                    firsts_of_run(
                        first,
                        end,
                        // SAFETY: i < n.
                        |i| unsafe { *values.add(i as usize) },
                        // SAFETY: i < n.
                        |i| unsafe { *slots.add(i as usize) },
                        a.slots,
                        // SAFETY: k < 2 slots; keys is final (the previous launch).
                        |k| unsafe { *keys.add(k as usize) },
                        // SAFETY: k < 2 slots.
                        |k, v| unsafe { lower(pos.add(k as usize), v) },
                    )
                });
            }
        };
    )* };
}
crate::for_each_key_type!(extreme_entries);

// ---------------------------------------------------------------------------------------
// Feature transform: a thread per line.

/// A thread's stack column: slot `l` at `base + l * stride` (global scratch, one column
/// per line, slots of all lines interleaved so neighbouring threads touch neighbouring
/// words).
struct Column {
    base: *mut u32,
    stride: usize,
}

impl Stack for Column {
    #[inline(always)]
    fn get(&self, l: usize) -> u32 {
        // SAFETY: l < len, the column's slots (the host sizes the scratch lines * len).
        unsafe { *self.base.add(l * self.stride) }
    }
    #[inline(always)]
    fn set(&mut self, l: usize, v: u32) {
        // SAFETY: as above.
        unsafe { *self.base.add(l * self.stride) = v }
    }
}

/// The sampling per axis, in registers.
#[inline(always)]
fn sampling<const R: usize>(a: &EdtArgs) -> [f64; R] {
    core::array::from_fn(|k| a.sampling[k])
}

/// Pass 0 from the input: a zero of `mask` is its own feature. A line without one gets
/// plane 0 = -1 and keeps its other planes (SciPy's initial features).
///
/// # Safety
/// `mask` holds `a.n` elements of a C-contiguous grid of `a.shape` (rank R, extents at
/// least 1, below 2^31), `ft` `R` planes of `a.n`, `stack` `a.lines * a.len` slots;
/// `a.axis` is 0.
#[inline(always)]
unsafe fn edt_first<const R: usize>(a: &EdtArgs, mask: *const u8, stack: *mut u32, ft: *mut i32) {
    let (start, stride) = grid_stride();
    let s = sampling::<R>(a);
    let n = a.n as usize;
    let mut line = start;
    while line < a.lines {
        let (coor, base, along) = line_of::<R>(&a.shape, a.axis as usize, line);
        let at = |ii: usize| base as usize + ii * along as usize;
        let site = |ii: usize| -> Option<[i32; R]> {
            // SAFETY: ii < len: an element of the grid.
            if unsafe { *mask.add(at(ii)) } != 0 {
                return None;
            }
            Some(core::array::from_fn(|k| {
                if k == 0 { ii as i32 } else { coor[k] as i32 }
            }))
        };
        let mut column = Column {
            base: stack.wrapping_add(line as usize),
            stride: a.lines as usize,
        };
        let write = |ii: usize, f: &[i32; R]| {
            for (k, &v) in f.iter().enumerate() {
                // SAFETY: plane k, element at(ii).
                unsafe { *ft.add(k * n + at(ii)) = v };
            }
        };
        if !voronoi_line(a.len as usize, 0, &coor, &s, site, &mut column, write) {
            for ii in 0..a.len as usize {
                // SAFETY: plane 0, element at(ii).
                unsafe { *ft.add(at(ii)) = -1 };
            }
        }
        line += stride;
    }
}

/// Pass `a.axis` >= 1: from the features `src` into `dst` (a line without sites is
/// copied).
///
/// # Safety
/// As `edt_first`, with `src` and `dst` `R` planes of `a.n` each and `a.axis < R`.
#[inline(always)]
unsafe fn edt_pass<const R: usize>(a: &EdtArgs, src: *const i32, stack: *mut u32, dst: *mut i32) {
    let (start, stride) = grid_stride();
    let s = sampling::<R>(a);
    let (n, d) = (a.n as usize, a.axis as usize);
    let mut line = start;
    while line < a.lines {
        let (coor, base, along) = line_of::<R>(&a.shape, a.axis as usize, line);
        let at = |ii: usize| base as usize + ii * along as usize;
        // SAFETY: plane k, element at(ii) of the grid.
        let read = |ii: usize, k: usize| unsafe { *src.add(k * n + at(ii)) };
        let site = |ii: usize| -> Option<[i32; R]> {
            if read(ii, 0) < 0 {
                return None;
            }
            Some(core::array::from_fn(|k| read(ii, k)))
        };
        let mut column = Column {
            base: stack.wrapping_add(line as usize),
            stride: a.lines as usize,
        };
        let write = |ii: usize, f: &[i32; R]| {
            for (k, &v) in f.iter().enumerate() {
                // SAFETY: plane k, element at(ii).
                unsafe { *dst.add(k * n + at(ii)) = v };
            }
        };
        if !voronoi_line(a.len as usize, d, &coor, &s, site, &mut column, write) {
            for ii in 0..a.len as usize {
                for k in 0..R {
                    // SAFETY: as above.
                    unsafe { *dst.add(k * n + at(ii)) = read(ii, k) };
                }
            }
        }
        line += stride;
    }
}

/// `out[p]` = the distance of element p to its feature, as SciPy computes it.
///
/// # Safety
/// `ft` holds `R` planes of `a.n` features of a C-contiguous grid of `a.shape`, `out`
/// `a.n` doubles.
#[inline(always)]
unsafe fn edt_distance<const R: usize>(a: &EdtArgs, ft: *const i32, out: *mut f64) {
    let (start, stride) = grid_stride();
    let s = sampling::<R>(a);
    let n = a.n as usize;
    let small = a.n < 1 << 31;
    let mut p = start;
    while p < a.n {
        let mut c = [0i64; R];
        let mut rem = p;
        for k in (0..R).rev() {
            let (q, r) = if small {
                let (q, r) = (rem as u32).divmod(a.shape[k], a.magic[k], a.shift[k]);
                (q as u64, r)
            } else {
                rem.divmod(a.shape[k], 0, 0)
            };
            c[k] = r;
            rem = q;
        }
        // SAFETY: plane k, element p < n.
        let f: [i32; R] = core::array::from_fn(|k| unsafe { *ft.add(k * n + p as usize) });
        let d2 = squared_distance(&f, &c, &s);
        let d: f64;
        // SAFETY: register-only arithmetic (IEEE square root, correctly rounded).
        unsafe {
            asm!("sqrt.rn.f64 {d}, {x};", d = out(reg64) d, x = in(reg64) d2, options(pure, nomem, nostack))
        };
        // SAFETY: p < n.
        unsafe { *out.add(p as usize) = d };
        p += stride;
    }
}

macro_rules! edt_entries {
    ([] $($r:literal)*) => { $(
        const _: () = {
            const _: () = assert!($r <= EDT_DIMS);
            #[unsafe(export_name = concat!("gpupy_edt_first_r", stringify!($r)))]
            unsafe extern "ptx-kernel" fn first(a: EdtArgs, mask: *const u8, stack: *mut u32, ft: *mut i32) {
                // SAFETY: the host launches per edt_first's contract.
                unsafe { edt_first::<$r>(&a, mask, stack, ft) }
            }
            #[unsafe(export_name = concat!("gpupy_edt_pass_r", stringify!($r)))]
            unsafe extern "ptx-kernel" fn pass(a: EdtArgs, src: *const i32, stack: *mut u32, dst: *mut i32) {
                // SAFETY: the host launches per edt_pass's contract.
                unsafe { edt_pass::<$r>(&a, src, stack, dst) }
            }
            #[unsafe(export_name = concat!("gpupy_edt_distance_r", stringify!($r)))]
            unsafe extern "ptx-kernel" fn distance(a: EdtArgs, ft: *const i32, out: *mut f64) {
                // SAFETY: the host launches per edt_distance's contract.
                unsafe { edt_distance::<$r>(&a, ft, out) }
            }
        };
    )* };
}
crate::for_each_edt_rank!(edt_entries);
