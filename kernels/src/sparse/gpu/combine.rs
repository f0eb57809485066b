//! Elementwise operations of two matrices: per-row merges, a count pass and a fill
//! pass.

use crate::gpu::grid_stride;
use crate::sparse::Merge2;
use crate::sparse::merge::{Divide, merge_rows};
use crate::sparse::value::{Index, Value, row_range};

/// A row of a canonical matrix, read in place.
pub(super) struct Row<V, I> {
    start: u64,
    len: u64,
    indices: *const I,
    data: *const V,
}

impl<V: Value, I: Index> Row<V, I> {
    /// # Safety
    /// `indptr` holds `r + 2` indices; the row's entries lie below `nnz` (clamped).
    #[inline(always)]
    unsafe fn of(indptr: *const I, indices: *const I, data: *const V, r: u64, nnz: u64) -> Self {
        // SAFETY: per the contract.
        let (s, e) = unsafe { row_range(indptr, r, nnz) };
        Row {
            start: s,
            len: e - s,
            indices,
            data,
        }
    }
    #[inline(always)]
    fn parts(&self) -> (u64, impl Fn(u64) -> u64 + '_, impl Fn(u64) -> V + '_) {
        // SAFETY (both): p < len, so start + p is an entry of the row.
        (
            self.len,
            move |p: u64| unsafe { (*self.indices.add((self.start + p) as usize)).bound() },
            move |p: u64| unsafe { *self.data.add((self.start + p) as usize) },
        )
    }
}

/// `counts[r]` = stored results of row `r` of `op(A, B)`, a thread per row.
///
/// # Safety
/// `a_*`, `b_*` hold the two matrices' arrays (`rows + 1` indptr, `a_nnz`/`b_nnz`
/// entries); `counts` `rows` slots.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn merge_count<V: Divide, I: Index>(
    m: &Merge2,
    a_indptr: *const I,
    a_indices: *const I,
    a_data: *const V,
    b_indptr: *const I,
    b_indices: *const I,
    b_data: *const V,
    counts: *mut i64,
) {
    let (mut r, stride) = grid_stride();
    while r < m.rows {
        // SAFETY: r < rows.
        let (ra, rb) = unsafe {
            (
                Row::of(a_indptr, a_indices, a_data, r, m.a_nnz),
                Row::of(b_indptr, b_indices, b_data, r, m.b_nnz),
            )
        };
        let mut n = 0i64;
        merge_rows(m.op, ra.parts(), rb.parts(), |_, _| n += 1);
        // SAFETY: r < rows.
        unsafe { *counts.add(r as usize) = n };
        r += stride;
    }
}

/// Row `r` of `op(A, B)` into `c_indices`/`c_data` at `c_indptr[r]`.
///
/// # Safety
/// As `merge_count`, with `c_indptr` (`rows + 1`, the scanned counts) and `c_nnz`
/// slots of `c_indices`, `c_data`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn merge_fill<V: Divide, I: Index>(
    m: &Merge2,
    a_indptr: *const I,
    a_indices: *const I,
    a_data: *const V,
    b_indptr: *const I,
    b_indices: *const I,
    b_data: *const V,
    c_indptr: *const I,
    c_indices: *mut I,
    c_data: *mut V,
) {
    let (mut r, stride) = grid_stride();
    while r < m.rows {
        // SAFETY: r < rows.
        let (ra, rb, (base, end)) = unsafe {
            (
                Row::of(a_indptr, a_indices, a_data, r, m.a_nnz),
                Row::of(b_indptr, b_indices, b_data, r, m.b_nnz),
                row_range(c_indptr, r, m.c_nnz),
            )
        };
        let mut at = base;
        merge_rows(m.op, ra.parts(), rb.parts(), |c, v| {
            if at < end {
                // SAFETY: at < end <= c_nnz.
                unsafe {
                    *c_indices.add(at as usize) = I::from_u64(c);
                    *c_data.add(at as usize) = v;
                }
            }
            at += 1;
        });
        r += stride;
    }
}
