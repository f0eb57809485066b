//! The linear-algebra family: today singular values by one-sided Jacobi.
//!
//! - `jacobi`: the pairing order, rotation angles and a CPU sweep (CPU-tested);
//! - `gpu`: the Jacobi kernel and its entry points, compiled for the GPU only;
//! - here: the module's kernel table and the handles the host launches by.

pub mod jacobi;

#[cfg(all(target_arch = "nvptx64", feature = "linalg"))]
mod gpu;

/// The element types with a Jacobi kernel: `(name, type)`. float32 and complex64 inputs
/// compute in these.
#[macro_export]
macro_rules! for_each_jacobi_type {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] ("float64", f64) ("complex128", c128) } };
}

macro_rules! jacobi_names {
    ([] $(($name:literal, $t:ty))*) => { &[$(concat!("gpupy_svd_jacobi_", $name)),*] };
}

crate::module_parts! {
    /// The parts of the linear-algebra module.
    Part in Linalg {
        /// One-sided Jacobi sweeps, float64 then complex128.
        Jacobi = crate::for_each_jacobi_type!(jacobi_names),
    }
}

/// The Jacobi kernel for complex (complex128) or real (float64) matrices.
pub fn jacobi(complex: bool) -> crate::registry::Kernel {
    Part::Jacobi.at(complex as usize)
}
