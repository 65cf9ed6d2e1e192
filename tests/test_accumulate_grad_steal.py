"""AccumulateGrad's steal-or-copy rule (``autograd.graph.accumulate_into_grad``).

The differential scenarios e01 and h04 compare the rule with PyTorch's in subprocesses;
``test_steal_or_copy_as_torch_decides`` does it in this process, case by case. The
other tests pin down what only minigrad has: a watched pass (``record_events``, a stepped
``backward_steps``) holds references to the gradients and therefore copies, and the
count is measured, not assumed, so it holds on this Python version.
"""
import numpy as np
import pytest

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


def steal_or_copy(T):
    """For each case of the rule, whether ``.grad`` shares memory with the gradient the
    leaf received (or, for an expanded gradient, whether its elements do)."""
    def leaf():
        return T.tensor([1.0, 2.0], requires_grad=True)

    seen = {}
    x = leaf()

    def forgets(g):
        out = g * 10
        seen["forgotten"] = out.data_ptr()
        return out
    x.register_hook(forgets)
    (x * 3).sum().backward()
    seen["a hook's forgotten result is stolen"] = x.grad.data_ptr() == seen.pop("forgotten")

    x, kept = leaf(), []

    def keeps(g):
        kept.append(g * 10)
        return kept[-1]
    x.register_hook(keeps)
    (x * 3).sum().backward()
    seen["a result the hook keeps is copied"] = x.grad.data_ptr() != kept[0].data_ptr()

    x, g = leaf(), T.tensor([5.0, 6.0])
    x.backward(g)
    seen["the caller's gradient is copied"] = x.grad.data_ptr() != g.data_ptr()

    x = leaf()
    x.sum().backward()                      # one value seen twice (stride 0): copied
    x.grad[0] += 5
    seen["an expanded gradient is copied"] = x.grad.tolist() == [6.0, 1.0]

    a, b = leaf(), leaf()
    s = T.stack([b, a]).sum(0)
    (s + s).sum().backward()                # rows of one expanded buffer: both stolen
    seen["rows of one buffer are stolen and shared"] = a.grad.data_ptr() == b.grad.data_ptr()

    x = leaf()

    def under_create_graph(g):
        out = g * 1
        seen["create_graph"] = out.data_ptr()
        return out
    x.register_hook(under_create_graph)
    (x * x).sum().backward(create_graph=True)
    seen["create_graph copies"] = x.grad.data_ptr() != seen.pop("create_graph")
    return seen


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_steal_or_copy_as_torch_decides():
    torch = pytest.importorskip("torch")
    ours, theirs = steal_or_copy(minigrad), steal_or_copy(torch)
    assert ours == theirs
    assert all(theirs.values())             # each case says what torch does
