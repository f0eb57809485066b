"""``scipy.ndimage`` on gpupy arrays, under CuPy's ``cupyx.scipy.ndimage`` names.

    import gpupyx.scipy.ndimage as ndi
    smooth = ndi.gaussian_filter(image, sigma=2)          # as scipy.ndimage.gaussian_filter
    edges = ndi.sobel(smooth, axis=0, mode="nearest")

SciPy's signatures, checks, messages and output dtypes; every boundary mode
(``reflect``, ``constant``, ``nearest``, ``mirror``, ``wrap`` and the ``grid-*`` names),
``cval``, ``origin``, ``axes``. The filters are gpupy's Rust kernels
(``kernels/src/filters/``); see ``_filters.py`` for the arithmetic. Inputs may be
gpupy arrays or host data (copied to the device); weights are read on the host.

This first part of the module has the correlation filters: ``correlate1d``,
``convolve1d``, ``correlate``, ``convolve``, ``gaussian_filter1d``,
``gaussian_filter``, ``uniform_filter1d``, ``uniform_filter``, ``sobel``, ``prewitt``,
``laplace``, ``gaussian_laplace``, ``gaussian_gradient_magnitude``,
``generic_laplace``, ``generic_gradient_magnitude``.
"""

from gpupyx.scipy.ndimage._filters import (
    convolve,
    convolve1d,
    correlate,
    correlate1d,
    gaussian_filter,
    gaussian_filter1d,
    gaussian_gradient_magnitude,
    gaussian_laplace,
    generic_gradient_magnitude,
    generic_laplace,
    laplace,
    prewitt,
    sobel,
    uniform_filter,
    uniform_filter1d,
)

__all__ = [
    "convolve", "convolve1d", "correlate", "correlate1d", "gaussian_filter", "gaussian_filter1d",
    "gaussian_gradient_magnitude", "gaussian_laplace", "generic_gradient_magnitude",
    "generic_laplace", "laplace", "prewitt", "sobel", "uniform_filter", "uniform_filter1d",
]
