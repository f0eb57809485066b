//! The linear-algebra family.
//!
//! - `scalar`: the four element types of the factorizations;
//! - `team`: the threads that work on one matrix, as the algorithms see them;
//! - `dense`: LU, Cholesky, Householder QR, `Q`, the block reflector's `T`,
//!   triangular solves and (`dense::eig`) general eigenproblems, by one team
//!   (CPU-tested); `dense::args` their launch struct;
//! - `jacobi`: one-sided Jacobi (singular values, vectors, Hermitian eigenproblems):
//!   the pairing order, rotation angles and a CPU sweep (CPU-tested);
//! - `gpu`, `gpu_dense`, `gpu_trsm`, `gpu_lu_panel`, `gpu_qr_panel` (with `gpu_grid`, what
//!   the last two share), `gpu_qr_ut`: the kernels and their entry points, compiled for
//!   the GPU only;
//! - here: the module's kernel table and the handles the host launches by.

pub mod dense;
pub mod jacobi;
pub mod scalar;
pub mod team;

/// Stamps `gpupy_linalg_<op>_<dtype>` for each dense type (`for_each_dense_type!(
/// typed_entries, "op", Args)`): a kernel taking `Args` and calling the invoking
/// module's `run::<T>`, whose contract the host keeps.
#[cfg(all(target_arch = "nvptx64", feature = "linalg"))]
macro_rules! typed_entries {
    ([$op:literal $args:ident] $(($name:literal, $t:ty))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_linalg_", $op, "_", $name))]
            unsafe extern "ptx-kernel" fn k(p: $args) {
                // SAFETY: the host launches per `run`'s contract.
                unsafe { run::<$t>(p) }
            }
        };
    )* };
}

#[cfg(all(target_arch = "nvptx64", feature = "linalg"))]
mod gpu;
#[cfg(all(target_arch = "nvptx64", feature = "linalg"))]
mod gpu_dense;
#[cfg(all(target_arch = "nvptx64", feature = "linalg"))]
mod gpu_grid;
#[cfg(all(target_arch = "nvptx64", feature = "linalg"))]
mod gpu_lu_panel;
#[cfg(all(target_arch = "nvptx64", feature = "linalg"))]
mod gpu_qr_panel;
#[cfg(all(target_arch = "nvptx64", feature = "linalg"))]
mod gpu_qr_ut;
#[cfg(all(target_arch = "nvptx64", feature = "linalg"))]
mod gpu_trsm;

/// The element types with a Jacobi kernel: `(name, type)`. float32 and complex64 inputs
/// compute in these.
#[macro_export]
macro_rules! for_each_jacobi_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] ("float64", f64) ("complex128", c128) } };
}

/// The element types of the dense kernels: `(name, type)`, in [`Dtype`] order.
#[macro_export]
macro_rules! for_each_dense_type {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*] ("float32", f32) ("float64", f64) ("complex64", c64) ("complex128", c128) }
    };
}

macro_rules! jacobi_names {
    ([] $(($name:literal, $t:ty))*) => { &[$(concat!("gpupy_svd_jacobi_", $name)),*] };
}

macro_rules! dense_names {
    ([$op:literal] $(($name:literal, $t:ty))*) => {
        &[$(concat!("gpupy_linalg_", $op, "_", $name)),*]
    };
}

crate::module_parts! {
    /// The parts of the linear-algebra module.
    Part in Linalg {
        /// One-sided Jacobi sweeps, float64 then complex128.
        Jacobi = crate::for_each_jacobi_type!(jacobi_names),
        /// LU with partial pivoting, optionally solving (`dense::getrf`).
        Getrf = crate::for_each_dense_type!(dense_names, "getrf"),
        /// Triangular solves with optional row interchanges (`dense::trsm`).
        Trsm = crate::for_each_dense_type!(dense_names, "trsm"),
        /// Triangular solves of order at most 128 on many columns, a warp per four
        /// columns in registers (`gpu_trsm`; no pivots).
        TrsmWarp = crate::for_each_dense_type!(dense_names, "trsm_warp"),
        /// LU panels of large matrices over the whole GPU, a row per thread, one
        /// cooperative launch (`gpu_lu_panel`).
        LuPanel = crate::for_each_dense_type!(dense_names, "lu_panel"),
        /// Cholesky (`dense::potrf`).
        Potrf = crate::for_each_dense_type!(dense_names, "potrf"),
        /// Householder QR (`dense::geqrf`).
        Geqrf = crate::for_each_dense_type!(dense_names, "geqrf"),
        /// QR panels of large matrices over the whole GPU, a row per thread, one
        /// cooperative launch (`gpu_qr_panel`).
        QrPanel = crate::for_each_dense_type!(dense_names, "qr_panel"),
        /// A QR panel's block reflector in the UT form: the explicit `V` and `M`
        /// (`gpu_qr_ut`).
        QrUt = crate::for_each_dense_type!(dense_names, "qr_ut"),
        /// `Q` from the reflectors (`dense::orgqr`).
        Orgqr = crate::for_each_dense_type!(dense_names, "orgqr"),
        /// General eigenproblems (`dense::eig`), complex64 then complex128.
        Geev = &["gpupy_linalg_geev_complex64", "gpupy_linalg_geev_complex128"],
    }
}

/// The element types of the dense kernels, in their tables' order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    Float32,
    Float64,
    Complex64,
    Complex128,
}

impl Part {
    /// This part's kernel for `dtype` (dense parts only).
    pub const fn dense(self, dtype: Dtype) -> crate::registry::Kernel {
        self.at(dtype as usize)
    }
}

/// The Jacobi kernel for complex (complex128) or real (float64) matrices.
pub fn jacobi(complex: bool) -> crate::registry::Kernel {
    Part::Jacobi.at(complex as usize)
}
