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


_INT64_MAX = 2 ** 63 - 1       # PyTorch's "to the end" for a slice without a stop


def _is_advanced(parts):
    return any(isinstance(p, np.ndarray) or p is None or p is Ellipsis for p in parts)


def _basic_steps(key):
    """Split a tuple of ints and slices into ``(dim, int or slice)`` steps, one dimension
    each (an int removes its dimension, so later steps count without it)."""
    steps, dim = [], 0
    for k in key:
        if isinstance(k, slice) and k == slice(None):
            dim += 1
            continue
        steps.append((dim, k))
        if isinstance(k, slice):
            dim += 1
    return steps


def _apply_step(t, dim, k):
    """One ``SelectBackward0`` or ``SliceBackward0``, with the attributes PyTorch saves."""
    key = (slice(None),) * dim + (k,)
    if isinstance(k, slice):
        return apply_op(ops.slice, (t,), {
            "key": key, "dim": dim, "start": 0 if k.start is None else k.start,
            "end": _INT64_MAX if k.stop is None else k.stop, "step": 1 if k.step is None else k.step})
    return apply_op(ops.select, (t,), {"key": key, "dim": dim, "index": int(k)})


class _SavedIndices(tuple):
    """What ``IndexBackward0`` and ``IndexPutBackward0`` keep as ``indices``: as PyTorch's
    list of saved variables, one ``SavedTensor`` per indexed dimension (holding None for
    a dimension taken whole). ``node._raw_saved_indices`` is this tuple,
    ``node._saved_indices`` the tensors; saved-tensor hooks pack each index tensor."""

    def unpack(self, node=None, for_backward=False):
        return tuple(saved.unpack(node, for_backward) for saved in self)

    def free(self):
        for saved in self:
            saved.free()


def _save_indices(node, parts):
    """Give ``node`` (None when no graph was recorded) its saved ``indices``."""
    from ._tensor import Tensor
    from .autograd.saved_variable import SavedTensor
    if node is not None:
        node._stored["indices"] = _SavedIndices(
            SavedTensor(None if isinstance(p, slice) else Tensor._wrap(np.asarray(p))) for p in parts)


def getitem(t, key):
    key = _normalize(key)
    parts = key if isinstance(key, tuple) else (key,)
    try:
        if _is_advanced(parts):
            out = apply_op(ops.index, (t,), {"key": key})
            _save_indices(out.grad_fn, parts)
            return out
        steps = _basic_steps(parts)
        if not steps:                       # x[:] or x[:, :]: PyTorch gives a slice of dim 0
            steps = [(0, slice(None))]
        for dim, k in steps:
            t = _apply_step(t, dim, k)
        return t
    except IndexError as exc:       # numpy says "axis", PyTorch "dimension"
        raise IndexError(str(exc).replace(" for axis ", " for dimension ")) from None


def _basic_key(parts, ndim):
    """A key of ints, slices, ``None`` and ``...`` as ints and slices only (what it
    writes to is the same: ``None`` adds no element, ``...`` is full slices)."""
    parts = [p for p in parts if p is not None]
    if any(p is Ellipsis for p in parts):
        at = parts.index(Ellipsis)
        fill = ndim - (len(parts) - 1)
        parts = parts[:at] + [slice(None)] * fill + parts[at + 1:]
    return tuple(parts)


def setitem(t, key, value):
    """``t[key] = value``, as PyTorch does it: a key of ints and slices writes through
    a view (``t[key].copy_(value)``, so in a graph ``t`` gets a ``CopySlices`` node); a
    key with an index array or a mask is ``index_put_`` on ``t`` (``IndexPutBackward0``).
    Outside a graph it is a plain numpy assignment."""
    from ._tensor import Tensor
    from ._tensor_methods import _as_tensor
    key = _normalize(key)
    recording = grad_mode.is_grad_enabled() and (
        t.requires_grad or (isinstance(value, Tensor) and value.requires_grad))
    if not recording:
        from ._views import OVERLAP_MESSAGE, has_internal_overlap, writable
        if not t._array.flags.writeable:        # a view of an expand: is the written part overlapping?
            parts = key if isinstance(key, tuple) else (key,)
            advanced = any(isinstance(p, np.ndarray) for p in parts)
            if has_internal_overlap(t._array if advanced else t._array[key]):
                raise RuntimeError(OVERLAP_MESSAGE)
        t._notify_inplace()
        writable(t._array)[key] = value._array if isinstance(value, Tensor) else value
        t._version_counter[0] += 1
        return
    parts = key if isinstance(key, tuple) else (key,)
    value = _as_tensor(value)
    if any(isinstance(p, np.ndarray) for p in parts):
        def index_put(s):
            out = apply_op(ops.index_put_, (s, value), {"key": key, "accumulate": False})
            _save_indices(out.grad_fn, parts)
            return out
        t._inplace(index_put, (value,))
        return
    _copy_to(getitem(t, _basic_key(parts, t._array.ndim)), value)


def _copy_to(dst, src):
    """PyTorch's ``copy_to`` for ``t[key] = value``: a value of another shape loses its
    leading 1s (a ``view``) and is expanded to the slice (``expand``) before the copy."""
    if src._array.shape != dst._array.shape and src._array.ndim:
        shape = src._array.shape
        while shape and shape[0] == 1:
            shape = shape[1:]
        src = src.view(shape).expand(dst._array.shape)
    dst.copy_(src)


def index_add_attrs(t, dim, index, source, alpha):
    """Check ``Tensor.index_add``'s arguments as PyTorch does (its messages say
    ``index_add_()`` for both forms) and return the attributes of the ``index_add`` row."""
    from ._tensor import Tensor
    from ._tensor_methods import _dim
    _dim(dim, t._array.ndim)
    if not isinstance(index, Tensor):
        raise TypeError(f"index_add_(): argument 'index' (position 2) must be Tensor, "
                        f"not {type(index).__name__}")
    idx = index._array
    scalar_type = index.type()[len("torch."):-len("Tensor")]        # "Long", "Float"
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {scalar_type}")
    if idx.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {idx.ndim} "
                         f"with type: {scalar_type} and size: {list(idx.shape)}")
    dim %= max(t._array.ndim, 1)
    shape, source_shape = t._array.shape, source._array.shape
    source_size = source_shape[dim] if source_shape else 1
    if idx.size != source_size:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({source_size}), for dim: {dim}")
    if shape and (len(source_shape) != len(shape) or any(
            a != b for d, (a, b) in enumerate(zip(shape, source_shape)) if d != dim)):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified "
                           f"dimension. Got self.shape = {list(shape)} source.shape = {list(source_shape)}")
    size = shape[dim] if shape else 1
    bad = (idx < 0) | (idx >= size)
    if bad.any() and len(shape) <= 1:
        raise IndexError("index out of range in self")
    if bad.any():
        raise RuntimeError(f"index {int(idx[bad].flat[0])} is out of bounds for dimension {dim} "
                           f"with size {size}")
    key = (slice(None),) * dim + (idx.reshape(-1),) if shape else ()
    return {"key": key, "dim": dim, "index": index if source.requires_grad else None,
            "alpha": alpha, "source_dim": source._array.ndim}

