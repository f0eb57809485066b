//! The filters' inputs: an array as the C-contiguous array of the type a kernel reads.

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::elementwise::copy::{astype, contiguous};

/// `x` as a C-contiguous array of `dtype` (itself when it already is one).
pub fn as_contiguous(x: &Array, dtype: DType) -> Result<Array> {
    if x.dtype() == dtype {
        contiguous(x)
    } else {
        astype(x, dtype)
    }
}

/// `x` as a C-contiguous array of `compute` (float32 or float64).
pub fn compute_input(x: &Array, compute: DType) -> Result<Array> {
    if !matches!(compute, DType::Float32 | DType::Float64) {
        return Err(Error::Type(format!(
            "filters compute in float32 or float64, not {}",
            compute.name()
        )));
    }
    as_contiguous(x, compute)
}
