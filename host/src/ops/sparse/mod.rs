//! Sparse matrices (`kernels/src/sparse/`): the compressed-format kernels behind
//! `gpupyx.scipy.sparse`. The Python layer keeps SciPy's formats and rules; these
//! functions take a compressed matrix's arrays ([`Compressed`], checked here), plan and
//! launch.
//!
//! - `compressed.rs`: the checked arrays of a matrix and the launches' helpers;
//! - `structure.rs`: the format validation, CSR to COO rows, to dense, segment
//!   reductions;
//! - `products.rs`: SpMV (lanes per row or merge path), SpMM, the transposed products;
//! - `spgemm.rs`: sparse times sparse, and elementwise operations of two matrices.
//!
//! The kernels read `indptr` and `indices` defensively (a corrupt matrix gives wrong
//! numbers, never an access outside an allocation), so the host checks only shapes,
//! dtypes and lengths, and nothing here reads the arrays' contents except where a
//! result's size depends on them (one small read: the validation flags, the longest
//! row, the size of a product).

mod compressed;
mod products;
mod spgemm;
mod structure;

pub use compressed::Compressed;
pub use gpupy_kernels::sparse::rows::{SEG_MAX, SEG_MIN, SEG_SUM, Schedule};
pub use products::{spmm, spmm_t, spmv, spmv_plan};
pub use spgemm::{binop, spgemm};
pub use structure::{expand_rows, segment, to_dense, validate};
