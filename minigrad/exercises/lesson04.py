"""Checks for lesson 04 (node hooks).

Each check takes the learner's function, runs it on graphs built here, and prints one
verdict. The expected answers come from minigrad's own engine (a post-hook captures
what the engine hands on) or from where the check itself planted the failing op.
"""
import numpy as np

from .. import autograd
from .._creation import tensor
from . import Result, compare_values, run_check

__all__ = ["check_find_failing_node", "check_scale_post_hook", "check_replay"]


class Boom(autograd.Function):
    """An op whose backward always fails (the check plants it in a graph)."""

    @staticmethod
    def forward(ctx, a):
        return a * 1.0

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("Boom: this backward always fails")


def _graphs():
    """(description, loss, expected name of the failing node or None)."""
    x = tensor([0.5, -1.0, 2.0], requires_grad=True)
    middle = (Boom.apply(x.exp() * 2).sin() * 3).sum()
    first = Boom.apply((x * x).sum())
    w = tensor([1.0, 2.0, 3.0], requires_grad=True)
    healthy = ((x * w).tanh() + w).sum()
    return [("a Boom op in the middle of the graph", middle, "BoomBackward"),
            ("a Boom op that is the graph's root", first, "BoomBackward"),
            ("a graph whose backward succeeds", healthy, None)]


def check_find_failing_node(find_failing_node):
    """``find_failing_node(loss)`` must run ``loss.backward()`` and return the name of
    the node whose backward raised (``node.name()``), or None if backward succeeded."""
    def body():
        for what, loss, expected in _graphs():
            try:
                got = find_failing_node(loss)
            except RuntimeError as exc:
                if "Boom" in str(exc):
                    return Result(False, f"on {what}, the exception from backward() escaped "
                                         "your function: catch it (try/except) and return the "
                                         "name your pre-hooks recorded last.")
                raise
            if expected is None:
                if got is not None:
                    return Result(False, f"on {what} you returned {got!r}; nothing failed, "
                                         "so return None.")
                continue
            if not isinstance(got, str):
                return Result(False, f"on {what} you returned {type(got).__name__} {got!r}; "
                                     f"return one node name (a str), here {expected!r}.")
            if got != expected:
                hint = ("That looks like the last node that *finished*: a post-hook only runs "
                        "after its node succeeded, so use register_prehook."
                        if got != "torch::autograd::AccumulateGrad" else
                        "AccumulateGrad never runs here: the failure stops the pass first.")
                return Result(False, f"on {what} you returned {got!r}, expected {expected!r}. "
                                     + hint)
        return Result(True, "find_failing_node names the failing op and returns None when "
                            "backward succeeds.")
    return run_check("find_failing_node", body)


def check_scale_post_hook(scale_post_hook):
    """``scale_post_hook(factor)`` returns a node post-hook ``hook(grad_inputs,
    grad_outputs)`` that multiplies every gradient in ``grad_inputs`` by ``factor`` and
    leaves None entries as None."""
    def body():
        a = tensor([1.0, 2.0], requires_grad=True)
        b = tensor([3.0, 4.0], requires_grad=True)
        c = a * b
        c.grad_fn.register_hook(scale_post_hook(10.0))
        c.sum().backward()
        for name, leaf, expected in (("a.grad", a, [30.0, 40.0]), ("b.grad", b, [10.0, 20.0])):
            r = compare_values(f"with c = a * b and factor 10, {name}", leaf.grad, tensor(expected))
            if not r:
                return r
        x = tensor([1.0, 2.0], requires_grad=True)
        y = x * 2.0                   # second next edge is (None, 0): grad_inputs[1] is None
        y.grad_fn.register_hook(scale_post_hook(3.0))
        try:
            y.sum().backward()
        except TypeError as exc:
            if "NoneType" in str(exc):
                return Result(False, "with y = x * 2.0, grad_inputs is (grad, None): the Python "
                                     "scalar 2.0 has no edge, so its slot is None. Keep None "
                                     f"entries as None (your hook raised TypeError: {exc}).")
            raise
        except RuntimeError as exc:
            if "can't replace a None gradient" in str(exc):
                return Result(False, "your hook put a tensor in a slot that was None "
                                     "(RuntimeError: can't replace a None gradient with a "
                                     "non-None value): leave None entries as None.")
            raise
        r = compare_values("with y = x * 2.0 and factor 3, x.grad", x.grad, tensor([6.0, 6.0]))
        if not r:
            return r
        return Result(True, "your post-hook scales every gradient it hands on and keeps None "
                            "slots as None.")
    return run_check("scale_post_hook", body)


def _engine_grad_inputs(make):
    """Run a real backward and capture (grad_outputs, grad_inputs) of the root op's node."""
    out, leaves = make()
    seen = {}
    out.grad_fn.register_hook(lambda gi, go: seen.update(gi=gi, go=go))
    out.backward(tensor(np.ones(out.shape, dtype=np.float32) * 0.5), retain_graph=True)
    return out.grad_fn, seen["go"], seen["gi"], [tuple(t.shape) for t in leaves]


def check_replay(replay):
    """``replay(node, grad_outputs, input_shapes)`` calls ``node`` directly and returns a
    tuple with one gradient per input, reduced to ``input_shapes`` the way the engine
    does (``sum_to_size``), so it equals what the node's post-hook sees."""
    rng = np.random.default_rng(0)

    def t(*shape):
        return tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)

    def mul_broadcast():
        x, w = t(2, 3), t(3)
        return x * w, [x, w]

    def add_broadcast():
        p, q = t(2, 1), t(1, 3)
        return p + q, [p, q]

    def exp_one_input():
        z = t(2, 2)
        return z.exp(), [z]

    cases = [("x * w with x (2, 3) and w (3,)", mul_broadcast),
             ("p + q with p (2, 1) and q (1, 3)", add_broadcast),
             ("z.exp(), a node with ONE input", exp_one_input)]

    def body():
        for what, make in cases:
            node, go, gi, shapes = _engine_grad_inputs(make)
            got = replay(node, go, shapes)
            if not isinstance(got, tuple):
                return Result(False, f"for {what} you returned {type(got).__name__}, expected a "
                                     f"tuple of {len(gi)} tensor(s). Calling a one-input node "
                                     "returns a bare Tensor: wrap it in a tuple.")
            if len(got) != len(gi):
                return Result(False, f"for {what} you returned {len(got)} gradient(s), "
                                     f"expected {len(gi)} (one per input).")
            for i, (g, e) in enumerate(zip(got, gi)):
                if g is not None and tuple(g.shape) != tuple(e.shape):
                    return Result(False, f"for {what}, gradient {i} has shape {list(g.shape)}, "
                                         f"expected {list(e.shape)}: a direct call skips the "
                                         "engine's broadcast reduction; use sum_to_size.")
                r = compare_values(f"for {what}, gradient {i}", g, e)
                if not r:
                    return r
                if g.requires_grad:
                    return Result(False, f"for {what}, gradient {i} has a grad_fn: call the "
                                         "node under torch.no_grad() (the engine runs it with "
                                         "grad mode off).")
        return Result(True, "replay matches the engine's grad_inputs, broadcast reduction "
                            "included.")
    return run_check("replay", body)
