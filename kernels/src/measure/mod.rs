//! Measurements on labelled images (`scipy.ndimage`'s `label`, `find_objects`, the
//! extremes by label) and the exact Euclidean distance transform
//! (`distance_transform_edt`). The meaning of each is plain Rust in its own file,
//! tested on the CPU:
//!
//! - [`union_find`]: connected components by lock-free union-find over element indices,
//!   each component's root its first element, so ranking the roots numbers the
//!   components in SciPy's order;
//! - [`objects`]: bounding boxes of labels, a box update per stretch of one label;
//! - [`extrema`]: the smallest and largest value of each label and their first
//!   positions, by order-preserving integer keys;
//! - [`edt`]: SciPy's feature transform, pass by pass along each axis, a line per
//!   thread;
//! - [`grid`]: coordinates and neighbours on grids of any number of axes.
//!
//! Sums, means and variances by label are gpupy's `bincount` (float64 atomics), and
//! the rest of SciPy's measurements are compositions in Python
//! (`gpupyx/scipy/ndimage/_measurements.py`).

pub mod edt;
pub mod extrema;
pub mod grid;
pub mod objects;
pub mod union_find;

/// Threads per block of the element-wise measure kernels.
pub const MEASURE_BLOCK: u32 = 256;
/// Consecutive elements a thread takes in the bounding-box and extreme kernels.
pub const RUN: u64 = 16;
/// Most axes of a distance transform (each thread keeps a feature, `EDT_DIMS` integers,
/// in registers; the host drops axes of extent 1 beyond it).
pub const EDT_DIMS: usize = 8;

/// A labelling pass over a C-contiguous grid of `n` elements: `ndim` axes (a table of
/// `grid::Axis`, innermost first) and `neighbours` earlier neighbours (a table of
/// `grid::Neighbour`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LabelArgs {
    pub n: u64,
    pub ndim: u32,
    pub neighbours: u32,
}

/// The bounding boxes of labels `1..=max_label` over a C-contiguous grid of `n`
/// elements and `ndim` axes (a `grid::Axis` table, innermost first).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct BoxArgs {
    pub n: u64,
    pub max_label: u64,
    pub ndim: u32,
    pub _pad: u32,
}

/// Extremes of `n` values by slot (`0..slots`; other slots are ignored).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SlotArgs {
    pub n: u64,
    pub slots: u64,
}

/// A pass of the feature transform along `axis` (C order) of a C-contiguous grid of
/// `shape` (C order, `R` axes, the kernel's rank): `lines` lines of `len` elements;
/// features are `R` planes of `n` `i32`. Also the distance kernel's arguments (`axis`,
/// `lines` and `len` unused), with `magic`/`shift` the fast divisors of `shape`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EdtArgs {
    pub n: u64,
    pub lines: u64,
    pub len: u64,
    pub axis: u32,
    pub _pad: u32,
    pub shape: [u64; EDT_DIMS],
    pub magic: [u32; EDT_DIMS],
    pub shift: [u32; EDT_DIMS],
    pub sampling: [f64; EDT_DIMS],
}

#[cfg(all(target_arch = "nvptx64", feature = "measure"))]
mod gpu;

/// The parent-link widths of the labelling kernels: `u32` below 2^32 - 1 elements.
#[macro_export]
macro_rules! for_each_link_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] u32 u64 } };
}

/// The label dtypes `label` writes (int32, or int64 for 2^31 - 2 elements and more)
/// and `find_objects` reads directly (other integers are widened to int64).
#[macro_export]
macro_rules! for_each_label_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] i32 i64 } };
}

/// The value types of the extreme kernels (the host widens others exactly).
#[macro_export]
macro_rules! for_each_key_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] i64 u64 f64 } };
}

/// The ranks of the distance kernels.
#[macro_export]
macro_rules! for_each_edt_rank {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] 1 2 3 4 5 6 7 8 } };
}

macro_rules! names {
    ([$prefix:literal] $($t:tt)*) => { &[$(concat!($prefix, stringify!($t))),*] };
}

/// `gpupy_label_number_<link>_<label>` for every link and label type.
macro_rules! number_names {
    ([] $($l:ident)*) => { &[$(
        concat!("gpupy_label_number_", stringify!($l), "_i32"),
        concat!("gpupy_label_number_", stringify!($l), "_i64"),
    )*] };
}

crate::module_parts! {
    /// The parts of the measure module.
    Part in Measure {
        /// Labelling step 1, first parents (`for_each_link_type!`).
        LabelInit = crate::for_each_link_type!(names, "gpupy_label_init_"),
        /// Labelling step 2, unions with the earlier neighbours.
        LabelLink = crate::for_each_link_type!(names, "gpupy_label_link_"),
        /// Labelling step 3, every parent its root, and a flag per root.
        LabelFlatten = crate::for_each_link_type!(names, "gpupy_label_flatten_"),
        /// Labelling step 4, each element its root's rank (link type x label type).
        LabelNumber = crate::for_each_link_type!(number_names),
        /// Bounding boxes (`for_each_label_type!`).
        Boxes = crate::for_each_label_type!(names, "gpupy_find_objects_"),
        /// Extreme keys by slot (`for_each_key_type!`).
        Keys = crate::for_each_key_type!(names, "gpupy_label_keys_"),
        /// First positions of the extreme keys by slot.
        Firsts = crate::for_each_key_type!(names, "gpupy_label_firsts_"),
        /// Feature transform, pass 0 from the input (`for_each_edt_rank!`).
        EdtFirst = crate::for_each_edt_rank!(names, "gpupy_edt_first_r"),
        /// Feature transform, passes 1.. (rank 1 has none; its slot is unused).
        EdtPass = crate::for_each_edt_rank!(names, "gpupy_edt_pass_r"),
        /// Distances from the features.
        EdtDistance = crate::for_each_edt_rank!(names, "gpupy_edt_distance_r"),
    }
}

/// Slot of a parent-link width in the labelling parts.
fn link_slot(wide: bool) -> usize {
    wide as usize
}

/// The labelling kernels for a grid of `n` elements: (init, link, flatten, number) with
/// parent links of 32 bits below 2^32 - 1 elements (`wide` false), and the number kernel
/// writing int64 labels when `int64`.
pub fn label(wide: bool, int64: bool) -> [crate::registry::Kernel; 4] {
    let s = link_slot(wide);
    [
        Part::LabelInit.at(s),
        Part::LabelLink.at(s),
        Part::LabelFlatten.at(s),
        Part::LabelNumber.at(2 * s + int64 as usize),
    ]
}

/// Whether a labelling of `n` elements needs 64-bit parent links (indices up to
/// `n - 1` and the background mark `u32::MAX` must fit).
pub const fn wide_links(n: u64) -> bool {
    n >= u32::MAX as u64
}

/// The bounding-box kernel for labels of dtype `dtype` (int32 or int64).
pub fn boxes(dtype: usize) -> Option<crate::registry::Kernel> {
    use crate::dtype::DTypeIndex;
    [<i32 as DTypeIndex>::INDEX, <i64 as DTypeIndex>::INDEX]
        .iter()
        .position(|&d| d == dtype)
        .map(|s| Part::Boxes.at(s))
}

/// The extreme kernels (keys, first positions) for values of dtype `dtype` (int64,
/// uint64 or float64).
pub fn extremes(dtype: usize) -> Option<(crate::registry::Kernel, crate::registry::Kernel)> {
    use crate::dtype::DTypeIndex;
    [
        <i64 as DTypeIndex>::INDEX,
        <u64 as DTypeIndex>::INDEX,
        <f64 as DTypeIndex>::INDEX,
    ]
    .iter()
    .position(|&d| d == dtype)
    .map(|s| (Part::Keys.at(s), Part::Firsts.at(s)))
}

/// The feature-transform kernels of rank `rank` (1..=EDT_DIMS): (pass 0, later passes,
/// distances). Rank 1 has no later pass (its handle is never launched).
pub fn edt(
    rank: usize,
) -> Option<(
    crate::registry::Kernel,
    crate::registry::Kernel,
    crate::registry::Kernel,
)> {
    (1..=EDT_DIMS).contains(&rank).then(|| {
        let s = rank - 1;
        (
            Part::EdtFirst.at(s),
            Part::EdtPass.at(s),
            Part::EdtDistance.at(s),
        )
    })
}
