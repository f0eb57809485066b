//! The sort family's kernels (compiled for the GPU only).

mod radix;
mod search;
