//! Elementwise ops: one engine for every binary and unary ufunc, every dtype.
//!
//! The caller names the loop (the input dtype; NumPy's type resolution happens in the
//! bindings, where NumPy itself is asked). Inputs of another dtype are cast first; the
//! output dtype is the loop's, converted into `out=` afterwards when that differs.
//! Contiguous operands of the output's shape take the packed `vv`/`vs`/`contig` kernels;
//! anything else (broadcast, sliced, transposed) the `strided` kernel over merged axes.

use super::copy::{cast_into, check_out_shape, same_device};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::{Layout, broadcast_shapes};
use crate::ops::{BLOCK, elementwise_args, elementwise_grid};
use gpupy_kernels as kernels;
use gpupy_kernels::elementwise::BinaryVariant;

use super::one_input::{launch_contig, launch_strided};
use crate::launch::Launch;
use crate::table::{BinaryOp, UnaryOp, no_loop};
use gpupy_kernels::args::{Rows, Strided, fast_divisor};
use gpupy_kernels::dtype::bf16;

/// A scalar operand, already converted to the loop's dtype: its little-endian bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(16))]
pub struct Scalar {
    bytes: [u8; 16],
    dtype: DType,
}

impl Scalar {
    /// `bytes` must be exactly one item of `dtype`.
    pub fn from_bytes(dtype: DType, bytes: &[u8]) -> Result<Scalar> {
        if bytes.len() != dtype.itemsize() {
            return Err(Error::Value(format!(
                "a {} scalar has {} bytes, got {}",
                dtype.name(),
                dtype.itemsize(),
                bytes.len()
            )));
        }
        let mut b = [0u8; 16];
        b[..bytes.len()].copy_from_slice(bytes);
        Ok(Scalar { bytes: b, dtype })
    }
    /// A float32 or float64 scalar (other dtypes come through `from_bytes`).
    pub fn float(dtype: DType, v: f64) -> Result<Scalar> {
        match dtype {
            DType::Float32 => Scalar::from_bytes(dtype, &(v as f32).to_le_bytes()),
            DType::Float64 => Scalar::from_bytes(dtype, &v.to_le_bytes()),
            _ => Err(Error::Type(format!(
                "Scalar::float takes float32 or float64, not {}",
                dtype.name()
            ))),
        }
    }
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.dtype.itemsize()]
    }
    /// The same value in the dtype it computes in (bfloat16: float32, exactly).
    fn to_compute(self) -> Scalar {
        match self.dtype {
            DType::BFloat16 => {
                let v = bf16(u16::from_le_bytes([self.bytes[0], self.bytes[1]])).to_f32();
                Scalar::from_bytes(DType::Float32, &v.to_le_bytes()).unwrap_or(self)
            }
            _ => self,
        }
    }
    /// As a 0-d array, for the strided kernels.
    fn to_array(self, device: &'static Device) -> Result<Array> {
        super::fill::full(device, &[], self.dtype, self.bytes())
    }
}

/// One input of a binary op.
#[derive(Clone, Copy)]
pub enum Operand<'a> {
    Array(&'a Array),
    Scalar(Scalar),
}

impl Operand<'_> {
    /// A scalar in its compute dtype; arrays are cast by the loop.
    fn to_compute(self) -> Self {
        match self {
            Operand::Scalar(s) => Operand::Scalar(s.to_compute()),
            x => x,
        }
    }
}

/// `op(a, b)` with the loop for input `dtype`, into `out` when given (NumPy's `out=`;
/// the caller has checked that the loop's output may be cast to `out`'s dtype).
pub fn binary(
    op: BinaryOp,
    dtype: DType,
    a: Operand,
    b: Operand,
    out: Option<&Array>,
) -> Result<Array> {
    if crate::ops::elementwise::copy::computes_elsewhere(dtype) {
        // ml_dtypes' nextafter steps by a bfloat16 ulp, which float32 cannot do.
        if op == BinaryOp::Nextafter {
            return Err(no_loop(op.name(), dtype));
        }
        let r = binary(op, dtype.compute(), a.to_compute(), b.to_compute(), None)?;
        return in_compute_out(r, dtype, out);
    }
    let out_dtype = op.output(dtype).ok_or_else(|| no_loop(op.name(), dtype))?;
    if op == BinaryOp::Power {
        check_integer_exponent(b, dtype)?;
    }
    let (shape, device) = match (a, b) {
        (Operand::Array(x), Operand::Array(y)) => {
            same_device(x, y)?;
            (broadcast_shapes(&[x.shape(), y.shape()])?, x.device())
        }
        (Operand::Array(x), Operand::Scalar(_)) | (Operand::Scalar(_), Operand::Array(x)) => {
            (x.shape().to_vec(), x.device())
        }
        (Operand::Scalar(_), Operand::Scalar(_)) => {
            return Err(Error::Type(format!(
                "{} needs at least one gpupy array",
                op.name()
            )));
        }
    };
    let like = [a, b].into_iter().find_map(|x| match x {
        Operand::Array(arr) if arr.shape() == shape.as_slice() => Some(arr.layout().clone()),
        _ => None,
    });
    let target = output(device, &shape, out_dtype, out, like.as_ref())?;
    let a = prepare(a, dtype, &target)?;
    let b = prepare(b, dtype, &target)?;
    launch_binary(op, dtype, a, b, &target)?;
    finish(target, out)
}

/// `op(a)` with the loop for input `dtype`, into `out` when given.
pub fn unary(op: UnaryOp, dtype: DType, a: &Array, out: Option<&Array>) -> Result<Array> {
    if crate::ops::elementwise::copy::computes_elsewhere(dtype) {
        let r = unary(op, dtype.compute(), a, None)?;
        return in_compute_out(r, dtype, out);
    }
    let out_dtype = op.output(dtype).ok_or_else(|| no_loop(op.name(), dtype))?;
    let target = output(a.device(), a.shape(), out_dtype, out, Some(a.layout()))?;
    let x = prepare_array(a, dtype, &target)?;
    let n = target.size() as u64;
    if n > 0 {
        let device = target.device();
        let o = target.data_ptr();
        let kernel = |strided| {
            kernels::elementwise::unary(op as usize, dtype as usize, strided)
                .ok_or_else(|| no_loop(op.name(), dtype))
        };
        if packed(&x, &target) {
            launch_contig(device, kernel(false)?, x.data_ptr(), o, n, dtype, out_dtype)?;
        } else {
            let x = x.broadcast_to(target.shape())?;
            launch_strided(device, kernel(true)?, &x, &target)?;
        }
    }
    finish(target, out)
}

/// The result of the loop for `dtype` run in `dtype.compute()` (its operands were cast
/// there as usual), brought back to `dtype` and into `out` (`copy::from_compute`).
fn in_compute_out(r: Array, dtype: DType, out: Option<&Array>) -> Result<Array> {
    if let Some(o) = out {
        check_out_shape(o, r.shape())?;
    }
    crate::ops::elementwise::copy::from_compute(r, dtype, out)
}

/// An operand after conversion to the loop dtype, owned for the launch.
enum Input {
    Array(Array),
    Scalar(Scalar),
}

/// Casts an array to the loop dtype, and copies one that overlaps the output through a
/// different view, so the result is as if every input were read before any write.
fn prepare(x: Operand, dtype: DType, target: &Array) -> Result<Input> {
    match x {
        Operand::Scalar(s) if s.dtype == dtype => Ok(Input::Scalar(s)),
        Operand::Scalar(s) => Err(Error::Type(format!(
            "scalar of dtype {} given to a {} loop",
            s.dtype.name(),
            dtype.name()
        ))),
        Operand::Array(arr) => Ok(Input::Array(prepare_array(arr, dtype, target)?)),
    }
}

fn prepare_array(arr: &Array, dtype: DType, target: &Array) -> Result<Array> {
    let overlaps = arr.shares_buffer(target) && arr.layout() != target.layout() && arr.size() > 0;
    if arr.dtype() != dtype || overlaps {
        super::copy::astype(arr, dtype)
    } else {
        Ok(arr.clone())
    }
}

/// Where the kernel writes: `out` itself when it has the loop's dtype, else a new array
/// laid out in the memory order of `like` (NumPy's order 'K': a transposed input gives a
/// transposed-order output, and the op stays one flat pass over memory).
fn output(
    device: &'static Device,
    shape: &[usize],
    dtype: DType,
    out: Option<&Array>,
    like: Option<&Layout>,
) -> Result<Array> {
    let fresh = || match like {
        Some(l) if l.shape == shape => Array::empty_with(device, Layout::dense_like(l), dtype),
        _ => Array::empty(device, shape, dtype),
    };
    match out {
        Some(o) => {
            if o.device().id != device.id {
                return Err(Error::Value(
                    "out= is on another device than the inputs".into(),
                ));
            }
            check_out_shape(o, shape)?;
            if o.dtype() == dtype {
                Ok(o.clone())
            } else {
                fresh()
            }
        }
        None => fresh(),
    }
}

/// Converts the kernel's result into `out` when it could not write there directly.
fn finish(target: Array, out: Option<&Array>) -> Result<Array> {
    match out {
        Some(o) if o.dtype() != target.dtype() => {
            cast_into(&target, o)?;
            Ok(o.clone())
        }
        _ => Ok(target),
    }
}

/// Whether `x` can be read pack by pack alongside `target`: same shape and strides, and
/// together one dense block (C order, F order or any other axis order).
fn packed(x: &Array, target: &Array) -> bool {
    x.shape() == target.shape()
        && x.layout().strides == target.layout().strides
        && target.layout().is_dense()
}

/// Launches a `(a, out, n)` kernel: unary `contig` and cast `contig`.
fn launch_binary(op: BinaryOp, dtype: DType, a: Input, b: Input, out: &Array) -> Result<()> {
    let n = out.size() as u64;
    if n == 0 {
        return Ok(());
    }
    let device = out.device();
    let kernel = |variant| {
        kernels::elementwise::binary(op as usize, dtype as usize, variant)
            .ok_or_else(|| no_loop(op.name(), dtype))
    };
    let is_packed = |x: &Input| match x {
        Input::Scalar(_) => true,
        Input::Array(arr) => packed(arr, out),
    };
    let o = out.data_ptr();
    let scalar_first: u32 = matches!(a, Input::Scalar(_)) as u32;
    if is_packed(&a) && is_packed(&b) {
        let lanes = (16 / dtype.itemsize().max(out.dtype().itemsize())).max(1) as u64;
        let grid = elementwise_grid(device, n.div_ceil(lanes));
        match (a, b) {
            // (a, b, out, n): all three hold n elements.
            (Input::Array(x), Input::Array(y)) => Launch::new(device, kernel(BinaryVariant::Vv)?)?
                .grid(grid)
                .block(BLOCK)
                .arg(x.data_ptr())
                .arg(y.data_ptr())
                .arg(o)
                .arg(n)
                .run(),
            // (a, scalar, out, n, scalar_first): the scalar's bytes are one item of the
            // loop dtype; a and out hold n elements.
            (Input::Array(x), Input::Scalar(s)) | (Input::Scalar(s), Input::Array(x)) => {
                Launch::new(device, kernel(BinaryVariant::Vs)?)?
                    .grid(grid)
                    .block(BLOCK)
                    .arg(x.data_ptr())
                    .arg_bytes(s.bytes())
                    .arg(o)
                    .arg(n)
                    .arg(scalar_first)
                    .run()
            }
            (Input::Scalar(_), Input::Scalar(_)) => Err(Error::Type(format!(
                "{} needs at least one gpupy array",
                op.name()
            ))),
        }
    } else {
        // The strided kernel reads arrays only: a scalar becomes a 0-d array broadcast.
        let as_array = |x: Input| -> Result<Array> {
            match x {
                Input::Array(arr) => arr.broadcast_to(out.shape()),
                Input::Scalar(s) => s.to_array(device)?.broadcast_to(out.shape()),
            }
        };
        let (x, y) = (as_array(a)?, as_array(b)?);
        let args = elementwise_args(
            out.shape(),
            [
                &out.layout().strides,
                &x.layout().strides,
                &y.layout().strides,
            ],
        )?;
        let (xp, yp) = (x.data_ptr(), y.data_ptr());
        // (Rows, a, b, out): `rows_args` only accepts rows that are whole aligned packs
        // of the same iteration `args` describes, whose offsets lie inside the buffers
        // (every layout fits its buffer).
        if let Some(rows) = rows_args(
            &args,
            [o, xp, yp],
            [out.dtype().itemsize(), dtype.itemsize()],
        ) {
            return Launch::new(device, kernel(BinaryVariant::Rows)?)?
                .grid(elementwise_grid(device, rows.rows * rows.packs))
                .block(BLOCK)
                .arg(rows)
                .arg(xp)
                .arg(yp)
                .arg(o)
                .run();
        }
        // (Strided<3>, a, b, out): every layout fits its buffer, so all offsets from
        // `args` are in bounds.
        Launch::new(device, kernel(BinaryVariant::Strided)?)?
            .grid(elementwise_grid(device, args.len))
            .block(BLOCK)
            .arg(args)
            .arg(xp)
            .arg(yp)
            .arg(o)
            .run()
    }
}

/// The `Rows` form of a strided iteration, when it has one: at most two dimensions after
/// merging, the output contiguous along the inner one, each input contiguous (step 1) or
/// repeated (step 0) along it, and every row a whole number of aligned 16-byte packs
/// (`ptrs` are (out, a, b); `sizes` the output's and the inputs' item sizes).
fn rows_args(s: &Strided<3>, ptrs: [u64; 3], sizes: [usize; 2]) -> Option<Rows> {
    let lanes = (16 / sizes[0].max(sizes[1])).max(1) as u64;
    let (inner, rows) = match s.ndim {
        1 => (s.shape[0], 1),
        2 => (s.shape[0], s.shape[1]),
        _ => return None,
    };
    let steps = [s.strides[0][0], s.strides[1][0], s.strides[2][0]];
    if steps[0] != 1
        || !(0..=1).contains(&steps[1])
        || !(0..=1).contains(&steps[2])
        || steps[1] + steps[2] == 0
    {
        return None;
    }
    if inner % lanes != 0 {
        return None;
    }
    let row_stride = |k: usize| if s.ndim == 2 { s.strides[k][1] } else { 0 };
    for k in 0..3 {
        let item = if k == 0 { sizes[0] } else { sizes[1] } as u64;
        let pack = lanes * item;
        let contiguous = k == 0 || steps[k] == 1;
        if contiguous
            && (!ptrs[k].is_multiple_of(pack) || (row_stride(k) * item as i64) % pack as i64 != 0)
        {
            return None;
        }
    }
    let packs = inner / lanes;
    let (magic, shift) = fast_divisor(packs);
    Some(Rows {
        rows,
        packs,
        magic,
        shift,
        row_stride: [row_stride(0), row_stride(1), row_stride(2)],
        col_step: [steps[1] as u32, steps[2] as u32],
    })
}

/// NumPy's ValueError when a signed integer `power` would raise to a negative exponent
/// (one comparison and a copy of its result for an array exponent).
fn check_integer_exponent(exponent: Operand, dtype: DType) -> Result<()> {
    if !matches!(
        dtype,
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64
    ) {
        return Ok(());
    }
    let negative = match exponent {
        Operand::Scalar(s) => {
            // Little-endian: the sign bit is the top bit of the last byte.
            let top = s.bytes()[s.bytes().len() - 1];
            top & 0x80 != 0
        }
        Operand::Array(a) => {
            let zero = Scalar::from_bytes(dtype, &vec![0u8; dtype.itemsize()])?;
            let a = if a.dtype() == dtype {
                a.clone()
            } else {
                super::copy::astype(a, dtype)?
            };
            let lt = binary(
                BinaryOp::Less,
                dtype,
                Operand::Array(&a),
                Operand::Scalar(zero),
                None,
            )?;
            let mut host = vec![0u8; lt.nbytes()];
            super::copy::to_host(&lt, &mut host)?;
            host.iter().any(|&b| b != 0)
        }
    };
    if negative {
        return Err(Error::Value(
            "Integers to negative integer powers are not allowed.".into(),
        ));
    }
    Ok(())
}
