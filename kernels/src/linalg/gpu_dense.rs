//! The dense kernels: a thread block, or a segment of a warp's lanes, is the [`Team`]
//! that runs `dense`'s algorithms on one matrix, staged in shared memory when the host
//! says it fits. A block's reductions go through warp shuffles and [`SCRATCH_BYTES`]
//! of shared memory at offset 0, its staged matrices follow; a segment reduces by
//! shuffles alone and stages its matrix at its own offset.

use core::arch::asm;

use super::dense::args::{DenseArgs, SCRATCH_BYTES, flag};
use super::dense::eig::{gehrd, hqr, trevc};
use super::dense::{Mat, Tri, geqrf, getrf, orgqr, potrf, swap_rows, trsm};
use super::scalar::Scalar;
use super::team::{Team, each2};
use crate::dtype::{c64, c128};
use crate::gpu::{
    block_dim, block_idx, block_idx_y, ld_shared_words, shfl_xor_words, smem_addr, smem_generic,
    st_shared_words, sync_threads, thread_idx,
};
use crate::reduce::reduction::Words;

/// A reduction slot: a key or sum and an index.
#[repr(C)]
#[derive(Clone, Copy)]
struct Slot {
    key: f64,
    idx: u32,
    _pad: u32,
}
// SAFETY: an f64 and two u32: whole words, no padding.
unsafe impl Words for Slot {}

impl Slot {
    /// The larger key, the smaller index among equal keys.
    #[inline(always)]
    fn best(self, o: Slot) -> Slot {
        if o.key > self.key || (o.key == self.key && o.idx < self.idx) {
            o
        } else {
            self
        }
    }
    #[inline(always)]
    fn plus(self, o: Slot) -> Slot {
        Slot {
            key: self.key + o.key,
            idx: 0,
            _pad: 0,
        }
    }
}

/// This thread's best slot over its share of `lo..hi` by `key`.
#[inline(always)]
fn local_best(t: &impl Team, lo: usize, hi: usize, key: impl Fn(usize) -> f64) -> Slot {
    let mut s = Slot {
        key: f64::NEG_INFINITY,
        idx: u32::MAX,
        _pad: 0,
    };
    let mut i = lo + t.rank();
    while i < hi {
        let k = key(i);
        let k = if k.is_nan() { -1.0 } else { k };
        s = s.best(Slot {
            key: k,
            idx: i as u32,
            _pad: 0,
        });
        i += t.size();
    }
    s
}

#[inline(always)]
fn local_sum(t: &impl Team, lo: usize, hi: usize, f: impl Fn(usize) -> f64) -> Slot {
    let mut s = Slot {
        key: 0.0,
        idx: 0,
        _pad: 0,
    };
    let mut i = lo + t.rank();
    while i < hi {
        s.key += f(i);
        i += t.size();
    }
    s
}

/// The block as a team; its size is a multiple of 32 (the host's launch).
struct Block;

impl Block {
    /// Combines every thread's slot with `f` in one fixed order, so every thread gets
    /// the same bits; ends with a barrier.
    #[inline(always)]
    fn reduce(&self, mut s: Slot, f: impl Fn(Slot, Slot) -> Slot) -> Slot {
        let mut d = 16;
        while d > 0 {
            s = f(s, shfl_xor_words(s, d));
            d /= 2;
        }
        let warp = thread_idx() / 32;
        if thread_idx().is_multiple_of(32) {
            // SAFETY: warp < 32 slots of 16 bytes inside SCRATCH_BYTES.
            unsafe { st_shared_words(smem_addr(warp * 16), s) };
        }
        sync_threads();
        // SAFETY: every warp's slot was stored before the barrier.
        let mut r: Slot = unsafe { ld_shared_words(smem_addr(0)) };
        for w in 1..block_dim() / 32 {
            // SAFETY: as above.
            r = f(r, unsafe { ld_shared_words(smem_addr(w * 16)) });
        }
        sync_threads();
        r
    }
}

impl Team for Block {
    #[inline(always)]
    fn rank(&self) -> usize {
        thread_idx() as usize
    }
    #[inline(always)]
    fn size(&self) -> usize {
        block_dim() as usize
    }
    #[inline(always)]
    fn sync(&self) {
        sync_threads();
    }
    #[inline(always)]
    fn argmax(&self, lo: usize, hi: usize, key: impl Fn(usize) -> f64) -> usize {
        let r = self.reduce(local_best(self, lo, hi, key), Slot::best);
        if r.idx == u32::MAX {
            lo
        } else {
            r.idx as usize
        }
    }
    #[inline(always)]
    fn sum(&self, lo: usize, hi: usize, f: impl Fn(usize) -> f64) -> f64 {
        self.reduce(local_sum(self, lo, hi, f), Slot::plus).key
    }
    #[inline(always)]
    fn group(&self) -> usize {
        (thread_idx() / 32) as usize
    }
    #[inline(always)]
    fn groups(&self) -> usize {
        (block_dim() / 32) as usize
    }
    #[inline(always)]
    fn lane(&self) -> usize {
        (thread_idx() % 32) as usize
    }
    #[inline(always)]
    fn lanes(&self) -> usize {
        32
    }
    #[inline(always)]
    fn group_sum<T: Scalar>(&self, v: T) -> T {
        let mut v = v;
        let mut d = 16;
        while d > 0 {
            v = v.add(shfl_xor_words(v, d));
            d /= 2;
        }
        v
    }
}

/// `shfl.sync.bfly` among the lanes of `mask` (a segment: lane `l` gets lane
/// `l ^ d`'s, which stays inside an aligned segment of more than `d` lanes).
#[inline(always)]
fn shfl_xor_masked<T: Words>(v: T, d: u32, mask: u32) -> T {
    let mut v = v;
    let p = (&mut v as *mut T).cast::<u32>();
    for w in 0..core::mem::size_of::<T>() / 4 {
        let r: u32;
        // SAFETY: T is whole 32-bit words (`Words`); every lane of `mask` takes part.
        unsafe {
            asm!("shfl.sync.bfly.b32 {r}, {v}, {d}, 0x1f, {m};", r = out(reg32) r,
                 v = in(reg32) *p.add(w), d = in(reg32) d, m = in(reg32) mask,
                 options(nostack, nomem));
            *p.add(w) = r;
        }
    }
    v
}

/// A segment of `lanes` lanes (a power of two up to 32) of one warp, aligned.
struct Segment {
    lanes: u32,
    mask: u32,
}

impl Segment {
    #[inline(always)]
    fn new(lanes: u32) -> Segment {
        let lane = thread_idx() % 32;
        let ones = if lanes == 32 {
            u32::MAX
        } else {
            (1u32 << lanes) - 1
        };
        Segment {
            lanes,
            mask: ones << (lane / lanes * lanes),
        }
    }
    #[inline(always)]
    fn reduce(&self, mut s: Slot, f: impl Fn(Slot, Slot) -> Slot) -> Slot {
        let mut d = self.lanes / 2;
        while d > 0 {
            s = f(s, shfl_xor_masked(s, d, self.mask));
            d /= 2;
        }
        s
    }
}

impl Team for Segment {
    #[inline(always)]
    fn rank(&self) -> usize {
        (thread_idx() % self.lanes) as usize
    }
    #[inline(always)]
    fn size(&self) -> usize {
        self.lanes as usize
    }
    #[inline(always)]
    fn sync(&self) {
        // SAFETY: every lane of the segment reaches the same barriers (the algorithms'
        // control flow is uniform over a team); the other lanes are not named.
        unsafe { asm!("bar.warp.sync {m};", m = in(reg32) self.mask, options(nostack)) };
    }
    #[inline(always)]
    fn argmax(&self, lo: usize, hi: usize, key: impl Fn(usize) -> f64) -> usize {
        let r = self.reduce(local_best(self, lo, hi, key), Slot::best);
        // The butterfly gives every lane the same result; the barrier orders the reads
        // of the reduction before the writes that follow it.
        self.sync();
        if r.idx == u32::MAX {
            lo
        } else {
            r.idx as usize
        }
    }
    #[inline(always)]
    fn sum(&self, lo: usize, hi: usize, f: impl Fn(usize) -> f64) -> f64 {
        let r = self.reduce(local_sum(self, lo, hi, f), Slot::plus).key;
        self.sync();
        r
    }
    #[inline(always)]
    fn group(&self) -> usize {
        0
    }
    #[inline(always)]
    fn groups(&self) -> usize {
        1
    }
    #[inline(always)]
    fn lane(&self) -> usize {
        self.rank()
    }
    #[inline(always)]
    fn lanes(&self) -> usize {
        self.lanes as usize
    }
    #[inline(always)]
    fn group_sum<T: Scalar>(&self, v: T) -> T {
        let mut v = v;
        let mut d = self.lanes / 2;
        while d > 0 {
            v = v.add(shfl_xor_masked(v, d, self.mask));
            d /= 2;
        }
        v
    }
}

/// Where this team's matrix and staging area are.
#[derive(Clone, Copy)]
struct Slotting {
    matrix: usize,
    /// Shared-memory byte offset of this team's staged operands.
    at: u32,
}

/// A matrix of the launch: in global memory at `base + matrix * batch`, or its copy
/// in shared memory at byte `at` (leading dimension `cols`) when `stage`.
struct Staged<T> {
    global: Mat<T>,
    work: Mat<T>,
    rows: usize,
    cols: usize,
    stage: bool,
}

impl<T: Scalar> Staged<T> {
    /// # Safety
    /// `base + matrix * batch` holds `rows x cols` with leading dimension `ld`; with
    /// `stage`, shared memory from byte `at` holds `rows * cols` elements.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    unsafe fn new(
        t: &impl Team,
        base: u64,
        ld: u64,
        batch: u64,
        matrix: usize,
        rows: usize,
        cols: usize,
        stage: bool,
        at: u32,
        copy_in: bool,
    ) -> Staged<T> {
        // SAFETY: per the contract.
        let ptr = unsafe { (base as *mut T).add(matrix * batch as usize) };
        let global = Mat {
            ptr,
            ld: ld as usize,
        };
        let work = if stage {
            Mat {
                ptr: smem_generic(at).cast::<T>(),
                ld: cols,
            }
        } else {
            global
        };
        let s = Staged {
            global,
            work,
            rows,
            cols,
            stage,
        };
        if stage && copy_in {
            // SAFETY: inside both matrices.
            each2(t, (0, rows), (0, cols), |i, j| unsafe {
                work.set(i, j, global.get(i, j))
            });
            t.sync();
        }
        s
    }
    /// Copies the shared copy back (after the algorithm's last barrier).
    #[inline(always)]
    fn finish(&self, t: &impl Team) {
        if self.stage {
            let (w, g) = (self.work, self.global);
            // SAFETY: inside both matrices.
            each2(t, (0, self.rows), (0, self.cols), |i, j| unsafe {
                g.set(i, j, w.get(i, j))
            });
        }
    }
}

/// Bytes of `rows x cols` elements, 16-byte aligned, for the next staged matrix.
#[inline(always)]
fn bytes<T>(rows: usize, cols: usize) -> u32 {
    ((rows * cols * core::mem::size_of::<T>()) as u32).next_multiple_of(16)
}

#[inline(always)]
unsafe fn run_getrf<T: Scalar>(p: DenseArgs, t: &impl Team, s: Slotting) {
    let matrix = s.matrix;
    let (m, n, k) = (p.m as usize, p.n as usize, p.k as usize);
    // SAFETY: the host's launch matches DenseArgs' contract for getrf.
    unsafe {
        let a = Staged::<T>::new(
            t,
            p.a,
            p.lda,
            p.a_batch,
            matrix,
            m,
            n,
            p.flags & flag::STAGE_A != 0,
            s.at,
            true,
        );
        let piv = (p.piv as *mut i32).add(matrix * p.piv_batch as usize);
        let swap = (p.swap_left as usize, p.swap_right as usize);
        let info = getrf(t, a.work, m, n, piv, p.piv_base as usize, swap);
        if p.flags & flag::SOLVE != 0 {
            let identity = p.flags & flag::IDENTITY != 0;
            let at = s.at + if a.stage { bytes::<T>(m, n) } else { 0 };
            let b = Staged::<T>::new(
                t,
                p.b,
                p.ldb,
                p.b_batch,
                matrix,
                n,
                k,
                p.flags & flag::STAGE_B != 0,
                at,
                !identity,
            );
            if identity {
                let w = b.work;
                each2(t, (0, n), (0, k), |i, j| {
                    w.set(i, j, if i == j { T::ONE } else { T::ZERO })
                });
                t.sync();
            }
            swap_rows(t, b.work, k, piv, n, true);
            trsm(
                t,
                a.work,
                n,
                b.work,
                k,
                Tri {
                    lower: true,
                    trans: 0,
                    unit: true,
                },
            );
            trsm(
                t,
                a.work,
                n,
                b.work,
                k,
                Tri {
                    lower: false,
                    trans: 0,
                    unit: false,
                },
            );
            b.finish(t);
        }
        a.finish(t);
        if t.rank() == 0 {
            *(p.info as *mut u32).add(matrix) = info;
        }
    }
}

#[inline(always)]
unsafe fn run_trsm<T: Scalar>(p: DenseArgs, t: &impl Team, s: Slotting) {
    let matrix = s.matrix;
    let n = p.n as usize;
    let c0 = block_idx() as usize * p.kc as usize;
    let kc = (p.k as usize).saturating_sub(c0).min(p.kc as usize);
    let how = Tri {
        lower: p.flags & flag::LOWER != 0,
        trans: (p.flags >> flag::TRANS_SHIFT) & 3,
        unit: p.flags & flag::UNIT != 0,
    };
    // SAFETY: the host's launch matches DenseArgs' contract for trsm; this block's
    // columns c0 .. c0 + kc of b are its own.
    unsafe {
        if p.flags & flag::SWAP_ONLY != 0 {
            let b = Mat {
                ptr: (p.b as *mut T).add(matrix * p.b_batch as usize + c0),
                ld: p.ldb as usize,
            };
            let piv = (p.piv as *const i32).add(matrix * p.piv_batch as usize);
            swap_rows(t, b, kc, piv, n, p.flags & flag::PIV_BEFORE != 0);
            return;
        }
        let tm = Staged::<T>::new(
            t,
            p.a,
            p.lda,
            p.a_batch,
            matrix,
            n,
            n,
            p.flags & flag::STAGE_A != 0,
            s.at,
            true,
        );
        let at = s.at + if tm.stage { bytes::<T>(n, n) } else { 0 };
        let b = Staged::<T>::new(
            t,
            p.b + (c0 * core::mem::size_of::<T>()) as u64,
            p.ldb,
            p.b_batch,
            matrix,
            n,
            kc,
            p.flags & flag::STAGE_B != 0,
            at,
            true,
        );
        let piv = (p.piv as *const i32).wrapping_add(matrix * p.piv_batch as usize);
        if p.flags & flag::PIV_BEFORE != 0 {
            swap_rows(t, b.work, kc, piv, n, true);
        }
        trsm(t, tm.work, n, b.work, kc, how);
        if p.flags & flag::PIV_AFTER != 0 {
            swap_rows(t, b.work, kc, piv, n, false);
        }
        b.finish(t);
    }
}

#[inline(always)]
unsafe fn run_potrf<T: Scalar>(p: DenseArgs, t: &impl Team, s: Slotting) {
    let n = p.n as usize;
    // SAFETY: the host's launch matches DenseArgs' contract for potrf.
    unsafe {
        let a = Staged::<T>::new(
            t,
            p.a,
            p.lda,
            p.a_batch,
            s.matrix,
            n,
            n,
            p.flags & flag::STAGE_A != 0,
            s.at,
            true,
        );
        let info = potrf(t, a.work, n);
        t.sync();
        a.finish(t);
        if t.rank() == 0 {
            *(p.info as *mut u32).add(s.matrix) = info;
        }
    }
}

#[inline(always)]
unsafe fn run_geqrf<T: Scalar>(p: DenseArgs, t: &impl Team, s: Slotting) {
    let matrix = s.matrix;
    let (m, n) = (p.m as usize, p.n as usize);
    let k = m.min(n);
    // SAFETY: the host's launch matches DenseArgs' contract for geqrf.
    unsafe {
        let a = Staged::<T>::new(
            t,
            p.a,
            p.lda,
            p.a_batch,
            matrix,
            m,
            n,
            p.flags & flag::STAGE_A != 0,
            s.at,
            true,
        );
        let tau = (p.tau as *mut T).add(matrix * p.tau_batch as usize);
        geqrf(t, a.work, m, n, tau);
        if p.b != 0 {
            // The explicit V (m x k): unit diagonal, zeros above, for the blocked
            // algorithm's products.
            let v = Mat {
                ptr: (p.b as *mut T).add(matrix * p.b_batch as usize),
                ld: p.ldb as usize,
            };
            let w = a.work;
            each2(t, (0, m), (0, k), |i, j| {
                v.set(
                    i,
                    j,
                    if i == j {
                        T::ONE
                    } else if i > j {
                        w.get(i, j)
                    } else {
                        T::ZERO
                    },
                )
            });
        }
        a.finish(t);
    }
}

#[inline(always)]
unsafe fn run_orgqr<T: Scalar>(p: DenseArgs, t: &impl Team, s: Slotting) {
    let matrix = s.matrix;
    let (m, k, ncols) = (p.m as usize, p.k as usize, p.kc as usize);
    // SAFETY: the host's launch matches DenseArgs' contract for orgqr.
    unsafe {
        let h = Staged::<T>::new(
            t,
            p.a,
            p.lda,
            p.a_batch,
            matrix,
            m,
            k,
            p.flags & flag::STAGE_A != 0,
            s.at,
            true,
        );
        let at = s.at + if h.stage { bytes::<T>(m, k) } else { 0 };
        let q = Staged::<T>::new(
            t,
            p.b,
            p.ldb,
            p.b_batch,
            matrix,
            m,
            ncols,
            p.flags & flag::STAGE_B != 0,
            at,
            false,
        );
        let tau = (p.tau as *const T).add(matrix * p.tau_batch as usize);
        orgqr(t, h.work, m, k, tau, q.work, ncols);
        q.finish(t);
    }
}

/// The unit roundoff and the smallest normal number of `T`'s precision.
#[inline(always)]
fn precision<T>() -> (f64, f64) {
    if core::mem::size_of::<T>() == 8 {
        (f32::EPSILON as f64, f32::MIN_POSITIVE as f64)
    } else {
        (f64::EPSILON, f64::MIN_POSITIVE)
    }
}

#[inline(always)]
unsafe fn run_geev<T: Scalar>(p: DenseArgs, t: &impl Team, s: Slotting) {
    let n = p.n as usize;
    let (eps, tiny) = precision::<T>();
    // SAFETY: the host's launch matches DenseArgs' contract for geev: `a` and `b` (Z)
    // hold n x n each, staged one after the other.
    unsafe {
        let a = Staged::<T>::new(
            t,
            p.a,
            p.lda,
            p.a_batch,
            s.matrix,
            n,
            n,
            p.flags & flag::STAGE_A != 0,
            s.at,
            true,
        );
        let at = s.at + if a.stage { bytes::<T>(n, n) } else { 0 };
        let z = Staged::<T>::new(
            t,
            p.b,
            p.ldb,
            p.b_batch,
            s.matrix,
            n,
            n,
            p.flags & flag::STAGE_B != 0,
            at,
            false,
        );
        gehrd(t, a.work, n, z.work);
        let info = hqr(t, a.work, n, z.work, eps);
        if info == 0 && p.flags & flag::VECTORS != 0 {
            trevc(t, a.work, n, eps, tiny);
        }
        t.sync();
        a.finish(t);
        z.finish(t);
        if t.rank() == 0 {
            *(p.info as *mut u32).add(s.matrix) = info;
        }
    }
}

/// Runs `$run` with the team the flags ask for: the block (matrix `first +
/// blockIdx.y`), or segments of lanes (matrix `first + blockIdx.y * segments +
/// segment`, staged at `segment * seg_bytes`; segments past `count` return at once).
macro_rules! with_team {
    ($run:ident, $t:ty, $p:expr) => {{
        let p: DenseArgs = $p;
        let seg = (p.flags & flag::SEGMENT_MASK) >> flag::SEGMENT_SHIFT;
        if seg == 0 {
            let s = Slotting {
                matrix: (p.first + block_idx_y()) as usize,
                at: SCRATCH_BYTES,
            };
            // SAFETY: the host launches per DenseArgs' contract.
            unsafe { $run::<$t>(p, &Block, s) }
        } else {
            let lanes = 1u32 << (seg - 1);
            let segment = thread_idx() / lanes;
            let per_block = block_dim() / lanes;
            let index = block_idx_y() * per_block + segment;
            if index < p.count {
                let s = Slotting {
                    matrix: (p.first + index) as usize,
                    at: segment * p.seg_bytes,
                };
                // SAFETY: as above; this segment's matrix is inside the batch.
                unsafe { $run::<$t>(p, &Segment::new(lanes), s) }
            }
        }
    }};
}

macro_rules! dense_entries {
    ([$op:literal $run:ident] $(($name:literal, $t:ty))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_linalg_", $op, "_", $name))]
            unsafe extern "ptx-kernel" fn k(p: DenseArgs) {
                // The host launches per DenseArgs' contract (host/src/ops/linalg/dense.rs).
                with_team!($run, $t, p)
            }
        };
    )* };
}
crate::for_each_dense_type!(dense_entries, "getrf", run_getrf);
crate::for_each_dense_type!(dense_entries, "trsm", run_trsm);
crate::for_each_dense_type!(dense_entries, "potrf", run_potrf);
crate::for_each_dense_type!(dense_entries, "geqrf", run_geqrf);
crate::for_each_dense_type!(dense_entries, "orgqr", run_orgqr);
dense_entries!(["geev" run_geev] ("complex64", c64) ("complex128", c128));
