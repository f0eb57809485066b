"""``gpupy.memoize`` and ``gpupy.clear_memo`` (CuPy's): a decorator caching a function's
results by its arguments (and by device), and the switch that empties every such cache
and the in-memory cache of compiled kernels."""

import functools

from gpupy import cuda
from gpupy._userkernel import _cache

_memos = []


def memoize(for_each_device=False):
    """Caches the decorated function's results by its positional and keyword arguments
    (which must be hashable); ``for_each_device=True`` keeps one cache per device."""

    def decorator(f):
        memo = {}
        _memos.append(memo)

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            key = (args, tuple(sorted(kwargs.items())))
            if for_each_device:
                key = (cuda.Device().id, key)
            try:
                return memo[key]
            except KeyError:
                value = memo[key] = f(*args, **kwargs)
                return value

        return wrapper

    return decorator


def clear_memo():
    """Empties every ``memoize`` cache and the in-memory cache of compiled kernels."""
    for m in _memos:
        m.clear()
    _cache.clear_memory()


__all__ = ["memoize", "clear_memo"]
