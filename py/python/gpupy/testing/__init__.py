"""gpupy.testing: NumPy's ``numpy.testing`` assertions, accepting gpupy arrays.

Each array assertion copies its gpupy arguments to the host (``gpupy.asnumpy``; inside
lists, tuples and dicts too, for ``assert_equal``) and calls NumPy's function with the
same arguments, so the messages, tolerances and ``strict=`` checks are NumPy's. The
assertions that take no arrays (``assert_raises``, ``assert_warns``, ...) are NumPy's own
objects. CuPy's ``cupy.testing`` has the same array assertions; its test decorators
(``numpy_cupy_allclose``, ...) are not NumPy names and are not here."""

import functools as _functools

import numpy.testing as _npt
from numpy.testing import (  # noqa: F401  (NumPy's own: they take no arrays)
    assert_,
    assert_no_gc_cycles,
    assert_no_warnings,
    assert_raises,
    assert_raises_regex,
    assert_string_equal,
    assert_warns,
)

from gpupy._creation import asnumpy as _asnumpy
from gpupy._gpupy import ndarray as _ndarray


def _host(x):
    """``x`` with every gpupy array in it (also inside lists, tuples, dicts) copied to
    the host."""
    if isinstance(x, _ndarray):
        return _asnumpy(x)
    if type(x) in (list, tuple):
        return type(x)(_host(v) for v in x)
    if type(x) is dict:
        return {k: _host(v) for k, v in x.items()}
    return x


def _on_host(numpy_assert, n_arrays=2):
    """A gpupy version of ``numpy_assert`` whose first ``n_arrays`` arguments are
    host-copied."""

    @_functools.wraps(numpy_assert)
    def wrapper(*args, **kwargs):
        args = tuple(_host(a) if i < n_arrays else a for i, a in enumerate(args))
        for key in ("actual", "desired", "x", "y", "a", "b"):
            if key in kwargs:
                kwargs[key] = _host(kwargs[key])
        return numpy_assert(*args, **kwargs)

    wrapper.__module__ = __name__
    return wrapper


assert_allclose = _on_host(_npt.assert_allclose)
assert_array_equal = _on_host(_npt.assert_array_equal)
assert_array_almost_equal = _on_host(_npt.assert_array_almost_equal)
assert_array_less = _on_host(_npt.assert_array_less)
assert_equal = _on_host(_npt.assert_equal)
assert_almost_equal = _on_host(_npt.assert_almost_equal)
assert_approx_equal = _on_host(_npt.assert_approx_equal)
assert_array_max_ulp = _on_host(_npt.assert_array_max_ulp)
assert_array_almost_equal_nulp = _on_host(_npt.assert_array_almost_equal_nulp)

__all__ = [
    "assert_allclose", "assert_array_equal", "assert_array_almost_equal", "assert_array_less", "assert_equal",
    "assert_almost_equal", "assert_approx_equal", "assert_array_max_ulp", "assert_array_almost_equal_nulp",
    "assert_", "assert_no_gc_cycles", "assert_raises", "assert_raises_regex", "assert_warns", "assert_no_warnings", "assert_string_equal",
]
