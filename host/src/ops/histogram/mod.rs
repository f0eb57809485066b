//! Counting: `bincount` and the two histogram kernels (uniform bins, explicit edges),
//! plus the min/max pass they need for the output length and the automatic range.
//!
//! The Python layer resolves NumPy's dtypes (the bin-edge type, the dtype of each step of
//! the bin computation, the result type of weights); these functions check what the
//! kernels rely on (dtypes, contiguity, lengths) and launch.

use gpupy_kernels as kernels;
use gpupy_kernels::histogram::{
    HIST_BLOCK, PRIVATE_COUNT_BINS, PRIVATE_WEIGHT_BINS, f64_from_key, i64_from_key,
};

use gpupy_kernels::registry::Kernel;

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::copy::{astype, contiguous, same_device};
use crate::ops::elementwise_grid;

/// The smallest and largest value of an array.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Extremes {
    /// No elements.
    Empty,
    /// Integer and bool input.
    Int { min: i64, max: i64 },
    /// Float input; NaN is ignored for `min`/`max` and reported in `nan`
    /// (`min > max` when every element is NaN).
    Float { min: f64, max: f64, nan: bool },
}

/// Min and max of `a` (any shape) in one pass of atomics on order-preserving keys.
/// Integers (except uint64, whose values may not fit int64) and bool are read as int64.
pub fn minmax(a: &Array) -> Result<Extremes> {
    if a.size() == 0 {
        return Ok(Extremes::Empty);
    }
    let (src, name) = match a.dtype() {
        DType::Float16 => (contiguous(a)?, "f16"),
        DType::Float32 => (contiguous(a)?, "f32"),
        DType::Float64 => (contiguous(a)?, "f64"),
        DType::UInt64 | DType::Complex64 | DType::Complex128 => {
            return Err(Error::Type(format!(
                "gpupy's min/max pass supports bool, integers below uint64 and floats, not {}",
                a.dtype().name()
            )));
        }
        DType::Int64 => (contiguous(a)?, "i64"),
        _ => (astype(a, DType::Int64)?, "i64"),
    };
    let device = a.device();
    let init: Vec<u8> = [u64::MAX, 0, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let out = Array::from_host(device, &init, &[3], DType::UInt64)?;
    let f = kernels::histogram::minmax(src.dtype() as usize)
        .ok_or_else(|| Error::Type(format!("no min/max kernel for {}", src.dtype().name())))?;
    let (x, n, o) = (src.data_ptr(), src.size() as u64, out.data_ptr());
    // (x, n, out) is the minmax kernel's parameter list: src is C-contiguous with
    // n elements, out holds the three initialized u64; HIST_BLOCK is a multiple of 32.
    Launch::new(device, f)?
        .grid(elementwise_grid(device, n))
        .block(HIST_BLOCK)
        .arg(x)
        .arg(n)
        .arg(o)
        .run()?;
    let mut bytes = [0u8; 24];
    out.to_host(&mut bytes)?;
    let word = |k: usize| u64::from_le_bytes(bytes[8 * k..8 * k + 8].try_into().unwrap_or([0; 8]));
    let (lo, hi, nan) = (word(0), word(1), word(2) != 0);
    Ok(if name == "i64" {
        Extremes::Int {
            min: i64_from_key(lo),
            max: i64_from_key(hi),
        }
    } else if lo == u64::MAX && hi == 0 {
        Extremes::Float {
            min: f64::NAN,
            max: f64::NAN,
            nan,
        }
    } else {
        Extremes::Float {
            min: f64_from_key(lo),
            max: f64_from_key(hi),
            nan,
        }
    })
}

/// NumPy's `bincount(x, weights, minlength)`: counts (int64) or sums of weights (float64)
/// of each value of the 1-D non-negative integer array `x`.
pub fn bincount(x: &Array, weights: Option<&Array>, minlength: usize) -> Result<Array> {
    match x.ndim() {
        0 => {
            return Err(Error::Value(
                "object of too small depth for desired array".into(),
            ));
        }
        1 => {}
        _ => return Err(Error::Value("object too deep for desired array".into())),
    }
    // NumPy reads any integer array as intp (uint64 wraps, so values from 2^63 count as
    // negative); bool counts as 0 and 1; anything else fails its safe cast.
    if !matches!(x.dtype().kind(), Kind::Bool | Kind::Int | Kind::UInt) {
        return Err(cannot_cast(x.dtype(), DType::Int64));
    }
    let device = x.device();
    let w = match weights {
        None => None,
        Some(w) => {
            same_device(x, w)?;
            if w.ndim() != 1 || w.size() != x.size() {
                return Err(Error::Value(
                    "The weights and list don't have the same length.".into(),
                ));
            }
            if !safe_to_f64(w.dtype()) {
                return Err(cannot_cast(w.dtype(), DType::Float64));
            }
            Some(astype(w, DType::Float64)?)
        }
    };
    let xs = if x.dtype() == DType::Int64 {
        contiguous(x)?
    } else {
        astype(x, DType::Int64)?
    };
    let nbins = match minmax(&xs)? {
        Extremes::Int { min, .. } if min < 0 => {
            return Err(Error::Value(
                "'list' argument must have no negative elements".into(),
            ));
        }
        Extremes::Int { max, .. } => (max as u64 + 1).max(minlength as u64),
        _ => minlength as u64,
    };
    let out_dtype = if w.is_some() {
        DType::Float64
    } else {
        DType::Int64
    };
    let out = crate::ops::elementwise::fill::full(device, &[nbins as usize], out_dtype, &[0; 8])?;
    if x.size() == 0 || nbins == 0 {
        return Ok(out);
    }
    let kernel = kernels::histogram::bincount(w.is_some());
    count(device, kernel, &xs, w.as_ref(), &out, |l| l)?;
    Ok(out)
}

/// The uniform-bins histogram of the 1-D contiguous array `x` (already in the bin-edge
/// dtype `T`, float16/32/64): NumPy's `int((x - lo) / denom * scale)` with the
/// subtraction in `T` and the rest in `div` (`T` or float64), corrected against `edges`
/// (`nbins + 1` values of `T`). `lo`, `hi` are exact values of `T`, `denom`, `scale` of
/// `div`. Counts (int64) or sums of `weights` (float64, same length as `x`).
#[allow(clippy::too_many_arguments)]
pub fn histogram_uniform(
    x: &Array,
    weights: Option<&Array>,
    edges: &Array,
    lo: f64,
    hi: f64,
    denom: f64,
    scale: f64,
    div: DType,
) -> Result<Array> {
    check_bin_dtype(x.dtype())?;
    check_bin_dtype(div)?;
    if !(div == x.dtype() || div == DType::Float64) {
        return Err(Error::Type(format!(
            "histogram: no kernel computes {} bins in {}",
            x.dtype().name(),
            div.name()
        )));
    }
    let (w, out) = prepare(x, weights, edges)?;
    if x.size() == 0 || out.size() == 0 {
        return Ok(out);
    }
    let e = contiguous(edges)?;
    let kernel = kernels::histogram::uniform(x.dtype() as usize, div as usize, w.is_some())
        .ok_or_else(|| {
            Error::Type(format!(
                "histogram: no uniform-bins kernel for {}",
                x.dtype().name()
            ))
        })?;
    let ep = e.data_ptr();
    count(x.device(), kernel, &contiguous(x)?, w.as_ref(), &out, |l| {
        l.arg(ep).arg(lo).arg(hi).arg(denom).arg(scale)
    })?;
    Ok(out)
}

/// The histogram of the 1-D array `x` over explicit monotonic `edges` of the same dtype
/// (int64, float32 or float64; `nbins + 1` values): NumPy's bins `[e_i, e_{i+1})`, the
/// last one closed. Counts (int64) or sums of `weights` (float64).
pub fn histogram_edges(x: &Array, weights: Option<&Array>, edges: &Array) -> Result<Array> {
    match x.dtype() {
        DType::Int64 | DType::Float32 | DType::Float64 => {}
        d => {
            return Err(Error::Type(format!(
                "histogram: edge comparisons run in int64, float32 or float64, not {}",
                d.name()
            )));
        }
    }
    let (w, out) = prepare(x, weights, edges)?;
    if x.size() == 0 || out.size() == 0 {
        return Ok(out);
    }
    let e = contiguous(edges)?;
    let ep = e.data_ptr();
    let kernel = kernels::histogram::edges(x.dtype() as usize, w.is_some()).ok_or_else(|| {
        Error::Type(format!(
            "histogram: no edges kernel for {}",
            x.dtype().name()
        ))
    })?;
    count(x.device(), kernel, &contiguous(x)?, w.as_ref(), &out, |l| {
        l.arg(ep)
    })?;
    Ok(out)
}

/// Checks the shared histogram inputs; returns float64 weights and the zeroed output.
fn prepare(x: &Array, weights: Option<&Array>, edges: &Array) -> Result<(Option<Array>, Array)> {
    if x.ndim() != 1 || edges.ndim() != 1 || edges.size() == 0 || edges.dtype() != x.dtype() {
        return Err(Error::Value(format!(
            "histogram: need 1-D data and 1-D edges of one dtype, got {}-D {} and {}-D {} with {} edges",
            x.ndim(),
            x.dtype().name(),
            edges.ndim(),
            edges.dtype().name(),
            edges.size()
        )));
    }
    same_device(x, edges)?;
    let w = match weights {
        None => None,
        Some(w) => {
            same_device(x, w)?;
            if w.shape() != x.shape() {
                return Err(Error::Value(
                    "weights should have the same shape as a.".into(),
                ));
            }
            Some(astype(w, DType::Float64)?)
        }
    };
    let dtype = if w.is_some() {
        DType::Float64
    } else {
        DType::Int64
    };
    let out = crate::ops::elementwise::fill::full(x.device(), &[edges.size() - 1], dtype, &[0; 8])?;
    Ok((w, out))
}

/// Whether the counting kernels can count `nbins` bins of this kind in shared memory, for
/// `n` elements over `grid` blocks (the u32 shared counters must not overflow).
pub(crate) fn privatize(nbins: u64, weighted: bool, n: u64, grid: u64) -> bool {
    let limit = if weighted {
        PRIVATE_WEIGHT_BINS
    } else {
        PRIVATE_COUNT_BINS
    };
    nbins <= limit && n.div_ceil(grid.max(1)) < u32::MAX as u64
}

/// Launches `{name}_{count|weight}` with the shared parameter prefix (x, n, w, out,
/// nbins, private) followed by `extra`.
fn count(
    device: &'static Device,
    kernel: Kernel,
    x: &Array,
    w: Option<&Array>,
    out: &Array,
    extra: impl FnOnce(Launch) -> Launch,
) -> Result<()> {
    let weighted = w.is_some();
    let n = x.size() as u64;
    let nbins = out.size() as u64;
    if !x.layout().is_c_contiguous()
        || w.is_some_and(|w| w.size() as u64 != n || !w.layout().is_c_contiguous())
    {
        return Err(Error::Value(
            "counting kernels need contiguous data and weights of one length".into(),
        ));
    }
    // Privatized blocks each flush every bin: a few per SM are enough to hide latency.
    let sms = device.props.multi_processor_count.max(1) as u64;
    let private_grid = n.div_ceil(HIST_BLOCK as u64 * 16).clamp(1, sms * 4);
    let private = privatize(nbins, weighted, n, private_grid);
    let grid = if private {
        private_grid as u32
    } else {
        elementwise_grid(device, n)
    };
    let shared = if private {
        (nbins * if weighted { 8 } else { 4 }) as u32
    } else {
        0
    };
    // The counting kernels' parameters are (x, n, w, out, nbins, private) and then
    // the caller's extra ones for this kernel (edges, and for uniform bins lo, hi,
    // denom, scale). x is contiguous with n elements, w (when weighted) too, out holds
    // nbins zeroed 8-byte slots, edges nbins + 1 values; with `private`, nbins fits the
    // shared limits and `shared` covers one slot per bin.
    let l = Launch::new(device, kernel)?
        .grid(grid)
        .block(HIST_BLOCK)
        .shared(shared)
        .arg(x.data_ptr())
        .arg(n)
        .arg(w.map_or(0, |w| w.data_ptr()))
        .arg(out.data_ptr())
        .arg(nbins)
        .arg(private as u32);
    extra(l).run()
}

/// NumPy's uniform bins are computed in float16, float32 or float64: TypeError else.
fn check_bin_dtype(d: DType) -> Result<()> {
    match d {
        DType::Float16 | DType::Float32 | DType::Float64 => Ok(()),
        _ => Err(Error::Type(format!(
            "histogram: uniform bins are computed in float16, float32 or float64, not {}",
            d.name()
        ))),
    }
}

/// NumPy's `can_cast(from, float64, 'safe')`: everything but complex.
fn safe_to_f64(from: DType) -> bool {
    from.kind() != Kind::Complex
}

fn cannot_cast(from: DType, to: DType) -> Error {
    Error::Type(format!(
        "Cannot cast array data from dtype('{}') to dtype('{}') according to the rule 'safe'",
        from.name(),
        to.name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_casts_match_numpy() {
        assert!(safe_to_f64(DType::UInt64));
        assert!(safe_to_f64(DType::Bool));
        assert!(!safe_to_f64(DType::Complex128));
        assert_eq!(
            cannot_cast(DType::Float64, DType::Int64).to_string(),
            "Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'"
        );
    }

    #[test]
    fn shared_histograms_only_when_they_fit() {
        assert!(privatize(10, false, 1 << 20, 528));
        assert!(privatize(PRIVATE_COUNT_BINS, false, 1 << 20, 528));
        assert!(!privatize(PRIVATE_COUNT_BINS + 1, false, 1 << 20, 528));
        assert!(!privatize(PRIVATE_WEIGHT_BINS + 1, true, 1 << 20, 528));
        // A block counting 2^32 elements could overflow its u32 counters.
        assert!(!privatize(10, false, 1 << 40, 1));
    }
}
