"""Checks for lesson 00 (start here): walking the backward graph.

Each check builds its own small expressions with minigrad, works out the answer
by following ``grad_fn`` / ``next_functions`` itself, and compares it with what
the learner's function returns. An answer that lets something else walk the graph (a
backward pass, ``minigrad.viz.graph_nodes``) is rejected: the walk is the exercise.
Checks print one verdict and never raise.
"""
import sys

import minigrad as torch

from ..autograd.engine import compute_dependencies as _compute_dependencies
from ..viz import graph_nodes as _graph_nodes
from . import (Result as _Result, reachable_nodes as _reachable_nodes, run_check as _run_check,
               shortcut_taken as _shortcut_taken)

__all__ = ["check_count_nodes", "check_find_leaves", "check_count_paths"]


def _examples():
    """(description, output tensor, leaves in order of first appearance) triples."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    b = torch.tensor(0.5, requires_grad=True)
    c = torch.tensor([10.0, 20.0])                 # does not require grad
    return [
        ("(x * w).sum()", (x * w).sum(), [x, w]),
        ("(x * w + b).sum()", (x * w + b).sum(), [x, w, b]),
        ("(x * x).sum()  (x used twice)", (x * x).sum(), [x]),
        ("(x * c).sum()  (c needs no grad)", (x * c).sum(), [x]),
        ("((x * w).sin() + x * w).mean()", ((x * w).sin() + x * w).mean(), [x, w]),
    ]


# functions that walk a graph: an answer calling one has not written the walk
_WALKERS = (_graph_nodes, _reachable_nodes, _compute_dependencies)


class _ShortcutTaken(Exception):
    pass


def _walk_yourself(fn, name, *args):
    """``fn(*args)``, raising _ShortcutTaken with the verdict if something else walked
    the graph for it."""
    result, taken = _shortcut_taken(fn, *args, helpers=_WALKERS)
    if taken == "a backward pass":
        raise _ShortcutTaken(_Result(False, f"{name} ran a backward pass (minigrad's engine) to find "
                                           "its answer: the exercise is to walk the graph yourself, "
                                           "from t.grad_fn along next_functions. (A backward pass "
                                           "also writes into the leaves' .grad.)"))
    if taken:
        raise _ShortcutTaken(_Result(False, f"{name} called {taken}, which walks the graph for you: "
                                           "write that walk yourself, from t.grad_fn along "
                                           "next_functions, with a list used as a stack."))
    return result


def _run(name, body):
    """``run_check`` for a body that may raise _ShortcutTaken."""
    def guarded():
        try:
            return body()
        except _ShortcutTaken as exc:
            return exc.args[0]
    return _run_check(name, guarded)


def check_count_nodes(count_nodes):
    """``count_nodes(t)`` must return how many distinct nodes (AccumulateGrad
    included) ``backward()`` can reach from ``t``."""
    def body():
        for text, out, _ in _examples():
            got = _walk_yourself(count_nodes, "count_nodes", out)
            want = len(_reachable_nodes(out.grad_fn))
            if not isinstance(got, int):
                return _Result(False, f"count_nodes({text}) returned {type(got).__name__}, expected an int.")
            if got != want:
                hint = ""
                if got > want:
                    hint = (" Did you count a node twice? A tensor used twice gives two edges to the "
                            "same node.")
                elif got == want - sum(1 for n in _reachable_nodes(out.grad_fn)
                                       if n.name().endswith("AccumulateGrad")):
                    hint = " Did you forget the AccumulateGrad nodes of the leaves?"
                return _Result(False, f"count_nodes({text}) returned {got}, expected {want}.{hint}")
        return _Result(True, f"count_nodes is right on all {len(_examples())} expressions.")
    return _run("count_nodes", body)


def check_find_leaves(find_leaves):
    """``find_leaves(t)`` must return the leaf tensors behind ``t`` (each once,
    the tensor objects themselves, found through ``AccumulateGrad.variable``)."""
    def body():
        for text, out, leaves in _examples():
            got = _walk_yourself(find_leaves, "find_leaves", out)
            if got is None:
                return _Result(False, f"find_leaves({text}) returned None, expected a list of tensors.")
            got = list(got)
            if len(got) != len(leaves):
                more = "more" if len(got) > len(leaves) else "fewer"
                return _Result(False, f"find_leaves({text}) returned {len(got)} tensors, {more} than "
                                     f"the {len(leaves)} expected (each leaf once).")
            for leaf in leaves:
                if not any(g is leaf for g in got):
                    same_value = [g for g in got if isinstance(g, torch.Tensor)
                                  and g.shape == leaf.shape and torch.equal(g.detach(), leaf.detach())]
                    extra = (" A tensor with the same values is there, but not the leaf object "
                             "itself: use node.variable." if same_value else "")
                    return _Result(False, f"find_leaves({text}) misses the leaf {leaf.tolist()}.{extra}")
        return _Result(True, f"find_leaves is right on all {len(_examples())} expressions.")
    return _run("find_leaves", body)


def _paths(root, target):
    """How many paths lead from ``root`` to ``target`` along ``next_functions`` edges (an
    edge listed twice counts twice), remembering the count of every node (first
    principles, no recursion)."""
    counts, stack = {}, [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if node in counts:
            continue
        if node is target:
            counts[node] = 1
        elif children_done:
            counts[node] = sum(counts[c] for c, _ in node.next_functions if c is not None)
        else:
            stack.append((node, True))
            stack.extend((c, False) for c, _ in node.next_functions
                         if c is not None and c not in counts)
    return counts[root]


def _path_examples():
    """(description, output tensor, leaf, leaf's label) for count_paths."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    c = torch.tensor([10.0, 20.0])                 # does not require grad: no node
    y = x * w
    doubled = x
    for _ in range(16):                            # 2**16 paths, each 17 edges long
        doubled = doubled + doubled
    return [
        ("(x * w).sum()", (x * w).sum(), x, "x"),
        ("(x * x).sum()  (two edges to the same node)", (x * x).sum(), x, "x"),
        ("y = x * w; (y.sin() + y.cos()).sum()", (y.sin() + y.cos()).sum(), x, "x"),
        ("y = x * w; (y * y + x).sum()", (y * y + x).sum(), x, "x"),
        ("y = x * w; (y * y + x).sum()", (y * y + x).sum(), w, "w"),
        ("(x * c).sum()  (c needs no grad)", (x * c).sum(), c, "c"),
        ("(x.exp() * 2).sum()  (w is not in it)", (x.exp() * 2).sum(), w, "w"),
        ("y = x; y = y + y, 16 times", doubled.sum(), x, "x"),
    ]


def check_count_paths(count_paths):
    """``count_paths(t, leaf)`` returns how many distinct paths lead from ``t.grad_fn``
    to ``leaf``'s AccumulateGrad node (0 when none does); an edge listed twice in
    ``next_functions`` (``x * x``) makes two paths. It must also work on a chain of
    5,000 nodes, where a recursive walk hits Python's recursion limit."""
    limit = sys.getrecursionlimit()
    raised_limit = _Result(False, "count_paths raised Python's recursion limit: walk with an "
                                 "explicit stack instead, as backward() itself does.")

    def body():
        for text, out, leaf, label in _path_examples():
            want = _paths(out.grad_fn, _accumulator(out, leaf))
            got = _walk_yourself(count_paths, "count_paths", out, leaf)
            if sys.getrecursionlimit() != limit:
                return raised_limit
            if not isinstance(got, int) or isinstance(got, bool):
                return _Result(False, f"count_paths({text}, {label}) returned {type(got).__name__}, "
                                     "expected an int.")
            if got != want:
                hint = ""
                if want == 0:
                    hint = (" No AccumulateGrad node of that leaf is in the graph (a tensor that needs "
                            "no grad has none): the answer is 0.")
                elif "(x * x)" in text and got == 1:
                    hint = (" x * x lists the same AccumulateGrad twice in next_functions: two edges, "
                            "two paths (and two terms in the gradient).")
                elif got < want:
                    hint = (" Did you skip a node you had already seen? A shared node (y used twice) "
                            "adds its paths once for every edge that reaches it.")
                return _Result(False, f"count_paths({text}, {label}) returned {got}, expected {want}.{hint}")
        # a long chain: a recursive walk goes one Python call deeper per node
        t = torch.tensor(1.0, requires_grad=True)
        h = t
        for _ in range(5000):
            h = h * 1.0001
        try:
            got = _walk_yourself(count_paths, "count_paths", h, t)
        except RecursionError:
            return _Result(False, "count_paths is right on the small graphs, but on a chain of 5,000 "
                                 "multiplications it raised RecursionError: one Python call per node "
                                 "is too deep. Walk with an explicit stack (a list you push and pop).")
        if sys.getrecursionlimit() != limit:
            return raised_limit
        if got != 1:
            return _Result(False, f"count_paths on a chain of 5,000 multiplications returned {got}, "
                                 "expected 1.")
        return _Result(True, f"count_paths is right on all {len(_path_examples())} graphs and on a "
                            "chain of 5,000 nodes.")

    try:
        return _run("count_paths", body)
    finally:
        sys.setrecursionlimit(limit)


def _accumulator(out, leaf):
    """``leaf``'s AccumulateGrad node in ``out``'s graph, or None."""
    for node in _reachable_nodes(out.grad_fn):
        if getattr(node, "variable", None) is leaf:
            return node
    return None
