//! The random kernels: grid-stride loops over outputs (PCG64), groups (the fast
//! distributions) or elements (the rest), each writing a fresh C-contiguous output.

use super::distributions::{
    Fast, Stream, beta, binomial, geometric, group_f32, group_f64, gumbel, laplace, logistic,
    poisson, standard_gamma, try_bounded32, try_bounded64,
};
use super::pcg64::{jump, output, to_f32, to_f64};
use super::philox::{counter, key, philox4x32_10};
use super::{Bounded, Draw, Param, Pcg64Args};
use crate::elementwise::ops::float::Float;
use crate::gpu::{grid_stride, unroll};

/// A 16-byte chunk, so a full group is one vector store.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Chunk<T: Copy, const G: usize>([T; G]);

/// Writes group `g` of `G` elements (those below `n`): 16-byte vector stores when the
/// group is full and 16 bytes long, or 32 (four 8-byte integers: two stores), else one
/// store per element.
///
/// # Safety
/// `out` holds `n` elements and is 16-byte aligned.
#[inline(always)]
unsafe fn store_group<T: Copy, const G: usize>(out: *mut T, g: u64, n: u64, v: [T; G]) {
    let first = g * G as u64;
    // SAFETY: per the contract; a full group lies inside `out` at a multiple of its 16-
    // or 32-byte length, so each chunk is 16-byte aligned.
    unsafe {
        let full = first + G as u64 <= n;
        if full && (G * size_of::<T>() == 16 || G == 4 && size_of::<T>() == 8) {
            store_full(out, g, v);
        } else {
            unroll!(e in 0..G => {
                if first + (e as u64) < n {
                    out.add(first as usize + e).write(v[e]);
                }
            }; 0 1 2 3);
        }
    }
}

/// Writes the full group `g` of `G` elements, 16 or 32 bytes long, in 16-byte vector
/// stores.
///
/// # Safety
/// `out` holds elements `g * G .. (g + 1) * G` and is 16-byte aligned.
#[inline(always)]
unsafe fn store_full<T: Copy, const G: usize>(out: *mut T, g: u64, v: [T; G]) {
    // SAFETY: per the contract, each chunk lies inside `out` at a multiple of 16 bytes.
    unsafe {
        let first = out.add(g as usize * G);
        if G * size_of::<T>() == 16 {
            first.cast::<Chunk<T, G>>().write(Chunk(v));
        } else {
            let p = first.cast::<Chunk<T, 2>>();
            p.write(Chunk([v[0], v[1]]));
            p.add(1).write(Chunk([v[2], v[3]]));
        }
    }
}

/// Element `i`'s value of a parameter.
///
/// # Safety
/// A set pointer holds at least `i + 1` float64.
#[inline(always)]
unsafe fn param(p: &Param, i: u64) -> f64 {
    if p.ptr == 0 {
        p.value
    } else {
        // SAFETY: per the contract.
        unsafe { *(p.ptr as *const f64).add(i as usize) }
    }
}

/// PCG64: output `j` for `j < n` on thread `j mod T`, from the state after `j + 1` steps.
///
/// # Safety
/// `put(j, x)` may write output `j` for any `j < a.n`.
#[inline(always)]
unsafe fn pcg64_outputs(a: &Pcg64Args, n: u64, mut put: impl FnMut(u64, u64)) {
    let (t, total) = grid_stride();
    if t >= n {
        return;
    }
    let (ma, mc) = jump(a.inc, t + 1);
    let mut s = a.state.mul(ma).add(mc);
    let (sa, sc) = jump(a.inc, total);
    let mut j = t;
    while j < n {
        put(j, output(s));
        s = s.mul(sa).add(sc);
        j += total;
    }
}

#[unsafe(export_name = "gpupy_random_pcg64_u64")]
unsafe extern "ptx-kernel" fn pcg64_u64(a: Pcg64Args, out: *mut u64) {
    // SAFETY: out holds a.n outputs.
    unsafe { pcg64_outputs(&a, a.n, |j, x| out.add(j as usize).write(x)) }
}

#[unsafe(export_name = "gpupy_random_pcg64_f64")]
unsafe extern "ptx-kernel" fn pcg64_f64(a: Pcg64Args, out: *mut f64) {
    // SAFETY: out holds a.n outputs.
    unsafe { pcg64_outputs(&a, a.n, |j, x| out.add(j as usize).write(to_f64(x))) }
}

/// float32: NumPy hands out an output's low half, then its high half.
#[unsafe(export_name = "gpupy_random_pcg64_f32")]
unsafe extern "ptx-kernel" fn pcg64_f32(a: Pcg64Args, out: *mut f32) {
    let skip = (a.has_first != 0) as u64;
    if a.n == 0 {
        return;
    }
    let (t, _) = grid_stride();
    if skip == 1 && t == 0 {
        // SAFETY: n >= 1.
        unsafe { out.write(a.first) };
    }
    let outputs = (a.n - skip).div_ceil(2);
    // SAFETY: elements skip + 2j (+ 1) are written only below n; without the skip an
    // even element index is 8-byte aligned in the 16-byte aligned output.
    unsafe {
        pcg64_outputs(&a, outputs, |j, x| {
            let e = skip + 2 * j;
            let (lo, hi) = (to_f32(x as u32), to_f32((x >> 32) as u32));
            if skip == 0 && e + 1 < a.n {
                let pair = lo.to_bits() as u64 | (hi.to_bits() as u64) << 32;
                out.add(e as usize).cast::<u64>().write(pair);
            } else {
                out.add(e as usize).write(lo);
                if e + 1 < a.n {
                    out.add(e as usize + 1).write(hi);
                }
            }
        })
    }
}

/// A fast distribution in groups: four float32 (or two float64) per Philox block, then
/// the parameters' affine map (or `exp` of it). With scalar parameters the full groups
/// take a loop of their own, free of per-element checks and branches (they cost a third
/// of the time of a float32 normal); the rest (array parameters, the last partial group)
/// check each element.
macro_rules! fast_entry {
    ($name:expr, $t:ty, $g:literal, $group:ident, $kind:expr, |$v:ident, $a:ident, $b:ident| $map:expr) => {
        const _: () = {
            #[unsafe(export_name = $name)]
            unsafe extern "ptx-kernel" fn entry(d: Draw, out: *mut $t) {
                let (start, stride) = grid_stride();
                let groups = d.n.div_ceil($g);
                let k = key(d.key);
                let scalar = d.p[0].ptr == 0 && d.p[1].ptr == 0;
                let (a0, b0) = (d.p[0].value as $t, d.p[1].value as $t);
                let full = if scalar { d.n / $g } else { 0 };
                let mut g = start;
                while g < full {
                    let mut v = $group($kind, philox4x32_10(counter(g, 0), k));
            unroll!(e in 0..$g => {
                        let ($a, $b, $v) = (a0, b0, v[e]);
                        v[e] = $map;
                    }; 0 1 2 3);
                    // SAFETY: out holds n >= (g + 1) * G elements, 16-byte aligned.
                    unsafe { store_full::<$t, $g>(out, g, v) };
                    g += stride;
                }
                while g < groups {
                    let mut v = $group($kind, philox4x32_10(counter(g, 0), k));
            unroll!(e in 0..$g => {
                        let i = g * $g + e as u64;
                        let ($a, $b) = if scalar || i >= d.n {
                            (a0, b0)
                        } else {
                            // SAFETY: set parameter arrays hold n elements; i < n.
                            unsafe { (param(&d.p[0], i) as $t, param(&d.p[1], i) as $t) }
                        };
                        let $v = v[e];
                        v[e] = $map;
                    }; 0 1 2 3);
                    // SAFETY: out holds n elements, 16-byte aligned.
                    unsafe { store_group::<$t, $g>(out, g, d.n, v) };
                    g += stride;
                }
            }
        };
    };
}

macro_rules! fast_entries {
    ($($t:ident $g:literal $group:ident)*) => { $(
        fast_entry!(concat!("gpupy_random_uniform_", stringify!($t)), $t, $g, $group, Fast::Uniform,
            |u, lo, hi| lo + (hi - lo) * u);
        fast_entry!(concat!("gpupy_random_normal_", stringify!($t)), $t, $g, $group, Fast::Normal,
            |z, loc, scale| loc + scale * z);
        fast_entry!(concat!("gpupy_random_lognormal_", stringify!($t)), $t, $g, $group, Fast::Normal,
            |z, mean, sigma| (mean + sigma * z).exp());
        fast_entry!(concat!("gpupy_random_exponential_", stringify!($t)), $t, $g, $group, Fast::Exponential,
            |e, scale, _unused| scale * e);
    )* };
}
fast_entries!(f32 4 group_f32 f64 2 group_f64);

/// A distribution drawn element by element from its own stream, computed in float64.
macro_rules! element_entry {
    ($name:expr, $t:ty, |$s:ident, $a:ident, $b:ident| $value:expr) => {
        const _: () = {
            #[unsafe(export_name = $name)]
            unsafe extern "ptx-kernel" fn entry(d: Draw, out: *mut $t) {
                let (start, stride) = grid_stride();
                let mut i = start;
                while i < d.n {
                    // SAFETY: set parameter arrays hold n elements; i < n.
                    let ($a, $b) = unsafe { (param(&d.p[0], i), param(&d.p[1], i)) };
                    let $s = &mut Stream::new(d.key, i);
                    let v = $value;
                    // SAFETY: out holds n elements.
                    unsafe { out.add(i as usize).write(v as $t) };
                    i += stride;
                }
            }
        };
    };
}

macro_rules! element_entries {
    ($($t:ident)*) => { $(
        element_entry!(concat!("gpupy_random_gamma_", stringify!($t)), $t,
            |s, shape, scale| scale * standard_gamma(s, shape));
        element_entry!(concat!("gpupy_random_beta_", stringify!($t)), $t, |s, a, b| beta(s, a, b));
        element_entry!(concat!("gpupy_random_laplace_", stringify!($t)), $t,
            |s, loc, scale| loc + scale * laplace(s));
        element_entry!(concat!("gpupy_random_logistic_", stringify!($t)), $t,
            |s, loc, scale| loc + scale * logistic(s));
        element_entry!(concat!("gpupy_random_gumbel_", stringify!($t)), $t,
            |s, loc, scale| loc + scale * gumbel(s));
    )* };
}
element_entries!(f32 f64);

element_entry!("gpupy_random_poisson_i64", i64, |s, lam, _unused| poisson(
    s, lam
));
element_entry!("gpupy_random_binomial_i64", i64, |s, n, p| binomial(
    s, n, p
));
element_entry!(
    "gpupy_random_geometric_i64",
    i64,
    |s, p, _unused| geometric(s, p)
);

/// Element `i`'s bounds.
///
/// # Safety
/// Set pointers hold at least `i + 1` uint64.
#[inline(always)]
unsafe fn bounds(b: &Bounded, i: u64) -> (u64, u64) {
    // SAFETY: per the contract.
    unsafe {
        let low = if b.low_ptr == 0 {
            b.low
        } else {
            *(b.low_ptr as *const u64).add(i as usize)
        };
        let range = if b.range_ptr == 0 {
            b.range
        } else {
            *(b.range_ptr as *const u64).add(i as usize)
        };
        (low, range)
    }
}

/// Bounded integers: four 32-bit (or two 64-bit) words per group, Lemire's method, and
/// a rejected element's next words from its own stream.
macro_rules! integer_entries {
    ([] $($t:ident)*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_random_integers32_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn narrow(b: Bounded, out: *mut $t) {
                let (start, stride) = grid_stride();
                let k = key(b.key);
                let mut g = start;
                while g < b.n.div_ceil(4) {
                    let w = philox4x32_10(counter(g, 0), k);
                    let mut v: [$t; 4] = [0; 4];
                    unroll!(e in 0..4 => {
                        let i = g * 4 + e as u64;
                        if i < b.n {
                            // SAFETY: i < n. Every range is below 2^32 (the host's choice).
                            let (low, range) = unsafe { bounds(&b, i) };
                            let mut x = w[e];
                            let mut s = Stream::new(b.key, i);
                            let x = loop {
                                match try_bounded32(x, range as u32) {
                                    Some(v) => break v,
                                    None => x = s.word(),
                                }
                            };
                            v[e] = low.wrapping_add(x as u64) as $t;
                        }
                    });
                    // SAFETY: out holds n elements, 16-byte aligned.
                    unsafe { store_group::<$t, 4>(out, g, b.n, v) };
                    g += stride;
                }
            }

            #[unsafe(export_name = concat!("gpupy_random_integers64_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn wide(b: Bounded, out: *mut $t) {
                let (start, stride) = grid_stride();
                let k = key(b.key);
                let mut g = start;
                while g < b.n.div_ceil(2) {
                    let w = philox4x32_10(counter(g, 0), k);
                    let words = [(w[0] as u64) << 32 | w[1] as u64, (w[2] as u64) << 32 | w[3] as u64];
                    let mut v: [$t; 2] = [0; 2];
                    unroll!(e in 0..2 => {
                        let i = g * 2 + e as u64;
                        if i < b.n {
                            // SAFETY: i < n.
                            let (low, range) = unsafe { bounds(&b, i) };
                            let mut x = words[e];
                            let mut s = Stream::new(b.key, i);
                            let x = loop {
                                match try_bounded64(x, range) {
                                    Some(v) => break v,
                                    None => x = s.word64(),
                                }
                            };
                            v[e] = low.wrapping_add(x) as $t;
                        }
                    });
                    // SAFETY: out holds n elements, 16-byte aligned.
                    unsafe { store_group::<$t, 2>(out, g, b.n, v) };
                    g += stride;
                }
            }
        };
    )* };
}
crate::for_each_integer_width!(integer_entries);
