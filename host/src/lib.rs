//! gpupy's host library: everything between a Python call and a kernel launch.
//!
//! - `device`: the driver (loaded at run time), devices and their contexts;
//! - `pool`: the caching device-memory pool's bookkeeping, one per device; `buffer`:
//!   blocks from it (allocated from the driver on a miss), returned on drop; `pinned`:
//!   page-locked host memory and its pool;
//! - `module`: the embedded kernel modules, each loaded on first use, functions looked
//!   up once; `launch`: the one launch builder; `table`: the op tables as host enums;
//! - `dtype`, `layout`: dtypes, shapes, strides, broadcasting and views (pure Rust);
//! - `array`: the N-d strided array over a shared device buffer; `interop`: arrays over
//!   other libraries' memory (`__cuda_array_interface__`, DLPack);
//! - `ops`: one function per operation, each choosing and launching kernels;
//! - `transfer`: host <-> device copies (pinned staging, several threads at once);
//! - `stream`: streams and each thread's current stream, which every launch, copy and
//!   allocation uses; `event`: CUDA events for timing and synchronization.
//!
//! Every fallible call returns `Result<_, Error>`; nothing here panics on bad input.

pub mod array;
pub mod buffer;
pub mod device;
pub mod dtype;
pub mod error;
pub mod event;
pub mod interop;
pub mod launch;
pub mod layout;
pub mod module;
pub mod nvrtc;
pub mod ops;
pub mod pinned;
pub mod pool;
pub mod stream;
pub mod table;
pub mod transfer;
pub mod user_module;

pub use array::Array;
pub use dtype::DType;
pub use error::{Error, Result};
