//! Creation kernels: `gpupy_arange_<dtype>` fills an array with an arithmetic sequence
//! exactly as NumPy's `arange` does. NumPy writes the first two elements (`start` and
//! `start + step`, converted to the dtype), then its per-dtype `fill` computes the rest as
//! `first + i * (second - first)` in the dtype's arithmetic (float16 in float32, complex
//! per part, integers modulo their width). `Arange::at` is that formula; it compiles for
//! the host too, where `cargo test` checks it.

use crate::dtype::{c64, c128};

/// Element `i` of the sequence whose first two elements are `first` and `second`.
pub trait Arange: Copy {
    fn at(first: Self, second: Self, i: u64) -> Self;
}

/// Integers wrap like C: only the low bits of `first + i * delta` are kept.
macro_rules! arange_int {
    ($($t:ty),*) => { $(
        impl Arange for $t {
            #[inline(always)]
            fn at(first: $t, second: $t, i: u64) -> $t {
                if i == 1 {
                    return second;
                }
                let delta = (second as u64).wrapping_sub(first as u64);
                (first as u64).wrapping_add(i.wrapping_mul(delta)) as $t
            }
        }
    )* };
}
arange_int!(i8, i16, i32, i64, u8, u16, u32, u64);

/// `first + (i as F) * delta` in the float type `F`; the two given elements as they are.
macro_rules! arange_float {
    ($($t:ty),*) => { $(
        impl Arange for $t {
            #[inline(always)]
            fn at(first: $t, second: $t, i: u64) -> $t {
                match i {
                    0 => first,
                    1 => second,
                    _ => first + (i as $t) * (second - first),
                }
            }
        }
    )* };
}
arange_float!(f32, f64);

impl Arange for f16 {
    /// NumPy's HALF_fill computes in float32 and rounds once to half.
    #[inline(always)]
    fn at(first: f16, second: f16, i: u64) -> f16 {
        match i {
            0 => first,
            1 => second,
            _ => {
                let start = first as f32;
                let delta = second as f32 - start;
                (start + (i as f32) * delta) as f16
            }
        }
    }
}

impl Arange for c64 {
    #[inline(always)]
    fn at(first: c64, second: c64, i: u64) -> c64 {
        c64::new(
            f32::at(first.re, second.re, i),
            f32::at(first.im, second.im, i),
        )
    }
}

impl Arange for c128 {
    #[inline(always)]
    fn at(first: c128, second: c128, i: u64) -> c128 {
        c128::new(
            f64::at(first.re, second.re, i),
            f64::at(first.im, second.im, i),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_like_c() {
        assert_eq!(i8::at(-128, 127, 2), 126);
        assert_eq!(i8::at(0, 100, 3), 44);
        assert_eq!(u8::at(250, 253, 4), 6);
        assert_eq!(i64::at(10, 7, 5), -5);
        assert_eq!(u64::at(u64::MAX, 0, 1), 0);
        assert_eq!(u16::at(7, 7, 1000), 7);
    }

    #[test]
    fn floats_follow_numpy_fill() {
        // np.arange(0, 1, 0.1, dtype=np.float32)[7] == np.float32(0.70000005)
        let (a, b) = (0.0f32, 0.1f32);
        assert_eq!(f32::at(a, b, 7), 7.0f32 * 0.1f32);
        assert_eq!(f64::at(1.0, 1.5, 3), 2.5);
        // The second element is stored, not recomputed (0.1 + 1 * (0.3 - 0.1) != 0.3).
        assert_eq!(f64::at(0.1, 0.3, 1), 0.3);
        assert_eq!(f16::at(0.0, 0.5, 5) as f32, 2.5);
        let c = c128::at(c128::new(0.0, 1.0), c128::new(1.0, 3.0), 2);
        assert_eq!((c.re, c.im), (2.0, 5.0));
        let c = c64::at(c64::new(0.0, 1.0), c64::new(0.5, 1.0), 4);
        assert_eq!((c.re, c.im), (2.0, 1.0));
    }
}
