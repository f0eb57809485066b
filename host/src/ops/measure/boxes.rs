//! SciPy's `find_objects` on the device: the bounding box of each label, by the runs of
//! `kernels/src/measure/objects.rs`, one atomic update per stretch of a label.

use gpupy_kernels as kernels;
use gpupy_kernels::measure::{BoxArgs, MEASURE_BLOCK, RUN};

use super::tables::axes;
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::copy::contiguous;
use crate::ops::elementwise_grid;

/// The boxes of labels `1..=max_label` in `labels` (int32 or int64, any layout, at least
/// one dimension): a (max_label, 2, ndim) uint64 array, per label the lowest coordinate
/// along each axis (C order) then one past the highest; a label without elements has
/// starts `u64::MAX` and ends 0.
pub fn find_objects(labels: &Array, max_label: u64) -> Result<Array> {
    let shape = labels.shape().to_vec();
    let nd = shape.len();
    if nd == 0 {
        return Err(Error::Value(
            "find_objects needs at least one dimension".into(),
        ));
    }
    let f = kernels::measure::boxes(labels.dtype() as usize).ok_or_else(|| {
        Error::Type(format!(
            "find_objects reads int32 or int64 labels, not {}",
            labels.dtype().name()
        ))
    })?;
    let device = labels.device();
    let slots = (max_label as usize)
        .checked_mul(2 * nd)
        .ok_or_else(|| Error::Value(format!("too many labels: {max_label}")))?;
    // Starts from u64::MAX down, ends from 0 up.
    let init: Vec<u8> = (0..slots)
        .flat_map(|k| if k % (2 * nd) < nd { u64::MAX } else { 0 }.to_le_bytes())
        .collect();
    let boxes = Array::from_host(device, &init, &[max_label as usize, 2, nd], DType::UInt64)?;
    let n = labels.size() as u64;
    if n == 0 || max_label == 0 {
        return Ok(boxes);
    }
    let labels = contiguous(labels)?;
    let axes = axes(device, &shape)?;
    let args = BoxArgs {
        n,
        max_label,
        ndim: nd as u32,
        _pad: 0,
    };
    // (args, labels, axes, boxes): labels holds the n elements of the C-contiguous grid
    // the axes table lists (ndim >= 1, extents >= 1); boxes 2 ndim slots per label.
    Launch::new(device, f)?
        .grid(elementwise_grid(device, n.div_ceil(RUN)))
        .block(MEASURE_BLOCK)
        .arg(args)
        .arg(labels.data_ptr())
        .arg(axes.data_ptr())
        .arg(boxes.data_ptr())
        .run()?;
    Ok(boxes)
}
