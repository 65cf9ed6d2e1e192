"""Checks for lesson 03 (retain_grad and post-accumulate hooks): predicting what a
second backward pass leaves in ``.grad``, gradient accumulation over micro-batches
inside backward, and ``retain_grad`` rebuilt from hooks.

Expectations come from minigrad itself: the same graph with the real ``retain_grad``,
or plain SGD on the summed gradients computed with numpy. Checks print one verdict
and never raise.
"""
import numpy as np

import minigrad as torch

from . import (Result as _Result, compare_values as _compare_values, run_check as _run_check,
               shortcut_taken as _shortcut_taken)

__all__ = ["check_predict_second_backward", "check_attach_sgd_every", "check_my_retain_grad"]


# --- exercise 1: predict the second pass of section 2's graph ------------------------------
def _section2(passes):
    """Section 2's graph, run ``passes`` times: y = x * 2 with retain_grad, a tensor hook
    that adds 1, ``y.sum().backward()``. Returns (y.grad, x.grad) as lists."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g + 1)
    for _ in range(passes):
        y.sum().backward(retain_graph=True)
    return y.grad.tolist(), x.grad.tolist()


def _as_floats(value):
    if hasattr(value, "tolist"):
        value = value.tolist()
    return [float(v) for v in value]


def check_predict_second_backward(predict_second_backward):
    """``predict_second_backward()`` returns the learner's prediction ``(y_grad, x_grad)``
    of ``y.grad`` and ``x.grad`` after the second ``y.sum().backward()`` of section 3."""
    def body():
        got, taken = _shortcut_taken(predict_second_backward)
        if taken:
            return _Result(False, "predict_second_backward ran a backward pass to read the values: "
                                 "that measures them instead of predicting them. Return the two "
                                 "lists you expect, worked out from the cell above; section 3 "
                                 "then runs the pass.")
        want_y, want_x = _section2(2)
        once_y, once_x = _section2(1)
        try:
            got_y, got_x = (_as_floats(v) for v in got)
        except (TypeError, ValueError):
            return _Result(False, f"predict_second_backward() returned {got!r}: return two lists, "
                                 f"(y.grad, x.grad), e.g. ([0.0, 0.0], [0.0, 0.0]).")
        # (name, prediction, answer, value after one pass, why if that, why otherwise)
        for name, got_v, want_v, once_v, why_once, why_else in [
                ("y.grad", got_y, want_y, once_y,
                 "that is y.grad after one pass. A retained gradient accumulates like a "
                 "leaf's: pass 2 adds its gradient to what pass 1 left.",
                 "in each pass the tensor hook turns the gradient of y, 1, into 1 + 1, and "
                 "retain_grad stores what the hook returned. What does pass 2 do with the "
                 "value pass 1 left in y.grad?"),
                ("x.grad", got_x, want_x, once_x,
                 "that is x.grad after one pass: a second backward adds to x.grad, it never "
                 "overwrites it.",
                 "in each pass x gets dy/dx = 2 times the hooked gradient of y, and a "
                 "second backward adds to x.grad, it never overwrites it.")]:
            if got_v != want_v:
                why = why_once if got_v == once_v else why_else
                return _Result(False, f"you predict {name} = {got_v}, which is not what the "
                                     f"second pass leaves: {why}")
        return _Result(True, f"right: y.grad = {want_y} and x.grad = {want_x}, both accumulated.")
    return _run_check("predict_second_backward", body)


# --- exercise 2: gradient accumulation inside backward -------------------------------------
def _model():
    rng = np.random.default_rng(0)
    shapes = [(4, 3), (3,), (3, 2), (2,)]
    return [torch.tensor(rng.normal(size=s).astype(np.float32), requires_grad=True) for s in shapes]


def _loss(params, x):
    w1, b1, w2, b2 = params
    return ((x @ w1 + b1).relu() @ w2 + b2).pow(2).mean()


def _batches(n):
    rng = np.random.default_rng(1)
    return [torch.tensor(rng.normal(size=(5, 4)).astype(np.float32)) for _ in range(n)]


def check_attach_sgd_every(attach_sgd_every):
    """``attach_sgd_every(params, lr, k)`` registers post-accumulate-grad hooks so that
    each parameter takes one SGD step with the mean of its last ``k`` gradients, on
    every ``k``-th gradient it receives, and then frees its gradient. Returns the handles."""
    def body():
        lr, k = 0.1, 3
        batches = _batches(2 * k)
        # the expectation: plain SGD on the mean gradient of each group of k micro-batches
        want = [p.detach().numpy().copy() for p in _model()]
        for start in (0, k):
            ref = [torch.tensor(w, requires_grad=True) for w in want]
            for x in batches[start:start + k]:
                _loss(ref, x).backward()
            want = [p.detach().numpy() - lr * p.grad.numpy() / k for p in ref]

        params = _model()
        start_values = [p.detach().numpy().copy() for p in params]
        handles = attach_sgd_every(params, lr, k)
        if handles is None or len(list(handles)) != len(params):
            n = 0 if handles is None else len(list(handles))
            return _Result(False, f"attach_sgd_every returned {n} handles, expected {len(params)} "
                                 "(one per parameter).")
        # registered after the learner's hooks: which .grad each of them left behind
        held_after_hook = []
        spies = [p.register_post_accumulate_grad_hook(
            lambda p, j=j: held_after_hook.append(j) if p.grad is not None else None)
            for j, p in enumerate(params)]
        for i, x in enumerate(batches, 1):
            held_after_hook.clear()
            _loss(params, x).backward()
            if i % k == 0 and held_after_hook and not any(p.grad is not None for p in params):
                return _Result(False, f"after micro-batch {i} (a step) parameter {held_after_hook[0]} "
                                     "still held its gradient when its own hook had run: another "
                                     "hook stepped it later. Step and free each parameter in its own "
                                     "hook, as soon as its k-th gradient is in (that is what keeps "
                                     "one gradient alive at a time, section 4).")
            if i % k:
                moved = [j for j, (p, s) in enumerate(zip(params, start_values))
                         if not np.allclose(p.detach().numpy(), s)]
                if moved:
                    return _Result(False, f"after micro-batch {i} of {k} parameter {moved[0]} already "
                                         f"moved: a parameter steps once it has received {k} "
                                         "gradients (each parameter counts its own), and its "
                                         ".grad accumulates until then.")
                if any(p.grad is None for p in params):
                    return _Result(False, f"after micro-batch {i} of {k} a .grad is None: keep the "
                                         "gradients until the step, so they accumulate.")
            else:
                held = [j for j, p in enumerate(params) if p.grad is not None]
                if held:
                    return _Result(False, f"after micro-batch {i} (a step) .grad of parameter(s) {held} "
                                         "is still held: set p.grad = None after the step, or the "
                                         "next group adds to it.")
                start_values = [p.detach().numpy().copy() for p in params]
        for j, (p, w) in enumerate(zip(params, want)):
            result = _compare_values(f"parameter {j} after {2 * k} micro-batches (2 steps)", p, w)
            if not result:
                result.message += (f" The step uses the mean of the {k} accumulated gradients: "
                                   f"p -= lr * p.grad / {k}.")
                return result
        for h in [*handles, *spies]:
            h.remove()
        before = [p.detach().numpy().copy() for p in params]
        for x in batches[:k]:
            _loss(params, x).backward()
        if any(not np.allclose(p.detach().numpy(), b) for p, b in zip(params, before)):
            return _Result(False, "after removing the handles the parameters still moved.")
        return _Result(True, f"one SGD step every {k} micro-batches with their mean gradient, "
                            "gradients freed after each step, handles work.")
    return _run_check("attach_sgd_every", body)


# --- exercise 3: retain_grad from hooks -----------------------------------------------------
def _scenarios():
    """(description, build) pairs: build(retain) makes a graph, calls retain(y) where
    the learner's function (or the real retain_grad) goes, then registers more hooks
    and runs the passes. Returns x."""
    def hooked_later(retain):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        retain(y)
        y.register_hook(lambda g: g + 1)         # registered after: still seen
        (y * y).sum().backward()
        return x

    def used_twice(retain):
        x = torch.tensor([1.0, -1.0, 0.5], requires_grad=True)
        y = x.exp()
        retain(y)
        (y * 3 + y.sin()).sum().backward()
        return x

    def two_passes(retain):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        retain(y)
        y.register_hook(lambda g: g * 10)
        out = (y * y).sum()
        out.backward(retain_graph=True)
        out.backward()
        return x

    def second_output(retain):
        x = torch.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)
        a, b = x.unbind(0)                       # one node, two outputs: b is output 1
        retain(b)
        (a * 2 + b * b).sum().backward()
        return x

    return [("a hook registered after yours", hooked_later),
            ("a tensor used twice", used_twice),
            ("two backward passes", two_passes),
            ("the second output of a node (a, b = x.unbind(0))", second_output)]


def check_my_retain_grad(my_retain_grad):
    """``my_retain_grad(t, store)`` makes ``store["grad"]`` hold, after each backward
    pass, what ``t.grad`` would hold had ``t.retain_grad()`` been called: the gradient
    after every tensor hook of ``t`` (also those registered later), summed over passes
    into a new tensor. Without calling ``retain_grad`` and without changing gradients."""
    def body():
        for text, build in _scenarios():
            kept = {}

            def real(t):
                t.retain_grad()
                kept["t"] = t
            x_real = build(real)
            want = kept["t"].grad

            store, snapshots, called = {}, [], []
            original = torch.Tensor.retain_grad

            def spy(self, *args, **kwargs):
                called.append(self)
                return original(self, *args, **kwargs)

            def learner(t):
                kept["t"] = t
                torch.Tensor.retain_grad = spy
                try:
                    my_retain_grad(t, store)
                finally:
                    torch.Tensor.retain_grad = original
                if t.grad_fn is not None:              # watch the stored tensor between passes
                    t.grad_fn.register_hook(lambda gi, go: snapshots.append(
                        (store.get("grad"), None if store.get("grad") is None
                         else store["grad"].detach().numpy().copy())))
            x_got = build(learner)
            if called or kept["t"].retains_grad:
                return _Result(False, "my_retain_grad called t.retain_grad(): the exercise is to "
                                     "build it from hooks.")
            if kept["t"].grad_fn._retains_grad_hooks:
                return _Result(False, "my_retain_grad installed retain_grad's own hook on t.grad_fn "
                                     "(_set_retains_grad_hook): that is t.retain_grad() without "
                                     "its name. Build it from the public hooks instead.")
            got = store.get("grad")
            if got is None:
                return _Result(False, f"with {text}: store['grad'] is missing after backward; store "
                                     "the gradient in store['grad'].")
            result = _compare_values(f"store['grad'] with {text}", got, want)
            if not result:
                if text.startswith("a hook registered after"):
                    result.message += (" A tensor hook registered now runs before the hooks "
                                       "registered later, so it sees the gradient before them. "
                                       "What runs after every tensor hook of t? (Section 2.)")
                elif text.startswith("two backward"):
                    result.message += (" retain_grad adds each pass's gradient to the stored one "
                                       "(old + new).")
                elif text.startswith("the second output"):
                    result.message += (" A node pre-hook gets one gradient per output of the node: "
                                       "t's is grad_outputs[t.output_nr].")
                return result
            changed = _compare_values(f"x.grad with {text} (your hooks must not change gradients)",
                                     x_got.grad, x_real.grad)
            if not changed:
                return changed
            if len(snapshots) >= 2:
                first, copy = snapshots[0]
                if first is not None and not np.allclose(first.detach().numpy(), copy):
                    return _Result(False, "the tensor stored after pass 1 changed during pass 2: "
                                         "retain_grad makes a new tensor, old + new, instead of "
                                         "adding in place.")
        return _Result(True, f"my_retain_grad stores what retain_grad would, in all "
                            f"{len(_scenarios())} scenarios.")
    return _run_check("my_retain_grad", body)
