//! Advanced indexing: integer-array gathers and scatters, the select behind `where`, and
//! the stream compaction behind `nonzero` and boolean masks.
//!
//! The host reduces every integer or boolean array index to one int64 array `off` of
//! element offsets, shaped like the broadcast index arrays:
//! - `gpupy_index_offsets_<int>` adds `index * stride` for one index array (any integer
//!   dtype, broadcast by strides), resolving negative indices and recording the first
//!   out-of-range position in `err` (an atomic minimum), which the host reads back and
//!   turns into NumPy's IndexError before anything is gathered or scattered;
//! - `gpupy_gather_<bytes>` / `gpupy_scatter_<bytes>` then move items of one size between
//!   a strided array and `base + off[..]` of another.
//!
//! `nonzero` runs in two passes over a contiguous bool mask cut into one chunk per block:
//! `gpupy_nonzero_count` counts each chunk's true elements, the host scans the counts, and
//! `gpupy_nonzero_write` writes each true element's coordinates (or element offset) at its
//! rank, found tile by tile with warp ballots and a prefix over the block's warps.
//!
//! The pure parts (index resolution, coordinate decomposition) compile for the host too,
//! where `cargo test` checks them; the kernels exist only in the nvptx64 build.

use crate::args::Strided;

/// `flags` bit of the offsets kernel: this index array is the first, so `off` is written
/// rather than added to.
pub const FIRST: u32 = 1;
/// `flags` bit of the offsets kernel: the values are already element offsets (from a
/// boolean mask), taken as they are: no negative wrap-around and no range check.
pub const RAW: u32 = 2;

/// Threads per block of the nonzero kernels; each block owns a chunk of whole tiles of
/// this many elements, so a chunk is a multiple of it.
pub const NONZERO_BLOCK: u32 = 256;
/// `mode` of `gpupy_nonzero_write`: write the coordinates along every axis, as an
/// `(ndim, nnz)` C-contiguous array.
pub const NONZERO_COORDS: u32 = 0;
/// `mode` of `gpupy_nonzero_write`: write one element offset per true element, computed
/// with the strides of the launch's `Strided<1>`.
pub const NONZERO_OFFSETS: u32 = 1;

/// An integer index value of any NumPy integer dtype.
pub trait IndexValue: Copy {
    /// The position in an axis of `extent` elements (negative values count from the
    /// end), or `None` when it is out of range.
    fn resolve(self, extent: u64) -> Option<u64>;
    /// The value as a signed offset (for `RAW` offsets, which are always int64).
    fn raw(self) -> i64;
}

macro_rules! signed_index {
    ($($t:ty),*) => { $(
        impl IndexValue for $t {
            #[inline(always)]
            fn resolve(self, extent: u64) -> Option<u64> {
                let v = self as i64;
                // extent <= isize::MAX, so neither the sum nor the cast overflows.
                let w = if v < 0 { v + extent as i64 } else { v };
                if w >= 0 && (w as u64) < extent { Some(w as u64) } else { None }
            }
            #[inline(always)]
            fn raw(self) -> i64 {
                self as i64
            }
        }
    )* };
}
macro_rules! unsigned_index {
    ($($t:ty),*) => { $(
        impl IndexValue for $t {
            #[inline(always)]
            fn resolve(self, extent: u64) -> Option<u64> {
                let v = self as u64;
                if v < extent { Some(v) } else { None }
            }
            #[inline(always)]
            fn raw(self) -> i64 {
                self as i64
            }
        }
    )* };
}
signed_index!(i8, i16, i32, i64);
unsigned_index!(u8, u16, u32, u64);

/// What index `v` adds to an element offset: `position * stride`, or `v * stride` for
/// `RAW` offsets; `None` when `v` is out of range for an axis of `extent`.
#[inline(always)]
pub fn offset_term<T: IndexValue>(v: T, extent: u64, stride: i64, flags: u32) -> Option<i64> {
    if flags & RAW != 0 {
        Some(v.raw().wrapping_mul(stride))
    } else {
        v.resolve(extent).map(|w| (w as i64).wrapping_mul(stride))
    }
}

/// Calls `f(axis, coordinate)` for each axis of linear (C-order) index `e` in the shape
/// `s.shape[..s.ndim]` (innermost first, as `Strided` stores it; strides are unused).
/// `axis` counts from the outermost axis, as NumPy numbers them. Unrolled with constant
/// dimension indices, so the by-value shape never goes to local memory.
#[inline(always)]
#[allow(unused_assignments)] // the last dimension's quotient is unused
pub fn unravel<const N: usize>(s: &Strided<N>, e: u64, mut f: impl FnMut(usize, u64)) {
    let nd = s.ndim as usize;
    let mut rem = e;
    macro_rules! dim {
        ($($d:literal)*) => { $(
            if $d < nd {
                let extent = s.shape[$d];
                // extent >= 1: an element exists only when every extent is at least 1.
                f(nd - 1 - $d, rem % extent);
                rem /= extent;
            }
        )* };
    }
    dim!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
}

#[cfg(all(target_arch = "nvptx64", feature = "index"))]
mod gpu;

/// The integer dtypes an index array may have (others are cast on the host).
#[macro_export]
macro_rules! for_each_index_type {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*] i8 i16 i32 i64 u8 u16 u32 u64 }
    };
}

macro_rules! type_names {
    ([$prefix:literal] $($t:ident)*) => { &[$(concat!($prefix, stringify!($t))),*] };
}
macro_rules! type_keys {
    ([] $($t:ident)*) => { &[$(<$t as crate::dtype::DTypeIndex>::INDEX),*] };
}
macro_rules! size_names {
    ([$prefix:literal] $(($bytes:literal, $ty:ident))*) => {
        &[$(concat!($prefix, stringify!($bytes))),*]
    };
}

crate::module_parts! {
    /// The parts of the indexing module.
    Part in Index {
        /// Element offsets of one index array, by index dtype (`for_each_index_type!`).
        Offsets = crate::for_each_index_type!(type_names, "gpupy_index_offsets_"),
        /// Gathers by item size (`for_each_item_size!` order).
        Gather = crate::for_each_item_size!(size_names, "gpupy_gather_"),
        /// Scatters by item size.
        Scatter = crate::for_each_item_size!(size_names, "gpupy_scatter_"),
        /// `where` selects by item size.
        Select = crate::for_each_item_size!(size_names, "gpupy_select_"),
        /// The two passes of `nonzero`: counts per chunk, then coordinates.
        Nonzero = &["gpupy_nonzero_count", "gpupy_nonzero_write"],
    }
}

const OFFSET_SLOTS: [u16; crate::dtype::NDTYPES] =
    crate::registry::by_key(crate::for_each_index_type!(type_keys));

/// The offsets kernel for index arrays of dtype `dtype`, if it is an integer dtype.
pub fn offsets(dtype: usize) -> Option<crate::registry::Kernel> {
    let slot = *OFFSET_SLOTS.get(dtype)?;
    (slot != u16::MAX).then(|| Part::Offsets.at(slot as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_resolve_like_numpy() {
        assert_eq!(3i32.resolve(5), Some(3));
        assert_eq!((-1i8).resolve(5), Some(4));
        assert_eq!((-5i64).resolve(5), Some(0));
        assert_eq!((-6i64).resolve(5), None);
        assert_eq!(5i16.resolve(5), None);
        assert_eq!(0i32.resolve(0), None);
        assert_eq!(4u8.resolve(5), Some(4));
        assert_eq!(u64::MAX.resolve(5), None);
        assert_eq!(i64::MIN.resolve(5), None);
        assert_eq!(200u8.resolve(201), Some(200));
    }

    #[test]
    fn offset_terms_scale_by_the_stride() {
        assert_eq!(offset_term(-1i64, 4, -3, FIRST), Some(-9));
        assert_eq!(offset_term(2u32, 4, 7, 0), Some(14));
        assert_eq!(offset_term(9i64, 4, 7, 0), None);
        // Raw offsets (from masks over reversed views) may be negative and unbounded.
        assert_eq!(offset_term(-12i64, 0, 1, RAW), Some(-12));
    }

    #[test]
    fn unravel_gives_c_order_coordinates() {
        // Shape (2, 3, 4), stored innermost first.
        let s = Strided::<1>::new(&[4, 3, 2], [&[0, 0, 0]]).unwrap();
        for e in 0..24u64 {
            let mut c = [0u64; 3];
            unravel(&s, e, |axis, v| c[axis] = v);
            assert_eq!(c, [e / 12, (e / 4) % 3, e % 4], "element {e}");
        }
        let scalar = Strided::<1> {
            ndim: 0,
            len: 1,
            ..s
        };
        unravel(&scalar, 0, |_, _| panic!("a 0-d shape has no axes"));
    }
}
