"""Show what happened, in order, during one backward pass.

minigrad's engine yields one ``EngineEvent(kind, node, hook, args)`` per step
(``minigrad.autograd.engine.backward_steps``; ``record_events()`` collects them).
For one node the kinds occur in the order PyTorch's engine
(``torch/csrc/autograd/engine.cpp``) runs them: the node is popped
(``node_start``), tensor hooks and ``retain_grad`` see the incoming gradient,
``autograd.grad`` may capture it, ``Node.register_prehook`` hooks run, the
backward formula runs (``apply``), post-accumulate-grad hooks run on leaves,
``Node.register_hook`` hooks see inputs and outputs, and the gradients are
handed on (``node_done``). Final callbacks (``queue_callback``) come last.

:func:`format_events` writes that as text, :func:`hook_timeline` as a chart.
Both are deterministic: node names and hook names, never ids or addresses.
An event whose ``result`` is an exception (a hook that raised, recorded by lesson 10's
``engine_events``) is marked: "raised TypeError" in the text, a red cross on the chart.
"""

from matplotlib.lines import Line2D as _Line2D

from ..autograd.engine import EVENT_KINDS as _EVENT_KINDS

from ._common import (KIND_COLORS as _KIND_COLORS, OTHER_KIND_COLOR as _OTHER_KIND_COLOR,
                      hook_name as _hook_name, label_lookup as _label_lookup, new_axes as _new_axes,
                      node_label as _node_label, summarize as _summarize)

__all__ = ["format_events", "hook_timeline", "KINDS", "KIND_STYLE"]

KINDS = _EVENT_KINDS      # the order events can occur for one node

_MARKERS = {
    "node_start": "o", "tensor_hook": "s", "retain_grad": "D", "capture": "X",
    "pre_hook": "^", "apply": "o", "post_accumulate_hook": "P", "post_hook": "v",
    "node_done": "o", "callback": "*",
}
# Colours: the package's one legend (viz._common.KIND_COLORS), shared with the stepper.
KIND_STYLE = {kind: dict(marker=_MARKERS[kind], color=_KIND_COLORS[kind]) for kind in KINDS}
_OTHER_STYLE = dict(marker="d", color=_OTHER_KIND_COLOR)


_RAISED_STYLE = dict(marker="X", color="#d62728")


def _raised(event):
    return isinstance(getattr(event, "result", None), BaseException)


def _kind_order(kinds):
    known = [k for k in KINDS if k in kinds]
    return known + sorted(k for k in kinds if k not in KINDS)


def format_events(events, labels=None, show_args=False):
    """One readable line per event, numbered from 1::

        3. pre_hook    MulBackward0  hook=log_pre

    Columns are padded to the widest entry. Leaves read ``AccumulateGrad(x)``
    when ``labels={x: "x"}`` names them. ``show_args=True`` appends a short
    summary of ``args`` (tensor values rounded, or shapes).
    """
    events = list(events)
    lookup = _label_lookup(labels)
    names = [_node_label(e.node, lookup, multiline=False) for e in events]
    wi = len(str(len(events)))
    wk = max((len(e.kind) for e in events), default=0)
    wn = max((len(n) for n in names), default=0)
    lines = []
    for i, (event, name) in enumerate(zip(events, names), start=1):
        line = f"{i:>{wi}}. {event.kind:<{wk}} {name:<{wn}}"
        hook = _hook_name(event.hook)
        if hook is not None:
            line += f"  hook={hook}"
        if show_args:
            line += f"  args={_summarize(event.args)}"
        if _raised(event):
            line += f"  raised {type(event.result).__name__}"
        lines.append(line.rstrip())
    return lines


def hook_timeline(events, ax=None, labels=None):
    """Draw one backward pass: x = step, one row per node, a marker per event.

    Rows are the nodes in order of first appearance (top to bottom), which is
    the order the engine ran them; the marker's shape and colour give the
    event kind (legend on the right). Events without a node (final callbacks)
    go on an ``(engine)`` row. Returns the Axes; exactly one marker per event,
    one scatter collection per kind present, and a red cross over each event
    whose ``result`` is an exception (a hook that raised; legend "raised").
    """
    events = list(events)
    lookup = _label_lookup(labels)
    rows, row_names = {}, []
    for event in events:
        key = id(event.node) if event.node is not None else None
        if key not in rows:
            rows[key] = len(rows)
            row_names.append(_node_label(event.node, lookup, multiline=False))

    if ax is None:
        ax = _new_axes((max(5.0, 0.3 * len(events) + 3.5), max(2.0, 0.4 * len(rows) + 1.2)))

    for y in range(len(rows)):
        ax.axhline(y, color="#eeeeee", lw=0.8, zorder=0)

    by_kind = {}
    for step, event in enumerate(events, start=1):
        key = id(event.node) if event.node is not None else None
        by_kind.setdefault(event.kind, []).append((step, rows[key]))

    handles = []
    for kind in _kind_order(by_kind):
        style = KIND_STYLE.get(kind, _OTHER_STYLE)
        xs, ys = zip(*by_kind[kind])
        ax.scatter(xs, ys, s=55, marker=style["marker"], color=style["color"],
                   edgecolors="#333333", linewidths=0.5, zorder=3)
        handles.append(_Line2D([], [], ls="", marker=style["marker"], color=style["color"],
                              markeredgecolor="#333333", markeredgewidth=0.5,
                              markersize=7, label=kind))

    raised = [(step, rows[id(e.node) if e.node is not None else None])
              for step, e in enumerate(events, start=1) if _raised(e)]
    if raised:
        xs, ys = zip(*raised)
        ax.scatter(xs, ys, s=160, marker=_RAISED_STYLE["marker"], color=_RAISED_STYLE["color"],
                   alpha=0.6, zorder=4)
        handles.append(_Line2D([], [], ls="", marker=_RAISED_STYLE["marker"],
                               color=_RAISED_STYLE["color"], alpha=0.6, markersize=9, label="raised"))

    ax.set_yticks(range(len(rows)), row_names)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(0.3, len(events) + 0.7)
    if len(events) <= 30:
        ax.set_xticks(range(1, len(events) + 1))
    ax.set_xlabel("engine step")
    ax.tick_params(axis="x", labelsize=8)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  fontsize=8, frameon=False, borderaxespad=0)
    ax.figure.tight_layout()
    return ax
