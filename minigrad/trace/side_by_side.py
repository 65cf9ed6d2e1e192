"""One backward pass on minigrad and on real PyTorch, compared and drawn side by side.

The lessons end with an optional cell (``from minigrad.trace.side_by_side import
same_pass_in_torch``) that runs one of their passes under both engines:
:func:`same_pass_in_torch` records it with ``record_events`` (minigrad) and
:func:`minigrad.trace.torch_events` (torch), checks that the two event streams agree
(:func:`minigrad.trace.comparable`), prints one line and draws both hook timelines.
Without torch installed it prints how to install it and does nothing else, so the cell
runs everywhere (on Binder too). No PyTorch counterpart: a teaching aid.
"""
import importlib.util

from . import COMPARED_KINDS as _COMPARED_KINDS, comparable as _comparable, torch_events as _torch_events

__all__ = ["same_pass_in_torch"]

_NO_TORCH = 'Real PyTorch is not installed here: pip install -e ".[torch]" to compare with it.'


def _record(build, lib, recorder):
    """The events of ``build(lib)``'s backward pass, those both engines can show."""
    loss, labels = build(lib)
    with recorder() as events:
        loss.backward()
    return [e for e in events if e.kind in _COMPARED_KINDS], labels


def same_pass_in_torch(build, remark="", figsize=(12, 2.4), stacked=False):
    """Run ``build(lib)`` with ``lib`` = minigrad, then real torch; ``build`` makes the
    graph and its hooks in that library and returns ``(loss, {tensor: label})``. The
    backward passes of the two losses are recorded, must give the same events
    (AssertionError otherwise), and are drawn one beside the other (``stacked``: one
    above the other). Prints ``torch <version> and minigrad: the same N events`` followed
    by ``remark``. Returns the two recordings, or None when torch is not installed."""
    if importlib.util.find_spec("torch") is None:
        print(_NO_TORCH)
        return None
    import matplotlib.pyplot as plt
    import torch as real_torch

    import minigrad
    from minigrad.autograd.engine import record_events
    from minigrad.viz import hook_timeline

    ours, our_labels = _record(build, minigrad, record_events)
    theirs, their_labels = _record(build, real_torch, _torch_events)
    assert _comparable(ours) == _comparable(theirs), "torch ran this pass differently"
    print(f"torch {real_torch.__version__.split('+')[0]} and minigrad: the same {len(theirs)} events{remark}")
    fig, axes = plt.subplots(2, 1, figsize=figsize) if stacked else plt.subplots(1, 2, figsize=figsize)
    for ax, events, labels, title in ((axes[0], ours, our_labels, "minigrad"),
                                      (axes[1], theirs, their_labels, "real PyTorch (minigrad.trace)")):
        hook_timeline(events, ax=ax, labels=labels)
        ax.set_title(title, fontsize=10)
    plt.tight_layout()
    plt.show()
    return ours, theirs
