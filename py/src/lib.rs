//! The extension module `gpupy._gpupy`. The Python package `gpupy` (in `python/`)
//! re-exports what users see; this crate turns Python objects into host-library calls
//! and host errors into the exceptions NumPy and CuPy raise.
//!
//! - `errors`: the error mapping and gpupy's own exception types;
//! - `convert`: dtypes and NumPy arrays across the boundary;
//! - `ndarray`: the array class and its basic attributes;
//! - `indexing`: `a[key]`, `a[key] = v`, integer and boolean array indices,
//!   `take`/`put`/`where`/`nonzero`;
//! - `ufunc`: NumPy's ufuncs (type resolution by NumPy itself) and the operators' core;
//! - `operators`: Python's operators on arrays (and `a.add`, `a.mul`);
//! - `matmul`: matrix products (`@`, `dot`, ...); `linalg`: the TF32 switch;
//! - `reduction`: the reduction engine (NumPy's signatures are in `gpupy/_reduction.py`);
//! - `sort`: radix sort/argsort along an axis and `searchsorted`;
//! - `scan`: scans (`cumsum`, ...) and counting (`bincount`, `histogram`);
//! - `creation`: new arrays from shapes, values and NumPy arrays;
//! - `manipulation`, `ndarray_methods`: shape manipulation (views, joins), `arange`'s fill,
//!   and the array methods and attributes beyond the basics;
//! - `interop`: `__cuda_array_interface__` and DLPack, both ways;
//! - `random`: PCG64 outputs and the Philox distributions (`gpupy.random`);
//! - `fft`: one-axis transforms and the table cache (`gpupy.fft`, `gpupyx.scipy.fft`);
//! - `filters`: correlations along an axis and by n-d taps (`gpupyx.scipy.ndimage`);
//! - `measure`: labels, bounding boxes, extremes by label and the distance transform
//!   (`gpupyx.scipy.ndimage`);
//! - `interpolate`: spline sampling and the spline prefilter (`gpupyx.scipy.ndimage`);
//! - `iir`: recursive filters, `lfilter` and `sosfilt` (`gpupyx.scipy.signal`);
//! - `sparse`: the compressed-matrix kernels behind `gpupyx.scipy.sparse`;
//! - `user_kernel`: users' own kernels (NVRTC, module loading, the launch);
//! - `cuda`: devices and the memory pool; `stream`: streams and events (CuPy's
//!   `cupy.cuda` names).
//!
//! ndarray methods written in Python (`a.sum()`, `a.sort()`, `a.cumsum()`) are attached
//! by `gpupy/_methods.py`.

mod array_api;
mod convert;
mod creation;
mod cuda;
mod errors;
mod fft;
mod filters;
mod iir;
mod index;
mod indexing;
mod interop;
mod interpolate;
mod linalg;
mod manipulation;
mod matmul;
mod measure;
mod ndarray;
mod ndarray_methods;
mod operators;
mod random;
mod reduction;
mod scan;
mod sort;
mod sparse;
mod stream;
mod ufunc;
mod user_kernel;

use pyo3::prelude::*;

#[pymodule]
fn _gpupy(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    ndarray::register(m)?;
    indexing::register(m)?;
    matmul::register(m)?;
    reduction::register(m)?;
    linalg::register(m)?;
    ufunc::register(m)?;
    creation::register(m)?;
    manipulation::register(m)?;
    scan::register(m)?;
    ndarray_methods::register(m)?;
    cuda::register(m)?;
    sort::register(m)?;
    random::register(m)?;
    fft::register(m)?;
    filters::register(m)?;
    measure::register(m)?;
    interpolate::register(m)?;
    iir::register(m)?;
    sparse::register(m)?;
    stream::register(m)?;
    interop::register(m)?;
    user_kernel::register(m)?;
    Ok(())
}
