"""Dtype routines: NumPy's own, taking gpupy arrays where NumPy takes arrays."""

import numpy
from numpy import finfo, iinfo  # noqa: F401  (NumPy's work as they are)

from gpupy._gpupy import ndarray


def _dtype_of(x):
    return x.dtype if isinstance(x, ndarray) else x


def result_type(*arrays_and_dtypes):
    """NumPy's ``result_type`` (NEP 50: Python scalars are weak)."""
    return numpy.result_type(*[_dtype_of(x) for x in arrays_and_dtypes])


def can_cast(from_, to, casting="safe"):
    """NumPy's ``can_cast`` for dtypes and gpupy arrays (not Python scalars, as NumPy 2)."""
    return numpy.can_cast(_dtype_of(from_), to, casting)


__all__ = ["result_type", "can_cast", "finfo", "iinfo"]
