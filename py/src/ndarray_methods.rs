//! `gpupy.ndarray`'s shape methods and array-object attributes (NumPy's "Array
//! attributes" and "Shape manipulation" methods, `fill`, `item`, `tolist`, `view`,
//! iteration and scalar conversion), in a `#[pymethods]` block of their own.

use gpupy_host::layout::{Index, Layout, resolve_shape};
use gpupy_host::ops::elementwise::{copy, fill};
use gpupy_host::{Array, DType};
use pyo3::exceptions::{PyIndexError, PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString, PyTuple};

use crate::convert::prepare_host;
use crate::convert::{numpy_dtype, to_dtype, to_numpy};
use crate::errors::OrRaise;
use crate::manipulation::{_diagonal, normalize_axis, normalize_axis_prefixed};
use crate::ndarray::NdArray;

/// NumPy's `ndarray.flags` (the fields gpupy can answer), with item access by NumPy's
/// flag names (`a.flags['C_CONTIGUOUS']`, `a.flags['C']`).
#[pyclass(name = "flagsobj", module = "gpupy", frozen)]
pub struct Flags {
    #[pyo3(get)]
    c_contiguous: bool,
    #[pyo3(get)]
    f_contiguous: bool,
    /// True for an array that is the only handle on its memory; false for views and for
    /// arrays while views of them are alive (gpupy does not track which came first).
    #[pyo3(get)]
    owndata: bool,
    #[pyo3(get)]
    writeable: bool,
    #[pyo3(get)]
    aligned: bool,
}

#[pymethods]
impl Flags {
    #[getter]
    fn contiguous(&self) -> bool {
        self.c_contiguous
    }
    #[getter]
    fn fortran(&self) -> bool {
        self.f_contiguous && !self.c_contiguous
    }
    #[getter]
    fn forc(&self) -> bool {
        self.f_contiguous || self.c_contiguous
    }
    fn __getitem__(&self, key: &str) -> PyResult<bool> {
        Ok(match key {
            "C_CONTIGUOUS" | "C" | "CONTIGUOUS" => self.c_contiguous,
            "F_CONTIGUOUS" | "F" | "FORTRAN" => self.f_contiguous,
            "OWNDATA" | "O" => self.owndata,
            "WRITEABLE" | "W" => self.writeable,
            "ALIGNED" | "A" => self.aligned,
            "FORC" => self.forc(),
            _ => return Err(PyKeyError::new_err(key.to_string())),
        })
    }
    fn __repr__(&self) -> String {
        let t = |b: bool| if b { "True" } else { "False" };
        format!(
            "  C_CONTIGUOUS : {}\n  F_CONTIGUOUS : {}\n  OWNDATA : {}\n  WRITEABLE : {}\n  ALIGNED : {}",
            t(self.c_contiguous),
            t(self.f_contiguous),
            t(self.owndata),
            t(self.writeable),
            t(self.aligned)
        )
    }
}

/// CuPy's `MemoryPointer`, as far as `.data` users need it: the device address of the
/// array's first element and its device.
#[pyclass(name = "MemoryPointer", module = "gpupy.cuda", frozen)]
pub struct MemoryPointer {
    #[pyo3(get)]
    ptr: u64,
    device_id: usize,
}

#[pymethods]
impl MemoryPointer {
    #[getter]
    fn device<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        device_object(py, self.device_id)
    }
    #[getter]
    fn device_id(&self) -> usize {
        self.device_id
    }
    fn __int__(&self) -> u64 {
        self.ptr
    }
    fn __repr__(&self) -> String {
        format!(
            "<gpupy.cuda.MemoryPointer 0x{:x} on device {}>",
            self.ptr, self.device_id
        )
    }
}

fn device_object(py: Python<'_>, id: usize) -> PyResult<Bound<'_, PyAny>> {
    py.import("gpupy.cuda")?.getattr("Device")?.call1((id,))
}

/// The part dtype of a complex dtype.
fn part_dtype(d: DType) -> Option<DType> {
    match d {
        DType::Complex64 => Some(DType::Float32),
        DType::Complex128 => Some(DType::Float64),
        _ => None,
    }
}

/// The real or imaginary part of a complex array, as a view.
fn complex_part(a: &Array, imag: bool) -> PyResult<Option<Array>> {
    match part_dtype(a.dtype()) {
        Some(part) => Ok(Some(
            a.view(a.layout().complex_part(imag), part).or_raise()?,
        )),
        None => Ok(None),
    }
}

/// A shape given as `f(2, 3)`, `f((2, 3))`, `f([2, 3])` or `f(6)`, entries possibly
/// negative (NumPy's "unknown" dimension) and anything with `__index__`.
fn shape_args(args: &Bound<'_, PyTuple>) -> PyResult<Vec<isize>> {
    let index = |v: &Bound<'_, PyAny>| -> PyResult<isize> {
        if v.is_instance_of::<PyInt>() {
            return v.extract();
        }
        v.py()
            .import("operator")?
            .getattr("index")?
            .call1((v,))?
            .extract()
    };
    if args.len() == 1 {
        let a = args.get_item(0)?;
        if a.is_instance_of::<PyInt>() || a.hasattr("__index__")? {
            return Ok(vec![index(&a)?]);
        }
        if a.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "'str' object cannot be interpreted as an integer",
            ));
        }
        return a.try_iter()?.map(|v| index(&v?)).collect();
    }
    args.iter().map(|v| index(&v)).collect()
}

/// `a.reshape(shape)` in C order: a view when strides allow, else a C-contiguous copy.
pub fn reshape_c(a: &Array, dims: &[isize]) -> PyResult<Array> {
    let shape = resolve_shape(a.size(), dims).or_raise()?;
    if let Some(layout) = a.layout().reshape(&shape) {
        return a.view(layout, a.dtype()).or_raise();
    }
    let c = copy::contiguous(a).or_raise()?;
    c.view(Layout::contiguous(&shape), c.dtype()).or_raise()
}

/// `a.reshape(shape, order=...)`: 'F' reads and writes the elements in Fortran order,
/// which is the C-order reshape of the reversed axes, reversed back.
fn reshape_order(a: &Array, dims: &[isize], order: &str) -> PyResult<Array> {
    let fortran = match order {
        "C" | "c" => false,
        "F" | "f" => true,
        "A" | "a" => a.layout().is_f_contiguous() && !a.layout().is_c_contiguous(),
        _ => {
            return Err(PyValueError::new_err(format!(
                "order must be one of 'C', 'F', 'A' (got '{order}')"
            )));
        }
    };
    if !fortran {
        return reshape_c(a, dims);
    }
    let t = a.transpose(None).or_raise()?;
    let rev: Vec<isize> = dims.iter().rev().copied().collect();
    reshape_c(&t, &rev)?.transpose(None).or_raise()
}

/// A view of `a` whose C order is `order`'s reading order (NumPy's `ravel`/`flatten`):
/// 'F' reverses the axes, 'A' is 'F' for Fortran-only arrays, 'K' sorts the axes by
/// decreasing stride magnitude (memory order, reversed axes kept reversed).
fn in_order(a: &Array, order: &str) -> PyResult<Array> {
    let l = a.layout();
    let fortran_only = l.is_f_contiguous() && !l.is_c_contiguous();
    let perm: Option<Vec<isize>> = match order {
        "C" | "c" => None,
        "F" | "f" => Some((0..a.ndim() as isize).rev().collect()),
        "A" | "a" if fortran_only => Some((0..a.ndim() as isize).rev().collect()),
        "A" | "a" => None,
        "K" | "k" if l.is_c_contiguous() => None,
        "K" | "k" if fortran_only => Some((0..a.ndim() as isize).rev().collect()),
        "K" | "k" => {
            let mut axes: Vec<usize> = (0..a.ndim()).collect();
            axes.sort_by_key(|&i| std::cmp::Reverse(l.strides[i].unsigned_abs()));
            Some(axes.into_iter().map(|i| i as isize).collect())
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "order must be one of 'C', 'F', 'A', or 'K' (got '{order}')"
            )));
        }
    };
    match perm {
        None => Ok(a.clone()),
        Some(p) => a.transpose(Some(&p)).or_raise(),
    }
}

/// The one element of a size-1 array as a NumPy scalar, or NumPy's error for other sizes
/// (made by NumPy on a small stand-in array, so its type and text follow the installed
/// NumPy).
fn scalar_conversion<'py>(py: Python<'py>, a: &Array, method: &str) -> PyResult<Bound<'py, PyAny>> {
    if a.size() == 1 {
        return to_numpy(py, a)?.call_method0(method);
    }
    let shape: Vec<usize> = if a.size() == 0 {
        a.shape().to_vec()
    } else {
        vec![2]
    };
    let stand_in = py
        .import("numpy")?
        .getattr("zeros")?
        .call1((shape, numpy_dtype(py, a.dtype())?))?;
    stand_in.call_method0(method)
}

/// Iterates over the first axis, yielding views (0-d arrays for a 1-D array, as CuPy).
#[pyclass(module = "gpupy")]
pub struct ArrayIterator {
    array: Array,
    next: usize,
}

#[pymethods]
impl ArrayIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<NdArray>>> {
        if self.next >= self.array.shape()[0] {
            return Ok(None);
        }
        let v = self
            .array
            .index(&[Index::Int(self.next as isize)])
            .or_raise()?;
        self.next += 1;
        Ok(Some(NdArray::wrap(py, v)?))
    }
}

#[pymethods]
impl NdArray {
    /// The last two axes swapped (NumPy 2's matrix transpose).
    #[getter(mT)]
    fn matrix_transposed(&self, py: Python<'_>) -> PyResult<Py<NdArray>> {
        let n = self.inner.ndim();
        if n < 2 {
            return Err(PyValueError::new_err(
                "matrix transpose with ndim < 2 is undefined",
            ));
        }
        let layout = self
            .inner
            .layout()
            .swapaxes(n as isize - 2, n as isize - 1)
            .or_raise()?;
        NdArray::wrap(py, self.inner.view(layout, self.inner.dtype()).or_raise()?)
    }

    /// The real part: a view for complex arrays, the array itself otherwise.
    #[getter]
    fn real(slf: &Bound<'_, Self>) -> PyResult<Py<NdArray>> {
        match complex_part(&slf.get().inner, false)? {
            Some(v) => NdArray::wrap(slf.py(), v),
            None => Ok(slf.clone().unbind()),
        }
    }
    #[setter]
    fn set_real(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let dst = complex_part(&self.inner, false)?.unwrap_or_else(|| self.inner.clone());
        assign(py, &dst, value)
    }

    /// The imaginary part: a view for complex arrays, a new array of zeros otherwise
    /// (NumPy's is read-only).
    #[getter]
    fn imag(&self, py: Python<'_>) -> PyResult<Py<NdArray>> {
        match complex_part(&self.inner, true)? {
            Some(v) => NdArray::wrap(py, v),
            None => {
                let d = self.inner.dtype();
                let zeros = vec![0u8; d.itemsize()];
                NdArray::wrap(
                    py,
                    fill::full(self.inner.device(), self.inner.shape(), d, &zeros).or_raise()?,
                )
            }
        }
    }
    #[setter]
    fn set_imag(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        match complex_part(&self.inner, true)? {
            Some(dst) => assign(py, &dst, value),
            None => Err(PyTypeError::new_err(
                "array does not have imaginary part to set",
            )),
        }
    }

    #[getter]
    fn flags(&self) -> Flags {
        let l = self.inner.layout();
        Flags {
            c_contiguous: l.is_c_contiguous(),
            f_contiguous: l.is_f_contiguous(),
            owndata: self.inner.owns_buffer(),
            writeable: true,
            aligned: true,
        }
    }

    /// The device memory (CuPy's `MemoryPointer`; `.ptr` is the first element's address).
    #[getter]
    fn data(&self) -> MemoryPointer {
        MemoryPointer {
            ptr: self.inner.data_ptr(),
            device_id: self.inner.device().id,
        }
    }

    /// The `gpupy.cuda.Device` holding the array.
    #[getter]
    fn device<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        device_object(py, self.inner.device().id)
    }

    /// Sets every element to `value` (converted to the array's dtype as NumPy does).
    fn fill(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = match value.cast::<NdArray>() {
            Ok(v) => to_numpy(py, &v.get().inner)?,
            Err(_) => value.clone(),
        };
        let host = py
            .import("numpy")?
            .getattr("empty")?
            .call1(((), numpy_dtype(py, self.inner.dtype())?))?;
        host.call_method1("fill", (value,))?;
        let bytes: Vec<u8> = host.call_method0("tobytes")?.extract()?;
        py.detach(|| fill::fill(&self.inner, &bytes)).or_raise()
    }

    /// `a.reshape(2, 3)`, `a.reshape((2, -1))`: a view when the strides allow it, a copy
    /// otherwise.
    #[pyo3(signature = (*shape, order = "C"))]
    fn reshape(
        &self,
        py: Python<'_>,
        shape: &Bound<'_, PyTuple>,
        order: &str,
    ) -> PyResult<Py<NdArray>> {
        if shape.is_empty() {
            return Err(PyTypeError::new_err(
                "reshape() missing required argument 'shape' (pos 0)",
            ));
        }
        let dims = shape_args(shape)?;
        NdArray::wrap(py, reshape_order(&self.inner, &dims, order)?)
    }

    /// The elements as a 1-D array, read in `order`: a view when they are contiguous in
    /// that order, else a copy.
    #[pyo3(signature = (order = "C"))]
    fn ravel(&self, py: Python<'_>, order: &str) -> PyResult<Py<NdArray>> {
        let src = in_order(&self.inner, order)?;
        let flat = if src.layout().is_c_contiguous() {
            src
        } else {
            copy::contiguous(&src).or_raise()?
        };
        NdArray::wrap(py, reshape_c(&flat, &[-1])?)
    }

    /// A 1-D copy of the elements, read in `order`.
    #[pyo3(signature = (order = "C"))]
    fn flatten(&self, py: Python<'_>, order: &str) -> PyResult<Py<NdArray>> {
        let src = in_order(&self.inner, order)?;
        let out = Array::empty(src.device(), &[src.size()], src.dtype()).or_raise()?;
        let dst = out
            .view(Layout::contiguous(src.shape()), src.dtype())
            .or_raise()?;
        py.detach(|| copy::copy_into(&src, &dst)).or_raise()?;
        NdArray::wrap(py, out)
    }

    fn swapaxes(&self, py: Python<'_>, axis1: isize, axis2: isize) -> PyResult<Py<NdArray>> {
        let n = self.inner.ndim();
        let a = normalize_axis_prefixed(py, axis1, n, Some("axis1"))? as isize;
        let b = normalize_axis_prefixed(py, axis2, n, Some("axis2"))? as isize;
        let layout = self.inner.layout().swapaxes(a, b).or_raise()?;
        NdArray::wrap(py, self.inner.view(layout, self.inner.dtype()).or_raise()?)
    }

    /// Without axes of length 1 (all, or those in `axis`).
    #[pyo3(signature = (axis = None))]
    fn squeeze(&self, py: Python<'_>, axis: Option<&Bound<'_, PyAny>>) -> PyResult<Py<NdArray>> {
        let n = self.inner.ndim();
        let axes: Option<Vec<isize>> = match axis {
            None => None,
            Some(a) if a.is_none() => None,
            Some(a) => {
                let raw: Vec<isize> = if let Ok(i) = a.extract::<isize>() {
                    vec![i]
                } else {
                    a.extract()?
                };
                Some(
                    raw.iter()
                        .map(|&x| Ok(normalize_axis(py, x, n)? as isize))
                        .collect::<PyResult<_>>()?,
                )
            }
        };
        let layout = self.inner.layout().squeeze(axes.as_deref()).or_raise()?;
        NdArray::wrap(py, self.inner.view(layout, self.inner.dtype()).or_raise()?)
    }

    #[pyo3(signature = (offset = 0, axis1 = 0, axis2 = 1))]
    fn diagonal(
        slf: &Bound<'_, Self>,
        offset: isize,
        axis1: isize,
        axis2: isize,
    ) -> PyResult<Py<NdArray>> {
        _diagonal(slf.py(), slf, offset, axis1, axis2)
    }

    /// One element as a Python scalar: `a.item()` (size 1), `a.item(k)` (flat index) or
    /// `a.item(i, j)`. Copies only that element to the host.
    #[pyo3(signature = (*args))]
    fn item<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let a = &self.inner;
        let args: Vec<isize> = match args.len() {
            0 => {
                if a.size() != 1 {
                    return Err(PyValueError::new_err(
                        "can only convert an array of size 1 to a Python scalar",
                    ));
                }
                return to_numpy(py, a)?.call_method0("item");
            }
            1 if args.get_item(0)?.is_instance_of::<PyTuple>() => args.get_item(0)?.extract()?,
            _ => args.extract()?,
        };
        let indices: Vec<Index> = if args.len() == 1 {
            let size = a.size() as isize;
            let k = args[0];
            if k < -size || k >= size {
                return Err(PyIndexError::new_err(format!(
                    "index {k} is out of bounds for size {size}"
                )));
            }
            let mut k = if k < 0 { k + size } else { k } as usize;
            let mut idx = vec![0isize; a.ndim()];
            for (i, &n) in idx.iter_mut().zip(a.shape()).rev() {
                *i = (k % n) as isize;
                k /= n;
            }
            idx.into_iter().map(Index::Int).collect()
        } else if args.len() == a.ndim() {
            args.into_iter().map(Index::Int).collect()
        } else {
            return Err(PyValueError::new_err(
                "incorrect number of indices for array",
            ));
        };
        let one = a.index(&indices).or_raise()?;
        to_numpy(py, &one)?.call_method0("item")
    }

    /// The values as nested Python lists (a Python scalar for a 0-d array).
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_numpy(py, &self.inner)?.call_method0("tolist")
    }

    /// The same memory seen as another dtype (NumPy's `view`): a view of this array
    /// when `dtype` is omitted.
    #[pyo3(signature = (dtype = None))]
    fn view(&self, py: Python<'_>, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Py<NdArray>> {
        let a = &self.inner;
        let d = match dtype {
            Some(d) if !d.is_none() => to_dtype(py, d)?,
            _ => a.dtype(),
        };
        let layout = a
            .layout()
            .view_itemsize(a.dtype().itemsize(), d.itemsize())
            .or_raise()?;
        NdArray::wrap(py, a.view(layout, d).or_raise()?)
    }

    fn __iter__(&self) -> PyResult<ArrayIterator> {
        if self.inner.ndim() == 0 {
            return Err(PyTypeError::new_err("iteration over a 0-d array"));
        }
        Ok(ArrayIterator {
            array: self.inner.clone(),
            next: 0,
        })
    }

    fn __complex__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        scalar_conversion(py, &self.inner, "__complex__")
    }

    /// For one-element integer arrays of no dimensions (NumPy's TypeError otherwise).
    fn __index__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.inner.ndim() == 0 {
            return to_numpy(py, &self.inner)?.call_method0("__index__");
        }
        let stand_in = py
            .import("numpy")?
            .getattr("zeros")?
            .call1(((0,), numpy_dtype(py, self.inner.dtype())?))?;
        stand_in.call_method0("__index__")
    }

    /// `a.repeat(repeats, axis=None)`, as `gpupy.repeat`.
    #[pyo3(signature = (repeats, axis = None))]
    fn repeat<'py>(
        slf: &Bound<'py, Self>,
        repeats: &Bound<'py, PyAny>,
        axis: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        slf.py()
            .import("gpupy._manipulation")?
            .getattr("repeat")?
            .call1((slf, repeats, axis))
    }
}

/// `dst[...] = value` for a gpupy array, NumPy array or scalar, converting to `dst`'s
/// dtype.
fn assign(py: Python<'_>, dst: &Array, value: &Bound<'_, PyAny>) -> PyResult<()> {
    let src = match value.cast::<NdArray>() {
        Ok(v) => v.get().inner.clone(),
        Err(_) => {
            let host = prepare_host(py, value, Some(dst.dtype()))?;
            crate::convert::from_numpy(py, &host)?
        }
    };
    py.detach(|| copy::cast_into(&src, dst)).or_raise()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Flags>()?;
    m.add_class::<MemoryPointer>()?;
    m.add_class::<ArrayIterator>()?;
    Ok(())
}
