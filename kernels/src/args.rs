//! Launch structs shared by the host and the kernels. They are `#[repr(C)]` and passed by
//! value as kernel parameters (as CuPy passes its CArray), so a strided launch needs no
//! allocation or host-to-device copy.

/// Most dimensions a strided kernel takes. The host merges axes that are contiguous for
/// every operand first, so real launches rarely use more than three.
pub const MAX_DIMS: usize = 16;

/// Shape and per-operand strides of an N-d iteration, in elements.
///
/// Dimensions are stored innermost first (`shape[0]` is the last axis), so the index
/// decomposition walks the arrays from index 0 with constant indices after unrolling;
/// entries at `ndim..` are ignored.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strided<const NARGS: usize> {
    /// Number of elements (the product of `shape[..ndim]`).
    pub len: u64,
    pub ndim: u32,
    pub _pad: u32,
    pub shape: [u64; MAX_DIMS],
    pub strides: [[i64; MAX_DIMS]; NARGS],
}

impl<const NARGS: usize> Strided<NARGS> {
    /// Element offsets of linear index `i` for every operand. 32-bit division when the
    /// whole iteration fits, since 64-bit division costs several times more on the GPU.
    #[inline(always)]
    pub fn offsets(&self, i: u64) -> [i64; NARGS] {
        if self.len <= u32::MAX as u64 {
            self.offsets_in::<u32>(i as u32)
        } else {
            self.offsets_in::<u64>(i)
        }
    }

    /// The decomposition is unrolled by hand with constant dimension indices: a loop
    /// LLVM leaves rolled indexes the by-value parameter at run time, which copies the
    /// whole struct to local memory (seen as a 528-byte stack frame in `ptxas -v`).
    #[inline(always)]
    #[allow(unused_assignments)] // the last dimension's quotient is unused
    fn offsets_in<U: Index>(&self, i: U) -> [i64; NARGS] {
        let mut off = [0i64; NARGS];
        let mut rem = i;
        macro_rules! dim {
            ($($d:literal)*) => { $(
                if $d >= self.ndim as usize {
                    return off;
                }
                let extent = U::from_u64(self.shape[$d]);
                let c = rem.rem(extent);
                rem = rem.div(extent);
                for (k, o) in off.iter_mut().enumerate() {
                    *o += c * self.strides[k][$d];
                }
            )* };
        }
        dim!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        off
    }
}

/// Unsigned index arithmetic at 32 or 64 bits. Division is unchecked against zero: an
/// index below `len` only exists when every extent is at least 1.
pub trait Index: Copy {
    fn from_u64(v: u64) -> Self;
    fn rem(self, d: Self) -> i64;
    fn div(self, d: Self) -> Self;
}

macro_rules! index_impl {
    ($($t:ty),*) => { $(
        impl Index for $t {
            #[inline(always)]
            fn from_u64(v: u64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn rem(self, d: Self) -> i64 {
                // SAFETY: d >= 1, see the trait's comment.
                (self % unsafe { core::num::NonZero::new_unchecked(d) }) as i64
            }
            #[inline(always)]
            fn div(self, d: Self) -> Self {
                // SAFETY: as above.
                self / unsafe { core::num::NonZero::new_unchecked(d) }
            }
        }
    )* };
}
index_impl!(u32, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_walk_a_transposed_view() {
        // A 3x4 C-contiguous array read as its 4x3 transpose: shape (4, 3), strides (1, 4).
        let mut s = Strided::<1> {
            len: 12,
            ndim: 2,
            _pad: 0,
            shape: [0; MAX_DIMS],
            strides: [[0; MAX_DIMS]],
        };
        s.shape[0] = 3; // innermost first
        s.shape[1] = 4;
        s.strides[0][0] = 4;
        s.strides[0][1] = 1;
        let got: Vec<i64> = (0..12).map(|i| s.offsets(i)[0]).collect();
        let want: Vec<i64> = (0..4).flat_map(|r| (0..3).map(move |c| r + 4 * c)).collect();
        assert_eq!(got, want);
    }
}
