"""Tests for minigrad.viz: graph drawing, event formatting, the stepper widget, grad flow.

Graph drawing only needs PyTorch's graph API (``grad_fn``, ``next_functions``,
``AccumulateGrad.variable``), so those tests run against real torch (skipped
if torch is absent) and against minigrad once ``minigrad.tensor`` exists.
The stepper is tested on minigrad's real engine (``backward_steps``, whose
events carry the engine's state) and on hand-made or recorded event lists
(replays, which carry none).
"""

from collections import namedtuple

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from minigrad.viz import (  # noqa: E402
    GradFlowMonitor, draw_graph, format_events, graph_nodes, hook_timeline, plot_grad_flow)
from minigrad.viz._common import node_name  # noqa: E402
from minigrad.viz.drawing import HIGHLIGHT_COLOR  # noqa: E402

pytest.importorskip("ipywidgets")
from minigrad.viz.stepper import EngineStepper  # noqa: E402

# The shape of minigrad.autograd.engine.EngineEvent, for hand-made event lists.
Event = namedtuple("EngineEvent", "kind node hook args")

A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
B = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -2.0]])


@pytest.fixture(autouse=True)
def _close_figures():
    import matplotlib.pyplot as plt
    yield
    plt.close("all")


# --------------------------------------------------------------------------- backends
def _engine():
    """minigrad's engine module."""
    from minigrad.autograd import engine
    return engine


def _framework(name):
    if name == "torch":
        return pytest.importorskip("torch")
    import minigrad
    return minigrad


@pytest.fixture(params=["torch", "minigrad"])
def fw(request):
    """The framework to build graphs with: real torch, or minigrad (`import minigrad as torch`)."""
    return _framework(request.param)


@pytest.fixture(params=["torch", "minigrad"])
def fw_with_engine(request):
    """Like ``fw``, but minigrad only once its engine can run backward."""
    if request.param == "minigrad":
        _engine()
    return _framework(request.param)


def leaves(fw):
    a = fw.tensor(A.copy(), requires_grad=True)
    b = fw.tensor(B.copy(), requires_grad=True)
    return a, b


def names(nodes):
    return [node_name(n) for n in nodes]


# --------------------------------------------------------------------------- graph
def test_graph_nodes_order_and_count(fw):
    # `a` is used twice: its AccumulateGrad must appear once (deduplicated),
    # reached first through AddBackward0's second input (breadth-first).
    a, b = leaves(fw)
    y = (a * b + a).sum()
    nodes = graph_nodes(y)
    assert names(nodes) == ["SumBackward0", "AddBackward0", "MulBackward0",
                            "AccumulateGrad", "AccumulateGrad"]
    assert nodes[3].variable is a and nodes[4].variable is b
    assert nodes[0] is y.grad_fn
    # a node is accepted as a root too, and the order is stable
    assert [id(n) for n in graph_nodes(y.grad_fn)] == [id(n) for n in nodes]


def test_graph_nodes_skips_inputs_without_grad(fw):
    a, _ = leaves(fw)
    c = fw.tensor(B.copy())  # requires_grad=False: a None slot in next_functions
    y = (a * c).sum()
    assert names(graph_nodes(y)) == ["SumBackward0", "MulBackward0", "AccumulateGrad"]


def test_draw_graph_one_text_per_node_with_names(fw):
    a, b = leaves(fw)
    y = (a * b + a).sum()
    ax = draw_graph(y, labels={a: "a"})
    texts = [t.get_text() for t in ax.texts]
    # unlabelled leaves show their shape (as torchviz does), labelled ones name + shape
    assert texts == ["SumBackward0", "AddBackward0", "MulBackward0", "a\n(2, 3)", "(2, 3)"]
    # root on top, each node strictly below the nodes that feed it a gradient
    y_of = {t.get_text(): t.get_position()[1] for t in ax.texts}
    assert y_of["SumBackward0"] > y_of["AddBackward0"] > y_of["MulBackward0"] > y_of["a\n(2, 3)"]
    assert y_of["a\n(2, 3)"] == y_of["(2, 3)"]


def test_draw_graph_hides_leaves(fw):
    a, b = leaves(fw)
    ax = draw_graph((a * b + a).sum(), show_leaves=False)
    assert [t.get_text() for t in ax.texts] == ["SumBackward0", "AddBackward0", "MulBackward0"]


def test_draw_graph_highlight_colours_only_the_chosen_node(fw):
    a, b = leaves(fw)
    m = a * b
    y = (m + a).sum()
    ax = draw_graph(y, highlight=m.grad_fn)
    faces = {t.get_text(): t.get_bbox_patch().get_facecolor() for t in ax.texts}
    assert faces["MulBackward0"] == to_rgba(HIGHLIGHT_COLOR)
    assert [k for k, v in faces.items() if v == to_rgba(HIGHLIGHT_COLOR)] == ["MulBackward0"]
    # a set highlights several
    ax = draw_graph(y, highlight={m.grad_fn, y.grad_fn})
    marked = [t.get_text() for t in ax.texts
              if t.get_bbox_patch().get_facecolor() == to_rgba(HIGHLIGHT_COLOR)]
    assert marked == ["SumBackward0", "MulBackward0"]


def test_draw_graph_is_deterministic(fw):
    a, b = leaves(fw)
    h = a * b + a
    y = (h.exp() * b).sum() + h.mean()  # a long edge (Mean -> Add) gets bend points
    pos1 = [t.get_position() for t in draw_graph(y).texts]
    pos2 = [t.get_position() for t in draw_graph(y).texts]
    assert pos1 == pos2 and len(pos1) == len(graph_nodes(y))


def test_draw_graph_rejects_a_leaf_root(fw):
    a, _ = leaves(fw)
    with pytest.raises(ValueError, match="no grad_fn"):
        draw_graph(a)


# --------------------------------------------------------------------------- events
def log_pre(grad_outputs):
    return None


def on_leaf(param):
    return None


def _hand_made_events(fw):
    a, b = leaves(fw)
    y = (a * b).sum()
    s = y.grad_fn
    m = s.next_functions[0][0]
    acc_a, acc_b = m.next_functions[0][0], m.next_functions[1][0]
    one, g = fw.tensor(1.0), fw.tensor(np.ones((2, 3)))
    events = [
        Event("node_start", s, None, (one,)),
        Event("apply", s, None, (one,)),
        Event("node_done", s, None, (g,)),
        Event("node_start", m, None, (g,)),
        Event("pre_hook", m, log_pre, (g,)),
        Event("apply", m, None, (g,)),
        Event("node_done", m, None, (g, g)),
        Event("node_start", acc_a, None, (g,)),
        Event("apply", acc_a, None, (g,)),
        Event("post_accumulate_hook", acc_a, on_leaf, (a,)),
        Event("node_done", acc_a, None, ()),
        Event("node_start", acc_b, None, (g,)),
        Event("apply", acc_b, None, (g,)),
        Event("node_done", acc_b, None, ()),
        Event("callback", None, print, ()),
    ]
    return events, (a, b, y)


def test_format_events_hand_made():
    fw = _framework("torch")
    events, (a, b, y) = _hand_made_events(fw)
    lines = format_events(events, labels={a: "a"})
    assert lines[:5] == [
        " 1. node_start           SumBackward0",
        " 2. apply                SumBackward0",
        " 3. node_done            SumBackward0",
        " 4. node_start           MulBackward0",
        " 5. pre_hook             MulBackward0       hook=log_pre",
    ]
    assert lines[9] == "10. post_accumulate_hook AccumulateGrad(a)  hook=on_leaf"
    assert lines[14] == "15. callback             (engine)           hook=print"
    with_args = format_events(events[:5], show_args=True)
    assert with_args[0] == "1. node_start SumBackward0  args=(tensor(1.),)"
    assert with_args[4] == ("5. pre_hook   MulBackward0  hook=log_pre  "
                            "args=(tensor(shape=(2, 3), mean=1),)")


def test_hook_timeline_one_marker_per_event():
    fw = _framework("torch")
    events, (a, b, y) = _hand_made_events(fw)
    ax = hook_timeline(events, labels={a: "a"})
    assert sum(len(c.get_offsets()) for c in ax.collections) == len(events)
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "SumBackward0", "MulBackward0", "AccumulateGrad(a)", "AccumulateGrad", "(engine)"]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["node_start", "pre_hook", "apply", "post_accumulate_hook",
                      "node_done", "callback"]
    # the pre_hook marker sits at step 5 on MulBackward0's row (row 1)
    pre = ax.collections[legend.index("pre_hook")].get_offsets()
    assert pre.tolist() == [[5.0, 1.0]]


def _record_minigrad_pass():
    engine = _engine()
    import minigrad
    a, b = leaves(minigrad)
    y = (a * b).sum()
    y.grad_fn.next_functions[0][0].register_prehook(log_pre)
    with engine.record_events() as recorded:
        y.backward()
    return list(recorded), (a, b, y)


def test_format_events_recorded_from_minigrad_engine():
    events, (a, b, y) = _record_minigrad_pass()
    lines = format_events(events, labels={a: "a", b: "b"})
    assert len(lines) == len(events) > 0
    kinds = [e.kind for e in events]
    assert kinds[0] == "node_start" and node_name(events[0].node) == "SumBackward0"
    pre = [ln for ln in lines if " pre_hook " in ln]
    assert len(pre) == 1 and "MulBackward0" in pre[0] and pre[0].endswith("hook=log_pre")
    assert all("0x" not in ln for ln in lines)  # no addresses
    # the same pass recorded again reads the same
    assert format_events(_record_minigrad_pass()[0]) == format_events(events)
    ax = hook_timeline(events)
    assert sum(len(c.get_offsets()) for c in ax.collections) == len(events)


# --------------------------------------------------------------------------- stepper
def _items(stepper):
    return stepper.event_list.value.count("<li")


def test_stepper_over_recorded_list_steps_resets_and_finishes():
    import matplotlib.pyplot as plt
    fw = _framework("torch")
    events, (a, b, y) = _hand_made_events(fw)
    plt.close("all")
    st = EngineStepper(events, roots=y, labels={a: "a"})
    assert st.events == [] and st.current is None and _items(st) == 0
    png0 = st.graph.value
    assert st.step() is events[0]
    assert st.events == events[:1] and _items(st) == 1
    st.step()
    assert st.current is events[1] and _items(st) == 2
    assert 'style="background' in st.event_list.value.split("<li")[-1]  # newest marked
    assert st.graph.value != png0  # the running node is highlighted
    st.run_to_end()
    assert st.done and st.events == events and st.step() is None
    assert st.step_button.disabled and "done" in st.status.value
    st.reset()
    assert st.events == [] and not st.done and _items(st) == 0
    assert plt.get_fignums() == []  # the frames are rendered without pyplot
    assert "minigrad-stepper" in st._dom_classes
    assert "minigrad-event-list" in st.event_list._dom_classes


def test_stepper_single_generator_cannot_reset():
    fw = _framework("torch")
    events, (a, b, y) = _hand_made_events(fw)
    st = EngineStepper(iter(events), roots=y)
    st.run_to_end()
    assert len(st.events) == len(events)
    with pytest.raises(RuntimeError, match="cannot be restarted"):
        st.reset()


def test_stepper_drives_the_real_engine_from_a_loss():
    _engine()
    import minigrad
    a, b = leaves(minigrad)
    y = (a * b).sum()
    st = EngineStepper(y, labels={a: "a", b: "b"})
    first = st.step()
    assert len(st.events) == 1 and st.current is first and _items(st) == 1
    assert first.kind == "node_start" and first.node is y.grad_fn
    assert a.grad is None  # the pass is paused: nothing accumulated yet
    st.step()
    assert len(st.events) == 2 and _items(st) == 2
    st.run_to_end()
    assert st.done
    np.testing.assert_allclose(a.grad.detach().numpy(), B)
    np.testing.assert_allclose(b.grad.detach().numpy(), A)
    st.reset()  # restores the leaves' grads, so a second run does not double them
    assert st.events == [] and a.grad is None
    st.run_to_end()
    np.testing.assert_allclose(a.grad.detach().numpy(), B)


def test_stepper_factory_rebuilds_the_graph_on_reset():
    engine = _engine()
    import minigrad
    built = []

    def fresh_pass():
        a, b = leaves(minigrad)
        y = (a * b).sum()
        built.append(a)
        return y, engine.backward_steps(y)

    st = EngineStepper(fresh_pass)
    st.step()
    st.step()
    st.reset()
    assert len(built) == 2 and st.events == []
    n = len(st.run_to_end())
    assert n > 2 and built[-1].grad is not None and built[0].grad is None


# --------------------------------------------------------------------- the engine's state
def _branching_pass():
    """loss = (sin(y) + y).sum() with y = x * w: MulBackward0 gets two gradients."""
    import minigrad
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    w = minigrad.tensor([3.0, -1.0], requires_grad=True)
    y = x * w
    loss = (y.sin() + y).sum()
    add = loss.grad_fn.next_functions[0][0]
    sin = add.next_functions[0][0]
    mul = y.grad_fn
    acc_x, acc_w = mul.next_functions[0][0], mul.next_functions[1][0]
    return x, w, y, loss, dict(sum=loss.grad_fn, add=add, sin=sin, mul=mul, x=acc_x, w=acc_w)


def _counts(state, n):
    return {name: state.dependencies[node] for name, node in n.items() if name != "sum"}


def test_stepped_events_carry_the_engine_state():
    engine = _engine()
    x, w, y, loss, n = _branching_pass()
    events = list(engine.backward_steps(loss))
    kinds = [(e.kind, e.node) for e in events]
    # After the first step the root is popped: the queue is empty, nothing gathered,
    # and every count is the number of edges into that node (Mul is used twice).
    first = events[0].state
    assert kinds[0] == ("node_start", n["sum"])
    assert first.queue == () and first.buffers == {}
    assert _counts(first, n) == dict(add=1, sin=1, mul=2, x=1, w=1)
    assert n["sum"] not in first.dependencies   # the root has no incoming edge

    # The root handed its gradient on: Add is ready, queued with its sequence number.
    done_sum = events[kinds.index(("node_done", n["sum"]))].state
    assert [(seq, node) for seq, node, _ in done_sum.queue] == [(n["add"]._seq, n["add"])]
    np.testing.assert_allclose(done_sum.queue[0][2][0], [1.0, 1.0])
    assert _counts(done_sum, n) == dict(add=0, sin=1, mul=2, x=1, w=1)

    # Add gave Sin its gradient (ready) and Mul its first one (still waiting for Sin).
    done_add = events[kinds.index(("node_done", n["add"]))].state
    assert [node for _, node, _ in done_add.queue] == [n["sin"]]
    assert _counts(done_add, n) == dict(add=0, sin=0, mul=1, x=1, w=1)
    assert list(done_add.buffers) == [n["mul"]]
    np.testing.assert_allclose(done_add.buffers[n["mul"]][0], [1.0, 1.0])

    # Sin's gradient completes Mul's buffer: 1 + cos(y), summed in the input buffer.
    done_sin = events[kinds.index(("node_done", n["sin"]))].state
    assert done_sin.buffers == {} and _counts(done_sin, n)["mul"] == 0
    (seq, node, buffer), = done_sin.queue
    assert (seq, node) == (n["mul"]._seq, n["mul"])
    np.testing.assert_allclose(buffer[0], 1 + np.cos([3.0, -2.0]), rtol=1e-6)

    # Both leaves become ready at once, with AccumulateGrad's UINT64_MAX.
    done_mul = events[kinds.index(("node_done", n["mul"]))].state
    assert [(seq, node) for seq, node, _ in done_mul.queue] == \
        [(2 ** 64 - 1, n["x"]), (2 ** 64 - 1, n["w"])]
    g = 1 + np.cos([3.0, -2.0])
    np.testing.assert_allclose(done_mul.queue[0][2][0], g * [3.0, -1.0], rtol=1e-6)
    np.testing.assert_allclose(done_mul.queue[1][2][0], g * [1.0, 2.0], rtol=1e-6)
    assert all(v == 0 for v in done_mul.dependencies.values())
    assert events[-1].state.queue == ()


def test_engine_state_is_a_copy_and_recorded_events_have_none():
    engine = _engine()
    import minigrad
    x, w, y, loss, n = _branching_pass()
    steps = engine.backward_steps(loss, retain_graph=True)
    events = [next(steps) for _ in range(6)]         # up to Add's node_done
    state = events[-1].state
    buffered = state.buffers[n["mul"]][0]
    assert isinstance(buffered, np.ndarray)           # a copy, no gradient tensor kept
    state.dependencies[n["mul"]] = 99
    buffered[...] = 0.0
    list(steps)
    np.testing.assert_allclose(x.grad.numpy(), (1 + np.cos([3.0, -2.0])) * [3.0, -1.0],
                               rtol=1e-6)
    with engine.record_events() as recorded:
        loss.backward()
    assert recorded and all(e.state is None for e in recorded)
    assert isinstance(recorded[0], minigrad.autograd.engine.EngineEvent)


def _hooked_pass():
    """Every kind of hook a backward pass can fire, some twice."""
    from minigrad.autograd.engine import queue_callback
    x, w, y, loss, n = _branching_pass()
    y.retain_grad()

    def double(g):
        return g * 2

    def log_pre(grads):
        return None

    def log_post(grad_inputs, grad_outputs):
        queue_callback(at_the_end)

    def after(t):
        pass

    def at_the_end():
        pass

    y.register_hook(double)
    y.register_hook(double)
    n["mul"].register_prehook(log_pre)
    n["mul"].register_hook(log_post)
    n["add"].register_prehook(log_pre)
    x.register_post_accumulate_grad_hook(after)
    w.register_hook(double)
    return x, w, loss, n, (double, log_pre, log_post, after, at_the_end)


def test_predict_next_matches_what_the_engine_does_next():
    from minigrad.viz.stepper import HOOK_KINDS, predict_next
    engine = _engine()
    x, w, loss, n, hooks = _hooked_pass()
    events = []
    predictions = []
    for event in engine.backward_steps(loss):
        if events:
            step, _ = predictions[-1]
            assert step is not None, f"predicted the end before {event.kind}"
            assert step == (event.kind, event.node, event.hook), \
                f"after {events[-1].kind}: predicted {step[:2]}, engine did {event.kind}"
        events.append(event)
        predictions.append(predict_next(events))
    assert predictions[-1] == (None, None)            # the pass is over
    fired = [i for i, e in enumerate(events) if e.kind in HOOK_KINDS]
    assert {events[i].hook for i in fired} == set(hooks)
    # Whenever a hook is predicted, it is the next hook the engine fires.
    for i, (_, hook) in enumerate(predictions):
        if hook is not None:
            j = next(k for k in fired if k > i)
            assert hook == (events[j].kind, events[j].node, events[j].hook)
    # At Sin's node_done the queue holds Mul: its first hook is the tensor hook.
    i = next(i for i, e in enumerate(events) if (e.kind, e.node) == ("node_done", n["sin"]))
    assert predictions[i][1] == ("tensor_hook", n["mul"], hooks[0])
    with pytest.raises(LookupError, match="not recorded"):
        predict_next([Event("node_start", n["sum"], None, ())])


def test_stepper_panels_show_queue_counts_buffers_and_next_hook():
    from minigrad.viz._common import NODE_COLORS
    from tests.browser_support import html_text
    x, w, loss, n, hooks = _hooked_pass()
    st = EngineStepper(loss, labels={x: "x", w: "w"})
    for panel in (st.next_hook, st.queue, st.deps, st.buffers):
        assert "has not started" in panel.value
    assert {"minigrad-queue", "minigrad-deps", "minigrad-buffers", "minigrad-next-hook",
            "minigrad-legend"} <= {c for wdg in (st.queue, st.deps, st.buffers, st.next_hook,
                                                 st.legend) for c in wdg._dom_classes}
    assert NODE_COLORS["ready"] in st.legend.value and "pre_hook" in st.legend.value

    st.step()                                          # node_start SumBackward0
    assert html_text(st.queue.value).endswith("empty")
    assert html_text(st.deps.value) == ("Dependencies left AddBackward0 1 SinBackward0 1 "
                                        "MulBackward0 2 AccumulateGrad(x) 1 "
                                        "AccumulateGrad(w) 1")
    assert html_text(st.next_hook.value).startswith(
        "Next hook: none left at SumBackward0")
    assert st.node_states() == {n["sum"]: "running"}
    while (st.current.kind, st.current.node) != ("node_done", n["add"]):
        st.step()
    assert html_text(st.queue.value) == \
        f"Ready queue (pops from the top) SinBackward0 seq {n['sin']._seq}"
    assert "MulBackward0 1" in html_text(st.deps.value)
    assert html_text(st.buffers.value) == ("Input buffers (gradients gathered) "
                                           "SinBackward0 [1., 1.] MulBackward0 [1., 1.]")
    assert st.node_states() == {n["sum"]: "done", n["add"]: "done", n["sin"]: "ready",
                                n["mul"]: "waiting"}
    st.step()                                          # node_start SinBackward0
    assert html_text(st.buffers.value).startswith(
        "Input buffers (gradients gathered) SinBackward0 [1., 1.] MulBackward0")
    while (st.current.kind, st.current.node) != ("node_done", n["mul"]):
        st.step()
    assert html_text(st.queue.value) == ("Ready queue (pops from the top) "
                                         "AccumulateGrad(x) seq UINT64_MAX "
                                         "AccumulateGrad(w) seq UINT64_MAX")
    # x has a post-accumulate hook; w's tensor hook fires later.
    assert html_text(st.next_hook.value).startswith(
        "Next hook: after (post_accumulate_hook at AccumulateGrad(x))")
    st.run_to_end()
    assert html_text(st.next_hook.value).startswith("Next hook: none: the pass ends")


def test_stepper_replay_panels_say_not_recorded():
    fw = _framework("torch")
    events, (a, b, y) = _hand_made_events(fw)
    st = EngineStepper(events, roots=y)
    st.step()
    for panel in (st.next_hook, st.queue, st.deps, st.buffers):
        assert "not recorded" in panel.value
    assert st.node_states() is None


def test_one_colour_legend_for_graph_timeline_and_stepper():
    from minigrad.viz import drawing, timeline
    from minigrad.viz._common import KIND_COLORS, NODE_COLORS
    assert drawing.HIGHLIGHT_COLOR == NODE_COLORS["running"]
    assert drawing.LEAF_COLOR == NODE_COLORS["leaf"]
    assert {k: v["color"] for k, v in timeline.KIND_STYLE.items()} == KIND_COLORS
    x, w, y, loss, n = _branching_pass()
    ax = draw_graph(loss, states={n["add"]: "ready", n["mul"]: "waiting", n["sum"]: "done"})
    faces = {t.get_text(): t.get_bbox_patch().get_facecolor() for t in ax.texts}
    assert faces["AddBackward0"] == to_rgba(NODE_COLORS["ready"])
    assert faces["MulBackward0"] == to_rgba(NODE_COLORS["waiting"])
    assert faces["SumBackward0"] == to_rgba(NODE_COLORS["done"])
    assert faces["SinBackward0"] == to_rgba(NODE_COLORS["node"])
    with pytest.raises(ValueError, match="unknown node state"):
        draw_graph(loss, states={n["add"]: "purple"})


# --------------------------------------------------------------------------- grad flow
def _tiny_mlp_params(fw):
    rng = np.random.default_rng(0)
    w1 = fw.tensor(rng.normal(size=(3, 4)), requires_grad=True)
    w2 = fw.tensor(rng.normal(size=(4, 1)), requires_grad=True)
    return [("layer1.weight", w1), ("layer2.weight", w2)]


def _train_step(params, x):
    (_, w1), (_, w2) = params
    loss = ((x @ w1).tanh() @ w2).sum()
    for _, p in params:
        p.grad = None
    loss.backward()


def test_grad_flow_monitor_records_one_entry_per_step(fw_with_engine):
    fw = fw_with_engine
    params = _tiny_mlp_params(fw)
    x = fw.tensor(np.linspace(-1, 1, 6).reshape(2, 3))
    monitor = GradFlowMonitor(params)
    for _ in range(3):
        _train_step(params, x)
    assert monitor.steps == 3
    assert {k: len(v) for k, v in monitor.history.items()} == {
        "layer1.weight": 3, "layer2.weight": 3}
    expected = float(np.linalg.norm(np.asarray(params[1][1].grad.detach().numpy()).ravel()))
    assert monitor.history["layer2.weight"][-1] == pytest.approx(expected)
    ax = monitor.plot()
    assert len(ax.lines) == 2
    monitor.remove()
    monitor.remove()  # idempotent
    _train_step(params, x)
    assert monitor.steps == 3  # hooks are gone


def test_plot_grad_flow_bars(fw_with_engine):
    fw = fw_with_engine
    params = _tiny_mlp_params(fw)
    unused = fw.tensor(np.ones(2), requires_grad=True)
    _train_step(params, fw.tensor(np.linspace(-1, 1, 6).reshape(2, 3)))
    ax = plot_grad_flow(params + [("unused", unused)], log=True)
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "layer1.weight", "layer2.weight", "unused (no grad)"]
    assert len(ax.patches) == 6  # max and mean bar per parameter
    assert ax.get_yscale() == "log"
    with pytest.raises(ValueError, match="backward"):
        plot_grad_flow([("unused", unused)])
