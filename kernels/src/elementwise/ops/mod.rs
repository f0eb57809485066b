//! What each op means, per dtype. These are plain functions, shared by every kernel
//! variant and tested on the CPU; the kernel bodies only decide which elements to visit.
//!
//! An op is a zero-sized type implementing `BinaryOp<T>` or `UnaryOp<T>` for each dtype
//! in its table entry (`table.rs`). Dtype families share one body through the `binary!`
//! and `unary!` macros below; NumPy's per-dtype exceptions (bool `+` is `or`, integer
//! division by zero gives 0, float16 math runs in float32) are explicit impls.

pub mod arith;
pub mod bitwise;
pub mod compare;
pub mod complex;
pub mod divmod;
pub mod float;
pub mod math;

pub use arith::*;
pub use bitwise::*;
pub use compare::*;
pub use divmod::*;
pub use math::*;

pub trait BinaryOp<T> {
    type Out: Copy;
    fn apply(a: T, b: T) -> Self::Out;
}

pub trait UnaryOp<T> {
    type Out: Copy;
    fn apply(a: T) -> Self::Out;
}

/// `binary!(Op, Out, [types], |a, b| expr)`: one impl per type, `Out` either a type or
/// `Self` for "the input dtype".
macro_rules! binary {
    ($op:ident, Self, [$($t:ty),*], |$a:ident, $b:ident| $body:expr) => { $(
        impl $crate::elementwise::ops::BinaryOp<$t> for $op {
            type Out = $t;
            #[inline(always)]
            #[allow(unused_imports)]
            fn apply($a: $t, $b: $t) -> $t { use $crate::elementwise::ops::float::Float as _; $body }
        }
    )* };
    ($op:ident, $out:ty, [$($t:ty),*], |$a:ident, $b:ident| $body:expr) => { $(
        impl $crate::elementwise::ops::BinaryOp<$t> for $op {
            type Out = $out;
            #[inline(always)]
            #[allow(unused_imports)]
            fn apply($a: $t, $b: $t) -> $out { use $crate::elementwise::ops::float::Float as _; $body }
        }
    )* };
}

/// `unary!(Op, Out, [types], |a| expr)`, as `binary!`.
macro_rules! unary {
    ($op:ident, Self, [$($t:ty),*], |$a:ident| $body:expr) => { $(
        impl $crate::elementwise::ops::UnaryOp<$t> for $op {
            type Out = $t;
            #[inline(always)]
            #[allow(unused_imports)]
            fn apply($a: $t) -> $t { use $crate::elementwise::ops::float::Float as _; $body }
        }
    )* };
    ($op:ident, $out:ty, [$($t:ty),*], |$a:ident| $body:expr) => { $(
        impl $crate::elementwise::ops::UnaryOp<$t> for $op {
            type Out = $out;
            #[inline(always)]
            #[allow(unused_imports)]
            fn apply($a: $t) -> $out { use $crate::elementwise::ops::float::Float as _; $body }
        }
    )* };
}

pub(crate) use {binary, unary};

/// Declares unit structs for ops.
macro_rules! ops {
    ($($name:ident),* $(,)?) => { $( pub struct $name; )* };
}
pub(crate) use ops;

#[cfg(test)]
pub(crate) fn bin<O: BinaryOp<T>, T>(a: T, b: T) -> O::Out {
    O::apply(a, b)
}
#[cfg(test)]
pub(crate) fn un<O: UnaryOp<T>, T>(a: T) -> O::Out {
    O::apply(a)
}
