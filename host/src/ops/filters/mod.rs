//! Correlation filters (`kernels/src/filters/`): SciPy's `ndimage.correlate1d` and
//! `ndimage.correlate`, on which the Python layer builds convolutions and the named
//! filters.
//!
//! The Python layer resolves SciPy's rules (output dtype, origins, the weights' dtype);
//! these functions take the input in any dtype, convert it to the compute type
//! (float32 or float64), check what the kernels rely on and launch. The result is a
//! new C-contiguous array of the compute type and the input's shape.

use gpupy_kernels as kernels;
use gpupy_kernels::args::fast_divisor;
use gpupy_kernels::filters::{FILTER_BLOCK, FILTER_DIMS, Filter1d, FilterNd};

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::copy::{astype, contiguous};
use crate::ops::elementwise_grid;

/// The boundary modes (SciPy's, by launch code).
pub use gpupy_kernels::filters::Mode;

/// `x` as a C-contiguous array of `compute` (float32 or float64).
fn compute_input(x: &Array, compute: DType) -> Result<Array> {
    if !matches!(compute, DType::Float32 | DType::Float64) {
        return Err(Error::Type(format!(
            "filters compute in float32 or float64, not {}",
            compute.name()
        )));
    }
    if x.dtype() == compute {
        contiguous(x)
    } else {
        astype(x, compute)
    }
}

/// `weights` as a device array of `compute`.
fn upload_weights(x: &Array, weights: &[f64], compute: DType) -> Result<Array> {
    let bytes: Vec<u8> = if compute == DType::Float32 {
        weights
            .iter()
            .flat_map(|&w| (w as f32).to_le_bytes())
            .collect()
    } else {
        weights.iter().flat_map(|&w| w.to_le_bytes()).collect()
    };
    Array::from_host(x.device(), &bytes, &[weights.len()], compute)
}

/// SciPy's `correlate1d`: along `axis`, tap `t` of output coordinate `j` reads input
/// coordinate `j + t - center` (`center = weights.len() / 2 + origin`), extended past
/// the edges by `mode` (`cval` for `Constant`). Every weight counts, zeros too (NaN
/// times 0 is NaN, as in SciPy).
pub fn correlate1d(
    x: &Array,
    weights: &[f64],
    axis: usize,
    center: i64,
    mode: Mode,
    cval: f64,
    compute: DType,
) -> Result<Array> {
    if axis >= x.ndim() {
        return Err(Error::Value(format!(
            "axis {axis} is out of bounds for an array of dimension {}",
            x.ndim()
        )));
    }
    if weights.is_empty() || !(0..weights.len() as i64).contains(&center) {
        return Err(Error::Value(format!(
            "a filter of {} weights cannot be centred on weight {center}",
            weights.len()
        )));
    }
    let src = compute_input(x, compute)?;
    let out = Array::empty(x.device(), x.shape(), compute)?;
    if x.size() == 0 {
        return Ok(out);
    }
    let shape = x.shape();
    let (len, inner) = (
        shape[axis] as u64,
        shape[axis + 1..].iter().product::<usize>() as u64,
    );
    let ntaps =
        u32::try_from(weights.len()).map_err(|_| Error::Value("too many filter weights".into()))?;
    let w = upload_weights(x, weights, compute)?;
    let n = x.size() as u64;
    let ((inner_magic, inner_shift), (len_magic, len_shift)) =
        (fast_divisor(inner), fast_divisor(len));
    let args = Filter1d {
        n,
        len,
        inner,
        ntaps,
        center: center as i32,
        mode: mode as u32,
        inner_magic,
        inner_shift,
        len_magic,
        len_shift,
        _pad: 0,
        cval,
    };
    let f = kernels::filters::correlate1d(compute as usize)
        .ok_or_else(|| Error::Type(format!("no 1-d filter for {}", compute.name())))?;
    let device = x.device();
    // (args, x, w, out) is the kernel's parameter list: src and out are C-contiguous
    // arrays of n elements of the compute type, w holds ntaps of them, len * inner
    // divides n (they are the array's extents), center is a tap.
    Launch::new(device, f)?
        .grid(elementwise_grid(device, n))
        .block(FILTER_BLOCK)
        .arg(args)
        .arg(src.data_ptr())
        .arg(w.data_ptr())
        .arg(out.data_ptr())
        .run()?;
    Ok(out)
}

/// SciPy's `correlate` with its footprint already taken: tap `t` has weight
/// `weights[t]` and reads input coordinate `c + offsets[t]` of output coordinate `c`
/// (one offset per axis, C order), extended past the edges by `mode`.
pub fn correlate(
    x: &Array,
    weights: &[f64],
    offsets: &[Vec<i64>],
    mode: Mode,
    cval: f64,
    compute: DType,
) -> Result<Array> {
    let nd = x.ndim();
    if nd > FILTER_DIMS {
        return Err(Error::Value(format!(
            "gpupy's n-d filters take at most {FILTER_DIMS} dimensions, not {nd}"
        )));
    }
    if offsets.len() != weights.len() || offsets.iter().any(|o| o.len() != nd) {
        return Err(Error::Value(format!(
            "{} filter weights need as many offsets of {nd} coordinates",
            weights.len()
        )));
    }
    let src = compute_input(x, compute)?;
    let out = Array::empty(x.device(), x.shape(), compute)?;
    if x.size() == 0 {
        return Ok(out);
    }
    let ntaps =
        u32::try_from(weights.len()).map_err(|_| Error::Value("too many filter weights".into()))?;
    let mut packed = vec![0i32; weights.len().max(1) * FILTER_DIMS];
    for (t, o) in offsets.iter().enumerate() {
        // Innermost first, as the kernel walks coordinates.
        for (d, &v) in o.iter().rev().enumerate() {
            packed[t * FILTER_DIMS + d] = i32::try_from(v)
                .map_err(|_| Error::Value(format!("filter offset {v} is too large")))?;
        }
    }
    let device = x.device();
    let w = upload_weights(
        x,
        if weights.is_empty() { &[0.0] } else { weights },
        compute,
    )?;
    let off_bytes: Vec<u8> = packed.iter().flat_map(|v| v.to_le_bytes()).collect();
    let off = Array::from_host(device, &off_bytes, &[packed.len()], DType::Int32)?;
    let mut args = FilterNd {
        n: x.size() as u64,
        ndim: nd as u32,
        ntaps,
        mode: mode as u32,
        _pad: 0,
        cval,
        shape: [1; FILTER_DIMS],
        magic: [0; FILTER_DIMS],
        shift: [0; FILTER_DIMS],
    };
    for (d, &n) in x.shape().iter().rev().enumerate() {
        args.shape[d] = n as u64;
        (args.magic[d], args.shift[d]) = fast_divisor(n as u64);
    }
    let f = kernels::filters::correlate(compute as usize)
        .ok_or_else(|| Error::Type(format!("no n-d filter for {}", compute.name())))?;
    // (args, x, w, off, out) is the kernel's parameter list: src and out are
    // C-contiguous arrays of the shape in args (nd <= FILTER_DIMS, extents >= 1, as the
    // array is not empty), w holds ntaps weights and off ntaps * FILTER_DIMS offsets.
    Launch::new(device, f)?
        .grid(elementwise_grid(device, args.n))
        .block(FILTER_BLOCK)
        .arg(args)
        .arg(src.data_ptr())
        .arg(w.data_ptr())
        .arg(off.data_ptr())
        .arg(out.data_ptr())
        .run()?;
    Ok(out)
}
