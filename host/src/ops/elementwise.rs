//! Binary elementwise ops with NumPy broadcasting and Python-scalar operands.
//!
//! Dtype: two arrays promote to the wider float; a Python scalar is "weak" (NEP 50) and
//! takes the array's dtype. Launch: contiguous operands of the output's shape take the
//! vectorized `vv`/`vs`/`sv` kernels; anything else (broadcast, sliced, transposed) the
//! `strided` kernel over merged axes.

use super::copy::{astype, check_out_shape, same_device};
use super::{BLOCK, arg, grid_for, strided_args};
use crate::array::Array;
use crate::dtype::{DType, promote_floats};
use crate::error::{Error, Result};
use crate::layout::broadcast_shapes;
use crate::module::{BinaryOp, Variant, float_index, launch};

/// One input of a binary op.
#[derive(Clone, Copy)]
pub enum Operand<'a> {
    Array(&'a Array),
    /// A Python int or float, converted to the array's dtype.
    Scalar(f64),
}

/// A scalar kernel parameter of the op's dtype.
enum ScalarArg {
    F32(f32),
    F64(f64),
}

impl ScalarArg {
    fn new(v: f64, dtype: DType) -> ScalarArg {
        match dtype {
            DType::Float32 => ScalarArg::F32(v as f32),
            _ => ScalarArg::F64(v),
        }
    }
    fn param(&mut self) -> *mut std::ffi::c_void {
        match self {
            ScalarArg::F32(v) => arg(v),
            ScalarArg::F64(v) => arg(v),
        }
    }
}

/// `op(a, b)`, into `out` when given (NumPy's `out=`), else into a new array.
pub fn binary(op: BinaryOp, a: Operand, b: Operand, out: Option<&Array>) -> Result<Array> {
    let (dtype, shape, device) = match (a, b) {
        (Operand::Array(x), Operand::Array(y)) => {
            same_device(x, y)?;
            float_index(x.dtype(), op.name())?;
            float_index(y.dtype(), op.name())?;
            (
                promote_floats(x.dtype(), y.dtype()),
                broadcast_shapes(&[x.shape(), y.shape()])?,
                x.device(),
            )
        }
        (Operand::Array(x), Operand::Scalar(_)) | (Operand::Scalar(_), Operand::Array(x)) => {
            float_index(x.dtype(), op.name())?;
            (x.dtype(), x.shape().to_vec(), x.device())
        }
        (Operand::Scalar(_), Operand::Scalar(_)) => {
            return Err(Error::Type(format!(
                "{} needs at least one gpupy array",
                op.name()
            )));
        }
    };
    let out = match out {
        Some(o) => {
            if o.device().id != device.id {
                return Err(Error::Value(
                    "out= is on another device than the inputs".into(),
                ));
            }
            check_out_shape(o, &shape)?;
            if o.dtype() != dtype {
                return Err(Error::Type(format!(
                    "Cannot cast ufunc '{}' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
                    op.name(),
                    dtype.name(),
                    o.dtype().name()
                )));
            }
            o.clone()
        }
        None => Array::empty(device, &shape, dtype)?,
    };
    // Inputs of another dtype are converted first; an input that overlaps the output
    // through a different view is copied, so the result is as if inputs were read first.
    let prepare = |x: Operand| -> Result<Input> {
        Ok(match x {
            Operand::Scalar(v) => Input::Scalar(v),
            Operand::Array(arr) => {
                let overlaps =
                    arr.shares_buffer(&out) && arr.layout() != out.layout() && arr.size() > 0;
                Input::Array(if arr.dtype() != dtype || overlaps {
                    astype(arr, dtype)?
                } else {
                    arr.clone()
                })
            }
        })
    };
    launch_binary(op, &prepare(a)?, &prepare(b)?, &out)?;
    Ok(out)
}

/// An operand after dtype conversion, owned for the launch.
enum Input {
    Array(Array),
    Scalar(f64),
}

fn launch_binary(op: BinaryOp, a: &Input, b: &Input, out: &Array) -> Result<()> {
    let n = out.size() as u64;
    if n == 0 {
        return Ok(());
    }
    let device = out.device();
    let kernels = device.kernels()?;
    device.bind()?;
    let dtype = out.dtype();
    let contiguous_like_out = |x: &Input| match x {
        Input::Scalar(_) => true,
        Input::Array(arr) => arr.shape() == out.shape() && arr.layout().is_c_contiguous(),
    };
    let mut o = out.data_ptr();
    if out.layout().is_c_contiguous() && contiguous_like_out(a) && contiguous_like_out(b) {
        let lanes = (16 / dtype.itemsize()) as u64;
        let grid = (grid_for(device, n.div_ceil(lanes)), 1, 1);
        let mut n = n;
        match (a, b) {
            (Input::Array(x), Input::Array(y)) => {
                let (mut x, mut y) = (x.data_ptr(), y.data_ptr());
                let f = kernels.binary(op, dtype, Variant::Vv)?;
                // SAFETY: (a, b, out, n) is the vv parameter list; all three hold n elements.
                unsafe {
                    launch(
                        f,
                        grid,
                        BLOCK,
                        0,
                        &mut [arg(&mut x), arg(&mut y), arg(&mut o), arg(&mut n)],
                    )
                }
            }
            (Input::Array(x), Input::Scalar(s)) => {
                let (mut x, mut s) = (x.data_ptr(), ScalarArg::new(*s, dtype));
                let f = kernels.binary(op, dtype, Variant::Vs)?;
                // SAFETY: (a, scalar, out, n) is the vs parameter list; a and out hold n elements.
                unsafe {
                    launch(
                        f,
                        grid,
                        BLOCK,
                        0,
                        &mut [arg(&mut x), s.param(), arg(&mut o), arg(&mut n)],
                    )
                }
            }
            (Input::Scalar(s), Input::Array(y)) => {
                let (mut s, mut y) = (ScalarArg::new(*s, dtype), y.data_ptr());
                let f = kernels.binary(op, dtype, Variant::Sv)?;
                // SAFETY: (scalar, b, out, n) is the sv parameter list; b and out hold n elements.
                unsafe {
                    launch(
                        f,
                        grid,
                        BLOCK,
                        0,
                        &mut [s.param(), arg(&mut y), arg(&mut o), arg(&mut n)],
                    )
                }
            }
            (Input::Scalar(_), Input::Scalar(_)) => Err(Error::Type(format!(
                "{} needs at least one gpupy array",
                op.name()
            ))),
        }
    } else {
        // The strided kernel reads arrays only: a scalar becomes a 0-d array broadcast.
        let as_array = |x: &Input| -> Result<Array> {
            match x {
                Input::Array(arr) => arr.broadcast_to(out.shape()),
                Input::Scalar(s) => {
                    let bytes = match ScalarArg::new(*s, dtype) {
                        ScalarArg::F32(v) => v.to_le_bytes().to_vec(),
                        ScalarArg::F64(v) => v.to_le_bytes().to_vec(),
                    };
                    super::fill::full(device, &[], dtype, &bytes)?.broadcast_to(out.shape())
                }
            }
        };
        let (x, y) = (as_array(a)?, as_array(b)?);
        let mut args = strided_args(
            out.shape(),
            [
                &out.layout().strides,
                &x.layout().strides,
                &y.layout().strides,
            ],
        )?;
        let (mut xp, mut yp) = (x.data_ptr(), y.data_ptr());
        let f = kernels.binary(op, dtype, Variant::Strided)?;
        // SAFETY: (Strided<3>, a, b, out) is the strided parameter list; every layout
        // fits its buffer, so all offsets from `args` are in bounds.
        unsafe {
            launch(
                f,
                (grid_for(device, args.len), 1, 1),
                BLOCK,
                0,
                &mut [arg(&mut args), arg(&mut xp), arg(&mut yp), arg(&mut o)],
            )
        }
    }
}
