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
from minigrad.exercises import lesson04 as l04  # noqa: E402  (each lesson's section imports its own)


def test_l04_predict_prehook_none(capsys):
    right = {"a.grad": [1.0, 1.0], "b.grad": None, "post-hook grad_inputs": (None, None)}
    assert verdict(l04.check_predict_prehook_none, lambda: right, capsys)[0]
    # as if (None,) meant "keep" (a tensor hook's None)
    keep = {"a.grad": [3.0 * np.exp(3.0) + 1, 4.0 * np.exp(8.0) + 1],
            "b.grad": [np.exp(3.0), 2 * np.exp(8.0)], "post-hook grad_inputs": None}
    ok, msg = verdict(l04.check_predict_prehook_none, lambda: keep, capsys)
    assert not ok and "a.grad: you said" in msg and "b.grad: you said" in msg
    assert "the node still runs" in msg and "a.sum() term" in msg and "it is" not in msg
    # the node skipped: no post-hook call
    ok, msg = verdict(l04.check_predict_prehook_none, lambda: {**right, "post-hook grad_inputs": None},
                      capsys)
    assert not ok and "post-hook grad_inputs: you said None, which is not it" in msg
    assert "(None, None)" not in msg
    assert "a.grad" not in msg
    ok, msg = verdict(l04.check_predict_prehook_none, lambda: {**right, "b.grad": [0.0, 0.0]}, capsys)
    assert not ok and "b.grad: you said [0.0, 0.0], which is not it" in msg
    ok, msg = verdict(l04.check_predict_prehook_none, lambda: [[1.0, 1.0], None], capsys)
    assert not ok and "return a dict" in msg
    # bypass: running the scenario instead of predicting it
    ok, msg = verdict(l04.check_predict_prehook_none, l04._prehook_none_trace, capsys)
    assert not ok and "ran a backward pass" in msg and "written by hand" in msg
    ok, msg = verdict(l04.check_predict_prehook_none, stub, capsys)
    assert not ok and "not implemented yet" in msg


def _has_nan(ts):
    return any(t is not None and bool(np.isnan(t.numpy()).any()) for t in ts)


def make_nan_finder(pick=0, skip_none=True, kind="post"):
    def first_nan_node(loss):
        found = []
        for node in graph_nodes(loss):
            if kind == "pre":            # what arrives only: finds the node AFTER the culprit
                node.register_prehook(
                    lambda go, node=node: found.append(node.name()) if _has_nan(go) else None)
                continue

            def check(gi, go, node=node):
                nan_in = (_has_nan(gi) if skip_none
                          else any(bool(np.isnan(g.numpy()).any()) for g in gi))
                if nan_in and not _has_nan(go):
                    found.append(node.name())
            node.register_hook(check)
        loss.backward()
        return found[pick] if found else None
    return first_nan_node


def nan_indexes_grad_inputs(loss):         # gi[0]: an AccumulateGrad's grad_inputs is ()
    found = []
    for node in graph_nodes(loss):
        node.register_hook(lambda gi, go, node=node: found.append(node.name())
                           if gi[0] is not None and _has_nan(gi[:1]) else None)
    loss.backward()
    return found[0] if found else None


def nan_first_slot_only(loss):             # misses NaN in a later grad_input
    found = []
    for node in graph_nodes(loss):
        node.register_hook(lambda gi, go, node=node: found.append(node.name())
                           if _has_nan(gi[:1]) and not _has_nan(go) else None)
    loss.backward()
    return found[0] if found else None


def nan_without_backward(loss):
    return None


def test_l04_first_nan_node(capsys):
    assert verdict(l04.check_first_nan_node, make_nan_finder(), capsys)[0]
    ok, msg = verdict(l04.check_first_nan_node, make_nan_finder(pick=-1), capsys)
    assert not ok and "two NaN-producing ops" in msg and "return the FIRST" in msg
    ok, msg = verdict(l04.check_first_nan_node, make_nan_finder(kind="pre"), capsys)
    assert not ok and "expected 'SqrtLogBackward'" in msg and "A post-hook sees both" in msg
    ok, msg = verdict(l04.check_first_nan_node, make_nan_finder(skip_none=False), capsys)
    assert not ok and "hit a None" in msg and "skip None entries" in msg
    ok, msg = verdict(l04.check_first_nan_node, nan_indexes_grad_inputs, capsys)
    assert not ok and "IndexError" in msg and "AccumulateGrad" in msg and "empty grad_inputs" in msg
    ok, msg = verdict(l04.check_first_nan_node, nan_first_slot_only, capsys)
    assert not ok and "second input only" in msg and "every entry of grad_inputs" in msg
    ok, msg = verdict(l04.check_first_nan_node, nan_without_backward, capsys)
    assert not ok and "must run loss.backward() itself" in msg
    ok, msg = verdict(l04.check_first_nan_node,
                      lambda loss: [make_nan_finder()(loss)], capsys)
    assert not ok and "return one node name" in msg
    ok, msg = verdict(l04.check_first_nan_node, stub, capsys)
    assert not ok and "not implemented yet" in msg


def first_custom_function(loss):            # names a node without reading a gradient
    loss.backward()
    custom = [n.name() for n in graph_nodes(loss)
              if not n.name()[-1].isdigit() and "AccumulateGrad" not in n.name()]
    return custom[0] if custom else None


def test_l04_first_nan_node_needs_a_gradient_to_name_the_culprit(capsys):
    ok, msg = verdict(l04.check_first_nan_node, first_custom_function, capsys)
    assert not ok and "HarmlessBackward" in msg


def test_l04_a_prediction_given_as_a_tensor_is_told_the_type(capsys):
    import minigrad
    right = {"a.grad": minigrad.tensor([1.0, 1.0]), "b.grad": None, "post-hook grad_inputs": (None, None)}
    ok, msg = verdict(l04.check_predict_prehook_none, lambda: right, capsys)
    assert not ok and "a.grad: expected a list of floats (or None), got a tensor" in msg


def replay_right(node, grad_outputs, input_shapes):
    with torch.no_grad():
        out = node(*grad_outputs)
    if not isinstance(out, tuple):
        out = (out,)
    return tuple(None if g is None or s is None else g.sum_to_size(s)
                 for g, s in zip(out, input_shapes))


def replay_ignores_none(node, grad_outputs, input_shapes):       # crashes on a None slot
    with torch.no_grad():
        out = node(*grad_outputs)
    if not isinstance(out, tuple):
        out = (out,)
    return tuple(g.sum_to_size(s) for g, s in zip(out, input_shapes))


def replay_fills_none(node, grad_outputs, input_shapes):         # a zero where the engine has None
    out = replay_right(node, grad_outputs, input_shapes)
    return tuple(torch.zeros(1) if g is None else g for g in out)


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


def replay_engine_call_node(node, grad_outputs, input_shapes):   # the engine does the work
    from minigrad.autograd import engine
    with torch.no_grad():
        return tuple(engine.call_node(node, grad_outputs))


def replay_iterates_bare(node, grad_outputs, input_shapes):       # a one-input node's bare Tensor
    with torch.no_grad():
        out = node(*grad_outputs)
    return tuple(None if g is None or s is None else g.sum_to_size(s)
                 for g, s in zip(out, input_shapes))


def test_l04_replay(capsys):
    assert verdict(l04.check_replay, replay_right, capsys)[0]
    ok, msg = verdict(l04.check_replay, replay_unreduced, capsys)
    assert not ok and "gradient 1 has shape [2, 3], expected [3]" in msg and "sum_to_size" in msg
    ok, msg = verdict(l04.check_replay, replay_bare, capsys)
    assert not ok and "ONE input" in msg and "wrap it in a tuple" in msg
    ok, msg = verdict(l04.check_replay, replay_iterates_bare, capsys)
    assert not ok and "ONE input" in msg and "raised" in msg and "wrap it in a tuple" in msg
    ok, msg = verdict(l04.check_replay, replay_engine_call_node, capsys)
    assert not ok and "call_node" in msg and "node(*grad_outputs)" in msg
    from minigrad.autograd import engine
    assert engine.validate_outputs.__name__ == "validate_outputs"     # the spy is gone
    ok, msg = verdict(l04.check_replay, replay_grad_mode, capsys)
    assert not ok and "torch.no_grad()" in msg
    ok, msg = verdict(l04.check_replay, replay_ignores_none, capsys)
    assert not ok and "Python scalar" in msg and "hit a None" in msg and "keep it None" in msg
    ok, msg = verdict(l04.check_replay, replay_fills_none, capsys)
    assert not ok and "gradient 1 should be None" in msg and "(None, 0)" in msg
    ok, msg = verdict(l04.check_replay, stub, capsys)
    assert not ok and "not implemented yet" in msg


# --- lesson 05 ---------------------------------------------------------------------------
from minigrad.autograd.graph import register_multi_grad_hook  # noqa: E402  (each lesson's section imports its own)
from minigrad.exercises import lesson05 as l05  # noqa: E402  (each lesson's section imports its own)


def test_l05_predict_counts(capsys):
    assert verdict(l05.check_predict_counts, lambda: {"tensor hooks": 3, "all": 2, "any": 2}, capsys)[0]
    # w used twice in pass 1: its hook still fires once
    ok, msg = verdict(l05.check_predict_counts, lambda: {"tensor hooks": 4, "all": 2, "any": 2}, capsys)
    assert not ok and "tensor hooks: you said 4, which is not the count" in msg and "once per pass" in msg
    assert "Which of w and v does each pass reach?" in msg and "'all'" not in msg and "3" not in msg
    # a pass that reaches neither tensor calls neither multi-grad hook
    ok, msg = verdict(l05.check_predict_counts, lambda: {"tensor hooks": 3, "all": 3, "any": 3}, capsys)
    assert not ok and "'all': you said 3, which is not the count" in msg
    assert "'any': you said 3, which is not the count" in msg and "2" not in msg
    assert "reaches none fires no inner tensor hook" in msg
    ok, msg = verdict(l05.check_predict_counts, lambda: [3, 2, 2], capsys)
    assert not ok and "return a dict" in msg
    # bypass: running the scenario instead of predicting it
    ok, msg = verdict(l05.check_predict_counts, lambda: l05._run_counts()[0], capsys)
    assert not ok and "ran a backward pass" in msg and "written by hand" in msg
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


def all_fires_on_first_tensor(tensors, fn):       # bets that tensors[0]'s hook fires last
    grads = [None] * len(tensors)

    def make(i):
        def hook(g):
            grads[i] = g
            if i == 0:
                fn(list(grads))
        return hook
    return [t.register_hook(make(i)) for i, t in enumerate(tensors)]


def all_no_handles(tensors, fn):
    all_right(tensors, fn)


def test_l05_my_all_hook(capsys):
    assert verdict(l05.check_my_all_hook, all_right, capsys)[0]
    ok, msg = verdict(l05.check_my_all_hook, all_every_hook, capsys)
    assert not ok and "fn was called 3 time(s), expected once" in msg
    ok, msg = verdict(l05.check_my_all_hook, all_no_reset, capsys)
    assert not ok and "backward pass 2: fn was called 0 time(s)" in msg
    ok, msg = verdict(l05.check_my_all_hook, all_arrival_order, capsys)
    assert not ok and "in the order they arrived" in msg
    ok, msg = verdict(l05.check_my_all_hook, all_fires_on_first_tensor, capsys)
    assert not ok and "entry 1 is None" in msg
    ok, msg = verdict(l05.check_my_all_hook, all_no_handles, capsys)
    assert not ok and "return the list of the handles" in msg
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
from minigrad.autograd.graph import saved_tensors_hooks  # noqa: E402  (each lesson's section imports its own)
from minigrad.exercises import lesson06 as l06  # noqa: E402  (each lesson's section imports its own)


PREDICTED = (["outer", "inner", "inner", "outer"], ["outer", "inner", "inner", "outer"])


def test_l06_predict_nested(capsys):
    assert verdict(l06.check_predict_nested, lambda: PREDICTED, capsys)[0]
    # chaining: y * y packed by outer and inner
    chained = (["outer", "outer", "inner", "outer", "inner", "outer"], PREDICTED[1])
    ok, msg = verdict(l06.check_predict_nested, lambda: chained, capsys)
    assert not ok and "the pack calls" in msg and "you list 6 calls: count the values saved" in msg
    assert "the innermost" in msg and "(outer)" not in msg and "(inner" not in msg
    # the context around backward() taken for unpack
    ok, msg = verdict(l06.check_predict_nested, lambda: (PREDICTED[0], ["during backward"] * 4), capsys)
    assert not ok and "the unpack calls" in msg and "context around backward() is never used" in msg
    # unpacks in forward order by context rather than backward's node order
    ok, msg = verdict(l06.check_predict_nested,
                      lambda: (PREDICTED[0], ["outer", "outer", "inner", "inner"]), capsys)
    assert not ok and "node created last first" in msg and "entry 2 ('outer') is wrong" in msg
    ok, msg = verdict(l06.check_predict_nested, lambda: PREDICTED[0], capsys)
    assert not ok and "return two lists of tags" in msg
    # bypass: running the scenario instead of predicting it
    ok, msg = verdict(l06.check_predict_nested, l06._nested_trace, capsys)
    assert not ok and "ran a backward pass" in msg and "written by hand" in msg
    ok, msg = verdict(l06.check_predict_nested, stub, capsys)
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


def half_unpacks_float16():
    return (lambda t: t.detach().numpy().astype(np.float16), torch.from_numpy)


def test_l06_half_precision_unpack_must_give_back_float32(capsys):
    ok, msg = verdict(l06.check_half_precision_hooks, half_unpacks_float16, capsys)
    assert not ok and "unpack gave back a minigrad.float16 tensor" in msg
    assert "astype" not in msg


def test_l06_half_precision_messages_leave_the_answer_to_the_learner(capsys):
    for answer in (half_identity, half_unpack_numpy):
        ok, msg = verdict(l06.check_half_precision_hooks, answer, capsys)
        assert not ok and "astype" not in msg and "from_numpy" not in msg


def test_l06_checkpoint_must_recompute_from_detached_inputs(capsys):
    ok, msg = verdict(l06.check_checkpoint, make_checkpoint(detach=False), capsys)
    assert not ok and "recomputed on the forward's own input tensors" in msg


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


def make_checkpoint(rng=True, restore=True, grad_mode=True, requires_grad=True, cache=True,
                    detach=True):
    """A from-scratch checkpoint; each flag off is one plausible mistake."""
    def checkpoint(fn, *args):
        forward_state = torch.get_rng_state()
        keys, rebuilt = [0], []

        def pack(t):
            keys[0] += 1
            return keys[0] - 1

        def unpack(i):
            if not rebuilt or not cache:
                rebuilt.clear()
                now = torch.get_rng_state()
                if rng:
                    torch.set_rng_state(forward_state)
                inputs = [a.detach().requires_grad_(a.requires_grad and requires_grad)
                          for a in args] if detach else list(args)
                with saved_tensors_hooks(lambda t: rebuilt.append(t) or len(rebuilt) - 1,
                                         lambda j: rebuilt[j]):
                    with torch.enable_grad() if grad_mode else torch.no_grad():
                        fn(*inputs)
                if restore:
                    torch.set_rng_state(now)
            return rebuilt[i]
        with saved_tensors_hooks(pack, unpack):
            return fn(*args)
    return checkpoint


def checkpoint_keeps_everything(fn, *args):
    return fn(*args)


def checkpoint_reseeds(fn, *args):
    torch.manual_seed(0)
    return make_checkpoint()(fn, *args)


def checkpoint_first_output_only(fn, *args):
    out = make_checkpoint()(fn, *args)
    return out[0] if isinstance(out, tuple) else out


def test_l06_checkpoint(capsys):
    assert verdict(l06.check_checkpoint, make_checkpoint(), capsys)[0]
    ok, msg = verdict(l06.check_checkpoint, checkpoint_keeps_everything, capsys)
    assert not ok and "holds 768 bytes of saved activations" in msg
    ok, msg = verdict(l06.check_checkpoint, make_checkpoint(cache=False), capsys)
    assert not ok and "expected once" in msg
    ok, msg = verdict(l06.check_checkpoint, checkpoint_first_output_only, capsys)
    assert not ok and "two inputs" in msg and "return fn's result as it is" in msg
    ok, msg = verdict(l06.check_checkpoint, stub, capsys)
    assert not ok and "not implemented yet" in msg


def test_l06_checkpoint_rng(capsys):
    ok, msg = verdict(l06.check_checkpoint, make_checkpoint(rng=False), capsys)
    assert not ok and "dropout" in msg and "another dropout mask" in msg and "set_rng_state" in msg
    ok, msg = verdict(l06.check_checkpoint, make_checkpoint(restore=False), capsys)
    assert not ok and "the gradients are right, but after backward the generator" in msg
    ok, msg = verdict(l06.check_checkpoint, checkpoint_reseeds, capsys)
    assert not ok and "output 0 differs" in msg and "don't re-seed" in msg
    # the check leaves the generator as it found it
    torch.manual_seed(3)
    expected = torch.rand(4).tolist()
    torch.manual_seed(3)
    verdict(l06.check_checkpoint, make_checkpoint(), capsys)
    assert torch.rand(4).tolist() == expected


def my_checkpoint(fn, x):         # section 5's signature, copied: one input only
    return make_checkpoint()(fn, x)


def test_l06_checkpoint_crash_becomes_advice(capsys):
    ok, msg = verdict(l06.check_checkpoint, my_checkpoint, capsys)
    assert not ok and "two inputs" in msg and "TypeError" in msg and "(fn, *args)" in msg
    # backward runs with grad mode off: a recompute without enable_grad saves nothing
    ok, msg = verdict(l06.check_checkpoint, make_checkpoint(grad_mode=False), capsys)
    assert not ok and "IndexError" in msg and "ecompute under enable_grad()" in msg
    assert "backward runs with grad mode off" in msg
    # inputs that no longer require grad: the ops save fewer tensors
    ok, msg = verdict(l06.check_checkpoint, make_checkpoint(requires_grad=False), capsys)
    assert not ok and "IndexError" in msg and "requires_grad_(t.requires_grad)" in msg

    def raises_runtime(fn, *args):
        def unpack(i):
            raise RuntimeError("no saved tensor here")
        with saved_tensors_hooks(lambda t: 0, unpack):
            return fn(*args)
    ok, msg = verdict(l06.check_checkpoint, raises_runtime, capsys)
    assert not ok and "RuntimeError: no saved tensor here" in msg and "enable_grad()" in msg


def test_l06_checkpoint_rejects_ready_made_ones(capsys):
    from minigrad.utils import checkpoint as ckpt
    from minigrad.utils.checkpoint import checkpoint as imported_early
    for variant in (False, True):
        for real in (imported_early, ckpt.checkpoint):
            ok, msg = verdict(l06.check_checkpoint,
                              lambda fn, *a, real=real: real(fn, *a, use_reentrant=variant), capsys)
            assert not ok and "calls minigrad.utils.checkpoint.checkpoint" in msg
    assert ckpt._Frame.__name__ == "_Frame" and ckpt.CheckpointFunction.__name__ == "CheckpointFunction"

    # section 5's helper, defined in the learner's namespace, then called by the answer
    helper_right = make_checkpoint()
    namespace = {"checkpoint": lambda fn, x: helper_right(fn, x)}
    exec("def my_checkpoint(fn, *args):\n"
         "    return checkpoint(lambda x: fn(x, *args[1:]), args[0])\n", namespace)
    original = namespace["checkpoint"]
    ok, msg = verdict(l06.check_checkpoint, namespace["my_checkpoint"], capsys)
    assert not ok and "calls the checkpoint helper of section 5" in msg
    assert namespace["checkpoint"] is original           # put back after the check
    # ... also when the helper crashes on several inputs
    exec("def my_checkpoint(fn, *args):\n    return checkpoint(fn, *args)\n", namespace)
    ok, msg = verdict(l06.check_checkpoint, namespace["my_checkpoint"], capsys)
    assert not ok and "calls the checkpoint helper of section 5" in msg


# --- lesson 07 ---------------------------------------------------------------------------
from minigrad.autograd import Variable  # noqa: E402  (each lesson's section imports its own)
from minigrad.exercises import lesson07 as l07  # noqa: E402  (each lesson's section imports its own)

queue_callback = Variable._execution_engine.queue_callback

ORDER = ["y hook", "x post-accumulate", "cb1", "cb3", "cb2", "backward returned"]


def test_l07_callback_order(capsys):
    assert verdict(l07.check_callback_order, lambda: list(ORDER), capsys)[0]
    ok, msg = verdict(l07.check_callback_order,
                      lambda: ["y hook", "x post-accumulate", "cb1", "cb2", "cb3", "backward returned"],
                      capsys)
    assert not ok and "first goes wrong at event 4: the engine does not run 'cb2' there" in msg
    assert "first in, first out" in msg and "'cb3' there" not in msg
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


def unused_resets_grad(params, loss):         # right indices, but the old .grad is gone
    for p in params:
        p.grad = None
    loss.backward()
    return [i for i, p in enumerate(params) if p.grad is None]


def unused_compares_grad(params, loss):       # misses a parameter that gets a zero gradient
    before = [p.grad.numpy().copy() for p in params]
    loss.backward()
    return [i for i, (p, b) in enumerate(zip(params, before)) if np.array_equal(p.grad.numpy(), b)]


def unused_second_pass(params, loss):         # the engine finds them in a pass of its own
    grads = torch.autograd.grad(loss, params, allow_unused=True, retain_graph=True)
    loss.backward()
    return [i for i, g in enumerate(grads) if g is None]


def test_l07_unused_parameters(capsys):
    assert verdict(l07.check_unused_parameters, unused_right, capsys)[0]
    ok, msg = verdict(l07.check_unused_parameters, unused_by_grad_none, capsys)
    assert not ok and "`p.grad is None` finds nothing" in msg
    ok, msg = verdict(l07.check_unused_parameters, unused_returns_used, capsys)
    assert not ok and "you returned [0, 1, 3], expected [2, 4]" in msg
    ok, msg = verdict(l07.check_unused_parameters, unused_resets_grad, capsys)
    assert not ok and "don't reset .grad" in msg
    ok, msg = verdict(l07.check_unused_parameters, unused_compares_grad, capsys)
    assert not ok and "zero gradient" in msg and "you returned [0, 2, 3, 4], expected [2, 3, 4]" in msg
    ok, msg = verdict(l07.check_unused_parameters, unused_second_pass, capsys)
    assert not ok and "ran 2 backward passes" in msg
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
    ok, msg = verdict(check, make_bucketer(cmp=">"), capsys)
    assert not ok and "reach exactly" in msg and ">= 68 bytes" in msg
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
