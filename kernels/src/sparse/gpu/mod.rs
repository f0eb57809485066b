//! The sparse kernels (see the module comment). Row-wise kernels give each row a group
//! of `lanes` threads; the groups of a warp walk their rows in step (`warp_rows`), so
//! the shuffles that combine a group's lanes always find all 32 lanes of the warp.

mod combine;
mod device;
mod products;
mod spgemm;
mod structure;

use crate::dtype::{c64, c128};
use crate::sparse::{Merge2, Sp, Spgemm};
use combine::{merge_count, merge_fill};
use products::{spmm, spmm_t, spmv_fixup, spmv_lanes, spmv_merge, spmv_search};
use spgemm::{KeyOf, spgemm_bound, spgemm_count, spgemm_fill};
use structure::{expand_rows, row_max, segment, to_dense, validate};

macro_rules! pair_entries {
    ([] $(($v:ident, $i:ident))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_spmv_lanes_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn lanes(a: Sp, indptr: *const $i, indices: *const $i, data: *const $v, x: *const $v, y: *mut $v) {
                // SAFETY: the host launches per spmv_lanes' contract.
                unsafe { spmv_lanes::<$v, $i>(&a, indptr, indices, data, x, y) }
            }
            #[unsafe(export_name = concat!("gpupy_spmv_merge_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn merge(
                a: Sp, indptr: *const $i, indices: *const $i, data: *const $v, x: *const $v, y: *mut $v,
                coords: *const u64, carry_rows: *mut u64, carry_vals: *mut $v,
            ) {
                // SAFETY: the host launches per spmv_merge's contract.
                unsafe { spmv_merge::<$v, $i>(&a, indptr, indices, data, x, y, coords, carry_rows, carry_vals) }
            }
            #[unsafe(export_name = concat!("gpupy_spmm_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn mm(a: Sp, indptr: *const $i, indices: *const $i, data: *const $v, x: *const $v, y: *mut $v) {
                // SAFETY: the host launches per spmm's contract.
                unsafe { spmm::<$v, $i>(&a, indptr, indices, data, x, y) }
            }
            #[unsafe(export_name = concat!("gpupy_spmm_t_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn mm_t(a: Sp, indptr: *const $i, indices: *const $i, data: *const $v, x: *const $v, y: *mut $v) {
                // SAFETY: the host launches per spmm_t's contract.
                unsafe { spmm_t::<$v, $i>(&a, indptr, indices, data, x, y) }
            }
            #[unsafe(export_name = concat!("gpupy_segment_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn seg(a: Sp, starts: *const $i, values: *const $v, out_v: *mut $v, out_p: *mut i64) {
                // SAFETY: the host launches per segment's contract.
                unsafe { segment::<$v, $i>(&a, starts, values, out_v, out_p) }
            }
            #[unsafe(export_name = concat!("gpupy_todense_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn dense(
                a: Sp, indptr: *const $i, indices: *const $i, data: *const $v, out: *mut $v, rs: i64, cs: i64,
            ) {
                // SAFETY: the host launches per to_dense's contract.
                unsafe { to_dense::<$v, $i>(&a, indptr, indices, data, out, rs, cs) }
            }
            #[unsafe(export_name = concat!("gpupy_spgemm_fill_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn fill(
                g: Spgemm, a_indptr: *const $i, a_indices: *const $i, a_data: *const $v,
                b_indptr: *const $i, b_indices: *const $i, b_data: *const $v,
                ub: *const i64, goff: *const i64, gkeys: *mut <$i as KeyOf>::K, gvals: *mut $v,
                c_indptr: *const $i, c_indices: *mut $i, c_data: *mut $v,
            ) {
                // SAFETY: the host launches per spgemm_fill's contract.
                unsafe {
                    spgemm_fill::<$v, $i>(&g, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data,
                        ub, goff, gkeys, gvals, c_indptr, c_indices, c_data)
                }
            }
            #[unsafe(export_name = concat!("gpupy_merge_count_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn mcount(
                m: Merge2, a_indptr: *const $i, a_indices: *const $i, a_data: *const $v,
                b_indptr: *const $i, b_indices: *const $i, b_data: *const $v, counts: *mut i64,
            ) {
                // SAFETY: the host launches per merge_count's contract.
                unsafe { merge_count::<$v, $i>(&m, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, counts) }
            }
            #[unsafe(export_name = concat!("gpupy_merge_fill_", stringify!($v), "_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn mfill(
                m: Merge2, a_indptr: *const $i, a_indices: *const $i, a_data: *const $v,
                b_indptr: *const $i, b_indices: *const $i, b_data: *const $v,
                c_indptr: *const $i, c_indices: *mut $i, c_data: *mut $v,
            ) {
                // SAFETY: the host launches per merge_fill's contract.
                unsafe {
                    merge_fill::<$v, $i>(&m, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data,
                        c_indptr, c_indices, c_data)
                }
            }
        };
    )* };
}
crate::for_each_sparse_pair!(pair_entries);

macro_rules! value_entries {
    ([] $($v:ident)*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_spmv_fixup_", stringify!($v)))]
            unsafe extern "ptx-kernel" fn fix(blocks: u64, rows: u64, carry_rows: *const u64, carry_vals: *const $v, y: *mut $v) {
                // SAFETY: the host launches per spmv_fixup's contract.
                unsafe { spmv_fixup::<$v>(blocks, rows, carry_rows, carry_vals, y) }
            }
        };
    )* };
}
crate::for_each_sparse_value!(value_entries);

macro_rules! index_entries {
    ([] $($i:ident)*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_sparse_validate_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn valid(a: Sp, indptr: *const $i, indices: *const $i, out: *mut u64) {
                // SAFETY: the host launches per validate's contract.
                unsafe { validate::<$i>(&a, indptr, indices, out) }
            }
            #[unsafe(export_name = concat!("gpupy_spmv_search_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn msearch(a: Sp, indptr: *const $i, coords: *mut u64) {
                // SAFETY: the host launches per spmv_search's contract.
                unsafe { spmv_search::<$i>(&a, indptr, coords) }
            }
            #[unsafe(export_name = concat!("gpupy_sparse_row_max_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn longest(a: Sp, indptr: *const $i, out: *mut u64) {
                // SAFETY: the host launches per row_max's contract.
                unsafe { row_max::<$i>(&a, indptr, out) }
            }
            #[unsafe(export_name = concat!("gpupy_expand_rows_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn expand(a: Sp, indptr: *const $i, out: *mut $i) {
                // SAFETY: the host launches per expand_rows' contract.
                unsafe { expand_rows::<$i>(&a, indptr, out) }
            }
            #[unsafe(export_name = concat!("gpupy_spgemm_bound_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn bound(
                g: Spgemm, a_indptr: *const $i, a_indices: *const $i, b_indptr: *const $i,
                ub: *mut i64, gsize: *mut i64, stats: *mut u64,
            ) {
                // SAFETY: the host launches per spgemm_bound's contract.
                unsafe { spgemm_bound::<$i>(&g, a_indptr, a_indices, b_indptr, ub, gsize, stats) }
            }
            #[unsafe(export_name = concat!("gpupy_spgemm_count_", stringify!($i)))]
            unsafe extern "ptx-kernel" fn count(
                g: Spgemm, a_indptr: *const $i, a_indices: *const $i, b_indptr: *const $i, b_indices: *const $i,
                ub: *const i64, goff: *const i64, gkeys: *mut <$i as KeyOf>::K, counts: *mut i64, stats: *mut u64,
            ) {
                // SAFETY: the host launches per spgemm_count's contract.
                unsafe { spgemm_count::<$i>(&g, a_indptr, a_indices, b_indptr, b_indices, ub, goff, gkeys, counts, stats) }
            }
        };
    )* };
}
crate::for_each_sparse_index!(index_entries);
