//! The one list of kernels. Each X-macro calls back `$m!` with its entries, so the kernel
//! crate stamps entry points from the same list that the host turns into its op enums and
//! kernel tables: a kernel the host asks for always exists in the PTX.
//!
//! The dtype lists are NumPy's own loops for each ufunc (`np.add.types`, without long
//! double and object); the output dtype of each loop is the op's `Out` in `ops/`.
//! Entry names are `gpupy_<op>_<dtype>_<variant>`, greppable in PTX and profilers.

/// Every dtype with kernels: `(DTypeName, rust_type)`. bfloat16 comes last so that the
/// indices of the others stay those of their NumPy-ordered list.
#[macro_export]
macro_rules! for_each_dtype {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*]
            (Bool, bool) (Int8, i8) (Int16, i16) (Int32, i32) (Int64, i64)
            (UInt8, u8) (UInt16, u16) (UInt32, u32) (UInt64, u64)
            (Float16, f16) (Float32, f32) (Float64, f64) (Complex64, c64) (Complex128, c128)
            (BFloat16, bf16)
        }
    };
}

/// Binary elementwise ops: `(EnumName, ufunc_name, [input dtypes])`. Variants: `vv`
/// (two arrays), `vs` (array and scalar, either side) and `strided`.
#[macro_export]
macro_rules! for_each_binary_op {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*]
            (Add, add, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Subtract, subtract, [i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Multiply, multiply, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Divide, divide, [f16 f32 f64 c64 c128])
            (FloorDivide, floor_divide, [i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64])
            (Remainder, remainder, [i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64])
            (Fmod, fmod, [i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64])
            (Power, power, [i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (FloatPower, float_power, [f64 c128])
            (Arctan2, arctan2, [f16 f32 f64])
            (Hypot, hypot, [f16 f32 f64])
            (Copysign, copysign, [f16 f32 f64])
            (Nextafter, nextafter, [f16 f32 f64])
            (Maximum, maximum, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Minimum, minimum, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Fmax, fmax, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Fmin, fmin, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Equal, equal, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (NotEqual, not_equal, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Less, less, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (LessEqual, less_equal, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Greater, greater, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (GreaterEqual, greater_equal, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (LogicalAnd, logical_and, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (LogicalOr, logical_or, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (LogicalXor, logical_xor, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (BitwiseAnd, bitwise_and, [bool i8 i16 i32 i64 u8 u16 u32 u64])
            (BitwiseOr, bitwise_or, [bool i8 i16 i32 i64 u8 u16 u32 u64])
            (BitwiseXor, bitwise_xor, [bool i8 i16 i32 i64 u8 u16 u32 u64])
            (LeftShift, left_shift, [i8 i16 i32 i64 u8 u16 u32 u64])
            (RightShift, right_shift, [i8 i16 i32 i64 u8 u16 u32 u64])
            (Gcd, gcd, [i8 i16 i32 i64 u8 u16 u32 u64])
            (Lcm, lcm, [i8 i16 i32 i64 u8 u16 u32 u64])
            (Logaddexp, logaddexp, [f16 f32 f64])
            (Logaddexp2, logaddexp2, [f16 f32 f64])
            (Heaviside, heaviside, [f16 f32 f64])
        }
    };
}

/// Unary elementwise ops: `(EnumName, ufunc_name, [input dtypes])`. Variants: `contig`
/// and `strided`.
#[macro_export]
macro_rules! for_each_unary_op {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*]
            (Negative, negative, [i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Positive, positive, [i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Absolute, absolute, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Reciprocal, reciprocal, [i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Square, square, [i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Sign, sign, [i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Conjugate, conjugate, [i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (LogicalNot, logical_not, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Invert, invert, [bool i8 i16 i32 i64 u8 u16 u32 u64])
            (Isnan, isnan, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Isinf, isinf, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Isfinite, isfinite, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Signbit, signbit, [f16 f32 f64])
            (Floor, floor, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64])
            (Ceil, ceil, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64])
            (Trunc, trunc, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64])
            (Rint, rint, [f16 f32 f64 c64 c128])
            (Sqrt, sqrt, [f16 f32 f64 c64 c128])
            (Cbrt, cbrt, [f16 f32 f64])
            (Exp, exp, [f16 f32 f64 c64 c128])
            (Exp2, exp2, [f16 f32 f64 c64 c128])
            (Expm1, expm1, [f16 f32 f64 c64 c128])
            (Log, log, [f16 f32 f64 c64 c128])
            (Log2, log2, [f16 f32 f64 c64 c128])
            (Log10, log10, [f16 f32 f64 c64 c128])
            (Log1p, log1p, [f16 f32 f64 c64 c128])
            (Sin, sin, [f16 f32 f64 c64 c128])
            (Cos, cos, [f16 f32 f64 c64 c128])
            (Tan, tan, [f16 f32 f64 c64 c128])
            (Arcsin, arcsin, [f16 f32 f64 c64 c128])
            (Arccos, arccos, [f16 f32 f64 c64 c128])
            (Arctan, arctan, [f16 f32 f64 c64 c128])
            (Sinh, sinh, [f16 f32 f64 c64 c128])
            (Cosh, cosh, [f16 f32 f64 c64 c128])
            (Tanh, tanh, [f16 f32 f64 c64 c128])
            (Arcsinh, arcsinh, [f16 f32 f64 c64 c128])
            (Arccosh, arccosh, [f16 f32 f64 c64 c128])
            (Arctanh, arctanh, [f16 f32 f64 c64 c128])
            (Deg2rad, deg2rad, [f16 f32 f64])
            (Rad2deg, rad2deg, [f16 f32 f64])
            (Fabs, fabs, [f16 f32 f64])
            (Spacing, spacing, [f16 f32 f64])
            (BitwiseCount, bitwise_count, [i8 i16 i32 i64 u8 u16 u32 u64])
        }
    };
}

/// Dtypes moved without arithmetic (copies of strided views, fills), by item size:
/// `(bytes, rust_type)`. A copy kernel only moves bits, so one per size serves every
/// dtype of that size.
#[macro_export]
macro_rules! for_each_item_size {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*] (1, u8) (2, u16) (4, u32) (8, u64) (16, u128) }
    };
}

/// Reductions: `(EnumName, name, [input dtypes])`, each meaning a type in
/// `reduction.rs`. NumPy's NaN-aware variants exist for the dtypes that have NaN; for
/// the others the host uses the plain reduction, as NumPy does.
#[macro_export]
macro_rules! for_each_reduce_op {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*]
            (Sum, sum, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Prod, prod, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Mean, mean, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Min, min, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Max, max, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (ArgMin, argmin, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (ArgMax, argmax, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Any, any, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (All, all, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (CountNonzero, count_nonzero, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (Var, var, [bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128])
            (NanSum, nansum, [f16 f32 f64 c64 c128])
            (NanProd, nanprod, [f16 f32 f64 c64 c128])
            (NanMean, nanmean, [f16 f32 f64 c64 c128])
            (NanMin, nanmin, [f16 f32 f64 c64 c128])
            (NanMax, nanmax, [f16 f32 f64 c64 c128])
            (NanArgMin, nanargmin, [f16 f32 f64 c64 c128])
            (NanArgMax, nanargmax, [f16 f32 f64 c64 c128])
            (NanVar, nanvar, [f16 f32 f64 c64 c128])
        }
    };
}
