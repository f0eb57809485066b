//! Matrix products: `matmul` (NumPy's gufunc `(n?,k),(k,m?)->(n?,m?)`, batched with
//! broadcasting, `out=`) and `dot` for operands of up to two dimensions, for every dtype.
//!
//! Operands go to the kernels with their strides, so transposed and sliced matrices need
//! no copy; the batch is one grid dimension with one stride per operand. Which kernel
//! runs is decided here from the dtype, the shape and the device:
//! - float32/float64/complex: the tiled SIMT kernels (`kernels/src/matmul/gpu/simt.rs`), the tile
//!   chosen by `tiles::choose_tile` from the shape and SM count; split-K when a product
//!   with a long `k` has too few tiles to fill the GPU; a GEMV kernel for
//!   matrix-vector products;
//! - integers: the wrapping 32- or 64-bit kernels (NumPy's integer matmul wraps);
//!   int8/int16/uint8/uint16 and bool are widened to int32 first (wrapping products
//!   agree modulo 2^8 and 2^16; for bool, a count of true `a & b` terms is nonzero
//!   exactly when their `or` is true), and the result is cast back;
//! - float16: on tensor cores (`mma.rs`: float32 accumulation, rounded once), or computed
//!   in float32 when the GPU or the operands' layout does not allow it; float64 on the
//!   FP64 tensor cores and float32 on TF32 ones (opt-in) likewise, when the GPU has them
//!   (compute capability 8.0+) and the layout allows;
//! - bfloat16: on tensor cores like float16, with a float32 result (NumPy with ml_dtypes
//!   has no bfloat16 matmul loop and multiplies in float32; so does the fallback).

use gpupy_kernels as kernels;
use gpupy_kernels::matmul::mma_layout::MmaKind;
use gpupy_kernels::matmul::tiles::{
    self, GEMV_COLS_SMEM, GEMV_COLS_THREADS, GEMV_THREADS, Gemm, Gemv, SIMT_KINDS, Tile,
    choose_tile, gemv_blocks,
};
use gpupy_kernels::registry::Kernel;

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, can_cast_same_kind, promote};
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::layout::{Index, Layout, broadcast_shapes, shape_str};
use crate::ops::elementwise::copy::{astype, cast_into, contiguous, copy_into, same_device};
use crate::ops::elementwise::{Operand, binary};
use crate::table::BinaryOp;

use launch::{Grid, Operands, launch_tiles, split_k, to_u32, word_dtype};
use mma::{set_path, switches, tf32, try_mma, try_wgmma};

mod launch;
pub mod mma;

const SIGNATURE: &str = "gufunc signature (n?,k),(k,m?)->(n?,m?)";

/// `a @ b` with NumPy's rules: 1-D operands gain an axis that is removed afterwards;
/// leading axes broadcast as batches.
pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
    matmul_out(a, b, None)
}

/// `np.matmul(a, b, out=out)`: the result is written into `out` (directly when its layout
/// allows, else through a temporary) and `out` is returned.
pub fn matmul_out(a: &Array, b: &Array, out: Option<&Array>) -> Result<Array> {
    for (i, x) in [a, b].into_iter().enumerate() {
        if x.ndim() == 0 {
            return Err(Error::Value(format!(
                "matmul: Input operand {i} does not have enough dimensions (has 0, {SIGNATURE} requires 1)"
            )));
        }
    }
    same_device(a, b)?;
    let promoted = promote(a.dtype(), b.dtype());
    let dtype = match promoted {
        DType::BFloat16 => DType::Float32,
        d => d,
    };
    // 1-D operands as a row (left) or a column (right).
    let a2 = if a.ndim() == 1 {
        a.index(&[Index::NewAxis])?
    } else {
        a.clone()
    };
    let b2 = if b.ndim() == 1 {
        b.index(&[Index::Ellipsis, Index::NewAxis])?
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
    // The result's shape, without the axes that 1-D operands gained.
    let mut shape = batch.clone();
    if a.ndim() > 1 {
        shape.push(m);
    }
    if b.ndim() > 1 {
        shape.push(n);
    }
    // The result (or `out`) as (batch..., m, n).
    let expand = |r: &Array| -> Result<Array> {
        let mut l = r.layout().clone();
        let nb = batch.len();
        if a.ndim() == 1 {
            l.shape.insert(nb, 1);
            l.strides.insert(nb, 0);
        }
        if b.ndim() == 1 {
            l.shape.push(1);
            l.strides.push(0);
        }
        r.view(l, r.dtype())
    };

    if let Some(o) = out {
        // NumPy's gufunc loop broadcasts against `out` too: extra leading axes of `out`
        // (or length-1 batch axes it widens) receive copies of the product.
        if o.shape() != shape
            && broadcast_shapes(&[&shape, o.shape()]).is_ok_and(|s| s == o.shape())
        {
            check_out(o, o.shape(), dtype)?;
            let r = matmul_out(a, b, None)?;
            cast_into(&r.broadcast_to(o.shape())?, o)?;
            return Ok(o.clone());
        }
        check_out(o, &shape, dtype)?;
    }
    let tc = a.device().kernels()?.has_tensor_cores();
    let (compute, kind) = plan(promoted, tc);
    // The dtype the kernels read: bfloat16 tensor-core products take bfloat16 operands
    // and write float32.
    let operand = if kind == BF16_TC {
        DType::BFloat16
    } else {
        compute
    };
    // Write straight into `out` when it has the compute dtype, does not overlap an
    // input, and its batch axes step with one stride.
    let direct = out.filter(|o| {
        o.dtype() == compute
            && compute == dtype
            && !o.shares_buffer(a)
            && !o.shares_buffer(b)
            && batch_stride(o.layout(), batch.len()).is_some()
            && !has_repeats(o.layout())
    });
    let target = match direct {
        Some(o) => o.clone(),
        None => Array::empty(a.device(), &shape, compute)?,
    };
    if target.size() > 0 {
        let conv = |x: &Array| {
            if x.dtype() == operand {
                Ok(x.clone())
            } else {
                astype(x, operand)
            }
        };
        gemm_into(
            &conv(&a2)?,
            &conv(&b2)?,
            &expand(&target)?,
            &batch,
            kind,
            false,
        )?;
    }
    if direct.is_some() {
        return Ok(target);
    }
    // Narrow results (int8 computed in int32, float16 in float32) round or wrap to the
    // result dtype first, as NumPy's loop does, then cast to `out`.
    let result = if compute != dtype {
        astype(&target, dtype)?
    } else {
        target
    };
    match out {
        Some(o) => {
            cast_into(&result, o)?;
            Ok(o.clone())
        }
        None => Ok(result),
    }
}

/// NumPy's checks of `out=`: exactly the result's shape, and a dtype the result casts to
/// under `same_kind`.
fn check_out(o: &Array, shape: &[usize], dtype: DType) -> Result<()> {
    if o.shape() != shape {
        return Err(Error::Value(format!(
            "matmul: Output operand 0 has shape {}, but the result has shape {} (gufunc signature (n?,k),(k,m?)->(n?,m?))",
            shape_str(o.shape()),
            shape_str(shape)
        )));
    }
    if !can_cast_same_kind(dtype, o.dtype()) {
        return Err(Error::Type(format!(
            "Cannot cast ufunc 'matmul' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
            dtype.name(),
            o.dtype().name()
        )));
    }
    Ok(())
}

/// Whether two different indices of `layout` reach one element (a stride-0 axis of
/// length > 1): such an `out` cannot take the kernel's writes directly.
fn has_repeats(layout: &Layout) -> bool {
    layout
        .shape
        .iter()
        .zip(&layout.strides)
        .any(|(&n, &s)| n > 1 && s == 0)
}

/// `plan`'s kernel families for float16 and bfloat16 on tensor cores (not indices of
/// `SIMT_KINDS`).
const F16_TC: usize = usize::MAX;
const BF16_TC: usize = usize::MAX - 1;

fn simt_kind(name: &str) -> usize {
    SIMT_KINDS
        .iter()
        .position(|(n, _)| *n == name)
        .expect("every SIMT family is in the table")
}

/// The dtype the product is computed in, and the index of its kernel family in
/// `tiles::SIMT_KINDS` (see the module comment), or `F16_TC`/`BF16_TC`.
fn plan(dtype: DType, tensor_cores: bool) -> (DType, usize) {
    use DType::*;
    let kind = simt_kind;
    match dtype {
        Float16 if tensor_cores => (Float16, F16_TC),
        BFloat16 if tensor_cores => (Float32, BF16_TC),
        Float32 | Float16 | BFloat16 => (Float32, kind("f32")),
        Float64 => (Float64, kind("f64")),
        Complex64 => (Complex64, kind("c64")),
        Complex128 => (Complex128, kind("c128")),
        Int32 => (Int32, kind("u32")),
        UInt32 => (UInt32, kind("u32")),
        Int64 => (Int64, kind("u64")),
        UInt64 => (UInt64, kind("u64")),
        Bool | Int8 | Int16 | UInt8 | UInt16 => (Int32, kind("u32")),
    }
}

/// NumPy's `dot` for operands of at most 2 dimensions (a 0-d operand multiplies); the
/// N-d rules are composed in Python (`gpupy._linalg.dot`).
pub fn dot(a: &Array, b: &Array) -> Result<Array> {
    dot_out(a, b, None)
}

/// `dot` with `out=`.
pub fn dot_out(a: &Array, b: &Array, out: Option<&Array>) -> Result<Array> {
    if a.ndim() > 2 || b.ndim() > 2 {
        return Err(Error::Value(format!(
            "gpupy's Rust dot takes arrays of up to 2 dimensions (got {} and {}); gpupy.dot composes the N-d case",
            a.ndim(),
            b.ndim()
        )));
    }
    if a.ndim() == 0 || b.ndim() == 0 {
        same_device(a, b)?;
        let dtype = promote(a.dtype(), b.dtype());
        let conv = |x: &Array| {
            if x.dtype() == dtype {
                Ok(x.clone())
            } else {
                astype(x, dtype)
            }
        };
        let (a, b) = (conv(a)?, conv(b)?);
        let (a, b) = (Operand::Array(&a), Operand::Array(&b));
        let r = binary(BinaryOp::Multiply, dtype, a, b, None)?;
        return match out {
            None => Ok(r),
            Some(o) => {
                if o.shape() != r.shape() || o.dtype() != dtype {
                    return Err(out_not_c_contiguous());
                }
                copy_into(&r, o)?;
                Ok(o.clone())
            }
        };
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
    if let Some(o) = out {
        // NumPy's dot takes only an exact out: right shape, the result's dtype,
        // C-contiguous.
        let dtype = promote(a.dtype(), b.dtype());
        let mut shape = a.shape()[..a.ndim() - 1].to_vec();
        shape.extend_from_slice(&b.shape()[1..]);
        if o.shape() != shape || o.dtype() != dtype || !o.layout().is_c_contiguous() {
            return Err(out_not_c_contiguous());
        }
    }
    matmul_out(a, b, out)
}

fn out_not_c_contiguous() -> Error {
    Error::Value(
        "output array is not acceptable (must have the right datatype, number of dimensions, and be a C-Array)"
            .into(),
    )
}

/// `c -= a @ b` in place, for the trailing updates of the blocked factorizations
/// (`gpupy.linalg._decomp`): `a` `(..., m, k)` and `b` `(..., k, n)` broadcast against
/// `c`'s batch axes, all of one dtype. The product is subtracted in the kernels' store
/// (no second pass over `c`) when the dtype is float32, float64 or complex, `c` takes
/// the kernels' writes directly and is apart from `a` and `b` (`Layout::disjoint`:
/// blocks of one matrix side by side are); otherwise it is computed apart and
/// subtracted, with the same result up to the rounding of that second pass.
pub fn matmul_sub_into(a: &Array, b: &Array, c: &Array) -> Result<()> {
    same_device(a, b)?;
    same_device(a, c)?;
    let dtype = c.dtype();
    if a.dtype() != dtype || b.dtype() != dtype {
        return Err(Error::Type(format!(
            "matmul_sub: operands of {}, {} and {}: one dtype expected",
            a.dtype().name(),
            b.dtype().name(),
            dtype.name()
        )));
    }
    let nd = c.ndim();
    let shapes_ok = nd >= 2
        && a.ndim() >= 2
        && b.ndim() >= 2
        && a.shape()[a.ndim() - 2] == c.shape()[nd - 2]
        && b.shape()[b.ndim() - 1] == c.shape()[nd - 1]
        && a.shape()[a.ndim() - 1] == b.shape()[b.ndim() - 2];
    let batch = c.shape()[..nd.max(2) - 2].to_vec();
    let batches = |x: &Array| {
        broadcast_shapes(&[&x.shape()[..x.ndim() - 2], &batch]).is_ok_and(|s| s == batch)
    };
    if !shapes_ok || !batches(a) || !batches(b) {
        return Err(Error::Value(format!(
            "matmul_sub: shapes {}, {} and {} do not make c -= a @ b",
            shape_str(a.shape()),
            shape_str(b.shape()),
            shape_str(c.shape())
        )));
    }
    if c.size() == 0 {
        return Ok(());
    }
    let fused = matches!(
        dtype,
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128
    ) && batch_stride(c.layout(), batch.len()).is_some()
        && !has_repeats(c.layout())
        && a.apart(c)
        && b.apart(c);
    if fused {
        let (_, kind) = plan(dtype, false);
        return gemm_into(a, b, c, &batch, kind, true);
    }
    let product = matmul(a, b)?;
    let (x, y) = (Operand::Array(c), Operand::Array(&product));
    binary(BinaryOp::Subtract, dtype, x, y, Some(c))?;
    Ok(())
}

/// `out[z] = a[z] @ b[z]` (with `sub`, `out[z] -= a[z] @ b[z]`) for every batch index `z`
/// of `batch` (operands broadcast). `out` has shape `batch + (m, n)` with batch axes that
/// step with one stride (checked by the caller) and no repeated elements; `kind` indexes
/// `tiles::SIMT_KINDS`. A subtraction goes to the SIMT or `mma` kernels, whose store
/// reads `Gemm::sub` (not to the GEMV, dot or `wgmma` paths).
fn gemm_into(
    a: &Array,
    b: &Array,
    out: &Array,
    batch: &[usize],
    kind: usize,
    sub: bool,
) -> Result<()> {
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
                let c = contiguous(&x)?;
                let s = batch_stride(c.layout(), batch.len()).unwrap_or(0);
                Ok((c, s))
            }
        }
    };
    let (a, a_batch) = flat(a)?;
    let (b, b_batch) = flat(b)?;
    let c_batch = batch_stride(out.layout(), batch.len())
        .ok_or_else(|| Error::Value("matmul: output batch axes must merge".into()))?;
    let nb = a.ndim();
    let count: usize = batch.iter().product();
    let g = Gemm {
        m: to_u32(m, "the row count")?,
        n: to_u32(n, "the column count")?,
        k: to_u32(k, "the inner dimension")?,
        batch: 0,
        k_total: 0,
        sub: sub as u32,
        a_row: a.layout().strides[nb - 2] as i64,
        a_col: a.layout().strides[nb - 1] as i64,
        b_row: b.layout().strides[nb - 2] as i64,
        b_col: b.layout().strides[nb - 1] as i64,
        c_row: out.layout().strides[nb - 2] as i64,
        c_col: out.layout().strides[nb - 1] as i64,
        a_batch,
        b_batch,
        c_batch,
    };
    let ops = Operands {
        a: a.data_ptr(),
        b: b.data_ptr(),
        c: out.data_ptr(),
        item: out.dtype().itemsize() as i64,
    };
    let device = out.device();
    if sub && (kind == F16_TC || kind == BF16_TC) {
        return Err(Error::Value(
            "matmul: a subtracting product takes float32, float64 or complex operands".into(),
        ));
    }
    if kind == F16_TC || kind == BF16_TC {
        let mk = if kind == F16_TC {
            MmaKind::F16
        } else {
            MmaKind::Bf16
        };
        return gemm_half(mk, &a, &b, out, g, &ops, count);
    }
    let (ty, tiles) = SIMT_KINDS[kind];
    let float = matches!(ty, "f32" | "f64");
    if !sub && m == 1 && n == 1 && count == 1 && k >= DOT_BY_REDUCTION && !ty.starts_with('u') {
        set_path("dot");
        return dot_by_reduction(&a, &b, out, k);
    }
    if !sub && float && (n == 1 || m == 1) && k > 0 && !(m == 1 && n == 1 && count == 1) {
        set_path("gemv");
        return gemv(device, ty, &g, &ops, count);
    }
    let tc_kind = match ty {
        // Hopper's FP64 tensor cores reach their rate only with the sm_90 shapes.
        "f64" if device.kernels()?.has_sm90() && !switches().no_sm90 => Some(MmaKind::F64K8),
        "f64" => Some(MmaKind::F64),
        "f32" if tf32() => Some(MmaKind::Tf32),
        _ => None,
    };
    if !sub && tc_kind == Some(MmaKind::Tf32) && try_wgmma(MmaKind::Tf32, &a, &b, out, &g, count)? {
        return Ok(());
    }
    if let Some(mk) = tc_kind
        && try_mma(device, mk, g, &ops, count)?
    {
        return Ok(());
    }
    set_path("simt");
    let sms = device.props.multi_processor_count.max(1) as u32;
    let tile_index = |tile: &Tile| tiles.iter().position(|x| x.name == tile.name).unwrap_or(0);
    let tile = tile_override(tiles).unwrap_or_else(|| {
        // A deep product (k well beyond m and n) gets split along k below, which brings
        // the blocks that fill the GPU: the largest (fastest) tile is then the best.
        if count == 1 && !ty.starts_with('u') && g.k as u64 >= 4 * g.m.max(g.n) as u64 {
            &tiles[0]
        } else {
            choose_tile(tiles, g.m, g.n, count.min(u32::MAX as usize) as u32, sms)
        }
    });
    // Vector loads where both operands allow them (else the scalar twin of the tile).
    let vec = (16 / ops.item.max(1)) as u32;
    let vector = tiles::vector_loads(ops.a, g.a_row, g.a_col, g.a_batch, g.m, g.k, vec)
        && tiles::vector_loads(ops.b, g.b_col, g.b_row, g.b_batch, g.n, g.k, vec);
    let tile = vector_twin(tiles, tile, vector);
    if count == 1 && !ty.starts_with('u') {
        let (splits, chunk) = tiles::split_k(tile.blocks(g.m, g.n, 1), g.k, sms);
        if splits > 1 {
            let f = simt_kernel(kind, tile_index(tile))?;
            return split_k(device, ty, f, Grid::of(tile), &g, &ops, splits, chunk);
        }
    }
    let f = simt_kernel(kind, tile_index(tile))?;
    launch_tiles(device, f, Grid::of(tile), g, &ops, count)
}

/// From this length on, a single inner product (`x @ y`, `dot(x, y)` of vectors) is an
/// elementwise product and a sum reduction: the GEMM tiles would give it one block (or
/// split-K partials of a 128x128 tile that is almost all padding), while the reduction
/// engine spreads the sum over the whole GPU. Shorter products stay one launch.
const DOT_BY_REDUCTION: usize = 4096;

/// `out (1 x 1) = a (1 x k) @ b (k x 1)` as `sum(a * b)`: the reduction engine's
/// pairwise-by-block order, accumulated in the dtype's reduction accumulator.
fn dot_by_reduction(a: &Array, b: &Array, out: &Array, k: usize) -> Result<()> {
    let nd = a.ndim();
    let line = |x: &Array, axis: usize| {
        x.view(
            Layout {
                shape: vec![1, 1, k],
                strides: vec![0, 0, x.layout().strides[axis]],
                offset: x.layout().offset,
            },
            x.dtype(),
        )
    };
    let (x, y) = (line(a, nd - 1)?, line(b, nd - 2)?);
    let dtype = out.dtype();
    let product = binary(
        BinaryOp::Multiply,
        dtype,
        Operand::Array(&x),
        Operand::Array(&y),
        None,
    )?;
    let sum = crate::ops::reduce::reduce(
        &product,
        crate::table::ReduceOp::Sum,
        &[2],
        Default::default(),
    )?;
    copy_into(&sum, out)
}

/// The SIMT kernel of family `kind` for its tile `tile`.
fn simt_kernel(kind: usize, tile: usize) -> Result<Kernel> {
    kernels::matmul::simt_tile(kind, tile)
        .ok_or_else(|| Error::Value(format!("matmul: no SIMT tile {tile} of family {kind}")))
}

/// `tile`, or its twin of the same shape with (`vector`) or without 16-byte global loads
/// where the table has one; a vector tile never comes back for `vector == false`.
fn vector_twin(tiles: &'static [Tile], tile: &'static Tile, vector: bool) -> &'static Tile {
    let same = |t: &&Tile| {
        (t.bm, t.bn, t.bk, t.tm, t.tn) == (tile.bm, tile.bn, tile.bk, tile.tm, tile.tn)
            && t.vector == vector
    };
    match tiles.iter().find(same) {
        Some(t) => t,
        // A vector tile has a scalar twin (checked by the tests).
        None if tile.vector => tiles.iter().find(|t| !t.vector).unwrap_or(tile),
        None => tile,
    }
}

/// The SIMT tile `GPUPY_MATMUL_TILE` forces, where the dtype's table has it (see
/// `mma::switches`).
fn tile_override(tiles: &'static [Tile]) -> Option<&'static Tile> {
    let name = switches().tile;
    let name = name.as_deref();
    tiles.iter().find(|t| Some(t.name) == name)
}

/// float16 or bfloat16 (`kind`) on tensor cores; operands whose layout the kernel cannot
/// stream are multiplied in float32 instead (converted copies; a float32 result, rounded
/// into a float16 `out`).
fn gemm_half(
    kind: MmaKind,
    a: &Array,
    b: &Array,
    out: &Array,
    g: Gemm,
    ops: &Operands,
    count: usize,
) -> Result<()> {
    if try_wgmma(kind, a, b, out, &g, count)? || try_mma(out.device(), kind, g, ops, count)? {
        return Ok(());
    }
    let batch = &out.shape()[..out.ndim() - 2];
    let (a32, b32) = (astype(a, DType::Float32)?, astype(b, DType::Float32)?);
    if out.dtype() == DType::Float32 {
        return gemm_into(&a32, &b32, out, batch, simt_kind("f32"), false);
    }
    let tmp = Array::empty(out.device(), out.shape(), DType::Float32)?;
    gemm_into(&a32, &b32, &tmp, batch, simt_kind("f32"), false)?;
    cast_into(&tmp, out)
}

/// Matrix-vector products through the GEMV kernels: `n == 1` is `A x`; `m == 1` is
/// `x B`, computed as `B^T x`.
fn gemv(device: &'static Device, ty: &str, g: &Gemm, ops: &Operands, count: usize) -> Result<()> {
    let v = if g.n == 1 {
        Gemv {
            m: g.m,
            k: g.k,
            a_row: g.a_row,
            a_col: g.a_col,
            x_inc: g.b_row,
            y_inc: g.c_row,
            a_batch: g.a_batch,
            x_batch: g.b_batch,
            y_batch: g.c_batch,
        }
    } else {
        Gemv {
            m: g.n,
            k: g.k,
            a_row: g.b_col,
            a_col: g.b_row,
            x_inc: g.a_col,
            y_inc: g.c_col,
            a_batch: g.b_batch,
            x_batch: g.a_batch,
            y_batch: g.c_batch,
        }
    };
    let (mat, vec) = if g.n == 1 {
        (ops.a, ops.b)
    } else {
        (ops.b, ops.a)
    };
    // A warp a row when rows are contiguous; else a lane a row (coalesced along
    // columns).
    let rows = v.a_col == 1;
    let f = kernels::matmul::gemv(word_dtype(ty) as usize, rows)
        .ok_or_else(|| Error::Value(format!("matmul: no {ty} matrix-vector kernel")))?;
    let blocks = gemv_blocks(v.m, rows);
    let (threads, smem) = if rows {
        (GEMV_THREADS, 0)
    } else {
        (GEMV_COLS_THREADS, GEMV_COLS_SMEM * ops.item as u32)
    };
    device.bind()?;
    let mut start = 0usize;
    while start < count {
        let chunk = (count - start).min(65535);
        let offset =
            |base: u64, stride: i64| (base as i64 + start as i64 * stride * ops.item) as u64;
        let (ap, xp, yp) = (
            offset(mat, v.a_batch),
            offset(vec, v.x_batch),
            offset(ops.c, v.y_batch),
        );
        // (Gemv, a, x, y) is the GEMV kernel's parameter list; the matrix and
        // vector are A and B (or B^T and A) of a product whose layouts fit their buffers,
        // and y is C's single column (row), distinct elements not overlapping the inputs.
        Launch::new(device, f)?
            .grid3((blocks, chunk as u32, 1))
            .block(threads)
            .shared(smem)
            .arg(v)
            .arg(ap)
            .arg(xp)
            .arg(yp)
            .run()?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_follow_the_dtype() {
        use DType::*;
        assert_eq!(plan(Float16, true), (Float16, F16_TC));
        assert_eq!(plan(Float16, false).0, Float32);
        for d in [Bool, Int8, Int16, UInt8, UInt16] {
            assert_eq!(plan(d, true), (Int32, simt_kind("u32")));
        }
        assert_eq!(plan(UInt64, true), (UInt64, simt_kind("u64")));
        assert_eq!(plan(Complex64, true), (Complex64, simt_kind("c64")));
    }
}
