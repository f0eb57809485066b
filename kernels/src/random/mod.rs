//! Random numbers: NumPy's PCG64 bit for bit, and every distribution from
//! counter-based Philox4x32-10 streams.
//!
//! - `pcg64`: NumPy's PCG64 step, output and O(log n) jump-ahead. The GPU engine starts
//!   each thread at its own output and strides by the grid, so `random()` and
//!   `random_raw()` give NumPy's exact bits in any launch shape.
//! - `philox`: the counter-based generator the distributions draw from. A call draws a
//!   64-bit key from the bit generator (on the host); element `i` reads only counters
//!   made from `i`, so its value depends on the key and `i` alone.
//! - `distributions`: what each distribution computes from uniform words (CPU-tested).
//!
//! The launch structs ([`Pcg64Args`], [`Draw`], [`Bounded`]) are the kernels' first
//! parameter; the output pointer follows. Outputs are C-contiguous, 16-byte aligned,
//! fresh arrays of `n` elements; parameter arrays are C-contiguous float64 (uint64 for
//! integer bounds) of `n` elements, or absent (`ptr == 0`) when one value serves all.

pub mod distributions;
pub mod pcg64;
pub mod philox;

pub use pcg64::U128;

/// Threads per block of the random kernels.
pub const RANDOM_BLOCK: u32 = 256;

/// NumPy's PCG64 at some state: the kernels write outputs `0..n` from `state` (output
/// `j` is `output(state after j + 1 steps)`). In the float32 kernel `n` counts elements;
/// with `has_first`, element 0 is `first` (the half of an output NumPy kept from its
/// previous call) and the outputs' halves fill elements `1..n`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Pcg64Args {
    pub state: U128,
    pub inc: U128,
    pub n: u64,
    pub first: f32,
    pub has_first: u32,
}

/// A distribution parameter: `value` for every element, or (when `ptr != 0`) element
/// `i`'s own value at `ptr[i]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Param {
    pub ptr: u64,
    pub value: f64,
}

/// One draw of `n` elements of a distribution under a Philox key.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Draw {
    pub key: u64,
    pub n: u64,
    pub p: [Param; 3],
}

/// Bounded integers `low + [0, range]` (wrapping in the output's width), each bound a
/// value or (when its pointer is set) a uint64 array of `n` elements.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Bounded {
    pub key: u64,
    pub n: u64,
    pub low_ptr: u64,
    pub low: u64,
    pub range_ptr: u64,
    pub range: u64,
}

/// The real-valued distributions, in the order of `for_each_continuous!`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continuous {
    /// `p0 + (p1 - p0) * U[0, 1)`.
    Uniform,
    /// `p0 + p1 * Z`.
    Normal,
    /// `exp(p0 + p1 * Z)`.
    LogNormal,
    /// `p0 * E`.
    Exponential,
    /// `p1 * Gamma(p0)`.
    Gamma,
    /// `Beta(p0, p1)`.
    Beta,
    /// `p0 + p1 * Laplace`.
    Laplace,
    /// `p0 + p1 * Logistic`.
    Logistic,
    /// `p0 + p1 * Gumbel`.
    Gumbel,
}

/// The integer-valued distributions (int64 out), in the order of `for_each_discrete!`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discrete {
    /// Mean `p0`.
    Poisson,
    /// `p0` trials, probability `p1`.
    Binomial,
    /// Probability `p0`.
    Geometric,
}

#[macro_export]
macro_rules! for_each_continuous {
    ($m:ident $(, $extra:tt)*) => {
        $m! { [$($extra)*] uniform normal lognormal exponential gamma beta laplace logistic gumbel }
    };
}
#[macro_export]
macro_rules! for_each_discrete {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] poisson binomial geometric } };
}
/// Output widths of the bounded-integer kernels (signed dtypes and bool share them).
#[macro_export]
macro_rules! for_each_integer_width {
    ($m:ident $(, $extra:tt)*) => { $m! { [$($extra)*] u8 u16 u32 u64 } };
}

macro_rules! random_names {
    ([$prefix:literal $suffix:literal] $($k:ident)*) => {
        &[$(concat!($prefix, stringify!($k), $suffix)),*]
    };
}

crate::module_parts! {
    /// The parts of the random module.
    Part in Random {
        /// NumPy's PCG64: raw outputs, doubles, floats.
        Pcg64 = &["gpupy_random_pcg64_u64", "gpupy_random_pcg64_f64", "gpupy_random_pcg64_f32"],
        /// Real distributions, float32 out (`for_each_continuous!`).
        ContinuousF32 = crate::for_each_continuous!(random_names, "gpupy_random_", "_f32"),
        /// Real distributions, float64 out.
        ContinuousF64 = crate::for_each_continuous!(random_names, "gpupy_random_", "_f64"),
        /// Integer distributions, int64 out (`for_each_discrete!`).
        Discrete = crate::for_each_discrete!(random_names, "gpupy_random_", "_i64"),
        /// Bounded integers of ranges below 2^32, by output width.
        Integers32 = crate::for_each_integer_width!(random_names, "gpupy_random_integers32_", ""),
        /// Bounded integers of any range, by output width.
        Integers64 = crate::for_each_integer_width!(random_names, "gpupy_random_integers64_", ""),
    }
}

/// What the PCG64 kernel writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pcg64Out {
    Raw,
    F64,
    F32,
}

/// The PCG64 kernel writing `out`.
pub fn pcg64(out: Pcg64Out) -> crate::registry::Kernel {
    Part::Pcg64.at(out as usize)
}

/// The kernel of a real distribution, float64 or float32 out.
pub fn continuous(kind: Continuous, f64_out: bool) -> crate::registry::Kernel {
    if f64_out {
        Part::ContinuousF64.at(kind as usize)
    } else {
        Part::ContinuousF32.at(kind as usize)
    }
}

/// The kernel of an integer distribution.
pub fn discrete(kind: Discrete) -> crate::registry::Kernel {
    Part::Discrete.at(kind as usize)
}

/// The bounded-integer kernel for `itemsize`-byte outputs (1, 2, 4 or 8); `wide` when
/// some range reaches 2^32.
pub fn integers(itemsize: usize, wide: bool) -> Option<crate::registry::Kernel> {
    let i = match itemsize {
        1 => 0,
        2 => 1,
        4 => 2,
        8 => 3,
        _ => return None,
    };
    Some(
        if wide {
            Part::Integers64
        } else {
            Part::Integers32
        }
        .at(i),
    )
}

#[cfg(all(target_arch = "nvptx64", feature = "random"))]
mod gpu;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_name_their_kernels() {
        assert_eq!(
            KERNELS[pcg64(Pcg64Out::F32).index as usize],
            "gpupy_random_pcg64_f32"
        );
        assert_eq!(
            KERNELS[continuous(Continuous::Gumbel, true).index as usize],
            "gpupy_random_gumbel_f64"
        );
        assert_eq!(
            KERNELS[continuous(Continuous::LogNormal, false).index as usize],
            "gpupy_random_lognormal_f32"
        );
        assert_eq!(
            KERNELS[discrete(Discrete::Geometric).index as usize],
            "gpupy_random_geometric_i64"
        );
        assert_eq!(
            KERNELS[integers(2, true).unwrap().index as usize],
            "gpupy_random_integers64_u16"
        );
        assert!(integers(3, false).is_none());
    }

    /// The host's PCG64 against NumPy's, on vectors NumPy makes here and now: the same
    /// state gives the same raw outputs, doubles and floats, and jumps land where
    /// NumPy's `advance` does.
    #[test]
    fn pcg64_matches_numpy() {
        let script = r#"
import numpy as np
for seed in (0, 1, 12345, 2**63 + 7):
    g = np.random.PCG64(seed)
    s = g.state["state"]
    print(s["state"], s["inc"], *g.random_raw(5))
    g.state = {"bit_generator": "PCG64", "state": s, "has_uint32": 0, "uinteger": 0}
    print(*[float(v).hex() for v in np.random.Generator(g).random(3)])
    g.state = {"bit_generator": "PCG64", "state": s, "has_uint32": 0, "uinteger": 0}
    print(*[float(v).hex() for v in np.random.Generator(g).random(3, dtype=np.float32)])
    g.state = {"bit_generator": "PCG64", "state": s, "has_uint32": 0, "uinteger": 0}
    g.advance(1000003)
    print(g.state["state"]["state"])
"#;
        let out = std::process::Command::new(std::env::var("PYTHON").unwrap_or("python3".into()))
            .args(["-c", script])
            .output()
            .expect("this test runs python3 with NumPy (scripts/dev.sh installs it)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 16);
        let wide = |s: &str| -> U128 {
            let v: u128 = s.parse().unwrap();
            U128::new((v >> 64) as u64, v as u64)
        };
        let hexf = |s: &str| -> f64 {
            // float.hex(): [-]0x1.<13 hex digits>p<exp>, or 0x0.0p+0.
            let (mant, exp) = s.trim_start_matches("0x").split_once('p').unwrap();
            let (int, frac) = mant.split_once('.').unwrap();
            let m = u64::from_str_radix(int, 16).unwrap() as f64
                + u64::from_str_radix(frac, 16).unwrap() as f64 / 16f64.powi(frac.len() as i32);
            m * 2f64.powi(exp.parse().unwrap())
        };
        for chunk in lines.chunks(4) {
            let f: Vec<&str> = chunk[0].split(' ').collect();
            let (state, inc) = (wide(f[0]), wide(f[1]));
            let mut s = state;
            let mut raw = vec![];
            for k in 0..5 {
                s = pcg64::step(s, inc);
                raw.push(pcg64::output(s));
                assert_eq!(raw[k], f[2 + k].parse::<u64>().unwrap());
            }
            for (k, v) in chunk[1].split(' ').enumerate() {
                assert_eq!(pcg64::to_f64(raw[k]), hexf(v));
            }
            // float32: low half of output 0, its high half, then output 1's low half.
            let halves = [raw[0] as u32, (raw[0] >> 32) as u32, raw[1] as u32];
            for (k, v) in chunk[2].split(' ').enumerate() {
                assert_eq!(pcg64::to_f32(halves[k]) as f64, hexf(v));
            }
            let (a, c) = pcg64::jump(inc, 1_000_003);
            assert_eq!(state.mul(a).add(c), wide(chunk[3]));
        }
    }

    /// Philox4x32-10 against an independent implementation in Python integers.
    #[test]
    fn philox_matches_a_reference() {
        let script = r#"
M = 2**32 - 1
def philox(c, k):
    c = list(c); k = list(k)
    for r in range(10):
        if r:
            k = [(k[0] + 0x9E3779B9) & M, (k[1] + 0xBB67AE85) & M]
        p0 = 0xD2511F53 * c[0]; p1 = 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & M, (p0 >> 32) ^ c[3] ^ k[1], p0 & M]
    return c
for c, k in [((0, 0, 0, 0), (0, 0)), ((M, M, M, M), (M, M)), ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0)), ((5, 0, 9, 0), (77, 1))]:
    print(*c, *k, *philox(c, k))
"#;
        let out = std::process::Command::new(std::env::var("PYTHON").unwrap_or("python3".into()))
            .args(["-c", script])
            .output()
            .expect("this test runs python3");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            let v: Vec<u32> = line.split(' ').map(|x| x.parse().unwrap()).collect();
            let got = philox::philox4x32_10([v[0], v[1], v[2], v[3]], [v[4], v[5]]);
            assert_eq!(got.as_slice(), &v[6..10]);
        }
    }
}
