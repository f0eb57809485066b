//! The small tables the measure kernels read from device memory: a grid's axes
//! (`kernels::measure::grid::Axis`, innermost first) and a structure's neighbours
//! (`grid::Neighbour`), uploaded as their `#[repr(C)]` bytes.

use gpupy_kernels::measure::grid::{Axis, Neighbour};

use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Index;

/// Most axes of a labelling or bounding-box grid (an axis is one bit of the edge masks).
pub const GRID_DIMS: usize = 64;

/// `bytes` as a new device array of bytes.
fn upload(device: &'static Device, bytes: &[u8]) -> Result<Array> {
    Array::from_host(device, bytes, &[bytes.len()], DType::UInt8)
}

/// The axes of a C-contiguous grid of `shape`, innermost first, on the device.
pub fn axes(device: &'static Device, shape: &[usize]) -> Result<Array> {
    if shape.len() > GRID_DIMS {
        return Err(Error::Value(format!(
            "at most {GRID_DIMS} dimensions, got {}",
            shape.len()
        )));
    }
    let bytes: Vec<u8> = shape
        .iter()
        .rev()
        .flat_map(|&n| Axis::new(n as u64).to_bytes())
        .collect();
    upload(device, &bytes)
}

/// The neighbours one step away along `steps` (each a step of -1, 0 or 1 per axis, C
/// order) in a grid of `shape`, on the device.
pub fn neighbours(device: &'static Device, shape: &[usize], steps: &[Vec<i64>]) -> Result<Array> {
    let mut bytes = Vec::with_capacity(steps.len() * 24);
    for step in steps {
        if step.len() != shape.len() || step.iter().any(|s| !(-1..=1).contains(s)) {
            return Err(Error::Value(format!(
                "a neighbour step of {} axes in -1..=1 expected, got {step:?}",
                shape.len()
            )));
        }
        bytes.extend(Neighbour::from_step(shape, step).to_bytes());
    }
    if bytes.is_empty() {
        // A table the kernels never read still needs an address.
        bytes.push(0);
    }
    upload(device, &bytes)
}

/// The last element of the 1-D int64 array `a` (not empty), read to the host.
pub fn last_i64(a: &Array) -> Result<i64> {
    let mut b = [0u8; 8];
    a.index(&[Index::Int(-1)])?.to_host(&mut b)?;
    Ok(i64::from_le_bytes(b))
}
