//! The interpolation kernels (see the module comment): sampling, a thread per output;
//! the prefilter, a thread per line (grids cover them all, see `global_index`).
//!
//! Every index into a register array or into the launch struct is a constant after
//! unrolling (`unroll!`): a run-time index would send the array, or the whole struct,
//! to local memory.

use super::sample::{
    OUTSIDE, Store, affine_coordinate, axis_taps, round_signed, round_unsigned, to_bool,
    zoom_shift_coordinate,
};
use super::spline::{Init, Line, MAX_TAPS, filter_line};
use super::{
    COORDS_F32, GRID_MODE, HAS_SHIFT, HAS_ZOOM, INTERP_DIMS, Interp, Mode, ND_HEADER_BYTES,
    Prefilter, Source,
};
use crate::args::IndexWidth;
use crate::gpu::{Shared, block_dim, block_idx, smem_addr, sync_threads, thread_idx, unroll};

/// The input types sampling reads, as doubles (SciPy reads every type as a double).
trait Sample: Copy {
    fn to_f64(self) -> f64;
}
impl Sample for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
}
impl Sample for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
}

/// This thread's index in a one-dimensional grid. The kernels take one output (or
/// line) per thread, with no grid-stride loop: in a loop, LLVM hoists the launch
/// struct's values out of it into registers, which costs occupancy; read where used,
/// they stay operands in the constant bank.
#[inline(always)]
fn global_index() -> u64 {
    block_idx() as u64 * block_dim() as u64 + thread_idx() as u64
}

/// (quotient, remainder) of `i / extent`, by the fast divisor when `small` (every
/// index and extent below 2^31).
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

/// Output `i`'s input plane (its first element's offset) and its index in its output
/// plane.
#[inline(always)]
fn plane_of(a: &Interp, i: u64, small: bool) -> (i64, u64) {
    let (plane, j) = if a.out_plane == a.n {
        (0, i)
    } else {
        divmod(i, a.out_plane, a.plane_magic, a.plane_shift, small)
    };
    ((plane * a.in_plane) as i64, j)
}

/// The coordinates of index `j` in an output plane of `odim <= M` dimensions (C order;
/// the rest 0), for the maps that need them.
#[inline(always)]
fn unravel<const M: usize>(a: &Interp, j: u64, small: bool) -> [u64; INTERP_DIMS] {
    let mut o = [0u64; INTERP_DIMS];
    if a.source != Source::Coordinates as u32 {
        let odim = a.odim as usize;
        let mut rem = j;
        unroll!(e in 0..INTERP_DIMS => {
            let d = INTERP_DIMS - 1 - e;
            if d < M && d < odim {
                let (q, r) = divmod(rem, a.oshape[d], a.omagic[d], a.oshift[d], small);
                o[d] = r;
                rem = q;
            }
        }; 0 1 2 3 4 5 6 7);
        let _ = rem;
    }
    o
}

/// Entry `k` of the coordinate array, as a double.
///
/// # Safety
/// The array (float64, or float32 with `COORDS_F32`) holds more than `k` entries.
#[inline(always)]
unsafe fn coordinate(a: &Interp, aux: *const f64, k: usize) -> f64 {
    // SAFETY: per the contract.
    unsafe {
        if a.flags & COORDS_F32 != 0 {
            *(aux as *const f32).add(k) as f64
        } else {
            *aux.add(k)
        }
    }
}

/// The input coordinates (padding added) of output `i` at plane coordinates `o`
/// (`odim <= M` of them), along the first `N` axes (arrays are full-sized and the rest
/// left 0: rustc rejects constant indices past an array's end even in dead branches).
///
/// # Safety
/// For `Coordinates`, `aux` holds `ndim` rows of `n` doubles and `i < n`; for
/// `Affine`, `ndim` rows of `odim + 1`.
#[inline(always)]
unsafe fn coordinates<const N: usize, const M: usize>(
    a: &Interp,
    aux: *const f64,
    i: u64,
    o: &[u64; INTERP_DIMS],
) -> [f64; INTERP_DIMS] {
    let mut cc = [0.0f64; INTERP_DIMS];
    let odim = a.odim as usize;
    if a.source == Source::Coordinates as u32 {
        unroll!(d in 0..INTERP_DIMS => {
            if d < N {
                // SAFETY: row d of the coordinates, entry i < n.
                cc[d] = unsafe { coordinate(a, aux, d * a.n as usize + i as usize) } + a.npad;
            }
        }; 0 1 2 3 4 5 6 7);
    } else if a.source == Source::Affine as u32 {
        unroll!(d in 0..INTERP_DIMS => {
            if d < N {
                let row = d * (odim + 1);
                // SAFETY (both): row d of the matrix, odim entries and the offset.
                let offset = unsafe { *aux.add(row + odim) };
                let entry = |l: usize| unsafe { *aux.add(row + l) };
                cc[d] = affine_coordinate(&o[..M], odim, offset, entry, a.npad);
            }
        }; 0 1 2 3 4 5 6 7);
    } else {
        let (zoom, shift) = (a.flags & HAS_ZOOM != 0, a.flags & HAS_SHIFT != 0);
        let grid = a.flags & GRID_MODE != 0;
        unroll!(d in 0..INTERP_DIMS => {
            if d < N {
                let z = if zoom { Some(a.zoom[d]) } else { None };
                let s = if shift { Some(a.shift[d]) } else { None };
                cc[d] = zoom_shift_coordinate(o[d], z, s, grid, a.npad);
            }
        }; 0 1 2 3 4 5 6 7);
    }
    cc
}

/// The stored value of `t` in the output dtype, written at element `i`.
///
/// # Safety
/// `out` holds more than `i` elements of the store's dtype.
#[inline(always)]
unsafe fn store(out: *mut u8, i: u64, t: f64, a: &Interp) {
    let i = i as usize;
    // SAFETY: per the contract (each arm writes one element of its dtype).
    unsafe {
        match Store::from_code(a.store) {
            Store::F64 => *(out as *mut f64).add(i) = t,
            Store::F32 => *(out as *mut f32).add(i) = t as f32,
            Store::I8 => *(out as *mut i8).add(i) = round_signed(t, a.lo, a.hi) as i8,
            Store::I16 => *(out as *mut i16).add(i) = round_signed(t, a.lo, a.hi) as i16,
            Store::I32 => *(out as *mut i32).add(i) = round_signed(t, a.lo, a.hi) as i32,
            Store::I64 => *(out as *mut i64).add(i) = round_signed(t, a.lo, a.hi) as i64,
            Store::U8 => *out.add(i) = round_unsigned(t, a.hi) as u8,
            Store::U16 => *(out as *mut u16).add(i) = round_unsigned(t, a.hi) as u16,
            Store::U32 => *(out as *mut u32).add(i) = round_unsigned(t, a.hi) as u32,
            Store::U64 => *(out as *mut u64).add(i) = round_unsigned(t, a.hi) as u64,
            Store::Bool => *out.add(i) = to_bool(t) as u8,
        }
    }
}

/// Tap value at element offset `p`, or `cval` for a tap outside the array (one whose
/// offset along some axis is `OUTSIDE`; `p` is then meaningless).
///
/// # Safety
/// Offsets other than outside ones lie inside `x`.
#[inline(always)]
unsafe fn tap<T: Sample>(x: *const T, p: i64, outside: bool, cval: f64) -> f64 {
    if outside {
        cval
    } else {
        // SAFETY: per the contract.
        unsafe { (*x.add(p as usize)).to_f64() }
    }
}

/// SciPy's sum over a window in one dimension (`window_sum`'s order), `O` the order.
///
/// # Safety
/// Every offset `base + off[0][k]` (k <= O) not `OUTSIDE` lies inside `x`.
#[inline(always)]
unsafe fn sum1<T: Sample, const O: usize>(
    x: *const T,
    base: i64,
    w: &[[f64; MAX_TAPS]],
    off: &[[i64; MAX_TAPS]],
    cval: f64,
) -> f64 {
    let mut t = 0.0f64;
    unroll!(k0 in 0..O + 1 => {
        let p0 = off[0][k0];
        // SAFETY: per the contract.
        let mut c = unsafe { tap(x, base.wrapping_add(p0), p0 == OUTSIDE, cval) };
        if O > 0 {
            c *= w[0][k0];
        }
        t += c;
    }; 0 1 2 3 4 5);
    t
}

/// Two dimensions (as `sum1`).
///
/// # Safety
/// As `sum1`, for every pair of taps.
#[inline(always)]
unsafe fn sum2<T: Sample, const O: usize>(
    x: *const T,
    base: i64,
    w: &[[f64; MAX_TAPS]],
    off: &[[i64; MAX_TAPS]],
    cval: f64,
) -> f64 {
    let mut t = 0.0f64;
    unroll!(k0 in 0..O + 1 => {
        let p0 = off[0][k0];
        unroll!(k1 in 0..O + 1 => {
            let p1 = off[1][k1];
            let outside = p0 == OUTSIDE || p1 == OUTSIDE;
            // SAFETY: per the contract.
            let mut c = unsafe { tap(x, base.wrapping_add(p0).wrapping_add(p1), outside, cval) };
            if O > 0 {
                c *= w[0][k0];
                c *= w[1][k1];
            }
            t += c;
        }; 0 1 2 3 4 5);
    }; 0 1 2 3 4 5);
    t
}

/// Three dimensions (as `sum1`).
///
/// # Safety
/// As `sum1`, for every triple of taps.
#[inline(always)]
unsafe fn sum3<T: Sample, const O: usize>(
    x: *const T,
    base: i64,
    w: &[[f64; MAX_TAPS]],
    off: &[[i64; MAX_TAPS]],
    cval: f64,
) -> f64 {
    let mut t = 0.0f64;
    unroll!(k0 in 0..O + 1 => {
        let p0 = off[0][k0];
        unroll!(k1 in 0..O + 1 => {
            let p01 = off[1][k1];
            let out01 = p0 == OUTSIDE || p01 == OUTSIDE;
            let p01 = p0.wrapping_add(p01);
            unroll!(k2 in 0..O + 1 => {
                let p2 = off[2][k2];
                let outside = out01 || p2 == OUTSIDE;
                // SAFETY: per the contract.
                let mut c = unsafe { tap(x, base.wrapping_add(p01).wrapping_add(p2), outside, cval) };
                if O > 0 {
                    c *= w[0][k0];
                    c *= w[1][k1];
                    c *= w[2][k2];
                }
                t += c;
            }; 0 1 2 3 4 5);
        }; 0 1 2 3 4 5);
    }; 0 1 2 3 4 5);
    t
}

/// Three dimensions at orders 3 to 5 (as `sum1`), with the outer axis's loop left
/// rolled: unrolled, its 64 to 216 taps give `ptxas` more loads to hoist than
/// registers. `count` is `O + 1`, read from the launch so that LLVM cannot unroll the
/// loop.
///
/// # Safety
/// As `sum3`.
#[inline(always)]
unsafe fn sum3_rolled<T: Sample, const O: usize>(
    x: *const T,
    base: i64,
    w: &[[f64; MAX_TAPS]],
    off: &[[i64; MAX_TAPS]],
    cval: f64,
    count: usize,
) -> f64 {
    let mut t = 0.0f64;
    // The outer axis's taps, shifted down one slot per step: its current tap is always
    // slot 0 (a run-time index would send the arrays to local memory).
    let (mut ws, mut ps) = (w[0], off[0]);
    let mut k0 = 0;
    while k0 < count {
        let (w0, p0) = (ws[0], ps[0]);
        unroll!(j in 0..MAX_TAPS - 1 => {
            ws[j] = ws[j + 1];
            ps[j] = ps[j + 1];
        }; 0 1 2 3 4);
        unroll!(k1 in 0..O + 1 => {
            let p01 = off[1][k1];
            let out01 = p0 == OUTSIDE || p01 == OUTSIDE;
            let p01 = p0.wrapping_add(p01);
            unroll!(k2 in 0..O + 1 => {
                let p2 = off[2][k2];
                let outside = out01 || p2 == OUTSIDE;
                // SAFETY: per the contract.
                let mut c = unsafe { tap(x, base.wrapping_add(p01).wrapping_add(p2), outside, cval) };
                c *= w0;
                c *= w[1][k1];
                c *= w[2][k2];
                t += c;
            }; 0 1 2 3 4 5);
        }; 0 1 2 3 4 5);
        k0 += 1;
    }
    t
}

/// Sampling in `N` (1 to 3) dimensions at order `O`, the windows in registers.
///
/// # Safety
/// `x` is the C-contiguous input (`n / out_plane` planes of `in_plane` elements,
/// `shape[..ndim]` with strides `stride`, every extent at least 1), `ndim == N`,
/// `odim <= N`, `out` holds `n` elements of the store's dtype, `aux` as `coordinates`
/// needs.
#[inline(always)]
unsafe fn sample<T: Sample, const N: usize, const O: usize>(
    a: &Interp,
    x: *const T,
    aux: *const f64,
    out: *mut u8,
) {
    let i = global_index();
    if i >= a.n {
        return;
    }
    let small = a.n < 1 << 31;
    let mode = Mode::from_code(a.mode);
    {
        let (base, j) = plane_of(a, i, small);
        let o = unravel::<N>(a, j, small);
        // SAFETY: per the contract.
        let cc = unsafe { coordinates::<N, N>(a, aux, i, &o) };
        let mut w = [[0.0f64; MAX_TAPS]; INTERP_DIMS];
        let mut off = [[0i64; MAX_TAPS]; INTERP_DIMS];
        let mut constant = false;
        unroll!(d in 0..INTERP_DIMS => {
            if d < N {
                match axis_taps(cc[d], a.shape[d] as i64, mode, O) {
                    Some(t) => {
                        w[d] = t.w;
                        unroll!(k in 0..O + 1 => {
                            let idx = t.idx[k];
                            off[d][k] = if idx == OUTSIDE { OUTSIDE } else { idx * a.stride[d] };
                        }; 0 1 2 3 4 5);
                    }
                    None => constant = true,
                }
            }
        }; 0 1 2 3 4 5 6 7);
        let t = if constant {
            a.cval
        } else {
            // SAFETY: mapped taps lie inside the axis (0..shape[d]), so every offset
            // that is not OUTSIDE lies inside the plane at `base`.
            unsafe {
                match N {
                    1 => sum1::<T, O>(x, base, &w, &off, a.cval),
                    2 => sum2::<T, O>(x, base, &w, &off, a.cval),
                    _ if O <= 2 => sum3::<T, O>(x, base, &w, &off, a.cval),
                    _ => sum3_rolled::<T, O>(x, base, &w, &off, a.cval, a.order as usize + 1),
                }
            }
        };
        // SAFETY: i < n.
        unsafe { store(out, i, t, a) };
    }
}

/// The n-d kernel's shared memory (see `ND_HEADER_BYTES`): word `w` of the header,
/// and slot `s` of this thread's column.
struct NdSmem {
    tid: u32,
    bdim: u32,
}

impl NdSmem {
    /// Header arrays, each `INTERP_DIMS` words.
    const SHAPE: usize = 0;
    const STRIDE: usize = INTERP_DIMS;
    const ZOOM: usize = 2 * INTERP_DIMS;
    const SHIFT: usize = 3 * INTERP_DIMS;
    const OSHAPE: usize = 4 * INTERP_DIMS;

    #[inline(always)]
    fn header(&self, word: usize) -> u32 {
        smem_addr(word as u32 * 8)
    }
    #[inline(always)]
    fn slot(&self, s: usize) -> u32 {
        smem_addr(ND_HEADER_BYTES + (s as u32 * self.bdim + self.tid) * 8)
    }
    /// # Safety
    /// `word` and `s` lie inside the launch's shared memory (the kernel's contract).
    #[inline(always)]
    unsafe fn u(&self, word: usize) -> u64 {
        // SAFETY: per the contract.
        unsafe { u64::ld_shared(self.header(word)) }
    }
    #[inline(always)]
    unsafe fn f(&self, word: usize) -> f64 {
        // SAFETY: per the contract.
        unsafe { f64::ld_shared(self.header(word)) }
    }
    #[inline(always)]
    unsafe fn get(&self, s: usize) -> u64 {
        // SAFETY: per the contract.
        unsafe { u64::ld_shared(self.slot(s)) }
    }
    #[inline(always)]
    unsafe fn put(&self, s: usize, v: u64) {
        // SAFETY: per the contract.
        unsafe { u64::st_shared(self.slot(s), v) }
    }
}

/// Sampling in up to `INTERP_DIMS` dimensions at any order, with loops over axes and
/// taps at run time (compact code, few registers): the launch's per-axis values are
/// copied to the shared header once per block, and each output's windows, its
/// coordinates and its tap counters live in the thread's column of slots (weights at
/// `d * p + k`, tap offsets at `nd * p + d * p + k`, coordinates at `2 nd p + l`,
/// counters at `2 nd p + odim + d`, with `p = order + 1`).
///
/// # Safety
/// As `sample`, with `ndim, odim <= INTERP_DIMS`, `order <= 5`, and the launch's
/// dynamic shared memory holding the header and `nd_slots(ndim, odim, order)` slots
/// per thread.
#[inline(always)]
unsafe fn sample_nd<T: Sample>(a: &Interp, x: *const T, aux: *const f64, out: *mut u8) {
    let m = NdSmem {
        tid: thread_idx(),
        bdim: block_dim(),
    };
    // The header, from the launch struct (constant indices), by the first threads.
    unroll!(d in 0..INTERP_DIMS => {
        if m.tid as usize == d {
            // SAFETY: header words, inside the launch's shared memory.
            unsafe {
                u64::st_shared(m.header(NdSmem::SHAPE + d), a.shape[d]);
                u64::st_shared(m.header(NdSmem::STRIDE + d), a.stride[d] as u64);
                f64::st_shared(m.header(NdSmem::ZOOM + d), a.zoom[d]);
                f64::st_shared(m.header(NdSmem::SHIFT + d), a.shift[d]);
                u64::st_shared(m.header(NdSmem::OSHAPE + d), a.oshape[d]);
            }
        }
    }; 0 1 2 3 4 5 6 7);
    sync_threads();
    let i = global_index();
    if i >= a.n {
        return;
    }
    let small = a.n < 1 << 31;
    let mode = Mode::from_code(a.mode);
    let (nd, odim, order) = (a.ndim as usize, a.odim as usize, a.order as usize);
    let p = order + 1;
    let (w_at, off_at, o_at, k_at) = (0, nd * p, 2 * nd * p, 2 * nd * p + odim);
    let (zoom, shift) = (a.flags & HAS_ZOOM != 0, a.flags & HAS_SHIFT != 0);
    let grid = a.flags & GRID_MODE != 0;
    {
        let (base, j) = plane_of(a, i, small);
        // SAFETY (this block): every header word and slot index below lies inside the
        // layout above (d < nd, k <= order, l < odim).
        unsafe {
            if a.source != Source::Coordinates as u32 {
                let mut rem = j;
                for e in 0..odim {
                    let l = odim - 1 - e;
                    let (q, r) = divmod(rem, m.u(NdSmem::OSHAPE + l), 0, 0, false);
                    m.put(o_at + l, r);
                    rem = q;
                }
            }
            let mut constant = false;
            for d in 0..nd {
                let cc = if a.source == Source::Coordinates as u32 {
                    coordinate(a, aux, d * a.n as usize + i as usize) + a.npad
                } else if a.source == Source::Affine as u32 {
                    let row = d * (odim + 1);
                    let mut t = *aux.add(row + odim);
                    for l in 0..odim {
                        t += m.get(o_at + l) as f64 * *aux.add(row + l);
                    }
                    t + a.npad
                } else {
                    let z = if zoom {
                        Some(m.f(NdSmem::ZOOM + d))
                    } else {
                        None
                    };
                    let s = if shift {
                        Some(m.f(NdSmem::SHIFT + d))
                    } else {
                        None
                    };
                    zoom_shift_coordinate(m.get(o_at + d), z, s, grid, a.npad)
                };
                let Some(t) = axis_taps(cc, m.u(NdSmem::SHAPE + d) as i64, mode, order) else {
                    constant = true;
                    break;
                };
                let st = m.u(NdSmem::STRIDE + d) as i64;
                unroll!(k in 0..MAX_TAPS => {
                    if k <= order {
                        let idx = t.idx[k];
                        let o = if idx == OUTSIDE { OUTSIDE } else { idx * st };
                        m.put(w_at + d * p + k, t.w[k].to_bits());
                        m.put(off_at + d * p + k, o as u64);
                    }
                }; 0 1 2 3 4 5);
                m.put(k_at + d, 0);
            }
            let t = if constant {
                a.cval
            } else {
                // The taps in C order: an odometer over the axes' counters, the last
                // axis fastest.
                let mut t = 0.0f64;
                loop {
                    let mut q = base;
                    let mut outside = false;
                    for d in 0..nd {
                        let o = m.get(off_at + d * p + m.get(k_at + d) as usize) as i64;
                        outside |= o == OUTSIDE;
                        q = q.wrapping_add(o);
                    }
                    let mut c = tap(x, q, outside, a.cval);
                    if order > 0 {
                        for d in 0..nd {
                            c *= f64::from_bits(m.get(w_at + d * p + m.get(k_at + d) as usize));
                        }
                    }
                    t += c;
                    let mut d = nd;
                    let more = loop {
                        if d == 0 {
                            break false;
                        }
                        d -= 1;
                        let k = m.get(k_at + d);
                        if (k as usize) < order {
                            m.put(k_at + d, k + 1);
                            break true;
                        }
                        m.put(k_at + d, 0);
                    };
                    if !more {
                        break;
                    }
                }
                t
            };
            store(out, i, t, a);
        }
    }
}

/// A line of the prefilter: `len` doubles `step` apart.
struct Strided {
    p: *mut f64,
    step: usize,
    len: usize,
}

impl Line for Strided {
    #[inline(always)]
    fn samples(&self) -> usize {
        self.len
    }
    #[inline(always)]
    fn get(&self, i: usize) -> f64 {
        // SAFETY: i < len, inside the line (the kernel's contract).
        unsafe { *self.p.add(i * self.step) }
    }
    #[inline(always)]
    fn set(&mut self, i: usize, v: f64) {
        // SAFETY: as above.
        unsafe { *self.p.add(i * self.step) = v }
    }
}

/// The prefilter along the middle axis of the (outer, len, inner) array `c`, in place:
/// line `l` is (outer `l / inner`, inner `l % inner`).
///
/// # Safety
/// `c` holds `lines * len` doubles, `len >= 2`, `inner >= 1` divides `lines`,
/// `npoles <= 2`.
#[inline(always)]
unsafe fn prefilter(a: &Prefilter, c: *mut f64) {
    let l = global_index();
    if l >= a.lines {
        return;
    }
    let small = a.lines < 1 << 31;
    let init = Init::from_code(a.init);
    {
        let (o, k) = divmod(l, a.inner, a.inner_magic, a.inner_shift, small);
        let start = (o * a.len * a.inner + k) as usize;
        let mut line = Strided {
            // SAFETY: the line's first element, inside `c`.
            p: unsafe { c.add(start) },
            step: a.inner as usize,
            len: a.len as usize,
        };
        filter_line(&mut line, &a.poles, a.npoles as usize, a.gain, init);
    }
}

macro_rules! sample_entries {
    ([] $(($t:ident $n:literal $o:literal))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_interp_", stringify!($t), "_", stringify!($n), "d_o", stringify!($o)))]
            unsafe extern "ptx-kernel" fn s(a: Interp, x: *const $t, aux: *const f64, out: *mut u8) {
                // SAFETY: the host launches per sample's contract.
                unsafe { sample::<$t, $n, $o>(&a, x, aux, out) }
            }
        };
    )* };
}
crate::for_each_sample_kernel!(sample_entries);

macro_rules! sample_nd_entries {
    ([] $($t:ident)*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_interp_nd_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn s(a: Interp, x: *const $t, aux: *const f64, out: *mut u8) {
                // SAFETY: the host launches per sample_nd's contract.
                unsafe { sample_nd::<$t>(&a, x, aux, out) }
            }
        };
    )* };
}
crate::for_each_sample_nd_type!(sample_nd_entries);

#[unsafe(export_name = "gpupy_spline_prefilter_f64")]
unsafe extern "ptx-kernel" fn prefilter_f64(a: Prefilter, c: *mut f64) {
    // SAFETY: the host launches per prefilter's contract.
    unsafe { prefilter(&a, c) }
}
