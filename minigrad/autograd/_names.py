"""How a hook and a graph node are named: in PyTorch's error messages, in recordings
(``minigrad.trace``) and in pictures (``minigrad.viz``).

A leaf module: it imports no minigrad module, so the engine, the recorder and the
drawing code can all use it without an import cycle.
"""

__all__ = ["hook_name", "node_name"]


def hook_name(hook, unnamed=None):
    """``hook.__name__``, the name PyTorch's error messages quote (``hook 'scale' has
    changed the size of value``). PyTorch writes ``<unknown>`` for a hook without one
    (``torch/csrc/autograd/python_hook.cpp``): pass ``unnamed="<unknown>"`` for that.
    Without ``unnamed``, such a hook is named by what it wraps, as recordings and pictures
    show it: the wrapped function of a ``functools.partial``, else the class of a callable
    object. None for None."""
    if hook is None:
        return None
    name = getattr(hook, "__name__", None)
    if name is not None:
        return name
    if unnamed is not None:
        return unnamed
    func = getattr(hook, "func", None)          # functools.partial
    return hook_name(func) if callable(func) else type(hook).__name__


def node_name(node):
    """``node.name()`` without a C++ namespace (torch calls its leaf node
    ``torch::autograd::AccumulateGrad``, minigrad ``AccumulateGrad``); None for None."""
    if node is None:
        return None
    return str(node.name()).rsplit("::", 1)[-1]
