//! The one list of kernels. Each X-macro calls back `$m!` with its entries, so the kernel
//! crate stamps entry points from the same list that the host turns into its op enums and
//! kernel-name tables: a kernel the host asks for always exists in the PTX.
//!
//! Entry names are `gpupy_<op>_<dtype>_<variant>`, greppable in PTX and in profilers.

/// Binary elementwise ops: `(EnumName, kernel_name)`. Their meaning per dtype is in
/// `ops.rs`; variants are `vv` (array, array), `vs`, `sv` (array and scalar) and `strided`.
#[macro_export]
macro_rules! for_each_binary_op {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*] (Add, add) (Subtract, subtract) (Multiply, multiply) (Divide, divide) }
    };
}

/// The dtypes that have arithmetic kernels: `(EnumName, rust_type)`.
#[macro_export]
macro_rules! for_each_float_dtype {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*] (Float32, f32) (Float64, f64) }
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
