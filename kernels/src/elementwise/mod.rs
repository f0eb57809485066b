//! The elementwise family: ufuncs (unary and binary, every loop of `table.rs`), casts
//! between every pair of dtypes, copies and fills by item size, and `arange`.
//!
//! - `ops/`: what each op means per dtype (plain Rust, tested on the CPU);
//! - `arange`: NumPy's arithmetic-sequence formula (CPU-tested);
//! - `gpu/`: the kernels (packed contiguous, row and strided variants) and their entry
//!   points, compiled for the GPU only;
//! - here: the module's kernel table and the handles the host launches by.

pub mod arange;
pub mod ops;

#[cfg(all(target_arch = "nvptx64", feature = "elementwise"))]
mod gpu;

use crate::dtype::{DTypeIndex, NDTYPES, bf16, c64, c128};
use crate::loops::{BINARY_LOOPS, UNARY_LOOPS, loop_slots};
use crate::registry::by_key;

/// `$prefix<op>_<dtype>$suffix` for every loop of an op table, op by op.
macro_rules! loop_names {
    ([$prefix:literal $suffix:literal] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => {
        &[$($(concat!($prefix, stringify!($op), "_", stringify!($ty), $suffix),)*)*]
    };
}

/// `gpupy_cast_<from>_<to>$suffix` for every pair of dtypes, `from`-major.
macro_rules! cast_names {
    ([$suffix:literal] $(($D:ident, $from:ident))*) => {
        &[$(crate::for_each_dtype!(cast_names_to, $from, $suffix)),*]
    };
}
macro_rules! cast_names_to {
    ([$from:ident $suffix:literal] $(($D:ident, $to:ident))*) => {
        &[$(concat!("gpupy_cast_", stringify!($from), "_", stringify!($to), $suffix)),*]
    };
}

macro_rules! size_names {
    ([$prefix:literal $suffix:literal] $(($bytes:literal, $ty:ident))*) => {
        &[$(concat!($prefix, stringify!($bytes), $suffix)),*]
    };
}

/// The element types with an `arange` kernel (every dtype but bool and bfloat16), and
/// the dtype index each serves.
#[macro_export]
macro_rules! for_each_arange_type {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*] i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128 }
    };
}
macro_rules! arange_names {
    ([] $($t:ident)*) => { &[$(concat!("gpupy_arange_", stringify!($t))),*] };
}
macro_rules! arange_keys {
    ([] $($t:ident)*) => { &[$(<$t as DTypeIndex>::INDEX),*] };
}

const CAST_CONTIG: &[&[&str]] = crate::for_each_dtype!(cast_names, "_contig");
const CAST_STRIDED: &[&[&str]] = crate::for_each_dtype!(cast_names, "_strided");

crate::module_parts! {
    /// The parts of the elementwise module.
    Part in Elementwise {
        /// Binary loops, two contiguous arrays (`table.rs` order: op, then dtype).
        BinaryVv = crate::for_each_binary_op!(loop_names, "gpupy_", "_vv"),
        /// Binary loops, a contiguous array and a scalar.
        BinaryVs = crate::for_each_binary_op!(loop_names, "gpupy_", "_vs"),
        /// Binary loops, any strides.
        BinaryStrided = crate::for_each_binary_op!(loop_names, "gpupy_", "_strided"),
        /// Binary loops over rows contiguous or broadcast in every operand.
        BinaryRows = crate::for_each_binary_op!(loop_names, "gpupy_", "_rows"),
        /// Unary loops, contiguous.
        UnaryContig = crate::for_each_unary_op!(loop_names, "gpupy_", "_contig"),
        /// Unary loops, any strides.
        UnaryStrided = crate::for_each_unary_op!(loop_names, "gpupy_", "_strided"),
        /// Casts, contiguous, `from * NDTYPES + to`.
        CastContig = &crate::registry::concat::<{ NDTYPES * NDTYPES }>(CAST_CONTIG),
        /// Casts, any strides.
        CastStrided = &crate::registry::concat::<{ NDTYPES * NDTYPES }>(CAST_STRIDED),
        /// Strided copies by item size (`for_each_item_size!` order).
        Copy = crate::for_each_item_size!(size_names, "gpupy_copy_", "_strided"),
        /// Fills by item size.
        Fill = crate::for_each_item_size!(size_names, "gpupy_fill_", ""),
        /// `arange` by element type (`for_each_arange_type!` order).
        Arange = crate::for_each_arange_type!(arange_names),
    }
}

const BINARY_SLOTS: [[u16; NDTYPES]; BINARY_LOOPS.len()] = loop_slots(BINARY_LOOPS);
const UNARY_SLOTS: [[u16; NDTYPES]; UNARY_LOOPS.len()] = loop_slots(UNARY_LOOPS);
const ARANGE_SLOTS: [u16; NDTYPES] = by_key(crate::for_each_arange_type!(arange_keys));

/// Variants of a binary loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryVariant {
    Vv,
    Vs,
    Strided,
    Rows,
}

/// The kernel of binary op `op` (its index in `for_each_binary_op!`) for input dtype
/// `dtype` (its index in `for_each_dtype!`), if the op has that loop.
pub fn binary(op: usize, dtype: usize, variant: BinaryVariant) -> Option<crate::registry::Kernel> {
    let slot = *BINARY_SLOTS.get(op)?.get(dtype)?;
    let part = match variant {
        BinaryVariant::Vv => Part::BinaryVv,
        BinaryVariant::Vs => Part::BinaryVs,
        BinaryVariant::Strided => Part::BinaryStrided,
        BinaryVariant::Rows => Part::BinaryRows,
    };
    (slot != u16::MAX).then(|| part.at(slot as usize))
}

/// The kernel of unary op `op` for input dtype `dtype`; `strided` picks the variant.
pub fn unary(op: usize, dtype: usize, strided: bool) -> Option<crate::registry::Kernel> {
    let slot = *UNARY_SLOTS.get(op)?.get(dtype)?;
    let part = if strided {
        Part::UnaryStrided
    } else {
        Part::UnaryContig
    };
    (slot != u16::MAX).then(|| part.at(slot as usize))
}

/// The cast from dtype `from` to dtype `to`.
pub fn cast(from: usize, to: usize, strided: bool) -> crate::registry::Kernel {
    let part = if strided {
        Part::CastStrided
    } else {
        Part::CastContig
    };
    part.at(from * NDTYPES + to)
}

/// The copy (`fill == false`) or fill kernel for items of `size_index` (an index into
/// `for_each_item_size!`).
pub fn mover(size_index: usize, fill: bool) -> crate::registry::Kernel {
    if fill {
        Part::Fill.at(size_index)
    } else {
        Part::Copy.at(size_index)
    }
}

/// The `arange` kernel for dtype `dtype`, if it has one.
pub fn arange(dtype: usize) -> Option<crate::registry::Kernel> {
    let slot = *ARANGE_SLOTS.get(dtype)?;
    (slot != u16::MAX).then(|| Part::Arange.at(slot as usize))
}

// The complex and bfloat16 types are named in the stamped code through the tables.
#[allow(unused_imports)]
use {bf16 as _, c64 as _, c128 as _};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_name_their_loops() {
        for (op, (name, loops)) in BINARY_LOOPS.iter().enumerate() {
            for l in loops.iter() {
                let ty = crate::loops::DTYPE_NAMES[l.input];
                let k = binary(op, l.input, BinaryVariant::Rows).unwrap();
                assert_eq!(KERNELS[k.index as usize], format!("gpupy_{name}_{ty}_rows"));
            }
        }
        for (op, (name, loops)) in UNARY_LOOPS.iter().enumerate() {
            for l in loops.iter() {
                let ty = crate::loops::DTYPE_NAMES[l.input];
                let k = unary(op, l.input, true).unwrap();
                assert_eq!(
                    KERNELS[k.index as usize],
                    format!("gpupy_{name}_{ty}_strided")
                );
            }
        }
        let names = crate::loops::DTYPE_NAMES;
        let k = cast(3, 12, false);
        assert_eq!(
            KERNELS[k.index as usize],
            format!("gpupy_cast_{}_{}_contig", names[3], names[12])
        );
        assert_eq!(KERNELS[mover(4, true).index as usize], "gpupy_fill_16");
        assert_eq!(
            KERNELS[arange(11).unwrap().index as usize],
            "gpupy_arange_f64"
        );
        assert!(arange(0).is_none());
        assert!(binary(BINARY_LOOPS.len(), 0, BinaryVariant::Vv).is_none());
    }
}
