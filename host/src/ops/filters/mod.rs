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
use gpupy_kernels::filters::{FILTER_BLOCK, FILTER_DIMS, Filter1d, FilterBox, FilterNd};

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
    let mut lin = vec![0i64; weights.len().max(1)];
    let (mut lo, mut hi) = ([0i32; FILTER_DIMS], [0i32; FILTER_DIMS]);
    for (t, o) in offsets.iter().enumerate() {
        // Innermost first, as the kernel walks coordinates; C-order element strides.
        let mut step = 1i64;
        for (d, &v) in o.iter().rev().enumerate() {
            let v32 = i32::try_from(v)
                .map_err(|_| Error::Value(format!("filter offset {v} is too large")))?;
            packed[t * FILTER_DIMS + d] = v32;
            lin[t] += v * step;
            step *= x.shape()[nd - 1 - d] as i64;
            (lo[d], hi[d]) = if t == 0 {
                (v32, v32)
            } else {
                (lo[d].min(v32), hi[d].max(v32))
            };
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
    let lin_bytes: Vec<u8> = lin.iter().flat_map(|v| v.to_le_bytes()).collect();
    let lin = Array::from_host(device, &lin_bytes, &[lin.len()], DType::Int64)?;
    // The interior box: along axis d (innermost first), the outputs c with
    // 0 <= c + lo[d] and c + hi[d] < n, whose windows need no boundary test.
    let shape: Vec<u64> = x.shape().iter().rev().map(|&n| n as u64).collect();
    let mut b = FilterBox {
        n: 1,
        ndim: nd as u32,
        ntaps,
        shape: [1; FILTER_DIMS],
        magic: [0; FILTER_DIMS],
        shift: [0; FILTER_DIMS],
        start: [0; FILTER_DIMS],
        stride: [0; FILTER_DIMS],
    };
    let mut step = 1u64;
    for (d, &n) in shape.iter().enumerate() {
        let first = (-(lo[d] as i64)).max(0) as u64;
        let end = (n as i64 - hi[d].max(0) as i64).max(0) as u64;
        b.shape[d] = end.saturating_sub(first);
        (b.magic[d], b.shift[d]) = fast_divisor(b.shape[d]);
        b.start[d] = first;
        b.stride[d] = step;
        b.n *= b.shape[d];
        step *= n;
    }
    let (f, f_box) = kernels::filters::correlate(compute as usize)
        .ok_or_else(|| Error::Type(format!("no n-d filter for {}", compute.name())))?;
    // The regions with boundary tests: the whole array when the box is empty, else the
    // shell around it, cut in slabs: slab (d, side) takes axes below d inside the box,
    // axis d before or after it, axes above d whole.
    let mut regions: Vec<(Vec<u64>, Vec<u64>)> = Vec::new();
    if b.n == 0 {
        regions.push((vec![0; nd], shape.clone()));
    } else {
        for d in 0..nd {
            let (first, end) = (b.start[d], b.start[d] + b.shape[d]);
            for (lo_d, hi_d) in [(0, first), (end, shape[d])] {
                if hi_d <= lo_d {
                    continue;
                }
                let mut start = vec![0u64; nd];
                let mut extent = shape.clone();
                for j in 0..d {
                    (start[j], extent[j]) = (b.start[j], b.shape[j]);
                }
                (start[d], extent[d]) = (lo_d, hi_d - lo_d);
                regions.push((start, extent));
            }
        }
        // (b, x, w, lin, out) is the box kernel's parameter list: the box holds the
        // outputs whose window (lo..=hi along each axis, the taps' extremes computed
        // with lin above) lies inside the C-contiguous arrays src/out of x's shape.
        Launch::new(device, f_box)?
            .grid(elementwise_grid(device, b.n))
            .block(FILTER_BLOCK)
            .arg(b)
            .arg(src.data_ptr())
            .arg(w.data_ptr())
            .arg(lin.data_ptr())
            .arg(out.data_ptr())
            .run()?;
    }
    for (start, extent) in regions {
        let mut args = FilterNd {
            n: extent.iter().product(),
            ndim: nd as u32,
            ntaps,
            mode: mode as u32,
            _pad: 0,
            cval,
            shape: [1; FILTER_DIMS],
            start: [0; FILTER_DIMS],
            rshape: [1; FILTER_DIMS],
            rmagic: [0; FILTER_DIMS],
            rshift: [0; FILTER_DIMS],
        };
        for d in 0..nd {
            args.shape[d] = shape[d];
            args.start[d] = start[d];
            args.rshape[d] = extent[d];
            (args.rmagic[d], args.rshift[d]) = fast_divisor(extent[d]);
        }
        // (args, x, w, off, out) is the kernel's parameter list: src and out are
        // C-contiguous arrays of the shape in args (nd <= FILTER_DIMS, extents >= 1, as
        // the array is not empty), the region (start + rshape) lies inside it, w holds
        // ntaps weights and off ntaps * FILTER_DIMS offsets.
        Launch::new(device, f)?
            .grid(elementwise_grid(device, args.n))
            .block(FILTER_BLOCK)
            .arg(args)
            .arg(src.data_ptr())
            .arg(w.data_ptr())
            .arg(off.data_ptr())
            .arg(out.data_ptr())
            .run()?;
    }
    Ok(out)
}
