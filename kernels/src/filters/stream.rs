//! Dense 2-d correlation with small square kernels by warps that stream down the image:
//! the engine for the filters whose time is all memory traffic. The schedule below
//! holds for any `K`; the GPU has kernels for [`STREAM_SIZES`] (3x3: at 5x5 and 7x7 the
//! window and weights outgrow the registers and the tiled engine of `stencil.rs` is
//! already compute-bound).
//!
//! A warp owns a strip of 32 output columns and a run of `rows` output rows of one image.
//! Lane `l` reads input column `strip * 32 + l - cx` of every input row the run needs,
//! once, and the first `K - 1` lanes also the columns just right of the strip (the
//! halo); the `K` values of a row that output column `l`'s taps need come from lanes
//! `l .. l + K` through warp shuffles ([`tap_source`]). The last `K` rows' values stay
//! in registers, so each input element is read from memory about once (plus `K - 1` rows
//! per run and the halo columns), each output written once, and nothing is staged in
//! shared memory. Coordinates past an edge are mapped by the boundary mode as the rows
//! and columns are read (`map_coord32`), or read as `cval`.
//!
//! Output `(i, j)` is `sum_{a, b} w[a][b] * x[i + a - cy][j + b - cx]`, the taps
//! accumulated row by row (`a` outer, `b` inner), each with one fused multiply-add.
//! [`Stream2d::engine`] runs exactly this schedule on the CPU for `cargo test`.

use super::boundary::{Mode, map_coord32};

/// The kernel sizes with a streaming GPU kernel (square kernels of `K x K`).
pub const STREAM_SIZES: [u32; 1] = [3];
/// Warps per block of the streaming kernels.
pub const STREAM_WARPS: u32 = 8;
/// Threads per block.
pub const STREAM_BLOCK: u32 = STREAM_WARPS * 32;
/// Most output rows a warp streams (fewer for small images, so the grid fills the GPU).
pub const STREAM_MAX_ROWS: u32 = 64;

/// The launch of a streaming correlation with a `K x K` kernel: images of `h x w`,
/// `batch` of them; weight `(a, b)` at element offset `a * ws0 + b * ws1` of the
/// weights' pointer (any view); output `(i, j)` reads input `(i + a - cy, j + b - cx)`.
/// Warp task `t` (the warps of the grid in order) is strip `t % strips`, run
/// `(t / strips) % runs` of `rows` rows, image `t / (strips * runs)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stream2d {
    pub batch: u32,
    pub h: u32,
    pub w: u32,
    pub cy: i32,
    pub cx: i32,
    pub mode: u32,
    pub strips: u32,
    pub runs: u32,
    pub rows: u32,
    pub ws0: i32,
    pub ws1: i32,
    pub _pad: u32,
    pub cval: f64,
}

impl Stream2d {
    /// The plan for `batch` images of `h x w` on a GPU of `sms` multiprocessors: runs of
    /// `STREAM_MAX_ROWS` rows, or fewer when that would leave fewer than about 48 warps
    /// per multiprocessor (a 1024^2 image: runs of 8). `None` when a side reaches 2^29
    /// or the warps overflow 32 bits.
    pub fn plan(batch: u32, h: u32, w: u32, sms: u32) -> Option<Stream2d> {
        if h >= 1 << 29 || w >= 1 << 29 || h == 0 || w == 0 || batch == 0 {
            return None;
        }
        let strips = w.div_ceil(32);
        let want = u64::from(sms.max(1)) * 48;
        let per_row = u64::from(strips) * u64::from(batch);
        let mut rows = STREAM_MAX_ROWS;
        while rows > 8 && per_row * u64::from(h.div_ceil(rows)) < want {
            rows /= 2;
        }
        let runs = h.div_ceil(rows);
        let warps = per_row * u64::from(runs);
        (warps.div_ceil(u64::from(STREAM_WARPS)) < i32::MAX as u64).then_some(Stream2d {
            batch,
            h,
            w,
            cy: 0,
            cx: 0,
            mode: 0,
            strips,
            runs,
            rows,
            ws0: 0,
            ws1: 0,
            _pad: 0,
            cval: 0.0,
        })
    }

    /// Warp tasks of the launch.
    pub fn tasks(&self) -> u64 {
        u64::from(self.strips) * u64::from(self.runs) * u64::from(self.batch)
    }

    /// Warp task `t`: (strip, first output row, end of its rows, image).
    #[inline(always)]
    pub fn task(&self, t: u32) -> (u32, u32, u32, u32) {
        warp_task(t, self.strips, self.runs, self.rows, self.h)
    }

    /// The input columns lane `lane` of strip `strip` reads for a kernel `k` wide:
    /// its own (`strip * 32 + lane - cx`) and, for the first `k - 1` lanes, the halo's
    /// (`strip * 32 + 32 + lane - cx`), mapped into the image (`None`: `cval`, also for
    /// lanes without a halo column).
    #[inline(always)]
    pub fn lane_columns(&self, strip: u32, lane: u32, k: u32) -> (Option<i32>, Option<i32>) {
        let mode = Mode::from_code(self.mode);
        let base = (strip * 32) as i32 - self.cx + lane as i32;
        let own = map_coord32(base, self.w as i32, mode);
        let halo = if lane + 1 < k {
            map_coord32(base + 32, self.w as i32, mode)
        } else {
            None
        };
        (own, halo)
    }

    /// Input row `y` (unmapped) mapped into the image, `None` for a row of `cval`.
    #[inline(always)]
    pub fn row(&self, y: i32) -> Option<i32> {
        map_coord32(y, self.h as i32, Mode::from_code(self.mode))
    }

    /// The whole schedule on the CPU, warp by warp and lane by lane as the GPU runs it;
    /// `fma(w, x, acc)` is the compute type's fused multiply-add; weight (0, 0) is
    /// `wts[w0]`, the others at the plan's strides from it.
    #[cfg(test)]
    pub fn engine(
        &self,
        k: u32,
        x: &[f64],
        (wts, w0): (&[f64], usize),
        fma: impl Fn(f64, f64, f64) -> f64,
    ) -> std::vec::Vec<f64> {
        let (h, w) = (self.h as usize, self.w as usize);
        let img = h * w;
        let mut out = std::vec![f64::NAN; self.batch as usize * img];
        let weight = |a: u32, b: u32| {
            wts[(w0 as i64 + a as i64 * self.ws0 as i64 + b as i64 * self.ws1 as i64) as usize]
        };
        for t in 0..self.tasks() as u32 {
            let (strip, r0, r1, z) = self.task(t);
            let cols: std::vec::Vec<_> = (0..32).map(|l| self.lane_columns(strip, l, k)).collect();
            // The (own, halo) values every lane reads from input row y.
            let read = |y: i32| -> std::vec::Vec<(f64, f64)> {
                let value = |c: Option<i32>| match (self.row(y), c) {
                    (Some(r), Some(c)) => x[z as usize * img + r as usize * w + c as usize],
                    _ => self.cval,
                };
                cols.iter().map(|&(o, e)| (value(o), value(e))).collect()
            };
            for i in r0..r1 {
                for lane in 0..32u32 {
                    let mut acc = 0.0;
                    for a in 0..k {
                        let row = read(i as i32 - self.cy + a as i32);
                        for b in 0..k {
                            let (halo, src) = tap_source(lane, b);
                            let v = if halo {
                                row[src as usize].1
                            } else {
                                row[src as usize].0
                            };
                            acc = fma(weight(a, b), v, acc);
                        }
                    }
                    let j = (strip * 32 + lane) as usize;
                    if j < w {
                        out[z as usize * img + i as usize * w + j] = acc;
                    }
                }
            }
        }
        out
    }
}

/// Warp task `t` of a streaming launch of `strips` strips to an image row, `runs` runs
/// of `rows` rows to an image of `h` rows: (strip, first output row, end of its rows,
/// image).
#[inline(always)]
pub fn warp_task(t: u32, strips: u32, runs: u32, rows: u32, h: u32) -> (u32, u32, u32, u32) {
    let strip = t % strips;
    let rest = t / strips;
    let (run, z) = (rest % runs, rest / runs);
    let r0 = run * rows;
    let r1 = if h - r0 < rows { h } else { r0 + rows };
    (strip, r0, r1, z)
}

/// Where lane `lane` finds the value of tap column `b` of a row: (from the halo
/// values, the lane holding it): lane `lane + b`'s own column, or past the strip's
/// right edge lane `lane + b - 32`'s halo column.
#[inline(always)]
pub fn tap_source(lane: u32, b: u32) -> (bool, u32) {
    let s = lane + b;
    if s < 32 { (false, s) } else { (true, s - 32) }
}

/// Deterministic small integers in -9..=9 from `seed`, the test images and weights of
/// the 2-d engines: every sum of their products is exact in float64, in any order.
#[cfg(test)]
pub(crate) fn small_integers(mut seed: u64) -> impl FnMut() -> f64 {
    move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) % 19) as f64 - 9.0
    }
}

/// The direct sum of `p`'s correlation with a `k x k` kernel (weight (0, 0) at
/// `wts[w0]`, the others at the plan's strides), taps in C order, each fused: what the
/// streaming engines' CPU schedules must reproduce.
#[cfg(test)]
pub(crate) fn direct(
    p: &Stream2d,
    k: u32,
    x: &[f64],
    wts: &[f64],
    w0: usize,
) -> std::vec::Vec<f64> {
    use super::boundary::map_coord;
    let (h, w) = (p.h as i64, p.w as i64);
    let mode = Mode::from_code(p.mode);
    let mut out = std::vec::Vec::new();
    for z in 0..p.batch as i64 {
        for i in 0..h {
            for j in 0..w {
                let mut acc = 0.0;
                for a in 0..k as i64 {
                    for b in 0..k as i64 {
                        let wv = wts[(w0 as i64 + a * p.ws0 as i64 + b * p.ws1 as i64) as usize];
                        let (y, c) = (i + a - p.cy as i64, j + b - p.cx as i64);
                        let v = match (map_coord(y, h, mode), map_coord(c, w, mode)) {
                            (Some(y), Some(c)) => x[(z * h * w + y * w + c) as usize],
                            _ => p.cval,
                        };
                        acc = f64::mul_add(wv, v, acc);
                    }
                }
                out.push(acc);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_warps_give_the_direct_sum() {
        let mut next = small_integers(5);
        for (batch, h, w) in [
            (1u32, 1u32, 1u32),
            (2, 7, 45),
            (1, 70, 33),
            (1, 9, 64),
            (3, 130, 5),
        ] {
            let x: std::vec::Vec<f64> = (0..batch * h * w).map(|_| next()).collect();
            for k in [3, 5, 7] {
                let wts: std::vec::Vec<f64> = (0..k * k).map(|_| next()).collect();
                for mode in 0..5 {
                    for (cy, cx) in [(k as i32 / 2, k as i32 / 2), (0, k as i32 - 1), (-2, 3)] {
                        // C order, and the reversed view (a convolution's flipped kernel).
                        for (w0, ws0, ws1) in
                            [(0, k as i32, 1), ((k * k - 1) as usize, -(k as i32), -1)]
                        {
                            for sms in [1, 132] {
                                let mut p = Stream2d::plan(batch, h, w, sms).unwrap();
                                (p.cy, p.cx, p.mode, p.ws0, p.ws1, p.cval) =
                                    (cy, cx, mode, ws0, ws1, 2.5);
                                // Small integers: every sum is exact in any order.
                                assert_eq!(
                                    p.engine(k, &x, (&wts, w0), f64::mul_add),
                                    direct(&p, k, &x, &wts, w0),
                                    "{batch}x{h}x{w} k {k} mode {mode} origin ({cy}, {cx}) rows {}",
                                    p.rows
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn runs_shrink_to_fill_the_gpu() {
        let big = Stream2d::plan(1, 4096, 4096, 132).unwrap();
        assert_eq!((big.rows, big.strips, big.runs), (64, 128, 64));
        let guide = Stream2d::plan(1, 1024, 1024, 132).unwrap();
        assert_eq!((guide.rows, guide.runs), (8, 128));
        assert!(Stream2d::plan(1, 1 << 29, 4, 132).is_none());
        assert_eq!(tap_source(30, 1), (false, 31));
        assert_eq!(tap_source(30, 2), (true, 0));
        assert_eq!(tap_source(31, 6), (true, 5));
    }
}
