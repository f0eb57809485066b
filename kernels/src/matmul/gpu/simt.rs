//! Matrix products: a tiled shared-memory GEMM with register blocking, one generic body
//! stamped per dtype and tile shape of `tiles::{F32_TILES, F64_TILES}`.
//!
//! A block computes a `BM x BN` tile of `C` in steps of `BK` along `k`. Each step's tiles of
//! `A` (`BM x BK`) and `B` (`BK x BN`) go to shared memory, both stored `[p][row or col]`
//! so that a thread reads its rows of `A` and its columns of `B` for one `p` as 16-byte
//! vectors. A thread owns `TM x TN` outputs in registers, split into 16-byte groups spread
//! over the tile (rows `g*BM*VEC/TM + ty*VEC ..`), so the 16 threads of a warp that read
//! `B` together read 256 contiguous bytes: no bank conflicts. Shared memory holds two
//! stages: while a step is computed, the next one is read from global memory into
//! registers, then stored into the other stage; one barrier a step.
//!
//! Global loads take any strides and guard every element (zero outside the matrix). The
//! thread-to-element mapping follows the operand's contiguous direction, so loads of a
//! row-major or transposed `A` or `B` are coalesced.
//!
//! Every register array is indexed only by constants after unrolling: a run-time index
//! would put it in local memory (`ptxas -v` shows 0 bytes of stack for every entry).

use core::arch::asm;

use crate::dtype::{c64, c128};
use crate::gpu::unroll;
use crate::gpu::{
    Shared, block_idx, block_idx_y, block_idx_z, grid_stride, smem_addr, sync_threads, thread_idx,
};
use crate::matmul::tiles::{
    self, C64_TILES, C128_TILES, F32_TILES, F64_TILES, Gemm, SplitSum, Tile, U32_TILES, U64_TILES,
};

/// What the GEMM needs of its element type.
pub(crate) trait Elem: Copy {
    const ZERO: Self;
    /// Elements in 16 bytes (at least 1).
    const VEC: usize;
    /// `a * b + c` (floats: rounded once; integers: wrapping; complex: four real FMAs).
    fn fma(a: Self, b: Self, c: Self) -> Self;
    /// `a + b` (wrapping for integers).
    fn add(a: Self, b: Self) -> Self;
    /// `a - b` (wrapping for integers).
    fn sub(a: Self, b: Self) -> Self;
    /// `*p` when `ok`, else zero, as one predicated load with no branch around it.
    ///
    /// A guarded load written as `if ok { *p }` puts each load in a basic block of its own;
    /// ptxas then scheduled the whole step's multiply-adds above those blocks, so the next
    /// tile was fetched only after the step's arithmetic and its latency was exposed at
    /// every step. Straight-line predicated loads (not `pure`: LLVM may not sink them into
    /// the branch that stores them) stay ahead of the arithmetic they overlap.
    ///
    /// # Safety
    /// When `ok`, `p` is valid for reads, aligned, and not written during the launch (it
    /// goes through the read-only cache).
    unsafe fn ld_global_or_zero(p: *const Self, ok: bool) -> Self;
    /// # Safety
    /// `addr` is a shared-window address inside the launch's dynamic shared memory,
    /// aligned for `Self`.
    unsafe fn st_shared(addr: u32, v: Self);
    /// The `VEC` elements at `addr` (16-byte aligned, in the launch's shared memory) in the
    /// first `VEC` slots.
    unsafe fn ld_shared_vec(addr: u32) -> [Self; 4];
    /// Writes the first `VEC` elements of `v` to `p` with one 16-byte store.
    ///
    /// # Safety
    /// `p` is 16-byte aligned and valid for `VEC` writes.
    unsafe fn st_global_vec(p: *mut Self, v: [Self; 4]);
}

/// `ld.global.nc` of one `$ty`-typed register (`$reg`) under predicate `ok`, zero otherwise.
macro_rules! ld_global_or_zero {
    ($p:expr, $ok:expr, $ty:literal, $reg:ident, $zero:expr) => {{
        let v;
        // SAFETY: the caller's contract (`Elem::ld_global_or_zero`): the address is only
        // dereferenced under `ok`.
        unsafe {
            asm!(
                concat!("{{ .reg .pred p; setp.ne.u32 p, {ok}, 0; mov.", $ty, " {v}, {z};\n\t",
                        "@p ld.global.nc.", $ty, " {v}, [{a}]; }}"),
                a = in(reg64) $p, ok = in(reg32) $ok as u32, z = in($reg) $zero,
                v = out($reg) v, options(nostack, readonly)
            )
        };
        v
    }};
}

/// `Elem` for types that also move through `Shared` and load as one 16-byte vector.
macro_rules! elem_common {
    ($t:ty, $vec:literal) => {
        const ZERO: $t = <$t as crate::dtype::Element>::ZERO;
        const VEC: usize = $vec;
        #[inline(always)]
        unsafe fn st_global_vec(p: *mut $t, v: [$t; 4]) {
            // SAFETY: the first $vec of the 4 values ($vec <= 4); per the trait contract
            // ($vec values are 16 bytes).
            unsafe {
                let pack = *(&v as *const [$t; 4] as *const [$t; $vec]);
                crate::dtype::store_pack::<$t, $vec>(p, pack)
            }
        }
    };
}

impl Elem for f32 {
    elem_common!(f32, 4);
    #[inline(always)]
    fn fma(a: f32, b: f32, c: f32) -> f32 {
        let d: f32;
        // SAFETY: register-only arithmetic.
        unsafe {
            asm!("fma.rn.f32 {d}, {a}, {b}, {c};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b,
                 c = in(reg32) c, options(pure, nomem, nostack))
        };
        d
    }
    #[inline(always)]
    fn add(a: f32, b: f32) -> f32 {
        a + b
    }
    #[inline(always)]
    fn sub(a: f32, b: f32) -> f32 {
        a - b
    }
    #[inline(always)]
    unsafe fn ld_global_or_zero(p: *const f32, ok: bool) -> f32 {
        ld_global_or_zero!(p, ok, "f32", reg32, 0.0f32)
    }
    #[inline(always)]
    unsafe fn st_shared(addr: u32, v: f32) {
        // SAFETY: per the trait contract.
        unsafe { <f32 as Shared>::st_shared(addr, v) }
    }
    #[inline(always)]
    unsafe fn ld_shared_vec(addr: u32) -> [f32; 4] {
        let (x, y, z, w): (f32, f32, f32, f32);
        // SAFETY: per the trait contract.
        unsafe {
            asm!("ld.shared.v4.f32 {{{x}, {y}, {z}, {w}}}, [{a}];", a = in(reg32) addr,
                 x = out(reg32) x, y = out(reg32) y, z = out(reg32) z, w = out(reg32) w,
                 options(nostack, readonly, pure))
        };
        [x, y, z, w]
    }
}

impl Elem for f64 {
    elem_common!(f64, 2);
    #[inline(always)]
    fn fma(a: f64, b: f64, c: f64) -> f64 {
        let d: f64;
        // SAFETY: register-only arithmetic.
        unsafe {
            asm!("fma.rn.f64 {d}, {a}, {b}, {c};", d = out(reg64) d, a = in(reg64) a, b = in(reg64) b,
                 c = in(reg64) c, options(pure, nomem, nostack))
        };
        d
    }
    #[inline(always)]
    fn add(a: f64, b: f64) -> f64 {
        a + b
    }
    #[inline(always)]
    fn sub(a: f64, b: f64) -> f64 {
        a - b
    }
    #[inline(always)]
    unsafe fn ld_global_or_zero(p: *const f64, ok: bool) -> f64 {
        ld_global_or_zero!(p, ok, "f64", reg64, 0.0f64)
    }
    #[inline(always)]
    unsafe fn st_shared(addr: u32, v: f64) {
        // SAFETY: per the trait contract.
        unsafe { <f64 as Shared>::st_shared(addr, v) }
    }
    #[inline(always)]
    unsafe fn ld_shared_vec(addr: u32) -> [f64; 4] {
        let (x, y): (f64, f64);
        // SAFETY: per the trait contract.
        unsafe {
            asm!("ld.shared.v2.f64 {{{x}, {y}}}, [{a}];", a = in(reg32) addr,
                 x = out(reg64) x, y = out(reg64) y, options(nostack, readonly, pure))
        };
        [x, y, 0.0, 0.0]
    }
}

impl Elem for u32 {
    elem_common!(u32, 4);
    #[inline(always)]
    fn fma(a: u32, b: u32, c: u32) -> u32 {
        // `mad.lo`: the low 32 bits, which is NumPy's wrapping int32/uint32 product.
        a.wrapping_mul(b).wrapping_add(c)
    }
    #[inline(always)]
    fn add(a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn sub(a: u32, b: u32) -> u32 {
        a.wrapping_sub(b)
    }
    #[inline(always)]
    unsafe fn ld_global_or_zero(p: *const u32, ok: bool) -> u32 {
        ld_global_or_zero!(p, ok, "b32", reg32, 0u32)
    }
    #[inline(always)]
    unsafe fn st_shared(addr: u32, v: u32) {
        // SAFETY: per the trait contract.
        unsafe {
            asm!("st.shared.u32 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v, options(nostack))
        }
    }
    #[inline(always)]
    unsafe fn ld_shared_vec(addr: u32) -> [u32; 4] {
        let (x, y, z, w): (u32, u32, u32, u32);
        // SAFETY: per the trait contract.
        unsafe {
            asm!("ld.shared.v4.u32 {{{x}, {y}, {z}, {w}}}, [{a}];", a = in(reg32) addr,
                 x = out(reg32) x, y = out(reg32) y, z = out(reg32) z, w = out(reg32) w,
                 options(nostack, readonly, pure))
        };
        [x, y, z, w]
    }
}

impl Elem for u64 {
    elem_common!(u64, 2);
    #[inline(always)]
    fn fma(a: u64, b: u64, c: u64) -> u64 {
        a.wrapping_mul(b).wrapping_add(c)
    }
    #[inline(always)]
    fn add(a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn sub(a: u64, b: u64) -> u64 {
        a.wrapping_sub(b)
    }
    #[inline(always)]
    unsafe fn ld_global_or_zero(p: *const u64, ok: bool) -> u64 {
        ld_global_or_zero!(p, ok, "b64", reg64, 0u64)
    }
    #[inline(always)]
    unsafe fn st_shared(addr: u32, v: u64) {
        // SAFETY: per the trait contract.
        unsafe {
            asm!("st.shared.u64 [{a}], {v};", a = in(reg32) addr, v = in(reg64) v, options(nostack))
        }
    }
    #[inline(always)]
    unsafe fn ld_shared_vec(addr: u32) -> [u64; 4] {
        let (x, y): (u64, u64);
        // SAFETY: per the trait contract.
        unsafe {
            asm!("ld.shared.v2.u64 {{{x}, {y}}}, [{a}];", a = in(reg32) addr,
                 x = out(reg64) x, y = out(reg64) y, options(nostack, readonly, pure))
        };
        [x, y, 0, 0]
    }
}

impl Elem for c64 {
    elem_common!(c64, 2);
    #[inline(always)]
    fn fma(a: c64, b: c64, c: c64) -> c64 {
        // (a.re + i a.im)(b.re + i b.im) + c, each part two FMAs.
        let fma = <f32 as Elem>::fma;
        let re = fma(a.re, b.re, fma(-a.im, b.im, c.re));
        let im = fma(a.re, b.im, fma(a.im, b.re, c.im));
        c64::new(re, im)
    }
    #[inline(always)]
    fn add(a: c64, b: c64) -> c64 {
        c64::new(a.re + b.re, a.im + b.im)
    }
    #[inline(always)]
    fn sub(a: c64, b: c64) -> c64 {
        c64::new(a.re - b.re, a.im - b.im)
    }
    #[inline(always)]
    unsafe fn ld_global_or_zero(p: *const c64, ok: bool) -> c64 {
        // Two words: a complex64 need only be 4-byte aligned.
        let p = p as *const f32;
        // SAFETY: per the trait contract; the imaginary part follows the real one.
        unsafe {
            c64::new(
                <f32 as Elem>::ld_global_or_zero(p, ok),
                <f32 as Elem>::ld_global_or_zero(p.wrapping_add(1), ok),
            )
        }
    }
    #[inline(always)]
    unsafe fn st_shared(addr: u32, v: c64) {
        // SAFETY: per the trait contract (8-byte aligned).
        unsafe {
            asm!("st.shared.v2.f32 [{a}], {{{x}, {y}}};", a = in(reg32) addr, x = in(reg32) v.re,
                 y = in(reg32) v.im, options(nostack))
        }
    }
    #[inline(always)]
    unsafe fn ld_shared_vec(addr: u32) -> [c64; 4] {
        // SAFETY: per the trait contract.
        let [x, y, z, w] = unsafe { <f32 as Elem>::ld_shared_vec(addr) };
        let zero = c64::new(0.0, 0.0);
        [c64::new(x, y), c64::new(z, w), zero, zero]
    }
}

impl Elem for c128 {
    elem_common!(c128, 1);
    #[inline(always)]
    fn fma(a: c128, b: c128, c: c128) -> c128 {
        let fma = <f64 as Elem>::fma;
        let re = fma(a.re, b.re, fma(-a.im, b.im, c.re));
        let im = fma(a.re, b.im, fma(a.im, b.re, c.im));
        c128::new(re, im)
    }
    #[inline(always)]
    fn add(a: c128, b: c128) -> c128 {
        c128::new(a.re + b.re, a.im + b.im)
    }
    #[inline(always)]
    fn sub(a: c128, b: c128) -> c128 {
        c128::new(a.re - b.re, a.im - b.im)
    }
    #[inline(always)]
    unsafe fn ld_global_or_zero(p: *const c128, ok: bool) -> c128 {
        let p = p as *const f64;
        // SAFETY: per the trait contract; the imaginary part follows the real one.
        unsafe {
            c128::new(
                <f64 as Elem>::ld_global_or_zero(p, ok),
                <f64 as Elem>::ld_global_or_zero(p.wrapping_add(1), ok),
            )
        }
    }
    #[inline(always)]
    unsafe fn st_shared(addr: u32, v: c128) {
        // SAFETY: per the trait contract (16-byte aligned).
        unsafe {
            asm!("st.shared.v2.f64 [{a}], {{{x}, {y}}};", a = in(reg32) addr, x = in(reg64) v.re,
                 y = in(reg64) v.im, options(nostack))
        }
    }
    #[inline(always)]
    unsafe fn ld_shared_vec(addr: u32) -> [c128; 4] {
        // SAFETY: per the trait contract.
        let [x, y, _, _] = unsafe { <f64 as Elem>::ld_shared_vec(addr) };
        let zero = c128::new(0.0, 0.0);
        [c128::new(x, y), zero, zero, zero]
    }
}

/// 16 bytes at `p` as `T::VEC` elements (in the first slots) when `ok`, zeros otherwise:
/// one predicated vector load, like `Elem::ld_global_or_zero`.
///
/// # Safety
/// When `ok`, `p` is 16-byte aligned, valid for 16 bytes of reads and not written during
/// the launch.
#[inline(always)]
unsafe fn ld_global_vec_or_zero<T: Elem>(p: *const T, ok: bool) -> [T; 4] {
    let (x, y, z, w): (u32, u32, u32, u32);
    // SAFETY: per the contract; the address is only dereferenced under `ok`.
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {ok}, 0; mov.b32 {x}, 0; mov.b32 {y}, 0; mov.b32 {z}, 0; mov.b32 {w}, 0;\n\t\
              @p ld.global.nc.v4.b32 {{{x}, {y}, {z}, {w}}}, [{a}]; }}",
             a = in(reg64) p, ok = in(reg32) ok as u32, x = out(reg32) x, y = out(reg32) y,
             z = out(reg32) z, w = out(reg32) w, options(nostack, readonly))
    };
    let words = [x, y, z, w];
    let mut v = [T::ZERO; 4];
    // SAFETY: `T::VEC` elements are the 16 bytes of `words`.
    unsafe { core::ptr::copy_nonoverlapping(words.as_ptr() as *const T, v.as_mut_ptr(), T::VEC) };
    v
}

/// Stores the first `T::VEC` elements of `v` (16 bytes) at shared address `addr`.
///
/// # Safety
/// `addr` is 16-byte aligned, inside the launch's dynamic shared memory.
#[inline(always)]
unsafe fn st_shared_vec<T: Elem>(addr: u32, v: &[T; 4]) {
    let mut words = [0u32; 4];
    // SAFETY: `T::VEC` elements are 16 bytes.
    unsafe { core::ptr::copy_nonoverlapping(v.as_ptr() as *const u32, words.as_mut_ptr(), 4) };
    // SAFETY: per the contract.
    unsafe {
        asm!("st.shared.v4.b32 [{a}], {{{x}, {y}, {z}, {w}}};", a = in(reg32) addr,
             x = in(reg32) words[0], y = in(reg32) words[1], z = in(reg32) words[2],
             w = in(reg32) words[3], options(nostack))
    }
}

/// One operand's share of a tile step for this thread: `L` elements of the `OUTER x BK`
/// tile (`OUTER` is `BM` for `A`, `BN` for `B`), read as `L / V` pieces of `V` consecutive
/// elements along the operand's contiguous direction (`V` is 1, or `T::VEC`: one 16-byte
/// vector). Piece `r` starts at tile position `(o0 + r*do_, p0 + r*dp)`.
///
/// The operand's element `(o, p)` is at `base + o*s_o + p*s_p` (`A`: `s_o = a_row`,
/// `s_p = a_col`; `B`: `s_o = b_col`, `s_p = b_row`). Consecutive threads take consecutive
/// pieces along `p` when `s_p == 1` (row-major `A`, transposed `B`) and along `o`
/// otherwise (row-major `B`, transposed `A`), so a warp reads contiguous memory in both
/// layouts. Vector pieces need what the host checks before it picks a `_v` tile: the
/// contiguous stride 1, the other stride, the batch stride and the base 16-byte multiples,
/// and the contiguous extent (`k`, or `m`/`n`) a multiple of `V`, so that a piece lies
/// wholly inside the matrix or wholly outside.
struct Loader<T, const L: usize, const V: usize> {
    /// Address of piece 0 for the current step; only read under the guards.
    ptr: *const T,
    /// Element distance between consecutive pieces, and between steps.
    step_r: isize,
    step_k: isize,
    /// Whether row/column `o0 + r*do_` is inside the matrix.
    o_ok: [bool; L],
    p0: u32,
    dp: u32,
    /// Pieces run along `p` (stored transposed, an element at a time) rather than `o`.
    along_p: bool,
    /// Shared-memory byte offset (within a stage) of piece 0, between consecutive pieces,
    /// and between consecutive `p` rows.
    s_off: u32,
    s_step: u32,
    s_row: u32,
}

impl<T: Elem, const L: usize, const V: usize> Loader<T, L, V> {
    /// `o_base`: first row/column of the block's tile; `o_len`: the matrix's extent there.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn new<const OUTER: usize, const BK: usize, const THREADS: usize>(
        base: *const T,
        o_base: u32,
        o_len: u32,
        s_o: i64,
        s_p: i64,
        t: u32,
    ) -> Self {
        const { assert!(V == 1 || V == T::VEC) };
        let v = V as u32;
        let along_p = s_p == 1;
        let (o0, do_, p0, dp) = if along_p {
            let groups = (BK / V) as u32;
            (t / groups, THREADS as u32 / groups, (t % groups) * v, 0)
        } else {
            let groups = (OUTER / V) as u32;
            ((t % groups) * v, 0, t / groups, THREADS as u32 / groups)
        };
        let mut o_ok = [false; L];
        unroll!(r in 0..L / V => {
            o_ok[r] = o_base + o0 + r as u32 * do_ < o_len;
        });
        let off = (o_base + o0) as i64 * s_o + p0 as i64 * s_p;
        let size = size_of::<T>() as u32;
        let ld = tiles::smem_ld(OUTER as u32, size);
        Loader {
            ptr: base.wrapping_offset(off as isize),
            step_r: (do_ as i64 * s_o + dp as i64 * s_p) as isize,
            step_k: (BK as i64 * s_p) as isize,
            o_ok,
            p0,
            dp,
            along_p,
            s_off: (p0 * ld + o0) * size,
            s_step: (dp * ld + do_) * size,
            s_row: ld * size,
        }
    }

    /// Reads this step's elements (`k_left` = values of `p` left from the step's start) and
    /// moves on to the next step.
    ///
    /// # Safety
    /// Every in-bounds element is inside the operand's allocation (the host's check), and
    /// for `V > 1` the vector conditions above hold.
    #[inline(always)]
    unsafe fn load(&mut self, k_left: u32) -> [T; L] {
        let mut v = [T::ZERO; L];
        unroll!(r in 0..L / V => {
            let ok = self.o_ok[r] && self.p0 + r as u32 * self.dp < k_left;
            let p = self.ptr.wrapping_offset(r as isize * self.step_r);
            if V == 1 {
                // SAFETY: read only when (o, p) is inside the matrix, so inside the
                // allocation.
                v[r] = unsafe { T::ld_global_or_zero(p, ok) };
            } else {
                // SAFETY: as above; the whole piece is inside when its first element is.
                let piece = unsafe { ld_global_vec_or_zero(p, ok) };
                unroll!(q in 0..V => {
                    v[(r * V + q).min(L - 1)] = piece[q.min(3)];
                });
            }
        });
        self.ptr = self.ptr.wrapping_offset(self.step_k);
        v
    }

    /// # Safety
    /// `stage` is the shared address of this operand's tile in one stage.
    #[inline(always)]
    unsafe fn store(&self, stage: u32, v: &[T; L]) {
        unroll!(r in 0..L / V => {
            let at = stage + self.s_off + r as u32 * self.s_step;
            if V == 1 {
                // SAFETY: inside the stage (tile positions are inside OUTER x BK).
                unsafe { T::st_shared(at, v[r]) };
            } else if self.along_p {
                // A piece along `p` lands in `V` consecutive rows of the `[p][o]` tile.
                unroll!(q in 0..V => {
                    // SAFETY: as above.
                    unsafe { T::st_shared(at + q as u32 * self.s_row, v[(r * V + q).min(L - 1)]) };
                });
            } else {
                let mut piece = [T::ZERO; 4];
                unroll!(q in 0..V => {
                    piece[q.min(3)] = v[(r * V + q).min(L - 1)];
                });
                // SAFETY: as above; `o0` is a multiple of `V` and rows are 16-byte aligned.
                unsafe { st_shared_vec(at, &piece) };
            }
        });
    }
}

/// `C[z] = A[z] @ B[z]` for the block's tile. `LA = BM*BK/THREADS`, `LB = BN*BK/THREADS`
/// and `THREADS = (BM/TM)*(BN/TN)` are passed in since const generics cannot compute them.
///
/// # Safety
/// Launched with grid `(ceil(n/BN), ceil(m/BM), batch)`, `THREADS` threads and
/// `tiles::smem_bytes(BM, BN, BK, size_of::<T>())` bytes of dynamic shared memory; every
/// element the strides reach for indices inside `(batch, m, n, k)` is inside its
/// allocation; `c` does not overlap `a` or `b`.
#[inline(always)]
unsafe fn matmul<
    T: Elem,
    const BM: usize,
    const BN: usize,
    const BK: usize,
    const TM: usize,
    const TN: usize,
    const THREADS: usize,
    const LA: usize,
    const LB: usize,
    const V: usize,
>(
    g: Gemm,
    a: *const T,
    b: *const T,
    c: *mut T,
) {
    const {
        assert!(THREADS == (BM / TM) * (BN / TN));
        assert!(BM.is_multiple_of(TM) && BN.is_multiple_of(TN));
        assert!(TM.is_multiple_of(T::VEC) && TN.is_multiple_of(T::VEC));
        // The load mappings of `Loader::new`.
        assert!(THREADS.is_multiple_of(BM) && THREADS.is_multiple_of(BN));
        assert!(THREADS.is_multiple_of(BK));
        assert!(LA * THREADS == BM * BK && LB * THREADS == BN * BK);
        // Vector pieces: whole pieces per thread, and thread groups that tile both ways.
        assert!(LA.is_multiple_of(V) && LB.is_multiple_of(V) && BK.is_multiple_of(V));
        assert!(THREADS.is_multiple_of(BK / V));
        assert!(THREADS.is_multiple_of(BM / V) && THREADS.is_multiple_of(BN / V));
    }
    let size = size_of::<T>() as u32;
    let vec = T::VEC as u32;
    let t = thread_idx();
    let z = block_idx_z() as i64;
    let (tile_row, tile_col) = tiles::block_tile(
        block_idx(),
        block_idx_y(),
        g.n.div_ceil(BN as u32),
        g.m.div_ceil(BM as u32),
    );
    let row0 = tile_row * BM as u32;
    let col0 = tile_col * BN as u32;

    let mut la = Loader::<T, LA, V>::new::<BM, BK, THREADS>(
        a.wrapping_offset((z * g.a_batch) as isize),
        row0,
        g.m,
        g.a_row,
        g.a_col,
        t,
    );
    let mut lb = Loader::<T, LB, V>::new::<BN, BK, THREADS>(
        b.wrapping_offset((z * g.b_batch) as isize),
        col0,
        g.n,
        g.b_col,
        g.b_row,
        t,
    );

    // Shared layout of one stage: A[BK][LDA], then B[BK][LDB].
    let lda = tiles::smem_ld(BM as u32, size);
    let ldb = tiles::smem_ld(BN as u32, size);
    let a_bytes = BK as u32 * lda * size;
    let stage_bytes = a_bytes + BK as u32 * ldb * size;
    let smem = smem_addr(0);

    // This thread's place in the grid of `TM x TN` pieces, and the tile row (column) of
    // its register row `i` (column `j`): see `tiles::thread_row`.
    let tx = t % (BN / TN) as u32;
    let ty = t / (BN / TN) as u32;
    let row_of = |i: usize| {
        tiles::thread_row(
            (i / T::VEC) as u32,
            (i % T::VEC) as u32,
            ty,
            BM as u32,
            TM as u32,
            vec,
        )
    };
    let col_of = |j: usize| {
        tiles::thread_row(
            (j / T::VEC) as u32,
            (j % T::VEC) as u32,
            tx,
            BN as u32,
            TN as u32,
            vec,
        )
    };

    let mut acc = [[T::ZERO; TN]; TM];
    // Split-K: this block's slice of the inner dimension (its start is in the batch
    // offsets the host set).
    let k = if g.k_total == 0 {
        g.k
    } else {
        g.k.min(g.k_total.saturating_sub(z as u32 * g.k))
    };
    let steps = k.div_ceil(BK as u32);
    if steps > 0 {
        // SAFETY: guarded loads, per the function's contract; stage 0 lies inside the
        // launch's shared memory.
        unsafe {
            let (va, vb) = (la.load(k), lb.load(k));
            la.store(smem, &va);
            lb.store(smem + a_bytes, &vb);
        }
        sync_threads();
    }
    let mut s = 0;
    while s < steps {
        let stage = smem + (s & 1) * stage_bytes;
        // The next step's tile, fetched before this step's arithmetic and stored after it.
        // No branch around it (see `Elem::ld_global_or_zero`): after the last step nothing
        // is left of `k`, every load is predicated off, and the zeros stored go unread.
        let k_left = k.saturating_sub((s + 1) * BK as u32);
        // SAFETY: guarded loads, per the function's contract.
        let (va, vb) = unsafe { (la.load(k_left), lb.load(k_left)) };
        unroll!(kk in 0..BK => {
            let mut af = [T::ZERO; TM];
            let mut bf = [T::ZERO; TN];
            let mut v = [T::ZERO; 4];
            unroll!(i in 0..TM => {
                if i.is_multiple_of(T::VEC) {
                    let addr = stage + (kk as u32 * lda + row_of(i)) * size;
                    // SAFETY: 16-byte aligned (rows are padded to 16 bytes), inside the stage.
                    v = unsafe { T::ld_shared_vec(addr) };
                }
                af[i] = v[i % T::VEC];
            });
            unroll!(j in 0..TN => {
                if j.is_multiple_of(T::VEC) {
                    let addr = stage + a_bytes + (kk as u32 * ldb + col_of(j)) * size;
                    // SAFETY: as above.
                    v = unsafe { T::ld_shared_vec(addr) };
                }
                bf[j] = v[j % T::VEC];
            });
            unroll!(i in 0..TM => {
                unroll!(j in 0..TN => {
                    acc[i][j] = T::fma(af[i], bf[j], acc[i][j]);
                });
            });
        });
        // The other stage: every thread finished reading it before the last barrier.
        let other = smem + ((s + 1) & 1) * stage_bytes;
        // SAFETY: inside the launch's shared memory.
        unsafe {
            la.store(other, &va);
            lb.store(other + a_bytes, &vb);
        }
        sync_threads();
        s += 1;
    }

    let c = c.wrapping_offset((z * g.c_batch) as isize);
    // `C -= A @ B` (`Gemm::sub`): C's elements read back and the product subtracted
    // (plain loads: C is written during the launch, so not through the read-only path).
    let sub = g.sub != 0;
    // A thread's columns come in groups of `VEC` consecutive ones: with a unit column
    // stride and 16-byte alignment a group is one vector store (the thin products with
    // a short k, 65536x64 @ 64x65536, are bound by these writes).
    let vec_ok = g.c_col == 1
        && (c as usize).is_multiple_of(16)
        && (g.c_row * size as i64).rem_euclid(16) == 0;
    unroll!(i in 0..TM => {
        let row = row0 + row_of(i);
        if row < g.m {
            let crow = c.wrapping_offset((row as i64 * g.c_row) as isize);
            if sub {
                // The row's elements of C, every load before any store: a store between
                // two loads makes the second wait for the first (the compiler cannot
                // tell that they do not alias), one memory latency per element.
                let mut old = [T::ZERO; TN];
                unroll!(j in 0..TN => {
                    let col = col0 + col_of(j);
                    if col < g.n {
                        // SAFETY: (row, col) is inside C, written by this thread alone.
                        old[j] = unsafe { *crow.wrapping_offset((col as i64 * g.c_col) as isize) };
                    }
                });
                unroll!(j in 0..TN => {
                    acc[i][j] = T::sub(old[j], acc[i][j]);
                });
            }
            unroll!(j in 0..TN => {
                if j.is_multiple_of(T::VEC) {
                    let col = col0 + col_of(j);
                    if vec_ok && col + vec <= g.n {
                        let mut v = [T::ZERO; 4];
                        unroll!(q in 0..T::VEC => {
                            v[q.min(3)] = acc[i][(j + q).min(TN - 1)];
                        });
                        // SAFETY: columns col..col+VEC are inside C's row, and the address
                        // is 16-byte aligned (aligned base and row stride, col a multiple
                        // of VEC).
                        unsafe { T::st_global_vec(crow.wrapping_add(col as usize), v) };
                    } else {
                        unroll!(q in 0..T::VEC => {
                            let col = col + q as u32;
                            if col < g.n {
                                // SAFETY: (row, col) is inside C.
                                unsafe {
                                    *crow.wrapping_offset((col as i64 * g.c_col) as isize) =
                                        acc[i][(j + q).min(TN - 1)]
                                };
                            }
                        });
                    }
                }
            });
        }
    });
}

/// `C[i, j] = sum_s W[s, i, j]` (or `C[i, j] -= ...`): the split-K epilogue (see
/// `tiles::SplitSum`), summing the slices in order.
///
/// # Safety
/// `w` holds `splits*m*n` elements; `(i, j)` for `i < m, j < n` address distinct elements
/// of `c`'s allocation.
#[inline(always)]
unsafe fn splitk_sum<T: Elem>(s: SplitSum, w: *const T, c: *mut T) {
    let len = s.m as u64 * s.n as u64;
    let (mut e, step) = grid_stride();
    while e < len {
        let mut v = T::ZERO;
        let mut z = 0;
        while z < s.splits {
            // SAFETY: z*len + e < splits*m*n.
            v = T::add(v, unsafe { *w.wrapping_add((z as u64 * len + e) as usize) });
            z += 1;
        }
        let (i, j) = ((e / s.n as u64) as i64, (e % s.n as u64) as i64);
        // SAFETY: (i, j) is inside C, written by this thread alone.
        unsafe {
            let p = c.wrapping_offset((i * s.c_row + j * s.c_col) as isize);
            *p = if s.sub != 0 { T::sub(*p, v) } else { v };
        }
        e += step;
    }
}

/// Stamps `gpupy_matmul_<ty>_<name>` for entry `idx` of `tiles`; the names are spelled out
/// (`export_name` takes a literal) and checked against the table at compile time, as is
/// the table's length.
macro_rules! matmul_entries {
    ([] $(($ty:ident, $tiles:ident, [$($idx:literal $name:literal)*]))*) => { $( matmul_entries!($ty, $tiles, $($idx $name)*); )* };
    ($ty:ident, $tiles:ident, $($idx:literal $name:literal)*) => {
        const _: () = assert!($tiles.len() == [$($idx),*].len());
        $(
            const _: () = {
                const TILE: Tile = $tiles[$idx];
                const _: () = assert!(crate::registry::same(TILE.name, $name));
                const THREADS: usize = TILE.threads as usize;
                #[unsafe(export_name = concat!("gpupy_matmul_", stringify!($ty), "_", $name))]
                unsafe extern "ptx-kernel" fn kernel(
                    g: Gemm, a: *const $ty, b: *const $ty, c: *mut $ty,
                ) {
                    // SAFETY: the host launches per the tile table and checks the strides.
                    unsafe {
                        matmul::<
                            $ty,
                            { TILE.bm as usize },
                            { TILE.bn as usize },
                            { TILE.bk as usize },
                            { TILE.tm as usize },
                            { TILE.tn as usize },
                            THREADS,
                            { (TILE.bm * TILE.bk) as usize / THREADS },
                            { (TILE.bn * TILE.bk) as usize / THREADS },
                            { if TILE.vector { <$ty as Elem>::VEC } else { 1 } },
                        >(g, a, b, c)
                    }
                }
            };
        )*
    };
}

crate::for_each_simt_tile!(matmul_entries);

/// `gpupy_matmul_<ty>_splitk_sum` for the float and complex types (integer products
/// are not split).
macro_rules! splitk_entries {
    ([] $($ty:ident)*) => {$(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_matmul_", stringify!($ty), "_splitk_sum"))]
            unsafe extern "ptx-kernel" fn kernel(s: SplitSum, w: *const $ty, c: *mut $ty) {
                // SAFETY: the host sizes the workspace and checks C's strides.
                unsafe { splitk_sum::<$ty>(s, w, c) }
            }
        };
    )*};
}
crate::for_each_splitk_type!(splitk_entries);
