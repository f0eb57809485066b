//! Where a thread is: CUDA's `threadIdx`, `blockIdx`, `blockDim` and `gridDim`, and
//! grid-stride loops over `n` elements.
//!
//! Each value is one PTX special register (`%tid.x`, `%ctaid.x`, `%ntid.x`, `%nctaid.x`)
//! read through `core::arch::nvptx`; LLVM knows their ranges, and `thread_idx().x` costs
//! one register read (the unused components are dropped).

use core::arch::nvptx;

/// Three coordinates or extents, CUDA's `uint3`/`dim3`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

macro_rules! special_registers {
    ($($(#[$doc:meta])* $name:ident => $intrinsic:ident;)*) => { $(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> u32 {
            // SAFETY: reads a special register, defined in every kernel.
            unsafe { nvptx::$intrinsic() }
        }
    )* };
}

special_registers! {
    /// `threadIdx.x`
    thread_idx_x => _thread_idx_x;
    /// `threadIdx.y`
    thread_idx_y => _thread_idx_y;
    /// `threadIdx.z`
    thread_idx_z => _thread_idx_z;
    /// `blockIdx.x`
    block_idx_x => _block_idx_x;
    /// `blockIdx.y`
    block_idx_y => _block_idx_y;
    /// `blockIdx.z`
    block_idx_z => _block_idx_z;
    /// `blockDim.x`
    block_dim_x => _block_dim_x;
    /// `blockDim.y`
    block_dim_y => _block_dim_y;
    /// `blockDim.z`
    block_dim_z => _block_dim_z;
    /// `gridDim.x`
    grid_dim_x => _grid_dim_x;
    /// `gridDim.y`
    grid_dim_y => _grid_dim_y;
    /// `gridDim.z`
    grid_dim_z => _grid_dim_z;
}

/// `threadIdx`: this thread's coordinates in its block.
#[inline(always)]
pub fn thread_idx() -> Dim3 {
    Dim3 {
        x: thread_idx_x(),
        y: thread_idx_y(),
        z: thread_idx_z(),
    }
}

/// `blockIdx`: this block's coordinates in the grid.
#[inline(always)]
pub fn block_idx() -> Dim3 {
    Dim3 {
        x: block_idx_x(),
        y: block_idx_y(),
        z: block_idx_z(),
    }
}

/// `blockDim`: the block's extents (the launch's `block=`).
#[inline(always)]
pub fn block_dim() -> Dim3 {
    Dim3 {
        x: block_dim_x(),
        y: block_dim_y(),
        z: block_dim_z(),
    }
}

/// `gridDim`: the grid's extents in blocks (the launch's `grid=`).
#[inline(always)]
pub fn grid_dim() -> Dim3 {
    Dim3 {
        x: grid_dim_x(),
        y: grid_dim_y(),
        z: grid_dim_z(),
    }
}

/// `blockIdx.x * blockDim.x + threadIdx.x`, widened before the product so grids of more
/// than 2^32 threads index correctly.
#[inline(always)]
pub fn global_thread_idx() -> usize {
    block_idx_x() as usize * block_dim_x() as usize + thread_idx_x() as usize
}

/// `(first index, stride)` of a 1-D grid-stride loop: this thread's global index and
/// the number of threads in the grid (`gridDim.x * blockDim.x`).
#[inline(always)]
pub fn grid_stride() -> (usize, usize) {
    (
        global_thread_idx(),
        grid_dim_x() as usize * block_dim_x() as usize,
    )
}

/// The indices `i < n` this thread handles in a 1-D grid-stride loop:
/// `for i in grid_stride_range(n) { ... }` is CUDA's
/// `for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)`.
/// Any grid size covers all `n` elements.
#[inline(always)]
pub fn grid_stride_range(n: usize) -> GridStride {
    let (next, stride) = grid_stride();
    GridStride {
        next,
        end: n,
        stride,
    }
}

/// The iterator of [`grid_stride_range`]. A hand-written `next` rather than
/// `(start..n).step_by(stride)`: `step_by` checks the stride against zero (a panic path
/// the compiler cannot remove), and this loop is the hot loop of most kernels.
#[derive(Clone, Debug)]
pub struct GridStride {
    next: usize,
    end: usize,
    stride: usize,
}

impl Iterator for GridStride {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.next < self.end {
            let i = self.next;
            // Cannot overflow for any n below usize::MAX - 2^42 (the largest grid):
            // far beyond any array.
            self.next = i + self.stride;
            Some(i)
        } else {
            None
        }
    }
}
