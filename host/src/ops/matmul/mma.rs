//! Matrix products on tensor cores (`kernels/src/matmul/gpu/mma.rs`, `wgmma.rs`): which products may use them
//! (layout checks), the TF32 switch, and the launch with the tile chosen by
//! `mma_layout::tc_tile`, split along k for thin products with a long k.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use gpupy_kernels as kernels;
use gpupy_kernels::matmul::mma_layout::{MmaKind, TC_TILES, TcTile, tc_tile};
use gpupy_kernels::matmul::tiles::{self as gemm, Gemm};
use gpupy_kernels::matmul::wgmma_layout::{self as wl, WG_BM, WG_BN, WG_SMEM_BYTES, WG_THREADS};

use super::launch::{Grid, Operands, launch_tiles, split_k};
use crate::array::Array;
use crate::device::Device;
use crate::error::Result;

/// Whether `GPUPY_TF32`-style TF32 products are on: set by `set_tf32` (Python:
/// `gpupy.config.set_tf32`, which reads `GPUPY_TF32` at import). Off by default, as in
/// NumPy and CuPy: TF32 keeps 10 of float32's 23 mantissa bits of each input (inputs
/// are truncated), so a product's relative error grows to about 1e-3 (norm-wise), while
/// sums still accumulate in float32.
static TF32: AtomicBool = AtomicBool::new(false);

/// The kernel family of the last matrix product that reached a kernel, for tests that
/// must know which path ran (`gpupy._core._matmul_path()`): an index into [`PATHS`].
static LAST_PATH: AtomicU8 = AtomicU8::new(0);

/// Kernel families, as `last_path` names them.
pub const PATHS: [&str; 6] = ["none", "simt", "gemv", "mma", "wgmma", "dot"];

pub(super) fn set_path(name: &str) {
    let i = PATHS.iter().position(|p| *p == name).unwrap_or(0);
    LAST_PATH.store(i as u8, Ordering::Relaxed);
}

/// The kernel family of the last matrix product: "simt", "gemv", "mma" (`mma.sync`
/// tensor cores) or "wgmma" (Hopper's warpgroup tensor cores); "none" before any.
pub fn last_path() -> &'static str {
    PATHS[LAST_PATH.load(Ordering::Relaxed) as usize % PATHS.len()]
}

/// Turns TF32 tensor cores for float32 products on or off (process-wide).
pub fn set_tf32(on: bool) {
    TF32.store(on, Ordering::Relaxed);
}

/// Whether float32 products use TF32 tensor cores.
pub fn tf32() -> bool {
    TF32.load(Ordering::Relaxed)
}

/// The layout flags and strides of a tensor-core launch, if the operands allow one: each
/// operand needs a unit stride along k ("k-major") or along its outer dimension
/// ("outer-major"), with the other stride, the batch stride and the base address
/// 16-byte multiples (the kernel copies 16-byte chunks). Axes of length 1 take whatever
/// stride makes the layout fit.
pub fn mma_layout(g: &Gemm, a: u64, b: u64, elem: u32) -> Option<(Gemm, bool, bool)> {
    let vec = (16 / elem) as i64;
    let fits = |x: i64| x % vec == 0;
    let mut g = *g;
    if !a.is_multiple_of(16) || !b.is_multiple_of(16) || !fits(g.a_batch) || !fits(g.b_batch) {
        return None;
    }
    // A: rows m, inner k.
    let (m1, n1, k1) = (g.m == 1, g.n == 1, g.k == 1);
    let a_km = if (k1 || g.a_col == 1) && (m1 || fits(g.a_row)) {
        g.a_col = 1;
        if m1 {
            g.a_row = 0;
        }
        true
    } else if (m1 || g.a_row == 1) && (k1 || fits(g.a_col)) {
        g.a_row = 1;
        if k1 {
            g.a_col = 0;
        }
        false
    } else {
        return None;
    };
    // B: inner k (rows), outer n.
    let b_km = if (k1 || g.b_row == 1) && (n1 || fits(g.b_col)) {
        g.b_row = 1;
        if n1 {
            g.b_col = 0;
        }
        true
    } else if (n1 || g.b_col == 1) && (k1 || fits(g.b_row)) {
        g.b_col = 1;
        if k1 {
            g.b_row = 0;
        }
        false
    } else {
        return None;
    };
    Some((g, a_km, b_km))
}

/// The matmul path switches, read from the environment at the first product and
/// settable per call (`set_switches`; Python: `gpupy.config.matmul_switches`), so tests
/// can run every path the GPU has and measurements can pin one:
/// - `tile` (`GPUPY_MATMUL_TILE=<name>`) forces that tile (SIMT or tensor-core) where the
///   table of the product's kind has it;
/// - `no_tc` (`GPUPY_MATMUL_NO_TC=1`): float16 and float64 skip the tensor cores (float16
///   is then computed in float32 on the SIMT kernels);
/// - `no_sm90` (`GPUPY_MATMUL_NO_SM90=1`): float64 stays on the sm_80 shape `m8n8k4` on
///   Hopper too;
/// - `no_wgmma` (`GPUPY_MATMUL_NO_WGMMA=1`): float16 and TF32 stay on `mma.sync` on
///   Hopper too.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Switches {
    pub tile: Option<String>,
    pub no_tc: bool,
    pub no_sm90: bool,
    pub no_wgmma: bool,
}

static SWITCHES: std::sync::RwLock<Option<Switches>> = std::sync::RwLock::new(None);

/// The switches in force (from the environment until `set_switches`).
pub fn switches() -> Switches {
    if let Some(s) = SWITCHES.read().unwrap_or_else(|p| p.into_inner()).as_ref() {
        return s.clone();
    }
    let on = |var: &str| std::env::var(var).is_ok_and(|v| v == "1");
    let s = Switches {
        tile: std::env::var("GPUPY_MATMUL_TILE").ok(),
        no_tc: on("GPUPY_MATMUL_NO_TC"),
        no_sm90: on("GPUPY_MATMUL_NO_SM90"),
        no_wgmma: on("GPUPY_MATMUL_NO_WGMMA"),
    };
    SWITCHES
        .write()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert(s)
        .clone()
}

/// Sets the switches for the products that follow (process-wide).
pub fn set_switches(s: Switches) {
    *SWITCHES.write().unwrap_or_else(|p| p.into_inner()) = Some(s);
}

fn tile_override(kind: MmaKind) -> Option<&'static TcTile> {
    let name = switches().tile?;
    TC_TILES
        .iter()
        .find(|t| t.kind == kind.family() && t.name == name)
}

/// The tile like `t` but with more stages, where the table has one (float64 on sm_90:
/// 4 stages ran 4% faster than 3 at 4096 on an H200, 3.01 against 3.13 ms). Its
/// k-major x k-major variant spills and is not built: callers use it for the other
/// layouts only.
fn deeper_pipeline(t: &'static TcTile) -> &'static TcTile {
    TC_TILES
        .iter()
        .find(|d| {
            d.kind == t.kind && (d.bm, d.bn, d.bk) == (t.bm, t.bn, t.bk) && d.stages > t.stages
        })
        .unwrap_or(t)
}

/// Runs the product on tensor cores of `kind` when the GPU has them and the layout
/// allows; `Ok(false)` leaves it to the SIMT kernels.
pub(super) fn try_mma(
    device: &'static Device,
    kind: MmaKind,
    g: Gemm,
    ops: &Operands,
    count: usize,
) -> Result<bool> {
    let kernels = device.kernels()?;
    if !kernels.has_tensor_cores() || g.k == 0 || switches().no_tc {
        return Ok(false);
    }
    let Some((g, a_km, b_km)) = mma_layout(&g, ops.a, ops.b, kind.elem()) else {
        return Ok(false);
    };
    let sms = device.props.multi_processor_count.max(1) as u32;
    let tile = tile_override(kind).unwrap_or_else(|| {
        let t = tc_tile(kind, g.m, g.n, count.min(u32::MAX as usize) as u32, sms);
        if a_km && b_km { t } else { deeper_pipeline(t) }
    });
    if g.m.div_ceil(tile.bm) > 65535 {
        return Ok(false);
    }
    // By value: `TC_TILES` is a constant, and each crate that names it may have its own
    // copy, so a tile from the kernel crate's `tc_tile` need not be at the same address.
    let index = TC_TILES
        .iter()
        .position(|t| t.kind == tile.kind && t.name == tile.name);
    let Some(f) = index.and_then(|i| kernels::matmul::mma_tile(kind, i, a_km, b_km)) else {
        return Ok(false);
    };
    if !kernels.available(f.module) {
        return Ok(false);
    }
    let grid = Grid {
        bm: tile.bm,
        bn: tile.bn,
        threads: tile.threads,
        smem_bytes: tile.smem_bytes,
    };
    set_path("mma");
    // Split-K for a single thin product with a long k (not float16: its kernel writes
    // float16, and partial sums rounded to float16 would lose accuracy; bfloat16's
    // kernels write float32).
    if count == 1 && kind != MmaKind::F16 {
        let (splits, chunk) = gemm::split_k(tile.blocks(g.m, g.n, 1), g.k, sms);
        if splits > 1 {
            let ty = if kind.elem() == 8 { "f64" } else { "f32" };
            split_k(device, ty, f, grid, &g, ops, splits, chunk)?;
            return Ok(true);
        }
    }
    launch_tiles(device, f, grid, g, ops, count)?;
    Ok(true)
}

/// Runs one large float16, bfloat16 or TF32 product on Hopper's warpgroup tensor cores
/// (`gpupy_wgmma_<word>_128x256_kk`, compute capability 9.0) when its 128x256 tiles fill
/// the GPU; `Ok(false)` leaves it to `try_mma`. The kernel reads both operands k-major:
/// an `A` that is not row-major, or a `B` that is not transposed in memory (the usual
/// row-major `B`), is first copied into that layout, one pass over the operand (about
/// 3% of the product's time at 8192^2 float16).
pub(super) fn try_wgmma(
    kind: MmaKind,
    a: &Array,
    b: &Array,
    out: &Array,
    g: &Gemm,
    count: usize,
) -> Result<bool> {
    let device = out.device();
    let kernels = device.kernels()?;
    let elem = kind.elem();
    let sms = device.props.multi_processor_count.max(1) as u64;
    if !kernels.has_wgmma()
        || switches().no_wgmma
        || switches().no_tc
        || count != 1
        || !matches!(kind, MmaKind::F16 | MmaKind::Bf16 | MmaKind::Tf32)
        || !wl::fits(g.m, g.n, g.k, elem)
        || (g.m.div_ceil(WG_BM) as u64) * (g.n.div_ceil(WG_BN) as u64) < sms
    {
        return Ok(false);
    }
    let Some(f) = kernels::matmul::wgmma_tile(kind) else {
        return Ok(false);
    };
    // Rows of `x` with unit stride along k, 16-byte aligned.
    let k_major = |ptr: u64, row: i64, col: i64| {
        col == 1 && (row * elem as i64).rem_euclid(16) == 0 && ptr.is_multiple_of(16)
    };
    let mut g = *g;
    let a = if k_major(a.data_ptr(), g.a_row, g.a_col) {
        a.clone()
    } else {
        g.a_row = g.k as i64;
        crate::ops::elementwise::copy::contiguous(a)?
    };
    g.a_col = 1;
    let b = if k_major(b.data_ptr(), g.b_col, g.b_row) {
        b.clone()
    } else {
        let nd = b.ndim() as isize;
        let mut axes: Vec<isize> = (0..nd).collect();
        axes.swap(b.ndim() - 2, b.ndim() - 1);
        g.b_col = g.k as i64;
        crate::ops::elementwise::copy::contiguous(&b.transpose(Some(&axes))?)?
    };
    g.b_row = 1;
    let ops = Operands {
        a: a.data_ptr(),
        b: b.data_ptr(),
        c: out.data_ptr(),
        item: out.dtype().itemsize() as i64,
    };
    let grid = Grid {
        bm: WG_BM,
        bn: WG_BN,
        threads: WG_THREADS,
        smem_bytes: WG_SMEM_BYTES,
    };
    // The copies (if any) are freed into the pool when this returns; the pool hands
    // memory out again only to work ordered after this launch on the same stream.
    launch_tiles(device, f, grid, g, &ops, 1)?;
    set_path("wgmma");
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A product `m x k @ k x n` with the given (a_row, a_col, b_row, b_col) strides.
    fn gemm(m: u32, n: u32, k: u32, s: [i64; 4]) -> Gemm {
        Gemm {
            m,
            n,
            k,
            batch: 1,
            k_total: 0,
            sub: 0,
            a_row: s[0],
            a_col: s[1],
            b_row: s[2],
            b_col: s[3],
            c_row: n as i64,
            c_col: 1,
            a_batch: 0,
            b_batch: 0,
            c_batch: 0,
        }
    }

    #[test]
    fn deeper_pipelines_keep_the_tile_shape() {
        let t = tc_tile(MmaKind::F64K8, 4096, 4096, 1, 132);
        let d = deeper_pipeline(t);
        assert_eq!((d.bm, d.bn, d.bk, d.stages), (t.bm, t.bn, t.bk, 4));
        let f = tc_tile(MmaKind::F16, 8192, 8192, 1, 132);
        assert!(std::ptr::eq(deeper_pipeline(f), f));
    }

    #[test]
    fn tensor_core_layouts() {
        // float16 (8 elements per 16-byte chunk): row-major A and B.
        let (g, a_km, b_km) = mma_layout(&gemm(64, 48, 32, [32, 1, 48, 1]), 0, 256, 2).unwrap();
        assert!(a_km && !b_km);
        assert_eq!((g.a_row, g.a_col, g.b_row, g.b_col), (32, 1, 48, 1));
        // Transposed A and B.
        let (_, a_km, b_km) = mma_layout(&gemm(64, 48, 32, [1, 64, 1, 32]), 0, 256, 2).unwrap();
        assert!(!a_km && b_km);
        // A row length that is not a 16-byte multiple, a column step, a misaligned base.
        assert!(mma_layout(&gemm(64, 48, 33, [33, 1, 48, 1]), 0, 256, 2).is_none());
        assert!(mma_layout(&gemm(64, 48, 32, [64, 2, 48, 1]), 0, 256, 2).is_none());
        assert!(mma_layout(&gemm(64, 48, 32, [32, 1, 48, 1]), 2, 256, 2).is_none());
        // A batch stride that breaks the alignment.
        let mut g = gemm(8, 8, 8, [8, 1, 8, 1]);
        g.a_batch = 68;
        assert!(mma_layout(&g, 0, 0, 2).is_none());
        // Vectors (1-D operands): the length-1 axis takes any stride.
        let (g, a_km, b_km) = mma_layout(&gemm(1, 1, 40, [0, 1, 1, 0]), 0, 0, 2).unwrap();
        assert!(a_km && b_km);
        assert_eq!((g.a_row, g.b_col), (0, 0));
        // float64 (2 elements a chunk): odd row lengths fail, even ones pass.
        assert!(mma_layout(&gemm(5, 5, 5, [5, 1, 5, 1]), 0, 0, 8).is_none());
        assert!(mma_layout(&gemm(5, 6, 6, [6, 1, 6, 1]), 0, 0, 8).is_some());
    }
}
