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
    pub const ALL: [DType; 14] = [
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
    ];

    pub fn itemsize(self) -> usize {
        use DType::*;
        match self {
            Bool | Int8 | UInt8 => 1,
            Int16 | UInt16 | Float16 => 2,
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
        }
    }

    pub fn from_name(name: &str) -> Result<DType> {
        DType::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| Error::Type(format!("gpupy does not support dtype '{name}'")))
    }

    pub fn kind(self) -> Kind {
        use DType::*;
        match self {
            Bool => Kind::Bool,
            Int8 | Int16 | Int32 | Int64 => Kind::Int,
            UInt8 | UInt16 | UInt32 | UInt64 => Kind::UInt,
            Float16 | Float32 | Float64 => Kind::Float,
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

#[cfg(test)]
mod tests {
    use super::*;

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
