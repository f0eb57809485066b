//! How a recursive filter's work is described to its engines: the input as lines, and
//! the launches of the register engines.

use gpupy_kernels::dtype::c128;
use gpupy_kernels::iir::{ChunkPlan, Coefs, Shape};

/// A filter's input seen as `outer * inner` lines of `len` samples, `inner` apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub outer: usize,
    pub len: usize,
    pub inner: usize,
}

impl Geometry {
    pub fn of(shape: &[usize], axis: usize) -> Geometry {
        Geometry {
            outer: shape[..axis].iter().product(),
            len: shape[axis],
            inner: shape[axis + 1..].iter().product(),
        }
    }
    pub fn lines(&self) -> usize {
        self.outer * self.inner
    }
}

/// One launch of the register engines: up to the shape's `S` sections (`nsec` of them),
/// the states `zfirst..zfirst + zcount` of the (outer, zdim, inner) state arrays.
#[derive(Clone, Copy, Debug)]
pub struct Group {
    pub shape: Shape,
    pub coef: Coefs<c128>,
    pub nsec: usize,
    pub zfirst: usize,
    pub zcount: usize,
}

/// A group's chunk scan: its plan and its one-step zero-input matrix (complex128, for
/// the launch's table of powers).
pub struct Chunked {
    pub plan: ChunkPlan,
    pub one_step: Vec<c128>,
}
