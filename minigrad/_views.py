"""In-place ops on views inside a graph: ``CopySlices`` and regenerated view nodes.

PyTorch counterparts: ``torch/csrc/autograd/functions/tensor.cpp`` (``CopySlices``),
``torch/csrc/autograd/variable.cpp`` (``rebase_history``, ``VariableHooks::grad_fn``,
``update_tensor_hooks_on_new_gradfn``).

A view shares its base's memory, so writing into the view changes the base too. The
graph must say so: after ``v = h[:, :2]; v.relu_()`` the gradient of ``h`` has to go
through the relu for the two columns and straight through for the others. PyTorch (and
minigrad) does it in three moves:

1. the in-place op is recorded as usual, as a node ``fn`` (``ReluBackward0``) whose
   first edge is the view's old ``grad_fn``;
2. the *base* gets a new ``grad_fn``, ``CopySlices(fn)``: it takes the base's gradient,
   runs ``fn`` on the view's part of it, writes the result back into that part, and
   hands the whole on to the base's old node; ``fn``'s other edges (``other`` of a
   ``mul_``, the value of ``x[0] = value``) become its other edges;
3. every view of that base whose version is now stale gets a new ``grad_fn`` on first
   access: ``AsStridedBackward0``, whose edge is the base's (new) node. This happens
   for any in-place change of the shared memory (through the base, through another view,
   even under ``no_grad``), because the view's old node describes data that is gone.

A view's part of its base is found from the numpy arrays themselves (memory offsets and
strides), so chains of views (``h[1:][:, 1]``, ``h.t()[0]``) need no bookkeeping.

Hooks follow PyTorch's rule: tensor hooks registered before the in-place stay with the
old node (for the view, an orphaned ``SliceBackward0`` that never runs again); hooks
registered after go to the new node; ``retain_grad`` moves with the tensor.
"""
import numpy as np

from . import _ops as ops
from . import _tensor, grad_mode
from ._dispatch import apply_op
from .autograd.graph import Node, gradient_edge

# PyTorch checks every in-place op for this (TensorIterator's assert_no_internal_overlap).
OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor "
                   "refers to a single memory location. Please clone() the tensor before "
                   "performing the operation.")


def has_internal_overlap(array):
    """True when two elements of ``array`` share memory (a dimension of stride 0, as
    ``expand`` makes)."""
    return any(s == 0 and n > 1 for s, n in zip(array.strides, array.shape))


def writable(array):
    """``array`` itself, or a writable alias of it when numpy marked it read-only (a
    view of an ``expand``): PyTorch refuses only writes where elements overlap, which
    ``Tensor._check_inplace`` has checked already."""
    if array.flags.writeable:
        return array
    alias = array.view()
    alias.flags.writeable = True
    return alias


def view_positions(base, view):
    """For each element of the numpy array ``view`` (a view of ``base``), its index in
    ``base`` flattened in C order: a numpy int array shaped like ``view``.

    Built from memory offsets, so it works for any chain of slicing, selecting,
    transposing and reshaping, whatever ``base``'s own strides."""
    size = base.itemsize
    base_strides = [s // size for s in base.strides]
    offsets = np.zeros(base.shape, dtype=np.int64)
    for axis, (n, stride) in enumerate(zip(base.shape, base_strides)):
        shape = [1] * base.ndim
        shape[axis] = n
        offsets = offsets + (np.arange(n, dtype=np.int64) * stride).reshape(shape)
    low = int(offsets.min()) if offsets.size else 0
    table = np.full(int(offsets.max()) - low + 1 if offsets.size else 1, -1, dtype=np.int64)
    table[(offsets - low).ravel()] = np.arange(base.size, dtype=np.int64)
    start = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // size
    mem = np.full(view.shape, start, dtype=np.int64)
    for axis, (n, stride) in enumerate(zip(view.shape, view.strides)):
        shape = [1] * view.ndim
        shape[axis] = n
        mem = mem + (np.arange(n, dtype=np.int64) * (stride // size)).reshape(shape)
    return table[mem - low]


def _key(positions, base_shape):
    """A numpy key picking ``positions`` out of an array shaped ``base_shape``."""
    return np.unravel_index(positions, base_shape)


def geometry(base, view):
    """``(size, stride, storage_offset)`` of ``view`` inside ``base``, in elements, as
    PyTorch's ``AsStridedBackward0`` shows them."""
    size = base.itemsize
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // size
    return tuple(view.shape), tuple(s // size for s in view.strides), int(offset)


class CopySlices(Node):
    """``torch::autograd::CopySlices``: the base's node after an in-place op on one of
    its views. ``fn`` is the in-place op's own node; it is not in the graph itself
    (its first edge, the view's old node, is replaced by the base's old node)."""

    _name = "torch::autograd::CopySlices"
    __module__ = "builtins"

    def __init__(self, base, positions, fn):
        super().__init__([gradient_edge(base)] + list(fn.next_functions[1:]))
        self.fn = fn
        self._key = _key(positions, base._array.shape)
        self._mask = np.zeros(base._array.shape, dtype=bool)
        self._mask[self._key] = True
        self._input_metadata.append((base._array.shape, base._array.dtype))

    def apply(self, grad_outputs, needs_input_grad):
        grad = grad_outputs[0]
        if grad is None:
            return (None,) * len(self.next_functions)
        # The view's part of the base's gradient, as the in-place op's node sees it.
        grad_slice = grad[self._key] if grad_mode.is_grad_enabled() else \
            _tensor.Tensor._wrap(grad._array[self._key].copy())
        res = list(self.fn.apply((grad_slice,), tuple(needs_input_grad)))
        outputs = [None] * len(self.next_functions)
        for i, r in enumerate(res):
            if not needs_input_grad[i] or r is None:
                continue
            if i == 0:
                outputs[0] = _write_back(grad, r, self._key, self._mask)
            else:
                outputs[i] = r
        return outputs

    def release_variables(self):
        self.fn.release_variables()


def _write_back(grad, part, key, mask):
    """``grad`` with the view's elements replaced by ``part``."""
    if not grad_mode.is_grad_enabled():
        out = grad._array.copy()
        out[key] = np.broadcast_to(part._array, out[key].shape)
        return _tensor.Tensor._wrap(out)
    # create_graph: the same, recorded (a scatter and a where), so it can be differentiated
    scattered = apply_op(ops.as_strided_scatter, (part,), {"key": key, "shape": grad._array.shape})
    return apply_op(ops.where, (scattered, grad), {"condition": _tensor.Tensor._wrap(mask)})


def as_strided_node(view, base):
    """The ``AsStridedBackward0`` a stale view gets: its edge is the base's node, its
    backward scatters the view's gradient into zeros shaped like the base."""
    size, stride, offset = geometry(base._array, view._array)
    key = _key(view_positions(base._array, view._array), base._array.shape)
    attrs = {"size": size, "stride": stride, "storage_offset": offset,
             "key": key, "shape": base._array.shape}
    op = ops.as_strided
    node = op.node_class(op, [gradient_edge(base)], attrs)
    node._input_metadata.append((view._array.shape, view._array.dtype))
    return node


def rebase_history(view, fn):
    """PyTorch's ``rebase_history`` for a view: the base's history now ends in
    ``CopySlices(fn)``, and the view's ``grad_fn`` is regenerated from it."""
    base = view._base
    node = CopySlices(base, view_positions(base._array, view._array), fn)
    base._set_history(node)
    view._regenerate_grad_fn()
