#!/usr/bin/env bash
# One kernel module to PTX and ptxas's report (registers, spills, stack), the way
# host/build.rs builds it, without building the host crate or any other module: a quick
# check while writing a family's kernels. The wheel build remains the real check (it
# also fails on a module whose PTX and kernel table differ).
#
#   bash scripts/check_module_ptx.sh MODULE [ARCH]     # e.g. filters sm_90
#
# Needs the pinned nightly (rust-src, llvm-tools) and nvidia-cuda-nvcc-cu12 installed in
# the active Python (ptxas and libdevice). Output under target/check-ptx/MODULE/.
set -euo pipefail
cd "$(dirname "$0")/.."
module="${1:?usage: check_module_ptx.sh MODULE [ARCH]}"
arch="${2:-sm_90}"
out="$PWD/target/check-ptx/$module"
mkdir -p "$out"
bin="$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin"
nvcc="${GPUPY_CUDA_NVCC:-$(python -c 'import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])')}"
# cargo's warnings (code unused by this module's feature) go to a log, shown on failure.
(cd kernels && env -u RUSTUP_TOOLCHAIN \
    RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Ctarget-cpu=sm_70" \
    cargo rustc --release --target nvptx64-nvidia-cuda -Zbuild-std=core --features "$module" \
    --target-dir "${CARGO_TARGET_DIR:-$PWD/../target}/check-ptx" -- "--emit=llvm-bc=$out/$module.bc") \
    >"$out/cargo.log" 2>&1 || { cat "$out/cargo.log" >&2; exit 1; }
"$bin/llvm-link" "$out/$module.bc" "$nvcc/nvvm/libdevice/libdevice.10.bc" --only-needed -o "$out/linked.bc"
"$bin/opt" '-passes=nvvm-reflect,default<O3>' --nvvm-reflect-add=__CUDA_PREC_SQRT=1 "$out/linked.bc" -o "$out/opt.bc"
"$bin/llc" -O3 -mcpu=sm_70 "$out/opt.bc" -o "$out/$module.ptx"
# ptxas compiles the sm_70 PTX for a newer arch directly (the build retargets the text
# first; the code is the same).
"$nvcc/bin/ptxas" -v -O3 "-arch=$arch" "$out/$module.ptx" -o "$out/$module.cubin" 2>&1 |
    tee "$out/ptxas.txt" | grep -E "Compiling entry|registers|spill|stack frame" | paste - - - |
    sed -E 's/ptxas info *: //g; s/Compiling entry function //' | tr -s ' \t' ' '
if grep -E "bytes stack frame|bytes spill" "$out/ptxas.txt" | grep -vq "^.*0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"; then
    echo "check_module_ptx: a kernel of $module uses local memory (spills or a stack frame): see $out/ptxas.txt" >&2
    exit 1
fi
echo "check_module_ptx: $module ok ($(grep -c '.entry ' "$out/$module.ptx") entry points)"
