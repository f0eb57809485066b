//! The matrix-product family: tiled SIMT products for every dtype, split-K sums and
//! GEMV; tensor-core products on `mma.sync` (float16, bfloat16, TF32, float64; sm_80,
//! and Hopper's float64 shape on sm_90); Hopper's warpgroup `wgmma` (sm_90a).
//!
//! - `tiles`: the SIMT tiles, launch structs and the tile choice (CPU-tested);
//! - `mma_layout`, `wgmma_layout`: tensor-core tiles, fragment maps, swizzles and
//!   descriptors (CPU-tested);
//! - `gpu/`: the engines (`simt`, `mma`, `wgmma`) and their entry points, compiled for
//!   the GPU only;
//! - here: the four modules' kernel tables (one per architecture) and the handles.

pub mod mma_layout;
pub mod tiles;
pub mod wgmma_layout;

#[cfg(all(
    target_arch = "nvptx64",
    any(
        feature = "matmul",
        feature = "matmul-mma",
        feature = "matmul-mma90",
        feature = "matmul-wgmma"
    )
))]
mod gpu;

use crate::dtype::{DTypeIndex, c64, c128};
use crate::matmul::mma_layout::MmaKind;
use crate::registry::{Kernel, Module};

/// The SIMT kernels: `(type, tile table, [index name ...])`, the names spelled out since
/// `export_name` takes a literal (checked against the tables at compile time). The
/// order is `tiles::SIMT_KINDS`'s.
#[macro_export]
macro_rules! for_each_simt_tile {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*]
            (f32, F32_TILES, [0 "128x128" 1 "128x64" 2 "64x64" 3 "64x32" 4 "128x128v" 5 "128x64v" 6 "64x64v"])
            (f64, F64_TILES, [0 "64x64" 1 "64x32" 2 "32x32"])
            (u32, U32_TILES, [0 "64x64" 1 "64x32"])
            (u64, U64_TILES, [0 "64x32" 1 "32x32"])
            (c64, C64_TILES, [0 "64x32" 1 "32x32"])
            (c128, C128_TILES, [0 "32x32" 1 "16x16"])
        }
    };
}
/// The element types whose products may be split along k (integers are not split).
#[macro_export]
macro_rules! for_each_splitk_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] f32 f64 c64 c128 } };
}
/// The element types with matrix-vector kernels.
#[macro_export]
macro_rules! for_each_gemv_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] f32 f64 } };
}
/// The sm_80 tensor-core kernels: `(instruction family, output type, name prefix, dtype
/// word, index in TC_TILES, tile name, [variant a_k_major b_k_major ...])`; the variant
/// names the operands' layouts (`k`: k-major, `m`: the other).
#[macro_export]
macro_rules! for_each_mma_kernel {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*]
            (F16, u16, "gpupy_mma", "f16", 0, "128x256", ["kk" true true "km" true false "mk" false true "mm" false false])
            (F16, u16, "gpupy_mma", "f16", 1, "128x128", ["kk" true true "km" true false "mk" false true "mm" false false])
            (Bf16, f32, "gpupy_mma", "bf16", 0, "128x256", ["kk" true true "km" true false "mk" false true "mm" false false])
            (Bf16, f32, "gpupy_mma", "bf16", 1, "128x128", ["kk" true true "km" true false "mk" false true "mm" false false])
            (Tf32, f32, "gpupy_mma", "tf32", 2, "128x128", ["kk" true true "km" true false "mk" false true "mm" false false])
            (F64, f64, "gpupy_mma", "f64", 3, "128x128", ["kk" true true "km" true false "mk" false true "mm" false false])
            (F64, f64, "gpupy_mma", "f64", 4, "64x64", ["kk" true true "km" true false "mk" false true "mm" false false])
        }
    };
}
/// The sm_90 tensor-core kernels (Hopper's float64 `m16n8k8`), as above.
#[macro_export]
macro_rules! for_each_mma90_kernel {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*]
            (F64K8, f64, "gpupy_mma90", "f64", 5, "128x128", ["kk" true true "km" true false "mk" false true "mm" false false])
            (F64K8, f64, "gpupy_mma90", "f64", 6, "64x64", ["kk" true true "km" true false "mk" false true "mm" false false])
            (F64K8, f64, "gpupy_mma90", "f64", 7, "128x128s4", ["km" true false "mk" false true "mm" false false])
        }
    };
}
/// The sm_90a warpgroup kernels: `(instruction family, output type, dtype word)`.
#[macro_export]
macro_rules! for_each_wgmma_kernel {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*] (F16, u16, "f16") (Bf16, f32, "bf16") (Tf32, f32, "tf32") }
    };
}

macro_rules! simt_names {
    ([] $(($ty:ident, $tiles:ident, [$($idx:literal $name:literal)*]))*) => {
        &[$($(concat!("gpupy_matmul_", stringify!($ty), "_", $name),)*)*]
    };
}
macro_rules! type_names {
    ([$prefix:literal $suffix:literal] $($ty:ident)*) => {
        &[$(concat!($prefix, stringify!($ty), $suffix)),*]
    };
}
macro_rules! type_keys {
    ([] $($ty:ident)*) => { &[$(<$ty as DTypeIndex>::INDEX),*] };
}
macro_rules! mma_names {
    ([] $(($M:ident, $out:ty, $prefix:literal, $word:literal, $idx:literal, $name:literal, [$($v:literal $ak:literal $bk:literal)*]))*) => {
        &[$($(concat!($prefix, "_", $word, "_", $name, "_", $v),)*)*]
    };
}
/// `(kind, tile index, a k-major, b k-major)` of each name of `mma_names!`.
macro_rules! mma_keys {
    ([] $(($M:ident, $out:ty, $prefix:literal, $word:literal, $idx:literal, $name:literal, [$($v:literal $ak:literal $bk:literal)*]))*) => {
        &[$($((MmaKind::$M, $idx, $ak, $bk),)*)*]
    };
}
macro_rules! wgmma_names {
    ([] $(($M:ident, $out:ty, $word:literal))*) => {
        &[$(concat!("gpupy_wgmma_", $word, "_128x256_kk")),*]
    };
}
macro_rules! wgmma_keys {
    ([] $(($M:ident, $out:ty, $word:literal))*) => { &[$(MmaKind::$M),*] };
}

/// The SIMT module's parts.
pub mod simt {
    crate::module_parts! {
        /// The parts of the SIMT matmul module.
        Part in Matmul {
            /// Tiled products, type by type in `SIMT_KINDS` order, tiles in table order.
            Tiles = crate::for_each_simt_tile!(simt_names),
            /// Sums of split-K partial products (`for_each_splitk_type!`).
            SplitkSum = crate::for_each_splitk_type!(type_names, "gpupy_matmul_", "_splitk_sum"),
            /// Matrix-vector products, a warp a row (`for_each_gemv_type!`).
            GemvRows = crate::for_each_gemv_type!(type_names, "gpupy_gemv_", "_rows"),
            /// Matrix-vector products, a lane a row.
            GemvCols = crate::for_each_gemv_type!(type_names, "gpupy_gemv_", "_cols"),
        }
    }
}

/// The sm_80 tensor-core module's parts.
pub mod mma {
    crate::module_parts! {
        /// The parts of the sm_80 tensor-core module.
        Part in MatmulMma {
            /// `mma.sync` products, as `for_each_mma_kernel!` lists them.
            Tiles = crate::for_each_mma_kernel!(mma_names),
        }
    }
}

/// The sm_90 tensor-core module's parts.
pub mod mma90 {
    crate::module_parts! {
        /// The parts of the sm_90 tensor-core module.
        Part in MatmulMma90 {
            /// Hopper float64 `mma.sync` products, as `for_each_mma90_kernel!` lists them.
            Tiles = crate::for_each_mma90_kernel!(mma_names),
        }
    }
}

/// The sm_90a warpgroup module's parts.
pub mod wgmma {
    crate::module_parts! {
        /// The parts of the sm_90a module.
        Part in MatmulWgmma {
            /// 128x256 warpgroup products with k-major operands, by kind.
            Tiles = crate::for_each_wgmma_kernel!(wgmma_names),
        }
    }
}

const SPLITK_SLOTS: [u16; crate::dtype::NDTYPES] =
    crate::registry::by_key(crate::for_each_splitk_type!(type_keys));
const GEMV_SLOTS: [u16; crate::dtype::NDTYPES] =
    crate::registry::by_key(crate::for_each_gemv_type!(type_keys));
const MMA_KEYS: &[(MmaKind, usize, bool, bool)] = crate::for_each_mma_kernel!(mma_keys);
const MMA90_KEYS: &[(MmaKind, usize, bool, bool)] = crate::for_each_mma90_kernel!(mma_keys);
const WGMMA_KEYS: &[MmaKind] = crate::for_each_wgmma_kernel!(wgmma_keys);

fn slot(slots: &[u16], dtype: usize) -> Option<usize> {
    slots
        .get(dtype)
        .filter(|&&s| s != u16::MAX)
        .map(|&s| s as usize)
}

/// The SIMT kernel of family `kind` (an index into `tiles::SIMT_KINDS`) for its tile
/// `tile` (an index into that family's table).
pub fn simt_tile(kind: usize, tile: usize) -> Option<Kernel> {
    let kinds = tiles::SIMT_KINDS;
    if kind >= kinds.len() || tile >= kinds[kind].1.len() {
        return None;
    }
    let before: usize = kinds[..kind].iter().map(|k| k.1.len()).sum();
    Some(simt::Part::Tiles.at(before + tile))
}

/// The split-K sum for elements of dtype `dtype`.
pub fn splitk_sum(dtype: usize) -> Option<Kernel> {
    slot(&SPLITK_SLOTS, dtype).map(|s| simt::Part::SplitkSum.at(s))
}

/// The matrix-vector kernel for dtype `dtype`, a warp a row (`rows`) or a lane a row.
pub fn gemv(dtype: usize, rows: bool) -> Option<Kernel> {
    let part = if rows {
        simt::Part::GemvRows
    } else {
        simt::Part::GemvCols
    };
    slot(&GEMV_SLOTS, dtype).map(|s| part.at(s))
}

/// The `mma.sync` kernel of `kind` for tile `tile` (an index into
/// `mma_layout::TC_TILES`) with operands k-major or not: in the sm_90 module for
/// Hopper's float64 shape, else in the sm_80 one.
pub fn mma_tile(kind: MmaKind, tile: usize, a_km: bool, b_km: bool) -> Option<Kernel> {
    let (keys, module) = if kind == MmaKind::F64K8 {
        (MMA90_KEYS, Module::MatmulMma90)
    } else {
        (MMA_KEYS, Module::MatmulMma)
    };
    let i = keys.iter().position(|&k| k == (kind, tile, a_km, b_km))?;
    Some(Kernel::new(module, i))
}

/// The `wgmma` kernel of `kind`.
pub fn wgmma_tile(kind: MmaKind) -> Option<Kernel> {
    WGMMA_KEYS
        .iter()
        .position(|&k| k == kind)
        .map(|i| wgmma::Part::Tiles.at(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_name_their_kernels() {
        for (kind, (ty, tiles)) in tiles::SIMT_KINDS.iter().enumerate() {
            for (t, tile) in tiles.iter().enumerate() {
                let k = simt_tile(kind, t).unwrap();
                assert_eq!(
                    simt::KERNELS[k.index as usize],
                    format!("gpupy_matmul_{ty}_{}", tile.name)
                );
            }
        }
        let f64i = <f64 as DTypeIndex>::INDEX;
        assert_eq!(
            simt::KERNELS[splitk_sum(f64i).unwrap().index as usize],
            "gpupy_matmul_f64_splitk_sum"
        );
        assert_eq!(
            simt::KERNELS[gemv(f64i, false).unwrap().index as usize],
            "gpupy_gemv_f64_cols"
        );
        for (i, t) in mma_layout::TC_TILES.iter().enumerate() {
            for kind in [
                MmaKind::F16,
                MmaKind::Bf16,
                MmaKind::Tf32,
                MmaKind::F64,
                MmaKind::F64K8,
            ] {
                if t.kind != kind.family() || (kind == MmaKind::F64K8) != (i >= 5) {
                    continue;
                }
                for (a, b) in [(true, false), (false, true), (false, false)] {
                    let k = mma_tile(kind, i, a, b).unwrap();
                    let v = |km: bool| if km { 'k' } else { 'm' };
                    let names: &[&str] = if k.module == Module::MatmulMma90 {
                        &mma90::KERNELS
                    } else {
                        &mma::KERNELS
                    };
                    let want = format!(
                        "{}_{}_{}_{}{}",
                        kind.prefix(),
                        kind.word(),
                        t.name,
                        v(a),
                        v(b)
                    );
                    assert_eq!(names[k.index as usize], want);
                }
            }
        }
        assert_eq!(
            wgmma::KERNELS[wgmma_tile(MmaKind::Tf32).unwrap().index as usize],
            "gpupy_wgmma_tf32_128x256_kk"
        );
    }
}
