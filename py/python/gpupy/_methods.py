"""ndarray methods written in Python: NumPy's methods that forward to a module-level
function (``a.sum(axis)`` is ``gpupy.sum(a, axis)``). They are set on the extension's
class once at import, so a call costs one Python function call, no module lookup."""

from gpupy._gpupy import ndarray


def attach(methods):
    """Sets ``ndarray.<name>`` for each ``name: function`` in ``methods``; the function
    takes the array first."""
    for name, f in methods.items():

        def method(self, *args, _f=f, **kwargs):
            return _f(self, *args, **kwargs)

        method.__name__ = name
        method.__qualname__ = f"ndarray.{name}"
        method.__doc__ = f.__doc__
        setattr(ndarray, name, method)


__all__ = ["attach"]
