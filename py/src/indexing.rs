//! Advanced indexing from Python: keys holding integer or boolean arrays (gpupy arrays,
//! NumPy arrays, lists) or scalar booleans, and the functions `gpupy._indexing` builds
//! NumPy's indexing routines from (`_take`, `_put`, `_where`, `_nonzero`, `_flat`).
//!
//! Host index arrays are copied to the device like any operand; every index check runs
//! there (see `gpupy_host::ops::index`).

use gpupy_host::dtype::Kind;
use gpupy_host::layout::Index;
use gpupy_host::ops::elementwise::{copy, fill};
use gpupy_host::ops::index::{self as ix, Item};
use gpupy_host::{Array, DType};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyEllipsis, PyInt, PyList, PySlice, PyTuple};

use crate::convert::prepare_host;
use crate::convert::{from_numpy, to_numpy};
use crate::errors::OrRaise;
use crate::index;
use crate::ndarray::NdArray;

/// A parsed `a[key]`.
pub enum Key {
    /// Only ints, slices, `None` and `...`: a view.
    Basic(Vec<Index>),
    /// Arrays or scalar booleans too: a copy (or a scatter, for assignment).
    Advanced(Vec<Item>),
}

/// Parses a key with NumPy's rules: a tuple is one entry per axis; any other key is one
/// entry; lists and nested tuples are arrays.
pub fn parse_key(py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Key> {
    let items: Vec<Item> = match key.cast::<PyTuple>() {
        Ok(t) => t.iter().map(|k| item(py, &k)).collect::<PyResult<_>>()?,
        Err(_) => vec![item(py, key)?],
    };
    if ix::is_advanced(&items) {
        return Ok(Key::Advanced(items));
    }
    Ok(Key::Basic(
        items
            .into_iter()
            .filter_map(|i| match i {
                Item::Basic(b) => Some(b),
                _ => None,
            })
            .collect(),
    ))
}

static NP_BOOL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static NP_NDARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn numpy_attr<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
) -> PyResult<&'py Bound<'py, PyAny>> {
    Ok(cell
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("numpy")?.getattr(name)?.unbind())
        })?
        .bind(py))
}

fn item(py: Python<'_>, k: &Bound<'_, PyAny>) -> PyResult<Item> {
    // bool before int: True is an int to Python but a mask to NumPy.
    if k.is_instance_of::<PyBool>() {
        return Ok(Item::Bool(k.is_truthy()?));
    }
    if k.is_none()
        || k.is_instance_of::<PyInt>()
        || k.is_instance_of::<PySlice>()
        || k.is(PyEllipsis::get(py))
    {
        return index::parse_one(k).map(Item::Basic);
    }
    if let Ok(a) = k.cast::<NdArray>() {
        return device_item(py, &a.get().inner);
    }
    if k.is_instance(numpy_attr(py, &NP_BOOL, "bool_")?)? {
        return Ok(Item::Bool(k.is_truthy()?));
    }
    if k.is_instance(numpy_attr(py, &NP_NDARRAY, "ndarray")?)?
        || k.is_instance_of::<PyList>()
        || k.is_instance_of::<PyTuple>()
    {
        return host_item(py, k);
    }
    // NumPy integers and anything else with `__index__`; everything else is refused.
    index::parse_one(k).map(Item::Basic)
}

fn not_an_index_array() -> PyErr {
    PyIndexError::new_err("arrays used as indices must be of integer (or boolean) type")
}

/// A gpupy array in a key. A 0-d integer array is an integer index, as in NumPy (its
/// value is read back); a 0-d boolean one a scalar boolean.
fn device_item(py: Python<'_>, a: &Array) -> PyResult<Item> {
    let kind = a.dtype().kind();
    if !matches!(kind, Kind::Int | Kind::UInt | Kind::Bool) {
        return Err(not_an_index_array());
    }
    if a.ndim() == 0 {
        let v = to_numpy(py, a)?;
        return Ok(match kind {
            Kind::Bool => Item::Bool(v.is_truthy()?),
            _ => Item::Basic(Index::Int(v.call_method0("item")?.extract()?)),
        });
    }
    Ok(Item::Array(a.clone()))
}

/// A NumPy array, list or tuple in a key, copied to the device.
fn host_item(py: Python<'_>, k: &Bound<'_, PyAny>) -> PyResult<Item> {
    let arr = host_index_array(py, k)?;
    if arr.getattr("ndim")?.extract::<usize>()? == 0 {
        let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
        return Ok(if kind == "b" {
            Item::Bool(arr.is_truthy()?)
        } else {
            Item::Basic(Index::Int(arr.call_method0("item")?.extract()?))
        });
    }
    Ok(Item::Array(from_numpy(py, &arr)?))
}

/// `numpy.asarray(k)` as an index: an empty list becomes an empty intp array (NumPy's
/// rule), anything else must be integer or boolean.
fn host_index_array<'py>(py: Python<'py>, k: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let arr = prepare_host(py, k, None)?;
    let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
    if matches!(kind.as_str(), "i" | "u" | "b") {
        return Ok(arr);
    }
    let empty = arr.getattr("size")?.extract::<usize>()? == 0;
    if empty && !k.is_instance(numpy_attr(py, &NP_NDARRAY, "ndarray")?)? {
        let intp = py.import("numpy")?.getattr("intp")?;
        return arr.call_method1("astype", (intp,));
    }
    if k.is_instance(numpy_attr(py, &NP_NDARRAY, "ndarray")?)? {
        return Err(not_an_index_array());
    }
    // A list or tuple of non-integers is no index sequence at all to NumPy.
    Err(PyIndexError::new_err(
        "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices",
    ))
}

/// An index argument of `take`/`put` as a device array (any integer dtype).
fn index_array(py: Python<'_>, k: &Bound<'_, PyAny>) -> PyResult<Array> {
    if let Ok(a) = k.cast::<NdArray>() {
        return Ok(a.get().inner.clone());
    }
    from_numpy(py, &host_index_array(py, k)?)
}

/// `value` (gpupy array, NumPy array, list or scalar) as a device array of `dtype`,
/// converted as NumPy's assignment converts (unsafe casting).
fn value_array(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    dtype: DType,
    like: &Array,
) -> PyResult<Array> {
    if let Ok(v) = value.cast::<NdArray>() {
        let v = &v.get().inner;
        return if v.dtype() == dtype {
            Ok(v.clone())
        } else {
            copy::astype(v, dtype).or_raise()
        };
    }
    let host = prepare_host(py, value, Some(dtype))?;
    if host.getattr("ndim")?.extract::<usize>()? == 0 {
        // A scalar goes by value into a fill, with no host-to-device copy.
        let bytes: Vec<u8> = host.call_method0("tobytes")?.extract()?;
        return fill::full(like.device(), &[], dtype, &bytes).or_raise();
    }
    from_numpy(py, &host)
}

/// `a[items]` for an advanced key.
pub fn getitem(py: Python<'_>, a: &Array, items: &[Item]) -> PyResult<Py<NdArray>> {
    let r = py.detach(|| ix::getitem(a, items)).or_raise()?;
    NdArray::wrap(py, r)
}

/// `a[items] = value` for an advanced key.
pub fn setitem(
    py: Python<'_>,
    a: &Array,
    items: &[Item],
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let v = value_array(py, value, a.dtype(), a)?;
    py.detach(|| ix::setitem(a, items, &v)).or_raise()
}

/// `take(a, indices, axis)` (mode "raise"; `gpupy._indexing.take` handles the others).
#[pyfunction]
#[pyo3(signature = (a, indices, axis = None))]
fn _take(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    indices: &Bound<'_, PyAny>,
    axis: Option<isize>,
) -> PyResult<Py<NdArray>> {
    let idx = index_array(py, indices)?;
    let a = &a.get().inner;
    let r = py.detach(|| ix::take(a, &idx, axis)).or_raise()?;
    NdArray::wrap(py, r)
}

/// `put(a, indices, values)` (mode "raise").
#[pyfunction]
fn _put(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    indices: &Bound<'_, PyAny>,
    values: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let a = &a.get().inner;
    let idx = index_array(py, indices)?;
    let v = value_array(py, values, a.dtype(), a)?;
    py.detach(|| ix::put(a, &idx, &v)).or_raise()
}

/// `where(cond, x, y)` for `x` and `y` of one dtype (the caller converts them).
#[pyfunction]
fn _where(
    py: Python<'_>,
    cond: &Bound<'_, NdArray>,
    x: &Bound<'_, NdArray>,
    y: &Bound<'_, NdArray>,
) -> PyResult<Py<NdArray>> {
    let r = ix::select(&cond.get().inner, &x.get().inner, &y.get().inner).or_raise()?;
    NdArray::wrap(py, r)
}

/// The indices of the nonzero elements as one `(ndim, nnz)` int64 array.
#[pyfunction]
fn _nonzero(py: Python<'_>, a: &Bound<'_, NdArray>) -> PyResult<Py<NdArray>> {
    let a = &a.get().inner;
    let r = py.detach(|| ix::nonzero(a)).or_raise()?;
    NdArray::wrap(py, r)
}

/// A 1-d view of `a` when it is C-contiguous, else a flattened copy.
#[pyfunction]
fn _flat(py: Python<'_>, a: &Bound<'_, NdArray>) -> PyResult<Py<NdArray>> {
    NdArray::wrap(py, ix::flat(&a.get().inner).or_raise()?)
}

fn call_indexing<'py>(
    py: Python<'py>,
    name: &str,
    args: impl pyo3::call::PyCallArgs<'py>,
) -> PyResult<Py<PyAny>> {
    Ok(py
        .import("gpupy._indexing")?
        .getattr(name)?
        .call1(args)?
        .unbind())
}

/// NumPy's indexing methods, implemented in `gpupy._indexing`.
#[pymethods]
impl NdArray {
    /// `a.nonzero()`: a tuple of index arrays, one per axis.
    fn nonzero(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        call_indexing(slf.py(), "nonzero", (slf,))
    }
    #[pyo3(signature = (indices, axis = None, out = None, mode = "raise"))]
    fn take(
        slf: &Bound<'_, Self>,
        indices: &Bound<'_, PyAny>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        mode: &str,
    ) -> PyResult<Py<PyAny>> {
        call_indexing(slf.py(), "take", (slf, indices, axis, out, mode))
    }
    #[pyo3(signature = (indices, values, mode = "raise"))]
    fn put(
        slf: &Bound<'_, Self>,
        indices: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        mode: &str,
    ) -> PyResult<Py<PyAny>> {
        call_indexing(slf.py(), "put", (slf, indices, values, mode))
    }
    #[pyo3(signature = (condition, axis = None, out = None))]
    fn compress(
        slf: &Bound<'_, Self>,
        condition: &Bound<'_, PyAny>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        call_indexing(slf.py(), "compress", (condition, slf, axis, out))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_take, m)?)?;
    m.add_function(wrap_pyfunction!(_put, m)?)?;
    m.add_function(wrap_pyfunction!(_where, m)?)?;
    m.add_function(wrap_pyfunction!(_nonzero, m)?)?;
    m.add_function(wrap_pyfunction!(_flat, m)?)?;
    Ok(())
}

/// `a[key]` and `a[key] = value`.
#[pymethods]
impl NdArray {
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<NdArray>> {
        match parse_key(py, key)? {
            Key::Basic(idx) => NdArray::wrap(py, self.inner.index(&idx).or_raise()?),
            Key::Advanced(items) => getitem(py, &self.inner, &items),
        }
    }

    /// `a[key] = value` for a gpupy array, a NumPy array or a scalar value.
    fn __setitem__(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let idx = match parse_key(py, key)? {
            Key::Basic(idx) => idx,
            Key::Advanced(items) => {
                return setitem(py, &self.inner, &items, value);
            }
        };
        let dst = self.inner.index(&idx).or_raise()?;
        let src = match value.cast::<NdArray>() {
            Ok(v) => v.get().inner.clone(),
            Err(_) => {
                let host = prepare_host(py, value, Some(dst.dtype()))?;
                if host.getattr("ndim")?.extract::<usize>()? == 0 {
                    let bytes: Vec<u8> = host.call_method0("tobytes")?.extract()?;
                    let tmp = fill::full(dst.device(), &[], dst.dtype(), &bytes).or_raise()?;
                    return copy::copy_into(&tmp, &dst).or_raise();
                }
                from_numpy(py, &host)?
            }
        };
        let src = if src.dtype() == dst.dtype() {
            src
        } else {
            copy::astype(&src, dst.dtype()).or_raise()?
        };
        copy::copy_into(&src, &dst).or_raise()
    }
}
