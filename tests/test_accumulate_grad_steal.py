"""AccumulateGrad's steal-or-copy rule (``autograd.graph.accumulate_into_grad``).

The differential scenario e01 compares the rule with PyTorch's on plain passes; these
tests pin down what only minigrad has: a watched pass (``record_events``, a stepped
``backward_steps``) holds references to the gradients and therefore copies, and the
count is measured, not assumed, so it holds on this Python version.
"""
import numpy as np

import minigrad
from minigrad.autograd import graph
from minigrad.autograd.engine import backward_steps, record_events


def leaf_with_returning_hook(seen):
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)

    def hook(g):
        out = g * 10
        seen.append(out.data_ptr())
        return out
    x.register_hook(hook)
    return x


def test_a_forgotten_hook_result_is_stolen():
    seen = []
    x = leaf_with_returning_hook(seen)
    (x * 3).sum().backward()
    assert x.grad.data_ptr() == seen[0]
    assert x.grad.tolist() == [30.0, 30.0]


def test_a_recorded_pass_copies():
    seen = []
    x = leaf_with_returning_hook(seen)
    with record_events():
        (x * 3).sum().backward()
    assert x.grad.data_ptr() != seen[0]
    assert x.grad.tolist() == [30.0, 30.0]


def test_a_stepped_pass_copies():
    seen = []
    x = leaf_with_returning_hook(seen)
    events = list(backward_steps((x * 3).sum()))
    assert events and x.grad.data_ptr() != seen[0]
    assert x.grad.tolist() == [30.0, 30.0]


def test_use_count_counts_references():
    t = minigrad.tensor([1.0])
    holder = (t,)
    # held by ``t`` and ``holder``: one more than an object only its holder refers to
    assert graph._use_count(holder) == graph._HELD_ONLY_BY_HOLDER + 1


def test_a_read_only_gradient_is_copied():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    def read_only(g):
        array = np.array([5.0, 5.0], dtype=np.float32)
        array.flags.writeable = False        # laid out like x, so only this stops a steal
        return minigrad.Tensor._wrap(array)
    x.register_hook(read_only)
    (x * 3).sum().backward()
    assert x.grad._array.flags.writeable
    (x * 3).sum().backward()                 # in place into .grad: must not fail
    assert x.grad.tolist() == [10.0, 10.0]
