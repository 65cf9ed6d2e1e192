"""The exercise checks of lessons 04-07: a right answer gets ✅, typical wrong answers get
a specific ❌, a stub gets "not implemented yet", and no check ever raises."""
import numpy as np

import minigrad as torch
from minigrad.viz import graph_nodes


from exercise_support import stub
from exercise_support import verdict as _verdict


def verdict(check, fn, capsys):
    """(ok, message) of the check's verdict on ``fn``."""
    result = _verdict(check, fn, capsys)
    return result, result.message


# --- lesson 04 ---------------------------------------------------------------------------
from minigrad.exercises import lesson04 as l04


def find_failing_pre(loss):
    running = []
    for node in graph_nodes(loss):
        node.register_prehook(lambda go, node=node: running.append(node.name()))
    try:
        loss.backward()
    except RuntimeError:
        return running[-1]
    return None


def find_failing_post(loss):          # the seed's first attempt: last success, not the culprit
    done = []
    for node in graph_nodes(loss):
        node.register_hook(lambda gi, go, node=node: done.append(node.name()))
    try:
        loss.backward()
    except RuntimeError:
        return done[-1] if done else "nothing"
    return None


def find_failing_uncaught(loss):
    for node in graph_nodes(loss):
        node.register_prehook(lambda go: None)
    loss.backward()
    return None


def test_l04_find_failing_node(capsys):
    assert verdict(l04.check_find_failing_node, find_failing_pre, capsys)[0]
    ok, msg = verdict(l04.check_find_failing_node, find_failing_post, capsys)
    assert not ok and "last node that *finished*" in msg and "register_prehook" in msg
    ok, msg = verdict(l04.check_find_failing_node, find_failing_uncaught, capsys)
    assert not ok and "escaped" in msg
    ok, msg = verdict(l04.check_find_failing_node, lambda loss: [find_failing_pre(loss)], capsys)
    assert not ok and "return one node name (a str)" in msg
    ok, msg = verdict(l04.check_find_failing_node, stub, capsys)
    assert not ok and "not implemented yet" in msg


def scale_right(factor):
    def hook(gi, go):
        return tuple(None if g is None else g * factor for g in gi)
    return hook


def scale_ignores_none(factor):
    def hook(gi, go):
        return tuple(g * factor for g in gi)
    return hook


def scale_fills_none(factor):
    def hook(gi, go):
        return tuple(torch.ones(2) if g is None else g * factor for g in gi)
    return hook


def scale_list(factor):
    def hook(gi, go):
        return [None if g is None else g * factor for g in gi]
    return hook


def scale_wrong_values(factor):
    def hook(gi, go):
        return tuple(None if g is None else g + factor for g in gi)
    return hook


def test_l04_scale_post_hook(capsys):
    assert verdict(l04.check_scale_post_hook, scale_right, capsys)[0]
    ok, msg = verdict(l04.check_scale_post_hook, scale_ignores_none, capsys)
    assert not ok and "Keep None entries as None" in msg
    ok, msg = verdict(l04.check_scale_post_hook, scale_fills_none, capsys)
    assert not ok and "can't replace a None gradient" in msg
    ok, msg = verdict(l04.check_scale_post_hook, scale_list, capsys)
    assert not ok and "expected tuple, but hook returned 'list'" in msg
    ok, msg = verdict(l04.check_scale_post_hook, scale_wrong_values, capsys)
    assert not ok and "a.grad has the right shape but wrong values at index 0" in msg
    ok, msg = verdict(l04.check_scale_post_hook, stub, capsys)
    assert not ok and "not implemented yet" in msg


def replay_right(node, grad_outputs, input_shapes):
    with torch.no_grad():
        out = node(*grad_outputs)
    if not isinstance(out, tuple):
        out = (out,)
    return tuple(g.sum_to_size(s) for g, s in zip(out, input_shapes))


def replay_unreduced(node, grad_outputs, input_shapes):
    with torch.no_grad():
        out = node(*grad_outputs)
    return out if isinstance(out, tuple) else (out,)


def replay_bare(node, grad_outputs, input_shapes):
    with torch.no_grad():
        out = node(*grad_outputs)
    if isinstance(out, tuple):
        return tuple(g.sum_to_size(s) for g, s in zip(out, input_shapes))
    return out.sum_to_size(input_shapes[0])


def replay_grad_mode(node, grad_outputs, input_shapes):
    out = node(*grad_outputs)
    out = out if isinstance(out, tuple) else (out,)
    return tuple(g.sum_to_size(s) for g, s in zip(out, input_shapes))


def test_l04_replay(capsys):
    assert verdict(l04.check_replay, replay_right, capsys)[0]
    ok, msg = verdict(l04.check_replay, replay_unreduced, capsys)
    assert not ok and "gradient 1 has shape [2, 3], expected [3]" in msg and "sum_to_size" in msg
    ok, msg = verdict(l04.check_replay, replay_bare, capsys)
    assert not ok and "ONE input" in msg and "wrap it in a tuple" in msg
    ok, msg = verdict(l04.check_replay, replay_grad_mode, capsys)
    assert not ok and "torch.no_grad()" in msg
    ok, msg = verdict(l04.check_replay, stub, capsys)
    assert not ok and "not implemented yet" in msg


# --- lesson 05 ---------------------------------------------------------------------------
from minigrad.autograd.graph import register_multi_grad_hook
from minigrad.exercises import lesson05 as l05


def _norm(grads):
    return sum(float((g.numpy() ** 2).sum()) for g in grads if g is not None) ** 0.5


def norm_right(params, norms):
    return register_multi_grad_hook(params, lambda grads: norms.append(_norm(grads)))


def norm_per_tensor(params, norms):
    return [p.register_hook(lambda g: norms.append(_norm([g]))) for p in params][0]


def norm_reads_dot_grad(params, norms):
    return register_multi_grad_hook(params, lambda grads: norms.append(_norm([p.grad for p in params])))


def norm_keeps_none(params, norms):
    return register_multi_grad_hook(
        params, lambda grads: norms.append(sum(float((g.numpy() ** 2).sum()) for g in grads) ** 0.5))


def norm_no_handle(params, norms):
    register_multi_grad_hook(params, lambda grads: norms.append(_norm(grads)))


def test_l05_grad_norm_when_ready(capsys):
    assert verdict(l05.check_grad_norm_when_ready, norm_right, capsys)[0]
    ok, msg = verdict(l05.check_grad_norm_when_ready, norm_per_tensor, capsys)
    assert not ok and "appended 2 value(s)" in msg and "once per pass" in msg
    ok, msg = verdict(l05.check_grad_norm_when_ready, norm_reads_dot_grad, capsys)
    assert not ok and "p.grad" in msg
    ok, msg = verdict(l05.check_grad_norm_when_ready, norm_keeps_none, capsys)
    assert not ok and "skip None entries" in msg
    ok, msg = verdict(l05.check_grad_norm_when_ready, norm_no_handle, capsys)
    assert not ok and "return the handle" in msg
    ok, msg = verdict(l05.check_grad_norm_when_ready, stub, capsys)
    assert not ok and "not implemented yet" in msg


def all_right(tensors, fn):
    state = {"n": 0, "grads": [None] * len(tensors)}

    def make(i):
        def hook(g):
            state["grads"][i] = g
            state["n"] += 1
            if state["n"] == len(tensors):
                grads, state["grads"], state["n"] = state["grads"], [None] * len(tensors), 0
                fn(grads)
        return hook
    return [t.register_hook(make(i)) for i, t in enumerate(tensors)]


def all_every_hook(tensors, fn):
    return [t.register_hook(lambda g: fn([g])) for t in tensors]


def all_no_reset(tensors, fn):
    state = {"n": 0, "grads": [None] * len(tensors)}

    def make(i):
        def hook(g):
            state["grads"][i] = g
            state["n"] += 1
            if state["n"] == len(tensors):
                fn(list(state["grads"]))
        return hook
    return [t.register_hook(make(i)) for i, t in enumerate(tensors)]


def all_arrival_order(tensors, fn):
    state = {"grads": []}

    def hook(g):
        state["grads"].append(g)
        if len(state["grads"]) == len(tensors):
            grads, state["grads"] = state["grads"], []
            fn(grads)
    return [t.register_hook(hook) for t in tensors]


def test_l05_my_all_hook(capsys):
    assert verdict(l05.check_my_all_hook, all_right, capsys)[0]
    ok, msg = verdict(l05.check_my_all_hook, all_every_hook, capsys)
    assert not ok and "fn was called 3 time(s), expected once" in msg
    ok, msg = verdict(l05.check_my_all_hook, all_no_reset, capsys)
    assert not ok and "backward pass 2: fn was called 0 time(s)" in msg
    ok, msg = verdict(l05.check_my_all_hook, all_arrival_order, capsys)
    assert not ok and "in the order they arrived" in msg
    ok, msg = verdict(l05.check_my_all_hook, stub, capsys)
    assert not ok and "not implemented yet" in msg


# --- lesson 06 ---------------------------------------------------------------------------
from minigrad.autograd.graph import saved_tensors_hooks
from minigrad.exercises import lesson06 as l06


def count_right(fn, x):
    n = [0]

    def pack(t):
        n[0] += 1
        return t
    with saved_tensors_hooks(pack, lambda p: p):
        fn(x)
    return n[0]


def count_at_unpack(fn, x):
    n = [0]

    def unpack(p):
        n[0] += 1
        return p
    with saved_tensors_hooks(lambda t: t, unpack):
        fn(x)
    return n[0]


def test_l06_count_saved(capsys):
    assert verdict(l06.check_count_saved, count_right, capsys)[0]
    ok, msg = verdict(l06.check_count_saved, count_at_unpack, capsys)
    assert not ok and "unpack only runs in backward" in msg
    ok, msg = verdict(l06.check_count_saved, lambda fn, x: float(count_right(fn, x)), capsys)
    assert not ok and "return an int" in msg
    ok, msg = verdict(l06.check_count_saved, stub, capsys)
    assert not ok and "not implemented yet" in msg


def half_right():
    return (lambda t: t.detach().numpy().astype(np.float16),
            lambda p: torch.from_numpy(p.astype(np.float32)))


def half_identity():
    return (lambda t: t, lambda p: p)


def half_unpack_numpy():
    return (lambda t: t.detach().numpy().astype(np.float16), lambda p: p.astype(np.float32))


def half_keeps_float32_numpy():
    return (lambda t: t.detach().numpy().copy(), torch.from_numpy)


def test_l06_half_precision_hooks(capsys):
    assert verdict(l06.check_half_precision_hooks, half_right, capsys)[0]
    ok, msg = verdict(l06.check_half_precision_hooks, half_identity, capsys)
    assert not ok and "pack returned a float32 tensor" in msg
    ok, msg = verdict(l06.check_half_precision_hooks, half_unpack_numpy, capsys)
    assert not ok and "unpack must return a Tensor" in msg
    ok, msg = verdict(l06.check_half_precision_hooks, half_keeps_float32_numpy, capsys)
    assert not ok and "expected 64 (float16)" in msg
    ok, msg = verdict(l06.check_half_precision_hooks, lambda: half_right()[0], capsys)
    assert not ok and "return a tuple (pack, unpack)" in msg
    ok, msg = verdict(l06.check_half_precision_hooks, stub, capsys)
    assert not ok and "not implemented yet" in msg


def checkpoint_right(fn, x):
    keys, rebuilt = [0], []

    def pack(t):
        keys[0] += 1
        return keys[0] - 1

    def unpack(i):
        if not rebuilt:
            with saved_tensors_hooks(lambda t: rebuilt.append(t) or len(rebuilt) - 1,
                                     lambda j: rebuilt[j]):
                with torch.enable_grad():
                    fn(x.detach().requires_grad_(x.requires_grad))
        return rebuilt[i]
    with saved_tensors_hooks(pack, unpack):
        return fn(x)


def checkpoint_every_unpack(fn, x):
    keys = [0]

    def pack(t):
        keys[0] += 1
        return keys[0] - 1

    def unpack(i):
        rebuilt = []
        with saved_tensors_hooks(lambda t: rebuilt.append(t) or len(rebuilt) - 1, lambda j: rebuilt[j]):
            with torch.enable_grad():
                fn(x.detach())
        return rebuilt[i]
    with saved_tensors_hooks(pack, unpack):
        return fn(x)


def checkpoint_keeps_everything(fn, x):
    return fn(x)


def test_l06_checkpoint(capsys):
    assert verdict(l06.check_checkpoint, checkpoint_right, capsys)[0]
    ok, msg = verdict(l06.check_checkpoint, checkpoint_keeps_everything, capsys)
    assert not ok and "still holds 768 bytes" in msg
    ok, msg = verdict(l06.check_checkpoint, checkpoint_every_unpack, capsys)
    assert not ok and "expected once" in msg
    ok, msg = verdict(l06.check_checkpoint, stub, capsys)
    assert not ok and "not implemented yet" in msg


# --- lesson 07 ---------------------------------------------------------------------------
from minigrad.autograd import Variable
from minigrad.exercises import lesson07 as l07

queue_callback = Variable._execution_engine.queue_callback

ORDER = ["y hook", "x post-accumulate", "cb1", "cb3", "cb2", "backward returned"]


def test_l07_callback_order(capsys):
    assert verdict(l07.check_callback_order, lambda: list(ORDER), capsys)[0]
    ok, msg = verdict(l07.check_callback_order,
                      lambda: ["y hook", "x post-accumulate", "cb1", "cb2", "cb3", "backward returned"],
                      capsys)
    assert not ok and "event 4 is 'cb2'" in msg and "first in, first out" in msg
    ok, msg = verdict(l07.check_callback_order,
                      lambda: ["y hook", "cb1", "cb3", "cb2", "x post-accumulate", "backward returned"],
                      capsys)
    assert not ok and "after x's AccumulateGrad" in msg
    ok, msg = verdict(l07.check_callback_order,
                      lambda: ["y hook", "x post-accumulate", "cb1", "cb3", "backward returned", "cb2"],
                      capsys)
    assert not ok and "inside backward()" in msg
    ok, msg = verdict(l07.check_callback_order, lambda: ORDER[:-1], capsys)
    assert not ok and "misses ['backward returned']" in msg
    ok, msg = verdict(l07.check_callback_order, lambda: ORDER + ["cb4"], capsys)
    assert not ok and "unknown event name" in msg
    ok, msg = verdict(l07.check_callback_order, lambda: ORDER + ["cb2"], capsys)
    assert not ok and "more than once" in msg
    # bypass: running the pass instead of predicting it
    ok, msg = verdict(l07.check_callback_order, l07._section1_pass, capsys)
    assert not ok and "ran a backward pass" in msg
    ok, msg = verdict(l07.check_callback_order, stub, capsys)
    assert not ok and "not implemented yet" in msg


def unused_right(params, loss):
    reached = set()
    handles = [p.register_post_accumulate_grad_hook(lambda p, i=i: reached.add(i))
               for i, p in enumerate(params)]
    loss.backward()
    for h in handles:
        h.remove()
    return sorted(set(range(len(params))) - reached)


def unused_by_grad_none(params, loss):
    loss.backward()
    return [i for i, p in enumerate(params) if p.grad is None]


def unused_returns_used(params, loss):
    return sorted(set(range(len(params))) - set(unused_right(params, loss)))


def unused_leaky(params, loss):
    reached = set()
    for i, p in enumerate(params):
        p.register_post_accumulate_grad_hook(lambda p, i=i: reached.add(i))
    loss.backward()
    return sorted(set(range(len(params))) - reached)


def test_l07_unused_parameters(capsys):
    assert verdict(l07.check_unused_parameters, unused_right, capsys)[0]
    ok, msg = verdict(l07.check_unused_parameters, unused_by_grad_none, capsys)
    assert not ok and "`p.grad is None` finds nothing" in msg
    ok, msg = verdict(l07.check_unused_parameters, unused_returns_used, capsys)
    assert not ok and "you returned [0, 1, 3], expected [2, 4]" in msg
    ok, msg = verdict(l07.check_unused_parameters, unused_leaky, capsys)
    assert not ok and "still registered" in msg
    ok, msg = verdict(l07.check_unused_parameters, lambda params, loss: None, capsys)
    assert not ok and "return a list of indices" in msg
    ok, msg = verdict(l07.check_unused_parameters, stub, capsys)
    assert not ok and "not implemented yet" in msg


def make_bucketer(final="callback", cmp=">=", size="bytes", reset=True, order="ready",
                  flush_empty=False, return_handles=True, flush_full=True):
    """The bucketing of exercise 3, right by default, with one thing wrong on request."""
    def attach(params, limit, flush):
        state = {"bucket": [], "bytes": 0, "queued": False, "seen": 0}

        def send(bucket):
            if order == "params":
                bucket = sorted(bucket)
            flush(bucket)

        def finish():
            if state["bucket"] or flush_empty:
                send(state["bucket"])
            state.update(bucket=[], bytes=0, queued=False) if reset else state.update(queued=False)

        def ready(p, i):
            state["seen"] += 1
            if final == "callback" and not state["queued"]:
                state["queued"] = True
                queue_callback(finish)
            state["bucket"].append(i)
            state["bytes"] += p.grad.numel() * (p.grad.element_size() if size == "bytes" else 1)
            full = state["bytes"] >= limit if cmp == ">=" else state["bytes"] > limit
            if full and flush_full:
                send(state["bucket"])
                state.update(bucket=[], bytes=0)
            if final == "count" and state["seen"] % len(params) == 0 and state["bucket"]:
                send(state["bucket"])
                state.update(bucket=[], bytes=0)
        handles = [p.register_post_accumulate_grad_hook(lambda p, i=i: ready(p, i))
                   for i, p in enumerate(params)]
        return handles if return_handles else None
    return attach


def test_l07_bucketed_all_reduce(capsys):
    check = l07.check_bucketed_all_reduce
    assert verdict(check, make_bucketer(), capsys)[0]
    ok, msg = verdict(check, make_bucketer(final="count"), capsys)
    assert not ok and "inside the last post-accumulate hook" in msg and "queue_callback" in msg
    ok, msg = verdict(check, make_bucketer(final="none"), capsys)
    assert not ok and "never sent" in msg
    ok, msg = verdict(check, make_bucketer(flush_empty=True), capsys)
    assert not ok and "empty bucket" in msg
    ok, msg = verdict(check, make_bucketer(reset=False), capsys)
    assert not ok and "backward pass 2" in msg and "some state survived" in msg
    ok, msg = verdict(check, make_bucketer(size="numel"), capsys)
    assert not ok and "element_size" in msg
    ok, msg = verdict(check, make_bucketer(order="params"), capsys)
    assert not ok and "order the gradients become ready" in msg
    ok, msg = verdict(check, make_bucketer(flush_full=False), capsys)
    assert not ok and "limit 1000 bytes, backward pass 1" in msg
    ok, msg = verdict(check, make_bucketer(return_handles=False), capsys)
    assert not ok and "list of the handles" in msg
    ok, msg = verdict(check, stub, capsys)
    assert not ok and "not implemented yet" in msg
