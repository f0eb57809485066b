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
    /// Per dimension, `magic` and `shift` such that `n / shape[d]` is
    /// `umulhi(n, magic) >> shift` for every `n < 2^31` (`magic == 0`: divide by 1). A
    /// division by a run-time value costs about twenty instructions on the GPU; this, two.
    pub magic: [u32; MAX_DIMS],
    pub shift: [u32; MAX_DIMS],
}

/// The fast division of `Strided::magic`: (magic, shift) for divisor `d` (CUTLASS's
/// FastDivmod: exact for dividends and divisors below 2^31).
pub const fn fast_divisor(d: u64) -> (u32, u32) {
    if d <= 1 || d >= 1 << 31 {
        return (0, 0);
    }
    let log2 = 64 - (d - 1).leading_zeros(); // ceil(log2 d)
    let p = 31 + log2;
    let magic = (1u64 << p).div_ceil(d) as u32;
    (magic, p - 32)
}

/// A 2-D iteration whose rows are contiguous (or one repeated value) in every operand:
/// `out[r, c] = f(a[r, c], b[r, c])` with `c` stepping by 1 (or 0, broadcast) in the
/// inputs and by 1 in the output. Rows are walked in packs of 16 bytes, which strided
/// kernels cannot do: a row-broadcast add runs like a contiguous one.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rows {
    pub rows: u64,
    /// Packs per row (the row length over the pack size; the host only launches rows
    /// that hold whole, aligned packs).
    pub packs: u64,
    /// `fast_divisor(packs)`, used when `rows * packs < 2^31`.
    pub magic: u32,
    pub shift: u32,
    /// Row strides in elements: (out, a, b).
    pub row_stride: [i64; 3],
    /// Column steps of (a, b): 1, or 0 for a value repeated along the row.
    pub col_step: [u32; 2],
}

/// One reduction launch (see `reduce.rs`): `outputs` slices of `n` elements each; output
/// `o`'s slice starts at element `kept.offsets(o)[0]` and steps by `step`. Each slice is
/// cut into `splits` chunks of `chunk` elements; with more than one split, every chunk
/// leaves an accumulator in `partial[o * splits + s]` for the merge launch.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reduce {
    pub n: u64,
    pub outputs: u64,
    pub step: i64,
    pub chunk: u64,
    pub splits: u32,
    /// 1: `step` is 1 and every slice and chunk starts 16-byte aligned, so the block
    /// kernel reads 16-byte packs.
    pub packed: u32,
    /// 1: one warp per output (short slices), else one block per (output, split).
    pub warp_per_output: u32,
    pub _pad: u32,
    pub finish: crate::reduce::reduction::Finish,
    pub kept: Strided<1>,
}

/// Threads per reduction block, and the shared memory each block is given: one
/// accumulator (at most 64 bytes) per warp.
pub const REDUCE_BLOCK: u32 = 256;
pub const REDUCE_SMEM: u32 = REDUCE_BLOCK / 32 * 64;

impl Rows {
    /// (row, first pack of the row) of pack index `j`.
    #[inline(always)]
    pub fn split(&self, j: u64) -> (u64, u64) {
        let total = self.rows * self.packs;
        let row = if total < 1 << 31 {
            if self.magic == 0 {
                j
            } else {
                ((j * self.magic as u64) >> 32) >> self.shift
            }
        } else {
            j / self.packs.max(1)
        };
        (row, j - row * self.packs)
    }
}

impl<const NARGS: usize> Strided<NARGS> {
    /// Element offsets of linear index `i` for every operand. 32-bit division when the
    /// whole iteration fits, since 64-bit division costs several times more on the GPU.
    #[inline(always)]
    pub fn offsets(&self, i: u64) -> [i64; NARGS] {
        if self.len < 1 << 31 {
            self.offsets_in::<u32>(i as u32)
        } else {
            self.offsets_in::<u64>(i)
        }
    }

    /// Launch arguments for `shape` (innermost first) and each operand's strides.
    pub fn new(shape: &[u64], strides: [&[i64]; NARGS]) -> Option<Self> {
        if shape.len() > MAX_DIMS {
            return None;
        }
        let mut s = Strided {
            len: 1,
            ndim: shape.len() as u32,
            _pad: 0,
            shape: [1; MAX_DIMS],
            strides: [[0; MAX_DIMS]; NARGS],
            magic: [0; MAX_DIMS],
            shift: [0; MAX_DIMS],
        };
        for (d, &n) in shape.iter().enumerate() {
            s.shape[d] = n;
            s.len *= n;
            (s.magic[d], s.shift[d]) = fast_divisor(n);
        }
        for (k, st) in strides.iter().enumerate() {
            s.strides[k][..st.len()].copy_from_slice(st);
        }
        Some(s)
    }

    /// The decomposition is unrolled by hand with constant dimension indices: a loop
    /// LLVM leaves rolled indexes the by-value parameter at run time, which copies the
    /// whole struct to local memory (seen as a 528-byte stack frame in `ptxas -v`).
    #[inline(always)]
    #[allow(unused_assignments)] // the last dimension's quotient is unused
    fn offsets_in<U: IndexWidth>(&self, i: U) -> [i64; NARGS] {
        let mut off = [0i64; NARGS];
        let mut rem = i;
        macro_rules! dim {
            ($($d:literal)*) => { $(
                if $d >= self.ndim as usize {
                    return off;
                }
                let (q, c) = rem.divmod(self.shape[$d], self.magic[$d], self.shift[$d]);
                rem = q;
                for (k, o) in off.iter_mut().enumerate() {
                    *o += c * self.strides[k][$d];
                }
            )* };
        }
        dim!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        off
    }
}

/// How an index is split by one dimension's extent: 32-bit indices (iterations below
/// 2^31 elements) divide by multiplication with the dimension's magic number, 64-bit
/// ones divide for real. Division is unchecked against zero: an index below `len` only
/// exists when every extent is at least 1.
pub trait IndexWidth: Copy {
    /// (quotient, remainder) of `self / extent`.
    fn divmod(self, extent: u64, magic: u32, shift: u32) -> (Self, i64);
}

impl IndexWidth for u32 {
    #[inline(always)]
    fn divmod(self, extent: u64, magic: u32, shift: u32) -> (u32, i64) {
        let q = if magic == 0 {
            self
        } else {
            (((self as u64) * (magic as u64)) >> 32) as u32 >> shift
        };
        (q, (self - q * extent as u32) as i64)
    }
}

impl IndexWidth for u64 {
    #[inline(always)]
    fn divmod(self, extent: u64, _magic: u32, _shift: u32) -> (u64, i64) {
        // SAFETY: extent >= 1, see the trait's comment.
        let d = unsafe { core::num::NonZero::new_unchecked(extent) };
        (self / d, (self % d) as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_walk_a_transposed_view() {
        // A 3x4 C-contiguous array read as its 4x3 transpose: shape (4, 3), strides (1, 4).
        let s = Strided::<1>::new(&[3, 4], [&[4, 1]]).unwrap(); // innermost first
        let got: Vec<i64> = (0..12).map(|i| s.offsets(i)[0]).collect();
        let want: Vec<i64> = (0..4)
            .flat_map(|r| (0..3).map(move |c| r + 4 * c))
            .collect();
        assert_eq!(got, want);
        let slow: Vec<i64> = (0..12).map(|i| s.offsets_in::<u64>(i)[0]).collect();
        assert_eq!(slow, want);
    }

    #[test]
    fn rows_split_pack_indices() {
        for packs in [1u64, 3, 2048, 1000] {
            let (magic, shift) = fast_divisor(packs);
            let r = Rows {
                rows: 7,
                packs,
                magic,
                shift,
                row_stride: [0; 3],
                col_step: [1, 0],
            };
            for j in 0..7 * packs {
                assert_eq!(r.split(j), (j / packs, j % packs));
            }
        }
    }

    #[test]
    fn fast_division_is_exact() {
        for d in [
            1u64,
            2,
            3,
            5,
            7,
            8,
            31,
            641,
            8192,
            65535,
            1_000_003,
            (1 << 31) - 1,
        ] {
            let (m, sh) = fast_divisor(d);
            for n in [0u32, 1, 2, 6, 1000, 65536, 1 << 30, (1 << 31) - 1, 12345678] {
                let q = if m == 0 {
                    n
                } else {
                    ((n as u64 * m as u64) >> 32) as u32 >> sh
                };
                assert_eq!(q as u64, n as u64 / d, "{n} / {d}");
            }
        }
    }
}
