"""``numpy.lib``'s array views that CuPy provides as ``cupy.lib``: ``stride_tricks``
(``as_strided``, ``sliding_window_view``)."""

from gpupy.lib import stride_tricks

__all__ = ["stride_tricks"]
