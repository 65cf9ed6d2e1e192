"""Op dispatch: how a row of the op table (``_ops.py``) becomes a forward result and a node.

PyTorch counterpart: the generated ``VariableType`` wrappers. :func:`apply_op` is the
one entry point every op goes through: op-level forward hooks, the numpy forward, and
(when grad mode is on and an input requires grad) the backward node with its edges and
saved values.
"""
import numpy as np

from . import _tensor, grad_mode     # _tensor is read at call time (import cycle)
from .autograd import graph
from .autograd.graph import Node, SavedTensor


class Op:
    """One row of the table.

    ``inputs`` names the tensor arguments as PyTorch's derivatives.yaml does
    (``self``, ``other``, ...); ``None`` for a variadic op (``cat``, ``stack``), whose
    ``grads`` is then one ``formula(g, ctx, index)``. ``saves`` maps a saved name to the input whose gradient
    needs it (``None``: always saved), in PyTorch's packing order; the name ``result``
    means the op's output. ``grads`` maps an input name to ``formula(g, ctx)`` where
    ``ctx`` reads saved values and attributes (``ctx.other``, ``ctx.dim``).
    """

    __slots__ = ("name", "node_name", "forward", "inputs", "saves", "grads", "multi_output",
                 "casts", "view")

    def __init__(self, name, node_name, forward, inputs=("self",), saves=None, grads=None,
                 multi_output=False, casts=False, view=False):
        self.name = name
        self.node_name = node_name
        self.forward = forward
        self.inputs = inputs
        self.saves = saves or {}
        self.grads = grads or {}
        self.multi_output = multi_output
        self.casts = casts              # the op sets its output dtype itself (``to``)
        self.view = view                # the output shares data and version counter with self


class _Saved:
    """What a formula sees as ``ctx``: saved values (unpacked once per backward call, as
    PyTorch does, so an unpack hook runs once per value) and the op's attributes."""

    __slots__ = ("_node", "_unpacked")

    def __init__(self, node):
        self._node = node
        self._unpacked = {}

    def __getattr__(self, name):
        node = self._node
        saved = node._stored.get(name)
        if saved is None:
            return node._attrs[name]
        value = self._unpacked.get(name)
        if value is None:
            value = self._unpacked[name] = saved.unpack(node)
        return value


class OpNode(Node):
    """The backward node of a table op. ``_stored`` holds its SavedTensors (PyTorch's
    ``_saved_<name>``); ``_attrs`` the non-tensor arguments (``_saved_dim``, ...)."""

    def __init__(self, op, next_functions, attrs):
        super().__init__(next_functions)
        self._op = op
        self._name = op.node_name
        self._attrs = attrs

    def __getattr__(self, attr):
        attrs = self.__dict__.get("_attrs")
        if attrs is not None and attr.startswith("_saved_") and attr[7:] in attrs:
            return attrs[attr[7:]]
        return super().__getattr__(attr)

    def __dir__(self):
        return sorted(set(super().__dir__()) | {"_saved_" + k for k in self._attrs})

    def apply(self, grad_outputs, needs_input_grad):
        op = self._op
        if op.multi_output:
            grad = tuple(grad_outputs)
            if all(g is None for g in grad):
                return (None,) * len(self.next_functions)
        else:
            grad = grad_outputs[0]
            if grad is None:            # no gradient flowed in: none flows out
                return (None,) * len(self.next_functions)
        ctx = _Saved(self)
        formulas = op.grads
        if op.inputs is None:           # variadic (cat, stack): formula(g, ctx, index)
            return [formulas(grad, ctx, i) if needed else None
                    for i, needed in enumerate(needs_input_grad)]
        return [formulas[name](grad, ctx) if needed else None
                for name, needed in zip(op.inputs, needs_input_grad)]


def _edge(t):
    """The edge a tensor contributes to ``next_functions``: its grad_fn, or its leaf's
    AccumulateGrad, or ``(None, 0)`` when it does not require grad."""
    if not t.requires_grad:
        return (None, 0)
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    return (t._get_grad_accumulator(), 0)


def _result_dtype_fix(out, tensors):
    # numpy promotes int64 with float32 (and exp of ints) to float64; PyTorch gives the
    # default dtype, float32, unless a float64 tensor took part.
    if out.dtype == np.float64 and not any(
            t._wrapped is None and t._array.dtype == np.float64 for t in tensors):
        return out.astype(np.float32)
    return out


def apply_op(op, tensors, attrs=None):
    """Run ``op`` on a tuple of Tensors (Python scalars already wrapped) and return its
    output Tensor (a tuple for multi-output ops)."""
    attrs = attrs or {}
    if graph._op_forward_pre_hooks:
        tensors = graph.run_op_forward_pre_hooks(op.name, tensors)
    arrays = [t._wrapped if t._wrapped is not None else t._array for t in tensors]
    half = not op.view and not op.casts and any(
        t._wrapped is None and t._array.dtype == np.float16 for t in tensors)
    if half:        # PyTorch's CPU float16: compute in float32, round the result
        arrays = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float16 else a
                  for a in arrays]
    raw = op.forward(*arrays, **attrs)
    if op.casts:
        outputs = (_tensor.Tensor._wrap(raw),)
    elif op.multi_output:
        outputs = tuple(_tensor.Tensor._wrap(_result_dtype_fix(np.asarray(r), tensors)) for r in raw)
    else:
        outputs = (_tensor.Tensor._wrap(_result_dtype_fix(np.asarray(raw), tensors)),)

    if half and not any(t._wrapped is None and t._array.dtype in (np.float32, np.float64) for t in tensors):
        for out in outputs:         # float16 with no wider float input stays float16
            if out._array.dtype.kind == "f":
                with np.errstate(over="ignore"):
                    out._array = out._array.astype(np.float16)
    if op.view:
        base = tensors[0]
        root = base._base if base._base is not None else base
        for out in outputs:         # (every output of unbind is a view)
            out._version_counter = base._version_counter
            out._base = root
    if op.grads and grad_mode.is_grad_enabled() and any(t.requires_grad for t in tensors):
        _record(op, tensors, attrs, outputs)

    result = outputs if op.multi_output else outputs[0]
    if graph._op_forward_hooks:
        result = graph.run_op_forward_hooks(op.name, tensors, result)
    return result


_OUTPUT_NAMES = {"result": 0, "indices": 1}     # saved names that refer to the op's outputs


def _record(op, tensors, attrs, outputs):
    """Create the backward node of one op application and save what it needs."""
    node = OpNode(op, [_edge(t) for t in tensors], attrs)
    for i, out in enumerate(outputs):
        if out._array.dtype.kind == "f":
            out._requires_grad = True
            out.grad_fn = node
            out._output_nr = i
        node._input_metadata.append((out._array.shape, out._array.dtype))
    if op.saves:
        names = op.inputs
        for saved_name, needed_by in op.saves.items():
            if needed_by is not None and not tensors[names.index(needed_by)].requires_grad:
                node._stored[saved_name] = SavedTensor(None)     # PyTorch lists it, as None
                continue
            if saved_name in _OUTPUT_NAMES:
                node._stored[saved_name] = SavedTensor(outputs[_OUTPUT_NAMES[saved_name]], is_output=True)
            else:
                node._stored[saved_name] = SavedTensor(tensors[names.index(saved_name)])
    return node
