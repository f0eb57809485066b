#!/usr/bin/env bash
# Compiles this crate to PTX (saxpy.ptx, for sm_70: the driver compiles it for any GPU
# from Volta on when gpupy.RawModule loads it). The recipe is gpupy's own (host/build.rs,
# and gpupy/_userkernel/_rustc.py for RawModule(code=..., language='rust')):
#   1. cargo rustc --release --target nvptx64-nvidia-cuda -Zbuild-std=core
#        -- --emit=llvm-bc      one fat-LTO'd LLVM module of the crate and gpupy_device
#   2. llvm-link with CUDA's libdevice.10.bc (the math functions), only what is used
#   3. opt -O3, then llc -mcpu=sm_70 -> PTX
#
# Needs: rustup with the nightly in rust-toolchain.toml and its rust-src and llvm-tools
# components (`rustup toolchain install nightly-2026-05-19 --component rust-src
# --component llvm-tools`), and libdevice: $GPUPY_CUDA_NVCC (a folder with
# nvvm/libdevice/libdevice.10.bc, e.g. a CUDA toolkit), else the nvidia-cuda-nvcc-cu12
# wheel of $PYTHON (default python3), else /usr/local/cuda.
#
# Environment: ARCH (default sm_70), OUT (default saxpy.ptx). When ptxas is found beside
# libdevice, the PTX is also assembled for sm_90 and ptxas's report (registers, spills,
# stack) printed.
set -euo pipefail
cd "$(dirname "$0")"

TOOLCHAIN=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
ARCH=${ARCH:-sm_70}
OUT=${OUT:-saxpy.ptx}

if [ -n "${GPUPY_CUDA_NVCC:-}" ]; then
    CUDA=$GPUPY_CUDA_NVCC
elif CUDA=$("${PYTHON:-python3}" -c 'import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])' 2>/dev/null); then
    :
else
    CUDA=/usr/local/cuda
fi
LIBDEVICE=$CUDA/nvvm/libdevice/libdevice.10.bc
if [ ! -f "$LIBDEVICE" ]; then
    echo "libdevice not found at $LIBDEVICE: pip install nvidia-cuda-nvcc-cu12, or set GPUPY_CUDA_NVCC" >&2
    exit 1
fi

SYSROOT=$(rustc "+$TOOLCHAIN" --print sysroot)
HOST=$(rustc "+$TOOLCHAIN" -vV | sed -n 's/^host: //p')
LLVM=$SYSROOT/lib/rustlib/$HOST/bin
if [ ! -x "$LLVM/llvm-link" ]; then
    echo "llvm-tools missing: rustup component add llvm-tools --toolchain $TOOLCHAIN" >&2
    exit 1
fi

# An outer cargo's settings (when run from a build script or a cargo alias) would pick
# another rustc, flags or target dir.
unset RUSTC RUSTC_WRAPPER RUSTC_WORKSPACE_WRAPPER RUSTFLAGS CARGO_ENCODED_RUSTFLAGS \
    CARGO_TARGET_DIR CARGO_BUILD_TARGET RUSTUP_TOOLCHAIN

# immediate-abort (for core too): every panic becomes `trap`, so no panic machinery is
# left unresolved in the PTX.
mkdir -p target
RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Ctarget-cpu=$ARCH" \
    cargo "+$TOOLCHAIN" rustc --release --target nvptx64-nvidia-cuda -Zbuild-std=core \
    -- --emit=llvm-bc="$PWD/target/kernels.bc"

"$LLVM/llvm-link" target/kernels.bc "$LIBDEVICE" --only-needed -o target/linked.bc
"$LLVM/opt" -O3 target/linked.bc -o target/opt.bc
# PTX ISA 7.0 at least (LLVM writes 6.0 for sm_70); newer targets keep LLVM's own.
NUM=${ARCH#sm_}
NUM=${NUM%%[af]}
ISA=()
if [ "$NUM" -lt 80 ]; then ISA=(-mattr=+ptx70); fi
"$LLVM/llc" -O3 "-mcpu=$ARCH" "${ISA[@]}" target/opt.bc -o "$OUT"
echo "wrote $OUT: $(grep -c '^\.visible \.entry' "$OUT") kernels ($(sed -n 's/^\.visible \.entry \([A-Za-z0-9_]*\).*/\1/p' "$OUT" | tr '\n' ' '))"

if [ -x "$CUDA/bin/ptxas" ]; then
    "$CUDA/bin/ptxas" -arch=sm_90 -v "$OUT" -o target/check.cubin
fi
