"""The engine's event stream (docs/architecture.md, "The engine's event stream").

``backward_steps`` is the real engine run one event at a time (the lessons' stepper
widget drives it), and ``record_events`` collects the events of ordinary
``backward()`` / ``autograd.grad`` calls (the hook timeline). These tests pin down
the documented order of events for one node, that a half-stepped pass abandoned by
the caller leaves nothing behind, and that stepping changes nothing about the result.
"""
import numpy as np
import pytest

import minigrad
from minigrad.autograd.engine import (backward_steps, current_graph_task_id, record_events)
from minigrad.autograd.graph import current_saved_tensors_hooks

ACC = "torch::autograd::AccumulateGrad"


def queue_callback(T, fn):
    T.autograd.Variable._execution_engine.queue_callback(fn)


def hooked_graph(T, log):
    """x, w leaves; y = x * w with a tensor hook (that queues a final callback),
    retain_grad, a node pre-hook and post-hook; a post-accumulate hook on x; loss = y.sum().
    Every hook appends to ``log``."""
    x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    w = T.tensor([3.0, 4.0], dtype=T.float64, requires_grad=True)
    y = x * w

    def tensor_hook(grad):
        log.append("tensor hook")
        queue_callback(T, lambda: log.append("callback"))

    y.register_hook(tensor_hook)
    y.retain_grad()
    y.grad_fn.register_prehook(lambda grad_outputs: log.append("pre hook"))
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: log.append("post hook"))
    x.register_post_accumulate_grad_hook(lambda t: log.append("post accumulate hook"))
    return x, w, y, y.sum()


EXPECTED = [
    ("node_start", "SumBackward0"),
    ("apply", "SumBackward0"),
    ("node_done", "SumBackward0"),
    ("node_start", "MulBackward0"),
    ("tensor_hook", "MulBackward0"),
    ("retain_grad", "MulBackward0"),
    ("pre_hook", "MulBackward0"),
    ("apply", "MulBackward0"),
    ("post_hook", "MulBackward0"),
    ("node_done", "MulBackward0"),
    ("node_start", ACC),                        # x: next edge 0 pops first
    ("apply", ACC),
    ("post_accumulate_hook", ACC),
    ("node_done", ACC),
    ("node_start", ACC),                        # w
    ("apply", ACC),
    ("node_done", ACC),
    ("callback", None),
]


def kinds_and_names(events):
    return [(e.kind, None if e.node is None else e.node.name()) for e in events]


def test_backward_steps_yields_the_documented_order():
    log = []
    x, w, y, loss = hooked_graph(minigrad, log)
    events = list(backward_steps(loss))
    assert kinds_and_names(events) == EXPECTED
    acc_nodes = [e.node for e in events if e.kind == "node_start" and e.node.name() == ACC]
    assert [n.variable for n in acc_nodes] == [x, w]
    assert log == ["tensor hook", "pre hook", "post hook", "post accumulate hook", "callback"]
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(y.grad.numpy(), [1.0, 1.0])


def test_events_carry_the_hook_and_its_arguments():
    log = []
    x, w, y, loss = hooked_graph(minigrad, log)
    events = list(backward_steps(loss))
    by_kind = {e.kind: e for e in events}
    mul = y.grad_fn
    assert by_kind["tensor_hook"].hook in y._backward_hooks.values()
    assert by_kind["pre_hook"].hook in mul._pre_hooks.values()
    assert by_kind["post_hook"].hook in mul._post_hooks.values()
    assert by_kind["post_accumulate_hook"].args == (x,)
    (grad,) = by_kind["tensor_hook"].args
    np.testing.assert_allclose(grad.numpy(), [1.0, 1.0])
    gx, gw = by_kind["post_hook"].args[0]       # (grad_inputs, grad_outputs)
    np.testing.assert_allclose(gx.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(gw.numpy(), [1.0, 2.0])
    assert by_kind["callback"].hook is not None and by_kind["callback"].node is None


def test_each_hook_has_run_when_its_event_arrives():
    """Interleave the hooks' own log with the stream: a hook event comes after the call."""
    log = []
    x, w, y, loss = hooked_graph(minigrad, log)
    hook_event = {"tensor_hook": "tensor hook", "pre_hook": "pre hook", "post_hook": "post hook",
                  "post_accumulate_hook": "post accumulate hook", "callback": "callback"}
    for event in backward_steps(loss):
        if event.kind in hook_event:
            assert log and log[-1] == hook_event[event.kind]


def test_hook_order_matches_torch():
    torch = pytest.importorskip("torch")
    m_log, t_log = [], []
    m_x, m_w, m_y, m_loss = hooked_graph(minigrad, m_log)     # keep y alive: retain_grad
    t_x, t_w, t_y, t_loss = hooked_graph(torch, t_log)         # of a dead tensor is a no-op
    with record_events() as events:
        m_loss.backward()
    t_loss.backward()
    assert m_log == t_log
    assert kinds_and_names(events) == EXPECTED
    np.testing.assert_allclose(m_y.grad.numpy(), t_y.grad.numpy())
    np.testing.assert_allclose(m_x.grad.numpy(), t_x.grad.numpy())


# --- stepping and abandoning -----------------------------------------------------------------------

def assert_engine_at_rest(grad_enabled=True):
    assert minigrad.is_grad_enabled() is grad_enabled
    assert current_graph_task_id() == -1
    assert current_saved_tensors_hooks() is None
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass."):
        queue_callback(minigrad, lambda: None)


@pytest.mark.parametrize("stop_after", ["node_done", "tensor_hook", "pre_hook", "apply"])
@pytest.mark.parametrize("abandon", ["close", "del"])
def test_abandoned_pass_leaves_state_clean(stop_after, abandon):
    log = []
    x, w, y, loss = hooked_graph(minigrad, log)
    steps = backward_steps(loss)
    for event in steps:
        if event.kind == stop_after:
            break
    assert_engine_at_rest()
    if abandon == "close":
        steps.close()
    else:
        del steps
    assert_engine_at_rest()
    assert x.grad is None and w.grad is None     # the AccumulateGrad nodes never ran
    assert "callback" not in log                 # queued callbacks of the pass never run
    # A new pass on a new graph works and sees no leftovers.
    log2 = []
    x2, w2, y2, loss2 = hooked_graph(minigrad, log2)
    loss2.backward()
    np.testing.assert_allclose(x2.grad.numpy(), [3.0, 4.0])
    assert log2 == ["tensor hook", "pre hook", "post hook", "post accumulate hook", "callback"]
    assert "callback" not in log


@pytest.mark.parametrize("caller_mode", [True, False])
@pytest.mark.parametrize("create_graph", [False, True])
def test_between_steps_the_callers_grad_mode_holds(caller_mode, create_graph):
    """Inside the pass (hooks) grad mode is ``create_graph`` and there is a current graph
    task; between two ``next()`` calls the caller's mode and no task."""
    x = minigrad.tensor([1.0, 2.0], dtype=minigrad.float64, requires_grad=True)
    y = x * x
    inside = []
    y.register_hook(lambda g: inside.append((minigrad.is_grad_enabled(), current_graph_task_id())))
    loss = y.sum()
    between = []
    with minigrad.set_grad_enabled(caller_mode):
        if create_graph:
            with pytest.warns(UserWarning, match="create_graph=True"):
                steps = backward_steps(loss, create_graph=create_graph)
        else:
            steps = backward_steps(loss)
        for _ in steps:
            between.append((minigrad.is_grad_enabled(), current_graph_task_id()))
        assert minigrad.is_grad_enabled() is caller_mode
    assert len(between) > 5
    assert all(b == (caller_mode, -1) for b in between)
    assert len(inside) == 1
    mode, task_id = inside[0]
    assert mode is create_graph and task_id != -1
    np.testing.assert_allclose(x.grad.detach().numpy(), [2.0, 4.0])
    assert x.grad.requires_grad is create_graph
    assert_engine_at_rest()


def test_a_second_pass_can_run_while_one_is_paused():
    """A paused stepped pass is not "current": an ordinary backward in between runs as
    its own task, and the paused one then completes correctly."""
    log = []
    x, w, y, loss = hooked_graph(minigrad, log)
    steps = backward_steps(loss)
    for event in steps:
        if event.kind == "pre_hook":
            break
    other = minigrad.tensor([5.0], dtype=minigrad.float64, requires_grad=True)
    (other * 2).sum().backward()
    np.testing.assert_allclose(other.grad.numpy(), [2.0])
    rest = list(steps)
    assert kinds_and_names(rest) == EXPECTED[EXPECTED.index(("pre_hook", "MulBackward0")) + 1:]
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])
    assert log.count("callback") == 1
    assert_engine_at_rest()


def _net(seed):
    rng = np.random.default_rng(seed)
    x = minigrad.tensor(rng.uniform(-1, 1, (3, 4)), dtype=minigrad.float64, requires_grad=True)
    w = minigrad.tensor(rng.uniform(-1, 1, (4, 2)), dtype=minigrad.float64, requires_grad=True)
    b = minigrad.tensor(rng.uniform(-1, 1, (2,)), dtype=minigrad.float64, requires_grad=True)
    h = (x @ w + b).tanh()
    loss = (h * h).sum() + h.softmax(1)[:, 0].sum() + x.exp().mean()
    return (x, w, b), loss


def test_exhausting_the_steps_gives_the_same_grads_as_backward():
    stepped, loss1 = _net(0)
    plain, loss2 = _net(0)
    n = sum(1 for _ in backward_steps(loss1))
    loss2.backward()
    assert n > 20
    for a, b in zip(stepped, plain):
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


def test_steps_take_backward_arguments():
    """retain_graph and inputs mean what they mean for backward()."""
    (x, w, b), loss = _net(1)
    list(backward_steps(loss, retain_graph=True))
    first = x.grad.numpy().copy()
    events = list(backward_steps(loss, inputs=[w]))
    np.testing.assert_allclose(x.grad.numpy(), first)          # x not accumulated again
    acc = [e.node.variable for e in events if e.kind == "apply" and e.node.name() == ACC]
    assert acc == [w]
    (x2, w2, b2), loss2 = _net(1)
    loss2.backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * w2.grad.numpy())


# --- record_events ------------------------------------------------------------------------------------

def test_record_events_collects_backward():
    log = []
    x, w, y, loss = hooked_graph(minigrad, log)
    with record_events() as events:
        loss.backward()
    assert kinds_and_names(events) == EXPECTED


def test_record_events_collects_autograd_grad():
    """autograd.grad: captures at the inputs, no AccumulateGrad runs, tensor hooks of a
    captured leaf still run."""
    x = minigrad.tensor([1.0, 2.0], dtype=minigrad.float64, requires_grad=True)
    w = minigrad.tensor([3.0, 4.0], dtype=minigrad.float64, requires_grad=True)
    x.register_hook(lambda g: None)
    loss = (x * w).exp().sum()
    with record_events() as events:
        (gx,) = minigrad.autograd.grad(loss, [x])
    assert kinds_and_names(events) == [
        ("node_start", "SumBackward0"), ("apply", "SumBackward0"), ("node_done", "SumBackward0"),
        ("node_start", "ExpBackward0"), ("apply", "ExpBackward0"), ("node_done", "ExpBackward0"),
        ("node_start", "MulBackward0"), ("apply", "MulBackward0"), ("node_done", "MulBackward0"),
        ("node_start", ACC), ("tensor_hook", ACC), ("capture", ACC),
    ]
    capture = events[-1]
    assert capture.node.variable is x
    np.testing.assert_allclose(capture.args[0].numpy(), gx.numpy())
    np.testing.assert_allclose(gx.numpy(),
                               w.detach().numpy() * np.exp(x.detach().numpy() * w.detach().numpy()))
    assert x.grad is None and w.grad is None


def test_record_events_collects_every_pass_inside_and_nothing_outside():
    x = minigrad.tensor([1.0], dtype=minigrad.float64, requires_grad=True)
    with record_events() as outer:
        (x * 2).sum().backward()
        with record_events() as inner:
            minigrad.autograd.grad((x * 3).sum(), [x])
    (x * 4).sum().backward()                     # not recorded
    starts = [e.node.name() for e in outer if e.kind == "node_start"]
    assert starts == ["SumBackward0", "MulBackward0", ACC, "SumBackward0", "MulBackward0", ACC]
    assert [e.node.name() for e in inner if e.kind == "node_start"] == \
        ["SumBackward0", "MulBackward0", ACC]
    assert outer[-len(inner):] == inner          # the inner pass went to both


def test_record_events_keeps_the_events_of_a_failed_pass():
    x = minigrad.tensor([1.0], dtype=minigrad.float64, requires_grad=True)
    y = x * 2

    def boom(grad):
        raise ValueError("boom")

    y.register_hook(boom)
    with record_events() as events:
        with pytest.raises(ValueError):
            y.sum().backward()
    assert kinds_and_names(events) == [("node_start", "SumBackward0"), ("apply", "SumBackward0"),
                                       ("node_done", "SumBackward0"), ("node_start", "MulBackward0")]
    assert_engine_at_rest()
