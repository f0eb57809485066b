"""``scipy.ndimage``'s binary morphology on gpupy arrays: SciPy's signatures, checks,
messages and results.

An erosion is, at each element, whether every element of the structuring element's
footprint is true (outside the array: ``border_value``): the minimum filter of the
binarized input with ``cval=border_value`` in constant mode. A dilation is SciPy's
inverted erosion: whether any is true, by the maximum filter with the structure
reflected (and its origin negated, less one along even axes), as SciPy does. Both run
in gpupy's order-filter kernels (``kernels/src/filters/``). Where ``mask`` is false an
element keeps its (binarized) input; ``iterations`` repeats the operation (below 1:
until nothing changes, one flag read per round), as SciPy's ``brute_force`` path,
which gives the same results as its faster one.
"""

import operator

import numpy

import gpupy as gp
from gpupy import _gpupy
from gpupyx.scipy.ndimage._filters import _expand_footprint, _expand_origin
from gpupyx.scipy.ndimage._order_filters import footprint_offsets
from gpupyx.scipy.ndimage._util import (
    as_device, check_axes, get_output, mode_code, normalize_sequence,
)


def generate_binary_structure(rank, connectivity):
    """A structuring element of `rank` dimensions whose elements lie within
    `connectivity` unit steps of the center (``scipy.ndimage.generate_binary_structure``)."""
    if connectivity < 1:
        connectivity = 1
    if rank < 1:
        return gp.asarray(numpy.array(True, dtype=bool))
    output = numpy.add.reduce(numpy.fabs(numpy.indices([3] * rank) - 1), 0)
    return gp.asarray(output <= connectivity)


def iterate_structure(structure, iterations, origin=None):
    """`structure` dilated by itself ``iterations - 1`` times
    (``scipy.ndimage.iterate_structure``)."""
    structure = as_device(structure)
    if iterations < 2:
        return structure.copy()
    ni = iterations - 1
    shape = [n + ni * (n - 1) for n in structure.shape]
    pos = [ni * (n // 2) for n in structure.shape]
    out = gp.zeros(shape, bool)
    out[tuple(slice(p, p + n) for p, n in zip(pos, structure.shape))] = structure != 0
    out = binary_dilation(out, structure, iterations=ni)
    if origin is None:
        return out
    origin = normalize_sequence(origin, structure.ndim)
    return out, [iterations * o for o in origin]


def _host_structure(structure):
    if isinstance(structure, gp.ndarray):
        structure = structure.get()
    return numpy.asarray(structure, dtype=bool)


def _binary_erosion(input, structure, iterations, mask, output, border_value, origin, invert,
                    axes):
    try:
        iterations = operator.index(iterations)
    except TypeError as e:
        raise TypeError("iterations parameter should be an integer") from e
    input = as_device(input)
    if input.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    axes = check_axes(axes, input.ndim)
    num_axes = len(axes)
    if structure is None:
        structure = _host_structure(generate_binary_structure(num_axes, 1))
    else:
        structure = _host_structure(structure)
    if input.ndim > num_axes:
        structure = _expand_footprint(input.ndim, axes, structure, "structure")
    if structure.ndim != input.ndim:
        raise RuntimeError("structure and input must have same dimensionality")
    if structure.size < 1:
        raise RuntimeError("structure must not be empty")
    if mask is not None:
        mask = as_device(mask)
        if mask.shape != input.shape:
            raise RuntimeError("mask and input must have equal sizes")
        mask = mask != 0
    origin = _expand_origin(input.ndim, axes, normalize_sequence(origin, num_axes))
    if isinstance(output, gp.ndarray):
        if output.dtype.kind == "c":
            raise TypeError("Complex output type not supported")
    else:
        output = bool
    output = get_output(output, input)
    for o, n in zip(origin, structure.shape):
        if (n // 2 + o < 0) or (n // 2 + o >= n):
            raise ValueError("invalid origin")
    offsets = footprint_offsets(structure, origin)
    border = 1.0 if border_value else 0.0
    constant = mode_code("constant")

    def once(x):
        """One erosion (or inverted erosion) of the bool array `x`."""
        if not offsets:
            # No element in the footprint: every erosion is true, every dilation false.
            r = gp.full(x.shape, not invert, dtype=bool)
        else:
            r = _gpupy._extreme(x, offsets, bool(invert), constant, border, numpy.float32) != 0
        return r if mask is None else gp.where(mask, r, x)

    current = input != 0
    if iterations == 1:
        current = once(current)
    else:
        k = 0
        while k < iterations or iterations < 1:
            nxt = once(current)
            k += 1
            if iterations < 1 and not bool((nxt != current).any()):
                current = nxt
                break
            current = nxt
    output[...] = current
    return output


def binary_erosion(input, structure=None, iterations=1, mask=None, output=None, border_value=0,
                   origin=0, brute_force=False, *, axes=None):
    """Binary erosion (``scipy.ndimage.binary_erosion``)."""
    return _binary_erosion(input, structure, iterations, mask, output, border_value, origin, 0,
                           axes)


def binary_dilation(input, structure=None, iterations=1, mask=None, output=None, border_value=0,
                    origin=0, brute_force=False, *, axes=None):
    """Binary dilation (``scipy.ndimage.binary_dilation``)."""
    input = as_device(input)
    axes = check_axes(axes, input.ndim)
    num_axes = len(axes)
    if structure is None:
        structure = _host_structure(generate_binary_structure(num_axes, 1))
    origin = normalize_sequence(origin, num_axes)
    structure = _host_structure(structure)
    structure = structure[(slice(None, None, -1),) * structure.ndim]
    for k in range(len(origin)):
        origin[k] = -origin[k]
        if not structure.shape[k] & 1:
            origin[k] -= 1
    return _binary_erosion(input, structure, iterations, mask, output, border_value, origin, 1,
                           axes)


def binary_opening(input, structure=None, iterations=1, output=None, origin=0, mask=None,
                   border_value=0, brute_force=False, *, axes=None):
    """Binary opening: erosion then dilation (``scipy.ndimage.binary_opening``)."""
    input = as_device(input)
    axes = check_axes(axes, input.ndim)
    if structure is None:
        structure = generate_binary_structure(len(axes), 1)
    tmp = binary_erosion(input, structure, iterations, mask, None, border_value, origin,
                         brute_force, axes=axes)
    return binary_dilation(tmp, structure, iterations, mask, output, border_value, origin,
                           brute_force, axes=axes)


def binary_closing(input, structure=None, iterations=1, output=None, origin=0, mask=None,
                   border_value=0, brute_force=False, *, axes=None):
    """Binary closing: dilation then erosion (``scipy.ndimage.binary_closing``)."""
    input = as_device(input)
    axes = check_axes(axes, input.ndim)
    if structure is None:
        structure = generate_binary_structure(len(axes), 1)
    tmp = binary_dilation(input, structure, iterations, mask, None, border_value, origin,
                          brute_force, axes=axes)
    return binary_erosion(tmp, structure, iterations, mask, output, border_value, origin,
                          brute_force, axes=axes)


__all__ = [
    "generate_binary_structure", "iterate_structure", "binary_erosion", "binary_dilation",
    "binary_opening", "binary_closing",
]
