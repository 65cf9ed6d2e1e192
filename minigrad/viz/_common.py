"""Small helpers shared by the viz modules: naming nodes and summarising values.

Everything here works on anything with PyTorch's graph API (``node.name()``,
``node.next_functions``, ``AccumulateGrad.variable``), so the same drawing code
serves real ``torch`` graphs and minigrad graphs. Nothing here prints an id or a
memory address: outputs must be deterministic for nbval.
"""

import html

import numpy as np

from ..autograd._names import hook_name, node_name  # noqa: F401  (the viz modules import them from here)
from ._language import text as _text


def new_axes(figsize):
    """A new pyplot figure, so a notebook shows it (the inline backend displays
    and closes pyplot figures at the end of the cell). In scripts, close it
    with ``plt.close(ax.figure)``. The stepper, which renders many frames,
    uses a bare ``Figure`` instead and never touches pyplot."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=figsize)
    return ax


def is_node(obj):
    """True for a backward-graph node (torch ``Node`` or minigrad ``Node``)."""
    return hasattr(obj, "next_functions") and hasattr(obj, "name")


def is_tensor(obj):
    return hasattr(obj, "grad_fn") and hasattr(obj, "shape")


def is_leaf_node(node):
    """An ``AccumulateGrad`` node: the graph's sink for a leaf tensor's ``.grad``."""
    return hasattr(node, "variable")


def shape_str(shape):
    return "(" + ", ".join(str(int(d)) for d in shape) + ")" if len(shape) != 1 \
        else f"({int(shape[0])},)"


def label_lookup(labels):
    """Turn ``labels={tensor_or_node: "x"}`` into a dict keyed by ``id``.

    Keys are looked up by identity (tensors may define an element-wise ``==``).
    A non-leaf tensor's label goes to its ``grad_fn``; a leaf's goes to its
    ``AccumulateGrad`` through ``variable``.
    """
    out = {}
    for key, name in (labels or {}).items():
        out[id(key)] = str(name)
        grad_fn = getattr(key, "grad_fn", None) if is_tensor(key) else None
        if grad_fn is not None:
            out[id(grad_fn)] = str(name)
    return out


def node_label(node, lookup=None, multiline=True):
    """The text shown for a node.

    Interior nodes show ``node.name()`` (``MulBackward0``), optionally preceded
    by a user label. Leaves (``AccumulateGrad``) show the variable's name from
    ``labels`` and its shape, like torchviz: ``"x\\n(2, 3)"`` or ``"(2, 3)"``.
    With ``multiline=False`` (event lists, timeline rows) a leaf reads
    ``AccumulateGrad(x)`` or ``AccumulateGrad``.
    """
    lookup = lookup or {}
    if node is None:
        return "(engine)"
    if is_leaf_node(node):
        var = node.variable
        name = lookup.get(id(var), lookup.get(id(node)))
        if not multiline:
            return f"AccumulateGrad({name})" if name else "AccumulateGrad"
        shape = shape_str(tuple(var.shape))
        return f"{name}\n{shape}" if name else shape
    name = node_name(node)
    user = lookup.get(id(node))
    if user and multiline:
        return f"{user}\n{name}"
    return f"{name}({user})" if user else name


def to_numpy(value):
    """A numpy copy of a torch or minigrad tensor (or anything array-like)."""
    for attempt in (
        lambda v: v.detach().cpu().numpy(),   # torch
        lambda v: v.detach().numpy(),          # minigrad
    ):
        try:
            return np.asarray(attempt(value))
        except Exception:
            continue
    return np.asarray(value)


def summarize(value, max_items=4):
    """A short, deterministic text for a hook argument.

    Tensors with at most ``max_items`` elements show as their own repr does, on
    one line (``tensor([0.5000, 0.2500])``), larger ones their shape and mean;
    tuples and lists are summarised element-wise; nodes by name. Never an address.
    """
    if value is None:
        return "None"
    if is_tensor(value):
        arr = to_numpy(value)
        if arr.size <= max_items:
            return " ".join(repr(value).split())
        return f"tensor(shape={shape_str(arr.shape)}, mean={float(arr.mean()):.4g})"
    if is_node(value):
        return node_label(value, multiline=False)
    if isinstance(value, (tuple, list)):
        inner = ", ".join(summarize(v, max_items) for v in value)
        if isinstance(value, tuple):
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        return f"[{inner}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {summarize(v, max_items)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, np.ndarray):
        return summarize_array(value, max_items)
    return type(value).__name__


def summarize_array(arr, max_items=4):
    if arr.size <= max_items:
        return np.array2string(np.round(arr.astype(float), 4), separator=", ")
    return f"array{shape_str(arr.shape)}"


def escape(text):
    return html.escape(str(text), quote=True)


# ---------------------------------------------------------------------- the colour legend
# One legend for the whole package: draw_graph fills its boxes, hook_timeline colours
# its markers, and the stepper colours its graph, panels and event list from these
# two tables, so a colour means the same thing in every picture.

NODE_COLORS = {
    "node": "#dde6f2",       # an interior node (a backward formula)
    "leaf": "#cfe8cf",       # an AccumulateGrad node (a leaf's .grad)
    "running": "#ffb84d",    # the node the engine is running now
    "ready": "#9fd3f2",      # in the ready queue: every gradient has arrived
    "waiting": "#fff0a0",    # some gradients gathered, dependencies left
    "done": "#d9d9d9",       # ran and handed its gradients on
}
NODE_MEANINGS = {
    "node": "node (backward formula)",
    "leaf": "leaf (AccumulateGrad)",
    "running": "running now",
    "ready": "ready (in the queue)",
    "waiting": "waiting (gradients still to come)",
    "done": "done",
}

# Event kinds, in the order they can occur at one node (docs/architecture.md).
KIND_COLORS = {
    "node_start": "#b0b0b0",
    "tensor_hook": "#1f77b4",
    "retain_grad": "#17becf",
    "capture": "#9467bd",
    "pre_hook": "#e377c2",
    "apply": "#222222",
    "post_accumulate_hook": "#2ca02c",
    "post_hook": "#d62728",
    "node_done": "#e0e0e0",
    "callback": "#bcbd22",
}
OTHER_KIND_COLOR = "#8c564b"
HOOK_KINDS = ("tensor_hook", "pre_hook", "post_accumulate_hook", "post_hook", "callback")


def kind_color(kind):
    """The legend's colour for an event kind (``pre_hook``...)."""
    return KIND_COLORS.get(kind, OTHER_KIND_COLOR)


def legend_html(node_states=tuple(NODE_COLORS), kinds=HOOK_KINDS + ("apply",)):
    """The colour legend as HTML (a swatch and a meaning per entry): node states, then
    event kinds. The stepper shows it; the colours are those of draw_graph and
    hook_timeline."""
    def swatch(color, text, css):
        return (f'<span class="{css}" style="display:inline-block;margin-right:0.9em;'
                f'white-space:nowrap"><span style="display:inline-block;width:0.9em;'
                f'height:0.9em;background:{color};border:1px solid #7a869a;'
                f'vertical-align:middle;margin-right:0.3em"></span>{escape(text)}</span>')
    nodes = "".join(swatch(NODE_COLORS[s], _text(NODE_MEANINGS[s]), f"legend-node legend-{s}")
                    for s in node_states)
    events = "".join(swatch(kind_color(k), k, f"legend-kind legend-{k}") for k in kinds)
    return (f'<div style="font-size:12px;line-height:1.6"><b>{_text("nodes")}:</b> {nodes}<br>'
            f'<b>{_text("events")}:</b> {events}</div>')
