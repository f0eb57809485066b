//! What each op means, per dtype. These are plain functions, shared by every kernel
//! variant and tested on the CPU; the kernel bodies only decide which elements to visit.
//!
//! An op is a zero-sized type implementing `BinaryOp<T>` or `UnaryOp<T>` for each dtype
//! in its table entry (`table.rs`). Dtype families share one body through the `binary!`
//! and `unary!` macros of `op`; NumPy's per-dtype exceptions (bool `+` is `or`, integer
//! division by zero gives 0, float16 math runs in float32) are explicit impls.

pub mod op;

pub mod arith;
pub mod bitwise;
pub mod compare;
pub mod complex;
pub mod divmod;
pub mod float;
pub mod integer;
pub mod math;

pub use op::{BinaryOp, UnaryOp};

pub use arith::*;
pub use bitwise::*;
pub use compare::*;
pub use divmod::*;
pub use integer::*;
pub use math::*;
