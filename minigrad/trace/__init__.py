"""Watch real PyTorch's backward pass as minigrad engine events.

minigrad's engine reports every step of a pass as an ``EngineEvent``
(``minigrad.autograd.engine.record_events``). PyTorch's engine runs a whole pass
inside one C++ call and reports nothing, which is where hooks are debugged.
:func:`torch_events` records a *real torch* pass as the same events, so
``minigrad.viz.hook_timeline``, ``format_events``, ``draw_graph`` and the
``EngineStepper`` replay show torch's pass too::

    import minigrad.trace
    with minigrad.trace.torch_events() as events:
        loss = model(x).sum()
        loss.backward()
    minigrad.viz.hook_timeline(events)

From the shell, ``python -m minigrad.trace SCRIPT.py [args] [--html OUT]`` runs an
unmodified PyTorch script and prints every backward pass in it.

:func:`comparable` reduces a recording (torch's or minigrad's) to what both can
show, for checking that the two engines did the same thing.

torch is optional: it is imported only when a recording starts, never by
``import minigrad``.
"""
import numpy as np

from ..autograd._names import hook_name as _hook_name, node_name as _node_name
from ..autograd.engine import EVENT_KINDS as _EVENT_KINDS

__all__ = ["torch_events", "comparable", "COMPARED_KINDS"]

_TORCH_MISSING = ("minigrad.trace records real PyTorch, which is not installed: "
                 "pip install torch==2.13.0 (or the project's extra: pip install -e \".[torch]\")")

# Event kinds a torch recording contains. minigrad also emits "apply" (the backward
# formula ran) and "capture" (autograd.grad took a gradient): torch does both inside
# C++ without a Python hook point, so a recording cannot contain them.
COMPARED_KINDS = tuple(kind for kind in _EVENT_KINDS if kind not in ("apply", "capture"))


def torch_events():
    """Record the real torch backward passes run inside the block: ``with
    torch_events() as events:``. Returns a :class:`minigrad.trace.recorder.TorchRecorder`
    (its docstring says what is and is not seen)."""
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        raise ImportError(_TORCH_MISSING) from exc
    from .recorder import TorchRecorder
    return TorchRecorder()


def _plain(value, digits):
    """Values as nested lists of floats rounded to ``digits`` (``-0.0`` read as 0.0)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return round(value, digits) + 0.0
    if isinstance(value, (tuple, list)):
        return [_plain(v, digits) for v in value]
    if hasattr(value, "detach") and hasattr(value, "shape"):         # a tensor, either library
        array = np.asarray(value.detach().numpy(), dtype=float)
        return (np.round(array, digits) + 0.0).tolist()
    return type(value).__name__


def comparable(events, digits=4, kinds=COMPARED_KINDS):
    """``(kind, node name, hook name, arguments)`` for each event whose kind is in
    ``kinds``, arguments as rounded nested lists: the part of a recording that is
    the same for torch (:func:`torch_events`) and minigrad (``record_events``)
    when both engines did the same thing. Node names drop C++ namespaces
    (``torch::autograd::AccumulateGrad`` reads ``AccumulateGrad``)."""
    return [(e.kind, _node_name(e.node), _hook_name(e.hook), _plain(e.args, digits))
            for e in events if e.kind in kinds]
