//! Dense 2-d correlation with small square kernels centred along the rows, by warps that
//! stream down the image reading one 16-byte vector per lane and row: the engine for
//! large images, whose time is all memory traffic.
//!
//! Lane `l` of a warp holds `v` consecutive columns of a row (`v = 16 / itemsize`: 4 of
//! float32, 2 of float64), so a warp reads `32 v` columns with one vector load per lane
//! and row, where [`super::stream`]'s warps take one column per lane and a separate load
//! for the halo. The `k - 1` values of the row that a lane's outputs need beyond its own
//! vector come from its neighbours by warp shuffles ([`VStream2d::source`]); the `halo`
//! lanes at each end of the warp only supply such values, so a warp's strips overlap by
//! `2 halo` vectors and its `32 - 2 halo` middle lanes write `v` outputs each (94% of
//! the lanes for a 3x3 kernel). Measured on an H200 over a 4096^2 float32 image with a
//! 3x3 kernel, the column-per-lane warps spent about as long issuing instructions as
//! moving bytes; a vector per lane cuts the instructions per output about threefold.
//!
//! A warp walks a run of `rows` output rows, reading the run's input rows in order, each
//! once (plus `k - 1` rows per run); input row `q` adds its taps to the `k` partial sums
//! of the outputs it belongs to, and the oldest of them is complete and stored. Output
//! `(i, j)` is `sum_{a, b} w[a][b] * x[i + a - cy][j + b - k / 2]`, the taps accumulated
//! row by row (`a` outer, `b` inner), one fused multiply-add each; coordinates past an
//! edge are mapped by the boundary mode as they are read (`map_coord32`) or read as
//! `cval`. The image width must be a multiple of `v` (every vector lies in one row and
//! is 16-byte aligned when the image is). [`VStream2d::engine`] runs this schedule on the
//! CPU for `cargo test`.

use super::boundary::{Mode, map_coord32};

/// The kernel sizes with a vector-streaming GPU kernel (square, `k x k`).
pub const VSTREAM_SIZES: [u32; 3] = [3, 5, 7];
/// Warps per block.
pub const VSTREAM_WARPS: u32 = 4;
/// Threads per block.
pub const VSTREAM_BLOCK: u32 = VSTREAM_WARPS * 32;
/// Fewest and most output rows a warp streams (a run).
pub const VSTREAM_MIN_ROWS: u32 = 16;
pub const VSTREAM_MAX_ROWS: u32 = 128;
/// Bytes of a lane's vector.
pub const VECTOR_BYTES: u32 = 16;

/// The launch of a vector-streaming correlation: `batch` images of `h x w`, a `k x k`
/// kernel (weight `(a, b)` at element offset `a * ws0 + b * ws1` of the weights'
/// pointer: any view), output `(i, j)` reading input `(i + a - cy, j + b - k / 2)`, `v`
/// columns per lane. Warp task `t` is strip `t % strips`, run `(t / strips) % runs` of
/// `rows` rows, image `t / (strips * runs)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VStream2d {
    pub batch: u32,
    pub h: u32,
    pub w: u32,
    pub k: u32,
    pub v: u32,
    pub cy: i32,
    pub mode: u32,
    pub strips: u32,
    pub runs: u32,
    pub rows: u32,
    pub ws0: i32,
    pub ws1: i32,
    pub cval: f64,
}

impl VStream2d {
    /// The plan for `batch` images of `h x w`, a `k x k` kernel and `v` columns per lane,
    /// on a GPU that holds `resident` of the kernel's warps at once. `None` when `w` is
    /// not a multiple of `v`, `k` is even or above 7, a side reaches 2^29, or the warps
    /// overflow 32 bits.
    ///
    /// The run length: warps stream at about the same pace however many share the GPU
    /// (they wait on memory latency more than on bandwidth), so a launch takes about
    /// `waves * (rows + k - 1)` row steps, `waves` the resident warps' turns over the
    /// tasks. Longer runs re-read fewer rows (`k - 1` a run) but leave fewer tasks to
    /// fill the last turn. Measured on an H200 (4096^2 float32 5x5, 16 warps per SM):
    /// runs of 32 rows (3 turns, the last a tenth full) 59.9 us, 64 rows (2 turns, the
    /// last 6% full) 68.4 us, 96 rows (1 turn) 57.0 us.
    pub fn plan(batch: u32, h: u32, w: u32, k: u32, v: u32, resident: u64) -> Option<VStream2d> {
        let shape_ok = h > 0 && w > 0 && batch > 0 && h < 1 << 29 && w < 1 << 29;
        if !shape_ok || !(v == 2 || v == 4) || !w.is_multiple_of(v) || k.is_multiple_of(2) || k > 7
        {
            return None;
        }
        let mut p = VStream2d {
            batch,
            h,
            w,
            k,
            v,
            cy: 0,
            mode: 0,
            strips: 0,
            runs: 0,
            rows: 0,
            ws0: 0,
            ws1: 0,
            cval: 0.0,
        };
        p.strips = w.div_ceil(p.span());
        let per_run = u64::from(p.strips) * u64::from(batch);
        let cost = |rows: u32| {
            let waves = (per_run * u64::from(h.div_ceil(rows))).div_ceil(resident.max(1));
            waves * u64::from(rows + k - 1)
        };
        // The cheapest run length, the shortest of equals (no longer than the image).
        p.rows = (VSTREAM_MIN_ROWS..=VSTREAM_MAX_ROWS.min(h.max(VSTREAM_MIN_ROWS)))
            .min_by_key(|&r| (cost(r), r))
            .unwrap_or(VSTREAM_MIN_ROWS);
        p.runs = h.div_ceil(p.rows);
        (p.tasks().div_ceil(u64::from(VSTREAM_WARPS)) < i32::MAX as u64).then_some(p)
    }

    /// Lanes at each end of a warp that only supply values to their neighbours.
    #[inline(always)]
    pub fn halo(&self) -> u32 {
        (self.k / 2).div_ceil(self.v)
    }

    /// Output columns of a strip: `v` of each middle lane.
    #[inline(always)]
    pub fn span(&self) -> u32 {
        (32 - 2 * self.halo()) * self.v
    }

    /// Warp tasks of the launch.
    pub fn tasks(&self) -> u64 {
        u64::from(self.strips) * u64::from(self.runs) * u64::from(self.batch)
    }

    /// Warp task `t`: (strip, first output row, end of its rows, image).
    #[inline(always)]
    pub fn task(&self, t: u32) -> (u32, u32, u32, u32) {
        super::stream::warp_task(t, self.strips, self.runs, self.rows, self.h)
    }

    /// The first column of lane `lane`'s vector in strip `strip` (before the image for
    /// the left halo lanes of strip 0).
    #[inline(always)]
    pub fn first_column(&self, strip: u32, lane: u32) -> i32 {
        (strip * self.span()) as i32 + (lane as i32 - self.halo() as i32) * self.v as i32
    }

    /// Whether lane `lane` writes outputs (the middle lanes; those past the image's last
    /// column do not store).
    #[inline(always)]
    pub fn writes(&self, lane: u32) -> bool {
        let halo = self.halo();
        lane >= halo && lane < 32 - halo
    }

    /// Where a lane finds the input value `d` columns right of its vector's first column
    /// (`-k / 2 <= d < v + k / 2`): [`lane_source`] of the plan's `v`.
    #[inline(always)]
    pub fn source(&self, d: i32) -> (i32, usize) {
        lane_source(d, self.v)
    }

    /// Input row `y` (unmapped) mapped into the image, `None` for a row of `cval`.
    #[inline(always)]
    pub fn row(&self, y: i32) -> Option<i32> {
        map_coord32(y, self.h as i32, Mode::from_code(self.mode))
    }

    /// The whole schedule on the CPU, warp by warp and lane by lane as the GPU runs it
    /// (a shuffle from a lane outside the warp reads NaN, which must never reach an
    /// output); `fma(w, x, acc)` is the compute type's fused multiply-add; weight (0, 0)
    /// is `wts[w0]`, the others at the plan's strides from it.
    #[cfg(test)]
    pub fn engine(
        &self,
        x: &[f64],
        (wts, w0): (&[f64], usize),
        fma: impl Fn(f64, f64, f64) -> f64,
    ) -> std::vec::Vec<f64> {
        let (h, w, k, v) = (
            self.h as usize,
            self.w as usize,
            self.k as usize,
            self.v as usize,
        );
        let img = h * w;
        let mode = Mode::from_code(self.mode);
        let mut out = std::vec![f64::NAN; self.batch as usize * img];
        let weight = |a: usize, b: usize| {
            wts[(w0 as i64 + a as i64 * self.ws0 as i64 + b as i64 * self.ws1 as i64) as usize]
        };
        for t in 0..self.tasks() as u32 {
            let (strip, r0, r1, z) = self.task(t);
            let rows_in = (r1 - r0) as usize + k - 1;
            // acc[lane][i][e]: partial sum i (weight row k - 1 - i) of element e.
            let mut acc = std::vec![std::vec![std::vec![0.0; v]; k]; 32];
            for q in 0..rows_in {
                let y = r0 as i32 - self.cy + q as i32;
                // Every lane's vector of input row y.
                let vectors: std::vec::Vec<std::vec::Vec<f64>> = (0..32)
                    .map(|lane| {
                        let c0 = self.first_column(strip, lane);
                        (0..v)
                            .map(|e| {
                                match (self.row(y), map_coord32(c0 + e as i32, w as i32, mode)) {
                                    (Some(r), Some(c)) => {
                                        x[z as usize * img + r as usize * w + c as usize]
                                    }
                                    _ => self.cval,
                                }
                            })
                            .collect()
                    })
                    .collect();
                for (lane, a) in acc.iter_mut().enumerate() {
                    // The lane's window: input columns c0 - k / 2 .. c0 + v + k / 2.
                    let win: std::vec::Vec<f64> = (0..v + k - 1)
                        .map(|idx| {
                            let (off, e) = self.source(idx as i32 - (k / 2) as i32);
                            let src = lane as i32 + off;
                            if (0..32).contains(&src) {
                                vectors[src as usize][e]
                            } else {
                                f64::NAN
                            }
                        })
                        .collect();
                    for (i, sums) in a.iter_mut().enumerate() {
                        for (e, s) in sums.iter_mut().enumerate() {
                            for b in 0..k {
                                *s = fma(weight(k - 1 - i, b), win[e + b], *s);
                            }
                        }
                    }
                    let c0 = self.first_column(strip, lane as u32);
                    if q + 1 >= k && self.writes(lane as u32) && (c0 as usize) < w {
                        let i = r0 as usize + q + 1 - k;
                        for (e, s) in a[0].iter().enumerate() {
                            out[z as usize * img + i * w + c0 as usize + e] = *s;
                        }
                    }
                    a.rotate_left(1);
                    a[k - 1] = std::vec![0.0; v];
                }
            }
        }
        out
    }
}

/// Where a lane of vectors `v` wide finds the input value `d` columns right of its
/// vector's first column: (lane offset, element of that lane's vector). The kernels call
/// it with `v` a constant, so it folds away.
#[inline(always)]
pub fn lane_source(d: i32, v: u32) -> (i32, usize) {
    let v = v as i32;
    (d.div_euclid(v), d.rem_euclid(v) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::stream::Stream2d;

    /// The direct sum (`stream::direct`, the same geometry with `cx = k / 2`).
    fn direct(p: &VStream2d, x: &[f64], wts: &[f64], w0: usize) -> std::vec::Vec<f64> {
        let geo = Stream2d {
            batch: p.batch,
            h: p.h,
            w: p.w,
            cy: p.cy,
            cx: (p.k / 2) as i32,
            mode: p.mode,
            strips: 0,
            runs: 0,
            rows: 0,
            ws0: p.ws0,
            ws1: p.ws1,
            _pad: 0,
            cval: p.cval,
        };
        super::super::stream::direct(&geo, p.k, x, wts, w0)
    }

    #[test]
    fn vector_warps_give_the_direct_sum() {
        let mut next = crate::filters::stream::small_integers(7);
        for v in [2u32, 4] {
            for (batch, h, w) in [
                (1u32, 1u32, v),
                (2, 7, 3 * v),
                (1, 70, 35 * v),
                (1, 9, 64 * v),
                (3, 130, 2 * v),
            ] {
                let x: std::vec::Vec<f64> = (0..batch * h * w).map(|_| next()).collect();
                for k in [3u32, 5, 7] {
                    let wts: std::vec::Vec<f64> = (0..k * k).map(|_| next()).collect();
                    for mode in 0..5 {
                        for cy in [k as i32 / 2, 0, k as i32 - 1, -2] {
                            // C order, and the reversed view (a convolution's kernel).
                            for (w0, ws0, ws1) in
                                [(0, k as i32, 1), ((k * k - 1) as usize, -(k as i32), -1)]
                            {
                                for resident in [1, 2112] {
                                    let mut p =
                                        VStream2d::plan(batch, h, w, k, v, resident).unwrap();
                                    (p.cy, p.mode, p.ws0, p.ws1, p.cval) =
                                        (cy, mode, ws0, ws1, 2.5);
                                    // Small integers: every sum is exact in any order.
                                    assert_eq!(
                                        p.engine(&x, (&wts, w0), f64::mul_add),
                                        direct(&p, &x, &wts, w0),
                                        "{batch}x{h}x{w} v {v} k {k} mode {mode} cy {cy} rows {}",
                                        p.rows
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn plans_cover_the_image_and_refuse_what_the_kernels_cannot_take() {
        // 132 SMs of 16 warps.
        let big = VStream2d::plan(1, 4096, 4096, 5, 4, 2112).unwrap();
        // One halo lane each side (its 4 columns hold the 2 a side needs): 30 lanes.
        assert_eq!((big.halo(), big.span(), big.strips), (1, 120, 35));
        // One turn of 35 * 60 = 2100 warps: the cheapest.
        assert_eq!((big.rows, big.runs), (69, 60));
        let wide = VStream2d::plan(1, 64, 4096, 7, 2, 2112).unwrap();
        // float64, 7x7: two halo lanes each side.
        assert_eq!((wide.halo(), wide.span()), (2, 56));
        assert_eq!(wide.first_column(0, 0), -4);
        assert!(wide.writes(2) && !wide.writes(1) && !wide.writes(30));
        assert_eq!(wide.source(-3), (-2, 1));
        assert_eq!(wide.source(5), (2, 1));
        assert!(VStream2d::plan(1, 64, 4098, 3, 4, 2112).is_none());
        assert!(VStream2d::plan(1, 64, 64, 4, 4, 2112).is_none());
        assert!(VStream2d::plan(1, 64, 64, 9, 4, 2112).is_none());
        assert!(VStream2d::plan(1, 1 << 29, 64, 3, 4, 2112).is_none());
    }
}
