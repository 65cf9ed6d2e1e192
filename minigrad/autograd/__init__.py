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
from .function import Function, FunctionCtx
from .gradcheck import gradcheck, gradgradcheck
from . import functional

__all__ = ["backward", "grad", "Function", "FunctionCtx", "Variable", "gradcheck",
           "gradgradcheck", "graph", "engine", "functional", "set_detect_anomaly", "detect_anomaly",
           "grad_mode", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "SavedTensor"]


def _as_tuple(tensors):
    from .._tensor import Tensor
    if tensors is None:
        return None
    if isinstance(tensors, Tensor):
        return (tensors,)
    return tuple(tensors)


def _inputs_tuple(inputs, api):
    """``inputs`` as a tuple: one tensor, a sequence, or a dict (its values)."""
    from collections.abc import Mapping
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{api}()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    return _as_tuple(inputs)


def _make_grads(outputs, grad_outputs, is_grads_batched=False):
    """One gradient per output: the given one (checked) or ones for a scalar output.
    As in PyTorch the pairs are zipped, so surplus gradients are dropped here and a
    shortfall is caught by :func:`_root_edges`'s count check."""
    from .._creation import ones_like
    from .._tensor import Size, Tensor
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if not out.requires_grad:       # refused later, by _root_edges
                grads.append(None)
                continue
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out.is_floating_point():
                raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                                   f"but got {out.dtype!r}")
            g = ones_like(out)
        elif not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif is_grads_batched and (g.dim() == 0 or g.shape[1:] != out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
                "as the batch dimension. The sizes of the remaining dimensions are expected to match "
                "the shape of corresponding output, but a mismatch was detected: grad_output["
                f"{i}] has a shape of {Size(g.shape[2:])!r} and output[{i}] has a shape of {out.shape!r}. "
                "If you only want some tensors in `grad_output` to be considered batched, consider "
                "using vmap.")     # (the shape shown is PyTorch's: the row's shape minus its first dim)
        elif not is_grads_batched and g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{g.shape!r} and output[{i}] has a shape of {out.shape!r}.")
        grads.append(g)
    return grads


def _root_edges(outputs, grads):
    """The engine's roots (PyTorch's ``run_backward`` checks, in its order)."""
    if len(outputs) != len(grads):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
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


def _input_edges(inputs, accumulate_grad):
    """The edges of ``inputs`` (PyTorch's ``run_backward``: each must be a tensor;
    ``backward`` makes it retain its grad, which refuses a tensor that requires no
    grad, before the requires-grad check that ``grad`` meets)."""
    from .._tensor import Tensor
    edges = []
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
        if accumulate_grad:
            t.retain_grad()                 # as PyTorch does, and for good
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        if t.grad_fn is not None:
            edges.append((t.grad_fn, t._output_nr))
        else:
            acc = t._grad_accumulator() if t._grad_accumulator is not None else None
            edges.append((acc if acc is not None else _UnreachableNode(), 0))
    return edges


def _backward_arguments(tensors, grad_tensors, retain_graph, create_graph, inputs):
    """The engine's arguments for ``backward``: (roots, grads, keep_graph, create_graph,
    input edges, accumulate_grad)."""
    inputs_tuple = _inputs_tuple(inputs, "backward") if inputs is not None else ()
    if inputs is not None and len(inputs_tuple) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors) or (None,) * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(tensors, grad_tensors)
    roots = _root_edges(tensors, grads)
    input_edges = _input_edges(inputs_tuple, True) or None
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
        from .._tensor import Tensor
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                          "instead.", UserWarning, stacklevel=2)
        if data is None:
            from .._creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and not data.is_floating_point():
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        out = data.detach()
        out.requires_grad = requires_grad
        return out


queue_callback = engine.queue_callback
_is_checkpoint_valid = engine.is_checkpoint_valid
