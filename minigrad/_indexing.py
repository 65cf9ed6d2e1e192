"""``tensor[key]`` and ``tensor[key] = value``.

As in PyTorch, basic indexing (ints and slices) is applied one dimension at a time,
giving a chain of ``SelectBackward0`` / ``SliceBackward0`` nodes (``x[:, 1]`` is one
select, ``x[0, 1]`` two); a key holding an index array, a mask, ``None`` or ``...`` is
one ``IndexBackward0``. The backward scatters the gradient into zeros with
``np.add.at``, so repeated indices accumulate.
"""
import numpy as np

from . import _ops as ops
from . import grad_mode
from ._dispatch import apply_op


def _normalize(key):
    from ._tensor import Tensor
    if isinstance(key, Tensor):
        return key._array
    if isinstance(key, list):
        return np.asarray(key)
    if isinstance(key, tuple):
        return tuple(_normalize(k) for k in key)
    return key


def _op_for(key):
    parts = key if isinstance(key, tuple) else (key,)
    if any(isinstance(p, np.ndarray) or p is None or p is Ellipsis for p in parts):
        return ops.index
    if any(isinstance(p, (int, np.integer)) for p in parts):
        return ops.select
    return ops.slice


def _basic_steps(key):
    """Split a tuple of ints and slices into one-dimension keys, or None."""
    if not isinstance(key, tuple) or not all(
            isinstance(k, (int, np.integer, slice)) for k in key):
        return None
    steps, dim = [], 0
    for k in key:
        if isinstance(k, slice) and k == slice(None):
            dim += 1
            continue
        steps.append((slice(None),) * dim + (k,))
        if isinstance(k, slice):
            dim += 1
    return steps


def getitem(t, key):
    key = _normalize(key)
    try:
        steps = _basic_steps(key)
        if steps is None or len(steps) < 2:
            return apply_op(_op_for(key), (t,), {"index": key, "self_sym_sizes": t._array.shape})
        for step in steps:
            t = apply_op(_op_for(step), (t,), {"index": step, "self_sym_sizes": t._array.shape})
        return t
    except IndexError as exc:       # numpy says "axis", PyTorch "dimension"
        raise IndexError(str(exc).replace(" for axis ", " for dimension ")) from None


def setitem(t, key, value):
    from ._tensor import Tensor
    key = _normalize(key)
    value_data = value._array if isinstance(value, Tensor) else value
    recording = grad_mode.is_grad_enabled() and (
        t.requires_grad or (isinstance(value, Tensor) and value.requires_grad))
    if recording:
        raise RuntimeError(
            "minigrad does not record item assignment (tensor[key] = value) in the graph "
            "(PyTorch records it as CopySlices). Build the result out of place instead, "
            "e.g. with minigrad.where or masked_fill, or assign under minigrad.no_grad().")
    t._notify_inplace()
    t._array[key] = value_data
    t._version_counter[0] += 1
