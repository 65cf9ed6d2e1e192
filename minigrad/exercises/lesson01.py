"""Checks for lesson 01 (the backward engine): topological order, dependency
counts and the order the engine runs nodes.

Expectations come from first principles (the check walks ``next_functions``
itself) or from minigrad's real engine (the ``node_start`` events it yields).
Checks print one verdict and never raise.
"""
import minigrad as torch
from minigrad.autograd.engine import record_events

from . import Result, compare_sequences, run_check

__all__ = ["check_topo_order", "check_count_dependencies", "check_engine_order"]


def _graphs():
    """(description, output tensor) pairs, including a diamond and a reused tensor."""
    def build():
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        w = torch.tensor([3.0, 4.0], requires_grad=True)
        y = x * w
        b = w.sin()                    # created first: a smaller sequence number
        a = x.exp()
        return [
            ("(x * w).sum()", (x * w).sum()),
            ("diamond: (y.sin() + y.cos()).sum()", (y.sin() + y.cos()).sum()),
            ("(x * x).sum()  (x used twice)", (x * x).sum()),
            ("chain: x.exp().sin().tanh().sum()", x.exp().sin().tanh().sum()),
            ("((x * w).relu() * x + w).sum()", ((x * w).relu() * x + w).sum()),
            ("b = w.sin(); a = x.exp(); (a * b).sum()", (a * b).sum()),
        ]
    return build()


def _reachable(root):
    seen, stack = [], [root]
    while stack:
        node = stack.pop()
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        stack.extend(nxt for nxt, _ in node.next_functions)
    return seen


def _index_of(seq, node):
    for i, item in enumerate(seq):
        if item is node:
            return i
    return -1


def check_topo_order(topo_order):
    """``topo_order(root)`` takes a root node (``loss.grad_fn``) and returns every
    reachable node once, each before all the nodes it sends gradients to."""
    def body():
        for text, out in _graphs():
            root = out.grad_fn
            got = list(topo_order(root))
            nodes = _reachable(root)
            for node in nodes:
                if _index_of(got, node) < 0:
                    return Result(False, f"on {text}: {node.name()} is missing from your order.")
            if len(got) != len(nodes):
                return Result(False, f"on {text}: {len(got)} nodes, expected {len(nodes)} "
                                     "(each reachable node exactly once).")
            if got[0] is not root:
                return Result(False, f"on {text}: the order must start at the root "
                                     f"{root.name()}, it starts at {got[0].name()}.")
            for node in nodes:
                for nxt, _ in node.next_functions:
                    if nxt is not None and _index_of(got, nxt) < _index_of(got, node):
                        return Result(False, f"on {text}: {nxt.name()} comes before "
                                             f"{node.name()}, which sends it a gradient. Is your "
                                             "list reversed?")
        return Result(True, "topo_order gives a valid order on all the graphs.")
    return run_check("topo_order", body)


def check_count_dependencies(count_dependencies):
    """``count_dependencies(root)`` returns ``{node: number of edges pointing at it}``
    for every node reachable from ``root`` except the root (like the engine's
    ``_compute_dependencies``)."""
    def body():
        for text, out in _graphs():
            root = out.grad_fn
            want = {}
            for node in _reachable(root):
                for nxt, _ in node.next_functions:
                    if nxt is not None:
                        want[nxt] = want.get(nxt, 0) + 1
            got = count_dependencies(root)
            if not isinstance(got, dict):
                return Result(False, f"on {text}: expected a dict, got {type(got).__name__}.")
            for node, n in want.items():
                if node not in got:
                    return Result(False, f"on {text}: {node.name()} is missing from your counts.")
                if got[node] != n:
                    hint = (" An edge that appears twice (x * x) counts twice." if got[node] < n else
                            " Count each edge once: visit each node's next_functions only once.")
                    return Result(False, f"on {text}: {node.name()} has count {got[node]}, "
                                         f"expected {n}.{hint}")
            extra = [k for k, v in got.items() if k not in want and v]
            if extra:
                return Result(False, f"on {text}: {extra[0].name()} should not have a count "
                                     "(nothing points at the root).")
        return Result(True, "count_dependencies matches on all the graphs.")
    return run_check("count_dependencies", body)


def check_engine_order(engine_order):
    """``engine_order(loss)`` returns the names of the nodes in the order the engine
    runs them (dependency counts + a ready queue ordered by sequence number). It is
    compared with minigrad's real engine."""
    def body():
        for text, out in _graphs():
            got = list(engine_order(out))
            with record_events() as events:
                out.backward(retain_graph=True)
            want = [e.node.name() for e in events if e.kind == "node_start"]
            result = compare_sequences(f"the order on {text}", got, want)
            if not result:
                if sorted(got) == sorted(want):
                    result.message += (" Same nodes, different order: pop the ready node with "
                                       "the highest _sequence_nr() first.")
                return result
        return Result(True, "engine_order runs the nodes exactly as the engine does.")
    return run_check("engine_order", body)
