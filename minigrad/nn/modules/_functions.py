"""The machinery of a Module's full backward hooks: the identity ``BackwardHookFunction``
(PyTorch: ``torch/nn/modules/_functions.py``) and the ``BackwardHook`` that wraps a
module call's inputs and outputs in it (PyTorch: ``torch/utils/hooks.py``).
"""
import warnings

from ... import _tensor_class, grad_mode
from ...autograd.function import Function
from ...utils.hooks import _first_frame_outside_minigrad

__all__ = ["BackwardHookFunction", "BackwardHook"]


class BackwardHookFunction(Function):
    """The identity Function that :class:`BackwardHook` wraps a
    module's tensor inputs and outputs in. Its node, ``BackwardHookFunctionBackward``,
    is where the module's full backward (pre-)hooks are attached as node post-hooks.

    It returns its inputs as-is, so (as in PyTorch) its outputs are views created in a
    custom Function: modifying them in place raises."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


class BackwardHook:
    """``torch.utils.hooks.BackwardHook``: how a Module's *full* backward hooks fire.

    (PyTorch keeps it in ``torch/utils/hooks.py``; here it sits beside the identity
    Function it uses, so ``minigrad/utils/hooks.py``, which the autograd core imports for
    ``RemovableHandle``, imports nothing of minigrad.)

    ``Module.__call__`` creates one per call (when full backward hooks or backward
    pre-hooks exist). ``setup_input_hook(args)`` passes the module's tensor positional
    args through one identity ``BackwardHookFunction``; ``setup_output_hook(result)``
    does the same for its outputs. Both then register a **node post-hook** on that
    ``BackwardHookFunctionBackward`` node:

    * on the outputs' node (fires when the gradients w.r.t. the outputs are ready) the
      backward pre-hooks run, ``hook(module, grad_output)``, and may replace
      ``grad_output``; what they return is what flows into the module;
    * on the inputs' node (fires when the gradients w.r.t. the inputs are ready) the
      full hooks run, ``hook(module, grad_input, grad_output)``, and may replace
      ``grad_input``.

    So the full hook needs the *inputs'* node to run: it does not fire when only
    parameters are differentiated, and when no input requires grad it fires early,
    from the outputs' node, with a warning (PyTorch's exact rules and texts).
    """

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def _pack_with_none(self, indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    def _unpack_none(self, indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn):
        # Named ``hook`` as in PyTorch: the engine's check of a post-hook's result
        # names it ("hook 'hook' has changed the size of value").
        def hook(grad_input, _):
            if self.grad_outputs is None:
                # The gradient reached the inputs without passing through the outputs
                # (e.g. double backward): nothing to report.
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        tensors_idx, tensors = [], []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, _tensor_class.Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and grad_mode.is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors
                    if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks. Please open "
                               "an issue with a code sample to reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args):
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        def fn(grad_fn):
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                         self.n_outputs)
                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                        if hook_grad_outputs is None:
                            continue
                        actual_len = len(hook_grad_outputs)
                        if actual_len != expected_len:
                            raise RuntimeError("Backward pre hook returned an invalid number of "
                                               f"grad_output, got {actual_len}, but expected {expected_len}")
                        self.grad_outputs = hook_grad_outputs
                local_grad_outputs = self.grad_outputs
                # No input requires grad: the inputs' node does not exist, so the full
                # hooks fire here, on the output gradients.
                if self.input_tensors_index is None:
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed with respect "
                        "to module outputs since no inputs require gradients. See "
                        "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                        "#torch.nn.Module.register_full_backward_hook for more details.",
                        stacklevel=_first_frame_outside_minigrad())
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple)
                                                    and all(el is None for el in res)):
                            raise RuntimeError("Backward hook for Modules where no input requires "
                                               "gradient should always return None or None for all "
                                               "gradients.")
                    self.grad_outputs = None
                if local_grad_outputs is not None:
                    return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
                return None

            grad_fn.register_hook(hook)

        is_tuple = True
        if not isinstance(args, tuple):
            args = (args,)
            is_tuple = False
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        if not is_tuple:
            res = res[0]
        return res
