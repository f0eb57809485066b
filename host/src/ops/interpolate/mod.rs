//! Spline interpolation (`kernels/src/interpolate/`): SciPy's `ndimage` sampling maps
//! (`map_coordinates`, `affine_transform`, `shift`, `zoom`, `rotate`: [`sample`]) and the
//! spline prefilter (`spline_filter1d`, `spline_filter`: [`spline_filter`]).
//!
//! The Python layer resolves SciPy's rules (argument checks and messages, the output
//! dtype, the padding for modes the prefilter has no boundary condition for, complex
//! inputs as two real ones); these functions check what the kernels rely on, convert
//! inputs to what the kernels read (float32 or float64, C-contiguous) and launch. Each
//! returns a new C-contiguous array.

mod input;
mod prefilter;
mod sample;

pub use gpupy_kernels::interpolate::Mode;
pub use prefilter::spline_filter;
pub use sample::{Sampling, Source, sample};
