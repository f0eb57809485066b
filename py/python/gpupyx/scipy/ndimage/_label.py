"""``scipy.ndimage.label`` and ``find_objects`` on gpupy arrays: SciPy's signatures,
checks, messages and results, labels included (not just up to a permutation).

``label`` runs the union-find of ``kernels/src/measure/union_find.rs``: every
component becomes a tree rooted at its first element, and ranking the roots numbers
the components in the order of their first elements, which is SciPy's order. SciPy
walks the array line by line along the output's axis of smallest stride (the last
axis for a new output), so for an output of another layout the labelling runs on the
array with that axis moved last, as SciPy numbers it. One read: the count.

``find_objects`` takes each label's bounding box on the device (atomic minima and
maxima per stretch of one label) and reads the boxes once.
"""

import operator

import numpy

import gpupy as gp
from gpupy import _gpupy
from gpupyx.scipy.ndimage._util import as_device


def _binary_structure(rank, connectivity):
    """``generate_binary_structure`` on the host (NumPy)."""
    if connectivity < 1:
        connectivity = 1
    if rank < 1:
        return numpy.array(True, dtype=bool)
    return numpy.add.reduce(numpy.fabs(numpy.indices([3] * rank) - 1), 0) <= connectivity


def _host_bool(structure):
    if isinstance(structure, gp.ndarray):
        structure = structure.get()
    return numpy.asarray(structure, dtype=bool)


def _line_axis(output):
    """The axis NumPy's ``PyArray_IterAllButAxis`` leaves out of an iteration over
    `output` (its smallest positive stride, as SciPy's labelling walks lines)."""
    strides = output.strides
    minaxis, minstride, i = 0, 0, 0
    while minstride == 0 and i < output.ndim:
        minstride = strides[i]
        i += 1
    for i in range(1, output.ndim):
        if 0 < strides[i] < minstride:
            minaxis, minstride = i, strides[i]
    return minaxis


def _earlier_steps(structure):
    """The steps to the true elements of a 3^n `structure` before its center (C
    order): each component connection once, as the earlier neighbour of the later
    element."""
    steps = numpy.argwhere(structure) - 1
    linear = numpy.zeros(len(steps), numpy.int64)
    for k in range(structure.ndim):
        linear = linear * 3 + steps[:, k]
    return steps[linear < 0].tolist()


def _fits(max_label, dtype):
    """Whether every label 0..max_label is exact in `dtype` (SciPy's check of the
    output's bit depth)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return max_label <= numpy.iinfo(numpy.uint8).max
    if dtype.kind in "iu":
        return max_label <= numpy.iinfo(dtype).max
    if dtype.kind == "f":
        return max_label <= 2 ** (numpy.finfo(dtype).nmant + 1)
    return False


def _labelled_type(dtype):
    """The input and output types SciPy's labelling reads and writes (bool as uint8)."""
    return dtype.kind in "biu" or dtype in (numpy.float32, numpy.float64)


def label(input, structure=None, output=None):
    """Labels the connected features (nonzero elements) of `input`
    (``scipy.ndimage.label``): ``(labels, num_features)``, or ``num_features`` when
    `output` is a gpupy array, which then holds the labels. Features are numbered
    1.. in SciPy's order. Reads one number (the count) back from the device.

    .. seealso:: :func:`scipy.ndimage.label`"""
    input = as_device(input)
    if input.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    if structure is None:
        structure = _binary_structure(input.ndim, 1)
    structure = _host_bool(structure)
    if structure.ndim != input.ndim:
        raise RuntimeError("structure and input must have equal rank")
    for ii in structure.shape:
        if ii != 3:
            raise ValueError("structure dimensions must be equal to 3")
    # SciPy's labels need two entries for background and foreground tracking.
    need_64bits = input.size >= (2**31 - 2)
    if isinstance(output, gp.ndarray):
        if output.shape != input.shape:
            raise ValueError("output shape not correct")
        caller_provided_output = True
    else:
        caller_provided_output = False
        output = gp.empty(input.shape, numpy.intp if need_64bits else numpy.int32) if output is None \
            else gp.empty(input.shape, output)
    if input.ndim == 0 or input.size == 0:
        maxlabel = (1 if bool(input != 0) else 0) if input.ndim == 0 else 0
        if input.ndim == 0:
            output[...] = maxlabel
        return maxlabel if caller_provided_output else (output, maxlabel)
    if not numpy.array_equal(structure, structure[(slice(None, None, -1),) * structure.ndim]):
        # SciPy's assertion in _ni_label._label.
        raise AssertionError("Structuring element is not symmetric")
    if not (_labelled_type(input.dtype) and _labelled_type(output.dtype)):
        # SciPy's fused line readers and writers take these types only.
        raise TypeError("No matching signature found")
    # Label in SciPy's walk order: the output's line axis last.
    axis = _line_axis(output)
    mask = gp.moveaxis(input != 0, axis, -1)
    steps = _earlier_steps(numpy.moveaxis(structure, axis, -1))
    labels, max_label = _gpupy._label(mask, steps, need_64bits)
    labels = gp.moveaxis(labels, -1, axis)
    if labels.dtype != output.dtype and not _fits(max_label, output.dtype):
        raise RuntimeError("insufficient bit-depth in requested output type")
    if not caller_provided_output and labels.dtype == output.dtype and axis == input.ndim - 1:
        return labels, max_label  # already the new output SciPy would make
    output[...] = labels
    return max_label if caller_provided_output else (output, max_label)


def _label_values(input):
    """`input` as the int32/int64 labels SciPy's ``find_objects`` reads: element `v`
    is label ``(npy_intp)(v - 1) + 1`` (the subtraction in the input's type), so
    unsigned values above 2**63 and non-positive ones count as no label."""
    kind, size = input.dtype.kind, input.dtype.itemsize
    if kind == "b" or (kind in "iu" and size < 4) or input.dtype == numpy.int32:
        return input.astype(numpy.int32, copy=False)
    if kind in "iu":
        return input.astype(numpy.int64, copy=False)  # uint64 wraps as NumPy's cast
    if input.dtype in (numpy.float32, numpy.float64):
        # (v - 1) truncated toward zero: (0, 1) is label 1; NaN and v <= 0 none.
        trunc = (input - input.dtype.type(1)).astype(numpy.int64) + 1
        return gp.where(input > 0, trunc, 0)
    raise RuntimeError("data type not supported")


def find_objects(input, max_label=0):
    """The bounding box of each label ``1..max_label`` of `input` as a tuple of
    slices, None for a missing label (``scipy.ndimage.find_objects``). One read of
    the boxes (and one of the maximum when `max_label` is not given).

    .. seealso:: :func:`scipy.ndimage.find_objects`"""
    input = as_device(input)
    if input.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    if max_label < 1:
        max_label = input.max().get()[()]  # a NumPy scalar, as SciPy's input.max()
    # SciPy's C function takes an index ("n"): floats and bools raise its TypeError.
    max_label = max(operator.index(max_label), 0)
    labels = _label_values(input)
    if input.ndim == 0:
        v = int(labels)
        return [() if v == k + 1 else None for k in range(max_label)]
    boxes = _gpupy._find_objects(labels, max_label).get().tolist()  # Python ints, fast
    missing = int(numpy.iinfo(numpy.uint64).max)
    result = [None if lo[0] == missing else tuple(map(slice, lo, hi)) for lo, hi in boxes]
    return result


__all__ = ["label", "find_objects"]
