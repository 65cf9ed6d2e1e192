"""Checks for lesson 01 (the backward engine): predicting the order the engine runs
a graph's nodes, a topological order without recursion, and the engine's order
computed without the engine.

Expectations come from first principles (the check walks ``next_functions``
itself) or from minigrad's real engine (the ``node_start`` events it yields).
An answer that runs minigrad's engine itself (``engine.real_engine_runs()``
moves while it runs) is rejected where the task is to do the engine's work.
Checks print one verdict and never raise.
"""
import sys

import minigrad as torch
from minigrad.autograd import engine as _engine
from minigrad.autograd.engine import record_events as _record_events

from . import (Result as _Result, compare_sequences as _compare_sequences,
               reachable_nodes as _reachable_nodes, run_check as _run_check,
               shortcut_taken as _shortcut_taken, watch_calls as _watch_calls)

__all__ = ["check_predict_engine_order", "check_topo_order", "check_engine_order"]


def _graphs():
    """(description, output tensor, {leaf: label}) triples, including a diamond, a reused
    tensor and leaves that become ready together (their AccumulateGrad nodes tie)."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    v = torch.tensor([5.0, 6.0], requires_grad=True)
    labels = {x: "x", w: "w", v: "v"}
    y = x * w
    b = w.sin()                    # created first: a smaller sequence number
    a = x.exp()
    return [(text, out, labels) for text, out in [
        ("(x * w).sum()", (x * w).sum()),
        ("diamond: (y.sin() + y.cos()).sum()", (y.sin() + y.cos()).sum()),
        ("(x * x).sum()  (x used twice)", (x * x).sum()),
        ("chain: x.exp().sin().tanh().sum()", x.exp().sin().tanh().sum()),
        ("((x * w).relu() * x + w).sum()", ((x * w).relu() * x + w).sum()),
        ("b = w.sin(); a = x.exp(); (a * b).sum()", (a * b).sum()),
        ("(y + y + y).sum()  (y used three times)", (y + y + y).sum()),
        ("a = x.exp(); (a + a.sin().cos()).sum()", (a + a.sin().cos()).sum()),
        ("torch.stack([w, v, x]).sum()  (three leaves ready at once)", torch.stack([w, v, x]).sum()),
    ]]


def _index_of(seq, node):
    for i, item in enumerate(seq):
        if item is node:
            return i
    return -1


class _RanTheEngine(Exception):
    pass


def _call_without_engine(fn, *args):
    """``fn(*args)``, raising _RanTheEngine when minigrad's engine ran a pass meanwhile
    (``backward()``, ``autograd.grad``, ``record_events`` around either, the stepper)."""
    result, taken = _shortcut_taken(fn, *args)
    if taken:
        raise _RanTheEngine()
    return result


def check_topo_order(topo_order):
    """``topo_order(root)`` takes a root node (``loss.grad_fn``) and returns every
    reachable node once, each before all the nodes it sends gradients to, without
    recursion: it must work on a chain of 5,000 nodes. It may not run the engine."""
    limit = sys.getrecursionlimit()
    ran = _Result(False, "topo_order ran minigrad's engine (a backward pass) to get its order: "
                        "the exercise is to compute an order yourself, from next_functions.")
    raised_limit = _Result(False, "topo_order raised Python's recursion limit: the engine has no "
                                 "recursion at all; use dependency counts and a list of ready nodes.")

    def body():
        try:
            return _body()
        except _RanTheEngine:
            return ran

    def _body():
        for text, out, _ in _graphs():
            root = out.grad_fn
            got = list(_call_without_engine(topo_order, root))
            if sys.getrecursionlimit() != limit:
                return raised_limit
            if any(isinstance(node, str) for node in got):
                return _Result(False, f"on {text}: your order holds names ({got[0]!r}, ...): return the "
                                     "nodes themselves (node, not node.name()).")
            nodes = _reachable_nodes(root)
            for node in nodes:
                if _index_of(got, node) < 0:
                    return _Result(False, f"on {text}: {node.name()} is missing from your order.")
            if len(got) != len(nodes):
                return _Result(False, f"on {text}: {len(got)} nodes, expected {len(nodes)} "
                                     "(each reachable node exactly once).")
            if got[0] is not root:
                return _Result(False, f"on {text}: the order must start at the root "
                                     f"{root.name()}, it starts at {got[0].name()}.")
            for node in nodes:
                for nxt, _ in node.next_functions:
                    if nxt is not None and _index_of(got, nxt) < _index_of(got, node):
                        return _Result(False, f"on {text}: {nxt.name()} comes before "
                                             f"{node.name()}, which sends it a gradient. A node may "
                                             "only come once every node that points at it is "
                                             "placed: count its incoming edges first, and add it "
                                             "when the count reaches zero.")
        t = torch.tensor(1.0, requires_grad=True)
        h = t
        for _ in range(5000):
            h = h * 1.0001
        try:
            got = list(_call_without_engine(topo_order, h.grad_fn))
        except RecursionError:
            return _Result(False, "topo_order is right on the small graphs, but on the chain of "
                                 "5,000 multiplications it raised RecursionError, like topo_sort in "
                                 "section 1: no recursion here, use the dependency counts and a "
                                 "list of ready nodes (section 2).")
        if sys.getrecursionlimit() != limit:
            return raised_limit
        want = _reachable_nodes(h.grad_fn)
        if len(got) != len(want) or any(g is not w for g, w in zip(got, want)):
            return _Result(False, f"on the chain of 5,000 multiplications: {len(got)} nodes, expected "
                                 f"{len(want)}, from the root down to the AccumulateGrad of the leaf.")
        return _Result(True, "topo_order gives a valid order on all the graphs, and on a chain of "
                            "5,000 nodes without recursion.")

    try:
        return _run_check("topo_order", body)
    finally:
        sys.setrecursionlimit(limit)
def check_engine_order(engine_order):
    """``engine_order(loss)`` returns the nodes in the order the engine runs them
    (dependency counts + a ready queue ordered by sequence number), computed without
    running the engine or borrowing its dependency count or ready queue. It is compared
    with minigrad's real engine, leaves told apart by their labels, so that ties between
    ready leaves are checked too."""
    ran = _Result(False, "engine_order ran minigrad's engine (a backward pass, record_events or "
                        "the stepper) and read its order: that is the engine's answer, not yours. "
                        "Simulate it: dependency counts, a list of ready nodes, highest "
                        "_sequence_nr() first.")
    engine_parts = (_engine.compute_dependencies, _engine.ReadyQueue.push, _engine.ReadyQueue.pop)

    def body():
        for text, out, labels in _graphs():
            with _record_events() as events:
                out.backward(retain_graph=True)
            want = [_label(e.node, labels) for e in events if e.kind == "node_start"]
            try:
                with _watch_calls(engine_parts) as borrowed:
                    got = list(_call_without_engine(engine_order, out))
            except _RanTheEngine:
                return ran
            if borrowed:
                return _Result(False, f"engine_order called minigrad's {', '.join(borrowed)}: that is "
                                     "the engine's own count or queue. Count the dependencies and "
                                     "keep the ready nodes in a list of your own.")
            if any(isinstance(node, str) for node in got):
                return _Result(False, f"on {text}: engine_order returned names ({got[0]!r}, ...): return "
                                     "the nodes themselves, so that two leaves' AccumulateGrad nodes "
                                     "(which share a name) can be told apart.")
            got = [_label(node, labels) for node in got]
            result = _compare_sequences(f"the order on {text}", got, want)
            if not result:
                if sorted(got) == sorted(want):
                    result.message += (" Same nodes, different order: pop the ready node with the "
                                       "highest _sequence_nr() first; among ready leaves (which tie), "
                                       "the one that became ready first.")
                elif len(got) > len(want):
                    result.message += (" A node runs once, when all its gradients have arrived: "
                                       "make it ready only when its count reaches zero.")
                return result
        return _Result(True, "engine_order runs the nodes exactly as the engine does.")
    return _run_check("engine_order", body)


# --- exercise 1: predict the order on the graph of section 3 ----------------------------
def _section3_graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, -1.0], requires_grad=True)
    a = x.exp()
    b = w.sin()
    out = (a * b).sum()
    return out, {x: "x", w: "w"}


def _label(node, labels):
    if hasattr(node, "variable"):
        return f"AccumulateGrad({labels.get(node.variable, '?')})"
    return getattr(node, "name", lambda: repr(node))()


def _explain(out, labels, want, got, i):
    """Why ``want[i]`` runs at step i + 1 and not ``got[i]``: replay the ready queue."""
    nodes = _reachable_nodes(out.grad_fn)
    by_label = {_label(n, labels): n for n in nodes}
    counts = {}
    for node in nodes:
        for nxt, _ in node.next_functions:
            if nxt is not None:
                counts[nxt] = counts.get(nxt, 0) + 1
    ready = [out.grad_fn]
    for label in want[:i]:
        node = by_label[label]
        ready.remove(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                counts[nxt] -= 1
                if counts[nxt] == 0:
                    ready.append(nxt)
    expected, guessed = by_label[want[i]], by_label.get(got[i])
    names = ", ".join(_label(n, labels) for n in ready)
    if guessed is None:
        return f"{got[i]!r} is not a node of this graph (its nodes: {', '.join(sorted(by_label))})."
    if guessed not in ready:
        if got[i] in want[:i]:
            return f"{got[i]} already ran at step {want.index(got[i]) + 1}: each node runs once."
        waits = [_label(n, labels) for n in nodes
                 if any(c is guessed for c, _ in n.next_functions) and _label(n, labels) not in want[:i]]
        return (f"after your first {i} step(s) the ready nodes are {names}. {got[i]} is not ready: "
                f"it still waits for the gradient from {', '.join(waits)}.")
    why = ("an AccumulateGrad has the largest sequence number, 2**64 - 1, so a ready leaf is "
           "accumulated at once" if hasattr(expected, "variable") else
           "the ready node with the highest sequence number pops first: which of them was "
           "created last in forward?")
    return f"after your first {i} step(s) the ready nodes are {names}; {why}"


def check_predict_engine_order(predict_engine_order):
    """``predict_engine_order()`` returns the learner's prediction, made before the
    trace cell, of the order the engine runs the nodes of section 3's graph
    ``(x.exp() * w.sin()).sum()``, as names (``AccumulateGrad(x)`` for a leaf)."""
    def body():
        try:
            got = _call_without_engine(predict_engine_order)
        except _RanTheEngine:
            return _Result(False, "predict_engine_order ran a backward pass to read the order: that "
                                 "measures it instead of predicting it. Return the list of names, "
                                 "worked out by hand from the sequence numbers above; the trace "
                                 "below then shows whether you were right.")
        out, labels = _section3_graph()
        with _record_events() as events:
            out.backward()
        want = [_label(e.node, labels) for e in events if e.kind == "node_start"]
        if isinstance(got, str) or not isinstance(got, (list, tuple)):
            return _Result(False, f"predict_engine_order() returned {type(got).__name__}: return a list "
                                 f"of names such as {want[:2]}.")
        got = [str(g).strip().replace("torch::autograd::", "") for g in got]
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:       # the first miss and why, never the node that runs there
                return _Result(False, f"step {i + 1} of your order is {g}, which is not the node "
                                     f"the engine runs there: {_explain(out, labels, want, got, i)}")
        if len(got) != len(want):
            return _Result(False, f"you listed {len(got)} nodes, the engine runs {len(want)}: "
                                 f"{', '.join(sorted(want))}, each exactly once. Your first "
                                 f"{min(len(got), len(want))} are right: go on from there.")
        return _Result(True, "right: " + " → ".join(want) + ". The trace below shows it.")
    return _run_check("predict_engine_order", body)
