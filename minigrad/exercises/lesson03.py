"""Checks for lesson 03 (retain_grad and post-accumulate hooks): counting the
bytes held in ``.grad`` and the optimizer step inside backward.

The checks build small models from minigrad tensors, compare against a plain
SGD step computed with numpy, and look at which ``.grad`` are still alive.
Checks print one verdict and never raise.
"""
import numpy as np

import minigrad as torch

from . import Result, compare_values, run_check

__all__ = ["check_grad_bytes", "check_attach_sgd"]


def check_grad_bytes(grad_bytes):
    """``grad_bytes(params)`` returns how many bytes the ``.grad`` of ``params`` hold
    right now (``None`` grads count 0)."""
    def body():
        a = torch.zeros(3, 4, requires_grad=True)
        b = torch.zeros(5, requires_grad=True)
        c = torch.zeros(2, 2, dtype=torch.float64, requires_grad=True)
        def verdict(text, params, want):
            got = grad_bytes(params)
            if got == want:
                return None
            hint = ""
            elements = sum(p.grad.numel() for p in params if p.grad is not None)
            if want and got == elements:
                hint = " That is a count of elements: multiply by the bytes per element (element_size())."
            elif want and got == elements * 4:
                hint = " float64 elements take 8 bytes: use each gradient's own element_size()."
            return Result(False, f"{text}: got {got}, expected {want} bytes.{hint}")

        steps = [("no .grad yet", lambda: None, 0),
                 (".grad of a (3x4 float32) and b (5 float32)",
                  lambda: (a.sum() + b.sum()).backward(), 12 * 4 + 5 * 4),
                 ("plus c (2x2 float64)", lambda: c.sum().backward(), 12 * 4 + 5 * 4 + 4 * 8),
                 ("after a.grad = None", lambda: setattr(a, "grad", None), 5 * 4 + 4 * 8)]
        for text, action, want in steps:
            action()
            bad = verdict(text, [a, b, c], want)
            if bad is not None:
                return bad
        return Result(True, "grad_bytes counts the live gradient bytes.")
    return run_check("grad_bytes", body)


def _model():
    rng = np.random.default_rng(0)
    shapes = [(4, 3), (3,), (3, 2), (2,)]
    return [torch.tensor(rng.normal(size=s).astype(np.float32), requires_grad=True) for s in shapes]


def _loss(params, x):
    w1, b1, w2, b2 = params
    return ((x @ w1 + b1).relu() @ w2 + b2).pow(2).mean()


def check_attach_sgd(attach_sgd):
    """``attach_sgd(params, lr)`` registers, on every parameter, a post-accumulate-grad
    hook that does one SGD step (``p -= lr * p.grad``) and then frees the gradient
    (``p.grad = None``). It returns the list of handles."""
    def body():
        x = torch.tensor(np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4))
        lr = 0.1
        reference = _model()
        _loss(reference, x).backward()
        want = [p.detach().numpy() - lr * p.grad.numpy() for p in reference]

        params = _model()
        handles = attach_sgd(params, lr)
        if handles is None or len(list(handles)) != len(params):
            n = 0 if handles is None else len(list(handles))
            return Result(False, f"attach_sgd returned {n} handles, expected {len(params)} (one per parameter).")
        _loss(params, x).backward()
        for i, (p, w) in enumerate(zip(params, want)):
            result = compare_values(f"parameter {i} after one backward", p, w)
            if not result:
                if np.allclose(p.detach().numpy(), _model()[i].detach().numpy()):
                    result.message += " It did not move: was the hook registered and does it update p in place?"
                return result
        still = [i for i, p in enumerate(params) if p.grad is not None]
        if still:
            return Result(False, f"the parameters step correctly, but .grad of parameter(s) {still} is "
                                 "still held after backward: set p.grad = None in the hook.")
        for h in handles:
            h.remove()
        before = [p.detach().numpy().copy() for p in params]
        _loss(params, x).backward()
        if any(not np.allclose(p.detach().numpy(), b) for p, b in zip(params, before)):
            return Result(False, "after removing the handles the parameters still moved.")
        return Result(True, "one SGD step per parameter inside backward, gradients freed, handles work.")
    return run_check("attach_sgd", body)
