//! SciPy's boundary modes for filters: how a coordinate outside an axis maps back into
//! it (or reads `cval`), for windows of any length.

/// SciPy's boundary modes for filters (`ndimage`'s `mode=`): `grid-mirror` is `Reflect`,
/// `grid-constant` is `Constant`, `grid-wrap` is `Wrap`.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `d c b a | a b c d | d c b a`: half-sample symmetric.
    Reflect = 0,
    /// `k k k k | a b c d | k k k k` with `k = cval`.
    Constant = 1,
    /// `a a a a | a b c d | d d d d`.
    Nearest = 2,
    /// `d c b | a b c d | c b a`: whole-sample symmetric.
    Mirror = 3,
    /// `a b c d | a b c d | a b c d`: periodic.
    Wrap = 4,
}

impl Mode {
    /// The mode of its launch code (anything unknown reads as `Constant`: the host only
    /// passes the codes above).
    #[inline(always)]
    pub fn from_code(code: u32) -> Mode {
        match code {
            0 => Mode::Reflect,
            2 => Mode::Nearest,
            3 => Mode::Mirror,
            4 => Mode::Wrap,
            _ => Mode::Constant,
        }
    }
}

/// The map of coordinates in a type: `map_coord` in `i64` (any array) and in `i32`
/// (32-bit division: the tiled 2-d kernels, whose images have sides below 2^30).
macro_rules! map_coord_in {
    ($(#[$doc:meta])* $name:ident, $t:ty) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(c: $t, n: $t, mode: Mode) -> Option<$t> {
            if (0..n).contains(&c) {
                return Some(c);
            }
            Some(match mode {
                Mode::Constant => return None,
                Mode::Nearest => {
                    if c < 0 {
                        0
                    } else {
                        n - 1
                    }
                }
                Mode::Wrap => c.rem_euclid(n),
                Mode::Reflect => {
                    let m = c.rem_euclid(2 * n);
                    if m >= n { 2 * n - 1 - m } else { m }
                }
                Mode::Mirror => {
                    if n == 1 {
                        return Some(0);
                    }
                    let p = 2 * n - 2;
                    let m = c.rem_euclid(p);
                    if m >= n { p - m } else { m }
                }
            })
        }
    };
}

map_coord_in!(
    /// Coordinate `c` of an axis of length `n >= 1` mapped into `0..n` by `mode`, or
    /// `None` where `Constant` reads `cval`. Far-out coordinates (a kernel longer than
    /// the axis) keep reflecting, mirroring or wrapping, as SciPy extends a line.
    map_coord,
    i64
);
map_coord_in!(
    /// `map_coord` in 32-bit arithmetic, for `|c|` and `n` below 2^30.
    map_coord32,
    i32
);

#[cfg(test)]
mod tests {
    use super::*;

    /// SciPy's extension of a line, built by repeating its reflection (or wrap) one
    /// period at a time: the reference `map_coord` must match for any distance.
    fn extended(n: i64, mode: Mode) -> impl Fn(i64) -> Option<i64> {
        move |c| {
            let period: Vec<i64> = match mode {
                Mode::Reflect => (0..n).chain((0..n).rev()).collect(),
                Mode::Mirror if n == 1 => vec![0],
                Mode::Mirror => (0..n).chain((1..n - 1).rev()).collect(),
                Mode::Wrap => (0..n).collect(),
                Mode::Nearest => return Some(c.clamp(0, n - 1)),
                Mode::Constant => return (0..n).contains(&c).then_some(c),
            };
            Some(period[c.rem_euclid(period.len() as i64) as usize])
        }
    }

    #[test]
    fn coordinates_map_as_scipy_extends_lines() {
        for mode in [
            Mode::Reflect,
            Mode::Constant,
            Mode::Nearest,
            Mode::Mirror,
            Mode::Wrap,
        ] {
            for n in 1..7 {
                let want = extended(n, mode);
                for c in -40..40 {
                    assert_eq!(map_coord(c, n, mode), want(c), "{mode:?} n={n} c={c}");
                }
            }
        }
        // SciPy's own examples (ndimage docs, "abcd" extended by 3 on each side).
        let line = |mode| -> Vec<i64> { (-3..7).map(|c| map_coord(c, 4, mode).unwrap()).collect() };
        assert_eq!(line(Mode::Reflect), [2, 1, 0, 0, 1, 2, 3, 3, 2, 1]);
        assert_eq!(line(Mode::Mirror), [3, 2, 1, 0, 1, 2, 3, 2, 1, 0]);
        assert_eq!(line(Mode::Wrap), [1, 2, 3, 0, 1, 2, 3, 0, 1, 2]);
        assert_eq!(line(Mode::Nearest), [0, 0, 0, 0, 1, 2, 3, 3, 3, 3]);
    }

    #[test]
    fn the_32_bit_map_is_the_64_bit_one() {
        for mode in [
            Mode::Reflect,
            Mode::Constant,
            Mode::Nearest,
            Mode::Mirror,
            Mode::Wrap,
        ] {
            for n in [1, 2, 3, 7, 1000] {
                for c in (-3000..3000).chain([-(1 << 29), 1 << 29]) {
                    let want = map_coord(c as i64, n as i64, mode).map(|v| v as i32);
                    assert_eq!(map_coord32(c, n, mode), want, "{mode:?} n={n} c={c}");
                }
            }
        }
    }

    #[test]
    fn codes_round_trip() {
        for mode in [
            Mode::Reflect,
            Mode::Constant,
            Mode::Nearest,
            Mode::Mirror,
            Mode::Wrap,
        ] {
            assert_eq!(Mode::from_code(mode as u32), mode);
        }
    }
}
