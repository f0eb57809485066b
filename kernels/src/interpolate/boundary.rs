//! SciPy's boundary modes for interpolation (`scipy/ndimage/src/ni_interpolation.c`):
//! how an input coordinate outside the array is mapped back in, and how the taps of a
//! spline window past an edge are.
//!
//! These differ from the filters' modes (`crate::filters::Mode`): interpolation has
//! seven, with `constant` and `grid-constant`, `wrap` and `grid-wrap` distinct, and
//! coordinates are real numbers. A coordinate is mapped once ([`map_coordinate`], the
//! C function ported operation for operation, so the same doubles come out); then each
//! tap of its spline window that falls outside is mapped by the *tap mode*
//! ([`Mode::taps`]) with [`map_tap`], the same mapping on integers.

/// SciPy's interpolation modes, by the codes of `_ni_support._extend_mode_to_code`
/// (which the Python layer passes).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `a a a | a b c d | d d d`: the coordinate is not mapped; taps clamp to the edge.
    Nearest = 0,
    /// SciPy's `wrap`: period `n - 1` for coordinates (the first and last samples
    /// coincide), and mirrored taps.
    Wrap = 1,
    /// `reflect` (= `grid-mirror`): half-sample symmetric, period `2 n`.
    Reflect = 2,
    /// `mirror`: whole-sample symmetric, period `2 n - 2`.
    Mirror = 3,
    /// `constant`: a coordinate outside `[0, n - 1]` gives `cval`; inside, the taps past
    /// an edge are mirrored.
    Constant = 4,
    /// `grid-wrap`: periodic with period `n`.
    GridWrap = 5,
    /// `grid-constant`: the coordinate is not mapped; taps outside the array read `cval`.
    GridConstant = 6,
}

impl Mode {
    /// The mode of its code (anything unknown reads as `Mirror`: the host only passes
    /// the codes above).
    #[inline(always)]
    pub fn from_code(code: u32) -> Mode {
        match code {
            0 => Mode::Nearest,
            1 => Mode::Wrap,
            2 => Mode::Reflect,
            4 => Mode::Constant,
            5 => Mode::GridWrap,
            6 => Mode::GridConstant,
            _ => Mode::Mirror,
        }
    }

    /// Whether the coordinate itself is left unmapped (SciPy maps every mode's but
    /// these two, and never replaces them by `cval` as a whole).
    #[inline(always)]
    pub fn keeps_coordinate(self) -> bool {
        matches!(self, Mode::Nearest | Mode::GridConstant)
    }

    /// The mode the taps of a spline window are mapped with past an edge
    /// (`_get_spline_boundary_mode`): `constant` and `wrap` have no matching spline
    /// extension and use `mirror`. (`grid-constant` taps read `cval` instead.)
    #[inline(always)]
    pub fn taps(self) -> Mode {
        match self {
            Mode::Constant | Mode::Wrap => Mode::Mirror,
            m => m,
        }
    }
}

/// `(npy_intp)v`: C's conversion of a double to an integer (toward zero; Rust's `as`
/// saturates where C's is undefined).
#[inline(always)]
fn trunc_i64(v: f64) -> i64 {
    v as i64
}

/// SciPy's `map_coordinate`: coordinate `x` of an axis of `len >= 1` samples mapped
/// into the array by `mode` (`-1` where `constant` leaves it). Ported operation for
/// operation (integer products, then one double addition), so the result is the same
/// double; for `grid-constant` it is `x` itself.
#[inline(always)]
pub fn map_coordinate(x: f64, len: i64, mode: Mode) -> f64 {
    let mut x = x;
    if x < 0.0 {
        match mode {
            Mode::Mirror => {
                if len <= 1 {
                    x = 0.0;
                } else {
                    let sz2 = 2 * len - 2;
                    x = sz2.wrapping_mul(trunc_i64(-x / sz2 as f64)) as f64 + x;
                    x = if x <= (1 - len) as f64 {
                        x + sz2 as f64
                    } else {
                        -x
                    };
                }
            }
            Mode::Reflect => {
                if len <= 1 {
                    x = 0.0;
                } else {
                    let sz2 = 2 * len;
                    if x < -(sz2 as f64) {
                        x = sz2.wrapping_mul(trunc_i64(-x / sz2 as f64)) as f64 + x;
                    }
                    // SciPy's guard: -x - 1 must not round to exactly -1 (which reads
                    // as outside) for x just below 0.
                    x = if x < -(len as f64) {
                        x + sz2 as f64
                    } else {
                        (if x > -1e-15 { 1e-15 } else { -x }) - 1.0
                    };
                }
            }
            Mode::Wrap => {
                if len <= 1 {
                    x = 0.0;
                } else {
                    let sz = len - 1;
                    x += sz.wrapping_mul(trunc_i64(-x / sz as f64).wrapping_add(1)) as f64;
                }
            }
            Mode::GridWrap => {
                if len <= 1 {
                    x = 0.0;
                } else {
                    x +=
                        len.wrapping_mul(trunc_i64((-1.0 - x) / len as f64).wrapping_add(1)) as f64;
                }
            }
            Mode::Nearest => x = 0.0,
            Mode::Constant => x = -1.0,
            Mode::GridConstant => {}
        }
    } else if x > (len - 1) as f64 {
        match mode {
            Mode::Mirror => {
                if len <= 1 {
                    x = 0.0;
                } else {
                    let sz2 = 2 * len - 2;
                    x -= sz2.wrapping_mul(trunc_i64(x / sz2 as f64)) as f64;
                    if x >= len as f64 {
                        x = sz2 as f64 - x;
                    }
                }
            }
            Mode::Reflect => {
                if len <= 1 {
                    x = 0.0;
                } else {
                    let sz2 = 2 * len;
                    x -= sz2.wrapping_mul(trunc_i64(x / sz2 as f64)) as f64;
                    if x >= len as f64 {
                        x = sz2 as f64 - x - 1.0;
                    }
                }
            }
            Mode::Wrap => {
                if len <= 1 {
                    x = 0.0;
                } else {
                    let sz = len - 1;
                    x -= sz.wrapping_mul(trunc_i64(x / sz as f64)) as f64;
                }
            }
            Mode::GridWrap => {
                if len <= 1 {
                    x = 0.0;
                } else {
                    x -= len.wrapping_mul(trunc_i64(x / len as f64)) as f64;
                }
            }
            Mode::Nearest => x = (len - 1) as f64,
            Mode::Constant => x = -1.0,
            Mode::GridConstant => {}
        }
    }
    x
}

/// Tap index `c` of an axis of `len >= 1` samples mapped into `0..len` by the tap mode
/// `mode` (`Nearest`, `Reflect`, `Mirror` or `GridWrap`; any other reads as `Mirror`):
/// `map_coordinate` on an integer, in integer arithmetic, for any `c`.
#[inline(always)]
pub fn map_tap(c: i64, len: i64, mode: Mode) -> i64 {
    if (0..len).contains(&c) {
        return c;
    }
    match mode {
        Mode::Nearest => {
            if c < 0 {
                0
            } else {
                len - 1
            }
        }
        Mode::GridWrap => c.rem_euclid(len),
        Mode::Reflect => {
            let m = c.rem_euclid(2 * len);
            if m >= len { 2 * len - 1 - m } else { m }
        }
        _ => {
            if len == 1 {
                return 0;
            }
            let p = 2 * len - 2;
            let m = c.rem_euclid(p);
            if m >= len { p - m } else { m }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Mode; 7] = [
        Mode::Nearest,
        Mode::Wrap,
        Mode::Reflect,
        Mode::Mirror,
        Mode::Constant,
        Mode::GridWrap,
        Mode::GridConstant,
    ];

    #[test]
    fn codes_round_trip() {
        for m in ALL {
            assert_eq!(Mode::from_code(m as u32), m);
        }
    }

    /// The integer tap mapping is SciPy's coordinate mapping on integers, for every
    /// distance from the array.
    #[test]
    fn taps_map_as_coordinates_do() {
        for mode in [Mode::Nearest, Mode::Reflect, Mode::Mirror, Mode::GridWrap] {
            for len in 1..8i64 {
                for c in -60..60i64 {
                    let want = map_coordinate(c as f64, len, mode) as i64;
                    let got = map_tap(c, len, mode);
                    assert_eq!(got, want, "{mode:?} len={len} c={c}");
                    assert!((0..len).contains(&got));
                }
            }
        }
    }

    /// The extensions SciPy's documentation draws (`ndimage` "Interpolation boundary
    /// handling"), on integer coordinates of "abcd".
    #[test]
    fn integer_coordinates_extend_as_documented() {
        let line =
            |mode| -> Vec<f64> { (-3..7).map(|c| map_coordinate(c as f64, 4, mode)).collect() };
        assert_eq!(
            line(Mode::Reflect),
            [2., 1., 0., 0., 1., 2., 3., 3., 2., 1.]
        );
        assert_eq!(line(Mode::Mirror), [3., 2., 1., 0., 1., 2., 3., 2., 1., 0.]);
        assert_eq!(
            line(Mode::GridWrap),
            [1., 2., 3., 0., 1., 2., 3., 0., 1., 2.]
        );
        // SciPy's `wrap`: period n - 1 = 3, so -3 is 0 and 6 is 0 (= 3).
        assert_eq!(line(Mode::Wrap), [3., 1., 2., 0., 1., 2., 3., 1., 2., 0.]);
        assert_eq!(
            line(Mode::Nearest),
            [0., 0., 0., 0., 1., 2., 3., 3., 3., 3.]
        );
        assert_eq!(
            line(Mode::Constant),
            [-1., -1., -1., 0., 1., 2., 3., -1., -1., -1.]
        );
        assert_eq!(
            line(Mode::GridConstant),
            [-3., -2., -1., 0., 1., 2., 3., 4., 5., 6.]
        );
    }

    /// Real coordinates: each mode's own symmetry, checked directly: the result lies
    /// in the mode's range and is `x` shifted by whole periods, or (the symmetric
    /// modes) `x`'s reflection about -0.5 (`reflect`) or 0 (`mirror`) so shifted.
    #[test]
    fn real_coordinates_follow_each_modes_symmetry() {
        let n = 5i64;
        let nf = n as f64;
        let same_mod = |a: f64, p: f64| a.rem_euclid(p) == 0.0 || a.rem_euclid(p) == p;
        for k in 0..400 {
            let x = -30.0 + k as f64 * 0.15625; // exact binary fractions
            let r = map_coordinate(x, n, Mode::Reflect);
            assert!(r > -1.0 && r < nf, "reflect {x} -> {r}");
            assert!(
                same_mod(r - x, 2.0 * nf) || same_mod(r + x + 1.0, 2.0 * nf),
                "reflect {x} -> {r}"
            );
            let m = map_coordinate(x, n, Mode::Mirror);
            // SciPy leaves (n - 1, n) unmapped: its window's taps past n - 1 mirror.
            assert!((0.0..nf).contains(&m), "mirror {x} -> {m}");
            let p = 2.0 * nf - 2.0;
            assert!(
                same_mod(m - x, p) || same_mod(m + x, p),
                "mirror {x} -> {m}"
            );
            let g = map_coordinate(x, n, Mode::GridWrap);
            assert!(g > -1.0 && g < nf, "grid-wrap {x} -> {g}");
            assert!(same_mod(g - x, nf), "grid-wrap {x} -> {g}");
            let w = map_coordinate(x, n, Mode::Wrap);
            assert!((0.0..=nf - 1.0).contains(&w), "wrap {x} -> {w}");
            assert!(same_mod(w - x, nf - 1.0), "wrap {x} -> {w}");
            let c = map_coordinate(x, n, Mode::Constant);
            assert_eq!(
                c,
                if (0.0..=nf - 1.0).contains(&x) {
                    x
                } else {
                    -1.0
                },
                "constant {x}"
            );
        }
        // Just below zero, reflect stays above -1 (SciPy's 1e-15 guard).
        assert!(map_coordinate(-1e-17, 3, Mode::Reflect) > -1.0);
    }

    #[test]
    fn single_samples_map_to_zero() {
        for mode in [
            Mode::Mirror,
            Mode::Reflect,
            Mode::Wrap,
            Mode::GridWrap,
            Mode::Nearest,
        ] {
            for x in [-7.5, -0.25, 0.75, 3.0] {
                assert_eq!(map_coordinate(x, 1, mode), 0.0, "{mode:?} {x}");
            }
        }
    }
}
