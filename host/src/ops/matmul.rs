//! Matrix products: `matmul` (NumPy's gufunc rules, batched with broadcasting) and `dot`
//! for 1-D and 2-D operands, on the tiled kernels of `kernels/src/matmul.rs`.
//!
//! Operands go to the kernel with their strides, so transposed and sliced matrices need
//! no copy. The tile is chosen per shape and SM count by `gemm::choose_tile`, which
//! weighs each tile's measured speed against how well its blocks fill the GPU.

use gpupy_kernels::gemm::{F32_TILES, F64_TILES, Gemm, choose_tile};

use super::arg;
use super::copy::{astype, same_device};
use crate::array::Array;
use crate::dtype::{DType, promote_floats};
use crate::error::{Error, Result};
use crate::layout::{Layout, broadcast_shapes, shape_str};
use crate::module::{float_index, launch};

const SIGNATURE: &str = "gufunc signature (n?,k),(k,m?)->(n?,m?)";

/// `a @ b` with NumPy's rules: 1-D operands gain an axis that is removed afterwards;
/// leading axes broadcast as batches.
pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
    for (i, x) in [a, b].into_iter().enumerate() {
        if x.ndim() == 0 {
            return Err(Error::Value(format!(
                "matmul: Input operand {i} does not have enough dimensions (has 0, {SIGNATURE} requires 1)"
            )));
        }
    }
    let (a, b, dtype) = promote(a, b, "matmul")?;
    // 1-D operands as a row (left) or a column (right).
    let a2 = if a.ndim() == 1 {
        a.index(&[crate::layout::Index::NewAxis])?
    } else {
        a.clone()
    };
    let b2 = if b.ndim() == 1 {
        b.index(&[
            crate::layout::Index::Ellipsis,
            crate::layout::Index::NewAxis,
        ])?
    } else {
        b.clone()
    };
    let (m, k) = (a2.shape()[a2.ndim() - 2], a2.shape()[a2.ndim() - 1]);
    let (k2, n) = (b2.shape()[b2.ndim() - 2], b2.shape()[b2.ndim() - 1]);
    if k != k2 {
        return Err(Error::Value(format!(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with {SIGNATURE} (size {k2} is different from {k})"
        )));
    }
    let batch = broadcast_shapes(&[&a2.shape()[..a2.ndim() - 2], &b2.shape()[..b2.ndim() - 2]])?;
    let mut out_shape = batch.clone();
    out_shape.extend([m, n]);
    let out = Array::empty(a.device(), &out_shape, dtype)?;
    gemm_into(&a2, &b2, &out, &batch)?;
    // Drop the axes that 1-D operands gained.
    let mut shape = batch;
    if a.ndim() > 1 {
        shape.push(m);
    }
    if b.ndim() > 1 {
        shape.push(n);
    }
    let layout = Layout::contiguous(&shape);
    out.view(layout, dtype)
}

/// NumPy's `dot` for operands of at most 2 dimensions (a 0-d operand multiplies).
pub fn dot(a: &Array, b: &Array) -> Result<Array> {
    if a.ndim() > 2 || b.ndim() > 2 {
        return Err(Error::Value(format!(
            "gpupy.dot supports arrays of up to 2 dimensions so far (got {} and {}); use gpupy.matmul for stacks of matrices",
            a.ndim(),
            b.ndim()
        )));
    }
    if a.ndim() == 0 || b.ndim() == 0 {
        let (a, b, dtype) = promote(a, b, "dot")?;
        let (a, b) = (
            super::elementwise::Operand::Array(&a),
            super::elementwise::Operand::Array(&b),
        );
        return super::elementwise::binary(crate::module::BinaryOp::Multiply, dtype, a, b, None);
    }
    let ka = a.shape()[a.ndim() - 1];
    // NumPy contracts a's last axis with b's first (b's second-to-last, for 2-D b).
    let kb = b.shape()[0];
    if ka != kb {
        return Err(Error::Value(format!(
            "shapes {} and {} not aligned: {ka} (dim {}) != {kb} (dim 0)",
            shape_str(a.shape()).replace(", ", ","),
            shape_str(b.shape()).replace(", ", ","),
            a.ndim() - 1
        )));
    }
    matmul(a, b)
}

fn promote(a: &Array, b: &Array, op: &str) -> Result<(Array, Array, DType)> {
    same_device(a, b)?;
    float_index(a.dtype(), op)?;
    float_index(b.dtype(), op)?;
    let dtype = promote_floats(a.dtype(), b.dtype());
    let conv = |x: &Array| {
        if x.dtype() == dtype {
            Ok(x.clone())
        } else {
            astype(x, dtype)
        }
    };
    Ok((conv(a)?, conv(b)?, dtype))
}

/// `out[z] = a[z] @ b[z]` for every batch index `z` of `batch` (operands broadcast).
fn gemm_into(a: &Array, b: &Array, out: &Array, batch: &[usize]) -> Result<()> {
    let (m, k, n) = (
        a.shape()[a.ndim() - 2],
        a.shape()[a.ndim() - 1],
        b.shape()[b.ndim() - 1],
    );
    if out.size() == 0 {
        return Ok(());
    }
    // Batch axes must step with one stride per operand; when they don't (a broadcast in
    // the middle of several batch axes, say), make that operand contiguous first.
    let flat = |x: &Array| -> Result<(Array, i64)> {
        let mut shape = batch.to_vec();
        shape.extend_from_slice(&x.shape()[x.ndim() - 2..]);
        let x = x.broadcast_to(&shape)?;
        match batch_stride(x.layout(), batch.len()) {
            Some(s) => Ok((x, s)),
            None => {
                let c = super::copy::contiguous(&x)?;
                let s = batch_stride(c.layout(), batch.len()).unwrap_or(0);
                Ok((c, s))
            }
        }
    };
    let (a, a_batch) = flat(a)?;
    let (b, b_batch) = flat(b)?;
    let nb = a.ndim();
    let count: usize = batch.iter().product();
    let too_big =
        |what: &str| Error::Value(format!("matmul: {what} is too large for gpupy's kernels"));
    let g = Gemm {
        m: u32::try_from(m).map_err(|_| too_big("the row count"))?,
        n: u32::try_from(n).map_err(|_| too_big("the column count"))?,
        k: u32::try_from(k).map_err(|_| too_big("the inner dimension"))?,
        batch: 0,
        a_row: a.layout().strides[nb - 2] as i64,
        a_col: a.layout().strides[nb - 1] as i64,
        b_row: b.layout().strides[nb - 2] as i64,
        b_col: b.layout().strides[nb - 1] as i64,
        c_row: n as i64,
        a_batch,
        b_batch,
        c_batch: (m * n) as i64,
    };
    let device = out.device();
    let dtype = out.dtype();
    let tiles = if dtype == DType::Float32 {
        F32_TILES
    } else {
        F64_TILES
    };
    let sms = device.props.multi_processor_count.max(1) as u32;
    let tile = choose_tile(tiles, g.m, g.n, count.min(u32::MAX as usize) as u32, sms);
    let t = tiles
        .iter()
        .position(|x| std::ptr::eq(x, tile))
        .unwrap_or(0);
    let (gx, gy) = (n.div_ceil(tile.bn as usize), m.div_ceil(tile.bm as usize));
    if gy > 65535 {
        return Err(too_big("the row count"));
    }
    let f = device.kernels()?.matmul(dtype, t)?;
    device.bind()?;
    // Grid z is limited to 65535: launch the batch in chunks.
    let item = dtype.itemsize() as u64;
    let mut start = 0usize;
    while start < count {
        let chunk = (count - start).min(65535);
        let mut g = Gemm {
            batch: chunk as u32,
            ..g
        };
        let offset =
            |base: u64, stride: i64| (base as i64 + start as i64 * stride * item as i64) as u64;
        let (mut ap, mut bp, mut cp) = (
            offset(a.data_ptr(), g.a_batch),
            offset(b.data_ptr(), g.b_batch),
            offset(out.data_ptr(), g.c_batch),
        );
        // SAFETY: (Gemm, a, b, c) is the matmul kernel's parameter list. Every (z, i, p)
        // and (z, p, j) the kernel reads lies in a's and b's broadcast layouts, which fit
        // their buffers; c is a fresh contiguous (batch, m, n) array. The grid matches
        // the tile, so every block's guarded accesses stay inside (m, n, k).
        unsafe {
            launch(
                f,
                (gx as u32, gy as u32, chunk as u32),
                tile.threads,
                tile.smem_bytes,
                &mut [arg(&mut g), arg(&mut ap), arg(&mut bp), arg(&mut cp)],
            )?
        };
        start += chunk;
    }
    Ok(())
}

/// The element stride between consecutive batches, if the `nbatch` leading axes of
/// `layout` step through memory as one axis (always true for 0 or 1 batch axes).
fn batch_stride(layout: &Layout, nbatch: usize) -> Option<i64> {
    let shape = &layout.shape[..nbatch];
    let strides = &layout.strides[..nbatch];
    let (merged, [s]) = crate::layout::coalesce(shape, [strides]);
    match merged.len() {
        0 => Some(0),
        1 => Some(s[0] as i64),
        _ => None,
    }
}
