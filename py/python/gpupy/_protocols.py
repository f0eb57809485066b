"""NumPy's dispatch protocols for gpupy arrays: ``gpupy.ndarray.__array_ufunc__`` (NEP 13)
and ``__array_function__`` (NEP 18) call this module (``py/src/ndarray.rs``).

- ``numpy.sin(g)``, ``numpy.add(g, g, out=g)``, ``numpy.add.reduce(g)``: NumPy's ufunc
  runs as gpupy's ufunc of the same name (``ufunc.__name__``), its methods as the gpupy
  ufunc's methods (``gpupy._ufunc_methods``).
- ``numpy.concatenate([g, g])``, ``numpy.linalg.norm(g)``, ``numpy.fft.fft(g)``: NumPy's
  function runs as gpupy's of the same name in the matching namespace (``numpy.X`` ->
  ``gpupy.X``, ``numpy.linalg.X`` -> ``gpupy.linalg.X``, ``numpy.fft.X`` ->
  ``gpupy.fft.X``, ...). A function gpupy does not have raises a TypeError naming it:
  gpupy arrays are never copied to the host behind the caller's back.
- ``numpy.asarray(x, like=g)`` and NumPy's other creation functions with ``like=``
  (NEP 35) reach ``__array_function__`` of ``g`` and so make gpupy arrays.

NumPy arrays mixed in (``numpy.add(numpy_array, g)``, ``numpy.concatenate([h, g])``) are
copied to the device, as gpupy's own functions do with NumPy operands. Other array types
that implement the protocols get NotImplemented, so that they may handle the call (or
NumPy raises its TypeError naming the function).
"""

import inspect

import numpy

import gpupy
from gpupy._creation import asarray
from gpupy._gpupy import ndarray

__all__ = ["array_ufunc", "array_function"]

# NumPy modules whose public home is elsewhere (``numpy.emath`` is ``numpy.lib.scimath``).
_MODULE_ALIASES = {"numpy.lib.scimath": "numpy.emath"}


# ---------------------------------------------------------------------------------------
# NEP 13: __array_ufunc__


def _foreign(x):
    """Whether ``x`` is an array of another library that takes part in NEP 13 dispatch
    (so gpupy defers to it)."""
    if isinstance(x, (ndarray, numpy.ndarray, numpy.generic)):
        return False
    return hasattr(type(x), "__array_ufunc__") and type(x).__array_ufunc__ is not None


def _to_device(x):
    """A NumPy array as a gpupy array (copied to the device); anything else as it is."""
    return asarray(x) if isinstance(x, numpy.ndarray) else x


def array_ufunc(self, ufunc, method, inputs, kwargs):
    """NEP 13: NumPy's ``ufunc`` (its ``method``) on gpupy arrays, as gpupy's ufunc of the
    same name; NotImplemented when gpupy has no such ufunc or method, or when another
    array type takes part (NumPy then raises TypeError naming the ufunc)."""
    gp_ufunc = getattr(gpupy, getattr(ufunc, "__name__", ""), None)
    if gp_ufunc is None or gp_ufunc is ufunc or not callable(gp_ufunc):
        return NotImplemented
    out = kwargs.get("out", ())
    if not isinstance(out, tuple):
        out = (out,)
    if any(_foreign(x) for x in inputs) or any(_foreign(o) for o in out):
        return NotImplemented
    if any(o is not None and not isinstance(o, ndarray) for o in out):
        # A NumPy ``out``: writing device results into host memory is left to the caller.
        return NotImplemented
    if method == "__call__":
        target = gp_ufunc
    else:
        target = getattr(gp_ufunc, method, None)
        if target is None:
            return NotImplemented
    if method == "at":
        # In place on the device: the target must be a gpupy array; the indices stay as
        # they are (gpupy's indexing takes host indices).
        if not isinstance(inputs[0], ndarray):
            return NotImplemented
        inputs = (inputs[0], inputs[1]) + tuple(_to_device(x) for x in inputs[2:])
    elif method == "reduceat":
        inputs = (_to_device(inputs[0]),) + tuple(inputs[1:])  # indices: host ones stay on the host
    else:
        inputs = tuple(_to_device(x) for x in inputs)
    return target(*inputs, **kwargs)


# ---------------------------------------------------------------------------------------
# NEP 18: __array_function__


def _gpupy_function(func):
    """gpupy's function for NumPy's ``func`` (found by its module path and name), or
    None."""
    module = getattr(func, "__module__", None) or ""
    name = getattr(func, "__name__", None)
    if name is None or not (module == "numpy" or module.startswith("numpy.")):
        return None
    module = _MODULE_ALIASES.get(module, module)
    namespace = gpupy
    for part in module.split(".")[1:]:
        if part.startswith("_"):  # numpy._core...: a public top-level name
            break
        namespace = getattr(namespace, part, None)
        if namespace is None:
            return None
    f = getattr(namespace, name, None)
    return f if callable(f) else None


def _public_name(func):
    module = getattr(func, "__module__", None) or "numpy"
    return f"{module}.{getattr(func, '__name__', repr(func))}"


def _convert(x):
    """NumPy arrays, also inside lists and tuples (``concatenate([h, g])``), copied to the
    device; everything else as it is."""
    if isinstance(x, numpy.ndarray):
        return asarray(x)
    if type(x) in (list, tuple) and any(isinstance(y, (numpy.ndarray, list, tuple)) for y in x):
        return type(x)(_convert(y) for y in x)
    return x


def _accepts(f, keyword):
    """Whether ``f`` takes the keyword argument ``keyword`` (True when unknown)."""
    try:
        params = inspect.signature(f).parameters
    except (TypeError, ValueError):
        return True
    return keyword in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def array_function(self, func, types, args, kwargs):
    """NEP 18: NumPy's ``func`` on gpupy arrays, as gpupy's function of the same name.
    NotImplemented when an argument is an array of another library; a TypeError naming
    the function when gpupy has none."""
    if not all(issubclass(t, (ndarray, numpy.ndarray)) for t in types):
        return NotImplemented
    f = _gpupy_function(func)
    if f is None:
        raise TypeError(
            f"no implementation found for '{_public_name(func)}' in gpupy: gpupy does not provide this "
            "function, and gpupy arrays are not converted to NumPy implicitly (use gpupy.asnumpy)"
        )
    if f is func:
        # gpupy re-exports NumPy's own function (shape and dtype queries): NumPy's code
        # over the gpupy array, without dispatching again.
        f = func._implementation
    kwargs = dict(kwargs)
    kwargs.pop("like", None)  # (NumPy 2 drops it already; NEP 35's older form kept it)
    if "device" in kwargs and kwargs["device"] is None and not _accepts(f, "device"):
        del kwargs["device"]  # NumPy's creation functions pass device=None along with like=
    out = kwargs.get("out")
    args = tuple(_convert(x) for x in args)
    kwargs = {k: (_convert(v) if k != "out" else v) for k, v in kwargs.items()}
    if out is not None and isinstance(out, numpy.ndarray):
        raise TypeError(f"{_public_name(func)} on gpupy arrays needs a gpupy.ndarray out, not a NumPy array")
    return f(*args, **kwargs)
