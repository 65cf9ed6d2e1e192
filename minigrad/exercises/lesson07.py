"""Checks for lesson 07 (graph callbacks).

The checks build small graphs whose answers are known by construction (which parameters
a loss uses) or read from minigrad after backward returned (the final ``.grad``).
"""
from .._creation import tensor
from . import Result, run_check

__all__ = ["check_call_once_after_backward", "check_unused_parameters"]


def check_call_once_after_backward(call_once_after_backward):
    """``call_once_after_backward(t, fn)`` makes ``fn()`` run once at the very end of every
    backward pass that reaches ``t``, when every leaf's ``.grad`` is final."""
    def body():
        x = tensor([1.0, 2.0], requires_grad=True)
        w = tensor([3.0, -1.0], requires_grad=True)
        seen = []

        def fn():
            seen.append(None if x.grad is None or w.grad is None
                        else (x.grad.tolist(), w.grad.tolist()))
        y = x * w
        call_once_after_backward(y, fn)
        for i in range(2):
            before = len(seen)
            (y * y + x).sum().backward(retain_graph=True)
            calls = len(seen) - before
            if calls != 1:
                return Result(False, f"backward pass {i + 1}: fn ran {calls} time(s), expected "
                                     "once.")
            final = (x.grad.tolist(), w.grad.tolist())
            if seen[-1] != final:
                return Result(False, f"backward pass {i + 1}: when fn ran, (x.grad, w.grad) were "
                                     f"{seen[-1]}, but at the end of backward they are {final}: "
                                     "fn ran too early. Queue it with "
                                     "Variable._execution_engine.queue_callback from the hook.")
        (x * 5).sum().backward()
        if len(seen) != 2:
            return Result(False, "fn also ran in a backward pass that never reached the tensor.")
        return Result(True, "fn runs once per pass, after every gradient is final.")
    return run_check("call_once_after_backward", body)


def check_unused_parameters(unused_parameters):
    """``unused_parameters(params, loss)`` runs ``loss.backward()`` and returns the sorted
    indices of the parameters that got no gradient in that pass (DDP's
    ``find_unused_parameters``)."""
    def body():
        params = [tensor([1.0, 2.0], requires_grad=True) for _ in range(5)]
        for p in params:                       # gradients left over from an earlier pass
            (p * 2).sum().backward()
        a, b, c, d, e = params
        cases = [("(a * b + d).sum()", lambda: (a * b + d).sum(), [2, 4]),
                 ("(c * e).sum()", lambda: (c * e).sum(), [0, 1, 3]),
                 ("(a + b + c + d + e).sum()", lambda: (a + b + c + d + e).sum(), [])]
        for text, make, expected in cases:
            got = unused_parameters(params, make())
            if got is None:
                return Result(False, f"for loss = {text} you returned None; return a list of "
                                     "indices.")
            got = sorted(int(i) for i in got)
            if got != expected:
                hint = ""
                if not got and expected:
                    hint = (" Every .grad here already held a gradient from an earlier pass, so "
                            "`p.grad is None` finds nothing: record which post-accumulate "
                            "hooks fired in THIS pass.")
                return Result(False, f"for loss = {text} you returned {got}, expected "
                                     f"{expected}.{hint}")
        return Result(True, "the unused parameters of each pass, whatever .grad held before.")
    return run_check("unused_parameters", body)
