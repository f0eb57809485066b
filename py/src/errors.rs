//! Host errors as Python exceptions: the type NumPy (or CuPy, for GPU failures) raises,
//! with the host's message.

use gpupy_host::Error;
use pyo3::exceptions::{PyIndexError, PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    gpupy,
    CUDARuntimeError,
    PyRuntimeError,
    "A CUDA driver call failed, or no driver or GPU was found (CuPy's CUDARuntimeError)."
);
pyo3::create_exception!(
    gpupy,
    OutOfMemoryError,
    PyMemoryError,
    "The device ran out of memory even after the pool freed its cached blocks."
);

pub fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::NoDevice(_) | Error::Cuda { .. } => CUDARuntimeError::new_err(msg),
        Error::OutOfMemory { .. } => OutOfMemoryError::new_err(msg),
        Error::Value(_) => PyValueError::new_err(msg),
        Error::Type(_) => PyTypeError::new_err(msg),
        Error::Index(_) => PyIndexError::new_err(msg),
    }
}

/// `result.or_raise()?` in place of `.map_err(to_py)?`.
pub trait OrRaise<T> {
    fn or_raise(self) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, Error> {
    #[inline]
    fn or_raise(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CUDARuntimeError", py.get_type::<CUDARuntimeError>())?;
    m.add("OutOfMemoryError", py.get_type::<OutOfMemoryError>())?;
    Ok(())
}
