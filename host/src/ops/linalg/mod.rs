//! The linear-algebra family on the host: the dense factorizations and solves
//! (`dense`: one kernel, a block or a team per matrix; `grid`: the panel kernels spread
//! over the whole GPU and the UT-factor kernel, whose blocks meet through global
//! memory) and one-sided Jacobi (`svd`: singular values and vectors, Hermitian
//! eigenproblems). The kernels are `gpupy_kernels::linalg`'s; the blocked algorithms
//! for large matrices are composed in `py/python/gpupy/linalg/_decomp.py`.

pub mod dense;
pub mod grid;
pub mod svd;
