"""``tensor[key]`` and ``tensor[key] = value``.

PyTorch builds a chain of ``SelectBackward0`` / ``SliceBackward0`` nodes for a mixed
key and an ``IndexBackward0`` for advanced (array) indexing. minigrad records one node
per ``[]``: ``IndexBackward0`` when the key holds an index array or mask, else
``SelectBackward0`` when it holds an int, else ``SliceBackward0``. The backward scatters
the gradient into zeros with ``np.add.at``, so repeated indices accumulate.
"""
import numpy as np

from . import _ops as ops
from . import grad_mode
from ._dispatch import apply_op


def _normalize(key):
    from ._tensor import Tensor
    if isinstance(key, Tensor):
        return key.data
    if isinstance(key, list):
        return np.asarray(key)
    if isinstance(key, tuple):
        return tuple(_normalize(k) for k in key)
    return key


def _op_for(key):
    parts = key if isinstance(key, tuple) else (key,)
    if any(isinstance(p, np.ndarray) for p in parts):
        return ops.index
    if any(isinstance(p, (int, np.integer)) for p in parts):
        return ops.select
    return ops.slice


def getitem(t, key):
    key = _normalize(key)
    try:
        return apply_op(_op_for(key), (t,), {"index": key, "self_sym_sizes": t.data.shape})
    except IndexError as exc:       # numpy says "axis", PyTorch "dimension"
        raise IndexError(str(exc).replace(" for axis ", " for dimension ")) from None


def setitem(t, key, value):
    from ._tensor import Tensor
    key = _normalize(key)
    value_data = value.data if isinstance(value, Tensor) else value
    recording = grad_mode.is_grad_enabled() and (
        t.requires_grad or (isinstance(value, Tensor) and value.requires_grad))
    if recording:
        raise RuntimeError(
            "minigrad does not record item assignment (tensor[key] = value) in the graph "
            "(PyTorch records it as CopySlices). Build the result out of place instead, "
            "e.g. with minigrad.where or masked_fill, or assign under minigrad.no_grad().")
    t.data[key] = value_data
    t._version_counter[0] += 1
