"""``scipy.ndimage`` on gpupy arrays, under CuPy's ``cupyx.scipy.ndimage`` names.

    import gpupyx.scipy.ndimage as ndi
    smooth = ndi.gaussian_filter(image, sigma=2)          # as scipy.ndimage.gaussian_filter
    edges = ndi.sobel(smooth, axis=0, mode="nearest")

SciPy's signatures, checks, messages and output dtypes; every boundary mode
(``reflect``, ``constant``, ``nearest``, ``mirror``, ``wrap`` and the ``grid-*`` names),
``cval``, ``origin``, ``axes``. The filters are gpupy's Rust kernels
(``kernels/src/filters/``); see ``_filters.py`` for the arithmetic. Inputs may be
gpupy arrays or host data (copied to the device); weights are read on the host.

The module has the correlation filters (``correlate1d``, ``convolve1d``,
``correlate``, ``convolve``, ``gaussian_filter1d``, ``gaussian_filter``,
``uniform_filter1d``, ``uniform_filter``, ``sobel``, ``prewitt``, ``laplace``,
``gaussian_laplace``, ``gaussian_gradient_magnitude``, ``generic_laplace``,
``generic_gradient_magnitude``), the order filters (``minimum_filter1d``,
``maximum_filter1d``, ``minimum_filter``, ``maximum_filter``, ``rank_filter``,
``median_filter``, ``percentile_filter``; ``_order_filters.py``) and binary morphology
(``binary_erosion``, ``binary_dilation``, ``binary_opening``, ``binary_closing``,
``generate_binary_structure``, ``iterate_structure``; ``_morphology.py``), labels
(``label``, ``find_objects``; ``_label.py``), measurements by label (``sum_labels``,
``sum``, ``mean``, ``variance``, ``standard_deviation``, ``minimum``, ``maximum``,
``median``, ``minimum_position``, ``maximum_position``, ``extrema``,
``center_of_mass``, ``histogram``, ``labeled_comprehension``; ``_measurements.py``),
the Euclidean distance transform (``distance_transform_edt``; ``_distance.py``), on the
measure kernels (``kernels/src/measure/``), and interpolation (``spline_filter1d``,
``spline_filter``, ``map_coordinates``, ``affine_transform``, ``shift``, ``zoom``,
``rotate``; ``geometric_transform`` raises, as it takes a Python function;
``_interpolation.py``, on the Rust kernels of ``kernels/src/interpolate/``).
"""

from gpupyx.scipy.ndimage._distance import distance_transform_edt
from gpupyx.scipy.ndimage._filters import (
    convolve,
    convolve1d,
    correlate,
    correlate1d,
    gaussian_filter,
    gaussian_filter1d,
    gaussian_gradient_magnitude,
    gaussian_laplace,
    generic_filter,
    generic_filter1d,
    generic_gradient_magnitude,
    generic_laplace,
    laplace,
    prewitt,
    sobel,
    uniform_filter,
    uniform_filter1d,
)
from gpupyx.scipy.ndimage._interpolation import (
    affine_transform,
    geometric_transform,
    map_coordinates,
    rotate,
    shift,
    spline_filter,
    spline_filter1d,
    zoom,
)
from gpupyx.scipy.ndimage._label import find_objects, label
from gpupyx.scipy.ndimage._measurements import (
    center_of_mass,
    extrema,
    histogram,
    labeled_comprehension,
    maximum,
    maximum_position,
    mean,
    median,
    minimum,
    minimum_position,
    standard_deviation,
    sum,
    sum_labels,
    variance,
)
from gpupyx.scipy.ndimage._morphology import (
    binary_closing,
    binary_dilation,
    binary_erosion,
    binary_opening,
    generate_binary_structure,
    iterate_structure,
)
from gpupyx.scipy.ndimage._order_filters import (
    maximum_filter,
    maximum_filter1d,
    median_filter,
    minimum_filter,
    minimum_filter1d,
    percentile_filter,
    rank_filter,
)

__all__ = [
    "convolve", "convolve1d", "correlate", "correlate1d", "gaussian_filter", "gaussian_filter1d",
    "gaussian_gradient_magnitude", "gaussian_laplace", "generic_gradient_magnitude",
    "generic_laplace", "generic_filter", "generic_filter1d", "laplace", "prewitt", "sobel", "uniform_filter", "uniform_filter1d",
    "minimum_filter1d", "maximum_filter1d", "minimum_filter", "maximum_filter", "rank_filter",
    "median_filter", "percentile_filter", "binary_erosion", "binary_dilation", "binary_opening",
    "binary_closing", "generate_binary_structure", "iterate_structure", "label", "find_objects",
    "sum_labels", "sum", "mean", "variance", "standard_deviation", "minimum", "maximum", "median",
    "minimum_position", "maximum_position", "extrema", "center_of_mass", "histogram",
    "labeled_comprehension", "distance_transform_edt", "spline_filter1d",
    "spline_filter", "geometric_transform", "map_coordinates", "affine_transform", "shift", "zoom",
    "rotate",
]
