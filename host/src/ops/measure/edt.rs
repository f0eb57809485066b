//! SciPy's `distance_transform_edt` on the device: the feature transform of
//! `kernels/src/measure/edt.rs`, a pass per axis (a thread per line, the features
//! ping-ponging between two buffers), then the distances from the features.

use gpupy_kernels as kernels;
use gpupy_kernels::args::fast_divisor;
use gpupy_kernels::measure::{EDT_DIMS, EdtArgs, MEASURE_BLOCK};

use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::copy::{cast_into, contiguous, same_device};
use crate::ops::elementwise::fill::fill;
use crate::ops::elementwise_grid;

/// The launch arguments over a grid of `shape` (rank 1..=EDT_DIMS, extents 1..2^31).
fn grid_args(shape: &[usize], sampling: &[f64]) -> Result<EdtArgs> {
    let rank = shape.len();
    if !(1..=EDT_DIMS).contains(&rank) {
        return Err(Error::Value(format!(
            "the distance transform takes 1 to {EDT_DIMS} dimensions (of extent above 1), got {rank}"
        )));
    }
    if sampling.len() != rank {
        return Err(Error::Value(format!(
            "{} sampling values for {rank} dimensions",
            sampling.len()
        )));
    }
    if shape.iter().any(|&e| e == 0 || e >= 1 << 31) {
        return Err(Error::Value(format!(
            "the distance transform needs extents from 1 to 2^31 - 1 (int32 features), got {shape:?}"
        )));
    }
    let mut a = EdtArgs {
        n: shape.iter().product::<usize>() as u64,
        lines: 0,
        len: 0,
        axis: 0,
        _pad: 0,
        shape: [1; EDT_DIMS],
        magic: [0; EDT_DIMS],
        shift: [0; EDT_DIMS],
        sampling: [1.0; EDT_DIMS],
    };
    for (k, &e) in shape.iter().enumerate() {
        a.shape[k] = e as u64;
        (a.magic[k], a.shift[k]) = fast_divisor(e as u64);
        a.sampling[k] = sampling[k];
    }
    Ok(a)
}

/// Threads per block of a pass over `lines` lines: small blocks when lines are few, so
/// they spread over every SM (each thread runs a whole line).
fn line_block(device: &Device, lines: u64) -> u32 {
    let sms = device.props.multi_processor_count.max(1) as u64;
    (lines / (2 * sms)).next_multiple_of(32).clamp(32, 128) as u32
}

/// SciPy's feature transform of `mask` (bool, any layout, rank 1..=EDT_DIMS: true
/// where the input is nonzero): for every element, the coordinates (int32, one plane
/// per axis: shape `(rank, *mask.shape)`) of the nearest false element, distances
/// scaled by `sampling` per axis, ties as SciPy breaks them. `init` (int32, that shape)
/// gives the features SciPy starts from (zeros, or the `indices` a caller passed), which
/// stay in planes 1.. where the mask has no false element at all.
pub fn feature_transform(mask: &Array, sampling: &[f64], init: Option<&Array>) -> Result<Array> {
    if mask.dtype() != DType::Bool {
        return Err(Error::Type(format!(
            "the feature transform takes a bool mask, not {}",
            mask.dtype().name()
        )));
    }
    let shape = mask.shape().to_vec();
    let mut a = grid_args(&shape, sampling)?;
    let rank = shape.len();
    let device = mask.device();
    let mut planes = vec![rank];
    planes.extend(&shape);
    // Pass 0 writes into `x`, which holds SciPy's initial features.
    let x = Array::empty(device, &planes, DType::Int32)?;
    match init {
        Some(i) => {
            same_device(mask, i)?;
            if i.shape() != planes.as_slice() {
                return Err(Error::Value("initial features of the wrong shape".into()));
            }
            cast_into(i, &x)?;
        }
        None => fill(&x, &[0; 4])?,
    }
    let n = a.n as usize;
    let mask = contiguous(mask)?;
    let y = if rank > 1 {
        Some(Array::empty(device, &planes, DType::Int32)?)
    } else {
        None
    };
    let stack = Array::empty(device, &[n], DType::UInt32)?;
    let (first, pass, _) = kernels::measure::edt(rank)
        .ok_or_else(|| Error::Value(format!("no distance transform of rank {rank}")))?;
    for (d, &extent) in shape.iter().enumerate() {
        a.axis = d as u32;
        a.len = extent as u64;
        a.lines = a.n / a.len;
        let block = line_block(device, a.lines);
        let grid = a.lines.div_ceil(block as u64).min(1 << 20) as u32;
        let (src, dst) = match (&y, d % 2) {
            (Some(y), 1) => (&x, y),
            (Some(y), _) => (y, &x),
            (None, _) => (&x, &x),
        };
        if d == 0 {
            // (a, mask, stack, ft): mask holds the n elements of the C-contiguous grid of
            // a.shape (rank R = the kernel's, extents 1..2^31), stack lines * len = n
            // slots, ft R planes of n; a.axis is 0.
            Launch::new(device, first)?
                .grid(grid)
                .block(block)
                .arg(a)
                .arg(mask.data_ptr())
                .arg(stack.data_ptr())
                .arg(x.data_ptr())
                .run()?;
        } else {
            // (a, src, stack, dst): as above, src and dst R planes of n each (two
            // buffers), a.axis < R.
            Launch::new(device, pass)?
                .grid(grid)
                .block(block)
                .arg(a)
                .arg(src.data_ptr())
                .arg(stack.data_ptr())
                .arg(dst.data_ptr())
                .run()?;
        }
    }
    // The last pass wrote x when rank is odd (passes 0, 2, .. write x).
    Ok(match y {
        Some(y) if rank.is_multiple_of(2) => y,
        _ => x,
    })
}

/// The distance of each element to its feature (`ft`, int32 of shape `(rank, *shape)`,
/// C-contiguous or not), as SciPy computes it from the features: float64 of `shape`.
pub fn distances(ft: &Array, sampling: &[f64]) -> Result<Array> {
    if ft.dtype() != DType::Int32 || ft.ndim() < 2 || ft.shape()[0] != ft.ndim() - 1 {
        return Err(Error::Value(
            "features must be int32 of shape (rank, *shape)".into(),
        ));
    }
    let shape = ft.shape()[1..].to_vec();
    let a = grid_args(&shape, sampling)?;
    let device = ft.device();
    let out = Array::empty(device, &shape, DType::Float64)?;
    let ft = contiguous(ft)?;
    let (_, _, f) = kernels::measure::edt(shape.len())
        .ok_or_else(|| Error::Value(format!("no distance transform of rank {}", shape.len())))?;
    // (a, ft, out): ft holds R planes of the n elements of the C-contiguous grid of
    // a.shape (extents 1..2^31), out n doubles.
    Launch::new(device, f)?
        .grid(elementwise_grid(device, a.n))
        .block(MEASURE_BLOCK)
        .arg(a)
        .arg(ft.data_ptr())
        .arg(out.data_ptr())
        .run()?;
    Ok(out)
}
