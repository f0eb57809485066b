//! Bluestein's chirp-z: a transform of any length `n` as a circular convolution of
//! length `m >= 2n - 1` (a 7-smooth length), done by two smooth transforms.
//! `X_k = c_k sum_j (x_j c_j) conj(c_(k-j))` with the chirp `c_j = exp(-i pi j^2 / n)`.

use gpupy_kernels::fft::plan::{Geometry, bluestein_length};
use gpupy_kernels::fft::radix::Cx;
use gpupy_kernels::fft::twiddle::chirp;
use gpupy_kernels::fft::{Part, Twist};

use super::run::{Job, complex, strided, transform, twist};
use super::tables::{Key, table, table_with};
use crate::array::Array;
use crate::device::Device;
use crate::error::Result;
use crate::ops::elementwise::copy::astype;
use crate::stream;

/// The filter: the forward transform of `conj(c_j)` placed at `j` and `m - j`, divided by
/// `m` (so the convolution comes out unscaled). Computed in complex128 on the GPU and
/// rounded once for complex64.
fn filter(device: &'static Device, n: u64, double: bool) -> Result<Array> {
    let m = bluestein_length(n);
    let mut b = vec![Cx::<f64>::default(); m as usize];
    for j in 0..n {
        let c = chirp(j, n).conj();
        b[j as usize] = c;
        if j > 0 {
            b[(m - j) as usize] = c;
        }
    }
    let bytes: Vec<u8> = b
        .iter()
        .flat_map(|v| [v.re.to_ne_bytes(), v.im.to_ne_bytes()].concat())
        .collect();
    let input = Array::from_host(device, &bytes, &[m as usize], complex(true))?;
    let out = Array::empty(device, &[m as usize], complex(true))?;
    let geo = Geometry {
        batch1: 1,
        batch0: 1,
        src: [0, 0, 1],
        dst: [0, 0, 1],
    };
    let job = Job {
        device,
        double: true,
        n: m,
        geo: &geo,
        src: input.data_ptr(),
        dst: out.data_ptr(),
        conj: false,
        scale: 1.0 / m as f64,
    };
    transform(job, None)?;
    let out = if double {
        out
    } else {
        astype(&out, complex(false))?
    };
    // Cached tables are read from any stream later.
    stream::current_stream(device).synchronize()?;
    Ok(out)
}

/// A transform of any length (no small-prime factorization needed).
pub fn transform_any(job: Job<'_>) -> Result<()> {
    let Job {
        device,
        double,
        n,
        geo,
        src,
        dst,
        conj,
        scale,
    } = job;
    let batch = geo.batch1 * geo.batch0;
    let m = bluestein_length(n);
    let chirps = table(device, Key::Chirp { n, double })?;
    let filter = table_with(device, Key::Filter { n, double }, || {
        filter(device, n, double)
    })?;
    let a = Array::empty(device, &[(batch * m) as usize], complex(double))?;
    let b = Array::empty(device, &[(batch * m) as usize], complex(double))?;
    let rows = [geo.batch0 as i64 * m as i64, m as i64, 1];
    let base = Twist {
        batch,
        batch0: geo.batch0,
        len: n,
        table: chirps.data_ptr(),
        conj: conj as u32,
        scale,
        ..Twist::default()
    };
    // a = chirped input, zero-padded to m.
    twist(
        device,
        Part::ChirpIn,
        double,
        Twist {
            src: strided(src, geo.src),
            dst: strided(a.data_ptr(), rows),
            n: m,
            ..base
        },
    )?;
    let inner = Geometry {
        batch1: geo.batch1,
        batch0: geo.batch0,
        src: rows,
        dst: rows,
    };
    // b = transform(a); a = inverse transform(b * filter) (conjugate in and out).
    let forward = Job {
        n: m,
        geo: &inner,
        src: a.data_ptr(),
        dst: b.data_ptr(),
        conj: false,
        scale: 1.0,
        ..job
    };
    transform(forward, None)?;
    let back = Job {
        src: b.data_ptr(),
        dst: a.data_ptr(),
        conj: true,
        ..forward
    };
    transform(back, Some(&filter))?;
    twist(
        device,
        Part::ChirpOut,
        double,
        Twist {
            src: strided(a.data_ptr(), rows),
            dst: strided(dst, geo.dst),
            n,
            ..base
        },
    )
}
