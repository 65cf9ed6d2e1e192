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


def test_l05_predict_counts(capsys):
    assert verdict(l05.check_predict_counts, lambda: {"tensor hooks": 3, "all": 2, "any": 2}, capsys)[0]
    # w used twice in pass 1: its hook still fires once
    ok, msg = verdict(l05.check_predict_counts, lambda: {"tensor hooks": 4, "all": 2, "any": 2}, capsys)
    assert not ok and "tensor hooks: you said 4, it is 3" in msg and "once per pass" in msg
    assert "pass 3 reaches neither w nor v" in msg and "'all'" not in msg
    # a pass that reaches neither tensor calls neither multi-grad hook
    ok, msg = verdict(l05.check_predict_counts, lambda: {"tensor hooks": 3, "all": 3, "any": 3}, capsys)
    assert not ok and "'all': you said 3, it is 2" in msg and "'any': you said 3, it is 2" in msg
    assert "reaches none fires no inner tensor hook" in msg
    ok, msg = verdict(l05.check_predict_counts, lambda: [3, 2, 2], capsys)
    assert not ok and "return a dict" in msg
    ok, msg = verdict(l05.check_predict_counts, stub, capsys)
    assert not ok and "not implemented yet" in msg


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


def test_l05_my_all_hook_rejects_the_real_one(capsys):
    # the real register_multi_grad_hook passes every scenario: the check must see the call,
    # however it was imported
    from minigrad.autograd import graph
    for real in (register_multi_grad_hook, graph.register_multi_grad_hook):
        ok, msg = verdict(l05.check_my_all_hook, lambda tensors, fn: real(tensors, fn), capsys)
        assert not ok and "calls register_multi_grad_hook" in msg
    assert graph._MultiHandle.__name__ == "_MultiHandle"       # the spy is gone afterwards


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


def once_right(t, fn):
    return t.register_hook(lambda g: queue_callback(fn))


def once_too_early(t, fn):
    return t.register_hook(lambda g: fn())


def once_twice(t, fn):
    def hook(g):
        queue_callback(fn)
        queue_callback(fn)
    return t.register_hook(hook)


def test_l07_call_once_after_backward(capsys):
    assert verdict(l07.check_call_once_after_backward, once_right, capsys)[0]
    ok, msg = verdict(l07.check_call_once_after_backward, once_too_early, capsys)
    assert not ok and "fn ran too early" in msg and "queue_callback" in msg
    ok, msg = verdict(l07.check_call_once_after_backward, once_twice, capsys)
    assert not ok and "fn ran 2 time(s), expected once" in msg
    ok, msg = verdict(l07.check_call_once_after_backward, stub, capsys)
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


def test_l07_unused_parameters(capsys):
    assert verdict(l07.check_unused_parameters, unused_right, capsys)[0]
    ok, msg = verdict(l07.check_unused_parameters, unused_by_grad_none, capsys)
    assert not ok and "`p.grad is None` finds nothing" in msg
    ok, msg = verdict(l07.check_unused_parameters, unused_returns_used, capsys)
    assert not ok and "you returned [0, 1, 3], expected [2, 4]" in msg
    ok, msg = verdict(l07.check_unused_parameters, lambda params, loss: None, capsys)
    assert not ok and "return a list of indices" in msg
    ok, msg = verdict(l07.check_unused_parameters, stub, capsys)
    assert not ok and "not implemented yet" in msg
