"""Checks for lesson 05 (multi-tensor hooks).

The expected values come from minigrad itself: ``autograd.grad`` of the same loss gives
each gradient, independently of any hook the learner registered; the prediction exercise
runs its scenario on minigrad's real engine and counts the calls.

``check_my_all_hook`` rejects an answer that calls ``register_multi_grad_hook``: the task
is to rebuild it (``watch_calls`` sees the call however it was imported).
"""
import numpy as np

from .. import autograd
from .._creation import tensor as _tensor
from ..autograd import graph
from . import (Result as _Result, compare_sequences as _compare_sequences,
               judge_returned_handles as _judge_returned_handles,
               check_prediction as _check_prediction, run_check as _run_check,
               watch_calls as _watch_calls)

__all__ = ["check_predict_counts", "check_grad_norm_when_ready", "check_my_all_hook",
           "COUNT_PASSES"]


# --- exercise 1: predict how often each hook fires -------------------------------------------
#: the three passes of the prediction exercise: (what the notebook shows, the loss)
COUNT_PASSES = [("((w * v).tanh() + w).sum().backward()", lambda w, v, u: ((w * v).tanh() + w).sum()),
                ("(w * 3).sum().backward()", lambda w, v, u: (w * 3).sum()),
                ("(u * u).sum().backward()", lambda w, v, u: (u * u).sum())]


def _run_counts():
    """The scenario of the prediction exercise on minigrad's real engine: the counts, and
    for each pass which of w and v it reached."""
    w = _tensor([1.0, -1.0], requires_grad=True)
    v = _tensor([2.0, 0.5], requires_grad=True)
    u = _tensor([3.0, 1.0], requires_grad=True)
    count = {"tensor hooks": 0, "all": 0, "any": 0}
    reached = []

    def bump(key, name=None):
        def hook(*args):
            count[key] += 1
            if name:
                reached[-1].append(name)
        return hook

    w.register_hook(bump("tensor hooks", "w"))
    v.register_hook(bump("tensor hooks", "v"))
    graph.register_multi_grad_hook((w, v), bump("all"))
    graph.register_multi_grad_hook((w, v), bump("any"), mode="any")
    for _, make in COUNT_PASSES:
        reached.append([])
        make(w, v, u).backward()
    return count, reached


def check_predict_counts(predict_counts):
    """``predict_counts()`` returns ``{"tensor hooks": n, "all": n, "any": n}``: how many
    times each kind of hook is called over the three passes of the exercise. It must
    predict: running a backward pass is rejected."""
    def judge(got):
        expected, reached = _run_counts()
        if not isinstance(got, dict) or set(got) != set(expected):
            return _Result(False, f"return a dict with the keys {sorted(expected)}, e.g. "
                                 f"{{'tensor hooks': 1, 'all': 1, 'any': 1}} (got {got!r}).")
        misses = []
        if got["tensor hooks"] != expected["tensor hooks"]:
            misses.append(
                f"tensor hooks: you said {got['tensor hooks']}, which is not the count. A tensor "
                "hook fires once per pass that reaches its tensor, on the summed gradient: w "
                "used twice in pass 1 still fires w's hook once. Which of w and v does each "
                "pass reach?")
        for mode in ("all", "any"):
            if got[mode] != expected[mode]:
                more = ("it waits for the tensors the pass will reach, not for all of them, and "
                        "gets None for the others" if mode == "all" else
                        "only the first gradient of a pass counts")
                misses.append(
                    f"{mode!r}: you said {got[mode]}, which is not the count. A multi-grad hook "
                    f"is called once per pass that reaches at least one of its tensors ({more}); "
                    "a pass that reaches none fires no inner tensor hook, so fn is not called")
        if misses:
            return _Result(False, "; ".join(misses) + ".")
        return _Result(True, f"{expected}: one call per pass that reaches a tensor, and none "
                            "for the pass that reaches neither.")
    return _check_prediction("predict_counts", predict_counts, "the counts", "a dict of counts",
                             "the cell after the exercise", judge)


def _layer():
    weight = _tensor([[0.5, -1.0], [2.0, 0.25], [-0.5, 1.5]], requires_grad=True)
    bias = _tensor([0.1, -0.2], requires_grad=True)
    return weight, bias


def _passes(weight, bias):
    """Three losses: two use the whole layer, the third only the weight."""
    x1 = _tensor([[1.0, 2.0, -1.0], [0.5, 0.0, 1.0]])
    x2 = _tensor([[-1.0, 1.0, 3.0]])
    return [lambda: ((x1 @ weight + bias).tanh() * 2).sum(),
            lambda: ((x2 @ weight + bias) ** 2).sum(),
            lambda: (x1 @ weight).sum()]


def _expected_norm(make_loss, weight, bias):
    gw, gb = autograd.grad(make_loss(), (weight, bias), allow_unused=True)
    total = sum(float((g._array.astype(np.float64) ** 2).sum()) for g in (gw, gb) if g is not None)
    return total ** 0.5


def check_grad_norm_when_ready(grad_norm_when_ready):
    """``grad_norm_when_ready(params, norms)`` registers ONE multi-grad hook on ``params``
    that, once per backward pass, appends the L2 norm of all their gradients (skipping
    None) to ``norms``, and returns the handle."""
    def body():
        weight, bias = _layer()
        passes = _passes(weight, bias)
        # computed before the learner's hook exists (autograd.grad would fire it)
        expected = [_expected_norm(make, weight, bias) for make in passes]
        norms = []
        handle = grad_norm_when_ready([weight, bias], norms)
        if handle is None or not hasattr(handle, "remove"):
            return _Result(False, "return the handle that register_multi_grad_hook gave you, so "
                                 "the caller can remove the hook.")
        for i, make in enumerate(passes):
            before = len(norms)
            try:
                make().backward()
            except (TypeError, AttributeError) as exc:
                if "NoneType" not in str(exc):
                    raise
                if i == 0:
                    return _Result(False, "your hook hit a None in the first pass: did you read "
                                         "p.grad? Inside an 'all' hook the gradients are not yet "
                                         "accumulated into .grad; use the grads argument. "
                                         f"({type(exc).__name__}: {exc})")
                return _Result(False, "in the pass where only the weight is used, the bias's "
                                     "entry in grads is None: skip None entries. "
                                     f"({type(exc).__name__}: {exc})")
            added = len(norms) - before
            if added != 1:
                return _Result(False, f"backward pass {i + 1} appended {added} value(s) to norms, "
                                     "expected exactly 1: one multi-grad hook fires once per "
                                     "pass (a hook per tensor fires once per tensor).")
            got = float(np.asarray(norms[-1]))
            if not np.isclose(got, expected[i], rtol=1e-4, atol=1e-6):
                hint = (" If you read p.grad: inside an 'all' hook .grad is not fully accumulated "
                        "yet (and it sums over passes); use the grads argument.")
                return _Result(False, f"backward pass {i + 1}: you appended {got:.6g}, expected "
                                     f"{expected[i]:.6g}.{hint}")
        handle.remove()
        _passes(weight, bias)[0]().backward()
        if len(norms) != len(passes):
            return _Result(False, "after handle.remove() the hook still fired: return the handle "
                                 "of the multi-grad hook itself.")
        return _Result(True, "one value per backward pass, the right norm, and the handle "
                            "removes the hook.")
    return _run_check("grad_norm_when_ready", body)


def check_my_all_hook(my_all_hook):
    """``my_all_hook(tensors, fn)`` rebuilds mode="all" from plain ``register_hook``:
    assuming every tensor gets a gradient in each pass, ``fn(grads)`` is called once per
    pass, with the gradients in the order of ``tensors``, and returns the handles of its
    hooks. Calling ``register_multi_grad_hook`` is rejected."""
    def body():
        with _watch_calls([graph.register_multi_grad_hook]) as used:
            result = _all_hook_body()
        if used:
            return _Result(False, "your my_all_hook calls register_multi_grad_hook: the exercise "
                                 "is to rebuild it from plain t.register_hook, one hook per "
                                 "tensor and a counter.")
        return result

    def _all_hook_body():
        def tensors():
            a = _tensor([1.0, 2.0], requires_grad=True)
            b = _tensor([3.0, 4.0], requires_grad=True)
            return a, a * 1, b * 1
        # every pass reaches a, p and q; q's node runs before p's, and both before a's.
        # They are handed over as [p, a, q]: the last to arrive is neither first nor last
        losses = [lambda a, p, q: (p * q).sum() + a.sum(),
                  lambda a, p, q: (a * 3 + q * 5 + p).sum(),
                  lambda a, p, q: (p * 2 * q).sum() + (a * a).sum()]
        expected = []
        for make in losses:            # on fresh tensors, without the learner's hooks
            a, p, q = tensors()
            expected.append([g.tolist() for g in autograd.grad(make(a, p, q), (p, a, q))])
        a, p, q = tensors()
        calls = []
        handles = my_all_hook([p, a, q], lambda grads: calls.append(
            [None if g is None else g.tolist() for g in grads]))
        for i, make in enumerate(losses):
            want = expected[i]
            before = len(calls)
            make(a, p, q).backward(retain_graph=True)
            fired = len(calls) - before
            if fired != 1:
                return _Result(False, f"backward pass {i + 1}: fn was called {fired} time(s), "
                                     "expected once (count the tensor hooks that fired, call fn "
                                     "when all have, then reset the count for the next pass).")
            if calls[-1] != want:
                if sorted(map(str, calls[-1])) == sorted(map(str, want)):
                    return _Result(False, f"backward pass {i + 1}: fn got the right gradients "
                                         "in the order they arrived; put each at its tensor's "
                                         f"index instead (got {calls[-1]}, expected {want}).")
                return _compare_sequences(f"backward pass {i + 1}: the grads given to fn",
                                         calls[-1], want)
        def fires_again():
            before = len(calls)
            losses[0](a, p, q).backward()
            return len(calls) != before
        removed = _judge_returned_handles(
            handles, fires_again,
            not_handles="fn fires right; now return the list of the handles of the hooks you "
                        f"registered, one per tensor (you returned {type(handles).__name__}).",
            still_active="after removing every returned handle, fn was still called: return "
                         "the handles of all your hooks.")
        if not removed:
            return removed
        return _Result(True, "fn fires once per pass with the gradients in the tensors' order.")
    return _run_check("my_all_hook", body)
