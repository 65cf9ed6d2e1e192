"""Checks for lesson 02 (tensor hooks): a clipping hook, a gradient logger with
a handle, and predicting what several hooks on one tensor produce.

Each check registers the learner's hook on minigrad tensors, runs a real
backward pass and compares with values worked out by hand (numpy) or with what
minigrad's engine does. Checks print one verdict and never raise.
"""
import numpy as np

import minigrad as torch

from . import Result, compare_values, run_check

__all__ = ["check_clip_hook", "check_attach_logger", "check_predict_chain"]


def check_clip_hook(make_clip_hook):
    """``make_clip_hook(max_norm)`` returns a tensor hook that rescales the gradient
    to L2 norm ``max_norm`` when it is larger, and leaves it unchanged otherwise."""
    def body():
        cases = [([3.0, 4.0], 1.0), ([0.3, 0.4], 1.0), ([6.0, -8.0, 0.0], 2.5), ([1.0, 1.0], 10.0)]
        for g, max_norm in cases:
            hook = make_clip_hook(max_norm)
            if not callable(hook):
                return Result(False, f"make_clip_hook({max_norm}) returned {type(hook).__name__}, expected a function.")
            x = torch.zeros(len(g), requires_grad=True)
            x.register_hook(hook)
            (x * torch.tensor(g)).sum().backward()        # the gradient reaching x is g
            g = np.array(g, dtype=np.float32)
            norm = float(np.linalg.norm(g))
            want = g * (max_norm / norm) if norm > max_norm else g
            result = compare_values(f"the clipped gradient of {g.tolist()} with max_norm={max_norm}",
                                    x.grad, want)
            if not result:
                got = x.grad
                if got is not None and tuple(got.shape) == tuple(want.shape):
                    got_norm = float(np.linalg.norm(got.detach().numpy()))
                    if norm <= max_norm and abs(got_norm - norm) > 1e-4:
                        result.message += " A gradient already below max_norm must stay unchanged."
                    elif np.allclose(got.detach().numpy(), np.clip(g, -max_norm, max_norm)):
                        result.message += (" That is clipping each value (clamp); rescale the whole "
                                           "vector instead: g * (max_norm / norm).")
                return result
        return Result(True, "the clipping hook rescales large gradients and keeps small ones.")
    return run_check("make_clip_hook", body)


def check_attach_logger(attach_logger):
    """``attach_logger(t, log)`` registers a hook on ``t`` that appends a copy of each
    gradient to ``log`` (without changing it) and returns the handle."""
    def body():
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        log = []
        handle = attach_logger(y, log)
        if handle is None or not hasattr(handle, "remove"):
            return Result(False, "attach_logger must return the handle that register_hook gives you.")
        out = (y * 3).sum() + (y * y).sum()             # y used twice
        out.backward(retain_graph=True)
        if len(log) != 1:
            return Result(False, f"y is used twice, so its hook fires once with the summed gradient: "
                                 f"your hook fired {len(log)} times, expected once.")
        want = 3 + 2 * (x.detach().numpy() * 2)          # d/dy of 3y + y^2
        result = compare_values("the logged gradient", log[0], want)
        if not result:
            return result
        result = compare_values("x.grad (the hook must not change the gradient)", x.grad, 2 * want)
        if not result:
            return result
        before = log[0].detach().numpy().copy()
        handle.remove()
        (y * 1).sum().backward()                         # through y again, hook removed
        if len(log) != 1:
            return Result(False, "after handle.remove() the hook still fired.")
        if not np.allclose(log[0].detach().numpy(), before):
            return Result(False, "the logged gradient changed after a later backward pass: append "
                                 "a copy (g.clone()), not an object that may be updated.")
        return Result(True, "the logger fires once with the summed gradient, and its handle removes it.")
    return run_check("attach_logger", body)


def _hooks():
    return [
        ("double", lambda g: g * 2),
        ("add_one", lambda g: g + 1),
        ("observe", lambda g: None),
        ("square", lambda g: g * g),
        ("negate", lambda g: -g),
    ]


def check_predict_chain(predict_chain):
    """``predict_chain(grad, hooks)`` returns the gradient the engine uses after the
    ``hooks`` (a list, in registration order) were registered on one tensor. It is
    compared with what minigrad's engine really does."""
    def body():
        table = dict(_hooks())
        for names in (["double", "add_one"], ["add_one", "double"],
                      ["double", "observe", "add_one", "square"], ["negate", "observe"], []):
            hooks = [table[n] for n in names]
            g = torch.tensor([1.0, -2.0, 3.0])
            got = predict_chain(g.clone(), list(hooks))
            x = torch.zeros(3, requires_grad=True)
            for h in hooks:
                x.register_hook(h)
            (x * g).sum().backward()
            result = compare_values(f"predict_chain with hooks {names}", got, x.grad)
            if not result:
                if got is not None and tuple(getattr(got, "shape", ())) == (3,):
                    reverse = g.clone()
                    for h in reversed(hooks):
                        r = h(reverse)
                        reverse = reverse if r is None else r
                    if np.allclose(np.asarray(got.tolist()), reverse.tolist()):
                        result.message += (" That is the LIFO order: hooks run in registration "
                                           "order, each one getting the previous one's result.")
                    else:
                        result.message += " (A hook returning None keeps the gradient unchanged.)"
                return result
        return Result(True, "predict_chain matches the engine: registration order, chained.")
    return run_check("predict_chain", body)
