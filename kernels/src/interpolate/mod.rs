//! Spline interpolation: SciPy's `ndimage.map_coordinates`, `affine_transform`,
//! `shift`, `zoom` and `rotate` (`sample`), and the spline prefilter
//! (`spline_filter1d`/`spline_filter`; [`spline`]).
//!
//! An output's value is a B-spline of order 0 to 5 evaluated at its input coordinate:
//! a weighted sum over a window of `order + 1` taps along each axis, each tap outside
//! the array mapped back in by the boundary mode ([`boundary`]). The arithmetic is
//! SciPy's, operation for operation, in float64 (the coordinates, the weights, the sum,
//! the prefilter's recursion), so results are SciPy's doubles; integer outputs are
//! rounded as SciPy's C code rounds them ([`sample::Store`]).
//!
//! Two engines:
//!
//! - sampling: a thread per output. Its input coordinate comes from a coordinate
//!   array, an affine map or a zoom and shift of its own index ([`Source`]); then each
//!   axis's window ([`sample::axis_taps`]) and the sum. Kernels for 1 to 3 dimensions
//!   (at the orders whose windows fit) keep every window in registers; one kernel for
//!   up to [`INTERP_DIMS`] dimensions and any order keeps them in shared memory.
//! - prefilter: a thread per line along one axis of a C-contiguous float64 array,
//!   filtered in place (the causal and anticausal pass for each pole).

pub mod boundary;
pub mod sample;
pub mod spline;

pub use boundary::Mode;
pub use sample::Store;

/// Most dimensions an interpolation takes (its input; an affine map's output too).
pub const INTERP_DIMS: usize = 8;
/// Threads per block of the register sampling kernels.
pub const INTERP_BLOCK: u32 = 256;
/// The n-d sampling kernel's shared memory: first a header of the launch's per-axis
/// values (five arrays of `INTERP_DIMS` 8-byte words: shape, stride, zoom, shift,
/// oshape), which its loops read at run-time indices; then, per thread, [`nd_slots`]
/// 8-byte slots (slot `s` of thread `t` at `s * blockDim + t`).
pub const ND_HEADER_BYTES: u32 = 5 * INTERP_DIMS as u32 * 8;

/// Slots per thread of the n-d sampling kernel: each axis's weights and tap offsets
/// (`order + 1` each), the output's coordinates (`odim`) and a tap counter per axis.
pub const fn nd_slots(ndim: usize, odim: usize, order: usize) -> usize {
    2 * ndim * (order + 1) + odim + ndim
}

/// Where an output's input coordinate comes from.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `map_coordinates`: `aux` holds `ndim` rows of `n` coordinates (float64, or
    /// float32 with `COORDS_F32`).
    Coordinates = 0,
    /// `affine_transform` with a matrix: `aux` holds `ndim` rows of `odim + 1`
    /// numbers, a row of the matrix and its offset.
    Affine = 1,
    /// `zoom`, `shift`, `affine_transform` with a diagonal: `Interp::zoom` and
    /// `Interp::shift` (as `flags` says).
    ZoomShift = 2,
}

/// `Interp::flags`: the zoom-and-shift map has a zoom, a shift, and zooms about the
/// grid's edge (`grid_mode`); the coordinate array holds float32 (read as doubles, as
/// SciPy reads them), not float64.
pub const HAS_ZOOM: u32 = 1;
pub const HAS_SHIFT: u32 = 2;
pub const GRID_MODE: u32 = 4;
pub const COORDS_F32: u32 = 8;

/// One sampling launch. Outputs are C-contiguous, `n` in all: `n / out_plane` planes
/// (more than one only for `rotate` of more than two dimensions), each of `out_plane`
/// outputs of shape `oshape[..odim]`, read from the plane of `in_plane` input elements
/// at the same position (the input, C-contiguous, is that many planes of
/// `shape[..ndim]`). Per-axis arrays are in axis order (axis 0 first).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interp {
    pub n: u64,
    pub out_plane: u64,
    pub in_plane: u64,
    pub ndim: u32,
    pub odim: u32,
    /// The spline order (the n-d kernel's; the others have their own).
    pub order: u32,
    /// A `Mode` code.
    pub mode: u32,
    /// A `Source` code.
    pub source: u32,
    /// A `Store` code.
    pub store: u32,
    /// `HAS_ZOOM | HAS_SHIFT | GRID_MODE | COORDS_F32`.
    pub flags: u32,
    /// `fast_divisor(out_plane)` (used when `n < 2^31`).
    pub plane_magic: u32,
    pub plane_shift: u32,
    pub _pad: u32,
    /// Samples of padding the prefilter added before each axis (SciPy's `nprepad`).
    pub npad: f64,
    pub cval: f64,
    /// The integer stores' clamps (`Store::range`).
    pub lo: f64,
    pub hi: f64,
    pub shape: [u64; INTERP_DIMS],
    /// Input element strides (C order of `shape`).
    pub stride: [i64; INTERP_DIMS],
    pub oshape: [u64; INTERP_DIMS],
    /// `fast_divisor` of each `oshape` entry (used when `n < 2^31`).
    pub omagic: [u32; INTERP_DIMS],
    pub oshift: [u32; INTERP_DIMS],
    pub zoom: [f64; INTERP_DIMS],
    pub shift: [f64; INTERP_DIMS],
}

/// One prefilter launch: `lines` lines of `len` samples along the middle axis of a
/// C-contiguous float64 (outer, len, inner) array, filtered in place. `len >= 2`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prefilter {
    pub lines: u64,
    pub len: u64,
    pub inner: u64,
    /// `fast_divisor(inner)` (used when `lines < 2^31`).
    pub inner_magic: u32,
    pub inner_shift: u32,
    pub npoles: u32,
    /// A `spline::Init` code.
    pub init: u32,
    pub gain: f64,
    pub poles: [spline::PoleOnLine; 2],
}

#[cfg(not(target_arch = "nvptx64"))]
impl Prefilter {
    /// The launch for lines of `len >= 2` samples (`lines` of them, `inner` apart) of
    /// a spline of `order` (2 to 5) in `mode`.
    pub fn new(order: usize, mode: Mode, lines: u64, len: u64, inner: u64) -> Prefilter {
        let p = spline::poles(order);
        let on_line = |k: usize| {
            p.get(k)
                .map(|&p| spline::PoleOnLine::new(p, len as usize))
                .unwrap_or(spline::PoleOnLine {
                    z: 0.0,
                    z_n: 0.0,
                    z_n_1: 0.0,
                    terms: 0,
                })
        };
        let (inner_magic, inner_shift) = crate::args::fast_divisor(inner);
        Prefilter {
            lines,
            len,
            inner,
            inner_magic,
            inner_shift,
            npoles: p.len() as u32,
            init: spline::Init::of(mode) as u32,
            gain: spline::gain(order),
            poles: [on_line(0), on_line(1)],
        }
    }
}

#[cfg(all(target_arch = "nvptx64", feature = "interpolate"))]
mod gpu;

/// The register sampling kernels: (input type, dimensions, order). They take output
/// planes of at most as many dimensions as the input's. float64 inputs have every
/// order; float32 inputs (read directly, as SciPy reads them) orders 0 and 1, the
/// orders that need no prefilter (which makes float64 coefficients).
#[macro_export]
macro_rules! for_each_sample_kernel {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*]
        (f64 1 0) (f64 1 1) (f64 1 2) (f64 1 3) (f64 1 4) (f64 1 5)
        (f64 2 0) (f64 2 1) (f64 2 2) (f64 2 3) (f64 2 4) (f64 2 5)
        (f64 3 0) (f64 3 1) (f64 3 2) (f64 3 3) (f64 3 4) (f64 3 5)
        (f32 1 0) (f32 1 1) (f32 2 0) (f32 2 1) (f32 3 0) (f32 3 1)
    } };
}

/// The input types of the n-d sampling kernel.
#[macro_export]
macro_rules! for_each_sample_nd_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] f32 f64 } };
}

macro_rules! sample_names {
    ([] $(($t:ident $n:literal $o:literal))*) => {
        &[$(concat!("gpupy_interp_", stringify!($t), "_", stringify!($n), "d_o", stringify!($o))),*]
    };
}

macro_rules! sample_keys {
    ([] $(($t:ident $n:literal $o:literal))*) => {
        &[$((<$t as $crate::dtype::DTypeIndex>::INDEX, $n, $o)),*]
    };
}

macro_rules! type_names {
    ([$prefix:literal] $($t:ident)*) => { &[$(concat!($prefix, stringify!($t))),*] };
}

/// (dtype index, dimensions, order) of each register sampling kernel, in table order.
const SAMPLE_KEYS: &[(usize, usize, usize)] = crate::for_each_sample_kernel!(sample_keys);

crate::module_parts! {
    /// The parts of the interpolate module.
    Part in Interpolate {
        /// Sampling with the window in registers (`for_each_sample_kernel!`).
        Sample = crate::for_each_sample_kernel!(sample_names),
        /// Sampling in up to `INTERP_DIMS` dimensions, any order, the window in shared
        /// memory (`for_each_sample_nd_type!`).
        SampleNd = crate::for_each_sample_nd_type!(type_names, "gpupy_interp_nd_"),
        /// The spline prefilter along one axis, in place (float64).
        Prefilter = &["gpupy_spline_prefilter_f64"],
    }
}

/// The register sampling kernel for input dtype `dtype` in `ndim` dimensions at
/// `order`, if there is one.
pub fn sample(dtype: usize, ndim: usize, order: usize) -> Option<crate::registry::Kernel> {
    SAMPLE_KEYS
        .iter()
        .position(|&k| k == (dtype, ndim, order))
        .map(|i| Part::Sample.at(i))
}

/// The n-d sampling kernel for input dtype `dtype` (float32 or float64).
pub fn sample_nd(dtype: usize) -> Option<crate::registry::Kernel> {
    use crate::dtype::DTypeIndex;
    [<f32 as DTypeIndex>::INDEX, <f64 as DTypeIndex>::INDEX]
        .iter()
        .position(|&d| d == dtype)
        .map(|i| Part::SampleNd.at(i))
}

/// The prefilter kernel.
pub fn prefilter() -> crate::registry::Kernel {
    Part::Prefilter.at(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DTypeIndex;

    #[test]
    fn every_handle_names_its_kernel() {
        let f64i = <f64 as DTypeIndex>::INDEX;
        let f32i = <f32 as DTypeIndex>::INDEX;
        let name = |k: crate::registry::Kernel| KERNELS[k.index as usize];
        assert_eq!(name(sample(f64i, 2, 3).unwrap()), "gpupy_interp_f64_2d_o3");
        assert_eq!(name(sample(f32i, 3, 1).unwrap()), "gpupy_interp_f32_3d_o1");
        assert!(sample(f32i, 2, 3).is_none());
        assert!(sample(f64i, 4, 1).is_none());
        assert_eq!(name(sample_nd(f32i).unwrap()), "gpupy_interp_nd_f32");
        assert_eq!(name(prefilter()), "gpupy_spline_prefilter_f64");
        for o in 0..=5 {
            for n in 1..=3 {
                assert!(sample(f64i, n, o).is_some());
            }
        }
    }

    #[test]
    fn launch_structs_fit_the_parameter_space() {
        // Three pointers beside the struct, under the launch builder's 1 KiB.
        assert!(core::mem::size_of::<Interp>() + 3 * 8 <= 1024);
        assert!(core::mem::size_of::<Prefilter>() + 8 <= 1024);
    }
}
