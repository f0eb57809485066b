//! NumPy's ufunc rules that no single kernel computes, so that the host library behaves
//! as `numpy` does whoever calls it:
//!
//! - comparisons of int64 with uint64 are exact (NumPy's `qQ->?` loops), composed here
//!   from a uint64 comparison and a sign test;
//! - comparisons of an integer array with a Python int outside its dtype's range are
//!   the same for every element (NumPy 2: `uint8_array < -1` is all False), a fill;
//!
//! (Integer powers with a negative integer exponent raise NumPy's ValueError in
//! `ufunc::binary` itself, before the kernel runs: a kernel cannot raise.)

use super::copy::{astype, cast_into};
use super::fill::full;
use super::ufunc::{Operand, Scalar, binary};
use crate::array::Array;
use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::table::BinaryOp;

/// Whether `op` is one of the six comparisons.
pub fn is_comparison(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(
        op,
        Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual
    )
}

/// `a op b` for a uint64 and a signed integer array (either order), exactly (no float64
/// rounding): a negative int64 is below every uint64, and a non-negative one compares
/// as a uint64. Into `out` when given.
pub fn mixed_sign_comparison(
    op: BinaryOp,
    a: &Array,
    b: &Array,
    out: Option<&Array>,
) -> Result<Array> {
    use BinaryOp::*;
    if !is_comparison(op) {
        return Err(Error::Type(format!(
            "{} has no int64/uint64 loop",
            op.name()
        )));
    }
    // Normalize to (unsigned u, signed s) with the op mirrored when the signed one came
    // first; a narrower signed operand (a NumPy int16 scalar, say) is widened to int64.
    let (u, s, op) = match (a.dtype(), b.dtype()) {
        (DType::UInt64, d) if d.kind() == Kind::Int => (a, b, op),
        (d, DType::UInt64) if d.kind() == Kind::Int => {
            let mirrored = match op {
                Less => Greater,
                LessEqual => GreaterEqual,
                Greater => Less,
                GreaterEqual => LessEqual,
                other => other,
            };
            (b, a, mirrored)
        }
        (x, y) => {
            return Err(Error::Type(format!(
                "mixed-sign comparison of {} and {}",
                x.name(),
                y.name()
            )));
        }
    };
    let s = &astype(s, DType::Int64)?;
    let zero = Scalar::from_bytes(DType::Int64, &[0u8; 8])?;
    // u OP s when s < 0: u is larger, so only >, >=, != hold.
    let when_negative = matches!(op, Greater | GreaterEqual | NotEqual);
    let s_as_u = astype(s, DType::UInt64)?;
    let cmp = binary(
        op,
        DType::UInt64,
        Operand::Array(u),
        Operand::Array(&s_as_u),
        None,
    )?;
    // when_negative: `s < 0 | cmp`; otherwise `s >= 0 & cmp`.
    let (sign_test, combine) = if when_negative {
        (Less, LogicalOr)
    } else {
        (GreaterEqual, LogicalAnd)
    };
    let sign = binary(
        sign_test,
        DType::Int64,
        Operand::Array(s),
        Operand::Scalar(zero),
        None,
    )?;
    binary(
        combine,
        DType::Bool,
        Operand::Array(&sign),
        Operand::Array(&cmp),
        out,
    )
}

/// `array op x` (or `x op array` with `scalar_first`) for an integer array and an
/// integer `x` outside its dtype's range, above it (`above`) or below: every element
/// compares the same way, so the result is a fill. `None` when `op` is no comparison
/// or the array is not of an integer dtype.
pub fn out_of_range_comparison(
    op: BinaryOp,
    array: &Array,
    above: bool,
    scalar_first: bool,
    out: Option<&Array>,
) -> Result<Option<Array>> {
    use BinaryOp::*;
    if !is_comparison(op) || !matches!(array.dtype().kind(), Kind::Int | Kind::UInt) {
        return Ok(None);
    }
    // Every element compares as `array OP x` (or mirrored when the scalar is first).
    let array_less = above != scalar_first;
    let value = match op {
        Equal => false,
        NotEqual => true,
        Less | LessEqual => array_less,
        _ => !array_less,
    };
    let r = full(array.device(), array.shape(), DType::Bool, &[value as u8])?;
    match out {
        Some(o) => {
            cast_into(&r, o)?;
            Ok(Some(o.clone()))
        }
        None => Ok(Some(r)),
    }
}
