//! Launching matrix-product tiles: a tile kernel over a batch (in chunks of the grid's
//! z limit) and split-K (slices along k into a workspace, then summed). Shared by the
//! SIMT path (`mod.rs`) and the tensor-core paths (`mma.rs`).

use gpupy_kernels as kernels;
use gpupy_kernels::matmul::tiles::{GEMV_THREADS, Gemm, SplitSum, Tile};
use gpupy_kernels::registry::Kernel;

use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;

/// The dtype of a SIMT family's element word.
pub(super) fn word_dtype(ty: &str) -> DType {
    match ty {
        "f32" => DType::Float32,
        "f64" => DType::Float64,
        "u32" => DType::UInt32,
        "u64" => DType::UInt64,
        "c64" => DType::Complex64,
        _ => DType::Complex128,
    }
}

/// A tile launch's block shape.
#[derive(Clone, Copy)]
pub(super) struct Grid {
    pub(super) bm: u32,
    pub(super) bn: u32,
    pub(super) threads: u32,
    pub(super) smem_bytes: u32,
}

impl Grid {
    pub(super) fn of(t: &Tile) -> Grid {
        Grid {
            bm: t.bm,
            bn: t.bn,
            threads: t.threads,
            smem_bytes: t.smem_bytes,
        }
    }
}

/// Device addresses of element 0 of A, B and C, and the element size in bytes.
#[derive(Clone, Copy)]
pub(super) struct Operands {
    pub(super) a: u64,
    pub(super) b: u64,
    pub(super) c: u64,
    pub(super) item: i64,
}

pub(super) fn to_u32(x: usize, what: &str) -> Result<u32> {
    u32::try_from(x).map_err(|_| too_big(what))
}

pub(super) fn too_big(what: &str) -> Error {
    Error::Value(format!("matmul: {what} is too large for gpupy's kernels"))
}

/// Launches a tile kernel over `count` batch entries (grid z is limited to 65535: the
/// batch goes in chunks).
pub(super) fn launch_tiles(
    device: &'static Device,
    f: Kernel,
    tile: Grid,
    g: Gemm,
    ops: &Operands,
    count: usize,
) -> Result<()> {
    let (gx, gy) = (g.n.div_ceil(tile.bn), g.m.div_ceil(tile.bm));
    if gy > 65535 {
        return Err(too_big("the row count"));
    }
    device.bind()?;
    let mut start = 0usize;
    while start < count {
        let chunk = (count - start).min(65535);
        let g = Gemm {
            batch: chunk as u32,
            ..g
        };
        let offset =
            |base: u64, stride: i64| (base as i64 + start as i64 * stride * ops.item) as u64;
        let (ap, bp, cp) = (
            offset(ops.a, g.a_batch),
            offset(ops.b, g.b_batch),
            offset(ops.c, g.c_batch),
        );
        // (Gemm, a, b, c) is the matmul kernel's parameter list. Every (z, i, p)
        // and (z, p, j) the kernel reads lies in a's and b's broadcast layouts, which fit
        // their buffers; every (z, i, j) is a distinct element of c's layout (checked by
        // the callers), which does not overlap a or b. The grid matches the tile, so
        // every block's guarded accesses stay inside (m, n, k).
        Launch::new(device, f)?
            .grid3((gx, gy, chunk as u32))
            .block(tile.threads)
            .shared(tile.smem_bytes)
            .arg(g)
            .arg(ap)
            .arg(bp)
            .arg(cp)
            .run()?;
        start += chunk;
    }
    Ok(())
}

/// Split-K for one product: `splits` slices of `chunk` along `k` computed as a batch into
/// a contiguous `(splits, m, n)` workspace, then summed into C.
#[allow(clippy::too_many_arguments)]
pub(super) fn split_k(
    device: &'static Device,
    ty: &str,
    f: Kernel,
    grid: Grid,
    g: &Gemm,
    ops: &Operands,
    splits: u32,
    chunk: u32,
) -> Result<()> {
    let dtype = word_dtype(ty);
    let (m, n) = (g.m as usize, g.n as usize);
    let work = Array::empty(device, &[splits as usize, m, n], dtype)?;
    // The slices write the workspace; the sum applies a subtraction.
    let slices = Gemm {
        k: chunk,
        k_total: g.k,
        sub: 0,
        c_row: g.n as i64,
        c_col: 1,
        a_batch: chunk as i64 * g.a_col,
        b_batch: chunk as i64 * g.b_row,
        c_batch: (m * n) as i64,
        ..*g
    };
    let wops = Operands {
        c: work.data_ptr(),
        ..*ops
    };
    launch_tiles(device, f, grid, slices, &wops, splits as usize)?;
    let sum = kernels::matmul::splitk_sum(dtype as usize)
        .ok_or_else(|| Error::Value(format!("matmul: {ty} products are not split")))?;
    let s = SplitSum {
        m: g.m,
        n: g.n,
        splits,
        sub: g.sub,
        c_row: g.c_row,
        c_col: g.c_col,
    };
    let blocks = ((m * n).div_ceil(GEMV_THREADS as usize)).min(8 * 1024) as u32;
    let (wp, cp) = (work.data_ptr(), ops.c);
    // (SplitSum, w, c) is the kernel's parameter list; `work` holds splits*m*n
    // elements, and (i, j) < (m, n) are distinct elements of C (the caller's contract).
    Launch::new(device, sum)?
        .grid(blocks)
        .block(GEMV_THREADS)
        .arg(s)
        .arg(wp)
        .arg(cp)
        .run()
}
