//! The reduction family: sums, products, means, extrema, arg-extrema, any/all, counts
//! and variances, along any axes or of whole arrays, for every dtype of `table.rs`.
//!
//! - `reduction`: what each reduction means per dtype (fold, merge, finish), CPU-tested;
//! - `gpu`: the engine (block, serial and merge kernels) and its entry points, compiled
//!   for the GPU only;
//! - here: the module's kernel table and the handles the host launches by.

pub mod reduction;

#[cfg(all(target_arch = "nvptx64", feature = "reduce"))]
mod gpu;

use crate::dtype::NDTYPES;
use crate::loops::{REDUCE_LOOPS, loop_slots};
use crate::registry::Kernel;

/// `gpupy_reduce_<op>_<dtype>$suffix` for every loop, op by op.
macro_rules! reduce_names {
    ([$suffix:literal] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => {
        &[$($(concat!("gpupy_reduce_", stringify!($op), "_", stringify!($ty), $suffix),)*)*]
    };
}

crate::module_parts! {
    /// The parts of the reduction module, one per engine kernel.
    Part in Reduce {
        /// Contiguous or long slices, folded by a block or a warp.
        Block = crate::for_each_reduce_op!(reduce_names, "_block"),
        /// One thread per output.
        Serial = crate::for_each_reduce_op!(reduce_names, "_serial"),
        /// Merges the partial accumulators of split launches.
        Merge = crate::for_each_reduce_op!(reduce_names, "_merge"),
    }
}

const SLOTS: [[u16; NDTYPES]; REDUCE_LOOPS.len()] = loop_slots(REDUCE_LOOPS);

/// The (block, serial, merge) kernels of reduction `op` (its index in
/// `for_each_reduce_op!`) for input dtype `dtype`, if it has that loop.
pub fn kernels(op: usize, dtype: usize) -> Option<[Kernel; 3]> {
    let slot = *SLOTS.get(op)?.get(dtype)?;
    (slot != u16::MAX)
        .then(|| [Part::Block, Part::Serial, Part::Merge].map(|p| p.at(slot as usize)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_name_their_loops() {
        for (op, (name, loops)) in REDUCE_LOOPS.iter().enumerate() {
            for l in loops.iter() {
                let ty = crate::loops::DTYPE_NAMES[l.input];
                let [b, s, m] = kernels(op, l.input).unwrap();
                assert_eq!(
                    KERNELS[b.index as usize],
                    format!("gpupy_reduce_{name}_{ty}_block")
                );
                assert_eq!(
                    KERNELS[s.index as usize],
                    format!("gpupy_reduce_{name}_{ty}_serial")
                );
                assert_eq!(
                    KERNELS[m.index as usize],
                    format!("gpupy_reduce_{name}_{ty}_merge")
                );
            }
        }
    }
}
