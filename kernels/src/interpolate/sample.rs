//! What one output of an interpolation is (`NI_GeometricTransform`, `NI_ZoomShift` in
//! `scipy/ndimage/src/ni_interpolation.c`): its input coordinate along each axis (from
//! a coordinate array, an affine map, or a zoom and shift of its own index), each
//! axis's window of taps and weights, the weighted sum, and the store into the output
//! dtype with SciPy's rounding.
//!
//! The sum is SciPy's, operation for operation: taps in C order (the last axis
//! fastest), each tap's value multiplied by its weight along axis 0, then axis 1, ...,
//! and added to a sum that starts at 0.0.

use super::boundary::{Mode, map_coordinate, map_tap};
use super::spline::{MAX_TAPS, floor, weights};

/// A tap outside the array that reads `cval` (`grid-constant` only).
pub const OUTSIDE: i64 = i64::MIN;

/// One axis of an output's window: the weights of its `order + 1` taps and each tap's
/// input index (mapped into the array by the tap mode, or [`OUTSIDE`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxisTaps {
    pub w: [f64; MAX_TAPS],
    pub idx: [i64; MAX_TAPS],
}

/// The window along an axis of `len >= 1` samples of input coordinate `cc` (already
/// shifted by the prefilter's padding), or `None` where the whole output is `cval`
/// (`constant` and the mapped modes, for a coordinate the mode sends out).
///
/// `order` is 0 to 5; the loops over taps run over all six slots with `order` as a
/// guard, so that a constant `order` unrolls them and a run-time one keeps the arrays
/// in registers too.
#[inline(always)]
pub fn axis_taps(cc: f64, len: i64, mode: Mode, order: usize) -> Option<AxisTaps> {
    let cc = if mode.keeps_coordinate() {
        cc
    } else {
        map_coordinate(cc, len, mode)
    };
    if !(mode.keeps_coordinate() || cc > -1.0) {
        return None;
    }
    let first = if order & 1 == 1 {
        floor(cc)
    } else {
        floor(cc + 0.5)
    };
    // `as` saturates (C's conversion is undefined past i64): far-out coordinates of the
    // unmapped modes still give taps every mapping handles.
    let start = (first as i64).saturating_sub(order as i64 / 2);
    let w = weights(cc, order);
    let edge = start < 0 || start.saturating_add(order as i64) >= len;
    let tap_mode = mode.taps();
    let mut idx = [0i64; MAX_TAPS];
    for (k, slot) in idx.iter_mut().enumerate() {
        if k <= order {
            let i = start.saturating_add(k as i64);
            *slot = if !edge {
                i
            } else if mode == Mode::GridConstant {
                if (0..len).contains(&i) { i } else { OUTSIDE }
            } else {
                map_tap(i, len, tap_mode)
            };
        }
    }
    Some(AxisTaps { w, idx })
}

/// The interpolated value of an output whose window along axis `d` is `taps[d]`, over
/// an input whose element at offset `p` is `value(p)` (`strides[d]` elements apart
/// along axis `d`): SciPy's sum, in its order (see the module docs). The GPU kernels
/// unroll these same loops; this is their CPU reference.
pub fn window_sum(
    taps: &[AxisTaps],
    order: usize,
    cval: f64,
    strides: &[i64],
    value: impl Fn(i64) -> f64,
) -> f64 {
    let nd = taps.len();
    let mut k = [0usize; 16];
    let mut t = 0.0f64;
    loop {
        let mut outside = false;
        let mut p = 0i64;
        for d in 0..nd {
            let i = taps[d].idx[k[d]];
            outside |= i == OUTSIDE;
            p = p.wrapping_add(i.wrapping_mul(strides[d]));
        }
        let mut c = if outside { cval } else { value(p) };
        if order > 0 {
            for d in 0..nd {
                c *= taps[d].w[k[d]];
            }
        }
        t += c;
        // The next tap in C order: the last axis fastest.
        let mut d = nd;
        loop {
            if d == 0 {
                return t;
            }
            d -= 1;
            if k[d] < order {
                k[d] += 1;
                break;
            }
            k[d] = 0;
        }
    }
}

/// The input coordinate along one axis of output index `o` (along the same axis) for
/// SciPy's zoom-and-shift map (`NI_ZoomShift`): `o + shift`, then scaled by `zoom`
/// about the first sample's centre (or, with `grid`, about the grid's edge), then the
/// padding `npad` added.
#[inline(always)]
pub fn zoom_shift_coordinate(
    o: u64,
    zoom: Option<f64>,
    shift: Option<f64>,
    grid: bool,
    npad: f64,
) -> f64 {
    let mut cc = o as f64;
    if let Some(s) = shift {
        cc += s;
    }
    if let Some(z) = zoom {
        if grid {
            cc += 0.5;
            cc *= z;
            cc -= 0.5;
        } else {
            cc *= z;
        }
    }
    cc + npad
}

/// The input coordinate along one axis of an affine map (`NI_GeometricTransform`): the
/// offset plus each output coordinate times the matrix row's entry, added in order,
/// then the padding. `coefficient(l)` is the row's entry for output axis `l < odim`.
#[inline(always)]
pub fn affine_coordinate(
    o: &[u64],
    odim: usize,
    offset: f64,
    coefficient: impl Fn(usize) -> f64,
    npad: f64,
) -> f64 {
    let mut t = offset;
    for (l, &ol) in o.iter().enumerate() {
        if l < odim {
            t += ol as f64 * coefficient(l);
        }
    }
    t + npad
}

/// The output dtypes an interpolation stores directly, by launch code.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    F64 = 0,
    F32 = 1,
    I8 = 2,
    I16 = 3,
    I32 = 4,
    I64 = 5,
    U8 = 6,
    U16 = 7,
    U32 = 8,
    U64 = 9,
    Bool = 10,
}

impl Store {
    #[inline(always)]
    pub fn from_code(code: u32) -> Store {
        match code {
            1 => Store::F32,
            2 => Store::I8,
            3 => Store::I16,
            4 => Store::I32,
            5 => Store::I64,
            6 => Store::U8,
            7 => Store::U16,
            8 => Store::U32,
            9 => Store::U64,
            10 => Store::Bool,
            _ => Store::F64,
        }
    }

    /// Bytes per element.
    pub const fn itemsize(self) -> usize {
        match self {
            Store::F64 | Store::I64 | Store::U64 => 8,
            Store::F32 | Store::I32 | Store::U32 => 4,
            Store::I16 | Store::U16 => 2,
            Store::I8 | Store::U8 | Store::Bool => 1,
        }
    }

    /// The type's range as doubles (`NPY_MIN_*`, `NPY_MAX_*` converted), for the
    /// integer stores' clamps.
    pub const fn range(self) -> (f64, f64) {
        match self {
            Store::I8 => (i8::MIN as f64, i8::MAX as f64),
            Store::I16 => (i16::MIN as f64, i16::MAX as f64),
            Store::I32 => (i32::MIN as f64, i32::MAX as f64),
            Store::I64 => (i64::MIN as f64, i64::MAX as f64),
            Store::U8 => (0.0, u8::MAX as f64),
            Store::U16 => (0.0, u16::MAX as f64),
            Store::U32 => (0.0, u32::MAX as f64),
            Store::U64 => (0.0, u64::MAX as f64),
            _ => (0.0, 0.0),
        }
    }
}

/// SciPy's rounding of an interpolated value into a signed integer type of range
/// `[lo, hi]` (`CASE_INTERP_OUT_INT`): half away from zero, clamped, then truncated.
#[inline(always)]
pub fn round_signed(t: f64, lo: f64, hi: f64) -> f64 {
    let t = if t > 0.0 { t + 0.5 } else { t - 0.5 };
    let t = if t > hi { hi } else { t };
    if t < lo { lo } else { t }
}

/// SciPy's rounding into an unsigned type of maximum `hi` (`CASE_INTERP_OUT_UINT`):
/// half up, negatives (and NaN) to 0, clamped, then truncated.
#[inline(always)]
pub fn round_unsigned(t: f64, hi: f64) -> f64 {
    let t = if t > 0.0 { t + 0.5 } else { 0.0 };
    let t = if t > hi { hi } else { t };
    if t < 0.0 { 0.0 } else { t }
}

/// SciPy's store into a bool output, `(npy_bool)t`: a conversion to `unsigned char`,
/// which x86-64 compilers make through a 32-bit truncation whose low byte is kept
/// (out-of-range values and NaN give the "indefinite" 0x80000000, low byte 0).
#[inline(always)]
pub fn to_bool(t: f64) -> bool {
    if !(t > -2147483649.0 && t < 2147483648.0) {
        return false;
    }
    (t as i64) & 0xff != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_start_where_scipy_starts_them() {
        // Odd orders start at floor(x) - order/2, even ones at floor(x + 0.5) - order/2:
        // a half-integer rounds up (order 0's nearest sample of 2.5 is 3).
        let t = |x, order| axis_taps(x, 10, Mode::Mirror, order).unwrap().idx;
        assert_eq!(t(2.5, 0)[0], 3);
        assert_eq!(t(2.4999999999999996, 0)[0], 2);
        assert_eq!(t(3.5, 0)[0], 4);
        assert_eq!(&t(2.5, 1)[..2], &[2, 3]);
        assert_eq!(&t(2.5, 2)[..3], &[2, 3, 4]);
        assert_eq!(&t(2.25, 2)[..3], &[1, 2, 3]);
        assert_eq!(&t(2.25, 3)[..4], &[1, 2, 3, 4]);
        assert_eq!(&t(4.5, 5)[..6], &[2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn taps_past_an_edge_follow_the_tap_mode() {
        // Constant mode inside the array mirrors its taps (SciPy's spline mode).
        let c = axis_taps(0.25, 5, Mode::Constant, 3).unwrap();
        assert_eq!(&c.idx[..4], &[1, 0, 1, 2]);
        // ... and gives cval outside [0, n - 1].
        assert!(axis_taps(-0.25, 5, Mode::Constant, 3).is_none());
        assert!(axis_taps(4.0 + 1e-12, 5, Mode::Constant, 1).is_none());
        assert!(axis_taps(4.0, 5, Mode::Constant, 1).is_some());
        // Grid-constant: taps outside read cval, the coordinate is not mapped.
        let g = axis_taps(-1.5, 5, Mode::GridConstant, 3).unwrap();
        assert_eq!(&g.idx[..4], &[OUTSIDE, OUTSIDE, OUTSIDE, 0]);
        // Nearest: the coordinate is not mapped, the taps clamp.
        let n = axis_taps(-1.5, 5, Mode::Nearest, 3).unwrap();
        assert_eq!(&n.idx[..4], &[0, 0, 0, 0]);
        // Grid-wrap wraps both.
        let w = axis_taps(4.5, 5, Mode::GridWrap, 3).unwrap();
        assert_eq!(&w.idx[..4], &[3, 4, 0, 1]);
        // SciPy's wrap maps the coordinate with period n - 1, then mirrors the taps.
        let w = axis_taps(-0.5, 5, Mode::Wrap, 1).unwrap();
        assert_eq!(&w.idx[..2], &[3, 4]);
        assert_eq!(&w.w[..2], &[0.5, 0.5]);
        // Far-out coordinates of unmapped modes saturate instead of overflowing.
        let f = axis_taps(1e300, 5, Mode::Nearest, 5).unwrap();
        assert!(f.idx[..6].iter().all(|&i| i == 4));
        let f = axis_taps(-1e300, 5, Mode::GridConstant, 5).unwrap();
        assert!(f.idx[..6].iter().all(|&i| i == OUTSIDE));
    }

    /// The centred B-spline of degree `n` at `x`, by the Cox-de Boor recursion.
    fn bspline(n: usize, x: f64) -> f64 {
        fn b(n: usize, t: f64) -> f64 {
            if n == 0 {
                return if (0.0..1.0).contains(&t) { 1.0 } else { 0.0 };
            }
            (t * b(n - 1, t) + (n as f64 + 1.0 - t) * b(n - 1, t - 1.0)) / n as f64
        }
        b(n, x + (n as f64 + 1.0) / 2.0)
    }

    /// The value of a spline with coefficients `c` (shape `shape`, C order) at `x`,
    /// evaluated directly: every coefficient of the extended grid within reach times
    /// the tensor product of B-splines, the grid extended by the tap mode (or `cval`
    /// outside, for grid-constant). Independent of `axis_taps` and `window_sum`.
    fn direct(c: &[f64], shape: &[i64], x: &[f64], order: usize, mode: Mode, cval: f64) -> f64 {
        let nd = shape.len();
        let reach = order as i64 / 2 + 2;
        let lo: Vec<i64> = x.iter().map(|v| v.floor() as i64 - reach).collect();
        let mut m = vec![0i64; nd];
        let mut total = 0.0;
        let count = (2 * reach + 1).pow(nd as u32);
        for t in 0..count {
            let mut r = t;
            let mut w = 1.0;
            for d in (0..nd).rev() {
                m[d] = lo[d] + r % (2 * reach + 1);
                r /= 2 * reach + 1;
            }
            let mut flat = 0i64;
            let mut outside = false;
            for d in 0..nd {
                w *= if order == 0 {
                    // Order 0: the nearest sample, half-integers up.
                    if m[d] as f64 == (x[d] + 0.5).floor() {
                        1.0
                    } else {
                        0.0
                    }
                } else {
                    bspline(order, x[d] - m[d] as f64)
                };
                let i = if mode == Mode::GridConstant {
                    if (0..shape[d]).contains(&m[d]) {
                        m[d]
                    } else {
                        outside = true;
                        0
                    }
                } else {
                    map_tap(m[d], shape[d], mode.taps())
                };
                flat = flat * shape[d] + i;
            }
            total += w * if outside { cval } else { c[flat as usize] };
        }
        total
    }

    #[test]
    fn windowed_sums_are_the_spline() {
        let shapes: [&[i64]; 4] = [&[7], &[4, 5], &[3, 1, 4], &[1]];
        for shape in shapes {
            let size: i64 = shape.iter().product();
            let c: Vec<f64> = (0..size)
                .map(|i| ((i as f64 * 0.618034).fract() - 0.3) * 10.0)
                .collect();
            let mut strides = vec![1i64; shape.len()];
            for d in (0..shape.len().saturating_sub(1)).rev() {
                strides[d] = strides[d + 1] * shape[d + 1];
            }
            for mode in [
                Mode::Nearest,
                Mode::Reflect,
                Mode::Mirror,
                Mode::GridWrap,
                Mode::GridConstant,
            ] {
                for order in 0..=5 {
                    for k in 0..40 {
                        // Coordinates inside and around the array (mapped modes map
                        // them first; compare at the mapped coordinate).
                        let x: Vec<f64> = shape
                            .iter()
                            .enumerate()
                            .map(|(d, &n)| {
                                -2.3 + ((k * 7 + d * 3) as f64 * 0.3819660).fract()
                                    * (n as f64 + 4.0)
                            })
                            .collect();
                        let taps: Vec<AxisTaps> = x
                            .iter()
                            .zip(shape)
                            .map(|(&v, &n)| axis_taps(v, n, mode, order).unwrap())
                            .collect();
                        let got = window_sum(&taps, order, 1.5, &strides, |p| c[p as usize]);
                        let at: Vec<f64> = x
                            .iter()
                            .zip(shape)
                            .map(|(&v, &n)| {
                                if mode.keeps_coordinate() {
                                    v
                                } else {
                                    map_coordinate(v, n, mode)
                                }
                            })
                            .collect();
                        let want = direct(&c, shape, &at, order, mode, 1.5);
                        assert!(
                            (got - want).abs() < 1e-12,
                            "{shape:?} {mode:?} order {order} x {x:?}: {got} vs {want}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn coordinates_are_scipys_arithmetic() {
        assert_eq!(zoom_shift_coordinate(3, Some(0.5), None, false, 0.0), 1.5);
        assert_eq!(
            zoom_shift_coordinate(3, Some(0.5), None, true, 0.0),
            3.5 * 0.5 - 0.5
        );
        assert_eq!(
            zoom_shift_coordinate(3, None, Some(-1.25), false, 12.0),
            13.75
        );
        // affine_transform with a diagonal matrix: (o + offset / m) * m, not o * m + offset.
        let (m, off) = (0.3f64, 0.7f64);
        assert_eq!(
            zoom_shift_coordinate(5, Some(m), Some(off / m), false, 0.0),
            (5.0 + off / m) * m
        );
        let o = [2u64, 7, 0, 0, 0, 0, 0, 0];
        let row = [0.5, -0.25];
        assert_eq!(
            affine_coordinate(&o, 2, 1.0, |l| row[l], 0.0),
            1.0 + 2.0 * 0.5 + 7.0 * -0.25
        );
    }

    #[test]
    fn stores_round_as_scipy() {
        let (lo, hi) = Store::I8.range();
        let r = |t| round_signed(t, lo, hi) as i8;
        assert_eq!(
            [
                r(-1.5),
                r(-0.5),
                r(0.7),
                r(2.5),
                r(-2.5),
                r(300.7),
                r(-300.7)
            ],
            [-2, -1, 1, 3, -3, 127, -128]
        );
        let (_, hi) = Store::U8.range();
        let u = |t| round_unsigned(t, hi) as u8;
        assert_eq!(
            [u(-1.5), u(0.5), u(2.5), u(300.7), u(f64::NAN)],
            [0, 1, 3, 255, 0]
        );
        // SciPy on x86-64 (measured): -256 -> 0, -1.5 -> 255, 0.7 -> 0, 1.3 -> 1,
        // 256 -> 0, 300.7 -> 44, 2.5 -> 2, NaN -> 0 as bytes; nonzero is True.
        let b: Vec<bool> = [-256.0, -1.5, 0.7, 1.3, 256.0, 300.7, 2.5, f64::NAN, 3e9]
            .into_iter()
            .map(to_bool)
            .collect();
        assert_eq!(
            b,
            [false, true, false, true, false, true, true, false, false]
        );
        for s in [Store::F64, Store::F32, Store::I8, Store::U64, Store::Bool] {
            assert_eq!(Store::from_code(s as u32), s);
        }
    }
}
