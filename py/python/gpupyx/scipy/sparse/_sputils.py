"""SciPy's sparse utilities (``scipy.sparse._sputils``), for gpupy's value dtypes.

gpupy's sparse matrices hold bool, float32, float64, complex64 or complex128 values
(CuPy's set: the kernels compute in the four floating types and read a boolean matrix
as 0/1) and int32 or int64 indices: int32 while every index and the number of stored
entries fit it, as SciPy chooses.
"""

import math
import operator

import numpy

import gpupy as gp

# The value dtypes, in SciPy's order of preference for `upcast`.
supported_dtypes = [numpy.bool_, numpy.float32, numpy.float64, numpy.complex64, numpy.complex128]

_INT32_MAX = numpy.iinfo(numpy.int32).max


_upcast_memo = {}


def upcast(*args):
    """The first supported dtype that the result type of `args` casts to safely
    (SciPy's ``upcast`` over gpupy's dtypes: int8/int16 go to float32, wider integers to
    float64). Memoized (every product asks)."""
    try:
        return _upcast_memo[args]
    except (KeyError, TypeError):
        pass
    t = numpy.result_type(*args)
    for s in supported_dtypes:
        if numpy.can_cast(t, s):
            out = numpy.dtype(s)
            try:
                _upcast_memo[args] = out
            except TypeError:
                pass
            return out
    raise TypeError(f"no supported conversion for types: {args!r}")


def getdtype(dtype, a=None, default=None):
    """SciPy's ``getdtype``: `dtype`, else ``a.dtype``, else `default`, checked against
    the supported dtypes (SciPy's ValueError and message, with gpupy's list)."""
    if dtype is None:
        try:
            newdtype = a.dtype
        except AttributeError as e:
            if default is not None:
                newdtype = numpy.dtype(default)
            else:
                raise TypeError("could not interpret data type") from e
    else:
        newdtype = numpy.dtype(dtype)
    if newdtype not in [numpy.dtype(t) for t in supported_dtypes]:
        names = ", ".join(numpy.dtype(t).name for t in supported_dtypes)
        raise ValueError(f"gpupyx.scipy.sparse does not support dtype {newdtype}. "
                         f"The only supported types are: {names}.")
    return newdtype


def kernel_dtype(dtype):
    """The dtype the kernels compute a matrix of `dtype` in: itself, or float32 for
    bool (0 and 1; a result is true where it is nonzero)."""
    dtype = numpy.dtype(dtype)
    return numpy.dtype(numpy.float32) if dtype.kind == "b" else dtype


def values_of(data):
    """Values computed by an operation as a supported dtype (an integer result, such as
    a boolean matrix times an integer, becomes floating: SciPy's upcast over gpupy's
    dtypes)."""
    dt = data.dtype
    if dt.kind in "iu" or dt == numpy.float16:
        return data.astype(upcast(dt))
    return data



def get_index_dtype(arrays=(), maxval=None, check_contents=False):
    """SciPy's ``get_index_dtype``: int32 when `maxval` and the arrays' dtypes fit it,
    else int64. `check_contents` is accepted for SciPy's signature; gpupy decides by
    dtypes and extents only (reading device arrays' contents would wait for the GPU):
    callers pass the extents and entry counts that bound every index as `maxval`."""
    if maxval is not None and int(maxval) > _INT32_MAX:
        return numpy.dtype(numpy.int64)
    if isinstance(arrays, (numpy.ndarray, gp.ndarray)):
        arrays = (arrays,)
    for arr in arrays:
        dt = arr.dtype if hasattr(arr, "dtype") else numpy.asarray(arr).dtype
        if not numpy.can_cast(dt, numpy.int32):
            return numpy.dtype(numpy.int64)
    return numpy.dtype(numpy.int32)


def index_dtype_for(*extents):
    """int32 when every extent (shape, entry count) fits it, else int64."""
    return numpy.dtype(numpy.int32 if max([0, *extents]) <= _INT32_MAX else numpy.int64)


def get_sum_dtype(dtype):
    """NumPy's accumulator dtype for ``sum``."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "u" and numpy.can_cast(dtype, numpy.uint):
        return numpy.dtype(numpy.uint)
    if numpy.can_cast(dtype, numpy.int_):
        return numpy.dtype(numpy.int_)
    return dtype


def isdense(x):
    return isinstance(x, (numpy.ndarray, gp.ndarray))


def isscalarlike(x):
    """Is `x` a scalar, an array scalar or a 0-d array (host or device)?"""
    return numpy.isscalar(x) or (isdense(x) and x.ndim == 0)


def isintlike(x):
    """Is `x` usable as an index into a sparse matrix (SciPy's rules)?"""
    if numpy.ndim(x) != 0:
        return False
    try:
        operator.index(x)
    except (TypeError, ValueError):
        try:
            loose_int = bool(int(x) == x)
        except (TypeError, ValueError):
            return False
        if loose_int:
            raise ValueError("Inexact indices into sparse matrices are not allowed")
        return loose_int
    return True


def isshape(x, nonneg=False, *, allow_nd=(2,)):
    """Is `x` a valid tuple of dimensions?"""
    try:
        ndim = len(x)
    except TypeError:
        return False
    if ndim not in allow_nd:
        return False
    for d in x:
        if not isintlike(d):
            return False
        if nonneg and d < 0:
            return False
    return True


def issequence(t):
    return ((isinstance(t, (list, tuple)) and (len(t) == 0 or numpy.isscalar(t[0])))
            or (isdense(t) and t.ndim == 1))


def ismatrix(t):
    return ((isinstance(t, (list, tuple)) and len(t) > 0 and issequence(t[0]))
            or (isdense(t) and t.ndim == 2))


def validateaxis(axis, *, ndim=2):
    """SciPy's ``validateaxis``: None, or a tuple of canonical axes (all axes: None)."""
    if axis is None:
        return None
    if axis == ():
        raise ValueError("sparse does not accept 0D axis (). Either use toarray (for dense) "
                         "or copy (for sparse).")
    if not isinstance(axis, tuple):
        if not numpy.issubdtype(numpy.dtype(type(axis)), numpy.integer):
            raise TypeError(f"axis must be an integer/tuple of ints, not {type(axis)}")
        axis = (axis,)
    canon = []
    for ax in axis:
        if not isintlike(ax):
            raise TypeError(f"axis must be an integer. (given {ax})")
        if ax < 0:
            ax += ndim
        if ax < 0 or ax >= ndim:
            raise ValueError("axis out of range for ndim")
        canon.append(ax)
    if len(canon) != len(set(canon)):
        raise ValueError("duplicate value in axis")
    if len(canon) > ndim:
        raise ValueError("axis tuple has too many elements")
    if len(canon) == ndim:
        return None
    return tuple(canon)


def check_shape(args, current_shape=None, *, allow_nd=(2,)):
    """SciPy's ``check_shape``: NumPy's shape arguments, a reshape's ``-1``."""
    if len(args) == 0:
        raise TypeError("function missing 1 required positional argument: 'shape'")
    if len(args) == 1:
        try:
            shape_iter = iter(args[0])
        except TypeError:
            new_shape = (operator.index(args[0]),)
        else:
            new_shape = tuple(operator.index(arg) for arg in shape_iter)
    else:
        new_shape = tuple(operator.index(arg) for arg in args)
    if current_shape is None:
        if len(new_shape) not in allow_nd:
            raise ValueError(f"shape must have length in {allow_nd}. Got {new_shape=}")
        if any(d < 0 for d in new_shape):
            raise ValueError("'shape' elements cannot be negative")
    else:
        current_size = math.prod(current_shape)
        negative = [i for i, x in enumerate(new_shape) if x < 0]
        if not negative:
            if math.prod(new_shape) != current_size:
                raise ValueError(f"cannot reshape array of size {current_size}"
                                 f" into shape {new_shape}")
        elif len(negative) == 1:
            skip = negative[0]
            specified = math.prod(new_shape[:skip] + new_shape[skip + 1:])
            unspecified, remainder = divmod(current_size, specified) if specified else (0, 1)
            if remainder != 0:
                err_shape = tuple("newshape" if x < 0 else x for x in new_shape)
                raise ValueError(f"cannot reshape array of size {current_size}"
                                 f" into shape {err_shape}")
            new_shape = new_shape[:skip] + (unspecified,) + new_shape[skip + 1:]
        else:
            raise ValueError("can only specify one unknown dimension")
    if len(new_shape) not in allow_nd:
        raise ValueError(f"shape must have length in {allow_nd}. Got {new_shape=}")
    return new_shape


def check_reshape_kwargs(kwargs):
    order = kwargs.pop("order", "C")
    copy = kwargs.pop("copy", False)
    if kwargs:
        raise TypeError("reshape() got unexpected keywords arguments: "
                        f"{', '.join(kwargs.keys())}")
    return order, copy


def broadcast_shapes(*shapes):
    """SciPy's ``broadcast_shapes`` (no memory check)."""
    if not shapes:
        return ()
    shapes = [shp if isinstance(shp, (tuple, list)) else (shp,) for shp in shapes]
    big = max(shapes, key=len)
    out = list(big)
    for shp in shapes:
        if shp is big:
            continue
        for i, x in enumerate(shp, start=-len(shp)):
            if x != 1 and x != out[i]:
                if out[i] != 1:
                    raise ValueError("shapes cannot be broadcast to a single shape.")
                out[i] = x
    return (*out,)


def as_device(x, dtype=None):
    """`x` (host data or a gpupy array) as a gpupy array, of `dtype` when given (no copy
    when it already is one)."""
    if isinstance(x, gp.ndarray):
        return x if dtype is None or x.dtype == numpy.dtype(dtype) else x.astype(dtype)
    if hasattr(x, "toarray") and hasattr(x, "tocoo") and not hasattr(x, "get"):
        raise TypeError("a SciPy sparse matrix cannot be used as a dense array")
    return gp.asarray(numpy.asarray(x) if not hasattr(x, "__cuda_array_interface__") else x,
                      dtype=dtype)


def scalar(x):
    """A host scalar of a 0-d array (one read for a device array) or a Python scalar."""
    if isinstance(x, gp.ndarray):
        return x.get()[()]
    return x
