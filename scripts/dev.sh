#!/usr/bin/env bash
# One entry point for a fresh machine: sets up the toolchain and a virtualenv, builds
# gpupy, then runs the tests or the benchmark.
#
#   bash scripts/dev.sh test    # kernels + ptxas check, cargo test, pytest
#   bash scripts/dev.sh bench   # the benchmark against NumPy (and CuPy if installed)
#
# Needs: Linux x86-64, rustup, Python 3.9+ (with venv). The NVIDIA driver is needed to
# run on a GPU; without one, GPU tests are skipped with the reason shown.
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-test}"

# The pinned nightly and its components come from rust-toolchain.toml.
if ! command -v rustup >/dev/null; then
    echo "rustup is required: https://rustup.rs" >&2
    exit 1
fi
rustup toolchain install >/dev/null 2>&1 || rustup toolchain install
rustup show active-toolchain

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
# shellcheck disable=SC1091
source .venv/bin/activate
python -m pip install -q --upgrade pip
# nvidia-cuda-nvcc-cu12 provides ptxas and libdevice for the kernel build (no GPU needed).
# ml_dtypes: bfloat16 (test_bfloat16.py is skipped without it); pytest-xdist: pytest -n;
# scipy: the distribution tests of gpupy.random compare with scipy.stats; dask[array] and
# distributed: gpupy's optional Dask support (test_dask.py is skipped without them).
python -m pip install -q maturin numpy scipy pytest hypothesis ml_dtypes pytest-xdist nvidia-cuda-nvcc-cu12 \
    "dask[array]" distributed

# Build the wheel (this runs host/build.rs: kernels -> PTX -> ptxas check -> cubins).
rm -rf target/wheels
(cd py && maturin build --release -q)
python -m pip install -q --force-reinstall --no-deps target/wheels/gpupy-*.whl

case "$what" in
test)
    # --nocapture shows why GPU tests were skipped on machines without one.
    cargo test --release -q --workspace -- --nocapture
    (cd kernels && cargo test --release -q)
    # No use cycles among the Rust modules; the Python package imports its modules at
    # the top and in no cycle.
    python scripts/check_rust_modules.py
    python scripts/check_imports.py
    # Run pytest from outside the source tree so it imports the installed wheel. The
    # header prints the session seed (replay with --gpupy-seed N); GPUPY_REQUIRE_GPU=1
    # makes a machine without a usable GPU an error instead of a run of skips.
    python -m pytest tests -q -rs
    ;;
bench)
    python benchmarks/bench.py
    ;;
*)
    echo "usage: scripts/dev.sh test|bench" >&2
    exit 2
    ;;
esac
