//! Measurements on labelled images and the distance transform
//! (`kernels/src/measure/`): SciPy's `label`, `find_objects`, the extremes by label
//! behind `minimum`/`maximum`/`extrema` and their positions, and
//! `distance_transform_edt`'s feature transform and distances.
//!
//! The Python layer (`gpupyx/scipy/ndimage/_measurements.py`, `_label.py`,
//! `_distance.py`) resolves SciPy's arguments (structures, outputs, index forms) and
//! composes the rest of the measurements from gpupy's operations; these functions
//! check what the kernels rely on and launch.

mod boxes;
mod edt;
mod extremes;
mod label;
mod tables;

pub use boxes::find_objects;
pub use edt::{distances, feature_transform};
pub use extremes::extreme_positions;
pub use label::label;
