//! What each op means, per dtype. These are plain functions, shared by every kernel
//! variant and tested on the CPU; the kernel bodies only decide which elements to visit.

/// A dtype the kernels compute with.
pub trait Element: Copy + 'static {
    const ZERO: Self;
}

impl Element for f32 {
    const ZERO: Self = 0.0;
}
impl Element for f64 {
    const ZERO: Self = 0.0;
}

/// Conversion between dtypes with NumPy's `astype` meaning (round to nearest for floats).
pub trait Cast<O> {
    fn cast(self) -> O;
}

macro_rules! float_casts {
    ($($from:ty => $($to:ty),*;)*) => { $($(
        impl Cast<$to> for $from {
            #[inline(always)]
            fn cast(self) -> $to {
                self as $to
            }
        }
    )*)* };
}
float_casts! { f32 => f32, f64; f64 => f32, f64; }

/// A binary elementwise op on `T`.
pub trait BinaryOp<T> {
    fn apply(a: T, b: T) -> T;
}

pub struct Add;
pub struct Subtract;
pub struct Multiply;
pub struct Divide;

impl<T: core::ops::Add<Output = T>> BinaryOp<T> for Add {
    #[inline(always)]
    fn apply(a: T, b: T) -> T {
        a + b
    }
}
impl<T: core::ops::Sub<Output = T>> BinaryOp<T> for Subtract {
    #[inline(always)]
    fn apply(a: T, b: T) -> T {
        a - b
    }
}
impl<T: core::ops::Mul<Output = T>> BinaryOp<T> for Multiply {
    #[inline(always)]
    fn apply(a: T, b: T) -> T {
        a * b
    }
}
impl<T: core::ops::Div<Output = T>> BinaryOp<T> for Divide {
    #[inline(always)]
    fn apply(a: T, b: T) -> T {
        a / b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_division_follows_ieee() {
        assert_eq!(<Divide as BinaryOp<f32>>::apply(1.0, 0.0), f32::INFINITY);
        assert!(<Divide as BinaryOp<f64>>::apply(0.0, 0.0).is_nan());
        assert_eq!(<Subtract as BinaryOp<f64>>::apply(0.5, 2.0), -1.5);
    }
}
