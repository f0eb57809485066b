//! Atomic read-modify-write on device memory: CUDA's `atomicAdd`, `atomicSub`,
//! `atomicMax`, `atomicMin`, `atomicAnd`/`Or`/`Xor`, `atomicExch` and `atomicCAS`.
//! Each returns the value the memory held before.
//!
//! They are PTX `atom` instructions on generic addresses: the same call works on global
//! memory (a kernel argument) and on shared memory (`shared_ptr`). Like CUDA's, they are
//! relaxed atomics at device scope: atomic with respect to each other, not a fence
//! (add `threadfence()` where other memory must be ordered around them).
//!
//! The asm has no `nomem` option: the compiler must not cache the memory across it.

use core::arch::asm;

/// Types with `atomic_add` (`atom.add`): 32/64-bit integers, f32, f64 and f16.
pub trait AtomicAdd: Copy {
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atom_add(p: *mut Self, v: Self) -> Self;
}
/// Integers with `atomic_sub`: an `atom.add` of the wrapped negation, as CUDA's.
pub trait AtomicSub: AtomicAdd {
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atom_sub(p: *mut Self, v: Self) -> Self;
}
/// Types with `atomic_min`/`atomic_max` (`atom.min`/`atom.max`): 32/64-bit integers.
pub trait AtomicMinMax: Copy {
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atom_min(p: *mut Self, v: Self) -> Self;
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atom_max(p: *mut Self, v: Self) -> Self;
}
/// Types with `atomic_and`/`atomic_or`/`atomic_xor`: 32/64-bit integers.
pub trait AtomicBits: Copy {
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atom_and(p: *mut Self, v: Self) -> Self;
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atom_or(p: *mut Self, v: Self) -> Self;
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atom_xor(p: *mut Self, v: Self) -> Self;
}
/// Types with `atomic_exch` and `atomic_cas` (`atom.exch`, `atom.cas` on the bits):
/// 32/64-bit integers, f32 and f64.
pub trait AtomicSwap: Copy {
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atom_exch(p: *mut Self, v: Self) -> Self;
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atom_cas(p: *mut Self, compare: Self, v: Self) -> Self;
}

/// One `atom.<op>.<type> r, [p], v;` as a trait method.
macro_rules! atom_fn {
    ($method:ident, $op:literal, $t:ty, $ptx:literal, $reg:ident) => {
        #[inline(always)]
        unsafe fn $method(p: *mut $t, v: $t) -> $t {
            let r: $t;
            // SAFETY: the caller's contract (see `atomic_add`).
            unsafe {
                asm!(concat!("atom.", $op, ".", $ptx, " {r}, [{p}], {v};"),
                     p = in(reg64) p, v = in($reg) v, r = out($reg) r, options(nostack))
            };
            r
        }
    };
}

macro_rules! atomic_int {
    ($($t:ty: $reg:ident, add $add:literal, minmax $mm:literal, bits $bits:literal;)*) => { $(
        impl AtomicAdd for $t {
            atom_fn!(atom_add, "add", $t, $add, $reg);
        }
        impl AtomicSub for $t {
            #[inline(always)]
            unsafe fn atom_sub(p: *mut $t, v: $t) -> $t {
                // SAFETY: the caller's contract (see `atomic_add`).
                unsafe { <$t>::atom_add(p, v.wrapping_neg()) }
            }
        }
        impl AtomicMinMax for $t {
            atom_fn!(atom_min, "min", $t, $mm, $reg);
            atom_fn!(atom_max, "max", $t, $mm, $reg);
        }
        impl AtomicBits for $t {
            atom_fn!(atom_and, "and", $t, $bits, $reg);
            atom_fn!(atom_or, "or", $t, $bits, $reg);
            atom_fn!(atom_xor, "xor", $t, $bits, $reg);
        }
        impl AtomicSwap for $t {
            atom_fn!(atom_exch, "exch", $t, $bits, $reg);
            #[inline(always)]
            unsafe fn atom_cas(p: *mut $t, compare: $t, v: $t) -> $t {
                let r: $t;
                // SAFETY: the caller's contract (see `atomic_add`).
                unsafe {
                    asm!(concat!("atom.cas.", $bits, " {r}, [{p}], {c}, {v};"),
                         p = in(reg64) p, c = in($reg) compare, v = in($reg) v, r = out($reg) r,
                         options(nostack))
                };
                r
            }
        }
    )* };
}

// Two's complement addition is the same for signed and unsigned, so 64-bit signed adds
// use `.u64` (PTX has no `atom.add.s64`); min/max compare with the sign.
atomic_int! {
    u32: reg32, add "u32", minmax "u32", bits "b32";
    i32: reg32, add "s32", minmax "s32", bits "b32";
    u64: reg64, add "u64", minmax "u64", bits "b64";
    i64: reg64, add "u64", minmax "s64", bits "b64";
}

impl AtomicAdd for f32 {
    atom_fn!(atom_add, "add", f32, "f32", reg32);
}
impl AtomicAdd for f64 {
    // Native since sm_60; gpupy builds for sm_70 and newer.
    atom_fn!(atom_add, "add", f64, "f64", reg64);
}
impl AtomicAdd for f16 {
    // `atom.add.noftz.f16` (sm_70+), through the 16-bit pattern: inline asm takes f16
    // in no register class, and a `.b16` register is valid where `.f16` is expected.
    #[inline(always)]
    unsafe fn atom_add(p: *mut f16, v: f16) -> f16 {
        let r: u16;
        // SAFETY: the caller's contract (see `atomic_add`).
        unsafe {
            asm!("atom.add.noftz.f16 {r}, [{p}], {v};",
                 p = in(reg64) p, v = in(reg16) v.to_bits(), r = out(reg16) r, options(nostack))
        };
        f16::from_bits(r)
    }
}

/// Floats swap and compare-and-swap their bit patterns, as CUDA code does with
/// `__float_as_int`; a CAS on floats compares bits (so -0.0 != 0.0 and NaN == same NaN).
macro_rules! atomic_swap_float {
    ($($f:ty => $u:ty),*) => { $(
        impl AtomicSwap for $f {
            #[inline(always)]
            unsafe fn atom_exch(p: *mut $f, v: $f) -> $f {
                // SAFETY: same size and alignment; the caller's contract.
                <$f>::from_bits(unsafe { <$u>::atom_exch(p.cast(), v.to_bits()) })
            }
            #[inline(always)]
            unsafe fn atom_cas(p: *mut $f, compare: $f, v: $f) -> $f {
                // SAFETY: as above.
                <$f>::from_bits(unsafe { <$u>::atom_cas(p.cast(), compare.to_bits(), v.to_bits()) })
            }
        }
    )* };
}
atomic_swap_float!(f32 => u32, f64 => u64);

/// `atomicAdd(p, v)`: `*p += v` atomically; returns the old value.
///
/// # Safety
/// `p` points to a live, aligned `T` in global or shared memory that other threads
/// touch only through atomics while this runs (or not at all).
#[inline(always)]
pub unsafe fn atomic_add<T: AtomicAdd>(p: *mut T, v: T) -> T {
    // SAFETY: forwarded contract.
    unsafe { T::atom_add(p, v) }
}

/// `atomicSub(p, v)` for integers: `*p -= v` (wrapping); returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_sub<T: AtomicSub>(p: *mut T, v: T) -> T {
    // SAFETY: forwarded contract.
    unsafe { T::atom_sub(p, v) }
}

/// `atomicMax(p, v)`: `*p = max(*p, v)`; returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_max<T: AtomicMinMax>(p: *mut T, v: T) -> T {
    // SAFETY: forwarded contract.
    unsafe { T::atom_max(p, v) }
}

/// `atomicMin(p, v)`: `*p = min(*p, v)`; returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_min<T: AtomicMinMax>(p: *mut T, v: T) -> T {
    // SAFETY: forwarded contract.
    unsafe { T::atom_min(p, v) }
}

/// `atomicAnd(p, v)`: `*p &= v`; returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_and<T: AtomicBits>(p: *mut T, v: T) -> T {
    // SAFETY: forwarded contract.
    unsafe { T::atom_and(p, v) }
}

/// `atomicOr(p, v)`: `*p |= v`; returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_or<T: AtomicBits>(p: *mut T, v: T) -> T {
    // SAFETY: forwarded contract.
    unsafe { T::atom_or(p, v) }
}

/// `atomicXor(p, v)`: `*p ^= v`; returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_xor<T: AtomicBits>(p: *mut T, v: T) -> T {
    // SAFETY: forwarded contract.
    unsafe { T::atom_xor(p, v) }
}

/// `atomicExch(p, v)`: `*p = v`; returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_exch<T: AtomicSwap>(p: *mut T, v: T) -> T {
    // SAFETY: forwarded contract.
    unsafe { T::atom_exch(p, v) }
}

/// `atomicCAS(p, compare, v)`: `if *p == compare { *p = v }` as one step; returns the
/// old value (the swap happened when it equals `compare`). The building block of any
/// other atomic update:
///
/// ```ignore
/// let mut old = unsafe { *p };
/// loop {
///     let seen = unsafe { atomic_cas(p, old, f(old)) };
///     if seen.to_bits() == old.to_bits() { break; }
///     old = seen;
/// }
/// ```
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_cas<T: AtomicSwap>(p: *mut T, compare: T, v: T) -> T {
    // SAFETY: forwarded contract.
    unsafe { T::atom_cas(p, compare, v) }
}
