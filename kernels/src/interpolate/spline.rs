//! B-splines of orders 0 to 5 (`scipy/ndimage/src/ni_splines.c`): the interpolation
//! weights of a window of `order + 1` samples, and the prefilter that turns samples
//! into spline coefficients (a recursive filter along each axis, with SciPy's initial
//! conditions per boundary mode).
//!
//! Both are ported operation for operation (no fused multiply-adds: Rust does not
//! contract, and the NVPTX backend emits `.rn` arithmetic, which `ptxas` keeps apart),
//! so they compute the doubles SciPy computes. The one difference: the sums that start
//! each recursion stop after [`Pole::terms`] terms, where the pole's powers fall below
//! 2^-64 of the first term (the rest would change no bit of a sum of that size), while
//! SciPy sums the whole line. Lines shorter than that are summed whole, as SciPy does.

/// Most taps of a window: order 5 has six.
pub const MAX_TAPS: usize = 6;

/// `floor(x)` (C's; `cvt.rmi` on the GPU).
#[inline(always)]
pub fn floor(x: f64) -> f64 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: f64;
        // SAFETY: register-only arithmetic.
        unsafe {
            core::arch::asm!("cvt.rmi.f64.f64 {r}, {x};", r = out(reg64) r, x = in(reg64) x,
                             options(pure, nomem, nostack))
        };
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        x.floor()
    }
}

/// SciPy's `get_spline_interpolation_weights`: the weights of the `order + 1` taps of
/// the window that starts at `floor(x) - order / 2` (odd orders) or
/// `floor(x + 0.5) - order / 2` (even ones). Entries past `order` are zero; order 0
/// has no weights (SciPy reads the one tap unweighted).
#[inline(always)]
pub fn weights(x: f64, order: usize) -> [f64; MAX_TAPS] {
    let mut w = [0.0f64; MAX_TAPS];
    // The distance to the middle knot.
    let x = x - floor(if order & 1 == 1 { x } else { x + 0.5 });
    let mut y = x;
    let mut z = 1.0 - x;
    match order {
        1 => {
            w[0] = 1.0 - x;
            w[1] = 1.0 - w[0];
        }
        2 => {
            w[1] = 0.75 - x * x;
            y = 0.5 - x;
            w[0] = 0.5 * y * y;
            w[2] = 1.0 - w[0] - w[1];
        }
        3 => {
            w[1] = (y * y * (y - 2.0) * 3.0 + 4.0) / 6.0;
            w[2] = (z * z * (z - 2.0) * 3.0 + 4.0) / 6.0;
            w[0] = z * z * z / 6.0;
            w[3] = 1.0 - w[0] - w[1] - w[2];
        }
        4 => {
            let t = x * x;
            w[2] = t * (t * 0.25 - 0.625) + 115.0 / 192.0;
            y = 1.0 + x;
            w[1] = y * (y * (y * (5.0 - y) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
            w[3] = z * (z * (z * (5.0 - z) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
            y = 0.5 - x;
            let t = y * y;
            w[0] = t * t / 24.0;
            w[4] = 1.0 - w[0] - w[1] - w[2] - w[3];
        }
        5 => {
            let t = y * y;
            w[2] = t * (t * (0.25 - y / 12.0) - 0.5) + 0.55;
            let t = z * z;
            w[3] = t * (t * (0.25 - z / 12.0) - 0.5) + 0.55;
            y += 1.0;
            w[1] = y * (y * (y * (y * (y / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
            z += 1.0;
            w[4] = z * (z * (z * (z * (z / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
            y = 1.0 - x;
            let t = y * y;
            w[0] = y * t * t / 120.0;
            w[5] = 1.0 - w[0] - w[1] - w[2] - w[3] - w[4];
        }
        _ => {}
    }
    let _ = (y, z);
    w
}

/// One pole of the prefilter: its value and how many terms its initial sums take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pole {
    pub z: f64,
    /// The smallest `K` with `|z|^K / (1 - |z|) < 2^-64`: the terms of an initial sum
    /// from the `K`-th on add less than 2^-64 of the largest coefficient in all.
    pub terms: u32,
}

/// SciPy's `get_filter_poles`: the poles of the B-spline prefilter of `order` (2 to 5;
/// none for 0 and 1, which need no prefilter). SciPy's literals, digit for digit.
#[allow(clippy::excessive_precision)]
pub const fn poles(order: usize) -> &'static [Pole] {
    match order {
        // sqrt(8) - 3
        2 => &[Pole {
            z: -0.171572875253809902396622551580603843,
            terms: 26,
        }],
        // sqrt(3) - 2
        3 => &[Pole {
            z: -0.267949192431122706472553658494127633,
            terms: 34,
        }],
        4 => &[
            // sqrt(664 - sqrt(438976)) + sqrt(304) - 19
            Pole {
                z: -0.361341225900220177092212841325675255,
                terms: 45,
            },
            // sqrt(664 + sqrt(438976)) - sqrt(304) - 19
            Pole {
                z: -0.013725429297339121360331226939128204,
                terms: 11,
            },
        ],
        5 => &[
            // sqrt(67.5 - sqrt(4436.25)) + sqrt(26.25) - 6.5
            Pole {
                z: -0.430575347099973791851434783493520110,
                terms: 54,
            },
            // sqrt(67.5 + sqrt(4436.25)) - sqrt(26.25) - 6.5
            Pole {
                z: -0.043096288203264653822712376822550182,
                terms: 15,
            },
        ],
        _ => &[],
    }
}

/// SciPy's `_apply_filter_gain`: the factor every coefficient is scaled by first.
pub fn gain(order: usize) -> f64 {
    let mut g = 1.0f64;
    for p in poles(order) {
        g *= (1.0 - p.z) * (1.0 - 1.0 / p.z);
    }
    g
}

/// How a line is extended for the prefilter's initial conditions (`apply_filter`'s
/// choice per mode).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    /// `mirror`, and the modes without an exact spline extension (`constant`,
    /// `grid-constant`, `wrap`).
    Mirror = 0,
    /// `grid-wrap`.
    Wrap = 1,
    /// `reflect` (`grid-mirror`), and `nearest` (on a line SciPy pads by 12 samples).
    Reflect = 2,
}

impl Init {
    pub fn of(mode: super::boundary::Mode) -> Init {
        use super::boundary::Mode;
        match mode {
            Mode::GridWrap => Init::Wrap,
            Mode::Nearest | Mode::Reflect => Init::Reflect,
            _ => Init::Mirror,
        }
    }

    #[inline(always)]
    pub fn from_code(code: u32) -> Init {
        match code {
            1 => Init::Wrap,
            2 => Init::Reflect,
            _ => Init::Mirror,
        }
    }
}

/// The constants of one pole on a line of `len` samples: `z`, `z^len` and
/// `z^(len - 1)` (C's `pow`, as SciPy; the host computes them once per launch).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoleOnLine {
    pub z: f64,
    pub z_n: f64,
    pub z_n_1: f64,
    pub terms: u64,
}

#[cfg(not(target_arch = "nvptx64"))]
impl PoleOnLine {
    pub fn new(p: Pole, len: usize) -> PoleOnLine {
        PoleOnLine {
            z: p.z,
            z_n: p.z.powf(len as f64),
            z_n_1: p.z.powf(len as f64 - 1.0),
            terms: p.terms as u64,
        }
    }
}

/// A line of coefficients the prefilter works on in place: `len` doubles, element `i`
/// read and written through the accessor (a strided pointer on the GPU, a slice here).
pub trait Line {
    fn samples(&self) -> usize;
    /// Element `i < len`.
    fn get(&self, i: usize) -> f64;
    /// Element `i < len` becomes `v`.
    fn set(&mut self, i: usize, v: f64);
}

/// Elements per step of the passes: their loads are issued together, a step ahead of
/// the recursion that consumes them (a thread's line is one long dependent chain).
pub const CHUNK: usize = 8;

/// SciPy's `_init_causal_*`: the first coefficient of the causal pass. Every element
/// read is first scaled by `scale` (the gain, folded into the first pole's reads).
#[inline(always)]
fn init_causal<L: Line>(c: &mut L, p: &PoleOnLine, init: Init, scale: f64) {
    let n = c.samples();
    let z = p.z;
    let terms = p.terms as usize;
    let at = |c: &L, i: usize| c.get(i) * scale;
    match init {
        Init::Mirror => {
            let z_n_1 = p.z_n_1;
            let mut c0 = at(c, 0) + z_n_1 * at(c, n - 1);
            let mut z_i = z;
            let end = if n - 1 < terms { n - 1 } else { terms };
            for i in 1..end {
                c0 += z_i * (at(c, i) + z_n_1 * at(c, n - 1 - i));
                z_i *= z;
            }
            c.set(0, c0 / (1.0 - z_n_1 * z_n_1));
        }
        Init::Wrap => {
            let mut c0 = at(c, 0);
            let mut z_i = z;
            let end = if n < terms { n } else { terms };
            for i in 1..end {
                c0 += z_i * at(c, n - i);
                z_i *= z;
            }
            // z_i is z^n when the sum ran whole; else below 2^-64, and 1 - z_i is 1
            // either way.
            c.set(0, c0 / (1.0 - z_i));
        }
        Init::Reflect => {
            let z_n = p.z_n;
            let c0 = at(c, 0);
            let mut sum = c0 + z_n * at(c, n - 1);
            let mut z_i = z;
            let end = if n < terms { n } else { terms };
            for i in 1..end {
                sum += z_i * (at(c, i) + z_n * at(c, n - 1 - i));
                z_i *= z;
            }
            c.set(0, c0 + sum * z / (1.0 - z_n * z_n));
        }
    }
}

/// SciPy's `_init_anticausal_*`: the last coefficient of the anticausal pass, from the
/// causal pass's output.
#[inline(always)]
fn init_anticausal<L: Line>(c: &mut L, p: &PoleOnLine, init: Init) {
    let n = c.samples();
    let z = p.z;
    let last = match init {
        Init::Mirror => (z * c.get(n - 2) + c.get(n - 1)) * z / (z * z - 1.0),
        Init::Wrap => {
            let terms = p.terms as usize;
            let mut cn = c.get(n - 1);
            let mut z_i = z;
            let end = if n - 1 < terms { n - 1 } else { terms };
            for i in 0..end {
                cn += z_i * c.get(i);
                z_i *= z;
            }
            cn * (z / (z_i - 1.0))
        }
        Init::Reflect => c.get(n - 1) * (z / (z - 1.0)),
    };
    c.set(n - 1, last);
}

/// Elements `i..i + CHUNK` (those below `n`), each times `scale`.
#[inline(always)]
fn chunk_up<L: Line>(c: &L, i: usize, n: usize, scale: f64) -> [f64; CHUNK] {
    let mut v = [0.0f64; CHUNK];
    let whole = i + CHUNK <= n; // the common case, without a test per element
    for (k, v) in v.iter_mut().enumerate() {
        if whole || i + k < n {
            *v = c.get(i + k) * scale;
        }
    }
    v
}

/// Elements `end - 1` down to `end - CHUNK` (those not below 0).
#[inline(always)]
fn chunk_down<L: Line>(c: &L, end: usize) -> [f64; CHUNK] {
    let mut v = [0.0f64; CHUNK];
    let whole = end >= CHUNK;
    for (k, v) in v.iter_mut().enumerate() {
        if whole || k < end {
            *v = c.get(end - 1 - k);
        }
    }
    v
}

/// One pole's two passes over a line of `len >= 2`: causal `c[i] += z c[i-1]`, then
/// anticausal `c[i] = z (c[i+1] - c[i])` (SciPy's `_apply_filter`). Reads of the
/// original samples are scaled by `scale` first. Each step loads the next chunk before
/// it runs the recursion through the current one (the chunks do not overlap), so a
/// thread has loads in flight while it computes.
#[inline(always)]
fn apply_pole<L: Line>(c: &mut L, p: &PoleOnLine, init: Init, scale: f64) {
    let n = c.samples();
    let z = p.z;
    init_causal(c, p, init, scale);
    let mut prev = c.get(0);
    let mut i = 1;
    let mut cur = chunk_up(c, i, n, scale);
    while i < n {
        let ahead = chunk_up(c, i + CHUNK, n, scale);
        let whole = i + CHUNK <= n;
        for (k, &v) in cur.iter().enumerate() {
            if whole || i + k < n {
                prev = v + z * prev;
                c.set(i + k, prev);
            }
        }
        cur = ahead;
        i += CHUNK;
    }
    init_anticausal(c, p, init);
    let mut next = c.get(n - 1);
    let mut end = n - 1; // elements below `end` are left to do, from the top down
    let mut cur = chunk_down(c, end);
    while end > 0 {
        let ahead = chunk_down(c, end.saturating_sub(CHUNK));
        let whole = end >= CHUNK;
        for (k, &v) in cur.iter().enumerate() {
            if whole || k < end {
                next = z * (next - v);
                c.set(end - 1 - k, next);
            }
        }
        cur = ahead;
        end = end.saturating_sub(CHUNK);
    }
}

/// SciPy's `apply_filter` on one line (`NI_SplineFilter1D` skips lines of one sample):
/// the gain, then the passes of the first `npoles` (1 or 2) poles, in place.
#[inline(always)]
pub fn filter_line<L: Line>(
    c: &mut L,
    poles: &[PoleOnLine; 2],
    npoles: usize,
    gain: f64,
    init: Init,
) {
    if c.samples() < 2 {
        return;
    }
    // Written out, not looped: the GPU indexes its launch struct with constants only.
    if npoles >= 1 {
        apply_pole(c, &poles[0], init, gain);
    }
    if npoles >= 2 {
        apply_pole(c, &poles[1], init, 1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interpolate::boundary::{Mode, map_tap};

    impl Line for Vec<f64> {
        fn samples(&self) -> usize {
            self.as_slice().len()
        }
        fn get(&self, i: usize) -> f64 {
            self[i]
        }
        fn set(&mut self, i: usize, v: f64) {
            self[i] = v;
        }
    }

    /// The poles of `order` on a line of `n` samples, as the launch struct holds them.
    fn on_line(order: usize, n: usize) -> ([PoleOnLine; 2], usize) {
        let p = poles(order);
        let zero = PoleOnLine {
            z: 0.0,
            z_n: 0.0,
            z_n_1: 0.0,
            terms: 0,
        };
        let get = |k: usize| p.get(k).map_or(zero, |&p| PoleOnLine::new(p, n));
        ([get(0), get(1)], p.len())
    }

    /// The centred B-spline of degree `n` at `x` (Cox-de Boor recursion on integer
    /// knots), computed independently of `weights`.
    fn bspline(n: usize, x: f64) -> f64 {
        // Knots -(n+1)/2, ..., (n+1)/2; basis of degree 0 on [k, k+1).
        fn b(n: usize, t: f64) -> f64 {
            // Uniform B-spline of degree n supported on [0, n+1).
            if n == 0 {
                return if (0.0..1.0).contains(&t) { 1.0 } else { 0.0 };
            }
            (t * b(n - 1, t) + (n as f64 + 1.0 - t) * b(n - 1, t - 1.0)) / n as f64
        }
        b(n, x + (n as f64 + 1.0) / 2.0)
    }

    /// The window start SciPy uses for coordinate `x`.
    fn start(x: f64, order: usize) -> i64 {
        (if order & 1 == 1 {
            x.floor()
        } else {
            (x + 0.5).floor()
        }) as i64
            - order as i64 / 2
    }

    #[test]
    fn weights_are_the_bspline_at_each_tap() {
        for order in 1..=5 {
            for k in 0..200 {
                let x = -3.0 + k as f64 * 0.0371;
                let w = weights(x, order);
                let s = start(x, order);
                let mut sum = 0.0;
                for (t, &wt) in w.iter().enumerate().take(order + 1) {
                    let want = bspline(order, x - (s + t as i64) as f64);
                    assert!(
                        (wt - want).abs() < 1e-14,
                        "order {order} x {x} tap {t}: {wt} vs {want}"
                    );
                    sum += wt;
                }
                assert!((sum - 1.0).abs() < 1e-15);
                assert!(w[order + 1..].iter().all(|&v| v == 0.0));
            }
        }
        assert_eq!(weights(0.3, 0), [0.0; MAX_TAPS]);
    }

    #[test]
    fn poles_and_gain_are_the_closed_forms() {
        let s = f64::sqrt;
        let want: [&[f64]; 4] = [
            &[s(8.0) - 3.0],
            &[s(3.0) - 2.0],
            &[
                s(664.0 - s(438976.0)) + s(304.0) - 19.0,
                s(664.0 + s(438976.0)) - s(304.0) - 19.0,
            ],
            &[
                s(67.5 - s(4436.25)) + s(26.25) - 6.5,
                s(67.5 + s(4436.25)) - s(26.25) - 6.5,
            ],
        ];
        for (order, want) in (2..=5).zip(want) {
            let p = poles(order);
            assert_eq!(p.len(), order / 2);
            for (p, &w) in p.iter().zip(want) {
                // The closed forms cancel digits (36.4 - 17.4 - 19 for order 4's second
                // pole): a few ulp of their largest term.
                assert!((p.z - w).abs() < 1e-14, "order {order}: {} vs {w}", p.z);
                // terms: the smallest K with |z|^K / (1 - |z|) < 2^-64.
                let tail = |k: i32| p.z.abs().powi(k) / (1.0 - p.z.abs());
                assert!(tail(p.terms as i32) < 2f64.powi(-64), "order {order} {p:?}");
                assert!(
                    tail(p.terms as i32 - 1) >= 2f64.powi(-64),
                    "order {order} {p:?}"
                );
            }
            // The gain makes the filter's response to a constant 1 (its DC gain).
            let dc: f64 = p.iter().map(|p| (1.0 - p.z) * (1.0 - 1.0 / p.z)).product();
            assert_eq!(gain(order), dc);
        }
        assert!(poles(0).is_empty() && poles(1).is_empty() && gain(1) == 1.0);
    }

    /// Spline coefficients interpolate: evaluating the spline of the prefiltered line
    /// at each sample (its taps extended by the mode the prefilter assumes) gives the
    /// sample back. This checks the initial conditions against their definition.
    #[test]
    fn prefiltered_lines_interpolate_their_samples() {
        let cases = [
            (Init::Mirror, Mode::Mirror),
            (Init::Reflect, Mode::Reflect),
            (Init::Wrap, Mode::GridWrap),
        ];
        for order in 2..=5 {
            for (init, tap_mode) in cases {
                for n in [2usize, 3, 5, 8, 13, 40, 90] {
                    let x: Vec<f64> = (0..n)
                        .map(|i| ((i * 37 + 11) % 17) as f64 - 8.0 + 0.25 * i as f64)
                        .collect();
                    let mut c = x.clone();
                    let (poles, np) = on_line(order, n);
                    filter_line(&mut c, &poles, np, gain(order), init);
                    let scale = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                    for (i, &xi) in x.iter().enumerate() {
                        let w = weights(i as f64, order);
                        let s = start(i as f64, order);
                        let mut v = 0.0;
                        for (t, &wt) in w.iter().enumerate().take(order + 1) {
                            v += wt * c[map_tap(s + t as i64, n as i64, tap_mode) as usize];
                        }
                        assert!(
                            (v - xi).abs() < 1e-12 * scale,
                            "order {order} {init:?} n {n} i {i}: {v} vs {xi}"
                        );
                    }
                }
            }
        }
    }

    /// SciPy's `apply_filter` as it is written (gain pass first, whole-line sums), for
    /// the comparison below.
    fn scipy_filter(c: &mut [f64], order: usize, init: Init) {
        let n = c.len();
        if n < 2 {
            return;
        }
        let g = gain(order);
        c.iter_mut().for_each(|v| *v *= g);
        for p in poles(order) {
            let z = p.z;
            match init {
                Init::Mirror => {
                    let z_n_1 = z.powf(n as f64 - 1.0);
                    let mut z_i = z;
                    c[0] += z_n_1 * c[n - 1];
                    for i in 1..n - 1 {
                        c[0] += z_i * (c[i] + z_n_1 * c[n - 1 - i]);
                        z_i *= z;
                    }
                    c[0] /= 1.0 - z_n_1 * z_n_1;
                }
                Init::Wrap => {
                    let mut z_i = z;
                    for i in 1..n {
                        c[0] += z_i * c[n - i];
                        z_i *= z;
                    }
                    c[0] /= 1.0 - z_i;
                }
                Init::Reflect => {
                    let z_n = z.powf(n as f64);
                    let mut z_i = z;
                    let mut sum = c[0] + z_n * c[n - 1];
                    for i in 1..n {
                        sum += z_i * (c[i] + z_n * c[n - 1 - i]);
                        z_i *= z;
                    }
                    c[0] += sum * z / (1.0 - z_n * z_n);
                }
            }
            for i in 1..n {
                c[i] += z * c[i - 1];
            }
            match init {
                Init::Mirror => c[n - 1] = (z * c[n - 2] + c[n - 1]) * z / (z * z - 1.0),
                Init::Wrap => {
                    let mut z_i = z;
                    for i in 0..n - 1 {
                        c[n - 1] += z_i * c[i];
                        z_i *= z;
                    }
                    c[n - 1] *= z / (z_i - 1.0);
                }
                Init::Reflect => c[n - 1] *= z / (z - 1.0),
            }
            for i in (0..n - 1).rev() {
                c[i] = z * (c[i + 1] - c[i]);
            }
        }
    }

    /// Bit for bit SciPy's arithmetic on lines its truncated sums cover whole, and
    /// within 2^-60 of the largest coefficient on longer ones.
    #[test]
    fn prefilter_matches_scipys_arithmetic() {
        for order in 2..=5 {
            for init in [Init::Mirror, Init::Wrap, Init::Reflect] {
                for n in [1usize, 2, 3, 4, 7, 11, 26, 200, 1000] {
                    let x: Vec<f64> = (0..n)
                        .map(|i| ((i as f64 * 0.7548776662).fract() - 0.5) * 100.0)
                        .collect();
                    let mut want = x.clone();
                    scipy_filter(&mut want, order, init);
                    let mut got = x.clone();
                    let (poles, np) = on_line(order, n);
                    filter_line(&mut got, &poles, np, gain(order), init);
                    let whole = poles[..np].iter().all(|p| n <= p.terms as usize);
                    let big = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                    for i in 0..n {
                        if whole {
                            assert_eq!(
                                got[i].to_bits(),
                                want[i].to_bits(),
                                "order {order} {init:?} n {n} i {i}"
                            );
                        } else {
                            assert!(
                                (got[i] - want[i]).abs() <= big * 2f64.powi(-60),
                                "order {order} {init:?} n {n} i {i}"
                            );
                        }
                    }
                }
            }
        }
    }
}
