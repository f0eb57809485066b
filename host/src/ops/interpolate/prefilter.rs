//! The spline prefilter: SciPy's `spline_filter1d` along each of a list of axes in
//! turn, on a float64 copy of the input (SciPy's line buffers are doubles too).

use gpupy_kernels as kernels;
use gpupy_kernels::interpolate::Prefilter;

use super::input::converted;
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use gpupy_kernels::interpolate::Mode;

/// The spline coefficients of order `order` (2 to 5) of `x` (bool, integer or real)
/// along each axis of `axes` in turn, for boundary mode `mode`: a new C-contiguous
/// float64 array. Lines of one sample are left as they are (SciPy's rule).
pub fn spline_filter(x: &Array, order: usize, axes: &[usize], mode: Mode) -> Result<Array> {
    if !(2..=5).contains(&order) {
        return Err(Error::Value(format!(
            "the spline prefilter takes orders 2 to 5, not {order}"
        )));
    }
    if let Some(&axis) = axes.iter().find(|&&a| a >= x.ndim()) {
        return Err(Error::Value(format!(
            "axis {axis} is out of bounds for an array of dimension {}",
            x.ndim()
        )));
    }
    // A fresh array: the filter works in place. (`converted` hands back `x` itself
    // when it is already C-contiguous float64.)
    let src = converted(x, DType::Float64, "spline_filter")?;
    let work = if src.shares_buffer(x) {
        crate::ops::elementwise::copy::astype(&src, DType::Float64)?
    } else {
        src
    };
    let device = x.device();
    let shape = x.shape();
    for &axis in axes {
        let len = shape[axis] as u64;
        if x.size() == 0 || len < 2 {
            continue;
        }
        let inner = shape[axis + 1..].iter().product::<usize>() as u64;
        let lines = x.size() as u64 / len;
        let args = Prefilter::new(order, mode, lines, len, inner);
        // Lines are few next to outputs (a 2048^2 image has 2048 per axis): small
        // blocks spread them over more of the GPU.
        let sms = device.props.multi_processor_count.max(1) as u64;
        let threads = lines.div_ceil(sms).next_multiple_of(32).clamp(32, 128);
        let blocks = u32::try_from(lines.div_ceil(threads))
            .map_err(|_| Error::Value("too many lines to prefilter".into()))?;
        // (args, c) is the kernel's parameter list: `work` is a C-contiguous float64
        // array of lines * len elements, len >= 2, inner >= 1 (x is not empty) and
        // outer * inner == lines; the grid covers every line.
        Launch::new(device, kernels::interpolate::prefilter())?
            .grid(blocks)
            .block(threads as u32)
            .arg(args)
            .arg(work.data_ptr())
            .run()?;
    }
    Ok(work)
}
