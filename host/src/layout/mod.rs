//! Shapes, strides and views, in elements. Pure Rust with no GPU in sight, so all of it
//! is unit-tested on any machine. Bytes appear only at the Python boundary (`.strides`).
//!
//! Invariant kept by every constructor of an `Array`: all elements a layout can address
//! lie inside its buffer (`Layout::fits`). Kernels rely on it for memory safety.

pub mod advanced;
mod broadcast;
mod coalesce;
mod index;
mod order;
mod reshape;
mod strides;

pub use broadcast::broadcast_shapes;
pub use coalesce::{coalesce, merge_axes};
pub use index::Index;
pub use reshape::resolve_shape;
pub use strides::{Layout, normalize_axis, shape_str};
