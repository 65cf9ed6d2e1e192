"""The exercise checks of lessons 08-09: a right answer gets ✅, typical wrong answers get
a specific ❌, a stub gets "not implemented yet", and no check ever raises."""

import numpy as np


from exercise_support import stub
from exercise_support import verdict as _verdict


def verdict(check, fn, capsys):
    """(ok, message) of the check's verdict on ``fn``."""
    result = _verdict(check, fn, capsys)
    return result, result.message


# --- lesson 08 ---------------------------------------------------------------------------
import warnings

import minigrad as torch
from minigrad.exercises import lesson08 as l08

MODULE_ORDER = ["forward pre-hook", "forward", "forward hook", "tensor hook on out",
                "backward pre-hook", "full backward hook", "tensor hook on x"]


def swapped(order, a, b):
    order = list(order)
    i, j = order.index(a), order.index(b)
    order[i], order[j] = order[j], order[i]
    return order


def test_l08_module_hook_order(capsys):
    check = l08.check_module_hook_order
    assert verdict(check, lambda: list(MODULE_ORDER), capsys)[0]
    ok, msg = verdict(check, lambda: swapped(MODULE_ORDER, "tensor hook on out", "backward pre-hook"),
                      capsys)
    assert not ok and "event 4 is 'backward pre-hook'" in msg and "before that node runs" in msg
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
    ok, msg = verdict(check, stub, capsys)
    assert not ok and "not implemented yet" in msg


def reversal_right(module, lam):
    return module.register_full_backward_hook(
        lambda mod, gi, go: tuple(None if g is None else -lam * g for g in gi))


def reversal_pre_hook(module, lam):
    return module.register_full_backward_pre_hook(lambda mod, go: tuple(-lam * g for g in go))


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
    ok, msg = verdict(check, stub, capsys)
    assert not ok and "not implemented yet" in msg


# --- lesson 09 ---------------------------------------------------------------------------
from minigrad.autograd import op_hooks
from minigrad.exercises import lesson09 as l09

FLOP_OPS = ("mm", "addmm", "convolution")


def make_counter(factor=2, remove=True, with_bias=False, ops=FLOP_OPS):
    def count_flops(fn, x):
        flops = {}

        def hook(name, args, out):
            if name not in ops:
                return
            if name == "relu":
                f = out.numel()
            elif name == "convolution":
                weight = args[1]
                n, cout, h, w = out.shape
                f = factor * n * cout * h * w * weight.shape[1] * weight.shape[2] * weight.shape[3]
            else:
                a, b = (args[1], args[2]) if name == "addmm" else (args[0], args[1])
                f = factor * a.shape[0] * a.shape[1] * b.shape[1]
                if with_bias and name == "addmm":
                    f += out.shape[0] * out.shape[1]
            flops[name] = flops.get(name, 0) + f
        handle = op_hooks.register_op_forward_hook(hook)
        fn(x)
        if remove:
            handle.remove()
        return flops
    return count_flops


def test_l09_count_flops(capsys):
    assert verdict(l09.check_count_flops, make_counter(), capsys)[0]
    ok, msg = verdict(l09.check_count_flops, make_counter(factor=1), capsys)
    assert not ok and "multiply-add is 2 FLOPs" in msg
    ok, msg = verdict(l09.check_count_flops, make_counter(with_bias=True), capsys)
    assert not ok and "bias" in msg
    ok, msg = verdict(l09.check_count_flops, make_counter(ops=("mm", "addmm", "convolution", "relu")),
                      capsys)
    assert not ok and "count only mm, addmm and convolution" in msg
    before = len(op_hooks._op_forward_hooks)
    ok, msg = verdict(l09.check_count_flops, make_counter(remove=False), capsys)
    assert not ok and "left registered" in msg
    assert len(op_hooks._op_forward_hooks) == before                # the check cleaned up
    ok, msg = verdict(l09.check_count_flops, stub, capsys)
    assert not ok and "not implemented yet" in msg


def make_fsdp(pre_backward=True, free_once=True, forward_free=True, return_handles=True,
              all_children=False):
    def attach_fsdp_hooks(model, gather, free):
        handles = []
        for child in model.children():
            params = list(child.parameters())
            if not params and not all_children:
                continue
            handles.append(child.register_forward_pre_hook(lambda m, args: gather(m)))
            if forward_free:
                handles.append(child.register_forward_hook(lambda m, args, out: free(m)))
            if pre_backward:
                handles.append(child.register_full_backward_pre_hook(lambda m, go: gather(m)))
            seen = {"n": 0}

            def ready(p, child=child, seen=seen, total=len(params)):
                seen["n"] += 1
                if not free_once or seen["n"] == total:
                    seen["n"] = 0
                    free(child)
            handles += [p.register_post_accumulate_grad_hook(ready) for p in params]
        return handles if return_handles else None
    return attach_fsdp_hooks


def test_l09_fsdp_hooks(capsys):
    assert verdict(l09.check_fsdp_hooks, make_fsdp(), capsys)[0]
    ok, msg = verdict(l09.check_fsdp_hooks, make_fsdp(pre_backward=False), capsys)
    assert not ok and "register_full_backward_pre_hook" in msg
    ok, msg = verdict(l09.check_fsdp_hooks, make_fsdp(free_once=False), capsys)
    assert not ok and "freed 2 times, expected once" in msg
    ok, msg = verdict(l09.check_fsdp_hooks, make_fsdp(forward_free=False), capsys)
    assert not ok and "the forward events" in msg
    ok, msg = verdict(l09.check_fsdp_hooks, make_fsdp(all_children=True), capsys)
    assert not ok and "only children that have parameters" in msg
    ok, msg = verdict(l09.check_fsdp_hooks, make_fsdp(return_handles=False), capsys)
    assert not ok and "list of handles" in msg
    ok, msg = verdict(l09.check_fsdp_hooks, stub, capsys)
    assert not ok and "not implemented yet" in msg
