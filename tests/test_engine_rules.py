"""Engine rules with a fast test of their own, each run under minigrad and PyTorch.

Until these tests, a differential scenario was each rule's only guard (s22 for the ready
queue's ties, s61 for a post-hook added during apply, s16 for a node hook's length), so
breaking one showed up only in the slow subprocess suite. Each test here fails under a
one-character change of the rule it names (``<`` for ``<=`` in the ready queue's heap, the
post-hooks read before apply, ``!=`` for ``>`` in the length check). The rules are
PyTorch's, so every test compares with torch in this process (skipped without torch).
"""
import pytest

import minigrad


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# --- the ready queue: ties between leaves ----------------------------------------------------
def leaf_order(T, n):
    """The order in which ``n`` leaves, made ready together by one ``cat`` node, run.

    Every AccumulateGrad node has the same sequence number, so PyTorch's
    ``std::priority_queue`` (libstdc++'s heap) decides: FIFO up to three, then
    [0, 2, 1, 3] for four, [0, 2, 4, 1, 3] for five, and so on."""
    leaves = [T.tensor([float(i)], requires_grad=True) for i in range(n)]
    seen = []
    for i, leaf in enumerate(leaves):
        leaf.register_hook(lambda g, i=i: seen.append(i))
    T.cat(leaves).sum().backward()
    return seen


@pytest.mark.parametrize("n", range(2, 10))
def test_leaves_ready_together_run_in_the_heaps_order(torch, n):
    assert leaf_order(minigrad, n) == leaf_order(torch, n)


def mixed_order(T):
    """Three leaves and two non-leaf nodes made ready by one ``cat`` node: the leaves run
    first, in the heap's order, then the other nodes, newest first."""
    leaves = [T.tensor([float(i)], requires_grad=True) for i in range(5)]
    parts = [leaves[0], leaves[1] * 1, leaves[2], leaves[3] * 1, leaves[4]]
    seen = []
    for k, part in enumerate(parts):
        part.register_hook(lambda g, k=k: seen.append(k))
    T.cat(parts).sum().backward()
    return seen


def test_leaves_and_nodes_ready_together(torch):
    assert mixed_order(minigrad) == mixed_order(torch)


# --- a post-hook added while the node runs --------------------------------------------------
def late_post_hook(T, with_early_hook):
    """A leaf's post-accumulate-grad hook (it runs inside AccumulateGrad's apply) adds a
    post-hook to that AccumulateGrad node. PyTorch reads the post-hooks after apply, so the
    new one runs in this pass; it gets no grad_outputs unless the node had post-hooks
    before apply (``call_function`` keeps the inputs only then)."""
    log = []
    p = T.tensor([1.0, 2.0], requires_grad=True)
    acc = p.view_as(p).grad_fn.next_functions[0][0]
    if with_early_hook:
        acc.register_hook(lambda gi, go: log.append(("early", len(gi), [g.tolist() for g in go])))

    def add_late(t):
        log.append("post-accumulate")
        acc.register_hook(lambda gi, go: log.append(("late", len(gi), [g.tolist() for g in go])))
    p.register_post_accumulate_grad_hook(add_late)
    (p * 3).sum().backward()
    return log


@pytest.mark.parametrize("with_early_hook", [False, True], ids=["alone", "after-another"])
def test_a_post_hook_added_during_apply_runs_in_the_same_pass(torch, with_early_hook):
    assert late_post_hook(minigrad, with_early_hook) == late_post_hook(torch, with_early_hook)


# --- what a node hook may return ----------------------------------------------------------
def pre_short(grad_outputs):
    return ()


def pre_long(grad_outputs):
    return (grad_outputs[0], grad_outputs[0])


def post_short(grad_inputs, grad_outputs):
    return grad_inputs[:-1]


def post_long(grad_inputs, grad_outputs):
    return grad_inputs + (grad_inputs[0],)


def post_list(grad_inputs, grad_outputs):
    return list(grad_inputs)


def node_hook_error(T, kind, hook):
    """The error a pass raises when ``x * w``'s node hook returns ``hook``'s tuple."""
    x = T.tensor([1.0, 2.0], requires_grad=True)
    w = T.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    (y.grad_fn.register_prehook if kind == "pre" else y.grad_fn.register_hook)(hook)
    with pytest.raises(Exception) as info:
        y.sum().backward()
    return type(info.value).__name__, str(info.value)


@pytest.mark.parametrize("kind, hook", [("pre", pre_short), ("pre", pre_long), ("post", post_short),
                                        ("post", post_long), ("post", post_list)],
                         ids=["pre-shorter", "pre-longer", "post-shorter", "post-longer", "post-list"])
def test_a_node_hook_returning_the_wrong_number_of_values(torch, kind, hook):
    assert node_hook_error(minigrad, kind, hook) == node_hook_error(torch, kind, hook)
