//! What the GPU test files share.

use gpupy_host::device;

/// The GPU, or `None` after printing why the test is skipped: the Rust harness has no
/// run-time skip, so a test without a GPU passes, unless `GPUPY_REQUIRE_GPU=1`, which
/// makes a machine without a usable GPU a failure.
pub fn gpu(test: &str) -> Option<&'static device::Device> {
    match device::current() {
        Ok(d) => Some(d),
        Err(e) => {
            if std::env::var("GPUPY_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("{test}: GPUPY_REQUIRE_GPU=1 but no usable CUDA GPU ({e})");
            }
            eprintln!("SKIPPED {test}: no usable CUDA GPU ({e})");
            None
        }
    }
}
