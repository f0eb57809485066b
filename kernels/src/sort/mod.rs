//! The sort family: stable LSD radix sort and argsort (Onesweep), and `searchsorted`,
//! for every dtype with NumPy's order (NaNs last, signed zeros equal, complex
//! lexicographic).
//!
//! - `radix`: the sort keys, digits and launch plan (CPU-tested);
//! - `search`: the binary search over sort keys (CPU-tested);
//! - `gpu/`: the kernels and their entry points, compiled for the GPU only;
//! - here: the module's kernel table and the handles the host launches by.

pub mod radix;
pub mod search;

#[cfg(all(target_arch = "nvptx64", feature = "sort"))]
mod gpu;

use crate::registry::{Kernel, position};

macro_rules! sort_names {
    ([$prefix:literal] $(($name:ident, $t:ident))*) => {
        &[$(concat!($prefix, stringify!($name))),*]
    };
}
macro_rules! sort_keys {
    ([] $(($name:ident, $t:ident))*) => {
        &[$(position(crate::loops::DTYPE_NAMES, stringify!($name))),*]
    };
}

crate::module_parts! {
    /// The parts of the sort module, by dtype in `for_each_sort_dtype!` order.
    Part in Sort {
        /// Counts every digit of every pass.
        Histogram = crate::for_each_sort_dtype!(sort_names, "gpupy_sort_histogram_"),
        /// One pass over values only.
        Onesweep = crate::for_each_sort_dtype!(sort_names, "gpupy_sort_onesweep_"),
        /// One pass over values and an index payload.
        OnesweepIdx = crate::for_each_sort_dtype!(sort_names, "gpupy_sort_onesweep_idx_"),
        /// Where each digit's run starts, per pass (one kernel for every dtype).
        Starts = &["gpupy_sort_starts"],
        /// `searchsorted`.
        Search = crate::for_each_sort_dtype!(sort_names, "gpupy_searchsorted_"),
    }
}

const SLOTS: [u16; crate::dtype::NDTYPES] =
    crate::registry::by_key(crate::for_each_sort_dtype!(sort_keys));

/// The kernel of `part` for keys of dtype `dtype` (`Starts` has one for all).
pub fn kernel(part: Part, dtype: usize) -> Option<Kernel> {
    if part == Part::Starts {
        return Some(part.at(0));
    }
    let slot = *SLOTS.get(dtype)?;
    (slot != u16::MAX).then(|| part.at(slot as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_name_their_kernels() {
        for (d, name) in crate::loops::DTYPE_NAMES.iter().enumerate().take(14) {
            let k = kernel(Part::OnesweepIdx, d).unwrap();
            assert_eq!(
                KERNELS[k.index as usize],
                format!("gpupy_sort_onesweep_idx_{name}")
            );
            let k = kernel(Part::Search, d).unwrap();
            assert_eq!(
                KERNELS[k.index as usize],
                format!("gpupy_searchsorted_{name}")
            );
        }
        assert!(kernel(Part::Histogram, 14).is_none());
        assert_eq!(
            KERNELS[kernel(Part::Starts, 0).unwrap().index as usize],
            "gpupy_sort_starts"
        );
    }
}
