"""Custom Functions used by the module machinery (``torch/nn/modules/_functions.py``)."""
from ...autograd.function import Function


class BackwardHookFunction(Function):
    """The identity Function that :class:`minigrad.utils.hooks.BackwardHook` wraps a
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
