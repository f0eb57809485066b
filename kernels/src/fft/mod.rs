//! Fast Fourier transforms: mixed-radix Stockham passes in shared memory, with
//! Bluestein's chirp-z for lengths with a prime factor above 13, and the real
//! transforms through a half-length complex one.
//!
//! - `real`: the real transforms' twists around the half-length complex transform;
//! - `radix`: the small DFTs computed in registers (2, 4, 8, 16; 3, 9, 5, 7, 11, 13);
//! - `plan`: how a length splits into passes and each pass into stages, the index
//!   arithmetic both engines share, the block shapes, and a CPU engine that runs a
//!   plan exactly as the GPU does (tested against a direct DFT);
//! - `twiddle` (CPU only): twiddle factors and chirps to the last bit, by exact
//!   integer reduction to the first octant; the host builds its tables with it;
//! - `gpu`: the kernels, compiled for the GPU only;
//! - here: the launch structs and the module's kernel table.
//!
//! A transform of length `N` over a batch is one or more *passes*; pass `p` computes
//! DFTs of length `L_p` (the product of all `L_p` is `N`) over `N / L_p` *columns* per
//! batch item, each column one block-local Stockham FFT in shared memory. Between
//! passes the columns are multiplied by the four-step twiddles `W_(Ns L)^(jl e)` on
//! the way in, where `Ns` is the product of the earlier passes' lengths. See [`Pass`]
//! and [`plan::column`] for where a pass reads and writes.

pub mod plan;
pub mod radix;
pub mod real;
#[cfg(not(target_arch = "nvptx64"))]
pub mod twiddle;

#[cfg(all(target_arch = "nvptx64", feature = "fft"))]
mod gpu;

/// The most stages a block-local FFT has (16 radix-2 stages: a length of 65536).
pub const MAX_STAGES: usize = 16;

/// One pass over a batch of transforms: element `e` (`< len`) of column `j` (`< cols`)
/// of batch item `b = b1 * batch0 + b0` is read at `src + b1*src_b1 + b0*src_b0 +
/// j*src_j + e*src_e` and the column's DFT output `e` is written at `dst + b1*dst_b1 +
/// b0*dst_b0 + (j / ns)*dst_jh + (j % ns)*dst_jl + e*dst_e` (strides in elements).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Pass {
    pub src: u64,
    pub dst: u64,
    /// Columns per batch item, batch items, and the inner batch dimension's length.
    pub cols: u64,
    pub batch: u64,
    pub batch0: u64,
    pub src_b1: i64,
    pub src_b0: i64,
    pub src_j: i64,
    pub src_e: i64,
    pub dst_b1: i64,
    pub dst_b0: i64,
    pub dst_jh: i64,
    pub dst_jl: i64,
    pub dst_e: i64,
    /// Product of the earlier passes' lengths (1 for the first pass).
    pub ns: u32,
    /// The block-local DFT's length.
    pub len: u32,
    /// log2 of the columns a block takes.
    pub tile_log2: u32,
    /// Whether loads (stores) run along rows (`|src_e| == 1`) rather than across columns.
    pub load_rows: u32,
    pub store_rows: u32,
    /// Columns numbered batch item `b0` fastest (then `j`, then `b1`) rather than `j`
    /// fastest: for transforms along a strided axis whose `b0` items are adjacent in
    /// memory (the first axis of a 2-d array), so a block's columns are adjacent.
    pub batch_inner: u32,
    /// Conjugate on the way in (after `mul`) and on the way out (before `scale`).
    pub conj_in: u32,
    pub conj_out: u32,
    /// Every output is multiplied by this.
    pub scale: f64,
    /// The block stages' twiddles (`plan::block_table(len)`), in the working
    /// precision.
    pub twiddle: u64,
    /// The four-step twiddles `W_(ns len)^(jl e) = W_n^(jl e step)` of a transform
    /// of `n` points (`step = n / (ns len)`), each the float64 product of two entries
    /// of `plan::four_step_table(n)` (see `plan::four_step_entries`); unused by a
    /// first pass (`ns == 1`). A table of every `W_n^m` would be as large as the data.
    pub four_step: u64,
    pub step: u64,
    pub fine_log2: u32,
    /// The block-local stages' radices, in order.
    pub stages: u32,
    pub radices: [u8; MAX_STAGES],
    /// Optional (non-zero) per-element factors of the first pass: input element
    /// `n = j + e * cols` of every batch item is multiplied by `mul[n]`.
    pub mul: u64,
}

/// A strided batch of vectors: element `k` of item `b = b1 * batch0 + b0` at
/// `ptr + b1*b1_stride + b0*b0_stride + k*stride` (elements).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Strided {
    pub ptr: u64,
    pub b1: i64,
    pub b0: i64,
    pub e: i64,
}

/// An elementwise step around the transforms (chirps, the real transforms' twists):
/// `n` outputs per batch item.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Twist {
    pub src: Strided,
    pub dst: Strided,
    pub batch: u64,
    pub batch0: u64,
    /// Outputs per batch item, and the transform's length.
    pub n: u64,
    pub len: u64,
    /// The kernel's factor table (a chirp, or `W_len^k`), in the working precision.
    pub table: u64,
    pub scale: f64,
    pub conj: u32,
    pub _pad: u32,
}

/// Threads per block of the `Twist` kernels.
pub const TWIST_BLOCK: u32 = 256;

macro_rules! by_precision {
    ($name:literal) => {
        &[
            concat!("gpupy_fft_", $name, "_c64"),
            concat!("gpupy_fft_", $name, "_c128"),
        ]
    };
}

crate::module_parts! {
    /// The parts of the FFT module, each complex64 then complex128.
    Part in Fft {
        /// One pass of a transform ([`Pass`]).
        Pass = by_precision!("pass"),
        /// The same without four-step twiddles or `mul`, for a transform done in one
        /// pass (fewer registers).
        PassSingle = by_precision!("pass_single"),
        /// Bluestein's input: `dst[k] = k < len ? conj?(src[k]) * chirp[k] : 0`.
        ChirpIn = by_precision!("chirp_in"),
        /// Bluestein's output: `dst[k] = conj?(chirp[k] * src[k]) * scale`.
        ChirpOut = by_precision!("chirp_out"),
        /// A real transform's spectrum from the half-length complex transform.
        R2cPost = by_precision!("r2c_post"),
        /// The half-length complex input of an inverse real transform.
        C2rPre = by_precision!("c2r_pre"),
        /// The full spectrum of a real signal from its first half.
        Hermitian = by_precision!("hermitian"),
    }
}

impl Part {
    /// This part's kernel for complex128 (`double`) or complex64.
    pub const fn kernel(self, double: bool) -> crate::registry::Kernel {
        self.at(double as usize)
    }
}
