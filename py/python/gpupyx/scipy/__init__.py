"""SciPy's names computed by gpupy, under CuPy's ``cupyx.scipy`` layout: code written for
``cupyx.scipy.fft``, ``cupyx.scipy.fftpack``, ``cupyx.scipy.linalg``,
``cupyx.scipy.ndimage``, ``cupyx.scipy.signal`` or ``cupyx.scipy.sparse`` runs with
``gpupyx.scipy`` in its place.

- ``gpupyx.scipy.fft``: ``scipy.fft`` (FFTs, real-to-real transforms, helpers, plans);
- ``gpupyx.scipy.fftpack``: ``scipy.fftpack``'s FFTs, with its packed real layout;
- ``gpupyx.scipy.linalg``: ``scipy.linalg``'s solvers, factorizations, ``expm`` and
  special matrices;
- ``gpupyx.scipy.ndimage``: ``scipy.ndimage``'s filters (correlations, Gaussian,
  uniform, Sobel, Laplace, order filters), binary morphology, interpolation, labels,
  measurements by label and the distance transform (see its docstring);
- ``gpupyx.scipy.signal``: ``scipy.signal``'s convolutions, filters (order, recursive),
  resampling, windows, spectral analysis and peak finding (see its docstring);
- ``gpupyx.scipy.sparse``: ``scipy.sparse``'s CSR, CSC, COO and DIA matrices and arrays,
  their products and conversions, and the construction functions; its ``linalg``: the
  iterative solvers, ``LinearOperator``, ``eigsh``, ``svds``, ``norm``.

The submodules load on first use (as CuPy's do), so that ``import gpupyx`` stays cheap.
"""

import importlib as _importlib

_SUBMODULES = ("fft", "fftpack", "linalg", "ndimage", "signal", "sparse")


def __getattr__(name):
    if name in _SUBMODULES:
        return _importlib.import_module(f"gpupyx.scipy.{name}")
    raise AttributeError(f"Module 'gpupyx.scipy' has no attribute '{name}'")


def __dir__():
    return sorted(list(globals()) + list(_SUBMODULES))

__all__ = list(_SUBMODULES)
