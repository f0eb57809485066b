//! What the interpolation kernels read: inputs as C-contiguous float32 or float64.

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};

/// Whether `dtype` is one SciPy's interpolation reads (bool, integers, float32,
/// float64): its C code has no float16, complex or long double loops.
fn readable(dtype: DType) -> bool {
    !matches!(
        dtype,
        DType::Float16 | DType::BFloat16 | DType::Complex64 | DType::Complex128
    )
}

/// `x` as a C-contiguous array of `dtype` (itself when it already is one).
pub(super) fn converted(x: &Array, dtype: DType, what: &str) -> Result<Array> {
    if !readable(x.dtype()) {
        return Err(Error::Type(format!(
            "{what}: no interpolation of {} data",
            x.dtype().name()
        )));
    }
    if x.dtype() == dtype {
        crate::ops::elementwise::copy::contiguous(x)
    } else {
        crate::ops::elementwise::copy::astype(x, dtype)
    }
}
