"""The exercise checks of lessons 08-09: a right answer gets ✅, typical wrong answers get
a specific ❌, a stub gets "not implemented yet", and no check ever raises."""

import warnings

import numpy as np

import minigrad as torch
from minigrad.autograd import graph as autograd_graph
from minigrad.autograd import op_hooks
from minigrad.autograd.graph import saved_tensors_hooks
from minigrad.exercises import lesson08 as l08
from minigrad.exercises import lesson09 as l09
from minigrad.nn.modules import module as module_mod
from minigrad.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

from exercise_support import stub, swapped
from exercise_support import verdict as _verdict


def verdict(check, fn, capsys):
    """(ok, message) of the check's verdict on ``fn``."""
    result = _verdict(check, fn, capsys)
    return result, result.message


# --- lesson 08 ---------------------------------------------------------------------------
MODULE_ORDER = ["forward pre-hook", "forward", "forward hook", "tensor hook on out",
                "backward pre-hook", "full backward hook", "tensor hook on x"]


def test_l08_module_hook_order(capsys):
    check = l08.check_module_hook_order
    assert verdict(check, lambda: list(MODULE_ORDER), capsys)[0]
    ok, msg = verdict(check, lambda: swapped(MODULE_ORDER, "tensor hook on out", "backward pre-hook"),
                      capsys)
    assert not ok and "event 4: the engine does not run 'backward pre-hook' there" in msg
    assert "before that node runs" in msg
    ok, msg = verdict(check, lambda: swapped(MODULE_ORDER, "full backward hook", "tensor hook on x"),
                      capsys)
    assert not ok and "AccumulateGrad" in msg
    ok, msg = verdict(check, lambda: swapped(MODULE_ORDER, "full backward hook", "backward pre-hook"),
                      capsys)
    assert not ok and "inputs' node" in msg
    ok, msg = verdict(check, lambda: swapped(MODULE_ORDER, "forward", "forward hook"), capsys)
    assert not ok and "Module.__call__" in msg
    ok, msg = verdict(check, lambda: MODULE_ORDER[:-1], capsys)
    assert not ok and "misses ['tensor hook on x']" in msg
    ok, msg = verdict(check, lambda: MODULE_ORDER + ["tensor hook on y"], capsys)
    assert not ok and "unknown event name" in msg
    ok, msg = verdict(check, lambda: "forward pre-hook", capsys)
    assert not ok and "return a list" in msg
    # bypass: running the pass instead of predicting it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ok, msg = verdict(check, l08._module_pass, capsys)
    assert not ok and "ran a backward pass" in msg
    # bypass: the names as the lesson and the check list them are not the answer
    ok, msg = verdict(check, lambda: list(l08.MODULE_HOOK_EVENTS), capsys)
    assert not ok and "event 1: the engine does not run 'backward pre-hook'" in msg
    assert "Module.__call__" in msg
    ok, msg = verdict(check, stub, capsys)
    assert not ok and "not implemented yet" in msg


def reversal_right(module, lam):
    return module.register_full_backward_hook(
        lambda mod, gi, go: tuple(None if g is None else -lam * g for g in gi))


def reversal_pre_hook(module, lam):
    return module.register_full_backward_pre_hook(lambda mod, go: tuple(-lam * g for g in go))


def reversal_old_hook(module, lam):
    return module.register_backward_hook(
        lambda mod, gi, go: tuple(None if g is None else -lam * g for g in gi))


def reversal_no_sign(module, lam):
    return module.register_full_backward_hook(lambda mod, gi, go: tuple(lam * g for g in gi))


def reversal_no_handle(module, lam):
    reversal_right(module, lam)


def reversal_noop(module, lam):
    return module.register_full_backward_hook(lambda mod, gi, go: None)


def reversal_first_only(module, lam):
    return module.register_full_backward_hook(lambda mod, gi, go: (-lam * gi[0],))


def reversal_no_none(module, lam):
    return module.register_full_backward_hook(lambda mod, gi, go: tuple(-lam * g for g in gi))


def test_l08_gradient_reversal(capsys):
    assert verdict(l08.check_gradient_reversal, reversal_right, capsys)[0]
    ok, msg = verdict(l08.check_gradient_reversal, reversal_pre_hook, capsys)
    assert not ok and "pre-hook" in msg and "2.weight" in msg
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # register_backward_hook's FutureWarning
        ok, msg = verdict(l08.check_gradient_reversal, reversal_old_hook, capsys)
    assert not ok and "2.weight" in msg and "deprecated register_backward_hook" in msg
    ok, msg = verdict(l08.check_gradient_reversal, reversal_no_sign, capsys)
    assert not ok and "sign" in msg
    ok, msg = verdict(l08.check_gradient_reversal, reversal_no_handle, capsys)
    assert not ok and "return the handle" in msg
    ok, msg = verdict(l08.check_gradient_reversal, reversal_noop, capsys)
    assert not ok and "kept its normal gradient" in msg
    ok, msg = verdict(l08.check_gradient_reversal, reversal_first_only, capsys)
    assert not ok and "two inputs" in msg and "one entry per element of grad_input" in msg
    ok, msg = verdict(l08.check_gradient_reversal, reversal_no_none, capsys)
    assert not ok and "first layer" in msg and "keep a None entry as None" in msg
    ok, msg = verdict(l08.check_gradient_reversal, stub, capsys)
    assert not ok and "not implemented yet" in msg


def make_cam_pp(relu_g=True, guard_zero=True, plain=False, remove=True, normalise=True):
    """Grad-CAM++ with hooks, right by default, with one thing wrong on request."""
    def grad_cam_pp(model, layer, image, target):
        saved = {}
        h1 = layer.register_forward_hook(lambda mod, args, out: saved.update(A=out.detach()))
        h2 = layer.register_full_backward_hook(lambda mod, gi, go: saved.update(g=go[0]))
        model.eval()
        model(image[None])[0, target].backward()
        if remove:
            h1.remove()
            h2.remove()
        A, g = saved["A"][0], saved["g"][0]
        if plain:
            weights = g.mean(dim=(1, 2))
        else:
            g2, g3 = g ** 2, g ** 3
            denom = 2 * g2 + A.sum(dim=(1, 2))[:, None, None] * g3
            if guard_zero:
                alpha = torch.where(g != 0, g2 / torch.where(denom != 0, denom, torch.ones_like(denom)),
                                    torch.zeros_like(g))
            else:
                alpha = g2 / denom
            weights = (alpha * (g.relu() if relu_g else g)).sum(dim=(1, 2))
        cam = (weights[:, None, None] * A).sum(0).relu()
        top = cam.max().item()
        if normalise and top > 0:
            cam = cam / top
        return cam.numpy()
    return grad_cam_pp


def test_l08_grad_cam_pp(capsys):
    check = l08.check_grad_cam_pp
    assert verdict(check, make_cam_pp(), capsys)[0]
    ok, msg = verdict(check, make_cam_pp(plain=True), capsys)
    assert not ok and "plain Grad-CAM" in msg
    with np.errstate(all="ignore"):
        ok, msg = verdict(check, make_cam_pp(guard_zero=False), capsys)
    assert not ok and "NaN" in msg and "0/0" in msg
    ok, msg = verdict(check, make_cam_pp(relu_g=False), capsys)
    assert not ok and "relu(g)" in msg
    ok, msg = verdict(check, make_cam_pp(normalise=False), capsys)
    assert not ok and "divide by the max" in msg
    ok, msg = verdict(check, make_cam_pp(remove=False), capsys)
    assert not ok and "still registered" in msg
    ok, msg = verdict(check, lambda *a: None, capsys)
    assert not ok and "returned None" in msg
    # bypass: calling the check's own reference
    ok, msg = verdict(check, lambda m, layer, im, t: l08._reference_cam_pp(m, 2, im, t), capsys)
    assert not ok and "the check's own reference" in msg
    # ... also through names imported before the check ran
    from minigrad.exercises.lesson08 import _activations_and_grads, _cam_pp
    ok, msg = verdict(check, lambda m, layer, im, t: _cam_pp(*_activations_and_grads(m, 2, im, t)),
                      capsys)
    assert not ok and "the check's own reference" in msg and "_activations_and_grads" in msg
    # section 6's grad_cam returns (map, class): the check says so instead of crashing
    ok, msg = verdict(check, lambda *a: (make_cam_pp()(*a), 0), capsys)
    assert not ok and "you returned a tuple of 2" in msg and "the heat map alone" in msg
    ok, msg = verdict(check, stub, capsys)
    assert not ok and "not implemented yet" in msg


# --- lesson 09 ---------------------------------------------------------------------------

TRACE = ["pre Sequential", "pre Linear", "op t", "op addmm", "post Linear",
         "pre ReLU", "op relu", "post ReLU", "post Sequential"]


def trace_by_running():
    log = []
    handles = [register_module_forward_pre_hook(lambda m, a: log.append(f"pre {type(m).__name__}")),
               register_module_forward_hook(lambda m, a, o: log.append(f"post {type(m).__name__}")),
               op_hooks.register_op_forward_hook(lambda n, a, o: log.append(f"op {n}"))]
    l09.trace_model()(torch.ones(4, 3))
    for h in handles:
        h.remove()
    return log


def test_l09_module_op_trace(capsys):
    check = l09.check_module_op_trace
    assert verdict(check, lambda: list(TRACE), capsys)[0]
    ok, msg = verdict(check, lambda: [t for t in TRACE if t != "op t"], capsys)
    assert not ok and "entry 3 ('op addmm') is wrong" in msg and "two ops" in msg
    assert "expected" not in msg and "real trace" not in msg
    ok, msg = verdict(check, lambda: TRACE[:7] + ["post Sequential", "post ReLU"], capsys)
    assert not ok and "module hooks nest" in msg
    ok, msg = verdict(check, lambda: ["pre Linear", "pre Sequential"] + TRACE[2:], capsys)
    assert not ok and "container is called first" in msg
    ok, msg = verdict(check, lambda: TRACE[:3] + ["addmm"] + TRACE[4:], capsys)
    assert not ok and "is not of the form" in msg
    ok, msg = verdict(check, lambda: "pre Sequential", capsys)
    assert not ok and "list of strings" in msg
    ok, msg = verdict(check, lambda: [], capsys)
    assert not ok and "empty list" in msg and "pre Sequential" not in msg   # no answer shown
    # bypass: running the model to record the trace
    before = len(op_hooks._op_forward_hooks)
    ok, msg = verdict(check, trace_by_running, capsys)
    assert not ok and "ran a model" in msg
    assert len(op_hooks._op_forward_hooks) == before
    ok, msg = verdict(check, stub, capsys)
    assert not ok and "not implemented yet" in msg


def make_saved_bytes(innermost=True, root_only=False, remove=True, nbytes=True, in_with=True):
    """saved_bytes_per_module, right by default, with one thing wrong on request."""
    def saved_bytes_per_module(model, x):
        names = {m: name for name, m in model.named_modules()}
        stack, saved = [], {}

        def enter(module, args):
            stack.append(names.get(module))

        def leave(module, args, out):
            stack.pop()

        def pack(t):
            key = "" if root_only else (stack[-1] if innermost else stack[1] if len(stack) > 1 else "")
            size = t.numel() * t.element_size() if nbytes else t.numel()
            saved[key] = saved.get(key, 0) + size
            return t
        handles = [register_module_forward_pre_hook(enter), register_module_forward_hook(leave)]
        if in_with:
            with saved_tensors_hooks(pack, lambda t: t):
                model(x)
        else:
            saved_tensors_hooks(pack, lambda t: t).__enter__()
            model(x)
        if remove:
            for h in handles:
                h.remove()
        return saved
    return saved_bytes_per_module


def test_l09_saved_bytes_per_module(capsys):
    check = l09.check_saved_bytes_per_module
    assert verdict(check, make_saved_bytes(), capsys)[0]
    ok, msg = verdict(check, make_saved_bytes(root_only=True), capsys)
    assert not ok and "everything went to the root module" in msg
    ok, msg = verdict(check, make_saved_bytes(innermost=False), capsys)
    assert not ok and "a Sequential of Sequentials" in msg and "innermost" in msg
    ok, msg = verdict(check, make_saved_bytes(nbytes=False), capsys)
    assert not ok and "element_size" in msg
    before = len(module_mod._global_forward_hooks)
    ok, msg = verdict(check, make_saved_bytes(remove=False), capsys)
    assert not ok and "still registered" in msg
    assert len(module_mod._global_forward_hooks) == before          # the check cleaned up
    ok, msg = verdict(check, make_saved_bytes(in_with=False), capsys)
    assert not ok and "still active" in msg
    assert autograd_graph.current_saved_tensors_hooks() is None      # ... and here too
    ok, msg = verdict(check, lambda m, x: None, capsys)
    assert not ok and "return a dict" in msg
    # bypass: calling the check's own reference
    from minigrad.exercises.lesson09 import _reference_saved_bytes
    ok, msg = verdict(check, _reference_saved_bytes, capsys)
    assert not ok and "the check's own reference" in msg
    ok, msg = verdict(check, stub, capsys)
    assert not ok and "not implemented yet" in msg


def test_l09_a_crash_inside_minigrad_names_the_learners_line(capsys):
    def sums_a_missing_dim(model, x):
        return {"0": x.sum(dim=7).item()}           # raises inside minigrad's sum
    ok, msg = verdict(l09.check_saved_bytes_per_module, sums_a_missing_dim, capsys)
    assert not ok and "your code raised IndexError" in msg
    assert 'return {"0": x.sum(dim=7).item()}' in msg and "raise IndexError" not in msg


def make_prefetching(prefetch_forward=True, prefetch_backward=True, skip_gathered=True,
                     backward_gather=True, return_handles=True):
    """attach_prefetching_fsdp, right by default, with one thing wrong on request."""
    def attach(model, gather, free):
        units = [c for c in model.children() if list(c.parameters())]
        alive = set()

        def ensure(u):
            if u not in alive or not skip_gathered:
                alive.add(u)
                gather(u)

        def release(u):
            alive.discard(u)
            free(u)
        handles = []
        for k, unit in enumerate(units):
            after = units[k + 1] if k + 1 < len(units) and prefetch_forward else None
            before = units[k - 1] if k > 0 and prefetch_backward else None

            def pre_forward(m, args, after=after):
                ensure(m)
                if after is not None:
                    ensure(after)

            def pre_backward(m, go, before=before):
                ensure(m)
                if before is not None:
                    ensure(before)
            handles.append(unit.register_forward_pre_hook(pre_forward))
            handles.append(unit.register_forward_hook(lambda m, a, o: release(m)))
            if backward_gather:
                handles.append(unit.register_full_backward_pre_hook(pre_backward))
            params, done = list(unit.parameters()), {"n": 0}

            def accumulated(p, unit=unit, done=done, total=len(params)):
                done["n"] += 1
                if done["n"] == total:
                    done["n"] = 0
                    release(unit)
            handles += [p.register_post_accumulate_grad_hook(accumulated) for p in params]
        return handles if return_handles else None
    return attach


def test_l09_prefetching_fsdp(capsys):
    check = l09.check_prefetching_fsdp
    assert verdict(check, make_prefetching(), capsys)[0]
    ok, msg = verdict(check, make_prefetching(prefetch_forward=False), capsys)
    assert not ok and "gather 3 must come before forward 1" in msg and "prefetch" in msg
    ok, msg = verdict(check, make_prefetching(prefetch_backward=False), capsys)
    assert not ok and "gather 3 must come before backward 5" in msg
    ok, msg = verdict(check, make_prefetching(skip_gathered=False), capsys)
    assert not ok and "already materialised" in msg
    ok, msg = verdict(check, make_prefetching(backward_gather=False), capsys)
    assert not ok and "NaN" in msg and "backward pre-hook" in msg
    ok, msg = verdict(check, make_prefetching(return_handles=False), capsys)
    assert not ok and "list of handles" in msg
    ok, msg = verdict(check, stub, capsys)
    assert not ok and "not implemented yet" in msg
