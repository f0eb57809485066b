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
    /// The pool could not get memory even after freeing its cache (`OutOfMemoryError`).
    OutOfMemory {
        requested: usize,
        held: usize,
        total: usize,
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
            Error::OutOfMemory {
                requested,
                held,
                total,
            } => write!(
                f,
                "Out of memory allocating {requested} bytes (the pool holds {held} bytes after freeing its cached blocks; \
                 the device has {total} bytes). Free arrays you no longer need (del x) or work on smaller pieces."
            ),
        }
    }
}

impl std::error::Error for Error {}

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
