//! Warp-level operations: the lane id, shuffles (CUDA's `__shfl_*_sync`) and votes
//! (`__ballot_sync`, `__all_sync`, `__any_sync`), always over the full warp.
//!
//! Every lane of the warp must call them, from the same place (the mask is
//! `0xffffffff`, as in the usual `__shfl_down_sync(0xffffffff, v, d)`); a partial warp
//! at the end of a ragged block must still take part, with a neutral value.
//!
//! Shuffles move 32-bit words; wider values ([`Shuffle`]: 64-bit integers and floats,
//! complex numbers) move word by word, f16 in the low half of a word. The asm is not
//! `pure`, like gpupy's own shuffles: a pure asm could be moved into a branch that only
//! some lanes take, where the shuffle would read lanes that are not there.

use core::arch::asm;

use crate::complex::{c64, c128};

/// Threads in a warp.
pub const WARP_SIZE: u32 = 32;

/// This thread's lane in its warp, `0..32` (`%laneid`; CUDA's `threadIdx.x % 32` for
/// 1-D blocks).
#[inline(always)]
pub fn lane_id() -> u32 {
    let r: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {r}, %laneid;", r = out(reg32) r, options(pure, nomem, nostack)) };
    r
}

macro_rules! shfl_b32 {
    ($($name:ident => $instr:literal;)*) => { $(
        #[inline(always)]
        fn $name(v: u32, arg: u32) -> u32 {
            let r: u32;
            // SAFETY: register-only; every lane takes part (module docs).
            unsafe {
                asm!($instr, r = out(reg32) r, v = in(reg32) v, a = in(reg32) arg,
                     options(nomem, nostack))
            };
            r
        }
    )* };
}

shfl_b32! {
    b32_down => "shfl.sync.down.b32 {r}, {v}, {a}, 0x1f, 0xffffffff;";
    b32_up => "shfl.sync.up.b32 {r}, {v}, {a}, 0, 0xffffffff;";
    b32_xor => "shfl.sync.bfly.b32 {r}, {v}, {a}, 0x1f, 0xffffffff;";
    b32_idx => "shfl.sync.idx.b32 {r}, {v}, {a}, 0x1f, 0xffffffff;";
}

/// Values a warp shuffle can move: `shuffle(f)` applies the 32-bit shuffle `f` to each
/// word of the value.
pub trait Shuffle: Copy {
    fn shuffle(self, f: impl Fn(u32) -> u32) -> Self;
}

macro_rules! shuffle_b32 {
    ($($t:ty),*) => { $(
        impl Shuffle for $t {
            #[inline(always)]
            fn shuffle(self, f: impl Fn(u32) -> u32) -> Self {
                f(self as u32) as $t
            }
        }
    )* };
}
shuffle_b32!(u32, i32, u16, i16, u8, i8);

macro_rules! shuffle_b64 {
    ($($t:ty),*) => { $(
        impl Shuffle for $t {
            #[inline(always)]
            fn shuffle(self, f: impl Fn(u32) -> u32) -> Self {
                let b = self as u64;
                (f(b as u32) as u64 | (f((b >> 32) as u32) as u64) << 32) as $t
            }
        }
    )* };
}
shuffle_b64!(u64, i64, usize, isize);

impl Shuffle for bool {
    #[inline(always)]
    fn shuffle(self, f: impl Fn(u32) -> u32) -> Self {
        f(self as u32) != 0
    }
}
impl Shuffle for f16 {
    #[inline(always)]
    fn shuffle(self, f: impl Fn(u32) -> u32) -> Self {
        f16::from_bits(f(self.to_bits() as u32) as u16)
    }
}
impl Shuffle for f32 {
    #[inline(always)]
    fn shuffle(self, f: impl Fn(u32) -> u32) -> Self {
        f32::from_bits(f(self.to_bits()))
    }
}
impl Shuffle for f64 {
    #[inline(always)]
    fn shuffle(self, f: impl Fn(u32) -> u32) -> Self {
        f64::from_bits(self.to_bits().shuffle(f))
    }
}
impl Shuffle for c64 {
    #[inline(always)]
    fn shuffle(self, f: impl Fn(u32) -> u32) -> Self {
        c64::new(self.re.shuffle(&f), self.im.shuffle(&f))
    }
}
impl Shuffle for c128 {
    #[inline(always)]
    fn shuffle(self, f: impl Fn(u32) -> u32) -> Self {
        c128::new(self.re.shuffle(&f), self.im.shuffle(&f))
    }
}

/// `__shfl_down_sync(0xffffffff, v, delta)`: lane `l` gets lane `l + delta`'s value;
/// lanes past the end keep their own. `delta` 16, 8, 4, 2, 1 sums a warp into lane 0.
#[inline(always)]
pub fn shfl_down<T: Shuffle>(v: T, delta: u32) -> T {
    v.shuffle(|w| b32_down(w, delta))
}

/// `__shfl_up_sync(0xffffffff, v, delta)`: lane `l` gets lane `l - delta`'s value;
/// lanes below `delta` keep their own (the step of a warp scan).
#[inline(always)]
pub fn shfl_up<T: Shuffle>(v: T, delta: u32) -> T {
    v.shuffle(|w| b32_up(w, delta))
}

/// `__shfl_xor_sync(0xffffffff, v, mask)`: lane `l` gets lane `l ^ mask`'s value; masks
/// 16, 8, 4, 2, 1 leave every lane with the warp's total (a butterfly).
#[inline(always)]
pub fn shfl_xor<T: Shuffle>(v: T, mask: u32) -> T {
    v.shuffle(|w| b32_xor(w, mask))
}

/// `__shfl_sync(0xffffffff, v, src_lane)`: every lane gets lane `src_lane`'s value
/// (`src_lane` is taken modulo 32).
#[inline(always)]
pub fn shfl_idx<T: Shuffle>(v: T, src_lane: u32) -> T {
    v.shuffle(|w| b32_idx(w, src_lane))
}

/// `__ballot_sync(0xffffffff, p)`: bit `l` is set when `p` held on lane `l`.
#[inline(always)]
pub fn warp_ballot(p: bool) -> u32 {
    let r: u32;
    // SAFETY: register-only vote over the full warp.
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.ballot.b32 {r}, p, 0xffffffff; }}",
             x = in(reg32) p as u32, r = out(reg32) r, options(nomem, nostack))
    };
    r
}

/// `__all_sync(0xffffffff, p)`: whether `p` held on every lane.
#[inline(always)]
pub fn warp_all(p: bool) -> bool {
    warp_ballot(p) == u32::MAX
}

/// `__any_sync(0xffffffff, p)`: whether `p` held on some lane.
#[inline(always)]
pub fn warp_any(p: bool) -> bool {
    warp_ballot(p) != 0
}
