//! Copies between layouts and dtype conversion.

use cudarc::driver::result;

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result, check};
use crate::layout::shape_str;
use crate::table::size_index;
use gpupy_kernels as kernels;

use super::one_input::{launch_contig, launch_strided};

/// Copies `src` into `dst` (NumPy's `dst[...] = src`): `src` broadcasts to `dst`'s shape;
/// dtypes must match (use `astype` first).
pub fn copy_into(src: &Array, dst: &Array) -> Result<()> {
    if src.dtype() != dst.dtype() {
        return Err(Error::Type(format!(
            "copy_into needs equal dtypes, got {} and {}",
            src.dtype().name(),
            dst.dtype().name()
        )));
    }
    let src = src.broadcast_to(dst.shape())?;
    if dst.size() == 0 {
        return Ok(());
    }
    // A source that overlaps the destination through another view (`a[1:] = a[:-1]`)
    // is read in full first, as NumPy does: the kernel's threads would race otherwise.
    if src.shares_buffer(dst) && src.layout() != dst.layout() {
        let tmp = Array::empty(src.device(), src.shape(), src.dtype())?;
        copy_into(&src, &tmp)?;
        return copy_into(&tmp, dst);
    }
    let device = dst.device();
    same_device(&src, dst)?;
    device.bind()?;
    if src.layout().is_c_contiguous() && dst.layout().is_c_contiguous() {
        // SAFETY: both ranges are nbytes long and lie inside their blocks.
        return check("cuMemcpyDtoDAsync", unsafe {
            result::memcpy_dtod_async(
                dst.data_ptr(),
                src.data_ptr(),
                dst.nbytes(),
                crate::stream::current(device).0,
            )
        });
    }
    let kernel = kernels::elementwise::mover(size_index(dst.dtype().itemsize()), false);
    launch_strided(device, kernel, &src, dst)
}

/// `a`'s elements in C order into `dst` (exactly `a.nbytes()` long), through a
/// contiguous copy on the device when `a` is a view of another layout.
pub fn to_host(a: &Array, dst: &mut [u8]) -> Result<()> {
    if a.layout().is_c_contiguous() {
        a.to_host(dst)
    } else {
        contiguous(a)?.to_host(dst)
    }
}

/// A C-contiguous copy of `a` (or `a` itself when it already is one).
pub fn contiguous(a: &Array) -> Result<Array> {
    if a.layout().is_c_contiguous() && a.data_ptr().is_multiple_of(16) {
        return Ok(a.clone());
    }
    let out = Array::empty(a.device(), a.shape(), a.dtype())?;
    copy_into(a, &out)?;
    Ok(out)
}

/// A new C-contiguous array of `dtype` with `a`'s values (NumPy's `astype`).
pub fn astype(a: &Array, dtype: DType) -> Result<Array> {
    let out = Array::empty(a.device(), a.shape(), dtype)?;
    cast_into(a, &out)?;
    Ok(out)
}

/// `dst[...] = src` with conversion to `dst`'s dtype (NumPy's unsafe casting: the caller
/// decides what is allowed). `src` broadcasts to `dst`'s shape.
pub fn cast_into(src: &Array, dst: &Array) -> Result<()> {
    if src.dtype() == dst.dtype() {
        return copy_into(src, dst);
    }
    let src = src.broadcast_to(dst.shape())?;
    if dst.size() == 0 {
        return Ok(());
    }
    same_device(&src, dst)?;
    if src.shares_buffer(dst) {
        // Different dtypes over one buffer (a view): read everything first.
        let tmp = astype(&src, src.dtype())?;
        return cast_into(&tmp, dst);
    }
    let device = dst.device();
    let (from, to) = (src.dtype(), dst.dtype());
    let cast = |strided| kernels::elementwise::cast(from as usize, to as usize, strided);
    if src.layout().is_c_contiguous() && dst.layout().is_c_contiguous() {
        return launch_contig(
            device,
            cast(false),
            src.data_ptr(),
            dst.data_ptr(),
            dst.size() as u64,
            from,
            to,
        );
    }
    launch_strided(device, cast(true), &src, dst)
}

/// Arrays of one operation must live on one device (CuPy raises ValueError too).
pub(crate) fn same_device(a: &Array, b: &Array) -> Result<()> {
    if a.device().id != b.device().id {
        return Err(Error::Value(format!(
            "arrays are on different devices ({} and {}); move one with gpupy.asarray under `with gpupy.cuda.Device(i)`",
            a.device().id,
            b.device().id
        )));
    }
    Ok(())
}

/// NumPy's error for an output of the wrong shape.
pub(crate) fn check_out_shape(out: &Array, shape: &[usize]) -> Result<()> {
    if out.shape() != shape {
        return Err(Error::Value(format!(
            "non-broadcastable output operand with shape {} doesn't match the broadcast shape {}",
            shape_str(out.shape()).replace(", ", ","),
            shape_str(shape).replace(", ", ",")
        )));
    }
    Ok(())
}

/// `f` on `a` converted to its compute dtype (bfloat16: float32), the result brought
/// back by [`from_compute`].
pub(crate) fn in_compute_dtype(
    a: &Array,
    f: impl FnOnce(&Array) -> Result<Array>,
) -> Result<Array> {
    from_compute(f(&astype(a, a.dtype().compute())?)?, a.dtype(), None)
}

/// A result `r` computed in `dtype.compute()`, rounded once to `dtype` as ml_dtypes'
/// loops compute in float32 and round (other results, bool or int64 indices, stay as
/// they are), then converted into `out` when given. A bfloat16 `out` takes the rounding
/// directly; any other `out` gets the rounded values, as from NumPy's loop.
pub(crate) fn from_compute(r: Array, dtype: DType, out: Option<&Array>) -> Result<Array> {
    let rounds = r.dtype() == dtype.compute() && dtype.compute() != dtype;
    match out {
        Some(o) if !rounds || o.dtype() == dtype => {
            cast_into(&r, o)?;
            Ok(o.clone())
        }
        Some(o) => {
            cast_into(&astype(&r, dtype)?, o)?;
            Ok(o.clone())
        }
        None if rounds => astype(&r, dtype),
        None => Ok(r),
    }
}

/// Whether arrays of `dtype` compute in another dtype (see [`DType::compute`]).
pub(crate) fn computes_elsewhere(dtype: DType) -> bool {
    dtype.compute() != dtype
}
