//! Spline interpolation (`kernels/src/interpolate/`): SciPy's `ndimage` sampling maps
//! (`map_coordinates`, `affine_transform`, `shift`, `zoom`, `rotate`: [`sample`]) and the
//! spline prefilter (`spline_filter1d`, `spline_filter`: [`spline_filter`]).
//!
//! The Python layer resolves SciPy's rules (argument checks and messages, the output
//! dtype, the padding for modes the prefilter has no boundary condition for, complex
//! inputs as two real ones); these functions check what the kernels rely on, convert
//! inputs to what the kernels read (float32 or float64, C-contiguous) and launch. Each
//! returns a new C-contiguous array.

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};

mod prefilter;
mod sample;

pub use gpupy_kernels::interpolate::Mode;
pub use prefilter::spline_filter;
pub use sample::{Sampling, Source, sample};

/// Whether `dtype` is one SciPy's interpolation reads (bool, integers, float32,
/// float64): its C code has no float16, complex or long double loops.
fn readable(dtype: DType) -> bool {
    !matches!(
        dtype,
        DType::Float16 | DType::BFloat16 | DType::Complex64 | DType::Complex128
    )
}

/// `x` as a C-contiguous array of `dtype` (itself when it already is one).
fn converted(x: &Array, dtype: DType, what: &str) -> Result<Array> {
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
