//! The kernel crate's op tables as host enums: every elementwise op and reduction of
//! `gpupy_kernels::table`, with its loops (input and output dtypes), and the item sizes
//! that have copy and fill kernels.

use crate::dtype::DType;
use crate::error::Error;

macro_rules! op_enum {
    ([$Enum:ident $loops:ident] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $Enum { $($Op),* }
        impl $Enum {
            pub const ALL: &'static [$Enum] = &[$($Enum::$Op),*];
            /// The kernel name stem, also NumPy's ufunc name.
            pub fn name(self) -> &'static str {
                match self { $($Enum::$Op => stringify!($op)),* }
            }
            /// The output dtype of the loop for input `dtype`, if the op has that loop
            /// (for bfloat16: its float32 loop's, computed there and rounded back; see
            /// `DType::compute`).
            pub fn output(self, dtype: DType) -> Option<DType> {
                let c = dtype.compute();
                if c != dtype {
                    return self.output(c).map(|o| if o == c { dtype } else { o });
                }
                gpupy_kernels::loops::$loops[self as usize].1
                    .iter()
                    .find(|l| DType::ALL[l.input] == dtype)
                    .map(|l| DType::ALL[l.output])
            }
            /// Input dtypes that have kernels.
            pub fn inputs(self) -> impl Iterator<Item = DType> {
                gpupy_kernels::loops::$loops[self as usize].1.iter().map(|l| DType::ALL[l.input])
            }
        }
    };
}
gpupy_kernels::for_each_binary_op!(op_enum, BinaryOp, BINARY_LOOPS);
gpupy_kernels::for_each_unary_op!(op_enum, UnaryOp, UNARY_LOOPS);
gpupy_kernels::for_each_reduce_op!(op_enum, ReduceOp, REDUCE_LOOPS);

impl ReduceOp {
    /// Bytes of the accumulator for input `dtype` (the partials of split launches).
    pub fn acc_bytes(self, dtype: DType) -> usize {
        let loops = gpupy_kernels::loops::REDUCE_LOOPS[self as usize].1;
        let k = loops
            .iter()
            .position(|l| DType::ALL[l.input] == dtype)
            .expect("acc_bytes is asked only for loops that exist");
        gpupy_kernels::loops::REDUCE_ACC_BYTES[self as usize][k]
    }
}

macro_rules! item_size_table {
    ([] $(($bytes:literal, $ty:ident))*) => {
        /// Item sizes with copy and fill kernels.
        pub const ITEM_SIZES: &[usize] = &[$($bytes),*];
    };
}
gpupy_kernels::for_each_item_size!(item_size_table);

/// NumPy's error for a ufunc without a loop for the dtype.
pub fn no_loop(op: &str, dtype: DType) -> Error {
    Error::Type(format!(
        "ufunc '{op}' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe'' (gpupy has no {op} kernel for {})",
        dtype.name()
    ))
}

/// The index of `itemsize` in `ITEM_SIZES` (every dtype's item size has one).
pub fn size_index(itemsize: usize) -> usize {
    ITEM_SIZES
        .iter()
        .position(|&b| b == itemsize)
        .expect("every dtype's item size has copy and fill kernels")
}
