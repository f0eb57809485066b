//! The op traits (`BinaryOp<T>`, `UnaryOp<T>`: an op's output type and its meaning for
//! input type `T`) and the macros that implement them for families of dtypes.

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
        impl $crate::elementwise::ops::op::BinaryOp<$t> for $op {
            type Out = $t;
            #[inline(always)]
            #[allow(unused_imports)]
            fn apply($a: $t, $b: $t) -> $t { use $crate::elementwise::ops::float::Float as _; $body }
        }
    )* };
    ($op:ident, $out:ty, [$($t:ty),*], |$a:ident, $b:ident| $body:expr) => { $(
        impl $crate::elementwise::ops::op::BinaryOp<$t> for $op {
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
        impl $crate::elementwise::ops::op::UnaryOp<$t> for $op {
            type Out = $t;
            #[inline(always)]
            #[allow(unused_imports)]
            fn apply($a: $t) -> $t { use $crate::elementwise::ops::float::Float as _; $body }
        }
    )* };
    ($op:ident, $out:ty, [$($t:ty),*], |$a:ident| $body:expr) => { $(
        impl $crate::elementwise::ops::op::UnaryOp<$t> for $op {
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
