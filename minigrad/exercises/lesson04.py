"""Checks for lesson 04 (node hooks).

Each check takes the learner's function, runs it on graphs built here, and prints one
verdict. The expected answers come from minigrad's own engine (the prediction scenario
runs on it; a post-hook captures what the engine hands on) or from where the check
itself planted the NaN-producing ops (the first to run is the one created last).
"""
import numpy as np

from .. import autograd
from ..autograd import engine as _engine
from .._creation import tensor as _tensor
from ..viz import graph_nodes as _graph_nodes
from . import (Result as _Result, compare_values as _compare_values,
               check_prediction as _check_prediction, run_check as _run_check,
               watch_calls as _watch_calls)

__all__ = ["check_predict_prehook_none", "check_first_nan_node", "check_replay",
           "SqrtLog", "ZeroTimesInf", "NaNForOther", "Harmless"]


# --- exercise 1: predict what a pre-hook returning (None,) does ------------------------------
def _prehook_none_trace():
    """Section 3's prediction scenario on minigrad's engine: a.grad, b.grad, and the
    grad_inputs the node's post-hook received (None if it never ran)."""
    a = _tensor([1.0, 2.0], requires_grad=True)
    b = _tensor([3.0, 4.0], requires_grad=True)
    c = a * b
    seen = {}
    c.grad_fn.register_prehook(lambda go: (None,))
    c.grad_fn.register_hook(lambda gi, go: seen.update(gi=gi))
    (c.exp().sum() + a.sum()).backward()

    def plain(t):
        return None if t is None else t.tolist()
    post = tuple(plain(g) for g in seen["gi"]) if "gi" in seen else None
    return {"a.grad": plain(a.grad), "b.grad": plain(b.grad), "post-hook grad_inputs": post}


def check_predict_prehook_none(predict_prehook_none):
    """``predict_prehook_none()`` returns ``{"a.grad": ..., "b.grad": ...,
    "post-hook grad_inputs": ...}`` for section 3's scenario: lists of floats or None, and
    a tuple of those (or None if the post-hook never runs). It must predict: running a
    backward pass is rejected."""
    def judge(got):
        expected = _prehook_none_trace()
        if not isinstance(got, dict) or set(got) != set(expected):
            return _Result(False, f"return a dict with the keys {sorted(expected)} (got {got!r}).")

        def norm(v):
            if isinstance(v, (tuple, list)) and v and all(u is None or isinstance(u, (list, tuple))
                                                          for u in v):
                return tuple(None if u is None else [float(x) for x in u] for u in v)
            if isinstance(v, (tuple, list)):
                return [float(x) for x in v]
            return v
        for key in ("a.grad", "b.grad"):
            if hasattr(got[key], "tolist"):
                return _Result(False, f"{key}: expected a list of floats (or None), got a tensor; "
                                     "write the numbers you predict, e.g. [1.0, 2.0].")
        misses = []
        if norm(got["a.grad"]) != expected["a.grad"]:
            misses.append(f"a.grad: you said {got['a.grad']!r}, which is not it: the "
                          "pre-hook's None replaced d loss/d c, so MulBackward0 computed nothing "
                          "for a or b; what does the a.sum() term still give a?")
        if norm(got["b.grad"]) != expected["b.grad"]:
            misses.append(f"b.grad: you said {got['b.grad']!r}, which is not it: b's "
                          "only path goes through c's node, which received no gradient: what "
                          "is accumulated into b.grad then?")
        post = got["post-hook grad_inputs"]
        if (tuple(norm(post)) if isinstance(post, (tuple, list)) else post) != \
                expected["post-hook grad_inputs"]:
            misses.append(f"post-hook grad_inputs: you said {post!r}, which is not it: the "
                          "node still runs on the None it got, computes nothing for its inputs, "
                          "and its post-hook is called with what it returned")
        if misses:
            return _Result(False, "; ".join(misses) + ".")
        return _Result(True, "None in a pre-hook's tuple drops the gradient the node receives: "
                            "the node runs and hands on None to both inputs.")
    return _check_prediction("predict_prehook_none", predict_prehook_none, "the gradients", "a dict",
                             "the demo after the exercise", judge)


# --- exercise 2: the first node that produces NaN --------------------------------------------
class SqrtLog(autograd.Function):
    """Identity forward; backward divides by sqrt(log(a)), NaN for a < 1."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 1.0

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / a.log().sqrt()


class Harmless(autograd.Function):
    """Identity forward and backward: a custom Function that never makes NaN."""

    @staticmethod
    def forward(ctx, a):
        return a * 1.0

    @staticmethod
    def backward(ctx, grad):
        return grad


class ZeroTimesInf(Harmless):
    """Identity forward; backward multiplies by 0 * inf = NaN."""

    @staticmethod
    def backward(ctx, grad):
        return grad * 0.0 * float("inf")


class NaNForOther(autograd.Function):
    """a + b forward; backward hands NaN to its second input only."""

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad * float("nan")


def _nan_graphs():
    """(description, loss, leaves, the planted NaN nodes). The expected answer is the
    planted node that runs first: the one with the highest sequence number (created last).
    It receives finite gradients; on the chain, the other one then receives its NaN."""
    x = _tensor([0.1, 0.2, 0.3], requires_grad=True)
    w = _tensor([[1.0, 0.5], [0.5, 1.0], [2.0, -1.0]], requires_grad=True)
    const = _tensor([[1.0, 2.0, 3.0]])
    h = SqrtLog.apply(x.exp() * 0.5)                   # * 0.5: a (grad, None) node
    # Harmless runs (and comes in graph_nodes) before SqrtLog: the first custom Function
    # is not the culprit, only a gradient says which node is
    one = (Harmless.apply(h.tanh() * 3.0).sum() + (const @ w).sum())   # MmBackward0: (None, grad)

    y = _tensor([0.5, 1.5], requires_grad=True)
    a = SqrtLog.apply(y * 0.5)                         # created first: runs second
    b = ZeroTimesInf.apply(y.sin())                    # created second: runs first
    two = (a.exp() * b).sum()

    z = _tensor([0.5, 1.5], requires_grad=True)
    chain = ZeroTimesInf.apply(SqrtLog.apply(z * 0.5).cos()).sum()   # NaN flows on

    p = _tensor([1.0, 2.0], requires_grad=True)
    q = _tensor([0.5, -1.0], requires_grad=True)
    second = (NaNForOther.apply(p.exp(), q * 2.0) ** 2).sum()

    v = _tensor([1.0, -2.0], requires_grad=True)
    healthy = (Harmless.apply((v * w[:2, 0]).tanh()) + (const[:, :2] @ w[:2]).sum()).sum()

    def planted(loss, classes):
        return [n for n in _graph_nodes(loss) if n.name() in classes]
    both = {"SqrtLogBackward", "ZeroTimesInfBackward"}
    return [("x.exp() * 0.5 through SqrtLog, then tanh, plus const @ w", one, [x, w],
             planted(one, {"SqrtLogBackward"})),
            ("two NaN-producing ops on two branches", two, [y], planted(two, both)),
            ("SqrtLog then ZeroTimesInf on one chain", chain, [z], planted(chain, both)),
            ("a node that hands NaN to its second input only", second, [p, q],
             planted(second, {"NaNForOtherBackward"})),
            ("a graph without NaN", healthy, [v, w], [])]


def check_first_nan_node(first_nan_node):
    """``first_nan_node(loss)`` hooks every node reachable from ``loss``, runs
    ``loss.backward()`` and returns the ``name()`` of the first node (in execution order)
    whose grad_inputs contain NaN while its grad_outputs don't, or None."""
    def body():
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return _first_nan_body(first_nan_node)
    return _run_check("first_nan_node", body)


def _first_nan_body(first_nan_node):
    """The body of check_first_nan_node (numpy's NaN warnings silenced)."""
    for what, loss, leaves, planted in _nan_graphs():
        if planted:
            expected = max(planted, key=lambda n: n._sequence_nr()).name()
        else:
            expected = None
        try:
            got = first_nan_node(loss)
        except (AttributeError, TypeError) as exc:
            if "NoneType" in str(exc):
                return _Result(False, f"on {what} your code hit a None ({type(exc).__name__}: "
                                     f"{exc}): grad_inputs holds None for an input with no "
                                     "edge (a Python scalar, a tensor that does not require "
                                     "grad); skip None entries when you look for NaN.")
            raise
        except IndexError as exc:
            hint = ("an AccumulateGrad node (one per leaf) has an empty grad_inputs, and a "
                    "node has one grad_input per input: go through each tuple instead of "
                    "indexing it")
            if expected is None:
                hint += "; when no gradient is NaN nothing is found: return None then"
            return _Result(False, f"on {what} your code raised IndexError ({exc}): {hint}.")
        if all(t.grad is None for t in leaves):
            return _Result(False, f"on {what} no leaf got a .grad: your function must run "
                                 "loss.backward() itself, after registering its hooks.")
        if expected is None:
            if got is not None:
                return _Result(False, f"on {what} you returned {got!r}; no gradient is NaN "
                                     "there, so return None.")
            continue
        if what.startswith("a node that") and got != expected:
            return _Result(False, f"on {what} you returned {got!r}, expected {expected!r}: its "
                                 "NaN is in grad_inputs[1]. Look at every entry of "
                                 "grad_inputs (and of grad_outputs), not only the first.")
        if not isinstance(got, str):
            return _Result(False, f"on {what} you returned {type(got).__name__} {got!r}; "
                                 f"return one node name (node.name()), here {expected!r}.")
        if got != expected:
            if got in [n.name() for n in planted] and what.startswith("two"):
                hint = ("Both planted ops turn finite gradients into NaN; return the FIRST "
                        "one the engine runs (record in order, return the first).")
            else:
                hint = ("That node *received* NaN (a pre-hook sees only what arrives) or "
                        "passed it on: the producer is the node whose grad_inputs contain NaN "
                        "while its grad_outputs don't. A post-hook sees both.")
            return _Result(False, f"on {what} you returned {got!r}, expected {expected!r}. "
                                 + hint)
    return _Result(True, "first_nan_node names the first node that turns finite gradients "
                        "into NaN, skips None slots, and returns None when nothing is NaN.")


def _engine_grad_inputs(make):
    """Run a real backward and capture (grad_outputs, grad_inputs) of the root op's node."""
    out, leaves = make()
    seen = {}
    out.grad_fn.register_hook(lambda gi, go: seen.update(gi=gi, go=go))
    out.backward(_tensor(np.ones(out.shape, dtype=np.float32) * 0.5), retain_graph=True)
    return out.grad_fn, seen["go"], seen["gi"], [None if t is None else tuple(t.shape)
                                                 for t in leaves]


def check_replay(replay):
    """``replay(node, grad_outputs, input_shapes)`` calls ``node`` directly and returns a
    tuple with one gradient per input, reduced to ``input_shapes`` the way the engine
    does (``sum_to_size``), so it equals what the node's post-hook sees; a slot without
    an edge (``input_shapes[i]`` None) stays None. Calling the engine's ``call_node``,
    which does the reduction itself, is rejected."""
    rng = np.random.default_rng(0)

    def t(*shape):
        return _tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)

    def mul_broadcast():
        x, w = t(2, 3), t(3)
        return x * w, [x, w]

    def add_broadcast():
        p, q = t(2, 1), t(1, 3)
        return p + q, [p, q]

    def exp_one_input():
        z = t(2, 2)
        return z.exp(), [z]

    def mul_scalar():
        x = t(2, 3)
        return x * 2.0, [x, None]          # the scalar's slot: next_functions[1] is (None, 0)

    def mm_constant():
        const = _tensor(rng.standard_normal((4, 3)).astype(np.float32))
        w = t(3, 2)
        return const @ w, [None, w]         # const does not require grad: no edge

    cases = [("x * w with x (2, 3) and w (3,)", mul_broadcast),
             ("p + q with p (2, 1) and q (1, 3)", add_broadcast),
             ("z.exp(), a node with ONE input", exp_one_input),
             ("x * 2.0, whose second slot is a Python scalar (input_shapes[1] is None)", mul_scalar),
             ("const @ w with const not requiring grad (input_shapes[0] is None)", mm_constant)]

    def body():
        for what, make in cases:
            node, go, gi, shapes = _engine_grad_inputs(make)
            try:
                with _watch_calls([_engine.call_node, _engine.validate_outputs]) as engine_calls:
                    got = replay(node, go, shapes)
            except NotImplementedError:
                raise
            except Exception as exc:
                if isinstance(exc, (AttributeError, TypeError)) and "NoneType" in str(exc):
                    return _Result(False, f"for {what} your code hit a None ({type(exc).__name__}: "
                                         f"{exc}). A slot without an edge (next_functions[i] is "
                                         "(None, 0)) has input_shapes[i] None, and the node "
                                         "returns None there: keep it None, reduce only the "
                                         "tensors.")
                if len(gi) == 1:
                    return _Result(False, f"for {what} your code raised {type(exc).__name__} "
                                         f"({exc}). Calling a one-input node returns a bare "
                                         "Tensor, not a tuple (going through it walks its rows): "
                                         "wrap it in a tuple first.")
                raise
            if engine_calls:
                return _Result(False, "your replay calls the engine's own call_node, which does "
                                     "the broadcast reduction for you: call the node yourself, "
                                     "node(*grad_outputs), and reduce each gradient with "
                                     "sum_to_size.")
            if not isinstance(got, tuple):
                return _Result(False, f"for {what} you returned {type(got).__name__}, expected a "
                                     f"tuple of {len(gi)} tensor(s). Calling a one-input node "
                                     "returns a bare Tensor: wrap it in a tuple.")
            if len(got) != len(gi):
                return _Result(False, f"for {what} you returned {len(got)} gradient(s), "
                                     f"expected {len(gi)} (one per input).")
            for i, (g, e) in enumerate(zip(got, gi)):
                if e is None:
                    if g is not None:
                        return _Result(False, f"for {what}, gradient {i} should be None: that "
                                             "input has no edge (next_functions[i] is (None, 0)),"
                                             " so the engine hands on nothing there.")
                    continue
                if g is not None and tuple(g.shape) != tuple(e.shape):
                    return _Result(False, f"for {what}, gradient {i} has shape {list(g.shape)}, "
                                         f"expected {list(e.shape)}: a direct call skips the "
                                         "engine's broadcast reduction; use sum_to_size.")
                r = _compare_values(f"for {what}, gradient {i}", g, e)
                if not r:
                    return r
                if g.requires_grad:
                    return _Result(False, f"for {what}, gradient {i} has a grad_fn: call the "
                                         "node under torch.no_grad() (the engine runs it with "
                                         "grad mode off).")
        return _Result(True, "replay matches the engine's grad_inputs, broadcast reduction "
                            "and None slots included.")
    return _run_check("replay", body)
