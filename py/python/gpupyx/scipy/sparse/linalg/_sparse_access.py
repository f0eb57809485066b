"""The link to ``gpupyx.scipy.sparse``, which imports this subpackage from its
``__init__``: this subpackage imports it only inside functions, once both are loaded
(a module-level import would be a cycle)."""

import importlib


def sparse_module():
    """``gpupyx.scipy.sparse`` (imported on first use)."""
    return importlib.import_module("gpupyx.scipy.sparse")


def issparse(x):
    """True for a ``gpupyx.scipy.sparse`` matrix or array."""
    return sparse_module().issparse(x)


def is_scipy_sparse(x):
    """True for a SciPy (host) sparse matrix or array; gpupyx copies it to the device."""
    return type(x).__module__.startswith("scipy.sparse") and hasattr(x, "tocsr")


def to_device_sparse(x):
    """A SciPy (host) sparse matrix as a ``gpupyx.scipy.sparse.csr_matrix``."""
    return sparse_module().csr_matrix(x.tocsr())


class _SparseEfficiencyWarning(UserWarning):
    """Stand-in for ``gpupyx.scipy.sparse.SparseEfficiencyWarning`` should that module
    not define it."""


def efficiency_warning():
    """``gpupyx.scipy.sparse.SparseEfficiencyWarning`` (SciPy's warning about formats)."""
    return getattr(sparse_module(), "SparseEfficiencyWarning", _SparseEfficiencyWarning)
