//! Measurement bindings: the private entry points behind `gpupyx.scipy.ndimage`'s
//! `label`, `find_objects`, extremes by label and `distance_transform_edt`. SciPy's
//! signatures, outputs and index forms live in Python
//! (`python/gpupyx/scipy/ndimage/`).

use gpupy_host::ops::measure;
use pyo3::prelude::*;

use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// The components of the bool array `mask` connected through the earlier neighbours
/// `steps` (per neighbour a step of -1, 0 or 1 per axis, C order): (labels, count),
/// the labels int64 when `int64`, else int32.
#[pyfunction]
fn _label(
    py: Python<'_>,
    mask: PyRef<'_, NdArray>,
    steps: Vec<Vec<i64>>,
    int64: bool,
) -> PyResult<(Py<NdArray>, u64)> {
    let mask = mask.inner.clone();
    let (labels, count) = py
        .detach(|| measure::label(&mask, &steps, int64))
        .or_raise()?;
    Ok((NdArray::wrap(py, labels)?, count))
}

/// The bounding boxes of labels `1..=max_label` in `labels` (int32 or int64): a
/// (max_label, 2, ndim) uint64 array of starts and ends (starts `2**64 - 1` for a label
/// without elements).
#[pyfunction]
fn _find_objects(
    py: Python<'_>,
    labels: PyRef<'_, NdArray>,
    max_label: u64,
) -> PyResult<Py<NdArray>> {
    let labels = labels.inner.clone();
    let boxes = py
        .detach(|| measure::find_objects(&labels, max_label))
        .or_raise()?;
    NdArray::wrap(py, boxes)
}

/// Per slot `0..nslots` of `slots` (int64), the first positions (C order) of the
/// smallest and largest of `values` (int64, uint64 or float64): an (nslots, 2) int64
/// array, -1 for an empty slot.
#[pyfunction]
fn _extreme_positions(
    py: Python<'_>,
    values: PyRef<'_, NdArray>,
    slots: PyRef<'_, NdArray>,
    nslots: u64,
) -> PyResult<Py<NdArray>> {
    let (values, slots) = (values.inner.clone(), slots.inner.clone());
    let pos = py
        .detach(|| measure::extreme_positions(&values, &slots, nslots))
        .or_raise()?;
    NdArray::wrap(py, pos)
}

/// SciPy's feature transform of the bool array `mask` (int32 features of shape
/// `(ndim, *shape)`), from the initial features `init` (or zeros).
#[pyfunction]
#[pyo3(signature = (mask, sampling, init=None))]
fn _feature_transform(
    py: Python<'_>,
    mask: PyRef<'_, NdArray>,
    sampling: Vec<f64>,
    init: Option<PyRef<'_, NdArray>>,
) -> PyResult<Py<NdArray>> {
    let mask = mask.inner.clone();
    let init = init.map(|i| i.inner.clone());
    let ft = py
        .detach(|| measure::feature_transform(&mask, &sampling, init.as_ref()))
        .or_raise()?;
    NdArray::wrap(py, ft)
}

/// The float64 distance of every element to its feature `ft`, as SciPy computes it.
#[pyfunction]
fn _feature_distances(
    py: Python<'_>,
    ft: PyRef<'_, NdArray>,
    sampling: Vec<f64>,
) -> PyResult<Py<NdArray>> {
    let ft = ft.inner.clone();
    let dt = py
        .detach(|| measure::distances(&ft, &sampling))
        .or_raise()?;
    NdArray::wrap(py, dt)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_label, m)?)?;
    m.add_function(wrap_pyfunction!(_find_objects, m)?)?;
    m.add_function(wrap_pyfunction!(_extreme_positions, m)?)?;
    m.add_function(wrap_pyfunction!(_feature_transform, m)?)?;
    m.add_function(wrap_pyfunction!(_feature_distances, m)?)?;
    Ok(())
}
