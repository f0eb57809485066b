"""Text formatting of arrays and numbers: NumPy's, on a host copy.

``repr(a)`` and ``str(a)`` of a gpupy array are NumPy's repr and str of ``a.get()``
(py/src/ndarray.rs), so NumPy's print options are the ones that apply: ``printoptions``,
``set_printoptions`` and ``get_printoptions`` are NumPy's own functions, and setting them
through either name changes both libraries' printing. The functions that format array
data copy the array to the host (the whole array, as ``repr`` does) and call NumPy's."""

import numpy
from numpy import get_printoptions, printoptions, set_printoptions  # noqa: F401  (shared with NumPy: see above)

from gpupy._gpupy import ndarray


def _host(a):
    return a.get() if isinstance(a, ndarray) else a


def _host_scalar(x):
    """A 0-d gpupy array as the NumPy scalar of its dtype (a host 0-d array would be
    formatted as a Python float: float32 0.1 would print as 0.10000000149011612); other
    values as they are, so NumPy gives its own errors."""
    if isinstance(x, ndarray):
        h = x.get()
        return h[()] if h.ndim == 0 else h
    return x


def array2string(a, *args, **kwargs):
    """NumPy's ``array2string`` of a host copy of ``a`` (same arguments)."""
    return numpy.array2string(_host(a), *args, **kwargs)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """NumPy's ``array_repr`` of a host copy: ``array([...], dtype=...)``, as ``repr(arr)``."""
    return numpy.array_repr(_host(arr), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """NumPy's ``array_str`` of a host copy, as ``str(a)``."""
    return numpy.array_str(_host(a), max_line_width, precision, suppress_small)


def format_float_positional(x, *args, **kwargs):
    """NumPy's ``format_float_positional`` (a 0-d gpupy array is read to the host as a NumPy scalar of its dtype)."""
    return numpy.format_float_positional(_host_scalar(x), *args, **kwargs)


def format_float_scientific(x, *args, **kwargs):
    """NumPy's ``format_float_scientific`` (a 0-d gpupy array is read to the host as a NumPy scalar of its dtype)."""
    return numpy.format_float_scientific(_host_scalar(x), *args, **kwargs)


def base_repr(number, base=2, padding=0):
    """NumPy's ``base_repr`` (a 0-d gpupy integer array is read to the host as a NumPy scalar)."""
    return numpy.base_repr(_host_scalar(number), base, padding)


def binary_repr(num, width=None):
    """NumPy's ``binary_repr`` (a 0-d gpupy integer array is read to the host as a NumPy scalar)."""
    return numpy.binary_repr(_host_scalar(num), width)


__all__ = [
    "printoptions", "set_printoptions", "get_printoptions", "array2string", "array_repr", "array_str",
    "format_float_positional", "format_float_scientific", "base_repr", "binary_repr",
]
