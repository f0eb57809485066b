//! SciPy's `label` on the device: connected components of a mask under a structure,
//! numbered 1.. in the order of each component's first element (C order), by the
//! union-find of `kernels/src/measure/union_find.rs`: first parents, unions, roots,
//! then the inclusive scan of the root flags ranks the roots.

use gpupy_kernels as kernels;
use gpupy_kernels::measure::{LabelArgs, MEASURE_BLOCK, wide_links};

use super::tables::{axes, last_i64, neighbours};
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::copy::contiguous;
use crate::ops::elementwise_grid;
use crate::ops::scan::{ScanOp, scan_into};

/// The components of the bool array `mask` (true: foreground; any layout, at least one
/// dimension) connected through the earlier neighbours `steps` (the half of a symmetric
/// structure before its center in C order: per neighbour a step of -1, 0 or 1 per axis).
/// Returns the labels (int64 when `int64`, else int32; 0 for background) and how many
/// components there are.
pub fn label(mask: &Array, steps: &[Vec<i64>], int64: bool) -> Result<(Array, u64)> {
    if mask.dtype() != DType::Bool {
        return Err(Error::Type(format!(
            "label takes a bool mask, not {}",
            mask.dtype().name()
        )));
    }
    let out_dtype = if int64 { DType::Int64 } else { DType::Int32 };
    let device = mask.device();
    let shape = mask.shape().to_vec();
    let n = mask.size() as u64;
    let out = Array::empty(device, &shape, out_dtype)?;
    if n == 0 {
        return Ok((out, 0));
    }
    if shape.is_empty() {
        return Err(Error::Value("label needs at least one dimension".into()));
    }
    if !int64 && n >= (1 << 31) - 2 {
        return Err(Error::Value(format!(
            "{n} elements may have more labels than int32 holds"
        )));
    }
    let mask = contiguous(mask)?;
    let axes = axes(device, &shape)?;
    let nbrs = neighbours(device, &shape, steps)?;
    let wide = wide_links(n);
    let parent = Array::empty(
        device,
        &[n as usize],
        if wide { DType::UInt64 } else { DType::UInt32 },
    )?;
    let roots = Array::empty(device, &[n as usize], DType::Int64)?;
    let [init, link, flatten, number] = kernels::measure::label(wide, int64);
    let args = LabelArgs {
        n,
        ndim: shape.len() as u32,
        neighbours: steps.len() as u32,
    };
    let grid = elementwise_grid(device, n);
    for step in [init, link] {
        // (args, mask, axes, nbrs, parent): mask and parent hold the n elements of the
        // C-contiguous grid whose axes (ndim <= 64, extents >= 1, product n) the axes
        // table lists; nbrs holds `neighbours` entries; the link width fits n
        // (wide_links).
        Launch::new(device, step)?
            .grid(grid)
            .block(MEASURE_BLOCK)
            .arg(args)
            .arg(mask.data_ptr())
            .arg(axes.data_ptr())
            .arg(nbrs.data_ptr())
            .arg(parent.data_ptr())
            .run()?;
    }
    // (args, parent, roots): n links after the unions, n int64 root flags.
    Launch::new(device, flatten)?
        .grid(grid)
        .block(MEASURE_BLOCK)
        .arg(args)
        .arg(parent.data_ptr())
        .arg(roots.data_ptr())
        .run()?;
    // The inclusive count of roots, in place: each root's rank + 1 is its label.
    scan_into(&roots, 0, ScanOp::Sum, false, &roots)?;
    let rank = roots;
    // (args, parent, rank, out): n flattened links (each a root or the background mark),
    // n inclusive root counts, n labels of out's dtype.
    Launch::new(device, number)?
        .grid(grid)
        .block(MEASURE_BLOCK)
        .arg(args)
        .arg(parent.data_ptr())
        .arg(rank.data_ptr())
        .arg(out.data_ptr())
        .run()?;
    // Read last, so the numbering is queued before the wait.
    let count = last_i64(&rank)? as u64;
    Ok((out, count))
}
