//! Dense 2-d correlation by tiles: the engine for image filters whose every kernel
//! element is a tap (`signal.convolve2d`/`correlate2d`, `ndimage.correlate`/`convolve`
//! of 2-d arrays with 2-d weights).
//!
//! Output `(i, j)` of each image of a C-contiguous `(batch, h, w)` array is
//! `sum_{a, b} w[a][b] * x[i + a - cy][j + b - cx]`, coordinates outside the image mapped
//! by the boundary mode ([`map_coord`]) or read as `cval`. A block computes a tile of
//! [`TILE_W`] x [`TILE_H`] outputs: it stages the input tile with its halo
//! (`TILE_H + kh - 1` rows of `TILE_W + kw - 1`) and the weights in shared memory, the
//! boundary applied while loading (no padded copy of the input), then each thread sums
//! [`ROWS`] outputs of one column: for each kernel column `b` it slides a window of
//! `ROWS` input values down the kernel's rows, one shared-memory load per `ROWS`
//! multiply-adds. Taps accumulate column by column (`b` outer, `a` inner), each with one
//! fused multiply-add: a different order than SciPy's but the same error bound.
//!
//! [`Tiles::engine`] runs exactly this schedule on the CPU (`cargo test` checks it
//! against the direct sum), and the GPU kernel (`gpu.rs`) is the same loops with the
//! block's threads.

#[cfg(test)]
use super::boundary::map_coord;
use super::boundary::{Mode, map_coord32};

/// Outputs per tile along a row: one warp's lanes, one column each.
pub const TILE_W: u32 = 32;
/// Threads per block along the columns.
pub const THREADS_Y: u32 = 8;
/// Outputs each thread sums, consecutive rows of its column.
pub const ROWS: u32 = 8;
/// Outputs per tile along a column.
pub const TILE_H: u32 = THREADS_Y * ROWS;
/// Threads per block.
pub const STENCIL_BLOCK: u32 = TILE_W * THREADS_Y;

/// The launch of a dense 2-d correlation: images of `h x w`, `batch` of them, weights
/// of `kh x kw` (weight `(a, b)` at element offset `a * ws0 + b * ws1` from the weights'
/// pointer: any view, reversed ones too), output `(i, j)` reading input
/// `(i + a - cy, j + b - cx)`; blocks walk the tiles `tiles_x` to a row, `tiles_y` to an
/// image, images after each other.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stencil2d {
    pub batch: u32,
    pub h: u32,
    pub w: u32,
    pub kh: u32,
    pub kw: u32,
    pub cy: i32,
    pub cx: i32,
    pub mode: u32,
    pub tiles_x: u32,
    pub tiles_y: u32,
    pub ws0: i32,
    pub ws1: i32,
    pub cval: f64,
}

/// Most taps of a tiled order filter (the register selection networks' largest tier).
pub const ORDER_TAPS: usize = 49;

/// The launch of a tiled 2-d order filter: `geo` as for a correlation (`kh x kw` the
/// footprint's bounding box, `cy, cx` its origin; no weights), `ntaps` taps at tile
/// offsets `offs[t] = row * cols + col` within the box (`cols` of `Tiles::of(kh, kw)`),
/// and `select`: the rank (rank kernels) or 0 minimum / 1 maximum (extreme kernels).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrderTile {
    pub geo: Stencil2d,
    pub ntaps: u32,
    pub select: u32,
    pub offs: [u32; ORDER_TAPS],
    pub _pad: u32,
}

/// The geometry of a tile's shared memory for a kernel of `kh x kw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiles {
    /// Staged input rows and columns (`TILE_H + kh - 1`, `TILE_W + kw - 1`).
    pub rows: u32,
    pub cols: u32,
    /// Elements of shared memory: the input tile, then the weights.
    pub elements: u32,
}

impl Tiles {
    pub const fn of(kh: u32, kw: u32) -> Tiles {
        let (rows, cols) = (TILE_H + kh - 1, TILE_W + kw - 1);
        Tiles {
            rows,
            cols,
            elements: rows * cols + kh * kw,
        }
    }

    /// Shared-memory elements of a tiled order filter: the tile alone (its tap offsets
    /// follow as `ORDER_TAPS` words).
    pub const fn order_elements(&self) -> u32 {
        self.rows * self.cols
    }

    /// Whether tile `(tx, ty)` of `a`'s images needs no boundary mapping: its staged
    /// input lies inside the image.
    #[inline(always)]
    pub fn inside(&self, a: &Stencil2d, tx: u32, ty: u32) -> bool {
        let (y0, x0) = (
            (ty * TILE_H) as i64 - a.cy as i64,
            (tx * TILE_W) as i64 - a.cx as i64,
        );
        y0 >= 0
            && x0 >= 0
            && y0 + self.rows as i64 <= a.h as i64
            && x0 + self.cols as i64 <= a.w as i64
    }

    /// The staged value at tile row `r`, column `c` of tile `(tx, ty)`: the input
    /// element's offset in its image, or `None` for `cval`. In 32-bit arithmetic: the
    /// host takes images with sides below 2^30 and kernels below 2^12 only.
    #[inline(always)]
    pub fn source(
        &self,
        a: &Stencil2d,
        tx: u32,
        ty: u32,
        r: u32,
        c: u32,
        mode: Mode,
    ) -> Option<usize> {
        let gy = (ty * TILE_H + r) as i32 - a.cy;
        let gx = (tx * TILE_W + c) as i32 - a.cx;
        let y = map_coord32(gy, a.h as i32, mode)?;
        let x = map_coord32(gx, a.w as i32, mode)?;
        Some(y as usize * a.w as usize + x as usize)
    }

    /// The whole schedule on the CPU, tile by tile and thread by thread as the GPU runs
    /// it; `fma(w, x, acc)` is the compute type's fused multiply-add; weight (0, 0) is
    /// `wts[w0]`, the others at `a`'s strides from it.
    #[cfg(test)]
    pub fn engine(
        a: &Stencil2d,
        x: &[f64],
        (wts, w0): (&[f64], usize),
        fma: impl Fn(f64, f64, f64) -> f64,
    ) -> std::vec::Vec<f64> {
        let t = Tiles::of(a.kh, a.kw);
        let mode = Mode::from_code(a.mode);
        let (h, w, img) = (a.h as usize, a.w as usize, (a.h * a.w) as usize);
        let mut out = std::vec![f64::NAN; a.batch as usize * img];
        for z in 0..a.batch as usize {
            for ty in 0..a.tiles_y {
                for tx in 0..a.tiles_x {
                    // Stage.
                    let mut tile = std::vec![0.0; (t.rows * t.cols) as usize];
                    for r in 0..t.rows {
                        for c in 0..t.cols {
                            tile[(r * t.cols + c) as usize] = match t.source(a, tx, ty, r, c, mode)
                            {
                                Some(o) => x[z * img + o],
                                None => a.cval,
                            };
                        }
                    }
                    // Each thread's column and rows.
                    for lane in 0..TILE_W {
                        for thread_y in 0..THREADS_Y {
                            let mut acc = [0.0; ROWS as usize];
                            for b in 0..a.kw {
                                let at = |r: u32| tile[(r * t.cols + lane + b) as usize];
                                let mut win: [f64; ROWS as usize] =
                                    core::array::from_fn(|k| at(thread_y * ROWS + k as u32));
                                for ka in 0..a.kh {
                                    let wv = wts[(w0 as i64
                                        + ka as i64 * a.ws0 as i64
                                        + b as i64 * a.ws1 as i64)
                                        as usize];
                                    for k in 0..ROWS as usize {
                                        acc[k] = fma(wv, win[k], acc[k]);
                                    }
                                    if ka + 1 < a.kh {
                                        win.rotate_left(1);
                                        win[ROWS as usize - 1] = at(thread_y * ROWS + ROWS + ka);
                                    }
                                }
                            }
                            for (k, v) in acc.iter().enumerate() {
                                let (i, j) = (
                                    (ty * TILE_H + thread_y * ROWS) as usize + k,
                                    (tx * TILE_W + lane) as usize,
                                );
                                if i < h && j < w {
                                    out[z * img + i * w + j] = *v;
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// The direct sum, taps in C order, with an exactly representable result (small
    /// integers), so the order of the sum cannot matter.
    fn direct(a: &Stencil2d, x: &[f64], wts: &[f64]) -> Vec<f64> {
        let mode = Mode::from_code(a.mode);
        let (h, w) = (a.h as i64, a.w as i64);
        let mut out = Vec::new();
        for z in 0..a.batch as i64 {
            for i in 0..h {
                for j in 0..w {
                    let mut s = 0.0;
                    for ka in 0..a.kh as i64 {
                        for kb in 0..a.kw as i64 {
                            let (y, xx) = (i + ka - a.cy as i64, j + kb - a.cx as i64);
                            let v = match (map_coord(y, h, mode), map_coord(xx, w, mode)) {
                                (Some(y), Some(xx)) => x[(z * h * w + y * w + xx) as usize],
                                _ => a.cval,
                            };
                            s += wts[(ka * a.kw as i64 + kb) as usize] * v;
                        }
                    }
                    out.push(s);
                }
            }
        }
        out
    }

    #[test]
    fn tiles_match_the_direct_sum() {
        let mut next = crate::filters::stream::small_integers(12345);
        for &(batch, h, w) in &[
            (1u32, 1u32, 1u32),
            (1, 7, 5),
            (2, 70, 33),
            (1, 65, 97),
            (3, 3, 40),
        ] {
            for &(kh, kw) in &[(1u32, 1u32), (3, 3), (2, 5), (7, 4), (9, 1), (15, 15)] {
                for mode in 0..5u32 {
                    let cy = (kh / 2) as i32 - (mode as i32 % 2);
                    let cx = (kw / 2) as i32;
                    let a = Stencil2d {
                        batch,
                        h,
                        w,
                        kh,
                        kw,
                        cy,
                        cx,
                        mode,
                        tiles_x: w.div_ceil(TILE_W),
                        tiles_y: h.div_ceil(TILE_H),
                        ws0: kw as i32,
                        ws1: 1,
                        cval: 2.0,
                    };
                    let x: Vec<f64> = (0..batch * h * w).map(|_| next()).collect();
                    let wts: Vec<f64> = (0..kh * kw).map(|_| next()).collect();
                    let fma = |w: f64, v: f64, acc: f64| w.mul_add(v, acc);
                    let want = direct(&a, &x, &wts);
                    assert_eq!(Tiles::engine(&a, &x, (&wts, 0), fma), want, "{a:?}");
                    // The same weights read backwards from the end of their reversal.
                    let rev: Vec<f64> = wts.iter().rev().copied().collect();
                    let back = Stencil2d {
                        ws0: -(kw as i32),
                        ws1: -1,
                        ..a
                    };
                    let last = rev.len() - 1;
                    assert_eq!(Tiles::engine(&back, &x, (&rev, last), fma), want, "{a:?}");
                }
            }
        }
    }

    #[test]
    fn inside_tiles_need_no_mapping() {
        let a = Stencil2d {
            batch: 1,
            h: 200,
            w: 100,
            kh: 5,
            kw: 3,
            cy: 2,
            cx: 1,
            mode: 1,
            tiles_x: 4,
            tiles_y: 4,
            ws0: 3,
            ws1: 1,
            cval: 0.0,
        };
        let t = Tiles::of(5, 3);
        for ty in 0..a.tiles_y {
            for tx in 0..a.tiles_x {
                if t.inside(&a, tx, ty) {
                    for r in 0..t.rows {
                        for c in 0..t.cols {
                            let o = t.source(&a, tx, ty, r, c, Mode::Constant).expect("inside");
                            let (gy, gx) =
                                ((ty * TILE_H + r) as i64 - 2, (tx * TILE_W + c) as i64 - 1);
                            assert_eq!(o as i64, gy * 100 + gx);
                        }
                    }
                }
            }
        }
        // The first tile reaches above and left of the image; an interior one does not.
        assert!(!t.inside(&a, 0, 0));
        assert!(t.inside(&a, 1, 1));
    }
}
