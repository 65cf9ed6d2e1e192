"""Checks for lesson 00 (start here): walking the backward graph.

Each check builds its own small expressions with minigrad, works out the answer
by following ``grad_fn`` / ``next_functions`` itself, and compares it with what
the learner's function returns. Checks print one verdict and never raise.
"""
import minigrad as torch

from . import Result, run_check

__all__ = ["check_count_nodes", "check_find_leaves"]


def _reachable(tensor):
    """Every node reachable from ``tensor.grad_fn``, each once (first principles)."""
    seen, stack = [], [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        stack.extend(nxt for nxt, _ in node.next_functions)
    return seen


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


def check_count_nodes(count_nodes):
    """``count_nodes(t)`` must return how many distinct nodes (AccumulateGrad
    included) ``backward()`` can reach from ``t``."""
    def body():
        for text, out, _ in _examples():
            got = count_nodes(out)
            want = len(_reachable(out))
            if not isinstance(got, int):
                return Result(False, f"count_nodes({text}) returned {type(got).__name__}, expected an int.")
            if got != want:
                hint = ""
                if got > want:
                    hint = " Did you count a node twice? A tensor used twice gives two edges to the same node."
                elif got == want - sum(1 for n in _reachable(out) if n.name().endswith("AccumulateGrad")):
                    hint = " Did you forget the AccumulateGrad nodes of the leaves?"
                return Result(False, f"count_nodes({text}) returned {got}, expected {want}.{hint}")
        return Result(True, f"count_nodes is right on all {len(_examples())} expressions.")
    return run_check("count_nodes", body)


def check_find_leaves(find_leaves):
    """``find_leaves(t)`` must return the leaf tensors behind ``t`` (each once,
    the tensor objects themselves, found through ``AccumulateGrad.variable``)."""
    def body():
        for text, out, leaves in _examples():
            got = find_leaves(out)
            if got is None:
                return Result(False, f"find_leaves({text}) returned None, expected a list of tensors.")
            got = list(got)
            if len(got) != len(leaves):
                more = "more" if len(got) > len(leaves) else "fewer"
                return Result(False, f"find_leaves({text}) returned {len(got)} tensors, {more} than "
                                     f"the {len(leaves)} expected (each leaf once).")
            for leaf in leaves:
                if not any(g is leaf for g in got):
                    same_value = [g for g in got if isinstance(g, torch.Tensor)
                                  and g.shape == leaf.shape and torch.equal(g.detach(), leaf.detach())]
                    extra = (" A tensor with the same values is there, but not the leaf object "
                             "itself: use node.variable." if same_value else "")
                    return Result(False, f"find_leaves({text}) misses the leaf {leaf.tolist()}.{extra}")
        return Result(True, f"find_leaves is right on all {len(_examples())} expressions.")
    return run_check("find_leaves", body)
