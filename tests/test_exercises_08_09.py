"""The exercise checks of lessons 08-09: a right answer gets ✅, typical wrong answers get
a specific ❌, a stub gets "not implemented yet", and no check ever raises."""

from minigrad.nn.modules import module as module_mod


from exercise_support import stub
from exercise_support import verdict as _verdict


def verdict(check, fn, capsys):
    """(ok, message) of the check's verdict on ``fn``."""
    result = _verdict(check, fn, capsys)
    return result, result.message


# --- lesson 08 ---------------------------------------------------------------------------
from minigrad.exercises import lesson08 as l08


def shapes_right(model, x):
    shapes, handles = {}, []
    for name, child in model.named_children():
        handles.append(child.register_forward_hook(
            lambda mod, args, out, name=name: shapes.__setitem__(name, list(out.shape))))
    try:
        model(x)
    finally:
        for h in handles:
            h.remove()
    return shapes


def shapes_leaky(model, x):                    # forgets to remove the hooks
    shapes = {}
    for name, child in model.named_children():
        child.register_forward_hook(
            lambda mod, args, out, name=name: shapes.__setitem__(name, list(out.shape)))
    model(x)
    return shapes


def shapes_of_inputs(model, x):                # records the inputs, not the outputs
    shapes, handles = {}, []
    for name, child in model.named_children():
        handles.append(child.register_forward_pre_hook(
            lambda mod, args, name=name: shapes.__setitem__(name, list(args[0].shape))))
    model(x)
    for h in handles:
        h.remove()
    return shapes


def shapes_global_leak(model, x):
    module_mod.register_module_forward_hook(lambda *a: None)
    return shapes_right(model, x)


def test_l08_record_output_shapes(capsys):
    assert verdict(l08.check_record_output_shapes, shapes_right, capsys)[0]
    ok, msg = verdict(l08.check_record_output_shapes, shapes_leaky, capsys)
    assert not ok and "still registered" in msg
    ok, msg = verdict(l08.check_record_output_shapes, shapes_of_inputs, capsys)
    assert not ok and "child '0' (Conv2d): shape [3, 1, 8, 8], expected [3, 16, 8, 8]" in msg
    ok, msg = verdict(l08.check_record_output_shapes, lambda m, x: list(shapes_right(m, x).values()),
                      capsys)
    assert not ok and "return a dict" in msg
    ok, msg = verdict(l08.check_record_output_shapes,
                      lambda m, x: {k: v for k, v in shapes_right(m, x).items() if k != "3"}, capsys)
    assert not ok and "['3'] are missing" in msg
    before = len(module_mod._global_forward_hooks)
    ok, msg = verdict(l08.check_record_output_shapes, shapes_global_leak, capsys)
    assert not ok and "global module hook" in msg
    assert len(module_mod._global_forward_hooks) == before      # the check cleaned up
    ok, msg = verdict(l08.check_record_output_shapes, stub, capsys)
    assert not ok and "not implemented yet" in msg


def make_cam(use="grad_output", normalise=True, relu=True, remove=True, mean_dims=(1, 2)):
    def grad_cam(model, layer, image, target):
        saved = {}
        h1 = layer.register_forward_hook(lambda mod, args, out: saved.update(A=out.detach(),
                                                                             X=args[0].detach()))
        h2 = layer.register_full_backward_hook(
            lambda mod, gi, go: saved.update(dA=go[0], dX=gi[0]))
        model.eval()
        model(image[None])[0, target].backward()
        if remove:
            h1.remove()
            h2.remove()
        A, dA = (saved["A"][0], saved["dA"][0]) if use == "grad_output" else (saved["X"][0], saved["dX"][0])
        cam = (dA.mean(dim=mean_dims)[:, None, None] * A).sum(0) if mean_dims == (1, 2) else \
            (dA.mean(dim=0) * A.sum(0))
        if relu:
            cam = cam.relu()
        top = cam.max().item()
        if normalise and top > 0:
            cam = cam / top
        return cam.numpy()
    return grad_cam


def cam_tensor_hook(model, layer, image, target):
    saved = {}

    def fwd(mod, args, out):
        saved["A"] = out.detach()
        out.register_hook(lambda g: saved.update(dA=g))
    h = layer.register_forward_hook(fwd)
    try:
        model(image[None])[0, target].backward()
    finally:
        h.remove()
    cam = (saved["dA"][0].mean(dim=(1, 2))[:, None, None] * saved["A"][0]).sum(0).relu()
    top = cam.max().item()
    return cam / top if top > 0 else cam          # a tensor is accepted too


def test_l08_grad_cam(capsys):
    assert verdict(l08.check_grad_cam, make_cam(), capsys)[0]
    assert verdict(l08.check_grad_cam, cam_tensor_hook, capsys)[0]
    ok, msg = verdict(l08.check_grad_cam, make_cam(use="grad_input"), capsys)
    assert not ok and "layer's *input*" in msg
    ok, msg = verdict(l08.check_grad_cam, make_cam(relu=False), capsys)
    assert not ok and "ReLU" in msg
    ok, msg = verdict(l08.check_grad_cam, make_cam(normalise=False), capsys)
    assert not ok and "not normalised" in msg
    ok, msg = verdict(l08.check_grad_cam, make_cam(remove=False), capsys)
    assert not ok and "still registered" in msg
    ok, msg = verdict(l08.check_grad_cam, make_cam(mean_dims=0), capsys)
    assert not ok and "mean" in msg
    ok, msg = verdict(l08.check_grad_cam, lambda *a: None, capsys)
    assert not ok and "returned None" in msg
    ok, msg = verdict(l08.check_grad_cam, stub, capsys)
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
    ok, msg = verdict(l08.check_gradient_reversal, stub, capsys)
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
