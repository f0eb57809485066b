//! Comparisons, logical ops, NaN-aware maximum/minimum and the float predicates.
//! Complex numbers order lexicographically (real part first), as NumPy orders them;
//! any comparison with a NaN is false except `!=`.
// One body per comparison for every dtype: for bools it is NumPy's False < True.
#![allow(clippy::bool_comparison)]

use super::op::{binary, ops, unary};
use crate::dtype::{c64, c128};

ops!(Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual);
ops!(LogicalAnd, LogicalOr, LogicalXor, LogicalNot);
ops!(Maximum, Minimum, Fmax, Fmin);
ops!(Isnan, Isinf, Isfinite, Signbit);

binary!(
    Equal,
    bool,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64],
    |a, b| a == b
);
binary!(
    NotEqual,
    bool,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64],
    |a, b| a != b
);
binary!(
    Less,
    bool,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64],
    |a, b| a < b
);
binary!(
    LessEqual,
    bool,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64],
    |a, b| a <= b
);
binary!(
    Greater,
    bool,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64],
    |a, b| a > b
);
binary!(
    GreaterEqual,
    bool,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64],
    |a, b| a >= b
);

binary!(Equal, bool, [c64, c128], |a, b| a.re == b.re
    && a.im == b.im);
binary!(NotEqual, bool, [c64, c128], |a, b| !(a.re == b.re
    && a.im == b.im));
binary!(Less, bool, [c64, c128], |a, b| a.re < b.re
    || (a.re == b.re && a.im < b.im));
binary!(LessEqual, bool, [c64, c128], |a, b| a.re < b.re
    || (a.re == b.re && a.im <= b.im));
binary!(Greater, bool, [c64, c128], |a, b| a.re > b.re
    || (a.re == b.re && a.im > b.im));
binary!(GreaterEqual, bool, [c64, c128], |a, b| a.re > b.re
    || (a.re == b.re && a.im >= b.im));

/// Truth of a value, as `bool(x)` in NumPy.
pub trait Truth: Copy {
    fn truth(self) -> bool;
}
macro_rules! truth {
    ($($t:ty),*) => { $( impl Truth for $t { #[inline(always)] fn truth(self) -> bool { self != (0 as $t) } } )* };
}
truth!(i8, i16, i32, i64, u8, u16, u32, u64);
impl Truth for bool {
    #[inline(always)]
    fn truth(self) -> bool {
        self
    }
}
macro_rules! truth_float {
    ($($t:ty),*) => { $( impl Truth for $t { #[inline(always)] fn truth(self) -> bool { self != 0.0 } } )* };
}
truth_float!(f16, f32, f64);
impl Truth for c64 {
    #[inline(always)]
    fn truth(self) -> bool {
        self.re != 0.0 || self.im != 0.0
    }
}
impl Truth for c128 {
    #[inline(always)]
    fn truth(self) -> bool {
        self.re != 0.0 || self.im != 0.0
    }
}

macro_rules! all_types {
    ($mac:ident, $op:ident, $out:tt, $($body:tt)*) => {
        $mac!($op, $out, [bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64, c64, c128], $($body)*);
    };
}
all_types!(binary, LogicalAnd, bool, |a, b| a.truth() && b.truth());
all_types!(binary, LogicalOr, bool, |a, b| a.truth() || b.truth());
all_types!(binary, LogicalXor, bool, |a, b| a.truth() != b.truth());
all_types!(unary, LogicalNot, bool, |a| !a.truth());

binary!(
    Maximum,
    Self,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |a, b| if a >= b { a } else { b }
);
binary!(
    Minimum,
    Self,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |a, b| if a <= b { a } else { b }
);
binary!(
    Fmax,
    Self,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |a, b| if a >= b { a } else { b }
);
binary!(
    Fmin,
    Self,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |a, b| if a <= b { a } else { b }
);
// NaN-propagating: a NaN on either side wins.
binary!(
    Maximum,
    Self,
    [f16, f32, f64],
    |a, b| if a >= b || a.is_nan() { a } else { b }
);
binary!(
    Minimum,
    Self,
    [f16, f32, f64],
    |a, b| if a <= b || a.is_nan() { a } else { b }
);
// NaN-ignoring: a NaN loses unless both are NaN.
binary!(
    Fmax,
    Self,
    [f16, f32, f64],
    |a, b| if a >= b || b.is_nan() { a } else { b }
);
binary!(
    Fmin,
    Self,
    [f16, f32, f64],
    |a, b| if a <= b || b.is_nan() { a } else { b }
);

#[inline(always)]
fn cnan<T: Cx>(a: T) -> bool {
    a.parts().0.nan() || a.parts().1.nan()
}
/// Lexicographic `>=`/`<=` on complex numbers.
trait Cx: Copy {
    type R: PartialOrd + IsNan + Copy;
    fn parts(self) -> (Self::R, Self::R);
}
trait IsNan {
    fn nan(self) -> bool;
}
impl IsNan for f32 {
    fn nan(self) -> bool {
        self.is_nan()
    }
}
impl IsNan for f64 {
    fn nan(self) -> bool {
        self.is_nan()
    }
}
impl Cx for c64 {
    type R = f32;
    fn parts(self) -> (f32, f32) {
        (self.re, self.im)
    }
}
impl Cx for c128 {
    type R = f64;
    fn parts(self) -> (f64, f64) {
        (self.re, self.im)
    }
}
#[inline(always)]
fn cge<T: Cx>(a: T, b: T) -> bool {
    let ((ar, ai), (br, bi)) = (a.parts(), b.parts());
    ar > br || (ar == br && ai >= bi)
}
#[inline(always)]
fn cle<T: Cx>(a: T, b: T) -> bool {
    let ((ar, ai), (br, bi)) = (a.parts(), b.parts());
    ar < br || (ar == br && ai <= bi)
}
binary!(Maximum, Self, [c64, c128], |a, b| if cge(a, b) || cnan(a) {
    a
} else {
    b
});
binary!(Minimum, Self, [c64, c128], |a, b| if cle(a, b) || cnan(a) {
    a
} else {
    b
});
binary!(Fmax, Self, [c64, c128], |a, b| if cge(a, b) || cnan(b) {
    a
} else {
    b
});
binary!(Fmin, Self, [c64, c128], |a, b| if cle(a, b) || cnan(b) {
    a
} else {
    b
});

unary!(
    Isnan,
    bool,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |_a| false
);
unary!(
    Isinf,
    bool,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |_a| false
);
unary!(
    Isfinite,
    bool,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |_a| true
);
unary!(Isnan, bool, [f16, f32, f64], |a| a.is_nan());
unary!(Isinf, bool, [f16, f32, f64], |a| a.is_infinite());
unary!(Isfinite, bool, [f16, f32, f64], |a| a.is_finite());
unary!(Isnan, bool, [c64, c128], |a| a.re.is_nan() || a.im.is_nan());
unary!(Isinf, bool, [c64, c128], |a| a.re.is_infinite()
    || a.im.is_infinite());
unary!(Isfinite, bool, [c64, c128], |a| a.re.is_finite()
    && a.im.is_finite());
unary!(Signbit, bool, [f16, f32, f64], |a| a.is_sign_negative());

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elementwise::ops::op::{bin, un};

    #[test]
    fn nan_rules() {
        assert!(bin::<Maximum, f32>(f32::NAN, 1.0).is_nan());
        assert!(bin::<Maximum, f32>(1.0, f32::NAN).is_nan());
        assert_eq!(bin::<Fmax, f32>(f32::NAN, 1.0), 1.0);
        assert_eq!(bin::<Fmin, f64>(2.0, f64::NAN), 2.0);
        assert!(!bin::<Less, f64>(f64::NAN, 1.0));
        assert!(bin::<NotEqual, f64>(f64::NAN, f64::NAN));
        assert!(bin::<Less, c64>(c64::new(1.0, 5.0), c64::new(2.0, 0.0)));
        assert!(bin::<Less, c64>(c64::new(1.0, 0.0), c64::new(1.0, 1.0)));
        assert!(bin::<LogicalXor, f32>(0.0, 2.0));
        assert!(un::<LogicalNot, c64>(c64::new(0.0, 0.0)));
        assert!(un::<Signbit, f32>(-0.0));
        assert!(un::<Isinf, c128>(c128::new(1.0, f64::INFINITY)));
    }
}
