//! Sorting: a stable LSD radix sort over 8-bit digits, with an optional `u32` index
//! payload (for `argsort`, and for sorts of many rows at once).
//!
//! Keys. Every dtype maps to unsigned bits whose unsigned order is NumPy's sort order
//! (`SortKey::key`): signed integers flip the sign bit; floats flip every bit of a
//! negative value and only the sign bit of a positive one, after mapping -0.0 to +0.0
//! (NumPy compares them equal, and a stable sort must then keep their input order) and
//! every NaN to all ones (NaNs sort last, in input order). Complex numbers follow NumPy's
//! lexicographic order with its NaN classes: `[R + Rj, R + nanj, nan + Rj, nan + nanj]`.
//! The kernels never store keys: they move the raw values and compute each pass's digit
//! on the fly, so the sorted output holds the input's exact bits (signed zeros and NaN
//! payloads included) and no transform pass is needed.
//!
//! A sort runs `2 + passes` launches (after one zeroing of its workspace), in the Onesweep
//! scheme of Adinets & Merrill (2022), which CUB's radix sort uses:
//! 1. `gpupy_sort_histogram_<dtype>`: reads the input once and counts every key digit of
//!    every pass at once (a digit's global count does not depend on the order the earlier
//!    passes left), into per-block shared histograms, then adds them to
//!    `counts[pass][digit]` in global memory;
//! 2. `gpupy_sort_starts`: one block turns each pass's counts into exclusive prefix sums,
//!    the output position where each digit's run starts. The row passes' counts need no
//!    reading: every row holds `row_len` indices, so they follow from the row count alone
//!    (`row_digit_count`);
//! 3. `gpupy_sort_onesweep_<dtype>` (values only) or `gpupy_sort_onesweep_idx_<dtype>`
//!    (values and/or an index payload), once per pass: one block per tile of 256 threads x
//!    `items_per_thread` values held in registers. Each warp ranks its values per digit in
//!    input order (`match.any.sync` finds the lanes holding the same digit, the population
//!    count of the lower ones plus a per-warp counter in shared memory is the rank), the
//!    block turns the per-warp counts into tile offsets and stages the values in shared
//!    memory in digit order. Where the tile's run of digit `d` starts in the output is the
//!    digit's global start plus the count of `d` in all earlier tiles, found by a decoupled
//!    look-back: thread `d` publishes its tile's count as an aggregate status word at once,
//!    then sums the words of the earlier tiles, newest first, until it meets one holding an
//!    inclusive prefix, and publishes its own inclusive prefix. Tiles are numbered by a
//!    global ticket counter in the order blocks start, so every tile a look-back waits on
//!    belongs to a block that has started and publishes its count without waiting. The
//!    staged values are then written out from shared memory, so runs of one digit go to
//!    consecutive addresses (coalesced stores). Only the status words carry information
//!    between blocks, and each is read and written as one 64-bit word, so relaxed
//!    gpu-scope accesses suffice (no fence orders other data).
//!
//! The status words carry their pass number (`status_word`), so words left by the
//! previous pass read as "not yet published" and the array is zeroed once per sort, not
//! once per pass.
//!
//! Rows. A sort along the last axis of an `(R, C)` array sorts all `R * C` values at
//! once: after the key passes, further passes sort stably by the row number, which is
//! the index payload divided by `C` (`SortPass::row_len`); rows stay in order and each
//! row ends up sorted. The last pass can write the index payload as int64 modulo the row
//! length, which is exactly NumPy's `argsort` result.
//!
//! The key functions and the launch constants compile for the host too, where `cargo
//! test` checks them; the kernels exist only in the nvptx64 build.

use crate::dtype::{Element, c64, c128};

/// Threads per block of the sort kernels: one digit per thread.
pub const SORT_BLOCK: u32 = 256;
/// Values per digit.
pub const RADIX: u32 = 256;
/// Warps per block.
pub const SORT_WARPS: u32 = SORT_BLOCK / 32;
/// `SortPass::flags` bit: the index output is int64 (`idx % out_row_len`), not u32.
pub const INDEX_OUT_I64: u32 = 1;
/// The most passes of one sort: 17 key digits (complex128) and 4 row digits (rows are
/// fewer than 2^32).
pub const MAX_PASSES: u32 = 21;

/// Values each thread of the onesweep kernel holds per tile: as many as keep the staging
/// area of a tile (values plus u32 indices) near 32 KiB, so the kernel fits the default
/// 48 KiB of shared memory.
pub const fn items_per_thread(itemsize: usize) -> u32 {
    match itemsize {
        1 | 2 | 4 => 16,
        8 => 8,
        _ => 4,
    }
}

/// Values per onesweep tile.
pub const fn tile_len(itemsize: usize) -> u32 {
    SORT_BLOCK * items_per_thread(itemsize)
}

/// Shared memory of the onesweep kernel, in bytes from the start of the dynamic array:
/// per-warp digit counters `[SORT_WARPS][RADIX]` u32, then per digit the tile's scatter
/// offset, then the warp totals of the block scan and the tile number, then the staged
/// tile (values, then u32 indices when the pass moves indices).
pub const SMEM_COUNTERS: u32 = 0;
pub const SMEM_SCATTER: u32 = SMEM_COUNTERS + SORT_WARPS * RADIX * 4;
pub const SMEM_SCAN: u32 = SMEM_SCATTER + RADIX * 4;
pub const SMEM_TILE: u32 = SMEM_SCAN + SORT_WARPS * 4;
pub const SMEM_STAGE: u32 = SMEM_SCAN + 64;

/// Shared bytes of the onesweep kernel for values of `itemsize` bytes; `with_idx`: the
/// pass reads or writes indices (the kernel stages them only then).
pub const fn onesweep_smem(itemsize: usize, with_idx: bool) -> u32 {
    let idx = if with_idx { 4 } else { 0 };
    SMEM_STAGE + tile_len(itemsize) * (itemsize as u32 + idx)
}

/// Shared bytes the histogram kernel may use.
pub const HIST_SMEM_MAX: u32 = 32 * 1024;

/// Copies of each digit histogram in the histogram kernel: lane `l` adds to copy
/// `l % parts`, so at most `32 / parts` lanes of a warp contend for one counter even when
/// a digit takes one value everywhere (the top digit of floats of one binade). As many as
/// fit `HIST_SMEM_MAX`, a power of two.
pub const fn hist_parts(digits: u32) -> u32 {
    let mut p = 32;
    while p > 1 && digits * RADIX * 4 * p > HIST_SMEM_MAX {
        p /= 2;
    }
    p
}

/// Shared bytes of the histogram kernel for `digits` key digits: `[digits][RADIX][parts]` u32.
pub const fn hist_smem(digits: u32) -> u32 {
    digits * RADIX * 4 * hist_parts(digits)
}

/// How many of the row numbers `0..rows` have byte `k` (from the least significant,
/// `k < 4`) equal to `b`: whole periods of `256^(k+1)` numbers hold `256^k` each, and the
/// last partial period holds what is left past `b * 256^k`, at most `256^k`.
#[inline(always)]
pub const fn row_digit_count(rows: u64, k: u32, b: u32) -> u64 {
    let block = 1u64 << (8 * k);
    let full = rows >> (8 * k + 8);
    let rem = rows & ((block << 8) - 1);
    let lo = b as u64 * block;
    let part = if rem <= lo {
        0
    } else if rem - lo < block {
        rem - lo
    } else {
        block
    };
    full * block + part
}

/// The look-back status word of one tile and digit in pass `pass`: `count` in the low 32
/// bits, and above it `2 * (pass + 1)`, plus one when `count` is an inclusive prefix (the
/// count of the digit in this tile and all earlier ones) rather than the tile's own count.
/// A word below `status_word(pass, false, 0)` is unpublished: zero, or left by an earlier
/// pass.
#[inline(always)]
pub const fn status_word(pass: u32, prefix: bool, count: u32) -> u64 {
    (((2 * (pass + 1) + prefix as u32) as u64) << 32) | count as u64
}

/// One pass of the radix sort; passed by value to the onesweep kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortPass {
    /// Values to sort (below 2^32: indices are u32).
    pub n: u64,
    /// Key mode (`row_len == 0`): which 8-bit digit of the key, from the least significant.
    pub digit: u32,
    /// Row mode when nonzero: the digit is byte `digit` of `index / row_len`.
    pub row_len: u32,
    /// With `INDEX_OUT_I64`: the index is written as `index % out_row_len`.
    pub out_row_len: u32,
    pub flags: u32,
    /// The pass's number in the sort, from 0: its status words carry it (`status_word`).
    pub pass: u32,
}

/// A value's place in NumPy's sort order, as unsigned bits (see the module comment).
pub trait SortKey: Element {
    /// The key; its `Ord` is the sort order (lexicographic for complex numbers).
    type Key: Ord + Copy;
    /// 8-bit digits in the key.
    const DIGITS: u32;
    fn key(self) -> Self::Key;
    /// Digit `d` of the key, counting from the least significant (`d < DIGITS`).
    fn digit(self, d: u32) -> u32;
}

macro_rules! word_key {
    ($t:ty, $k:ty, |$x:ident| $f:expr) => {
        impl SortKey for $t {
            type Key = $k;
            const DIGITS: u32 = core::mem::size_of::<$k>() as u32;
            #[inline(always)]
            fn key(self) -> $k {
                let $x = self;
                $f
            }
            #[inline(always)]
            fn digit(self, d: u32) -> u32 {
                ((self.key() as u64) >> (8 * d)) as u32 & 0xff
            }
        }
    };
}

word_key!(u8, u8, |x| x);
word_key!(u16, u16, |x| x);
word_key!(u32, u32, |x| x);
word_key!(u64, u64, |x| x);
word_key!(i8, u8, |x| (x as u8) ^ 0x80);
word_key!(i16, u16, |x| (x as u16) ^ 0x8000);
word_key!(i32, u32, |x| (x as u32) ^ 0x8000_0000);
word_key!(i64, u64, |x| (x as u64) ^ 0x8000_0000_0000_0000);

/// The float key of bits `b` (see the module comment); `sign` is the sign bit and `inf`
/// the bits of +infinity.
macro_rules! float_bits_key {
    ($b:expr, $u:ty, $inf:expr) => {{
        let b: $u = $b;
        let sign: $u = 1 << (<$u>::BITS - 1);
        let mag = b & !sign;
        if mag > $inf {
            <$u>::MAX
        } else if mag == 0 {
            sign
        } else if b & sign != 0 {
            !b
        } else {
            b | sign
        }
    }};
}
word_key!(f16, u16, |x| float_bits_key!(x.to_bits(), u16, 0x7c00));
word_key!(f32, u32, |x| float_bits_key!(x.to_bits(), u32, 0x7f80_0000));
word_key!(f64, u64, |x| float_bits_key!(
    x.to_bits(),
    u64,
    0x7ff0_0000_0000_0000
));

/// NumPy's complex order as `(class, real key, imaginary key)`: class 0 has no NaN part,
/// 1 a NaN imaginary part, 2 a NaN real part, 3 both; a NaN part's key is 0.
macro_rules! complex_key {
    ($c:ty, $f:ty, $u:ty) => {
        impl SortKey for $c {
            type Key = (u8, $u, $u);
            const DIGITS: u32 = 2 * core::mem::size_of::<$u>() as u32 + 1;
            #[inline(always)]
            fn key(self) -> (u8, $u, $u) {
                let (re_nan, im_nan) = (self.re != self.re, self.im != self.im);
                let class = re_nan as u8 * 2 + im_nan as u8;
                let re = if re_nan { 0 } else { self.re.key() };
                let im = if im_nan { 0 } else { self.im.key() };
                (class, re, im)
            }
            #[inline(always)]
            fn digit(self, d: u32) -> u32 {
                let (class, re, im) = self.key();
                const W: u32 = core::mem::size_of::<$u>() as u32;
                if d < W {
                    (im >> (8 * d)) as u32 & 0xff
                } else if d < 2 * W {
                    (re >> (8 * (d - W))) as u32 & 0xff
                } else {
                    class as u32
                }
            }
        }
    };
}
complex_key!(c64, f32, u32);
complex_key!(c128, f64, u64);

/// Kernel-name suffix and key type of every dtype with sort kernels. Booleans sort as
/// bytes (NumPy's are 0 or 1).
#[macro_export]
macro_rules! for_each_sort_dtype {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*]
            (bool, u8) (i8, i8) (i16, i16) (i32, i32) (i64, i64)
            (u8, u8) (u16, u16) (u32, u32) (u64, u64)
            (f16, f16) (f32, f32) (f64, f64) (c64, c64) (c128, c128)
        }
    };
}

macro_rules! digits_table {
    ([] $(($name:ident, $t:ident))*) => {
        /// Key digits (radix passes) per dtype, in `for_each_dtype!` order.
        pub const KEY_DIGITS: &[u32] = &[$(<$t as SortKey>::DIGITS),*];
    };
}
for_each_sort_dtype!(digits_table);

#[cfg(test)]
mod tests {
    use super::*;

    /// Sorting by key must give NumPy's order: checked against a comparison that spells
    /// NumPy's rules out.
    fn sorted_by_key<T: SortKey + Copy>(v: &[T]) -> Vec<T> {
        let mut v = v.to_vec();
        v.sort_by_key(|x| x.key());
        v
    }

    #[test]
    fn integer_keys_keep_order() {
        let v: Vec<i8> = vec![5, -128, 127, 0, -1, 3];
        assert_eq!(sorted_by_key(&v), vec![-128, -1, 0, 3, 5, 127]);
        let v: Vec<i64> = vec![i64::MAX, i64::MIN, -5, 7];
        assert_eq!(sorted_by_key(&v), vec![i64::MIN, -5, 7, i64::MAX]);
        let v: Vec<u16> = vec![65535, 0, 300];
        assert_eq!(sorted_by_key(&v), vec![0, 300, 65535]);
    }

    #[test]
    fn float_keys_put_nan_last_and_merge_zeros() {
        let v = [
            1.5f32,
            f32::NAN,
            -0.0,
            f32::NEG_INFINITY,
            0.0,
            -2.0,
            f32::INFINITY,
            -f32::NAN,
        ];
        let s = sorted_by_key(&v);
        let want = [f32::NEG_INFINITY, -2.0, -0.0, 0.0, 1.5, f32::INFINITY];
        for (a, b) in s.iter().zip(want) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
        assert!(s[6].is_nan() && s[7].is_nan());
        assert_eq!((-0.0f64).key(), 0.0f64.key());
        assert_eq!(f64::NAN.key(), (-f64::NAN).key());
        assert_eq!((-0.0f16).key(), (0.0f16).key());
        assert!(f16::MAX.key() < f16::INFINITY.key() && f16::INFINITY.key() < f16::NAN.key());
        assert!(f16::MIN_POSITIVE.key() > (0.0f16).key());
        assert!((-f16::MIN_POSITIVE).key() < (0.0f16).key());
    }

    /// NumPy's complex less-than (npysort's CFLOAT_LT), written out: its `x == x` and
    /// `x != x` are NaN tests, kept in NumPy's spelling.
    #[allow(clippy::eq_op)]
    fn numpy_complex_lt(a: c64, b: c64) -> bool {
        if a.re < b.re {
            a.im == a.im || b.im != b.im
        } else if a.re > b.re {
            b.im != b.im && a.im == a.im
        } else if a.re == b.re || (a.re != a.re && b.re != b.re) {
            a.im < b.im || (b.im != b.im && a.im == a.im)
        } else {
            b.re != b.re
        }
    }

    #[test]
    fn complex_keys_follow_numpy_order() {
        let parts = [f32::NAN, -1.0, -0.0, 0.0, 2.5, f32::INFINITY];
        let all: Vec<c64> = parts
            .iter()
            .flat_map(|&r| parts.iter().map(move |&i| c64::new(r, i)))
            .collect();
        for &a in &all {
            for &b in &all {
                assert_eq!(a.key() < b.key(), numpy_complex_lt(a, b), "{a:?} < {b:?}");
            }
        }
        // Digits spell the key out: imaginary part first, class last.
        let z = c64::new(1.0, f32::NAN);
        assert_eq!(z.digit(8), 1);
        assert_eq!(z.digit(0), 0);
        assert_eq!(c128::new(f64::NAN, f64::NAN).digit(16), 3);
    }

    #[test]
    fn digits_rebuild_the_key() {
        for x in [-3.25f64, 0.0, 7.0e300, f64::NAN] {
            let k = (0..8).fold(0u64, |acc, d| acc | ((x.digit(d) as u64) << (8 * d)));
            assert_eq!(k, x.key());
        }
        assert_eq!(KEY_DIGITS, &[1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 9, 17]);
    }

    #[test]
    fn onesweep_fits_default_shared_memory() {
        for size in [1, 2, 4, 8, 16] {
            assert!(
                onesweep_smem(size, true) <= 48 * 1024,
                "{size}: {}",
                onesweep_smem(size, true)
            );
            assert!(onesweep_smem(size, false) < onesweep_smem(size, true));
            assert_eq!(SMEM_STAGE % 16, 0);
            const { assert!(SMEM_TILE + 4 <= SMEM_STAGE) };
            assert!(tile_len(size) <= 1 << 16, "ranks pack into 16 bits");
        }
    }

    #[test]
    fn histogram_copies_fit() {
        for &d in KEY_DIGITS {
            let p = hist_parts(d);
            assert!(p.is_power_of_two() && p <= 32);
            assert!(hist_smem(d) <= HIST_SMEM_MAX, "{d} digits");
            assert!(
                p == 32 || hist_smem(d) * 2 > HIST_SMEM_MAX,
                "{d} digits: as many as fit"
            );
        }
        assert_eq!(hist_parts(4), 8);
        assert_eq!(hist_parts(17), 1);
        assert!(KEY_DIGITS.iter().all(|&d| d + 4 <= MAX_PASSES));
    }

    #[test]
    fn row_digit_counts_match_counting() {
        for rows in [0u64, 1, 2, 255, 256, 257, 65535, 65536, 70_001, 300_000] {
            for k in 0..3 {
                let mut want = vec![0u64; 256];
                for r in 0..rows {
                    want[((r >> (8 * k)) & 0xff) as usize] += 1;
                }
                for b in 0..256 {
                    assert_eq!(
                        row_digit_count(rows, k, b),
                        want[b as usize],
                        "{rows} {k} {b}"
                    );
                }
            }
        }
        // The top byte of row numbers up to 2^32 - 1.
        let rows = (1u64 << 32) - 1;
        assert_eq!(row_digit_count(rows, 3, 0), 1 << 24);
        assert_eq!(row_digit_count(rows, 3, 255), (1 << 24) - 1);
        assert_eq!(row_digit_count(rows, 0, 7), 1 << 24);
    }

    #[test]
    fn status_words_order_by_pass_then_kind() {
        let published = status_word(3, false, 0);
        assert!(
            status_word(2, true, u32::MAX) < published,
            "older passes read as unpublished"
        );
        assert!(0 < published);
        assert!(status_word(3, false, u32::MAX) < status_word(3, true, 0));
        assert_eq!(status_word(3, true, 77) as u32, 77);
        assert_eq!((status_word(3, true, 77) >> 32) & 1, 1);
        assert_eq!((status_word(3, false, 77) >> 32) & 1, 0);
        assert!(status_word(MAX_PASSES - 1, true, u32::MAX) < u64::MAX);
    }
}
