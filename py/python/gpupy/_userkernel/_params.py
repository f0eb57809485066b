"""CuPy's parameter language for ``ElementwiseKernel`` and ``ReductionKernel``:
``'float32 x, T y, raw T z'``, and the binding of type placeholders to dtypes.

A parameter is ``[raw] type name``: ``type`` is a NumPy dtype name (``float32``,
``int64``, ``complex128``, ``bool``, ...) or a one-letter placeholder (``T``) bound from
the arguments; ``raw`` passes the whole array, indexed by the kernel (``z[i]``), instead
of one broadcast element.
"""

import numpy

from gpupy._gpupy import ndarray


class Param:
    """One declared parameter."""

    __slots__ = ("name", "ctype", "dtype", "raw", "is_const")

    def __init__(self, text, is_const):
        words = text.split()
        if len(words) < 2:
            raise Exception(f"Syntax error: {text}")
        t, self.name = words[-2:]
        self.raw = False
        self.is_const = is_const
        self.dtype = None
        if len(t) == 1:
            self.ctype = t
        else:
            dtype = numpy.dtype(t)
            if dtype.name != t and not (t == "bool" and dtype == numpy.bool_):
                raise ValueError(f"Wrong type {t}")
            self.dtype = dtype
            self.ctype = t
        for w in words[:-2]:
            if w == "raw":
                self.raw = True
            elif w == "_non_const":
                self.is_const = False
            else:
                raise Exception(f'Unknown keyword "{w}"')
        if not self.name.isidentifier():
            raise Exception(f"Syntax error: {text}")

    @property
    def placeholder(self):
        return self.dtype is None

    def __repr__(self):
        return f"<Param {'raw ' if self.raw else ''}{self.ctype} {self.name}>"


def parse(text, is_const):
    """The parameters of a comma-separated declaration (an empty string has none)."""
    if isinstance(text, (tuple, list)):
        return tuple(p if isinstance(p, Param) else Param(p, is_const) for p in text)
    return tuple(Param(p, is_const) for p in text.split(",") if p.strip())


def check_names(in_params, out_params):
    names = [p.name for p in in_params + out_params]
    seen = set()
    for n in names:
        if n in seen:
            raise ValueError(f"Parameter name {n!r} is used twice")
        seen.add(n)


# Python scalars take these types when nothing else binds their placeholder (CuPy's rule).
_PY_SCALAR = {
    bool: numpy.dtype(numpy.bool_),
    int: numpy.dtype(numpy.int64),
    float: numpy.dtype(numpy.float64),
    complex: numpy.dtype(numpy.complex128),
}


def scalar_dtype(v):
    """The dtype a scalar argument has on its own: NumPy scalars their own, Python ones
    int64/float64/complex128/bool; None for anything that is not a scalar."""
    if isinstance(v, numpy.generic):
        return v.dtype
    return _PY_SCALAR.get(type(v))


def bind(params, args, types):
    """Binds placeholders in `types` (a dict, updated) from the arrays and NumPy scalars
    among `args`; Python scalars bind only what is still unbound, afterwards."""
    weak = []
    for p, a in zip(params, args):
        if not p.placeholder:
            continue
        if isinstance(a, ndarray):
            d = a.dtype
        elif isinstance(a, numpy.generic):
            d = a.dtype
        elif a is None:
            continue
        else:
            weak.append((p, a))
            continue
        known = types.get(p.ctype)
        if known is not None and known != d:
            raise TypeError(f"Type is mismatched. {p.name} {d.type} {known.type}")
        types[p.ctype] = d
    for p, a in weak:
        if p.ctype not in types:
            d = scalar_dtype(a)
            if d is None:
                raise TypeError(f"Unsupported type {type(a)}")
            types[p.ctype] = d


def dtype_of(p, types):
    """The dtype a parameter has once its placeholder is bound."""
    if p.dtype is not None:
        return p.dtype
    d = types.get(p.ctype)
    if d is None:
        raise TypeError(f"Cannot determine the type of {p.name} ({p.ctype} is not bound)")
    return d


__all__ = ["Param", "parse", "check_names", "scalar_dtype", "bind", "dtype_of"]
