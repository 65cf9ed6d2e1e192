"""Nodes that exist only to raise: ``Error`` and what ``DelayedError`` makes.

PyTorch counterpart: ``torch/csrc/autograd/functions/basic_ops.h`` (``Error``,
``DelayedError``). ``@once_differentiable`` (``function.py``) puts an ``Error`` node
behind the gradients it returns under ``create_graph``, so that differentiating them
again raises its message instead of silently giving wrong gradients.
"""
from .. import _tensor_class
from .graph import Node, gradient_edge


class Error(Node):
    """``torch::autograd::Error``: raises ``RuntimeError(message)`` when the engine runs it."""

    _name = "torch::autograd::Error"
    __module__ = "builtins"          # a C++ type in PyTorch

    def __init__(self, message, next_functions):
        super().__init__(next_functions)
        self._message = message

    def apply(self, grad_outputs, needs_input_grad):
        raise RuntimeError(self._message)


def delayed_error(message, tensors):
    """PyTorch's ``DelayedError(message, len(tensors))(*tensors)``: for each tensor (None
    stays None) a new tensor over its data whose ``grad_fn`` is one shared ``Error``
    node, whose edges lead to the given tensors."""
    node = Error(message, [(None, 0) if t is None else gradient_edge(t) for t in tensors])
    outputs = []
    for i, t in enumerate(tensors):
        if t is None:
            node._input_metadata.append(None)
            outputs.append(None)
            continue
        node._input_metadata.append((t._array.shape, t._array.dtype))
        out = _tensor_class.Tensor._wrap(t._array)
        out._requires_grad, out.grad_fn, out._output_nr = True, node, i
        outputs.append(out)
    return tuple(outputs)
