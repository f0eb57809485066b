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

pub mod boundary;
pub mod select;
pub mod stencil;
pub mod stream;
pub mod vstream;

pub use boundary::{Mode, map_coord};

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
#[cfg(all(target_arch = "nvptx64", feature = "filters"))]
mod gpu_stream;
#[cfg(all(target_arch = "nvptx64", feature = "filters"))]
mod gpu_vstream;

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
        /// Dense 2-d correlation by tiles (`stencil.rs`).
        Stencil2d = crate::for_each_filter_type!(type_names, "gpupy_stencil2d_"),
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
        /// Dense 2-d correlation by streaming warps, 3x3 (`stream.rs`).
        Stream3 = crate::for_each_filter_type!(type_names, "gpupy_stream2d_3_"),
        /// Dense 2-d correlation by vector-streaming warps, 3x3, 5x5, 7x7 (`vstream.rs`).
        VStream3 = crate::for_each_filter_type!(type_names, "gpupy_vstream2d_3_"),
        VStream5 = crate::for_each_filter_type!(type_names, "gpupy_vstream2d_5_"),
        VStream7 = crate::for_each_filter_type!(type_names, "gpupy_vstream2d_7_"),
        /// Tiled 2-d minimum or maximum of at most 49 taps (`stencil::OrderTile`).
        ExtremeTile = crate::for_each_order_type!(type_names, "gpupy_extreme_tile_"),
        /// Tiled 2-d rank selection of at most 9 taps.
        RankTile9 = crate::for_each_order_type!(type_names, "gpupy_rank_tile9_"),
        /// Tiled 2-d rank selection of at most 25 taps.
        RankTile25 = crate::for_each_order_type!(type_names, "gpupy_rank_tile25_"),
        /// Tiled 2-d rank selection of at most 49 taps.
        RankTile49 = crate::for_each_order_type!(type_names, "gpupy_rank_tile49_"),
        /// Tiled 2-d median of exactly 25 taps (`select::median25`).
        MedianTile25 = crate::for_each_order_type!(type_names, "gpupy_median_tile25_"),
        /// Tiled 2-d median of exactly 49 taps (`select::median49`).
        MedianTile49 = crate::for_each_order_type!(type_names, "gpupy_median_tile49_"),
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
/// with whether the box kernel uses scratch. (A 49-tap box kernel, as the tiles have,
/// took a 344-byte stack frame: its window's registers are not all constant-indexed.)
pub fn rank(
    dtype: usize,
    ntaps: usize,
) -> Option<(crate::registry::Kernel, crate::registry::Kernel, bool)> {
    let [nine, twenty_five, _] = select::REGISTER_TIERS;
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

/// The tiled 2-d order kernel for order dtype `dtype` and `ntaps <= ORDER_TAPS` taps:
/// minimum/maximum (`rank == false`) or rank selection.
pub fn order_tile(dtype: usize, ntaps: usize, rank: bool) -> Option<crate::registry::Kernel> {
    let [nine, twenty_five, _] = select::REGISTER_TIERS;
    let part = match (rank, ntaps <= nine, ntaps <= twenty_five) {
        (false, _, _) => Part::ExtremeTile,
        (true, true, _) => Part::RankTile9,
        (true, false, true) => Part::RankTile25,
        (true, false, false) => Part::RankTile49,
    };
    (ntaps <= stencil::ORDER_TAPS)
        .then(|| order_slot(dtype).map(|s| part.at(s)))
        .flatten()
}

/// The tiled 2-d median of 25 taps (rank 12) or 49 taps (rank 24) for order dtype
/// `dtype` (forgetful selection); `None` for other windows.
pub fn median_tile(dtype: usize, ntaps: usize) -> Option<crate::registry::Kernel> {
    let part = match ntaps {
        25 => Part::MedianTile25,
        49 => Part::MedianTile49,
        _ => return None,
    };
    order_slot(dtype).map(|s| part.at(s))
}

/// The 1-d correlation kernel for compute dtype `dtype` (float32 or float64).
pub fn correlate1d(dtype: usize) -> Option<crate::registry::Kernel> {
    slot(dtype).map(|s| Part::Correlate1d.at(s))
}

/// The tiled dense 2-d correlation kernel for compute dtype `dtype`.
pub fn stencil2d(dtype: usize) -> Option<crate::registry::Kernel> {
    slot(dtype).map(|s| Part::Stencil2d.at(s))
}

/// The streaming dense 2-d correlation kernel of `k x k` weights (`stream::STREAM_SIZES`)
/// for compute dtype `dtype`.
pub fn stream2d(dtype: usize, k: u32) -> Option<crate::registry::Kernel> {
    let part = match k {
        3 => Part::Stream3,
        _ => return None,
    };
    slot(dtype).map(|s| part.at(s))
}

/// The vector-streaming dense 2-d correlation kernel of `k x k` weights
/// (`vstream::VSTREAM_SIZES`) for compute dtype `dtype`.
pub fn vstream2d(dtype: usize, k: u32) -> Option<crate::registry::Kernel> {
    let part = match k {
        3 => Part::VStream3,
        5 => Part::VStream5,
        7 => Part::VStream7,
        _ => return None,
    };
    slot(dtype).map(|s| part.at(s))
}

/// The n-d correlation kernels for compute dtype `dtype` (float32 or float64): the
/// edges' and the interior box's.
pub fn correlate(dtype: usize) -> Option<(crate::registry::Kernel, crate::registry::Kernel)> {
    slot(dtype).map(|s| (Part::CorrelateNd.at(s), Part::CorrelateBox.at(s)))
}
