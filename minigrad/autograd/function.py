"""Custom ops: ``autograd.Function``.

PyTorch counterpart: ``torch/autograd/function.py`` (and, for what ``apply`` does with
the outputs, ``python_function.cpp`` and ``custom_function.cpp``). As in PyTorch, the
``ctx`` that ``forward`` and ``backward`` receive *is* the backward node
(``y.grad_fn is ctx``), an instance of a class named ``<Function>Backward``.

What ``ctx`` offers, each as in PyTorch:

- ``ctx.save_for_backward(*tensors)``: tensors (or None) for ``backward``. They are
  packed (through the saved-tensor hooks active at that moment) when ``forward``
  returns, and unpacked on each ``ctx.saved_tensors``. Anything else is PyTorch's
  TypeError, raised when ``forward`` returns and only if a graph is recorded.
- ``ctx.mark_dirty(*tensors)``: ``forward`` modified these inputs in place and returns
  them. Each one's version goes up by one more (PyTorch's ``bump_version``), and the
  returned tensor (the same object) gets this node as its ``grad_fn``, as an in-place
  op's output does: on a view, the base's history ends in ``CopySlices`` around it. A
  leaf that requires grad is refused, and so is a dirty input that is not returned.
- ``ctx.mark_non_differentiable(*outputs)``: these outputs get no gradient edge
  (``requires_grad=False``); backward still receives a gradient slot for them.
- ``ctx.set_materialize_grads(False)``: backward receives None, not zeros, for an
  output whose gradient is undefined. With ``ctx._materialize_non_diff_grads = False``
  (a private switch PyTorch has too) only non-differentiable outputs get None.

``backward`` returns one gradient (a tensor or None) per ``forward`` input; extra
trailing Nones are allowed and dropped, as PyTorch allows them. Anything else is
PyTorch's error. ``@once_differentiable`` runs ``backward`` with grad mode off; under
``create_graph`` its results then lead to an ``Error`` node, so a double backward raises
rather than silently giving wrong gradients.

``Function.register_forward_pre_hook`` / ``register_forward_hook`` are minigrad's
additions from the InfiniTrain design (PyTorch has no per-Function forward hooks):
``hook(function_class, args)`` may return replacement args, ``hook(function_class,
args, output)`` may return a replacement output.
"""
import functools
import warnings
from collections import OrderedDict as _OrderedDict

from .. import _tensor_class, grad_mode
from ..utils.hooks import add_hook as _add_hook
from . import op_hooks
from ._basic_ops import delayed_error as _delayed_error
from ._custom_function import wrap_outputs as _wrap_outputs
from .graph import Node as _Node, SavedTensor as _SavedTensor, gradient_edge as _gradient_edge
from .saved_variable import _FREED_MESSAGE

__all__ = ["FunctionCtx", "BackwardCFunction", "Function", "InplaceFunction", "once_differentiable"]


class FunctionCtx:
    """What ``forward`` can tell ``backward`` about (``torch.autograd.function.FunctionCtx``)."""

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self._materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, unpacked (through the saved-tensor
        hooks' ``unpack``, and version-checked otherwise)."""
        self._check_not_freed()
        return tuple(s.unpack(self) for s in self._packed_tensors)

    @property
    def saved_variables(self):
        """Deprecated name of :attr:`saved_tensors`, as in PyTorch."""
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors

    @property
    def _raw_saved_tensors(self):
        """The :class:`~minigrad.autograd.SavedTensor` objects themselves (to register
        per-value hooks on, with ``register_hooks``)."""
        self._check_not_freed()
        return tuple(self._packed_tensors)

    def _check_not_freed(self):
        if self.__dict__.get("_freed_buffers"):
            raise RuntimeError(_FREED_MESSAGE)


class BackwardCFunction(_Node, FunctionCtx):
    """The node of a custom Function application (and its ``ctx``)."""

    _function_cls = None

    def apply(self, grad_outputs, needs_input_grad):
        from .._creation import zeros
        if self._materialize_grads:
            # Undefined gradients of tensor outputs become zeros (PyTorch's zeros_like,
            # which does not require grad even under create_graph); a non-tensor
            # output's stays None, and so does a non-differentiable output's when
            # ``_materialize_non_diff_grads`` is off.
            grad_outputs = tuple(
                zeros(meta[0], dtype=meta[1]) if g is None and meta is not None and (
                    self._materialize_non_diff_grads or i not in self._non_differentiable_outputs)
                else g for i, (g, meta) in enumerate(zip(grad_outputs, self._input_metadata)))
        grads = self._function_cls.backward(self, *grad_outputs)
        if not isinstance(grads, tuple):
            grads = (grads,)
        expected = len(self._is_tensor_arg)
        if len(grads) > expected and all(g is None for g in grads[expected:]):
            grads = grads[:expected]            # extra trailing Nones are allowed
        if len(grads) != expected:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {expected}, got {len(grads)})")
        for position, (g, is_tensor) in enumerate(zip(grads, self._is_tensor_arg), 1):
            if not is_tensor and g is not None:
                raise RuntimeError(f"function {self.name()} returned a gradient different than None at "
                                   f"position {position}, but the corresponding forward input was not a "
                                   "Variable")
            if g is not None and not isinstance(g, _tensor_class.Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
        return tuple(g for g, is_tensor in zip(grads, self._is_tensor_arg) if is_tensor)

    def release_variables(self):
        self._freed_buffers = True
        for saved in self._packed_tensors:
            saved.free()


class _FunctionMeta(type):
    """Gives each Function subclass its own node class, ``<Name>Backward``, and its own
    forward-hook dicts."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,),
                                 {"_function_cls": cls, "_name": name + "Backward"})
        cls._forward_pre_hooks = _OrderedDict()
        cls._forward_hooks = _OrderedDict()


class Function(metaclass=_FunctionMeta):
    """``torch.autograd.Function``: subclass it with static ``forward(ctx, *args)`` and
    ``backward(ctx, *grad_outputs)``, then call ``YourFunction.apply(*args)``.

    Or, PyTorch's newer style: ``forward(*args)`` without ``ctx``, plus
    ``setup_context(ctx, inputs, output)`` that saves what backward needs.

    An instance is the legacy style PyTorch removed: making one warns, calling one
    raises, with PyTorch's texts."""

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions "
                      "are all static, so you should invoke them on the class itself. Instantiating "
                      "an autograd function will raise an error in a future version of PyTorch.",
                      DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    @classmethod
    def register_forward_pre_hook(cls, hook):
        """``hook(function_class, args) -> args | None`` before every ``apply``."""
        return _add_hook(cls._forward_pre_hooks, hook)

    @classmethod
    def register_forward_hook(cls, hook):
        """``hook(function_class, args, output) -> output | None`` after every ``apply``."""
        return _add_hook(cls._forward_hooks, hook)

    @classmethod
    def apply(cls, *args):
        for hook in list(cls._forward_pre_hooks.values()):
            replaced = hook(cls, args)
            if replaced is not None:
                args = tuple(replaced)
        args = op_hooks.run_op_forward_pre_hooks(cls.__name__, args)

        ctx = cls._backward_cls()
        ctx._to_save = ctx._non_differentiable = ctx._dirty = ()
        ctx._materialize_grads = ctx._materialize_non_diff_grads = True
        ctx._packed_tensors = ()
        is_tensor = tuple(isinstance(a, _tensor_class.Tensor) for a in args)
        ctx._is_tensor_arg = is_tensor
        ctx.needs_input_grad = tuple(t and a.requires_grad for a, t in zip(args, is_tensor))
        with grad_mode.no_grad():
            if cls.setup_context is Function.setup_context:
                raw = cls.forward(ctx, *args)
            else:  # forward without ctx; setup_context fills it in
                raw = cls.forward(*args)
                cls.setup_context(ctx, args, raw)
        single = not isinstance(raw, tuple)
        recording = grad_mode.is_grad_enabled() and any(ctx.needs_input_grad)
        if recording:
            ctx.next_functions = tuple(_gradient_edge(a) for a, t in zip(args, is_tensor) if t)
        outputs = _wrap_outputs(cls, ctx, args, (raw,) if single else raw, recording)
        if recording:
            for i, t in enumerate(ctx._to_save):
                if t is not None and not isinstance(t, _tensor_class.Tensor):
                    raise TypeError(f"save_for_backward can only save variables, but argument {i} "
                                    f"is of type {type(t).__name__}")
            ctx._packed_tensors = tuple(
                _SavedTensor(t, is_output=any(t is o for o in outputs)) for t in ctx._to_save)
        del ctx._to_save

        result = outputs[0] if single else outputs
        for hook in list(cls._forward_hooks.values()):
            replaced = hook(cls, args, result)
            if replaced is not None:
                result = replaced
        return op_hooks.run_op_forward_hooks(cls.__name__, args, result)


class InplaceFunction(Function):
    """``torch.autograd.function.InplaceFunction``: a Function whose instances carry an
    ``inplace`` flag (a leftover of the legacy style; ``apply`` is what runs it)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


def once_differentiable(fn):
    """``@once_differentiable`` under ``@staticmethod`` on ``backward``: it runs with grad
    mode off, so it may use non-differentiable code (numpy). When its gradients should
    have had a graph (``create_graph``, and a grad_output requires grad), each result is
    a detached alias whose ``grad_fn`` is an ``Error`` node (PyTorch's ``DelayedError``):
    differentiating through it raises instead of giving wrong gradients."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.is_grad_enabled() or not any(
                isinstance(a, _tensor_class.Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        leaves = []
        for out in (outputs,) if single else outputs:
            if out is not None:
                out = out.detach()
                out.requires_grad = True
            leaves.append(out)
        errors = _delayed_error("trying to differentiate twice a function that was marked with "
                                "@once_differentiable", leaves)
        return errors[0] if single else errors
    return wrapper
