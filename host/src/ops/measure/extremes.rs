//! The extremes of values by slot (a label's place in SciPy's `index`), behind
//! `minimum`, `maximum`, `minimum_position`, `maximum_position` and `extrema` with an
//! index array: two passes of `kernels/src/measure/extrema.rs` (keys, then the first
//! position of each slot's extreme keys).

use gpupy_kernels as kernels;
use gpupy_kernels::measure::{MEASURE_BLOCK, RUN, SlotArgs};

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::copy::{contiguous, same_device};
use crate::ops::elementwise_grid;

/// For `values` (int64, uint64 or float64) and `slots` (int64, the same shape; any
/// layouts), per slot `s` in `0..nslots`: the C-order index of the first element of
/// slot `s` holding its smallest value and of the first holding its largest (NaN above
/// every number, -0.0 equal to 0.0), as an (nslots, 2) int64 array; -1 for a slot
/// without elements. Elements of other slots are ignored.
pub fn extreme_positions(values: &Array, slots: &Array, nslots: u64) -> Result<Array> {
    if values.shape() != slots.shape() {
        return Err(Error::Value(
            "values and slots must have the same shape".into(),
        ));
    }
    if slots.dtype() != DType::Int64 {
        return Err(Error::Type(format!(
            "slots must be int64, not {}",
            slots.dtype().name()
        )));
    }
    same_device(values, slots)?;
    let (keys_k, firsts_k) =
        kernels::measure::extremes(values.dtype() as usize).ok_or_else(|| {
            Error::Type(format!(
                "extremes by label run on int64, uint64 or float64, not {}",
                values.dtype().name()
            ))
        })?;
    let device = values.device();
    let m = nslots as usize;
    let ones = vec![0xffu8; 16 * m];
    let pos = Array::from_host(device, &ones, &[m, 2], DType::Int64)?;
    let n = values.size() as u64;
    if n == 0 || m == 0 {
        return Ok(pos);
    }
    // Minimum keys from u64::MAX down, maximum keys from 0 up.
    let init: Vec<u8> = (0..2 * m)
        .flat_map(|k| if k % 2 == 0 { u64::MAX } else { 0 }.to_le_bytes())
        .collect();
    let keys = Array::from_host(device, &init, &[m, 2], DType::UInt64)?;
    let (values, slots) = (contiguous(values)?, contiguous(slots)?);
    let args = SlotArgs { n, slots: nslots };
    let grid = elementwise_grid(device, n.div_ceil(RUN));
    // (args, values, slots, keys): n values and slots, two keys per slot initialized as
    // the kernel's contract says.
    Launch::new(device, keys_k)?
        .grid(grid)
        .block(MEASURE_BLOCK)
        .arg(args)
        .arg(values.data_ptr())
        .arg(slots.data_ptr())
        .arg(keys.data_ptr())
        .run()?;
    // (args, values, slots, keys, pos): as above, keys final, two positions per slot
    // from u64::MAX (read back as -1 in int64).
    Launch::new(device, firsts_k)?
        .grid(grid)
        .block(MEASURE_BLOCK)
        .arg(args)
        .arg(values.data_ptr())
        .arg(slots.data_ptr())
        .arg(keys.data_ptr())
        .arg(pos.data_ptr())
        .run()?;
    Ok(pos)
}
