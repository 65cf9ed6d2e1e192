"""What ``backward()`` and ``autograd.grad`` check and build before the engine runs.

PyTorch counterparts: the argument helpers of ``torch/autograd/__init__.py``
(``_tensor_or_tensors_to_tuple``, ``_make_grads``) and the checks of
``THPEngine_run_backward`` (``torch/csrc/autograd/python_engine.cpp``), which turn the
output tensors into root edges and the ``inputs`` into the edges to capture at.
"""
import warnings
from collections.abc import Mapping

import numpy as np

from .. import _tensor_class
from .graph import Node, gradient_edge

__all__ = ["backward_arguments"]


def _as_tuple(tensors):
    if tensors is None:
        return None
    if isinstance(tensors, _tensor_class.Tensor):
        return (tensors,)
    return tuple(tensors)


def _inputs_tuple(inputs, api):
    """``inputs`` as a tuple: one tensor, a sequence, or a dict (its values)."""
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
            g = _tensor_class.Tensor._wrap(np.ones_like(out._array))     # torch.ones_like(out)
        elif not isinstance(g, _tensor_class.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif is_grads_batched and (g.dim() == 0 or g.shape[1:] != out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
                "as the batch dimension. The sizes of the remaining dimensions are expected to match "
                "the shape of corresponding output, but a mismatch was detected: grad_output["
                f"{i}] has a shape of {type(out.shape)(g.shape[2:])!r} and output[{i}] has a shape of "
                f"{out.shape!r}. "
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
        edges.append(gradient_edge(out))
    return edges


class _UnreachableNode(Node):
    """The edge of a requested input that is not in the graph (PyTorch gives such a
    leaf a dummy Identity edge): never reached, so its gradient stays None."""


def _input_edges(inputs, accumulate_grad):
    """The edges of ``inputs`` (PyTorch's ``run_backward``: each must be a tensor;
    ``backward`` makes it retain its grad, which refuses a tensor that requires no
    grad, before the requires-grad check that ``grad`` meets)."""
    edges = []
    for t in inputs:
        if not isinstance(t, _tensor_class.Tensor):
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


def backward_arguments(tensors, grad_tensors, retain_graph, create_graph, inputs):
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
