"""``minigrad.autograd``: ``backward``, ``grad``, custom ``Function``, ``gradcheck``.

PyTorch counterpart: ``torch/autograd/__init__.py``. These functions check their
arguments and turn tensors into graph edges; the engine (``engine.py``) does the rest.
"""
import warnings

from . import engine, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, FunctionCtx
from .gradcheck import gradcheck, gradgradcheck

__all__ = ["backward", "grad", "Function", "FunctionCtx", "Variable", "gradcheck",
           "gradgradcheck", "graph", "engine", "set_detect_anomaly", "detect_anomaly"]


def _as_tuple(tensors):
    from .._tensor import Tensor
    if tensors is None:
        return None
    if isinstance(tensors, Tensor):
        return (tensors,)
    return tuple(tensors)


def _make_grads(outputs, grad_outputs):
    from .._creation import ones_like
    from .._tensor import Tensor
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out.is_floating_point():
                raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                                   f"but got {out.dtype!r}")
            g = ones_like(out)
        elif not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{g.shape!r} and output[{i}] has a shape of {out.shape!r}.")
        grads.append(g)
    return grads


def _root_edges(outputs):
    edges = []
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append((out.grad_fn, out._output_nr) if out.grad_fn is not None
                     else (out._get_grad_accumulator(), 0))
    return edges


class _UnreachableNode(graph.Node):
    """The edge of a requested input that is not in the graph (PyTorch gives such a
    leaf a dummy Identity edge): never reached, so its gradient stays None."""


def _input_edge(t):
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    acc = t._grad_accumulator() if t._grad_accumulator is not None else None
    return (acc if acc is not None else _UnreachableNode(), 0)


def _backward_arguments(tensors, grad_tensors, retain_graph, create_graph, inputs):
    """The engine's arguments for ``backward``: (roots, grads, keep_graph, create_graph,
    input edges, accumulate_grad)."""
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors) or (None,) * len(tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grad_tensors)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    roots = _root_edges(tensors)
    grads = _make_grads(tensors, grad_tensors)
    input_edges = None
    if inputs:
        for t in inputs:
            if not t.requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            t.retain_grad()                 # as PyTorch does, and for good
        input_edges = [_input_edge(t) for t in inputs]
    if create_graph:
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after use "
            "to break the cycle and avoid the leak.", UserWarning, stacklevel=4)
    return roots, grads, retain_graph, create_graph, input_edges, True


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
    also needed for another input; AccumulateGrad never runs."""
    outputs = _as_tuple(outputs)
    inputs_tuple = _as_tuple(inputs)
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs_tuple:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    roots = _root_edges(outputs)
    grads = _make_grads(outputs, grad_outputs)
    captured = engine.run_backward(roots, grads, retain_graph, create_graph,
                                   [_input_edge(t) for t in inputs_tuple], accumulate_grad=False)
    result = []
    for i, (t, g) in enumerate(zip(inputs_tuple, captured)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                from .._creation import zeros_like
                g = zeros_like(t)
        result.append(g)
    return tuple(result)


class _ExecutionEngine:
    """``Variable._execution_engine``: the door to final callbacks."""

    @staticmethod
    def queue_callback(callback):
        engine.queue_callback(callback)


class Variable:
    """``torch.autograd.Variable``: kept, as in PyTorch, only for
    ``Variable._execution_engine.queue_callback``."""

    _execution_engine = _ExecutionEngine()


queue_callback = engine.queue_callback
_is_checkpoint_valid = engine.is_checkpoint_valid
