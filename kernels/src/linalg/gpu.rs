use super::jacobi::*;
use crate::dtype::c128;
use crate::gpu::{
    block_dim, block_idx, block_idx_y, grid_dim, ld_shared_words, shfl_xor_words, smem_addr,
    smem_generic, st_shared_words, sync_threads, sync_threads_or, thread_idx,
};
use crate::reduce::reduction::Words;

/// The three sums a pair's rotation needs, reduced together.
#[repr(C)]
#[derive(Clone, Copy)]
struct Sums<T> {
    alpha: f64,
    beta: f64,
    g: T,
}
// SAFETY: two f64 and an f64 or complex128: whole 8-byte words, no padding.
unsafe impl Words for Sums<f64> {}
unsafe impl Words for Sums<c128> {}

impl<T: Elem> Sums<T> {
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Sums {
            alpha: self.alpha + o.alpha,
            beta: self.beta + o.beta,
            g: self.g.add(o.g),
        }
    }
}

/// The threads that rotate one pair: a warp, or with `BLOCK_PER_PAIR` the block.
#[derive(Clone, Copy)]
struct Group {
    /// This thread's index in the group, and the group's thread count.
    t: u64,
    size: u64,
    /// Warps in the group and this thread's warp among them.
    warps: u32,
    warp: u32,
}

/// A group orthogonalizes columns `a` and `b` (`m` elements each) by their first `dot`
/// elements (the rest are rotated along: the accumulated `V` below `A`'s rows when the
/// host wants singular vectors): each thread sums rows `t, t + size, ...`, a butterfly gives every lane its warp's totals, a block
/// group adds the warps' totals from shared memory (in one order, so every thread
/// gets the same bits), and every thread then rotates its rows. Returns the same
/// answer on every thread of the group.
///
/// # Safety
/// `a` and `b` each point at `m` elements that no other group touches during the
/// call; every thread of the group calls it together; a block group has
/// `warps * size_of::<Sums<T>>()` bytes of shared memory at offset 0.
#[inline(always)]
unsafe fn rotate_pair<T: Elem>(a: *mut T, b: *mut T, m: u64, dot: u64, g: Group, tol: f64) -> bool
where
    Sums<T>: Words,
{
    let mut s = Sums {
        alpha: 0.0,
        beta: 0.0,
        g: T::ZERO,
    };
    let mut r = g.t;
    while r < dot {
        // SAFETY: r < dot <= m, inside both columns.
        let (x, y) = unsafe { (*a.add(r as usize), *b.add(r as usize)) };
        s.alpha += x.abs2();
        s.beta += y.abs2();
        s.g = T::conj_mul_add(s.g, x, y);
        r += g.size;
    }
    let mut d = 16;
    while d > 0 {
        s = s.add(shfl_xor_words(s, d));
        d /= 2;
    }
    if g.warps > 1 {
        let bytes = core::mem::size_of::<Sums<T>>() as u32;
        if g.t.is_multiple_of(32) {
            // SAFETY: slot `warp` is inside the warps * bytes the launch provides.
            unsafe { st_shared_words(smem_addr(g.warp * bytes), s) };
        }
        sync_threads();
        // SAFETY: every slot was stored before the barrier.
        s = unsafe { ld_shared_words(smem_addr(0)) };
        for w in 1..g.warps {
            // SAFETY: as above.
            s = s.add(unsafe { ld_shared_words(smem_addr(w * bytes)) });
        }
        // The slots are stored again for the next pair.
        sync_threads();
    }
    let gabs = s.g.abs();
    let Some((c, sn)) = rotation(s.alpha, s.beta, gabs, tol) else {
        return false;
    };
    let ph = s.g.phase_to_real(gabs);
    let mut r = g.t;
    while r < m {
        // SAFETY: as above; this thread alone owns row r of both columns.
        unsafe {
            let (x, y) = (*a.add(r as usize), ph.mul(*b.add(r as usize)));
            *a.add(r as usize) = x.scale(c).add(y.scale(-sn));
            *b.add(r as usize) = x.scale(sn).add(y.scale(c));
        }
        r += g.size;
    }
    true
}

/// Copies `len` elements from `src` to `dst` with the whole block.
///
/// # Safety
/// Both hold `len` elements; every thread of the block calls it.
#[inline(always)]
unsafe fn block_copy<T: Copy>(dst: *mut T, src: *const T, len: usize) {
    let mut i = thread_idx() as usize;
    while i < len {
        // SAFETY: i < len.
        unsafe { *dst.add(i) = *src.add(i) };
        i += block_dim() as usize;
    }
}

/// Round-robin steps `first_step .. first_step + steps` of up to `sweeps` sweeps (the
/// angles from the first `dot` of the `m` rows) on
/// matrix `block_idx_y` of `w`, groups taking the pairs of a step in turn (across the
/// whole grid's x dimension). With `sweeps > 1` the block runs whole sweeps alone
/// (the host launches one block in x) and stops after the first sweep without a
/// rotation. `flags[matrix]` is set to 1 when the last sweep (or step) run rotated
/// anything, so the host knows whether to go on. `mode` holds `BLOCK_PER_PAIR` and
/// `STAGED` bits.
///
/// # Safety
/// `w` holds `gridDim.y` matrices of `n * m` elements, `flags` `gridDim.y` words;
/// `blockDim.x` is a multiple of 32; with `sweeps > 1` or `STAGED`, `gridDim.x == 1`;
/// the dynamic shared memory holds `n * m` elements with `STAGED` and one `Sums<T>`
/// per warp with `BLOCK_PER_PAIR` (never both).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn jacobi<T: Elem>(
    w: *mut T,
    m: u64,
    dot: u64,
    n: u32,
    first_step: u32,
    steps: u32,
    sweeps: u32,
    tol: f64,
    flags: *mut u32,
    mode: u32,
) where
    Sums<T>: Words,
{
    let matrix = block_idx_y() as usize;
    let len = n as usize * m as usize;
    // SAFETY: matrix < gridDim.y, so its n * m elements are inside w.
    let global = unsafe { w.add(matrix * len) };
    let staged = mode & STAGED != 0;
    let w = if staged {
        let s = smem_generic(0).cast::<T>();
        // SAFETY: shared memory holds n * m elements when STAGED.
        unsafe { block_copy(s, global, len) };
        sync_threads();
        s
    } else {
        global
    };
    let warps = block_dim() / 32;
    let g = if mode & BLOCK_PER_PAIR != 0 {
        Group {
            t: thread_idx() as u64,
            size: block_dim() as u64,
            warps,
            warp: thread_idx() / 32,
        }
    } else {
        Group {
            t: (thread_idx() % 32) as u64,
            size: 32,
            warps: 1,
            warp: 0,
        }
    };
    let (groups, group) = (warps / g.warps, thread_idx() / (32 * g.warps));
    let n_even = n + (n & 1);
    let mut rotated = false;
    for _ in 0..sweeps {
        rotated = false;
        for step in first_step..first_step + steps {
            let mut p = block_idx() * groups + group;
            while p < n_even / 2 {
                let (i, j) = round_robin_pair(n_even, step, p);
                if i < n && j < n {
                    // SAFETY: i, j < n name columns inside this matrix; the pairs of
                    // one step are disjoint, so no other group touches them. A block
                    // group's p, i and j are uniform across the block.
                    rotated |= unsafe {
                        rotate_pair(
                            w.add(i as usize * m as usize),
                            w.add(j as usize * m as usize),
                            m,
                            dot,
                            g,
                            tol,
                        )
                    };
                }
                p += grid_dim() * groups;
            }
            // The next step pairs columns that other groups just rotated. Uniform:
            // every thread runs the same steps.
            rotated = sync_threads_or(rotated);
        }
        if !rotated {
            break;
        }
    }
    if staged {
        // SAFETY: as the copy in; the last step ended with a barrier.
        unsafe { block_copy(global, w, len) };
    }
    if rotated && thread_idx() == 0 {
        // SAFETY: matrix < gridDim.y. Blocks of one step may all store 1: same value.
        unsafe { *flags.add(matrix) = 1 };
    }
}

macro_rules! jacobi_entries {
    ([] $(($name:literal, $t:ty))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_svd_jacobi_", $name))]
            unsafe extern "ptx-kernel" fn k(w: *mut $t, m: u64, dot: u64, n: u32, first_step: u32, steps: u32, sweeps: u32, tol: f64, flags: *mut u32, mode: u32) {
                // SAFETY: the host launches per jacobi's contract (host/src/ops/linalg/svd.rs).
                unsafe { jacobi::<$t>(w, m, dot, n, first_step, steps, sweeps, tol, flags, mode) }
            }
        };
    )* };
}
crate::for_each_jacobi_type!(jacobi_entries);
