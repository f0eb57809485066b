//! The loops of every op as data for the host: for each op in `table.rs`, the input and
//! output dtypes of each kernel, as indices in `for_each_dtype!` order. The output dtype
//! is read off the op's `Out` type, so it cannot disagree with the kernels.

use crate::dtype::{DTypeIndex, NDTYPES, bf16, c64, c128};
use crate::elementwise::ops::{self, BinaryOp, UnaryOp};
use crate::reduce::reduction::{self, Reduction};

/// One kernel's dtypes: all inputs share `input`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loop {
    pub input: usize,
    pub output: usize,
}

/// The entry of each (op, dtype) loop within a loop part, `u16::MAX` where the op has
/// no loop for the dtype: loops are numbered op by op, in each op's dtype order, as
/// `loop_names!` lists them.
pub const fn loop_slots<const OPS: usize>(loops: &[(&str, &[Loop])]) -> [[u16; NDTYPES]; OPS] {
    let mut out = [[u16::MAX; NDTYPES]; OPS];
    let (mut op, mut n) = (0, 0u16);
    while op < OPS {
        let mut k = 0;
        while k < loops[op].1.len() {
            out[op][loops[op].1[k].input] = n;
            n += 1;
            k += 1;
        }
        op += 1;
    }
    out
}

macro_rules! binary_loops {
    ([] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => {
        /// `(ufunc name, loops)` for every binary op, in table order.
        pub const BINARY_LOOPS: &[(&str, &[Loop])] = &[ $( (stringify!($op), &[ $(
            Loop { input: <$ty as DTypeIndex>::INDEX, output: <<ops::$Op as BinaryOp<$ty>>::Out as DTypeIndex>::INDEX }
        ),* ]) ),* ];
    };
}
crate::for_each_binary_op!(binary_loops);

macro_rules! unary_loops {
    ([] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => {
        /// `(ufunc name, loops)` for every unary op, in table order.
        pub const UNARY_LOOPS: &[(&str, &[Loop])] = &[ $( (stringify!($op), &[ $(
            Loop { input: <$ty as DTypeIndex>::INDEX, output: <<ops::$Op as UnaryOp<$ty>>::Out as DTypeIndex>::INDEX }
        ),* ]) ),* ];
    };
}
crate::for_each_unary_op!(unary_loops);

macro_rules! reduce_loops {
    ([] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => {
        /// `(name, loops)` for every reduction, in table order.
        pub const REDUCE_LOOPS: &[(&str, &[Loop])] = &[ $( (stringify!($op), &[ $(
            Loop { input: <$ty as DTypeIndex>::INDEX, output: <<reduction::$Op as Reduction<$ty>>::Out as DTypeIndex>::INDEX }
        ),* ]) ),* ];
    };
}
crate::for_each_reduce_op!(reduce_loops);

macro_rules! reduce_acc_bytes {
    ([] $(($Op:ident, $op:ident, [$($ty:ident)*]))*) => {
        /// Accumulator size in bytes of every reduction loop, as in `REDUCE_LOOPS`: the
        /// host sizes the partials of split reductions with it.
        pub const REDUCE_ACC_BYTES: &[&[usize]] = &[ $( &[ $(
            core::mem::size_of::<<reduction::$Op as Reduction<$ty>>::Acc>()
        ),* ] ),* ];
    };
}
crate::for_each_reduce_op!(reduce_acc_bytes);

macro_rules! dtype_names {
    ([] $(($D:ident, $t:ident))*) => {
        /// Kernel-name suffix of each dtype, in `for_each_dtype!` order.
        pub const DTYPE_NAMES: &[&str] = &[$(stringify!($t)),*];
    };
}
crate::for_each_dtype!(dtype_names);

#[allow(unused_imports)]
use {bf16 as _, c64 as _, c128 as _};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_dtypes_come_from_the_ops() {
        let find = |name: &str| BINARY_LOOPS.iter().find(|(n, _)| *n == name).unwrap().1;
        let f32_ = DTYPE_NAMES.iter().position(|n| *n == "f32").unwrap();
        let bool_ = DTYPE_NAMES.iter().position(|n| *n == "bool").unwrap();
        assert!(find("less").iter().all(|l| l.output == bool_));
        assert!(find("add").contains(&Loop {
            input: f32_,
            output: f32_
        }));
        let abs = UNARY_LOOPS
            .iter()
            .find(|(n, _)| *n == "absolute")
            .unwrap()
            .1;
        let c64_ = DTYPE_NAMES.iter().position(|n| *n == "c64").unwrap();
        assert!(abs.contains(&Loop {
            input: c64_,
            output: f32_
        }));
    }
}
