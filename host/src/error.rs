//! The one error type. Each variant maps to the Python exception NumPy or CuPy raises for
//! the same failure (the mapping lives in the bindings).

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// No driver library, no GPU, or the driver refused to start (CuPy's
    /// `CUDARuntimeError`).
    NoDevice(String),
    /// A driver call failed (`CUDARuntimeError`).
    Cuda { call: &'static str, code: String },
    /// The pool could not get memory even after freeing its cache, or would pass its
    /// limit (`OutOfMemoryError`); `held` is what it holds, `limit` 0 when none is set.
    OutOfMemory {
        requested: usize,
        held: usize,
        limit: usize,
    },
    /// Shapes or values NumPy rejects with `ValueError`.
    Value(String),
    /// Dtypes NumPy rejects with `TypeError`.
    Type(String),
    /// Indices out of range (`IndexError`).
    Index(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDevice(m) | Error::Value(m) | Error::Type(m) | Error::Index(m) => {
                f.write_str(m)
            }
            Error::Cuda { call, code } => write!(f, "{code} (in {call})"),
            // CuPy's message, digits grouped as Python's `{:,}` does.
            Error::OutOfMemory {
                requested,
                held,
                limit,
            } => {
                write!(
                    f,
                    "Out of memory allocating {} bytes (allocated so far: {} bytes",
                    grouped(*requested),
                    grouped(*held)
                )?;
                if *limit > 0 {
                    write!(f, ", limit set to: {} bytes", grouped(*limit))?;
                }
                f.write_str(").")
            }
        }
    }
}

impl std::error::Error for Error {}

/// `n` with its digits in groups of three: 1234567 -> "1,234,567".
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl Error {
    /// A driver error code with its name and the driver's description.
    pub fn cuda(call: &'static str, e: cudarc::driver::DriverError) -> Error {
        let name = e
            .error_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = e
            .error_string()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Error::Cuda {
            call,
            code: format!("{name}: {text}"),
        }
    }
}

/// Shorthand for driver results: `check("cuMemAlloc", result)?`.
pub fn check<T>(
    call: &'static str,
    r: std::result::Result<T, cudarc::driver::DriverError>,
) -> Result<T> {
    r.map_err(|e| Error::cuda(call, e))
}

/// The same for a raw driver status (calls made through `cudarc::driver::sys`).
pub fn check_status(call: &'static str, status: cudarc::driver::sys::CUresult) -> Result<()> {
    check(call, status.result())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_memory_reads_as_cupys_message() {
        let e = Error::OutOfMemory {
            requested: 1_073_741_824,
            held: 512,
            limit: 0,
        };
        assert_eq!(
            e.to_string(),
            "Out of memory allocating 1,073,741,824 bytes (allocated so far: 512 bytes)."
        );
        let e = Error::OutOfMemory {
            requested: 999,
            held: 1000,
            limit: 1_000_000,
        };
        assert_eq!(
            e.to_string(),
            "Out of memory allocating 999 bytes (allocated so far: 1,000 bytes, limit set to: 1,000,000 bytes)."
        );
    }
}
