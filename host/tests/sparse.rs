//! The sparse family's host ops on a GPU against direct CPU computations (the Python
//! suite checks the same kernels against SciPy): every SpMV schedule, SpMM, the
//! transposed products, segments, CSR to COO rows, validation flags, SpGEMM and the
//! two-matrix merges, with int32 and int64 indices, on a power-law matrix with empty
//! rows, duplicates and one long row. Values are small integers, so every sum is exact
//! whatever the order of the additions and results compare exactly. Skipped (passing)
//! without a GPU unless `GPUPY_REQUIRE_GPU=1`.
// The references index rows and columns as the formulas do.
#![allow(clippy::needless_range_loop)]

mod common;
use common::gpu;

use gpupy_host::ops::sparse::{self, Compressed, SEG_MAX, SEG_SUM, Schedule};
use gpupy_host::{Array, DType, device};

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A host CSR matrix: row lengths with a heavy tail (empty rows, one row of 3000),
/// columns in any order with repeats, small integer values.
struct Host {
    rows: usize,
    cols: usize,
    indptr: Vec<i64>,
    indices: Vec<i64>,
    data: Vec<f64>,
}

fn lcg(s: &mut u64) -> u64 {
    *s = s
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *s >> 33
}

fn random_csr(rows: usize, cols: usize, seed: u64) -> Host {
    let mut s = seed;
    let (mut indptr, mut indices, mut data) = (vec![0i64], vec![], vec![]);
    for r in 0..rows {
        let len = if r == rows / 2 {
            3000
        } else {
            match lcg(&mut s) % 10 {
                0..=2 => 0,
                3..=7 => lcg(&mut s) % 6,
                _ => lcg(&mut s) % 60,
            }
        };
        for _ in 0..len {
            indices.push((lcg(&mut s) % cols as u64) as i64);
            data.push((lcg(&mut s) % 9) as f64 - 4.0);
        }
        indptr.push(indices.len() as i64);
    }
    Host {
        rows,
        cols,
        indptr,
        indices,
        data,
    }
}

impl Host {
    fn dense(&self) -> Vec<Vec<f64>> {
        let mut d = vec![vec![0.0; self.cols]; self.rows];
        for r in 0..self.rows {
            for p in self.indptr[r] as usize..self.indptr[r + 1] as usize {
                d[r][self.indices[p] as usize] += self.data[p];
            }
        }
        d
    }

    /// Canonical (sorted, duplicates summed) copy.
    fn canonical(&self) -> Host {
        let d = self.dense();
        let (mut indptr, mut indices, mut data) = (vec![0i64], vec![], vec![]);
        for (r, row) in d.iter().enumerate() {
            for (c, &v) in row.iter().enumerate() {
                let stored = (self.indptr[r]..self.indptr[r + 1])
                    .any(|p| self.indices[p as usize] == c as i64);
                if stored {
                    indices.push(c as i64);
                    data.push(v);
                }
            }
            indptr.push(indices.len() as i64);
        }
        Host {
            rows: self.rows,
            cols: self.cols,
            indptr,
            indices,
            data,
        }
    }

    fn upload(&self, dev: &'static device::Device, index: DType) -> Compressed {
        let ints = |v: &[i64]| -> Array {
            let bytes: Vec<u8> = if index == DType::Int32 {
                v.iter().flat_map(|&x| (x as i32).to_le_bytes()).collect()
            } else {
                v.iter().flat_map(|&x| x.to_le_bytes()).collect()
            };
            Array::from_host(dev, &bytes, &[v.len()], index).unwrap()
        };
        let data = floats(dev, &self.data, &[self.data.len()]);
        Compressed::new(
            &ints(&self.indptr),
            &ints(&self.indices),
            &data,
            self.rows,
            self.cols,
        )
        .unwrap()
    }
}

fn floats(dev: &'static device::Device, v: &[f64], shape: &[usize]) -> Array {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    Array::from_host(dev, &bytes, shape, DType::Float64).unwrap()
}

fn download(a: &Array) -> Vec<f64> {
    let mut bytes = vec![0u8; a.nbytes()];
    gpupy_host::ops::elementwise::copy::to_host(a, &mut bytes).unwrap();
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn download_ints(a: &Array) -> Vec<i64> {
    let mut bytes = vec![0u8; a.nbytes()];
    gpupy_host::ops::elementwise::copy::to_host(a, &mut bytes).unwrap();
    match a.dtype() {
        DType::Int32 => bytes
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()) as i64)
            .collect(),
        _ => bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
    }
}

#[test]
fn products_match_cpu_on_every_schedule() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(dev) = gpu("products_match_cpu_on_every_schedule") else {
        return;
    };
    let h = random_csr(701, 3500, 3);
    let d = h.dense();
    let x: Vec<f64> = (0..h.cols).map(|k| (k % 7) as f64 - 3.0).collect();
    let want: Vec<f64> = d
        .iter()
        .map(|row| row.iter().zip(&x).map(|(a, b)| a * b).sum())
        .collect();
    for index in [DType::Int32, DType::Int64] {
        let m = h.upload(dev, index);
        let gx = floats(dev, &x, &[h.cols]);
        let planned = sparse::spmv_plan(&m.indptr, h.indices.len()).unwrap();
        assert_eq!(
            planned,
            Schedule::Merge,
            "one row of 3000 among short ones is skewed"
        );
        let mut schedules = vec![Schedule::Merge];
        schedules.extend([1, 2, 4, 8, 16, 32].map(Schedule::Lanes));
        for s in schedules {
            assert_eq!(
                download(&sparse::spmv(&m, &gx, s).unwrap()),
                want,
                "{s:?} {index:?}"
            );
        }
        // SpMM with 5 columns, and the transposed products.
        let k = 5;
        let xs: Vec<f64> = (0..h.cols * k).map(|i| (i % 5) as f64 - 2.0).collect();
        let y = download(&sparse::spmm(&m, &floats(dev, &xs, &[h.cols, k])).unwrap());
        for r in 0..h.rows {
            for j in 0..k {
                let w: f64 = (0..h.cols).map(|c| d[r][c] * xs[c * k + j]).sum();
                assert_eq!(y[r * k + j], w);
            }
        }
        let u: Vec<f64> = (0..h.rows).map(|r| (r % 3) as f64 - 1.0).collect();
        let yt = download(&sparse::spmm_t(&m, &floats(dev, &u, &[h.rows])).unwrap());
        for c in 0..h.cols {
            let w: f64 = (0..h.rows).map(|r| d[r][c] * u[r]).sum();
            assert_eq!(yt[c], w);
        }
    }
}

#[test]
fn structure_ops_match_cpu() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(dev) = gpu("structure_ops_match_cpu") else {
        return;
    };
    let h = random_csr(300, 400, 5);
    for index in [DType::Int32, DType::Int64] {
        let m = h.upload(dev, index);
        let (flags, last) = sparse::validate(&m.indptr, &m.indices, h.rows, h.cols).unwrap();
        assert_eq!(last, h.indices.len() as i64);
        assert_eq!(flags & 0x1f, 0, "a valid matrix");
        assert_ne!(flags & 32, 0, "unsorted rows");
        let c = h.canonical().upload(dev, index);
        let (cf, _) = sparse::validate(&c.indptr, &c.indices, h.rows, h.cols).unwrap();
        assert_eq!(cf, 0, "canonical");
        let (bad, _) = sparse::validate(&m.indptr, &m.indices, h.rows, 10).unwrap();
        assert_ne!(bad & 16, 0, "indices past 10 columns");
        // CSR to COO rows.
        let rows = download_ints(&sparse::expand_rows(&m.indptr, h.indices.len()).unwrap());
        for r in 0..h.rows {
            for p in h.indptr[r] as usize..h.indptr[r + 1] as usize {
                assert_eq!(rows[p], r as i64);
            }
        }
        // Row sums and maxima (first position of the maximum, -1 for empty rows).
        let (sums, _) = sparse::segment(&m.indptr, &m.data, SEG_SUM).unwrap();
        let (maxes, pos) = sparse::segment(&m.indptr, &m.data, SEG_MAX).unwrap();
        let (sums, maxes, pos) = (
            download(&sums),
            download(&maxes),
            download_ints(&pos.unwrap()),
        );
        for r in 0..h.rows {
            let (s, e) = (h.indptr[r] as usize, h.indptr[r + 1] as usize);
            assert_eq!(sums[r], h.data[s..e].iter().sum::<f64>());
            if s == e {
                assert_eq!(pos[r], -1);
            } else {
                let best = h.data[s..e]
                    .iter()
                    .cloned()
                    .fold(f64::NEG_INFINITY, f64::max);
                let first = s + h.data[s..e].iter().position(|&v| v == best).unwrap();
                assert_eq!((maxes[r], pos[r]), (best, first as i64));
            }
        }
        // The dense matrix (duplicates summed), C and Fortran order.
        let want: Vec<f64> = h.dense().concat();
        assert_eq!(download(&sparse::to_dense(&m, false, false).unwrap()), want);
        let f = sparse::to_dense(&m, true, false).unwrap();
        let f = gpupy_host::ops::elementwise::copy::contiguous(&f).unwrap();
        assert_eq!(download(&f), want);
    }
}

#[test]
fn spgemm_and_merges_match_cpu() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(dev) = gpu("spgemm_and_merges_match_cpu") else {
        return;
    };
    let a = random_csr(120, 90, 7);
    let b = random_csr(90, 4000, 9);
    let (da, db) = (a.dense(), b.dense());
    for index in [DType::Int32, DType::Int64] {
        let (ga, gb) = (a.upload(dev, index), b.upload(dev, index));
        let (indptr, indices, data, sorted) = sparse::spgemm(&ga, &gb).unwrap();
        let (indptr, indices, data) = (
            download_ints(&indptr),
            download_ints(&indices),
            download(&data),
        );
        for r in 0..a.rows {
            let row = &indices[indptr[r] as usize..indptr[r + 1] as usize];
            if sorted {
                assert!(row.windows(2).all(|w| w[0] < w[1]), "row {r} sorted");
            }
            let mut got = vec![0.0; b.cols];
            for p in indptr[r] as usize..indptr[r + 1] as usize {
                got[indices[p] as usize] += data[p];
            }
            let want: Vec<f64> = (0..b.cols)
                .map(|c| (0..a.cols).map(|k| da[r][k] * db[k][c]).sum())
                .collect();
            assert_eq!(got, want, "row {r}");
        }
        // A + A^2-shaped other: merges of canonical operands of one shape.
        let (x, y) = (
            random_csr(200, 150, 11).canonical(),
            random_csr(200, 150, 13).canonical(),
        );
        let (gx, gy) = (x.upload(dev, index), y.upload(dev, index));
        let (dx, dy) = (x.dense(), y.dense());
        for (op, f) in [
            (0u32, (|p: f64, q: f64| p + q) as fn(f64, f64) -> f64),
            (2, |p, q| p * q),
            (4, |p: f64, q: f64| p.max(q)),
        ] {
            let (indptr, indices, data) = sparse::binop(op, &gx, &gy).unwrap();
            let (indptr, indices, data) = (
                download_ints(&indptr),
                download_ints(&indices),
                download(&data),
            );
            for r in 0..x.rows {
                let mut got = vec![0.0; x.cols];
                for p in indptr[r] as usize..indptr[r + 1] as usize {
                    got[indices[p] as usize] = data[p];
                }
                let want: Vec<f64> = (0..x.cols).map(|c| f(dx[r][c], dy[r][c])).collect();
                assert_eq!(got, want, "op {op} row {r}");
            }
        }
    }
}
