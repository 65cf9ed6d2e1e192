"""Op-level forward hooks: callables that run around every op application.

This is InfiniTrain's design (hooks on each Function's forward), not PyTorch's: PyTorch
has no such registry, and ``TorchDispatchMode`` is the nearest tool. Every op that
:func:`minigrad._dispatch.apply_op` applies, and every custom ``Function.apply``, calls
:func:`run_op_forward_pre_hooks` before and :func:`run_op_forward_hooks` after.
"""
import threading
from collections import OrderedDict as _OrderedDict

from ..utils.hooks import add_hook as _add_hook

__all__ = ["register_op_forward_pre_hook", "register_op_forward_hook",
           "run_op_forward_pre_hooks", "run_op_forward_hooks"]


_op_forward_pre_hooks = _OrderedDict()
_op_forward_hooks = _OrderedDict()


def register_op_forward_pre_hook(hook):
    """Run ``hook(op_name, args)`` before every op application; it may return
    replacement ``args`` (a tuple). ``op_name`` is PyTorch's aten name (``mul``, ``mm``).

    PyTorch has no such registry (``TorchDispatchMode`` is the nearest tool); it comes
    from InfiniTrain's Function forward pre-hooks."""
    return _add_hook(_op_forward_pre_hooks, hook)


def register_op_forward_hook(hook):
    """Run ``hook(op_name, args, output)`` after every op application; it may return a
    replacement output."""
    return _add_hook(_op_forward_hooks, hook)


_op_hook_state = threading.local()


class _running_op_hook:
    """Ops run *inside* an op hook (``out * 2`` in a hook) do not fire op hooks again,
    or a hook touching tensors would recurse forever."""

    def __enter__(self):
        _op_hook_state.active = True

    def __exit__(self, *exc):
        _op_hook_state.active = False


def run_op_forward_pre_hooks(op_name, args):
    """Called by every op application: the registered pre-hooks, in order, each seeing
    the args the previous one returned."""
    if not _op_forward_pre_hooks or getattr(_op_hook_state, "active", False):
        return args
    with _running_op_hook():
        for hook in list(_op_forward_pre_hooks.values()):
            replaced = hook(op_name, args)
            if replaced is not None:
                args = tuple(replaced)
    return args


def run_op_forward_hooks(op_name, args, output):
    """Called by every op application after it ran: the registered forward hooks."""
    if not _op_forward_hooks or getattr(_op_hook_state, "active", False):
        return output
    with _running_op_hook():
        for hook in list(_op_forward_hooks.values()):
            replaced = hook(op_name, args, output)
            if replaced is not None:
                output = replaced
    return output
