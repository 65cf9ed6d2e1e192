CLAIM = "Final callbacks run once, after every node, even when queued from inside a hook."
VERDICT = "true"
SOURCES = (
    ("queue_callback is described as the way to run code right after the backward pass "
     "finishes.",
     "https://github.com/pytorch/pytorch/pull/193958"),
    ("An issue reporting a callback that never fired because a nested (reentrant) pass cleared"
     " it; it proposes keeping callbacks per graph task.",
     "https://github.com/pytorch/pytorch/issues/24965"),
)
WHY = (
    "torch.autograd.Variable._execution_engine.queue_callback(cb) appends cb to the "
    "running graph task's list of final callbacks, so it can only be called while a "
    "backward pass is running (typically from a hook). After the last node of the task has "
    "finished, including AccumulateGrad and its post-accumulate hooks, the engine drains "
    "that list in FIFO order, re-reading its length, so a callback may queue further "
    "callbacks and they run in the same drain. Each queued callback runs exactly once. "
    "Outside a backward pass there is no graph task and queue_callback raises."
)


def run(torch):
    from ._util import L, try_call
    out = []
    engine = torch.autograd.Variable._execution_engine
    out.append(try_call("queue_callback outside backward", lambda: engine.queue_callback(lambda: None)))

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * 3

    def cb2():
        out.append(f"cb2 (queued by cb1) | x.grad = {L(x.grad)}")

    def cb1():
        out.append(f"cb1 | x.grad = {L(x.grad)} | grad enabled = {torch.is_grad_enabled()}")
        engine.queue_callback(cb2)

    def z_hook(g):
        out.append("z hook: queue cb1, then cb3")
        engine.queue_callback(cb1)
        engine.queue_callback(lambda: out.append("cb3"))

    z.register_hook(z_hook)
    y.register_hook(lambda g: out.append("y hook"))
    x.register_post_accumulate_grad_hook(lambda p: out.append("x post-accumulate hook"))
    z.sum().backward()
    out.append("backward returned")
    return out


def check(trace):
    from ._util import index_of
    assert trace[0] == ("queue_callback outside backward -> RuntimeError: Final callbacks can "
                        "only be installed during backward pass."), trace[0]
    last_node = index_of(trace, "x post-accumulate hook")
    cb1, cb3, cb2 = (index_of(trace, n) for n in ("cb1", "cb3", "cb2"))
    assert index_of(trace, "y hook") < last_node < cb1, "callbacks run after every node"
    assert cb1 < cb3 < cb2 < index_of(trace, "backward returned"), \
        "FIFO, and a callback queued by a callback runs in the same drain"
    assert sum(t.startswith("cb") for t in trace) == 3, "each callback runs exactly once"
    assert "cb1 | x.grad = [6.0, 6.0] | grad enabled = False" in trace
