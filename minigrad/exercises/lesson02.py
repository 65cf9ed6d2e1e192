"""Checks for lesson 02 (tensor hooks): predicting what several hooks on one tensor
produce, a hook that clips each row of a gradient, and a hook that finds the first
non-finite gradient of a training run.

Each check registers the learner's hooks on minigrad tensors, runs real backward
passes and compares with values worked out by hand (numpy) or with what minigrad's
engine does. Checks print one verdict and never raise.
"""
import numpy as np

import minigrad as torch

from . import (Result as _Result, compare_values as _compare_values, run_check as _run_check,
               shortcut_taken as _shortcut_taken)

__all__ = ["check_predict_chain", "check_clip_hook", "check_attach_nan_watch"]


def _row_factors(g, max_norm):
    """The factor each row of ``g`` is multiplied by (1 for rows within max_norm)."""
    norms = np.linalg.norm(g, axis=1)
    return np.where(norms > max_norm, max_norm / np.where(norms > 0, norms, 1.0), 1.0)


def _row_clip(g, max_norm):
    return (g * _row_factors(g, max_norm)[:, None]).astype(np.float32)


def check_clip_hook(make_clip_hook):
    """``make_clip_hook(max_norm)`` returns a tensor hook for a 2-D gradient that
    rescales every row whose L2 norm is larger than ``max_norm`` to norm ``max_norm``
    and leaves the other rows as they are."""
    def body():
        cases = [
            ([[3.0, 4.0], [0.3, 0.4]], 1.0),
            ([[6.0, -8.0, 0.0], [1.0, 2.0, 2.0], [0.0, 0.0, 0.0]], 2.5),
            ([[1.0, 1.0], [-2.0, 0.5], [0.1, 0.0], [10.0, 0.0]], 1.5),
            ([[0.5, 0.5, 0.5, 0.5]], 10.0),
        ]
        for rows, max_norm in cases:
            hook = make_clip_hook(max_norm)
            if not callable(hook):
                return _Result(False, f"make_clip_hook({max_norm}) returned {type(hook).__name__}, "
                                     "expected a function (the hook).")
            g = np.array(rows, dtype=np.float32)
            x = torch.zeros(*g.shape, requires_grad=True)
            x.register_hook(hook)
            try:
                (x * torch.tensor(g)).sum().backward()      # the gradient reaching x is g
            except (RuntimeError, ValueError) as exc:
                hint = ""
                if "broadcast" in str(exc) or "size" in str(exc):
                    hint = (" The row norms must keep a column to broadcast against the rows: "
                            ".sum(dim=1, keepdim=True) gives shape [rows, 1].")
                return _Result(False, f"on the gradient {rows} the hook failed: {exc}.{hint}")
            want = _row_clip(g, max_norm)
            what = f"the clipped gradient of {rows} with max_norm={max_norm}"
            result = _compare_values(what, x.grad, want)
            if result:
                continue
            got = x.grad
            if got is None or tuple(got.shape) != g.shape:
                return result
            got = got.detach().numpy()
            norm = float(np.linalg.norm(g))
            if np.isnan(got).any():
                result.message += (" There is a nan: a row of zeros has norm 0, and dividing by it "
                                   "gives nan. Rows with norm <= max_norm are left as they are.")
            elif np.allclose(got, g * min(1.0, max_norm / norm), atol=1e-5):
                result.message += (" That rescales the whole matrix by one factor, as section 4's "
                                   "clipper does: here each row is clipped by its own norm.")
            elif np.allclose(got, np.clip(g, -max_norm, max_norm), atol=1e-5):
                result.message += (" That is clipping each value (clamp); rescale each row instead: "
                                   "row * (max_norm / its norm).")
            elif g.shape[0] == g.shape[1] and np.allclose(
                    got, g * _row_factors(g, max_norm)[None, :], atol=1e-5):
                result.message += (" Row i's factor was applied to column i: the row norms need "
                                   "shape [rows, 1] to broadcast along the rows, "
                                   ".sum(dim=1, keepdim=True).")
            elif np.allclose(got, _row_clip(g.T, max_norm).T, atol=1e-5):
                result.message += (" That clips the columns (norms over dim 0); a row is g[i], its "
                                   "norm is over dim=1.")
            else:
                small = np.linalg.norm(g, axis=1) <= max_norm
                if small.any() and not np.allclose(got[small], g[small], atol=1e-5):
                    result.message += (" A row whose norm is already <= max_norm must stay "
                                       "unchanged.")
            return result
        return _Result(True, "the hook clips every row to max_norm by its own norm and keeps "
                            "the rows below it.")
    return _run_check("make_clip_hook", body)


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
            got, taken = _shortcut_taken(predict_chain, g.clone(), list(hooks))
            if taken:
                return _Result(False, "predict_chain registered the hooks and ran a backward pass: "
                                     "that asks the engine instead of predicting it. Call the hooks "
                                     "yourself, in the order you believe the engine uses.")
            x = torch.zeros(3, requires_grad=True)
            for h in hooks:
                x.register_hook(h)
            (x * g).sum().backward()
            result = _compare_values(f"predict_chain with hooks {names}", got, x.grad)
            if not result and "wrong values" in result.message:
                # which value is wrong and why, never the value the engine uses
                result = _Result(False, f"predict_chain with hooks {names} on the gradient "
                                        f"{g.tolist()} returns {got.tolist()}, not what the "
                                        "engine uses.")
            if not result:
                if got is not None and tuple(getattr(got, "shape", ())) == (3,):
                    reverse = g.clone()
                    for h in reversed(hooks):
                        r = h(reverse)
                        reverse = reverse if r is None else r
                    last = g.clone()
                    for h in hooks:                      # each hook on the original gradient
                        r = h(g.clone())
                        last = last if r is None else r
                    if np.allclose(np.asarray(got.tolist()), reverse.tolist()):
                        result.message += (" That is the LIFO order: hooks run in registration "
                                           "order, each one getting the previous one's result.")
                    elif np.allclose(np.asarray(got.tolist()), last.tolist()):
                        result.message += (" That is what the last hook makes of the original "
                                           "gradient: the hooks are chained, each one gets what the "
                                           "previous one returned.")
                    else:
                        result.message += " (A hook returning None keeps the gradient unchanged.)"
                return result
        return _Result(True, "predict_chain matches the engine: registration order, chained.")
    return _run_check("predict_chain", body)


# --- the first non-finite gradient of a run ---------------------------------------------
def _mlp_run(watch):
    """Five SGD steps of a small MLP; the batch of step 3 holds a nan. ``watch(params)``
    registers hooks on the parameters ({name: tensor}) and returns something (handles)."""
    rng = np.random.default_rng(0)
    params = {"w1": torch.tensor(rng.normal(size=(3, 4)).astype(np.float32), requires_grad=True),
              "w2": torch.tensor(rng.normal(size=(4, 1)).astype(np.float32), requires_grad=True)}
    handles = watch(params)
    for step in range(1, 6):
        x = rng.normal(size=(8, 3)).astype(np.float32)
        if step == 3:
            x[2, 1] = np.nan
        t = torch.tensor(rng.normal(size=(8, 1)).astype(np.float32))
        loss = ((torch.tensor(x) @ params["w1"]).tanh() @ params["w2"] - t).pow(2).mean()
        loss.backward()
        with torch.no_grad():
            for p in params.values():
                p -= 0.1 * p.grad
                p.grad = None
    return handles


def _sqrt_run(watch):
    """Three passes of ``(a.sqrt() * b).sum()``; before pass 2, a gets a 0, so a's
    gradient b / (2 sqrt(a)) is +inf there (no nan). Returns the handles and the
    gradients of each pass."""
    params = {"b": torch.tensor([2.0, 1.0], requires_grad=True),
              "a": torch.tensor([1.0, 4.0], requires_grad=True)}
    handles = watch(params)
    grads = []
    for value in ([1.0, 4.0], [0.0, 4.0], [1.0, 0.0]):
        with torch.no_grad():
            params["a"].copy_(torch.tensor(value))
        (params["a"].sqrt() * params["b"]).sum().backward()
        grads.append({n: p.grad.tolist() for n, p in params.items()})
        for p in params.values():
            p.grad = None
    return handles, grads


def _first_nonfinite(run):
    """The (step, name) of the first non-finite gradient the hooks receive in ``run``,
    found with plain recording hooks (minigrad's engine gives the order)."""
    seen, calls = [], {}

    def watch(params):
        for name, p in params.items():
            def hook(g, name=name):
                calls[name] = calls.get(name, 0) + 1
                seen.append((calls[name], name, bool(np.isfinite(g.detach().numpy()).all())))
            p.register_hook(hook)
    run(watch)
    return next((step, name) for step, name, finite in seen if not finite), seen


def check_attach_nan_watch(attach_nan_watch):
    """``attach_nan_watch(params, found)`` registers a hook on each tensor of ``params``
    ({name: tensor}); the first time one of them receives a gradient with a nan or an
    inf, ``(step, name)`` is appended to ``found`` (step: how many gradients that tensor
    has received, from 1), and never again. Gradients pass unchanged. Returns the handles."""
    def body():
        # 1. a training run where a nan enters at step 3
        want, seen = _first_nonfinite(_mlp_run)
        found = []
        handles = _mlp_run(lambda params: attach_nan_watch(params, found))
        if handles is None or len(list(handles)) != 2:
            n = 0 if handles is None else len(list(handles))
            return _Result(False, f"attach_nan_watch returned {n} handle(s), expected 2 (one per "
                                 "tensor of params).")
        order = ", ".join(f"{n}" for s, n, _ in seen if s == want[0])
        if found != [want]:
            hint = ""
            if found and found[0] == want and len(found) > 1:
                hint = (" Record only the first one: later non-finite gradients (the other "
                        "parameter, the next steps) add nothing.")
            elif found and found[0][1] != want[1] and found[0][0] == want[0]:
                hint = (f" At step {want[0]} the engine hands out the gradients in the order "
                        f"{order}: the first hook to see a nan is {want[1]}'s, whatever the order "
                        "in params.")
            elif found and found[0][0] != want[0] and found[0][1] == want[1]:
                hint = " The step is how many gradients that tensor's hook has received so far, from 1."
                if found[0][0] > want[0]:
                    hint += (" Yours counts more: do all your hooks share one counter? The hooks "
                             "made in a for loop all see the loop's variables as they are at the "
                             "end; make each hook in a helper function that gets its own name "
                             "and counter.")
            elif not found:
                hint = (" Nothing was recorded: test each gradient with torch.isfinite(g).all() "
                        "(false for nan and inf).")
            return _Result(False, f"on a 5-step training run whose batch 3 holds a nan, found is "
                                 f"{found}, expected [{want}].{hint}")
        # 2. an inf without any nan; the gradients must not change
        want, _ = _first_nonfinite(lambda watch: _sqrt_run(watch)[0])
        _, reference = _sqrt_run(lambda params: None)
        found = []
        _, grads = _sqrt_run(lambda params: attach_nan_watch(params, found))
        if found != [want]:
            hint = ""
            if not found:
                hint = (" b / (2 * sqrt(0)) is inf, not nan: torch.isnan misses it, "
                        "torch.isfinite does not.")
            return _Result(False, f"on (a.sqrt() * b).sum() with a 0 in a at pass 2, found is "
                                 f"{found}, expected [{want}].{hint}")
        if grads != reference:
            return _Result(False, f"your hooks changed the gradients (got {grads}, expected "
                                 f"{reference}): the watch only looks, it returns None.")
        # 3. the handles remove the hooks
        found = []

        def removed(params):
            for h in attach_nan_watch(params, found):
                h.remove()
        _sqrt_run(removed)
        if found:
            return _Result(False, "after removing the handles your hooks still recorded "
                                 f"{found}: return the handles register_hook gave you.")
        return _Result(True, "the watch names the first non-finite gradient and its step, once, "
                            "and leaves the gradients alone.")
    return _run_check("attach_nan_watch", body)
