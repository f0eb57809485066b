//! The tables transforms read (twiddles, chirps, Bluestein's filter), built once per
//! device and kept in a cache with CuPy's controls: a limit on the number of entries
//! and one on their bytes (`gpupy.fft.config.get_plan_cache()`), least recently used
//! out first. An entry in use stays alive after eviction (the caller holds the array).

use std::sync::Mutex;

use gpupy_kernels::fft::plan::{block_table, four_step_table};
use gpupy_kernels::fft::radix::Cx;
use gpupy_kernels::fft::twiddle::{chirp, turn};

use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;

/// What a table holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// The stage twiddles of a pass of `len` (`plan::block_table`).
    Block { len: u32, double: bool },
    /// Bluestein's chirp `exp(-i pi k^2 / n)`, `k < n`.
    Chirp { n: u64, double: bool },
    /// Bluestein's filter: the transform of the conjugate chirp, over `m`, divided by `m`.
    Filter { n: u64, double: bool },
    /// `W_n^k`, `k <= n / 2`, for the real transforms' twists.
    Real { n: u64, double: bool },
    /// The four-step twiddles between the passes of a transform of `n` points
    /// (`plan::four_step_table`), float64 for both precisions.
    FourStep { n: u64 },
}

impl Key {
    /// The kind as `show_info` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Key::Block { .. } => "twiddles",
            Key::Chirp { .. } => "bluestein chirp",
            Key::Filter { .. } => "bluestein filter",
            Key::Real { .. } => "real twist",
            Key::FourStep { .. } => "four-step twiddles",
        }
    }

    /// The transform length it serves.
    pub fn length(&self) -> u64 {
        match *self {
            Key::Block { len, .. } => len as u64,
            Key::Chirp { n, .. }
            | Key::Filter { n, .. }
            | Key::Real { n, .. }
            | Key::FourStep { n } => n,
        }
    }
}

struct Entry {
    device: usize,
    key: Key,
    array: Array,
    used: u64,
}

struct Cache {
    entries: Vec<Entry>,
    clock: u64,
    /// Entry and byte limits; negative is unlimited, 0 keeps nothing.
    size_limit: i64,
    memsize_limit: i64,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache {
    entries: Vec::new(),
    clock: 0,
    size_limit: 16,
    memsize_limit: -1,
});

fn lock() -> std::sync::MutexGuard<'static, Cache> {
    CACHE.lock().unwrap_or_else(|e| e.into_inner())
}

impl Cache {
    fn bytes(&self, device: usize) -> usize {
        self.entries
            .iter()
            .filter(|e| e.device == device)
            .map(|e| e.array.nbytes())
            .sum()
    }

    /// Drops least recently used entries of `device` until both limits hold.
    fn trim(&mut self, device: usize) {
        loop {
            let count = self.entries.iter().filter(|e| e.device == device).count() as i64;
            let bytes = self.bytes(device) as i64;
            let over = (self.size_limit >= 0 && count > self.size_limit)
                || (self.memsize_limit >= 0 && bytes > self.memsize_limit);
            if !over || count == 0 {
                return;
            }
            let oldest = (0..self.entries.len())
                .filter(|&i| self.entries[i].device == device)
                .min_by_key(|&i| self.entries[i].used)
                .unwrap();
            self.entries.swap_remove(oldest);
        }
    }
}

/// The table `key` on `device`, from the cache or built now (`Key::Filter`, which
/// needs a transform, is built by `bluestein` through `table_with`).
pub fn table(device: &'static Device, key: Key) -> Result<Array> {
    table_with(device, key, || build(device, key))
}

/// The table `key` on `device`, from the cache or made by `make`.
pub fn table_with(
    device: &'static Device,
    key: Key,
    make: impl FnOnce() -> Result<Array>,
) -> Result<Array> {
    {
        let mut c = lock();
        c.clock += 1;
        let now = c.clock;
        if let Some(e) = c
            .entries
            .iter_mut()
            .find(|e| e.device == device.id && e.key == key)
        {
            e.used = now;
            return Ok(e.array.clone());
        }
    }
    let array = make()?;
    let mut c = lock();
    if c.size_limit != 0 && c.memsize_limit != 0 {
        let used = c.clock;
        c.entries.push(Entry {
            device: device.id,
            key,
            array: array.clone(),
            used,
        });
        c.trim(device.id);
    }
    Ok(array)
}

fn upload(device: &'static Device, values: &[Cx<f64>], double: bool) -> Result<Array> {
    let (dtype, bytes): (DType, Vec<u8>) = if double {
        let b = values
            .iter()
            .flat_map(|v| [v.re.to_ne_bytes(), v.im.to_ne_bytes()].concat())
            .collect();
        (DType::Complex128, b)
    } else {
        let b = values
            .iter()
            .flat_map(|v| [(v.re as f32).to_ne_bytes(), (v.im as f32).to_ne_bytes()].concat())
            .collect();
        (DType::Complex64, b)
    };
    Array::from_host(device, &bytes, &[values.len()], dtype)
}

fn build(device: &'static Device, key: Key) -> Result<Array> {
    match key {
        Key::Block { len, double } => {
            // A pass of one point has no stages and reads no table.
            let v = block_table(len);
            upload(
                device,
                if v.is_empty() {
                    &[Cx { re: 1.0, im: 0.0 }]
                } else {
                    &v
                },
                double,
            )
        }
        Key::Chirp { n, double } => {
            let v: Vec<_> = (0..n).map(|k| chirp(k, n)).collect();
            upload(device, &v, double)
        }
        Key::Filter { .. } => Err(crate::error::Error::Value(
            "internal: Bluestein's filter is built by ops::fft::bluestein".into(),
        )),
        Key::Real { n, double } => {
            let v: Vec<_> = (0..=n / 2).map(|k| turn(k, n)).collect();
            upload(device, &v, double)
        }
        Key::FourStep { n } => upload(device, &four_step_table(n), true),
    }
}

/// The cache's state on a device: entries, their bytes, and the two limits.
pub struct Info {
    pub size: usize,
    pub memsize: usize,
    pub size_limit: i64,
    pub memsize_limit: i64,
    /// (kind, length, complex128?, bytes) of each entry, most recently used first.
    pub entries: Vec<(&'static str, u64, bool, usize)>,
}

pub fn info(device: usize) -> Info {
    let c = lock();
    let mut mine: Vec<&Entry> = c.entries.iter().filter(|e| e.device == device).collect();
    mine.sort_by_key(|e| std::cmp::Reverse(e.used));
    Info {
        size: mine.len(),
        memsize: c.bytes(device),
        size_limit: c.size_limit,
        memsize_limit: c.memsize_limit,
        entries: mine
            .iter()
            .map(|e| {
                let double = match e.key {
                    Key::Block { double, .. }
                    | Key::Chirp { double, .. }
                    | Key::Filter { double, .. }
                    | Key::Real { double, .. } => double,
                    Key::FourStep { .. } => true,
                };
                (e.key.kind(), e.key.length(), double, e.array.nbytes())
            })
            .collect(),
    }
}

/// Sets both limits (negative: unlimited; 0 keeps nothing) and trims `device`'s entries.
pub fn set_limits(device: usize, size_limit: i64, memsize_limit: i64) {
    let mut c = lock();
    c.size_limit = size_limit;
    c.memsize_limit = memsize_limit;
    c.trim(device);
}

pub fn clear(device: usize) {
    lock().entries.retain(|e| e.device != device);
}
