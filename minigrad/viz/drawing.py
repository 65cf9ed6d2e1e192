"""Draw the backward graph that autograd records during the forward pass.

In PyTorch every tensor produced by a differentiable op carries ``grad_fn``, a
``Node`` whose ``next_functions`` point at the nodes of its inputs (``None``
where an input does not require grad). Leaf tensors that require grad end in an
``AccumulateGrad`` node whose ``variable`` is the leaf. ``backward()`` walks
this graph from the root towards the leaves; :func:`draw_graph` draws it that
way round: root at the top, arrows in the direction the gradient flows.

The layout is ours (no graphviz): longest-path layering from the roots, then
one barycenter sweep to reduce crossings. It is deterministic, so a notebook's
picture is the same on every run.
"""

from matplotlib.patches import FancyArrowPatch as _FancyArrowPatch

from ._common import (NODE_COLORS as _NODE_COLORS, is_leaf_node as _is_leaf_node,
                      is_node as _is_node, is_tensor as _is_tensor, label_lookup as _label_lookup,
                      new_axes as _new_axes, node_label as _node_label)

__all__ = ["graph_nodes", "draw_graph", "NODE_COLOR", "LEAF_COLOR", "HIGHLIGHT_COLOR", "EDGE_COLOR"]

NODE_COLOR = _NODE_COLORS["node"]           # the package's one legend (_common.py)
LEAF_COLOR = _NODE_COLORS["leaf"]
HIGHLIGHT_COLOR = _NODE_COLORS["running"]
EDGE_COLOR = "#4a4a4a"


def _root_nodes(roots):
    nodes = []
    for root in roots:
        if isinstance(root, (list, tuple, set, frozenset)):
            nodes.extend(_root_nodes(root))
        elif _is_node(root):
            nodes.append(root)
        elif _is_tensor(root):
            if root.grad_fn is None:
                raise ValueError(
                    "this tensor has no grad_fn: it is a leaf or does not require "
                    "grad, so there is no backward graph to draw from it")
            nodes.append(root.grad_fn)
        else:
            raise TypeError(f"expected a tensor or a graph node, got {type(root).__name__}")
    return nodes


def _children(node):
    """Nodes reached through ``next_functions``, skipping inputs without grad.

    PyTorch writes such an input as ``(None, 0)``; a bare ``None`` is accepted too.
    """
    out = []
    for edge in getattr(node, "next_functions", ()) or ():
        nxt = edge[0] if isinstance(edge, tuple) else edge
        if nxt is not None:
            out.append(nxt)
    return out


def graph_nodes(*roots):
    """Every node reachable from ``roots`` (tensors or nodes), each once.

    The order is breadth-first from the roots, following ``next_functions``
    in order: deterministic for a given expression, and the same for torch
    and minigrad when both record the same graph.
    """
    seen, order = set(), []
    queue = []
    for node in _root_nodes(roots):
        if id(node) not in seen:
            seen.add(id(node))
            order.append(node)
            queue.append(node)
    while queue:
        node = queue.pop(0)
        for child in _children(node):
            if id(child) not in seen:
                seen.add(id(child))
                order.append(child)
                queue.append(child)
    return order


def _edges(nodes):
    ids = {id(n) for n in nodes}
    edges = []
    for node in nodes:
        for child in _children(node):
            if id(child) in ids:
                edges.append((node, child))
    return edges


def _layout(nodes, edges):
    """Place the nodes: ``(positions, edge_paths, layers)``.

    ``positions[id(node)] = (x, y)`` with ``-y`` the longest path from a root:
    a node sits below every node that feeds it a gradient, which is also the
    order the engine respects (a node runs once all its consumers have run).
    An edge that skips layers is routed through invisible bend points, one per
    skipped layer, so it goes around boxes instead of through them;
    ``edge_paths[i]`` lists the points of ``edges[i]``. Rows are ordered by one
    top-down barycenter sweep (each item under the mean of its parents), ties
    broken by breadth-first order, so the layout is deterministic.
    """
    index = {id(n): i for i, n in enumerate(nodes)}
    layer = _longest_path_layers(nodes, edges, index)
    rows, parents, rank, chains = _rows_with_bend_points(nodes, edges, layer, index)
    depth = max(rows) + 1 if rows else 0
    xpos = _order_rows(rows, parents, rank, depth)
    _straighten(rows, parents, xpos, depth)

    def point(key):
        d = layer[key] if key in layer else key[2]
        return (xpos[key], -float(d))

    positions = {id(n): point(id(n)) for n in nodes}
    paths = [[point(k) for k in chain] for chain in chains]
    return positions, paths, {d: rows.get(d, []) for d in range(depth)}


def _longest_path_layers(nodes, edges, index):
    """{id(node): layer}: the longest path from a root, by a topological order (Kahn's,
    ties by breadth-first index)."""
    children = {id(n): [] for n in nodes}
    indegree = {id(n): 0 for n in nodes}
    for parent, child in edges:
        children[id(parent)].append(child)
        indegree[id(child)] += 1
    layer = {id(n): 0 for n in nodes}
    ready = [n for n in nodes if indegree[id(n)] == 0]
    while ready:
        ready.sort(key=lambda n: index[id(n)])
        node = ready.pop(0)
        for child in children[id(node)]:
            layer[id(child)] = max(layer[id(child)], layer[id(node)] + 1)
            indegree[id(child)] -= 1
            if indegree[id(child)] == 0:
                ready.append(child)
    return layer


def _rows_with_bend_points(nodes, edges, layer, index):
    """The items of each row: node ids, and a ``("bend", edge, layer)`` key for every
    layer a long edge crosses. Returns ``(rows, parents, rank, chains)``: each item's
    parents in the row above, its tie-breaking rank, and each edge's chain of items."""
    rows, parents, rank, chains = {}, {}, {}, []
    for node in nodes:
        rows.setdefault(layer[id(node)], []).append(id(node))
        parents.setdefault(id(node), [])
        rank[id(node)] = (index[id(node)], 0)
    for e, (parent, child) in enumerate(edges):
        chain, prev = [id(parent)], id(parent)
        for d in range(layer[id(parent)] + 1, layer[id(child)]):
            key = ("bend", e, d)
            rows.setdefault(d, []).append(key)
            parents[key] = [prev]
            rank[key] = (index[id(parent)], 1 + e)
            chain.append(key)
            prev = key
        parents[id(child)].append(prev)
        chain.append(id(child))
        chains.append(chain)
    return rows, parents, rank, chains


def _order_rows(rows, parents, rank, depth):
    """One top-down barycenter sweep: each row sorted by the mean x of its items'
    parents (ties by rank), items spaced 1 apart around 0. Sorts ``rows`` in place and
    returns ``{item: x}``."""
    xpos = {}
    for d in range(depth):
        row = rows.get(d, [])
        if d > 0:
            def bary(key):
                ps = [xpos[p] for p in parents[key] if p in xpos]
                return sum(ps) / len(ps) if ps else 0.0
            row.sort(key=lambda k: (bary(k), rank[k]))
        for i, key in enumerate(row):
            xpos[key] = i - (len(row) - 1) / 2
        rows[d] = row
    return xpos


def _straighten(rows, parents, xpos, depth):
    """A few down/up sweeps pull each item towards the mean x of its neighbours in the
    row above (below), keeping the order and a minimum gap (boxes 1 apart, bend points
    closer). The average of the "pushed right" and "pushed left" placements satisfies
    the gaps too, and is symmetric. Moves ``xpos`` in place."""
    below = {key: [] for key in parents}
    for key, ps in parents.items():
        for p in ps:
            below[p].append(key)

    def width(key):
        return 0.3 if isinstance(key, tuple) else 1.0

    def place(row, neighbours):
        want = []
        for key in row:
            xs = [xpos[n] for n in neighbours[key]]
            want.append(sum(xs) / len(xs) if xs else xpos[key])
        gaps = [(width(a) + width(b)) / 2 for a, b in zip(row, row[1:])]
        right, left = list(want), list(want)
        for i, gap in enumerate(gaps):
            right[i + 1] = max(right[i + 1], right[i] + gap)
        for i in range(len(gaps) - 1, -1, -1):
            left[i] = min(left[i], left[i + 1] - gaps[i])
        for key, right_x, left_x in zip(row, right, left):
            xpos[key] = (right_x + left_x) / 2

    for _ in range(4):
        for d in range(1, depth):
            place(rows[d], parents)
        for d in range(depth - 2, -1, -1):
            place(rows[d], below)


def _as_id_set(highlight):
    if highlight is None:
        return set()
    if isinstance(highlight, (list, tuple, set, frozenset)):
        items = highlight
    else:
        items = [highlight]
    out = set()
    for item in items:
        out.add(id(item))
        if _is_tensor(item) and item.grad_fn is not None:
            out.add(id(item.grad_fn))
    return out


def draw_graph(*roots, ax=None, highlight=None, labels=None, show_leaves=True,
               fontsize=9, states=None):
    """Draw the backward graph reachable from ``roots`` and return the Axes.

    - one box per node: ``node.name()`` (``MulBackward0``), the same names
      ``print(t.grad_fn)`` shows in PyTorch; leaves (``AccumulateGrad``) in
      green with the variable's name from ``labels={tensor: "x"}`` and its shape;
    - arrows follow ``next_functions``: the direction gradients flow in
      ``backward()``, root at the top;
    - ``highlight``: a node (or tensor, meaning its ``grad_fn``) or a set of
      them, drawn in orange; the engine stepper uses it for the running node;
    - ``show_leaves=False`` hides the ``AccumulateGrad`` nodes.
    - ``states``: ``{node: state}`` fills those boxes with the legend's colour for
      ``"ready"``, ``"waiting"``, ``"done"`` or ``"running"`` (``viz._common.NODE_COLORS``,
      the colours the stepper and its legend use); ``highlight`` wins over it.

    Exactly one text artist is added per node (``ax.texts``), arrows are
    patches. Without ``ax`` a new pyplot figure sized to the graph is made
    (a notebook shows it; end the cell with ``;`` to hide the Axes' repr).
    """
    nodes = graph_nodes(*roots)
    if not show_leaves:
        nodes = [n for n in nodes if not _is_leaf_node(n)]
    edges = _edges(nodes)
    pos, paths, rows = _layout(nodes, edges)
    lookup = _label_lookup(labels)
    marked = _as_id_set(highlight)
    state_of = {}
    for key, state in (states or {}).items():
        if state not in _NODE_COLORS:
            raise ValueError(f"unknown node state {state!r}; one of {sorted(_NODE_COLORS)}")
        for k in _as_id_set(key):
            state_of[k] = state

    if ax is None:
        xs = [p[0] for p in pos.values()] or [0.0]
        span = max(xs) - min(xs) + 1
        ax = _new_axes((max(3.0, 1.7 * span), max(1.6, 0.75 * len(rows) + 0.3)))

    texts = {}
    for node in nodes:
        x, y = pos[id(node)]
        if id(node) in marked:
            face = HIGHLIGHT_COLOR
        elif id(node) in state_of:
            face = _NODE_COLORS[state_of[id(node)]]
        elif _is_leaf_node(node):
            face = LEAF_COLOR
        else:
            face = NODE_COLOR
        texts[id(node)] = ax.text(
            x, y, _node_label(node, lookup), ha="center", va="center",
            fontsize=fontsize, zorder=3,
            bbox=dict(boxstyle="round,pad=0.35", fc=face,
                      ec="#222222" if id(node) in marked else "#7a869a",
                      lw=1.6 if id(node) in marked else 0.8))

    for (parent, child), path in zip(edges, paths):
        # Drawn after the texts (higher zorder) so their boxes are positioned
        # when the arrow clips itself to them. Long edges bend through the
        # points the layout reserved for them in the rows they cross.
        box_a = texts[id(parent)].get_bbox_patch()
        box_b = texts[id(child)].get_bbox_patch()
        style = dict(color=EDGE_COLOR, lw=0.9, zorder=4, shrinkA=2, shrinkB=2,
                     mutation_scale=10)
        if len(path) == 2:
            ax.add_patch(_FancyArrowPatch(path[0], path[1], arrowstyle="-|>",
                                         patchA=box_a, patchB=box_b, **style))
            continue
        ax.add_patch(_FancyArrowPatch(path[0], path[1], arrowstyle="-",
                                     patchA=box_a, **dict(style, shrinkB=0)))
        for a, b in zip(path[1:-2], path[2:-1]):
            ax.add_patch(_FancyArrowPatch(a, b, arrowstyle="-",
                                         **dict(style, shrinkA=0, shrinkB=0)))
        ax.add_patch(_FancyArrowPatch(path[-2], path[-1], arrowstyle="-|>",
                                     patchB=box_b, **dict(style, shrinkA=0)))

    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    ax.set_xlim(min(xs) - 0.75, max(xs) + 0.75)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)
    ax.set_axis_off()
    return ax
