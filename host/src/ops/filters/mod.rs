//! Correlation filters (`kernels/src/filters/`): SciPy's `ndimage.correlate1d` and
//! `ndimage.correlate`, on which the Python layer builds convolutions and the named
//! filters.
//!
//! The Python layer resolves SciPy's rules (output dtype, origins, the weights' dtype);
//! these functions take the input in any dtype, convert it to the compute type
//! (float32 or float64), check what the kernels rely on and launch. The result is a
//! new C-contiguous array of the compute type and the input's shape. The order filters
//! (`order.rs`: minimum, maximum, rank) do the same in an order type.

use gpupy_kernels as kernels;
use gpupy_kernels::args::fast_divisor;
use gpupy_kernels::filters::{FILTER_BLOCK, Filter1d};

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::copy::{astype, contiguous, same_device};
use crate::ops::elementwise_grid;

mod order;
mod window;

pub use order::{extreme, rank};
use window::Window;

/// The boundary modes (SciPy's, by launch code).
pub use gpupy_kernels::filters::Mode;

/// `x` as a C-contiguous array of `dtype` (itself when it already is one).
fn as_contiguous(x: &Array, dtype: DType) -> Result<Array> {
    if x.dtype() == dtype {
        contiguous(x)
    } else {
        astype(x, dtype)
    }
}

/// `x` as a C-contiguous array of `compute` (float32 or float64).
fn compute_input(x: &Array, compute: DType) -> Result<Array> {
    if !matches!(compute, DType::Float32 | DType::Float64) {
        return Err(Error::Type(format!(
            "filters compute in float32 or float64, not {}",
            compute.name()
        )));
    }
    as_contiguous(x, compute)
}

/// The weights of an n-d correlation: host values, or a device array (any real dtype,
/// any layout; its elements in C order are the taps' weights), which the filter reads
/// without a transfer.
pub enum Weights<'a> {
    Host(&'a [f64]),
    Device(&'a Array),
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
    weights: Weights<'_>,
    offsets: &[Vec<i64>],
    mode: Mode,
    cval: f64,
    compute: DType,
) -> Result<Array> {
    let count = match weights {
        Weights::Host(w) => w.len(),
        Weights::Device(w) => w.size(),
    };
    if offsets.len() != count {
        return Err(Error::Value(format!(
            "{count} filter weights need as many offsets"
        )));
    }
    let src = compute_input(x, compute)?;
    let out = Array::empty(x.device(), x.shape(), compute)?;
    if x.size() == 0 {
        return Ok(out);
    }
    if count == 0 {
        // No tap: every output is an empty sum.
        crate::ops::elementwise::fill::fill(&out, &vec![0u8; compute.itemsize()])?;
        return Ok(out);
    }
    let w = match weights {
        Weights::Host(w) => upload_weights(x, w, compute)?,
        Weights::Device(w) => {
            same_device(x, w)?;
            as_contiguous(w, compute)?
        }
    };
    let device = x.device();
    let win = Window::plan(device, x.shape(), offsets, mode, cval, 0)?;
    let (f, f_box) = kernels::filters::correlate(compute as usize)
        .ok_or_else(|| Error::Type(format!("no n-d filter for {}", compute.name())))?;
    let b = win.interior;
    if b.n > 0 {
        // (b, x, w, lin, out) is the box kernel's parameter list: the box holds the
        // outputs whose window lies inside the C-contiguous arrays src/out of x's shape
        // (Window::plan), w and lin hold ntaps entries.
        Launch::new(device, f_box)?
            .grid(elementwise_grid(device, b.n))
            .block(FILTER_BLOCK)
            .arg(b)
            .arg(src.data_ptr())
            .arg(w.data_ptr())
            .arg(win.lin.data_ptr())
            .arg(out.data_ptr())
            .run()?;
    }
    for args in &win.edges {
        // (args, x, w, off, out) is the kernel's parameter list: src and out are
        // C-contiguous arrays of the shape in args (nd <= FILTER_DIMS, extents >= 1, as
        // the array is not empty), the region lies inside it, w holds ntaps weights and
        // off ntaps * FILTER_DIMS offsets.
        Launch::new(device, f)?
            .grid(elementwise_grid(device, args.n))
            .block(FILTER_BLOCK)
            .arg(*args)
            .arg(src.data_ptr())
            .arg(w.data_ptr())
            .arg(win.off.data_ptr())
            .arg(out.data_ptr())
            .run()?;
    }
    Ok(out)
}
