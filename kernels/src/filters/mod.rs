//! Filters by direct correlation: SciPy's `ndimage.correlate1d` and `ndimage.correlate`
//! (and every filter built from them: convolutions, Gaussian, uniform, Sobel, ...).
//!
//! Output element `i` at coordinates `c` is `sum_t w[t] * x[c + off[t]]`, the taps in
//! order, where a coordinate outside the input is mapped back in by the boundary mode
//! ([`map_coord`], SciPy's rules, for kernels of any size) or, in `constant` mode,
//! reads `cval`. Two engines:
//!
//! - `correlate1d`: the taps run along one axis of a C-contiguous array seen as
//!   (outer, axis, inner); a thread per output, the boundary mapping only where the
//!   taps reach past an edge.
//! - `correlate`: n-d taps (SciPy's footprint: the weights above `DBL_EPSILON` in
//!   magnitude), each with its offset per dimension; a thread per output.
//!
//! Inputs and outputs are C-contiguous arrays of the compute type (float32 or float64;
//! the host converts other dtypes as SciPy's and CuPy's rules say), weights are of the
//! compute type, and the taps accumulate in it.
//!
//! The same two walks (the interior box, the edge regions) serve the order filters:
//! `minimum_filter`/`maximum_filter` (and the grey and binary morphology built on them)
//! and `rank_filter`/`median_filter`/`percentile_filter`, whose meaning is in
//! [`select`]. They run in the input's own order type (`f32`, `f64`, `i64`, `u64`: the
//! host widens narrower integers exactly), so results are input values, bit for bit.

pub mod select;

/// SciPy's boundary modes for filters (`ndimage`'s `mode=`): `grid-mirror` is `Reflect`,
/// `grid-constant` is `Constant`, `grid-wrap` is `Wrap`.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `d c b a | a b c d | d c b a`: half-sample symmetric.
    Reflect = 0,
    /// `k k k k | a b c d | k k k k` with `k = cval`.
    Constant = 1,
    /// `a a a a | a b c d | d d d d`.
    Nearest = 2,
    /// `d c b | a b c d | c b a`: whole-sample symmetric.
    Mirror = 3,
    /// `a b c d | a b c d | a b c d`: periodic.
    Wrap = 4,
}

impl Mode {
    /// The mode of its launch code (anything unknown reads as `Constant`: the host only
    /// passes the codes above).
    #[inline(always)]
    pub fn from_code(code: u32) -> Mode {
        match code {
            0 => Mode::Reflect,
            2 => Mode::Nearest,
            3 => Mode::Mirror,
            4 => Mode::Wrap,
            _ => Mode::Constant,
        }
    }
}

/// Coordinate `c` of an axis of length `n >= 1` mapped into `0..n` by `mode`, or `None`
/// where `Constant` reads `cval`. Far-out coordinates (a kernel longer than the axis)
/// keep reflecting, mirroring or wrapping, as SciPy extends a line.
#[inline(always)]
pub fn map_coord(c: i64, n: i64, mode: Mode) -> Option<i64> {
    if (0..n).contains(&c) {
        return Some(c);
    }
    Some(match mode {
        Mode::Constant => return None,
        Mode::Nearest => {
            if c < 0 {
                0
            } else {
                n - 1
            }
        }
        Mode::Wrap => c.rem_euclid(n),
        Mode::Reflect => {
            let m = c.rem_euclid(2 * n);
            if m >= n { 2 * n - 1 - m } else { m }
        }
        Mode::Mirror => {
            if n == 1 {
                return Some(0);
            }
            let p = 2 * n - 2;
            let m = c.rem_euclid(p);
            if m >= n { p - m } else { m }
        }
    })
}

/// Threads per block of the filter kernels.
pub const FILTER_BLOCK: u32 = 256;
/// Most dimensions of an n-d correlation (1-d filters take any number: the host views
/// the array as (outer, axis, inner)).
pub const FILTER_DIMS: usize = 8;

/// A 1-d correlation along the middle axis of a C-contiguous (outer, len, inner) array:
/// `ntaps` weights, tap `t` reading coordinate `j + t - center` of output coordinate `j`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Filter1d {
    /// Elements (outer * len * inner).
    pub n: u64,
    pub len: u64,
    pub inner: u64,
    pub ntaps: u32,
    pub center: i32,
    pub mode: u32,
    /// `args::fast_divisor` of `inner` and of `len` (used when `n < 2^31`).
    pub inner_magic: u32,
    pub inner_shift: u32,
    pub len_magic: u32,
    pub len_shift: u32,
    pub _pad: u32,
    pub cval: f64,
}

/// An n-d correlation over a region of a C-contiguous array of `shape` (innermost
/// first): the `n` outputs at coordinates `start[d] + r[d]`, `r` walking `rshape` (with
/// its fast divisors). Tap `t` has weight `w[t]` and offsets `off[t * FILTER_DIMS + d]`
/// (innermost first): it reads coordinate `c[d] + off` of output coordinate `c`, mapped
/// by the boundary mode. The host launches it on the regions around the interior box
/// (`FilterBox`), where windows reach past an edge.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct FilterNd {
    pub n: u64,
    pub ndim: u32,
    pub ntaps: u32,
    pub mode: u32,
    /// The order filters' choice: the rank (rank kernels), 0 minimum or 1 maximum
    /// (extreme kernels); correlations ignore it.
    pub select: u32,
    pub cval: f64,
    pub shape: [u64; FILTER_DIMS],
    pub start: [u64; FILTER_DIMS],
    pub rshape: [u64; FILTER_DIMS],
    pub rmagic: [u32; FILTER_DIMS],
    pub rshift: [u32; FILTER_DIMS],
}

/// The interior of an n-d correlation: the outputs whose whole window lies inside the
/// array, a box of extents `shape` (innermost first, with fast divisors) starting at
/// coordinate `start` in an array of element strides `stride`. Its kernel reads
/// `x[p + lin[t]]` with no boundary test; the n-d kernel skips these outputs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct FilterBox {
    pub n: u64,
    pub ndim: u32,
    pub ntaps: u32,
    /// As `FilterNd::select`.
    pub select: u32,
    pub _pad: u32,
    pub shape: [u64; FILTER_DIMS],
    pub magic: [u32; FILTER_DIMS],
    pub shift: [u32; FILTER_DIMS],
    pub start: [u64; FILTER_DIMS],
    pub stride: [u64; FILTER_DIMS],
}

#[cfg(all(target_arch = "nvptx64", feature = "filters"))]
mod gpu;

/// The compute types of the filter kernels.
#[macro_export]
macro_rules! for_each_filter_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] f32 f64 } };
}

/// The order types of the minimum, maximum and rank filters.
#[macro_export]
macro_rules! for_each_order_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] f32 f64 i64 u64 } };
}

macro_rules! type_names {
    ([$prefix:literal] $($t:ident)*) => { &[$(concat!($prefix, stringify!($t))),*] };
}

crate::module_parts! {
    /// The parts of the filters module.
    Part in Filters {
        /// 1-d correlation along an axis (`for_each_filter_type!`).
        Correlate1d = crate::for_each_filter_type!(type_names, "gpupy_correlate1d_"),
        /// n-d correlation by a list of taps: the outputs near the edges.
        CorrelateNd = crate::for_each_filter_type!(type_names, "gpupy_correlate_"),
        /// n-d correlation: the interior box.
        CorrelateBox = crate::for_each_filter_type!(type_names, "gpupy_correlate_box_"),
        /// Minimum or maximum over a footprint: the outputs near the edges
        /// (`for_each_order_type!`).
        ExtremeNd = crate::for_each_order_type!(type_names, "gpupy_extreme_"),
        /// Minimum or maximum: the interior box.
        ExtremeBox = crate::for_each_order_type!(type_names, "gpupy_extreme_box_"),
        /// Rank selection in scratch memory (`select_strided`): near the edges.
        RankNd = crate::for_each_order_type!(type_names, "gpupy_rank_"),
        /// Rank selection in scratch memory: the interior box.
        RankBox = crate::for_each_order_type!(type_names, "gpupy_rank_box_"),
        /// Rank selection of at most 9 taps in registers: the interior box.
        RankBox9 = crate::for_each_order_type!(type_names, "gpupy_rank_box9_"),
        /// Rank selection of at most 25 taps in registers: the interior box.
        RankBox25 = crate::for_each_order_type!(type_names, "gpupy_rank_box25_"),
    }
}

/// Slot of a compute type (`f32`, `f64`) in each part.
fn slot(dtype: usize) -> Option<usize> {
    use crate::dtype::DTypeIndex;
    if dtype == <f32 as DTypeIndex>::INDEX {
        Some(0)
    } else if dtype == <f64 as DTypeIndex>::INDEX {
        Some(1)
    } else {
        None
    }
}

/// Slot of an order type (`f32`, `f64`, `i64`, `u64`) in the order parts.
fn order_slot(dtype: usize) -> Option<usize> {
    use crate::dtype::DTypeIndex;
    [
        <f32 as DTypeIndex>::INDEX,
        <f64 as DTypeIndex>::INDEX,
        <i64 as DTypeIndex>::INDEX,
        <u64 as DTypeIndex>::INDEX,
    ]
    .iter()
    .position(|&d| d == dtype)
}

/// The minimum/maximum kernels for order dtype `dtype`: the edges' and the box's.
pub fn extreme(dtype: usize) -> Option<(crate::registry::Kernel, crate::registry::Kernel)> {
    order_slot(dtype).map(|s| (Part::ExtremeNd.at(s), Part::ExtremeBox.at(s)))
}

/// The rank kernels for order dtype `dtype` and windows of `ntaps` taps: the edges'
/// (scratch selection) and the box's (in registers for at most 25 taps, else scratch),
/// with whether the box kernel uses scratch.
pub fn rank(
    dtype: usize,
    ntaps: usize,
) -> Option<(crate::registry::Kernel, crate::registry::Kernel, bool)> {
    let [nine, twenty_five] = select::REGISTER_TIERS;
    order_slot(dtype).map(|s| {
        let (boxed, scratch) = if ntaps <= nine {
            (Part::RankBox9, false)
        } else if ntaps <= twenty_five {
            (Part::RankBox25, false)
        } else {
            (Part::RankBox, true)
        };
        (Part::RankNd.at(s), boxed.at(s), scratch)
    })
}

/// The 1-d correlation kernel for compute dtype `dtype` (float32 or float64).
pub fn correlate1d(dtype: usize) -> Option<crate::registry::Kernel> {
    slot(dtype).map(|s| Part::Correlate1d.at(s))
}

/// The n-d correlation kernels for compute dtype `dtype` (float32 or float64): the
/// edges' and the interior box's.
pub fn correlate(dtype: usize) -> Option<(crate::registry::Kernel, crate::registry::Kernel)> {
    slot(dtype).map(|s| (Part::CorrelateNd.at(s), Part::CorrelateBox.at(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SciPy's extension of a line, built by repeating its reflection (or wrap) one
    /// period at a time: the reference `map_coord` must match for any distance.
    fn extended(n: i64, mode: Mode) -> impl Fn(i64) -> Option<i64> {
        move |c| {
            let period: Vec<i64> = match mode {
                Mode::Reflect => (0..n).chain((0..n).rev()).collect(),
                Mode::Mirror if n == 1 => vec![0],
                Mode::Mirror => (0..n).chain((1..n - 1).rev()).collect(),
                Mode::Wrap => (0..n).collect(),
                Mode::Nearest => return Some(c.clamp(0, n - 1)),
                Mode::Constant => return (0..n).contains(&c).then_some(c),
            };
            Some(period[c.rem_euclid(period.len() as i64) as usize])
        }
    }

    #[test]
    fn coordinates_map_as_scipy_extends_lines() {
        for mode in [Mode::Reflect, Mode::Constant, Mode::Nearest, Mode::Mirror, Mode::Wrap] {
            for n in 1..7 {
                let want = extended(n, mode);
                for c in -40..40 {
                    assert_eq!(map_coord(c, n, mode), want(c), "{mode:?} n={n} c={c}");
                }
            }
        }
        // SciPy's own examples (ndimage docs, "abcd" extended by 3 on each side).
        let line = |mode| -> Vec<i64> { (-3..7).map(|c| map_coord(c, 4, mode).unwrap()).collect() };
        assert_eq!(line(Mode::Reflect), [2, 1, 0, 0, 1, 2, 3, 3, 2, 1]);
        assert_eq!(line(Mode::Mirror), [3, 2, 1, 0, 1, 2, 3, 2, 1, 0]);
        assert_eq!(line(Mode::Wrap), [1, 2, 3, 0, 1, 2, 3, 0, 1, 2]);
        assert_eq!(line(Mode::Nearest), [0, 0, 0, 0, 1, 2, 3, 3, 3, 3]);
    }

    #[test]
    fn codes_round_trip() {
        for mode in [Mode::Reflect, Mode::Constant, Mode::Nearest, Mode::Mirror, Mode::Wrap] {
            assert_eq!(Mode::from_code(mode as u32), mode);
        }
    }
}
