//! Every module, in [`Module`] order: the one list `host/build.rs` builds, checks and
//! embeds, and the host loads from.

use crate::registry::{Arch, Module, ModuleSpec};
use crate::{
    elementwise, fft, filters, histogram, iir, index, interpolate, linalg, matmul, measure, random,
    reduce, scan, sort, sparse,
};

pub const MODULES: [ModuleSpec; crate::registry::MODULE_COUNT] = [
    spec(
        Module::Elementwise,
        "elementwise",
        Arch::Sm70,
        false,
        &elementwise::KERNELS,
    ),
    spec(
        Module::Reduce,
        "reduce",
        Arch::Sm70,
        false,
        &reduce::KERNELS,
    ),
    spec(Module::Scan, "scan", Arch::Sm70, false, &scan::KERNELS),
    spec(Module::Sort, "sort", Arch::Sm70, false, &sort::KERNELS),
    spec(Module::Index, "index", Arch::Sm70, false, &index::KERNELS),
    spec(
        Module::Histogram,
        "histogram",
        Arch::Sm70,
        false,
        &histogram::KERNELS,
    ),
    spec(
        Module::Matmul,
        "matmul",
        Arch::Sm70,
        false,
        &matmul::simt::KERNELS,
    ),
    // The tensor-core tiles stage up to ~200 KiB of operands in shared memory.
    spec(
        Module::MatmulMma,
        "matmul-mma",
        Arch::Sm80,
        true,
        &matmul::mma::KERNELS,
    ),
    spec(
        Module::MatmulMma90,
        "matmul-mma90",
        Arch::Sm90,
        true,
        &matmul::mma90::KERNELS,
    ),
    spec(
        Module::MatmulWgmma,
        "matmul-wgmma",
        Arch::Sm90a,
        true,
        &matmul::wgmma::KERNELS,
    ),
    spec(
        Module::Linalg,
        "linalg",
        Arch::Sm70,
        // Small matrices are staged whole in shared memory (up to ~200 KiB).
        true,
        &linalg::KERNELS,
    ),
    spec(
        Module::Random,
        "random",
        Arch::Sm70,
        false,
        &random::KERNELS,
    ),
    // A one-pass transform of 8192 complex64 points keeps ~66 KiB in shared memory.
    spec(Module::Fft, "fft", Arch::Sm70, true, &fft::KERNELS),
    spec(
        Module::Filters,
        "filters",
        Arch::Sm70,
        false,
        &filters::KERNELS,
    ),
    spec(
        Module::Measure,
        "measure",
        Arch::Sm70,
        false,
        &measure::KERNELS,
    ),
    // The n-d sampling kernel keeps each thread's window in shared memory, at most
    // 48 KiB a block.
    spec(
        Module::Interpolate,
        "interpolate",
        Arch::Sm70,
        false,
        &interpolate::KERNELS,
    ),
    // The staging tiles take at most 34 KiB of shared memory.
    spec(Module::Iir, "iir", Arch::Sm70, false, &iir::KERNELS),
    spec(
        Module::Sparse,
        "sparse",
        Arch::Sm70,
        false,
        &sparse::KERNELS,
    ),
];

const fn spec(
    module: Module,
    name: &'static str,
    arch: Arch,
    large_shared: bool,
    kernels: &'static [&'static str],
) -> ModuleSpec {
    ModuleSpec {
        module,
        name,
        arch,
        large_shared,
        kernels,
    }
}

// Each module sits at its own index.
const _: () = {
    let mut i = 0;
    while i < MODULES.len() {
        assert!(MODULES[i].module as usize == i);
        i += 1;
    }
};

/// The spec of `module`.
pub const fn spec_of(module: Module) -> &'static ModuleSpec {
    &MODULES[module as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_name_is_unique_and_well_formed() {
        let mut all = std::collections::HashSet::new();
        for m in MODULES.iter() {
            assert!(!m.kernels.is_empty(), "{}", m.name);
            for k in m.kernels {
                assert!(k.starts_with("gpupy_") && !k.contains(' '), "{k}");
                assert!(all.insert(*k), "{k} is declared twice");
            }
        }
    }
}
