//! Dtypes. Every NumPy dtype gpupy stores is listed here; which ops have kernels for
//! which dtype is decided by the kernel tables, not by this list.

use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float16,
    Float32,
    Float64,
    Complex64,
    Complex128,
    /// ml_dtypes' bfloat16 (last, as in the kernels' `for_each_dtype!`). A storage type:
    /// it converts and multiplies on tensor cores; ufuncs and reductions compute in
    /// float32 and round, as ml_dtypes' loops do ([`DType::compute`]).
    BFloat16,
}

/// NumPy's kind of a dtype, which decides promotion with Python scalars (NEP 50).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Bool,
    Int,
    UInt,
    Float,
    Complex,
}

impl DType {
    pub const ALL: [DType; 15] = [
        DType::Bool,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::UInt8,
        DType::UInt16,
        DType::UInt32,
        DType::UInt64,
        DType::Float16,
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
        DType::BFloat16,
    ];

    pub fn itemsize(self) -> usize {
        use DType::*;
        match self {
            Bool | Int8 | UInt8 => 1,
            Int16 | UInt16 | Float16 | BFloat16 => 2,
            Int32 | UInt32 | Float32 => 4,
            Int64 | UInt64 | Float64 | Complex64 => 8,
            Complex128 => 16,
        }
    }

    /// NumPy's name (`np.dtype(name)` gives the same dtype).
    pub fn name(self) -> &'static str {
        use DType::*;
        match self {
            Bool => "bool",
            Int8 => "int8",
            Int16 => "int16",
            Int32 => "int32",
            Int64 => "int64",
            UInt8 => "uint8",
            UInt16 => "uint16",
            UInt32 => "uint32",
            UInt64 => "uint64",
            Float16 => "float16",
            Float32 => "float32",
            Float64 => "float64",
            Complex64 => "complex64",
            Complex128 => "complex128",
            BFloat16 => "bfloat16",
        }
    }

    pub fn from_name(name: &str) -> Result<DType> {
        DType::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| Error::Type(format!("gpupy does not support dtype '{name}'")))
    }

    /// The dtype arithmetic on `self` runs in: float32 for bfloat16, which has no
    /// elementwise or reduction kernels of its own, else itself.
    pub fn compute(self) -> DType {
        match self {
            DType::BFloat16 => DType::Float32,
            d => d,
        }
    }

    pub fn kind(self) -> Kind {
        use DType::*;
        match self {
            Bool => Kind::Bool,
            Int8 | Int16 | Int32 | Int64 => Kind::Int,
            UInt8 | UInt16 | UInt32 | UInt64 => Kind::UInt,
            Float16 | Float32 | Float64 | BFloat16 => Kind::Float,
            Complex64 | Complex128 => Kind::Complex,
        }
    }
}

/// The dtype NumPy gives `a <op> b` for two float arrays: the wider one. (The full
/// NumPy 2 promotion table comes with the integer and complex kernels.)
pub fn promote_floats(a: DType, b: DType) -> DType {
    if a == DType::Float64 || b == DType::Float64 {
        DType::Float64
    } else {
        a
    }
}

impl DType {
    /// Bits of an integer or float type (complex: of one part), 8 for bool.
    fn bits(self) -> usize {
        match self.kind() {
            Kind::Complex => self.itemsize() * 4,
            _ => self.itemsize() * 8,
        }
    }
}

/// NumPy's `can_cast(from, to, 'safe')`: every value of `from` is exactly a value of `to`.
pub fn can_cast_safe(from: DType, to: DType) -> bool {
    use Kind::*;
    // ml_dtypes' bfloat16: bool, int8 and uint8 cast to it safely, and it to float32 and
    // wider floats and complex; nothing else (not even float16, either way).
    if from == DType::BFloat16 || to == DType::BFloat16 {
        return from == to
            || matches!(from, DType::Bool | DType::Int8 | DType::UInt8) && to == DType::BFloat16
            || from == DType::BFloat16 && to.bits() >= 32 && matches!(to.kind(), Float | Complex);
    }
    let (f, t) = (from.bits(), to.bits());
    match (from.kind(), to.kind()) {
        (Bool, _) => true,
        (_, Bool) => false,
        (Int, Int) | (UInt, UInt) | (Float, Float) | (Float, Complex) | (Complex, Complex) => {
            t >= f
        }
        (UInt, Int) => t > f,
        (Int, UInt) => false,
        // Integers go to floats whose mantissa holds them, except that NumPy counts every
        // 64-bit integer as safe in float64 (and complex128).
        (Int | UInt, Float | Complex) => match f {
            8 => true,
            16 => t >= 32,
            _ => t >= 64,
        },
        (Float | Complex, _) => false,
    }
}

/// NumPy's `can_cast(from, to, 'same_kind')`: safe, or within one kind (or from int to
/// uint), the rule for ufunc outputs.
pub fn can_cast_same_kind(from: DType, to: DType) -> bool {
    // ml_dtypes: anything casts to bfloat16 within 'same_kind'; bfloat16 only to its
    // safe targets.
    if to == DType::BFloat16 {
        return true;
    }
    if from == DType::BFloat16 {
        return can_cast_safe(from, to);
    }
    let rank = |k: Kind| match k {
        Kind::Bool => 0,
        Kind::Int | Kind::UInt => 1,
        Kind::Float => 2,
        Kind::Complex => 3,
    };
    can_cast_safe(from, to) || rank(from.kind()) <= rank(to.kind()) && from.kind() != Kind::Bool
}

/// NumPy's `result_type(a, b)` for two arrays: the first type (smallest first) that both
/// cast to safely. (For bfloat16 with float16 or a 16-bit or wider integer, NumPy's
/// `result_type` raises, while its ufunc loops, like this, pick float32 or float64.)
pub fn promote(a: DType, b: DType) -> DType {
    use DType::*;
    const ORDER: [DType; 15] = [
        Bool, UInt8, Int8, UInt16, Int16, UInt32, Int32, UInt64, Int64, Float16, BFloat16, Float32,
        Float64, Complex64, Complex128,
    ];
    ORDER
        .into_iter()
        .find(|&t| can_cast_safe(a, t) && can_cast_safe(b, t))
        .unwrap_or(Complex128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_follows_numpy() {
        use DType::*;
        // (a, b, np.result_type(a, b)), from NumPy 2.
        let cases = [
            (Bool, Bool, Bool),
            (Bool, Int8, Int8),
            (UInt8, Int8, Int16),
            (UInt16, Int16, Int32),
            (UInt32, Int32, Int64),
            (UInt64, Int64, Float64),
            (UInt64, Int8, Float64),
            (Int8, Float16, Float16),
            (UInt8, Float16, Float16),
            (Int16, Float16, Float32),
            (Int32, Float16, Float64),
            (Int32, Float32, Float64),
            (Int16, Float32, Float32),
            (Int64, Float32, Float64),
            (Float16, Float32, Float32),
            (Float32, Float64, Float64),
            (Float32, Complex64, Complex64),
            (Float64, Complex64, Complex128),
            (Int16, Complex64, Complex64),
            (Int32, Complex64, Complex128),
            (UInt64, Complex64, Complex128),
            (Complex128, Bool, Complex128),
        ];
        for (a, b, want) in cases {
            assert_eq!(promote(a, b), want, "{a:?} {b:?}");
            assert_eq!(promote(b, a), want, "{b:?} {a:?}");
        }
        for d in DType::ALL {
            assert_eq!(promote(d, d), d);
        }
    }

    #[test]
    fn same_kind_casts() {
        use DType::*;
        assert!(can_cast_same_kind(Float64, Float32));
        assert!(can_cast_same_kind(Int64, UInt8));
        assert!(can_cast_same_kind(Int64, Float16));
        assert!(!can_cast_same_kind(Float32, Int64));
        assert!(!can_cast_same_kind(Complex64, Float64));
        assert!(can_cast_same_kind(Bool, Int8));
        assert!(!can_cast_same_kind(Int8, Bool));
    }

    #[test]
    fn bfloat16_casts_follow_ml_dtypes() {
        use DType::*;
        // np.can_cast(x, bfloat16) / np.can_cast(bfloat16, x), NumPy 2.4 with ml_dtypes 0.6.
        for d in DType::ALL {
            let to = matches!(d, Bool | Int8 | UInt8 | BFloat16);
            let from = matches!(d, Float32 | Float64 | Complex64 | Complex128 | BFloat16);
            assert_eq!(can_cast_safe(d, BFloat16), to, "{d:?} -> bfloat16");
            assert_eq!(can_cast_safe(BFloat16, d), from, "bfloat16 -> {d:?}");
            assert!(can_cast_same_kind(d, BFloat16));
            assert_eq!(can_cast_same_kind(BFloat16, d), from);
        }
        assert_eq!(promote(BFloat16, Int8), BFloat16);
        assert_eq!(promote(BFloat16, Float32), Float32);
        assert_eq!(promote(BFloat16, Complex64), Complex64);
        // NumPy's float32 loop (its result_type raises here).
        assert_eq!(promote(BFloat16, Float16), Float32);
    }

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_name(d.name()), Ok(d));
        }
        assert!(matches!(DType::from_name("float128"), Err(Error::Type(_))));
    }

    #[test]
    fn wider_float_wins() {
        assert_eq!(
            promote_floats(DType::Float32, DType::Float64),
            DType::Float64
        );
        assert_eq!(
            promote_floats(DType::Float32, DType::Float32),
            DType::Float32
        );
    }
}
