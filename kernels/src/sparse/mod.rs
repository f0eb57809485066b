//! Sparse matrices in compressed form (CSR; CSC is the CSR of the transpose): the
//! products, conversions and reductions behind `gpupyx.scipy.sparse`.
//!
//! A compressed matrix is `indptr` (`rows + 1` offsets), `indices` (each entry's minor
//! index, `0..cols`) and `data` (its value), with `nnz` entries. Values are `f32`,
//! `f64`, `c64` or `c128` and indices `i32` or `i64`, one pair per kernel (the host
//! converts other dtypes). Every kernel reads `indptr` and `indices` defensively
//! ([`value::row_range`], [`value::Index::column`]): a corrupt matrix gives wrong
//! numbers, never an access outside an allocation.
//!
//! The meaning, on the CPU and tested there:
//! - [`rows`]: groups of lanes per row (the SpMV for rows of similar length, the segment
//!   reductions), and the choice of SpMV schedule from the row-length statistics;
//! - [`merge_path`]: merge-path SpMV for skewed row lengths;
//! - [`hash`]: SpGEMM by a hash table per row (count pass, fill pass);
//! - [`merge`]: elementwise operations of two matrices by merging sorted rows.
//!
//! The kernels (`gpu.rs`), by part (`Sp` is the common launch struct):
//! - `spmv_lanes`, `spmv_search` + `spmv_merge` + `spmv_fixup`: `y = A x`;
//! - `spmm`: `Y = A X` for a C-contiguous `X` of `k` columns (lanes over columns);
//! - `spmm_t`: `Y += A^T X` by atomic adds into a zeroed `Y` (CSC products: a CSC matrix
//!   is the CSR of its transpose, so `csc @ x` is this kernel on the same arrays);
//! - `segment`: sums, maxima, minima (and their positions) over segments of `data`;
//! - `todense`: `out[r, c] += data` over the entries (any output strides);
//! - `expand_rows`: each entry's row (CSR to COO);
//! - `validate`: the format checks of user-given `indptr`/`indices` in one pass
//!   (`VALID_*` flags) and `row_max`, the longest row (the SpMV schedule's statistic);
//! - `spgemm_bound`, `spgemm_count`, `spgemm_fill`: `C = A B`;
//! - `merge_count`, `merge_fill`: `C = op(A, B)` for canonical `A`, `B`.

pub mod hash;
pub mod merge;
pub mod merge_path;
pub mod rows;
pub mod value;

/// Threads per block of the row-wise kernels (a multiple of 32: lane groups and warps
/// never straddle blocks).
pub const SPARSE_BLOCK: u32 = 256;
/// Threads per block of the SpGEMM kernels (a warp per row; the block's shared memory is
/// split between its warps' tables).
pub const SPGEMM_BLOCK: u32 = 128;

/// `validate`'s flags (word 0 of its output; word 1 is `indptr[rows]` as read).
/// `indptr[0] != 0`.
pub const VALID_START: u64 = 1;
/// `indptr[rows] > nnz`.
pub const VALID_LAST_OVER: u64 = 2;
/// `indptr[r] > indptr[r + 1]` for some row.
pub const VALID_DECREASING: u64 = 4;
/// A negative index (among the entries below `indptr[rows]`).
pub const VALID_NEGATIVE: u64 = 8;
/// An index at least `cols`.
pub const VALID_TOO_LARGE: u64 = 16;
/// Not an error: some row's indices are not sorted.
pub const VALID_UNSORTED: u64 = 32;
/// Not an error: some row holds an index twice in a row (sorted rows with duplicates).
pub const VALID_DUPLICATE: u64 = 64;

/// The launch struct of the row-wise kernels.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sp {
    /// Rows of the compressed matrix (its major extent: CSR rows, CSC columns); the
    /// number of segments of `segment`.
    pub rows: u64,
    /// Its minor extent (the range of `indices`).
    pub cols: u64,
    /// Entries: the length of `indices` and `data`.
    pub nnz: u64,
    /// Dense columns of `X` and `Y` (`spmm`, `spmm_t`).
    pub k: u64,
    /// Lanes per row (a power of two, 1 to 32); for `spmm`, lanes per tile of columns.
    pub lanes: u32,
    /// `segment`'s op (`rows::SEG_*`).
    pub op: u32,
}

/// The launch struct of the SpGEMM kernels: `C (rows x cols) = A (rows x inner) B
/// (inner x cols)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spgemm {
    pub rows: u64,
    pub inner: u64,
    pub cols: u64,
    pub a_nnz: u64,
    pub b_nnz: u64,
    /// `C`'s entries (the fill pass's output length).
    pub c_nnz: u64,
    /// Slots of a warp's table in shared memory (a power of two); rows whose table is
    /// larger use global scratch at the offset the host gives.
    pub warp_slots: u64,
}

/// The launch struct of the merge kernels: `C = op(A, B)`, all `rows x cols`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Merge2 {
    pub rows: u64,
    pub cols: u64,
    pub a_nnz: u64,
    pub b_nnz: u64,
    pub c_nnz: u64,
    /// `merge::OP_*`.
    pub op: u32,
    pub _pad: u32,
}

#[cfg(all(target_arch = "nvptx64", feature = "sparse"))]
mod gpu;

/// The (value, index) type pairs of the sparse kernels.
#[macro_export]
macro_rules! for_each_sparse_pair {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*] (f32, i32) (f32, i64) (f64, i32) (f64, i64)
                           (c64, i32) (c64, i64) (c128, i32) (c128, i64) }
    };
}

/// The value types of the sparse kernels.
#[macro_export]
macro_rules! for_each_sparse_value {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] f32 f64 c64 c128 } };
}

/// The index types of the sparse kernels.
#[macro_export]
macro_rules! for_each_sparse_index {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] i32 i64 } };
}

macro_rules! pair_names {
    ([$prefix:literal] $(($v:ident, $i:ident))*) => {
        &[$(concat!($prefix, stringify!($v), "_", stringify!($i))),*]
    };
}
macro_rules! type_names {
    ([$prefix:literal] $($t:ident)*) => { &[$(concat!($prefix, stringify!($t))),*] };
}

crate::module_parts! {
    /// The parts of the sparse module: by (value, index) pair (`for_each_sparse_pair!`),
    /// by value type or by index type.
    Part in Sparse {
        SpmvLanes = crate::for_each_sparse_pair!(pair_names, "gpupy_spmv_lanes_"),
        SpmvMerge = crate::for_each_sparse_pair!(pair_names, "gpupy_spmv_merge_"),
        /// By value type.
        SpmvFixup = crate::for_each_sparse_value!(type_names, "gpupy_spmv_fixup_"),
        Spmm = crate::for_each_sparse_pair!(pair_names, "gpupy_spmm_"),
        SpmmT = crate::for_each_sparse_pair!(pair_names, "gpupy_spmm_t_"),
        Segment = crate::for_each_sparse_pair!(pair_names, "gpupy_segment_"),
        ToDense = crate::for_each_sparse_pair!(pair_names, "gpupy_todense_"),
        SpgemmFill = crate::for_each_sparse_pair!(pair_names, "gpupy_spgemm_fill_"),
        MergeCount = crate::for_each_sparse_pair!(pair_names, "gpupy_merge_count_"),
        MergeFill = crate::for_each_sparse_pair!(pair_names, "gpupy_merge_fill_"),
        /// By index type.
        Validate = crate::for_each_sparse_index!(type_names, "gpupy_sparse_validate_"),
        RowMax = crate::for_each_sparse_index!(type_names, "gpupy_sparse_row_max_"),
        SpmvSearch = crate::for_each_sparse_index!(type_names, "gpupy_spmv_search_"),
        ExpandRows = crate::for_each_sparse_index!(type_names, "gpupy_expand_rows_"),
        SpgemmBound = crate::for_each_sparse_index!(type_names, "gpupy_spgemm_bound_"),
        SpgemmCount = crate::for_each_sparse_index!(type_names, "gpupy_spgemm_count_"),
    }
}

/// Slot of a value dtype (by `DTypeIndex`) in the value lists.
fn value_slot(dtype: usize) -> Option<usize> {
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

/// Slot of an index dtype in the index lists.
fn index_slot(dtype: usize) -> Option<usize> {
    use crate::dtype::DTypeIndex;
    [<i32 as DTypeIndex>::INDEX, <i64 as DTypeIndex>::INDEX]
        .iter()
        .position(|&d| d == dtype)
}

/// The kernel of a by-pair `part` for values of dtype `value` and indices of dtype
/// `index` (dtype indices), if both have kernels.
pub fn pair(part: Part, value: usize, index: usize) -> Option<crate::registry::Kernel> {
    debug_assert_eq!(part.entries(), 8);
    Some(part.at(value_slot(value)? * 2 + index_slot(index)?))
}

/// The kernel of a by-value `part` (`SpmvFixup`).
pub fn by_value(part: Part, value: usize) -> Option<crate::registry::Kernel> {
    debug_assert_eq!(part.entries(), 4);
    Some(part.at(value_slot(value)?))
}

/// The kernel of a by-index `part`.
pub fn by_index(part: Part, index: usize) -> Option<crate::registry::Kernel> {
    debug_assert_eq!(part.entries(), 2);
    Some(part.at(index_slot(index)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::{DTypeIndex, c128};

    #[test]
    fn handles_name_their_types() {
        let k = pair(
            Part::Spmm,
            <c128 as DTypeIndex>::INDEX,
            <i32 as DTypeIndex>::INDEX,
        )
        .unwrap();
        assert_eq!(KERNELS[k.index as usize], "gpupy_spmm_c128_i32");
        let k = by_index(Part::Validate, <i64 as DTypeIndex>::INDEX).unwrap();
        assert_eq!(KERNELS[k.index as usize], "gpupy_sparse_validate_i64");
        let k = by_value(Part::SpmvFixup, <f32 as DTypeIndex>::INDEX).unwrap();
        assert_eq!(KERNELS[k.index as usize], "gpupy_spmv_fixup_f32");
        assert!(
            pair(
                Part::Spmm,
                <u8 as DTypeIndex>::INDEX,
                <i32 as DTypeIndex>::INDEX
            )
            .is_none()
        );
        assert!(by_index(Part::RowMax, <i16 as DTypeIndex>::INDEX).is_none());
    }
}
