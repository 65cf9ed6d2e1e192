"""``minigrad.autograd``: ``backward``, ``grad``, custom ``Function``, ``gradcheck``.

PyTorch counterpart: ``torch/autograd/__init__.py``. These functions check their
arguments and turn tensors into graph edges; the engine (``engine.py``) does the rest.
"""
import warnings

from .. import grad_mode
from ..grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from . import engine, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .graph import SavedTensor
from ._arguments import (_as_tuple, _input_edges, _inputs_tuple, _make_grads, _root_edges,
                         backward_arguments as _backward_arguments)
from .function import Function, FunctionCtx
from .gradcheck import gradcheck, gradgradcheck
from . import functional

__all__ = ["backward", "grad", "Function", "FunctionCtx", "Variable", "gradcheck",
           "gradgradcheck", "graph", "engine", "functional", "set_detect_anomaly", "detect_anomaly",
           "grad_mode", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "SavedTensor",
           "VariableMeta", "queue_callback"]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """``torch.autograd.backward``: accumulate d(tensors)/d(leaf) into every leaf's ``.grad``
    (only into ``inputs`` when given). ``retain_graph`` keeps saved values for another
    pass; ``create_graph`` records the backward itself, for higher-order gradients."""
    engine.run_backward(*_backward_arguments(tensors, grad_tensors, retain_graph,
                                             create_graph, inputs))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """``torch.autograd.grad``: return d(outputs)/d(inputs) without touching ``.grad``.

    Only the part of the graph between outputs and inputs runs. Tensor hooks (and
    retain_grad) of an input still run; its node's own hooks run only if the node is
    also needed for another input; AccumulateGrad never runs. ``inputs`` may be a dict
    (the result is then a dict with its keys).

    ``is_grads_batched``: the first dimension of every grad_output is a batch; PyTorch
    runs one vectorised (vmap) pass, minigrad one pass per batch entry (so hooks run
    once per entry) and stacks the results."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs_tuple = _inputs_tuple(inputs, "grad")
    if len(inputs_tuple) == 0:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    grads = _make_grads(outputs, grad_outputs, is_grads_batched)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_edges(outputs, grads)
    input_edges = _input_edges(inputs_tuple, False)
    if is_grads_batched:
        captured = _batched(roots, grads, retain_graph, create_graph, input_edges)
    else:
        captured = engine.run_backward(roots, grads, retain_graph, create_graph,
                                       input_edges, accumulate_grad=False)
    result = []
    for i, (t, g) in enumerate(zip(inputs_tuple, captured)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                from .._creation import zeros_like
                g = zeros_like(t, requires_grad=create_graph)
        result.append(g)
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result))
    return tuple(result)


def _batched(roots, grads, retain_graph, create_graph, input_edges):
    """``is_grads_batched``: one pass per row of the grad_outputs, results stacked."""
    from .._creation import stack
    n = grads[0].shape[0] if grads and grads[0].dim() else 0
    rows = []
    for b in range(n):
        rows.append(engine.run_backward(roots, [g[b] for g in grads], retain_graph or b < n - 1,
                                        create_graph, input_edges, accumulate_grad=False))
    return [None if any(r[i] is None for r in rows) else stack([r[i] for r in rows])
            for i in range(len(input_edges))]


class _ExecutionEngine:
    """``Variable._execution_engine``: the door to final callbacks."""

    @staticmethod
    def queue_callback(callback):
        engine.queue_callback(callback)


class VariableMeta(type):
    """Makes ``isinstance(t, Variable)`` true for every tensor, as in PyTorch."""

    def __instancecheck__(cls, other):
        from .._tensor import Tensor
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """``torch.autograd.Variable``: the pre-0.4 wrapper, now the tensor itself.

    ``Variable(t, requires_grad=False)`` returns a new tensor over ``t``'s data and
    version counter, out of the graph (like ``t.detach()``), with ``requires_grad``
    set. ``Variable._execution_engine.queue_callback`` queues a final callback."""

    _execution_engine = _ExecutionEngine()

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        from .._tensor import Tensor, check_can_require_grad
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                          "instead.", UserWarning, stacklevel=2)
        if data is None:
            from .._creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad:
            check_can_require_grad(data._array)
        out = data.detach()
        out.requires_grad = requires_grad
        return out


queue_callback = engine.queue_callback
_is_checkpoint_valid = engine.is_checkpoint_valid
