"""The shapes and strides a generated kernel walks: broadcasting, dimension coalescing
(``reduce_dims``) and their bytes as kernel parameters (a ``raw`` parameter's
``CArray`` descriptor is packed in Rust, ``carray_bytes`` in py/src/user_kernel.rs).
Pure shape arithmetic on the host; no data moves."""

import struct

import numpy


def broadcast_shape(shapes):
    """NumPy's broadcast of `shapes`; ValueError as NumPy's when they do not broadcast."""
    if not shapes:
        return ()
    return numpy.broadcast_shapes(*shapes)


def broadcast_strides(a, shape):
    """`a`'s byte strides over `shape` (0 along broadcast dimensions)."""
    nd = len(shape)
    pad = nd - a.ndim
    out = [0] * nd
    for k, (n, s) in enumerate(zip(a.shape, a.strides)):
        out[pad + k] = 0 if n == 1 and shape[pad + k] != 1 else s
    return out


def coalesce(shape, strides_list, reduce_dims=True):
    """(shape, strides_list) with size-1 dimensions dropped and neighbours merged where
    every array steps through them as through one dimension."""
    dims = [(n, [s[k] for s in strides_list]) for k, n in enumerate(shape) if n != 1]
    if not reduce_dims:
        return list(shape), [list(s) for s in strides_list]
    merged = []
    for n, st in dims:
        if merged:
            pn, pst = merged[-1]
            if all(ps == s * n for ps, s in zip(pst, st)):
                merged[-1] = (pn * n, st)
                continue
        merged.append((n, st))
    shape = [n for n, _ in merged]
    strides = [[st[i] for _, st in merged] for i in range(len(strides_list))]
    return shape, strides


def is_c_contiguous(a):
    """Whether `a`'s elements are dense in C order (broadcast views are not)."""
    expect = a.itemsize
    for n, s in zip(reversed(a.shape), reversed(a.strides)):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def dims_bytes(values):
    return struct.pack(f"<{len(values)}q", *values)


__all__ = [
    "broadcast_shape",
    "broadcast_strides",
    "coalesce",
    "is_c_contiguous",
    "dims_bytes",
]
