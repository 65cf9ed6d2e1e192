"""Custom ops: ``autograd.Function``.

PyTorch counterpart: ``torch/autograd/function.py``. As in PyTorch, the ``ctx`` that
``forward`` and ``backward`` receive *is* the backward node (``y.grad_fn is ctx``), an
instance of a class named ``<Function>Backward``. Tensors given to
``ctx.save_for_backward`` are packed (through the saved-tensor hooks active at that
moment) when ``forward`` returns, and unpacked on each ``ctx.saved_tensors``.

``Function.register_forward_pre_hook`` / ``register_forward_hook`` are minigrad's
additions from the InfiniTrain design (PyTorch has no per-Function forward hooks):
``hook(function_class, args)`` may return replacement args, ``hook(function_class,
args, output)`` may return a replacement output.
"""
from collections import OrderedDict as _OrderedDict

from .. import grad_mode
from ..utils.hooks import add_hook as _add_hook
from . import graph, op_hooks
from .graph import Node as _Node, SavedTensor as _SavedTensor, gradient_edge as _gradient_edge
from .saved_variable import _FREED_MESSAGE

__all__ = ["FunctionCtx", "BackwardCFunction", "Function", "once_differentiable"]


class FunctionCtx:
    """What ``forward`` can tell ``backward`` about (``torch.autograd.function.FunctionCtx``)."""

    def save_for_backward(self, *tensors):
        self._to_save = tensors

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
        import warnings
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
            # output's stays None.
            grad_outputs = tuple(
                g if g is not None or meta is None else zeros(meta[0], dtype=meta[1])
                for g, meta in zip(grad_outputs, self._input_metadata))
        grads = self._function_cls.backward(self, *grad_outputs)
        if not isinstance(grads, tuple):
            grads = (grads,)
        if len(grads) != len(self._is_tensor_arg):
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {len(self._is_tensor_arg)}, got {len(grads)})")
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
    ``setup_context(ctx, inputs, output)`` that saves what backward needs."""

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
        from .._tensor import Tensor
        for hook in list(cls._forward_pre_hooks.values()):
            replaced = hook(cls, args)
            if replaced is not None:
                args = tuple(replaced)
        args = op_hooks.run_op_forward_pre_hooks(cls.__name__, args)

        ctx = cls._backward_cls()
        ctx._to_save = ()
        ctx._non_differentiable = ()
        ctx._materialize_grads = True
        ctx._packed_tensors = ()
        is_tensor = tuple(isinstance(a, Tensor) for a in args)
        ctx._is_tensor_arg = is_tensor
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with grad_mode.no_grad():
            if cls.setup_context is Function.setup_context:
                raw = cls.forward(ctx, *args)
            else:  # forward without ctx; setup_context fills it in
                raw = cls.forward(*args)
                cls.setup_context(ctx, args, raw)
        single = not isinstance(raw, tuple)
        outputs = (raw,) if single else raw

        recording = grad_mode.is_grad_enabled() and any(ctx.needs_input_grad)
        if recording:
            ctx.next_functions = tuple(_gradient_edge(a) for a, t in zip(args, is_tensor) if t)
            wrapped = []
            for i, out in enumerate(outputs):
                if isinstance(out, Tensor):
                    differentiable = out.is_floating_point() and not any(
                        out is n for n in ctx._non_differentiable)
                    if any(out is a for a in args):      # returned an input: give it its own node
                        base = out
                        out = Tensor._wrap(out._array, out._version_counter)
                        # As in PyTorch it is a view of the input, created in a custom
                        # Function: writing to it in place is refused (_check_inplace).
                        out._base = base
                        out._custom_function_view = (cls.__name__, i)
                    if differentiable:
                        out.requires_grad = True
                        out.grad_fn, out._output_nr = ctx, i
                    ctx._input_metadata.append((out._array.shape, out._array.dtype))
                else:
                    # As in PyTorch every output has a slot (its gradient is None): a
                    # tensor's output_nr is its position among all outputs.
                    ctx._input_metadata.append(None)
                wrapped.append(out)
            outputs = tuple(wrapped)
            ctx._packed_tensors = tuple(
                _SavedTensor(t, is_output=any(t is o for o in outputs)) if t is not None
                else _SavedTensor(None) for t in ctx._to_save)
        else:
            ctx._packed_tensors = tuple(_SavedTensor(t) for t in ctx._to_save)
        del ctx._to_save

        result = outputs[0] if single else outputs
        for hook in list(cls._forward_hooks.values()):
            replaced = hook(cls, args, result)
            if replaced is not None:
                result = replaced
        return op_hooks.run_op_forward_hooks(cls.__name__, args, result)


class once_differentiable:
    """Decorator kept for compatibility with ``torch.autograd.function.once_differentiable``."""

    def __new__(cls, fn):
        return fn
