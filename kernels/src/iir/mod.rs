//! Recursive (IIR) filters: SciPy's `signal.lfilter` (direct form II transposed, any
//! order, with initial states) and `signal.sosfilt` (cascades of second-order sections),
//! along one axis of a C-contiguous array seen as (outer, len, inner): `outer * inner`
//! independent lines of `len` samples, `inner` apart.
//!
//! The meaning: [`cascade`] (the recursion, one step per sample, states in registers),
//! [`chunks`] (the algebra that lets one line be filtered in many pieces at once) and
//! [`sample`] (the arithmetic of the four compute types: float32, float64, complex64,
//! complex128). Engines, chosen by the host:
//!
//! - `lines` / `strided` (many lines): a thread per line walks it sample by sample, the
//!   states in registers. Contiguous lines (`inner == 1`) are staged through shared
//!   memory in tiles (a block's lines are read and written in coalesced rows, each
//!   thread then walks its own line in the tile); lines `inner > 1` apart are read in
//!   place, neighbouring threads on neighbouring lines.
//! - `chunk0`, `carry`, `chunk1` (few long lines): the chunk scan of [`chunks`].
//! - `fir` / `fir_final`: SciPy's convolution path (`a = [1]`) has no recursion: a thread
//!   per output sums its taps (any number), and a thread per final state.
//! - `scratch`: an order above [`MAX_STATES`] with feedback, a thread per line with its
//!   states in global memory (the `zf` buffer).
//!
//! The register engines are stamped per [`Shape`]: one section of order 2, 4, 8 or 16
//! (`lfilter`; lower orders run padded with zeros) or 2, 4 or 8 second-order sections
//! (`sosfilt`; fewer sections run in a larger shape, skipping the rest).

pub mod cascade;
pub mod chunks;
pub mod sample;

pub use cascade::{COEF_SLOTS, Coefs, MAX_STATES};
pub use chunks::{BLOCK, ChunkPlan, LEVELS, TABLE_MATRICES};

/// The register shapes: (name, sections `S`, order `K` of each), `S * K <= 16`.
#[macro_export]
macro_rules! for_each_iir_shape {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*] ("o2", 1, 2) ("o4", 1, 4) ("o8", 1, 8) ("o16", 1, 16) ("s2", 2, 2) ("s4", 4, 2) ("s8", 8, 2) }
    };
}

/// The compute types, in slot order.
#[macro_export]
macro_rules! for_each_iir_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] f32 f64 c64 c128 } };
}

/// A register shape of the recursive kernels (see the module comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    O2,
    O4,
    O8,
    O16,
    S2,
    S4,
    S8,
}

impl Shape {
    pub const ALL: [Shape; 7] = [
        Shape::O2,
        Shape::O4,
        Shape::O8,
        Shape::O16,
        Shape::S2,
        Shape::S4,
        Shape::S8,
    ];

    /// Sections `S` and the order `K` of each.
    pub const fn dims(self) -> (usize, usize) {
        match self {
            Shape::O2 => (1, 2),
            Shape::O4 => (1, 4),
            Shape::O8 => (1, 8),
            Shape::O16 => (1, 16),
            Shape::S2 => (2, 2),
            Shape::S4 => (4, 2),
            Shape::S8 => (8, 2),
        }
    }

    /// States `S * K`.
    pub const fn states(self) -> usize {
        let (s, k) = self.dims();
        s * k
    }

    /// The smallest shape for one section of `order` (1 to 16).
    pub fn for_order(order: usize) -> Option<Shape> {
        match order {
            1..=2 => Some(Shape::O2),
            3..=4 => Some(Shape::O4),
            5..=8 => Some(Shape::O8),
            9..=16 => Some(Shape::O16),
            _ => None,
        }
    }

    /// The smallest shape for `n` second-order sections (1 to 8).
    pub fn for_sections(n: usize) -> Option<Shape> {
        match n {
            1 => Some(Shape::O2),
            2 => Some(Shape::S2),
            3..=4 => Some(Shape::S4),
            5..=8 => Some(Shape::S8),
            _ => None,
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// Index of the carry kernel for this shape's state count.
    fn carry_index(self) -> usize {
        match self.states() {
            2 => 0,
            4 => 1,
            8 => 2,
            _ => 3,
        }
    }
}

/// The register engines' carry kernels take the state count only: one per count.
#[macro_export]
macro_rules! for_each_iir_carry {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*] ("d2", 1, 2) ("d4", 1, 4) ("d8", 1, 8) ("d16", 1, 16) }
    };
}

/// A launch of the line engines (`lines`, `strided`): `lines = outer * inner` lines of
/// `len` samples in a C-contiguous (outer, len, inner) input and output. Initial and
/// final states, when given, are C-contiguous (outer, zdim, inner) arrays: this launch's
/// state `i < zcount` of a line is state `zfirst + i` along their middle axis (a cascade
/// of many sections runs in groups, each its own launch); states `zcount..` start at
/// zero.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LineArgs<T> {
    pub lines: u64,
    pub len: u64,
    pub inner: u64,
    pub zdim: u64,
    pub zfirst: u32,
    pub zcount: u32,
    /// Sections in use (at most the shape's `S`).
    pub nsec: u32,
    pub _pad: u32,
    pub coef: Coefs<T>,
}

/// A launch of the long-line engine (`chunk0`, `carry`, `chunk1`): `lines` contiguous
/// lines of `len` samples cut as [`ChunkPlan`] says; states as in [`LineArgs`] with
/// `inner = 1`. Scratch buffers: `prefix` (`lines * chunks` state vectors of the shape's
/// `S * K` states: each chunk's exclusive prefix), `agg` (`lines * (blocks + 1)` vectors:
/// block `j`'s total goes to slot `j + 1`, the carry leaves block `j`'s initial state in
/// slot `j`), `table` ([`TABLE_MATRICES`] matrices, `chunks::table`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ChunkArgs<T> {
    pub lines: u64,
    pub len: u64,
    pub chunk: u64,
    pub chunks: u64,
    pub blocks: u64,
    pub per_thread: u64,
    pub zdim: u64,
    pub zfirst: u32,
    pub zcount: u32,
    pub nsec: u32,
    pub _pad: u32,
    pub coef: Coefs<T>,
}

/// A filter without feedback over a C-contiguous (outer, len, inner) array: `n` outputs
/// (`fir`: `outer * len * inner`; `fir_final`: `outer * zdim * inner` final states),
/// `taps` coefficients `b` (device memory), `zdim` states (`taps - 1`, or more when `a`
/// was longer) in (outer, zdim, inner) arrays.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct FirArgs {
    pub n: u64,
    pub len: u64,
    pub inner: u64,
    pub taps: u64,
    pub zdim: u64,
}

/// A recursion of `order` states (any number) over `lines = outer * inner` lines, the
/// states in the (outer, order, inner) array `z` (initial states in, final states out);
/// `b` and the negated `a[1..]` (`order + 1` and `order` values) in device memory.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ScratchArgs {
    pub lines: u64,
    pub len: u64,
    pub inner: u64,
    pub order: u64,
}

/// Samples of a line each thread holds per tile of the staging buffer: 32, or 16 for
/// complex128 (whose tile would not fit 48 KiB otherwise).
pub const fn tile(elem_bytes: usize) -> usize {
    if elem_bytes >= 16 { 16 } else { 32 }
}

/// Bytes of dynamic shared memory of a `lines`, `chunk0` or `chunk1` launch (the tile,
/// padded by one sample per line against bank conflicts; the block scan reuses it), and
/// of a `carry` launch (one state vector per thread).
pub const fn line_shared_bytes(elem_bytes: usize) -> u32 {
    (BLOCK * (tile(elem_bytes) + 1) * elem_bytes) as u32
}
pub const fn carry_shared_bytes(elem_bytes: usize, states: usize) -> u32 {
    (BLOCK * states * elem_bytes) as u32
}

#[cfg(all(target_arch = "nvptx64", feature = "iir"))]
mod gpu;

macro_rules! shape_names {
    ([$kind:literal] $(($shape:literal, $s:literal, $k:literal))*) => {
        &[$(
            concat!("gpupy_iir_", $kind, "_", $shape, "_f32"),
            concat!("gpupy_iir_", $kind, "_", $shape, "_f64"),
            concat!("gpupy_iir_", $kind, "_", $shape, "_c64"),
            concat!("gpupy_iir_", $kind, "_", $shape, "_c128"),
        )*]
    };
}

macro_rules! type_names {
    ([$prefix:literal] $($t:ident)*) => { &[$(concat!($prefix, stringify!($t))),*] };
}

crate::module_parts! {
    /// The parts of the recursive-filter module; each shape's entries in type order.
    Part in Iir {
        /// A thread per contiguous line, staged in tiles (`for_each_iir_shape!`).
        Lines = crate::for_each_iir_shape!(shape_names, "lines"),
        /// A thread per line of a non-unit stride.
        Strided = crate::for_each_iir_shape!(shape_names, "strided"),
        /// Long lines, pass 1: chunks from zero, block scans.
        Chunk0 = crate::for_each_iir_shape!(shape_names, "chunk0"),
        /// Long lines, pass 3: chunks from their true states.
        Chunk1 = crate::for_each_iir_shape!(shape_names, "chunk1"),
        /// Long lines, pass 2: the blocks' states (`for_each_iir_carry!`).
        Carry = crate::for_each_iir_carry!(shape_names, "carry"),
        /// Filters without feedback: the outputs (`for_each_iir_type!`).
        Fir = crate::for_each_iir_type!(type_names, "gpupy_iir_fir_"),
        /// Filters without feedback: the final states.
        FirFinal = crate::for_each_iir_type!(type_names, "gpupy_iir_fir_final_"),
        /// Recursions above `MAX_STATES` states, the states in global memory.
        Scratch = crate::for_each_iir_type!(type_names, "gpupy_iir_scratch_"),
    }
}

/// Slot of a compute type (`f32`, `f64`, `c64`, `c128`) in each part.
fn slot(dtype: usize) -> Option<usize> {
    use crate::dtype::{DTypeIndex, c64, c128};
    [
        <f32 as DTypeIndex>::INDEX,
        <f64 as DTypeIndex>::INDEX,
        <c64 as DTypeIndex>::INDEX,
        <c128 as DTypeIndex>::INDEX,
    ]
    .iter()
    .position(|&d| d == dtype)
}

/// The kernels of the register engines for `shape` and compute dtype `dtype`.
#[derive(Clone, Copy, Debug)]
pub struct ShapeKernels {
    pub lines: crate::registry::Kernel,
    pub strided: crate::registry::Kernel,
    pub chunk0: crate::registry::Kernel,
    pub chunk1: crate::registry::Kernel,
    pub carry: crate::registry::Kernel,
}

/// The register-engine kernels of `shape` for compute dtype `dtype` (float32, float64,
/// complex64 or complex128).
pub fn shape_kernels(shape: Shape, dtype: usize) -> Option<ShapeKernels> {
    slot(dtype).map(|t| {
        let at = shape.index() * 4 + t;
        ShapeKernels {
            lines: Part::Lines.at(at),
            strided: Part::Strided.at(at),
            chunk0: Part::Chunk0.at(at),
            chunk1: Part::Chunk1.at(at),
            carry: Part::Carry.at(shape.carry_index() * 4 + t),
        }
    })
}

/// The feedback-free kernels (outputs, final states) for compute dtype `dtype`.
pub fn fir(dtype: usize) -> Option<(crate::registry::Kernel, crate::registry::Kernel)> {
    slot(dtype).map(|t| (Part::Fir.at(t), Part::FirFinal.at(t)))
}

/// The kernel of recursions above `MAX_STATES` states for compute dtype `dtype`.
pub fn scratch(dtype: usize) -> Option<crate::registry::Kernel> {
    slot(dtype).map(|t| Part::Scratch.at(t))
}

#[cfg(not(target_arch = "nvptx64"))]
/// The one-step zero-input matrix of a cascade of `shape` with coefficients `c` (its
/// first `nsec` sections), for the host's chunk tables: `chunks::zero_input_matrix` for
/// the shape's `S` and `K`.
pub fn zero_input_matrix(
    shape: Shape,
    c: &Coefs<crate::dtype::c128>,
    nsec: usize,
) -> Vec<crate::dtype::c128> {
    macro_rules! dispatch {
        ([] $(($name:literal, $s:literal, $k:literal))*) => {
            match shape.dims() {
                $(($s, $k) => chunks::zero_input_matrix::<$s, $k>(c, nsec),)*
                _ => unreachable!("every shape is listed"),
            }
        };
    }
    crate::for_each_iir_shape!(dispatch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Module;

    #[test]
    fn handles_name_their_kernels() {
        for (t, name) in ["f32", "f64", "c64", "c128"].iter().enumerate() {
            let dtype = [
                <f32 as crate::dtype::DTypeIndex>::INDEX,
                <f64 as crate::dtype::DTypeIndex>::INDEX,
                <crate::dtype::c64 as crate::dtype::DTypeIndex>::INDEX,
                <crate::dtype::c128 as crate::dtype::DTypeIndex>::INDEX,
            ][t];
            for (shape, sname) in Shape::ALL
                .iter()
                .zip(["o2", "o4", "o8", "o16", "s2", "s4", "s8"])
            {
                let k = shape_kernels(*shape, dtype).unwrap();
                assert_eq!(k.lines.module, Module::Iir);
                assert_eq!(
                    KERNELS[k.lines.index as usize],
                    format!("gpupy_iir_lines_{sname}_{name}")
                );
                assert_eq!(
                    KERNELS[k.strided.index as usize],
                    format!("gpupy_iir_strided_{sname}_{name}")
                );
                assert_eq!(
                    KERNELS[k.chunk0.index as usize],
                    format!("gpupy_iir_chunk0_{sname}_{name}")
                );
                assert_eq!(
                    KERNELS[k.chunk1.index as usize],
                    format!("gpupy_iir_chunk1_{sname}_{name}")
                );
                let d = shape.states();
                assert_eq!(
                    KERNELS[k.carry.index as usize],
                    format!("gpupy_iir_carry_d{d}_{name}")
                );
            }
            let (f, ff) = fir(dtype).unwrap();
            assert_eq!(KERNELS[f.index as usize], format!("gpupy_iir_fir_{name}"));
            assert_eq!(
                KERNELS[ff.index as usize],
                format!("gpupy_iir_fir_final_{name}")
            );
            assert_eq!(
                KERNELS[scratch(dtype).unwrap().index as usize],
                format!("gpupy_iir_scratch_{name}")
            );
        }
        assert!(shape_kernels(Shape::O2, <i64 as crate::dtype::DTypeIndex>::INDEX).is_none());
    }

    #[test]
    fn shapes_hold_their_filters() {
        for order in 1..=16 {
            let s = Shape::for_order(order).unwrap();
            assert!(s.dims().0 == 1 && s.dims().1 >= order);
            assert!(s.dims().0 * (2 * s.dims().1 + 1) <= COEF_SLOTS);
        }
        for n in 1..=8 {
            let s = Shape::for_sections(n).unwrap();
            assert!(s.dims().1 == 2 && s.dims().0 >= n && s.states() <= MAX_STATES);
            assert!(s.dims().0 * 5 <= COEF_SLOTS);
        }
        assert!(Shape::for_order(17).is_none() && Shape::for_sections(9).is_none());
        // The launch structs fit the launch builder's 1 KiB of parameters with the
        // pointers (seven at most).
        assert!(core::mem::size_of::<ChunkArgs<crate::dtype::c128>>() + 7 * 8 <= 1024);
        assert!(line_shared_bytes(16) <= 48 * 1024 && line_shared_bytes(8) <= 48 * 1024);
        assert!(carry_shared_bytes(16, 16) <= line_shared_bytes(16));
    }
}
