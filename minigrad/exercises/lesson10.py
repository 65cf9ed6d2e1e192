"""Checks for lesson 10 (write the engine yourself): dependency counts, the engine
loop, and a whole engine with every hook level, plugged in with
``minigrad.autograd.engine.use``.

Each scenario below builds a fresh graph, registers hooks that write to a log, and runs
``backward()``; its trace is that log, the order the nodes ran in and the gradients.
It runs twice: on minigrad's real engine (the expectation) and inside
``engine.use(learner's engine)``. The facts they exercise are those of the ``spec/``
claims (c01 hook order, c04 node-hook arguments, c05 retain_grad after hooks, c06 leaf
hook vs post-accumulate, c07 multi-grad hooks, c08 final callbacks, c09 tensor used
twice, c12 ready-queue order), each of which is cross-checked against PyTorch there.

A pass during which minigrad's own engine ran (``engine.real_engine_runs()`` moved), or
one of the engine's parts that the exercises ask for (its dependency count, its ready
queue, its tensor-hook loop, its input-buffer sum), is reported as such: the learner's
engine has to do the work itself. Checks print one verdict and never raise.
"""
import functools
import importlib
import importlib.util
import sys
import warnings
from collections.abc import Sequence as _Sequence
from pathlib import Path as _Path

import minigrad as torch
from minigrad.autograd import engine
from minigrad.autograd.graph import AccumulateGrad as _AccumulateGrad

from . import (Result as _Result, _learners_frame, hook_queuing_callbacks as _hook_queuing_callbacks,
               run_check as _run_check, watch_calls as _watch_calls)

__all__ = ["check_count_dependencies", "check_engine_loop", "check_full_engine", "SCENARIOS",
           "engine_events", "side_by_side", "describe_error", "heap_order", "spec_claims", "claims_on_engine"]


def _rounded(t):
    """A tensor as rounded nested lists (None stays None)."""
    if t is None:
        return None
    if isinstance(t, (tuple, list)):
        return [_rounded(v) for v in t]

    def rnd(v):
        if isinstance(v, list):
            return [rnd(u) for u in v]
        v = round(float(v), 4)
        return 0.0 if v == 0 else v
    return rnd(t.tolist())


def _watch(log, outputs, leaves):
    """Log each node's name when its backward formula runs (``leaves``: {tensor: label}
    names the AccumulateGrad nodes)."""
    labels = {}
    for t, label in leaves.items():
        if t.grad_fn is None and t.requires_grad:
            labels[t._get_grad_accumulator()] = f"AccumulateGrad({label})"
    stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        name = labels.get(node, node.name())

        def apply(*args, _orig=node.apply, _name=name, **kwargs):
            log.append(f"run {_name}")
            return _orig(*args, **kwargs)
        node.apply = apply
        stack.extend(n for n, _ in node.next_functions)


def _leaves():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, -1.0], requires_grad=True)
    return x, w


def _backward_and_log(log, out, **leaves):
    """Watch ``out``'s graph, run ``out.backward()`` and log each leaf's gradient."""
    _watch(log, [out], {t: name for name, t in leaves.items()})
    out.backward()
    log.append(", ".join(f"{name}.grad = {_rounded(t.grad)}" for name, t in leaves.items()))


# --- graph scenarios: no hooks (the engine loop) -------------------------------------------------
def _s_chain(log):
    """a chain"""
    x, _ = _leaves()
    _backward_and_log(log, x.exp().sin().tanh().sum(), x=x)


def _s_two_leaves(log):
    """two leaves (x * w)"""
    x, w = _leaves()
    _backward_and_log(log, (x * w).sum(), x=x, w=w)


def _s_diamond(log):
    """a diamond

    Hint: a node runs once, when every gradient sent to it has arrived."""
    x, w = _leaves()
    y = x * w
    _backward_and_log(log, (y.sin() + y.cos()).sum(), x=x, w=w)


def _s_used_twice(log):
    """a tensor used twice (x * x)

    Hint: x * x sends two gradients to the same slot: the input buffer sums them."""
    x, _ = _leaves()
    _backward_and_log(log, (x * x).sum(), x=x)


def _s_sequence_order(log):
    """the ready queue order

    Hint: pop the ready node with the highest _sequence_nr() first."""
    x, w = _leaves()
    a = x.exp()                 # created first: smaller sequence number
    b = w.sin()
    _backward_and_log(log, (a * b).sum(), x=x, w=w)


class _FirstGradientOnly(torch.autograd.Function):
    """a * b whose backward sends a gradient to ``a`` only (None to ``b``)."""

    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def _s_none_gradient(log):
    """a node that sends None

    Hint: a None gradient is still an edge: decrement the child's count, or it never
    becomes ready."""
    x, w = _leaves()
    _backward_and_log(log, (_FirstGradientOnly.apply(x, w) + w.exp()).sum(), x=x, w=w)


def _s_branches(log):
    """branching graph"""
    x, w = _leaves()
    h = (x * w).relu() * x + w
    _backward_and_log(log, (h * h.exp()).sum() + x.tanh().sum(), x=x, w=w)


def _s_broadcast(log):
    """broadcasting (a + b)"""
    a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    b = torch.tensor([1.0, -1.0, 0.5], requires_grad=True)
    _backward_and_log(log, ((a + b) * b).sum(), a=a, b=b)


def _s_grad_tensor(log):
    """backward(gradient)"""
    x, w = _leaves()
    y = x * w
    _watch(log, [y], {x: "x", w: "w"})
    y.backward(torch.tensor([1.0, 10.0]))
    log.append(f"x.grad = {_rounded(x.grad)}, w.grad = {_rounded(w.grad)}")


def _s_leaf_root(log):
    """a leaf as the root"""
    x, _ = _leaves()
    x.backward(torch.tensor([2.0, 3.0]))
    x.backward(torch.tensor([1.0, 1.0]))
    log.append(f"x.grad = {_rounded(x.grad)}")


def _s_two_roots(log):
    """two roots"""
    x, w = _leaves()
    a, b = (x * 2).sum(), (x * w).sum()
    _watch(log, [a, b], {x: "x", w: "w"})
    torch.autograd.backward([a, b])
    log.append(f"x.grad = {_rounded(x.grad)}, w.grad = {_rounded(w.grad)}")


def _s_retain_graph(log):
    """retain_graph=True, twice"""
    x, w = _leaves()
    out = (x.exp() * w).sum()
    out.backward(retain_graph=True)
    log.append(f"after pass 1: x.grad = {_rounded(x.grad)}")
    out.backward()
    log.append(f"after pass 2: x.grad = {_rounded(x.grad)}")


def _s_freed_graph(log):
    """a second pass without retain_graph

    Hint: without keep_graph, call node.release_variables() after the node ran."""
    x, w = _leaves()
    out = (x.exp() * w).sum()
    out.backward()
    log.append(f"after pass 1: x.grad = {_rounded(x.grad)}")
    out.backward()             # raises: the saved values were freed


def _s_mlp(log):
    """a small MLP"""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    x = torch.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 2.0]])
    loss = torch.nn.functional.mse_loss(model(x), torch.tensor([[1.0], [-1.0]]))
    _watch(log, [loss], {p: n for n, p in model.named_parameters()})
    loss.backward()
    for name, p in model.named_parameters():
        log.append(f"{name}.grad = {_rounded(p.grad)}")


def _s_create_graph(log):
    """create_graph and a second derivative"""
    x, _ = _leaves()
    with warnings.catch_warnings():           # backward(create_graph=True)'s leak warning
        warnings.simplefilter("ignore")
        (x ** 3).sum().backward(create_graph=True)
    g = x.grad
    log.append(f"x.grad = {_rounded(g)}, has a graph: {g.grad_fn is not None}")
    x.grad = None
    g.sum().backward()
    log.append(f"second derivative = {_rounded(x.grad)}")


# --- hook scenarios (every hook level) -------------------------------------------------------------
def _s_tensor_hooks_chain(log):
    """three tensor hooks on one tensor

    Hint: tensor hooks run in registration order, each gets what the previous returned."""
    x, _ = _leaves()
    y = x * 2
    for name in "ABC":
        def hook(g, name=name):
            log.append(f"hook {name} got {_rounded(g)}")
            return g + 1
        y.register_hook(hook)
    y.sum().backward()
    log.append(f"x.grad = {_rounded(x.grad)}")


def _s_leaf_tensor_hook(log):
    """tensor hooks on leaves

    Hint: a leaf's tensor hooks run when its AccumulateGrad node is popped, before it
    accumulates."""
    x, w = _leaves()
    x.register_hook(lambda g: log.append(f"x hook got {_rounded(g)}") or g * 10)
    w.register_hook(lambda g: log.append(f"w hook got {_rounded(g)}"))
    (x.exp() * w.sin()).sum().backward()
    log.append(f"x.grad = {_rounded(x.grad)}, w.grad = {_rounded(w.grad)}")


def _s_retain_grad_after_hooks(log):
    """retain_grad sees the hooked gradient

    Hint: store the retained grads after every tensor hook ran."""
    x, _ = _leaves()
    y = x * 3
    y.retain_grad()                          # registered before the hook ...
    y.register_hook(lambda g: log.append(f"y hook got {_rounded(g)}") or g * 2)
    (y * y).sum().backward()
    log.append(f"y.grad = {_rounded(y.grad)}")     # ... still sees the hooked gradient


def _s_node_pre_hooks(log):
    """node pre-hooks

    Hint: pre-hooks get a tuple; a returned tuple replaces the grad_outputs, and the
    post-hooks get the grad_outputs as the pre-hooks left them."""
    x, _ = _leaves()
    y = x * 3
    y.grad_fn.register_prehook(lambda go: log.append(f"pre 1 got {_rounded(go)}"))
    y.grad_fn.register_prehook(lambda go: log.append("pre 2 doubles") or (go[0] * 2,))
    y.grad_fn.register_prehook(lambda go: log.append(f"pre 3 got {_rounded(go)}"))
    y.grad_fn.register_hook(lambda gi, go: log.append(f"post-hook got grad_outputs {_rounded(go)}"))
    y.sum().backward()
    log.append(f"x.grad = {_rounded(x.grad)}")


def _s_prehook_drops_gradient(log):
    """a pre-hook returning (None,) (lesson 04)

    Hint: the node still runs and hands None to its inputs; each None still counts
    down the child's dependencies, so the leaves' hooks run."""
    a, b = _leaves()
    c = a * b
    c.grad_fn.register_prehook(lambda go: log.append("pre-hook drops the gradient") or (None,))
    a.register_hook(lambda g: log.append(f"a hook got {_rounded(g)}"))
    b.register_hook(lambda g: log.append(f"b hook got {_rounded(g)}"))
    b.register_post_accumulate_grad_hook(
        lambda p: log.append(f"b post-accumulate (b.grad = {_rounded(p.grad)})"))
    _backward_and_log(log, c.exp().sum() + a.sum(), a=a, b=b)


def _s_node_post_hook_args(log):
    """a node post-hook's arguments

    Hint: post-hooks get (grad_inputs, grad_outputs); a returned tuple replaces grad_inputs."""
    x, w = _leaves()
    y = x * w

    def post(grad_inputs, grad_outputs):
        log.append(f"post got grad_inputs {_rounded(grad_inputs)} and grad_outputs {_rounded(grad_outputs)}")
        return (grad_inputs[0], grad_inputs[1] * 0)
    y.grad_fn.register_hook(post)
    y.backward(torch.tensor([1.0, 2.0]))
    log.append(f"x.grad = {_rounded(x.grad)}, w.grad = {_rounded(w.grad)}")


def _s_one_node_order(log):
    """every level at one node

    Hint: the order is tensor hooks, retain_grad, pre-hooks, the node, post-hooks."""
    x, w = _leaves()
    y = x * w
    y.register_hook(lambda g: log.append("tensor hook") or g * 2)
    y.retain_grad()
    y.grad_fn.register_prehook(lambda go: log.append(f"pre-hook (y.grad = {_rounded(y.grad)})"))
    y.grad_fn.register_hook(lambda gi, go: log.append("post-hook"))
    _watch(log, [y], {x: "x", w: "w"})
    y.sum().backward()


def _s_leaf_hook_order(log):
    """every level at a leaf

    Hint: at AccumulateGrad: tensor hooks, pre-hooks, accumulate, post-accumulate hooks,
    post-hooks."""
    x, w = _leaves()
    x.register_hook(lambda g: log.append(f"x tensor hook (x.grad = {_rounded(x.grad)})"))
    x.register_post_accumulate_grad_hook(
        lambda p: log.append(f"x post-accumulate (x.grad = {_rounded(p.grad)})"))
    out = (x * w).sum()
    acc = out.grad_fn.next_functions[0][0].next_functions[0][0]
    acc.register_prehook(lambda go: log.append("AccumulateGrad(x) pre-hook"))
    acc.register_hook(lambda gi,
                      go: log.append(f"AccumulateGrad(x) post-hook got {_rounded(gi)}, {_rounded(go)}"))
    w.register_post_accumulate_grad_hook(lambda p: log.append("w post-accumulate"))
    _watch(log, [out], {x: "x", w: "w"})
    out.backward()


def _s_hook_on_tensor_used_twice(log):
    """a hook on a tensor used twice

    Hint: a tensor hook runs once, on the summed gradient, when the node is popped."""
    x, _ = _leaves()
    y = x * 2
    y.register_hook(lambda g: log.append(f"y hook got {_rounded(g)} (once, summed)"))
    (y * y + y).sum().backward()
    log.append(f"x.grad = {_rounded(x.grad)}")


def _s_final_callbacks(log):
    """final callbacks

    Hint: run engine.final_callbacks() after the queue is empty, re-reading its length."""
    x, _ = _leaves()
    y = x * 2
    z = y * 3
    z.register_hook(_hook_queuing_callbacks(
        log, "z hook queues cb1 and cb3",
        lambda: f"cb1: x.grad = {_rounded(x.grad)}, grad enabled = {torch.is_grad_enabled()}",
        "cb2 (queued by cb1)"))
    y.register_hook(lambda g: log.append("y hook"))
    x.register_post_accumulate_grad_hook(lambda p: log.append("x post-accumulate"))
    z.sum().backward()
    log.append("backward returned")


def _s_hook_raises(log):
    """a hook that raises

    Hint: let the exception propagate: no more nodes, no final callbacks."""
    x, w = _leaves()
    y = x * w
    queue = torch.autograd.Variable._execution_engine.queue_callback

    def bad(g):
        queue(lambda: log.append("callback (must not run: the pass failed)"))
        raise ValueError("this hook fails")
    y.register_hook(bad)
    w.register_hook(lambda g: log.append("w hook (must not run)"))
    try:
        y.sum().backward()
    except ValueError as e:
        log.append(f"backward raised ValueError: {e}")
    log.append(f"x.grad = {_rounded(x.grad)}, w.grad = {_rounded(w.grad)}")


def _s_ready_queue_hooks(log):
    """the ready queue, seen by hooks

    Hint: AccumulateGrad has the highest sequence number: a ready leaf runs next."""
    x, w = _leaves()
    a = x.exp()
    b = w.sin()
    x.register_hook(lambda g: log.append("x hook"))
    w.register_hook(lambda g: log.append("w hook"))
    a.register_hook(lambda g: log.append("a hook"))
    b.register_hook(lambda g: log.append("b hook"))
    (a * b).sum().backward()


def _stacked_leaves(log, count=6):
    """``count`` leaves stacked: their AccumulateGrad nodes all become ready at once,
    with the same sequence number. Returns the leaves' labels in the order their tensor
    hooks ran."""
    leaves = [torch.tensor([float(i)], requires_grad=True) for i in range(count)]
    order = []
    for i, leaf in enumerate(leaves):
        leaf.register_hook(lambda g, i=i: order.append(i))
    stacked = torch.stack(leaves)
    stacked.register_hook(lambda g: log.append("stack hook (before every leaf)"))
    (stacked * stacked).sum().backward()
    log.append(f"grads = {[_rounded(leaf.grad) for leaf in leaves]}")
    return order


def _s_tied_leaves(log):
    """six ready leaves that tie

    Hint: every leaf's AccumulateGrad must run, after the node that sent it its gradient.
    Their order among themselves is not scored: PyTorch does not promise one."""
    order = _stacked_leaves(log)
    log.append(f"leaf hooks ran: {sorted(order)}")


def _s_multi_grad_hook(log):
    """a multi-grad hook"""
    x, w = _leaves()
    torch.autograd.graph.register_multi_grad_hook(
        (x, w), lambda grads: log.append(f"all ready: {_rounded(list(grads))}"))
    (x * 2).sum().backward()
    (x * w).sum().backward()


def _s_module_hooks(log):
    """module backward hooks"""
    lin = torch.nn.Linear(2, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, -1.0], [0.5, 2.0]]))
        lin.bias.zero_()
    lin.register_full_backward_pre_hook(lambda m, go: log.append(f"module pre got {_rounded(go)}"))
    lin.register_full_backward_hook(lambda m, gi,
                                    go: log.append(f"module hook got {_rounded(gi)}, {_rounded(go)}"))
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    lin(x).pow(2).sum().backward()
    log.append(f"x.grad = {_rounded(x.grad)}, weight.grad = {_rounded(lin.weight.grad)}")


def _s_checkpoint(log):
    """checkpointing"""
    from minigrad.utils.checkpoint import checkpoint
    x, w = _leaves()

    def block(t):
        log.append("block forward")
        return (t * w).sin()
    out = checkpoint(block, x * 2, use_reentrant=False).sum()
    out.backward()
    log.append(f"x.grad = {_rounded(x.grad)}, w.grad = {_rounded(w.grad)}")


def _s_optimizer_in_backward(log):
    """an optimizer step in a post-accumulate hook"""
    x, w = _leaves()

    def step(p):
        with torch.no_grad():
            p -= 0.1 * p.grad
        p.grad = None
        log.append(f"stepped to {_rounded(p)}")
    x.register_post_accumulate_grad_hook(step)
    w.register_post_accumulate_grad_hook(step)
    (x * w).sum().backward()


#: the graph scenarios (no hooks) and the hook scenarios (every hook level), each named
#: by its docstring's first line, with a hint for when yours differs: check_engine_loop
#: scores the first, check_full_engine both
_GRAPH_SCENARIOS = [_s_chain, _s_two_leaves, _s_diamond, _s_used_twice, _s_sequence_order,
                    _s_none_gradient, _s_branches, _s_broadcast, _s_grad_tensor, _s_leaf_root,
                    _s_two_roots, _s_retain_graph, _s_freed_graph, _s_mlp, _s_create_graph]
_HOOK_SCENARIOS = [_s_tensor_hooks_chain, _s_leaf_tensor_hook, _s_retain_grad_after_hooks,
                   _s_node_pre_hooks, _s_prehook_drops_gradient, _s_node_post_hook_args,
                   _s_one_node_order, _s_leaf_hook_order, _s_hook_on_tensor_used_twice,
                   _s_final_callbacks, _s_hook_raises, _s_ready_queue_hooks, _s_tied_leaves,
                   _s_multi_grad_hook, _s_module_hooks, _s_checkpoint, _s_optimizer_in_backward]
SCENARIOS = _GRAPH_SCENARIOS + _HOOK_SCENARIOS


#: the parts of minigrad's engine that the exercises ask the learner to write (the
#: helpers of section 1 are not among them)
_ENGINE_PARTS = (engine.compute_dependencies, engine.ReadyQueue.push, engine.ReadyQueue.pop,
                 engine._call_tensor_pre_hooks, engine.add_to_input_buffer)


# --- recording a pass: the events, the leaves' names, what raised ------------------------------
def _is_leaf(value):
    return isinstance(value, torch.Tensor) and value.requires_grad and value.grad_fn is None


class _LeafNames:
    """While active, ``labels`` collects ``{id(leaf): (leaf, name)}`` from the local
    variables of the functions whose code objects are given, as each of their calls
    returns: a leaf tensor that requires grad is named by its variable (``x``), one in a
    list or tuple by its place (``leaves[2]``), a module's parameters by their path
    (``model.0.weight``). Within one call the first name wins; across calls the last call
    to return wins, so a scenario's own names beat those of a helper it called
    (``a, b = _leaves()``). Built on ``sys.setprofile``; a profiler already set keeps
    running."""

    def __init__(self, codes):
        self._codes = set(codes)
        self.labels = {}

    def _take(self, variables):
        found = {}
        for var, value in variables.items():
            if isinstance(value, (list, tuple)):
                items = [(f"{var}[{i}]", v) for i, v in enumerate(value)]
            elif isinstance(value, torch.nn.Module):
                items = [(f"{var}.{name}", p) for name, p in value.named_parameters()]
            else:
                items = [(var, value)]
            for name, v in items:
                if _is_leaf(v) and id(v) not in found:
                    found[id(v)] = (v, name)
        self.labels.update(found)

    def _profile(self, frame, event, arg):
        if event == "return" and frame.f_code in self._codes:
            self._take(frame.f_locals)
        if self._previous is not None:
            self._previous(frame, event, arg)

    def __enter__(self):
        self._previous = sys.getprofile()
        sys.setprofile(self._profile)
        return self.labels

    def __exit__(self, *exc):
        sys.setprofile(self._previous)
        return False


class _SpiedEvent(engine.EngineEvent):
    """An event recorded by :class:`_HelperSpy`: ``slot`` is a tensor hook's input_nr,
    ``pass_nr`` counts the passes of the learner's engine (1 for the first)."""

    slot = None
    pass_nr = None


class _HelperSpy:
    """While active, the helpers of ``minigrad.autograd.engine`` that a learner's engine
    calls hand out hooks (and ``call_node``, and the final callbacks) that also record an
    :class:`~minigrad.autograd.engine.EngineEvent` in ``events``, the way minigrad's own
    engine records them for ``record_events``. A learner's engine yields no events of its
    own; this is how its pass can be compared, hook by hook, and drawn. A hook or node
    that raises is recorded too, with the exception as its ``result``.

    minigrad's own engine reads its hooks through the same helpers: with ``only_raised``
    the spy records only the hooks that raise, into the list ``record_events`` fills.
    ``passes`` is the stack of the learner's passes under way (see :func:`engine_events`)."""

    _HELPERS = ("tensor_hooks", "store_retained_grads", "pre_hooks", "call_node",
                "post_accumulate_hooks", "post_hooks", "final_callbacks")

    def __init__(self, events=None, only_raised=False):
        self.events = [] if events is None else events
        self.passes = []
        self._count = 0
        self._only_raised = only_raised

    def start_pass(self):
        self._count += 1
        self.passes.append(self._count)

    def _record(self, kind, node, hook=None, args=(), result=None, slot=None):
        if self._only_raised and not isinstance(result, BaseException):
            return
        event = _SpiedEvent(kind, node, hook, args, result)
        event.slot = slot
        event.pass_nr = self.passes[-1] if self.passes else None
        self.events.append(event)

    def _recording(self, kind, node, hook, slot=None):
        @functools.wraps(hook)
        def recorded(*args):
            try:
                result = hook(*args)
            except Exception as exc:
                self._record(kind, node, hook, args, exc, slot)
                raise
            self._record(kind, node, hook, args, result, slot)
            return result
        return recorded

    def __enter__(self):
        real = self._real = {name: getattr(engine, name) for name in self._HELPERS}
        spy = self

        class Callbacks(_Sequence):
            def __init__(self, callbacks):
                self._callbacks = callbacks

            def __len__(self):
                return len(self._callbacks)

            def __getitem__(self, i):
                return spy._recording("callback", None, self._callbacks[i])

        def call_node(node, grad_outputs):
            try:
                outputs = real["call_node"](node, grad_outputs)
            except Exception as exc:
                self._record("apply", node, None, tuple(grad_outputs), exc)
                raise
            self._record("apply", node, None, tuple(grad_outputs), tuple(outputs))
            return outputs

        def store_retained_grads(node, grad_outputs):
            stored = real["store_retained_grads"](node, grad_outputs)
            for nr in stored:
                self._record("retain_grad", node, None, (grad_outputs[nr],))
            return stored

        patched = {
            # a generator, as the real one: each tensor's hooks are read when its turn comes
            "tensor_hooks": lambda node: ((nr, self._recording("tensor_hook", node, hook, nr))
                                          for nr, hook in real["tensor_hooks"](node)),
            "pre_hooks": lambda node: [self._recording("pre_hook", node, h) for h in real["pre_hooks"](node)],
            "post_accumulate_hooks": lambda node: [self._recording("post_accumulate_hook", node, h)
                                                   for h in real["post_accumulate_hooks"](node)],
            "post_hooks": lambda node: [self._recording("post_hook", node, h)
                                        for h in real["post_hooks"](node)],
            "final_callbacks": lambda: Callbacks(real["final_callbacks"]()),
            "call_node": call_node, "store_retained_grads": store_retained_grads}
        for name, function in patched.items():
            setattr(engine, name, function)
        return self.events

    def __exit__(self, *exc):
        for name, function in self._real.items():
            setattr(engine, name, function)
        return False


class _Events(list):
    """What :func:`engine_events` returns: the events, and ``labels``, ``error``, ``where``."""

    labels = None       # {leaf tensor: name}
    error = None        # the exception the function raised (the pass stopped there), or None
    where = None        # the learner's line it was raised from (a traceback.FrameSummary), or None

    def name(self, node):
        """How the scoreboard and the timelines name ``node``: ``AccumulateGrad(x)`` for a
        named leaf, ``MulBackward0``, ``(engine)`` for a final callback."""
        if node is None:
            return "(engine)"
        name = node.name().replace("torch::autograd::", "")
        if isinstance(node, _AccumulateGrad):
            for tensor, label in (self.labels or {}).items():
                if tensor is node.variable:
                    return f"{name}({label})"
        return name


def _naming_codes(fn):
    """The functions whose local variables name the leaves of ``fn``'s passes: ``fn``
    itself and the scenarios (with the helpers that make their leaves)."""
    functions = [fn, _leaves, _stacked_leaves, *SCENARIOS]
    return [f.__code__ for f in functions if hasattr(f, "__code__")]


def engine_events(fn, run_backward=None):
    """Call ``fn()`` and return the engine events of the backward passes it runs: those
    of minigrad's engine (``record_events``), or with ``run_backward`` those of a
    learner's engine plugged in with ``engine.use``, recorded through the helpers it
    calls (each hook, ``call_node`` as "apply", each final callback; a learner's engine
    has no "node_start"). A hook (or a node) that raised is an event whose ``result`` is
    the exception. Ready for ``minigrad.viz.hook_timeline(events, labels=events.labels)``.

    The list also has ``labels``, ``{leaf tensor: name}`` taken from the local variables
    of ``fn`` and of the scenarios, ``error``, the exception ``fn()`` raised (None if it
    returned: this function never raises it, except a ``NotImplementedError``), and
    ``where``, the learner's line it came from (None if none)."""
    events = _Events()
    with _LeafNames(_naming_codes(fn)) as labels:
        try:
            if run_backward is None:
                with engine.record_events() as recorded, _HelperSpy(recorded, only_raised=True):
                    try:
                        fn()
                    finally:
                        events.extend(recorded)
            else:
                spy = _HelperSpy(events)

                def counted(root, grad_outputs, keep_graph):
                    spy.start_pass()
                    try:
                        run_backward(root, grad_outputs, keep_graph)
                    finally:
                        spy.passes.pop()
                with spy, engine.use(counted):
                    fn()
        except NotImplementedError:
            raise
        except Exception as exc:
            events.error, events.where = exc, _learners_frame(exc.__traceback__)
    events.labels = {tensor: name for tensor, name in labels.values()}
    return events


def _short(exc):
    """An exception as one short line: its type and its message's first line."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = text if len(text) <= 120 else text[:117] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def describe_error(exc):
    """What a learner's engine raised, in one line: the exception, its message's first
    line, and the learner's line it came from ("your code, line 12: ...")."""
    frame = _learners_frame(exc.__traceback__)
    where = f" (your code, line {frame.lineno}: {frame.line})" if frame is not None else ""
    return _short(exc) + where


def side_by_side(fn, run_backward, title=""):
    """Draw the hook timeline of ``fn()``'s backward passes on minigrad's engine (left)
    and on ``run_backward`` (right), with the leaves named after their variables and a
    hook that raised marked. Whatever either engine raised is printed below the
    figure, never raised: a broken engine still gets its picture."""
    import matplotlib.pyplot as plt
    from minigrad.viz import hook_timeline
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 3.6))
    notes = []
    for ax, engine_run, who in ((left, None, "minigrad's engine"), (right, run_backward, "your engine")):
        try:
            events = engine_events(fn, engine_run)
        except NotImplementedError:
            ax.set_title(f"{who}: write my_run_backward first", fontsize=10)
            ax.axis("off")
            continue
        shown = [e for e in events if e.kind not in ("node_start", "node_done")]
        hook_timeline(shown, ax=ax, labels=events.labels)
        ax.set_title(who + (" (the pass raised)" if events.error is not None else ""), fontsize=10)
        if events.error is not None:
            notes.append(f"{who}: the pass raised {describe_error(events.error)}")
    fig.suptitle(title, fontsize=11)
    plt.tight_layout()
    plt.show()
    for note in notes:
        print(note)


#: event kind -> the hook level it belongs to (the rows of the table in lesson 10)
_HOOK_LEVELS = {"tensor_hook": "tensor hooks", "retain_grad": "retain_grad",
                "pre_hook": "node pre-hooks", "apply": "the node",
                "post_accumulate_hook": "post-accumulate hooks", "post_hook": "node post-hooks",
                "callback": "final callbacks"}

#: a hook's kind -> (what it is called, how minigrad's engine calls it)
_HOOK_CALLS = {
    "tensor_hook": ("a tensor hook", "hook(grad), with the one gradient of its slot"),
    "pre_hook": ("the pre-hook", "hook(grad_outputs), with one tuple: the node's input buffer"),
    "post_accumulate_hook": ("the post-accumulate hook", "hook(leaf), with the leaf tensor "
                                                         "(node.variable)"),
    "post_hook": ("the post-hook", "hook(grad_inputs, grad_outputs), with two tuples: what the "
                                   "node returned, and its input buffer as the pre-hooks left it"),
    "callback": ("a final callback", "callback(), without arguments"),
}


def _hook_steps(events):
    """(hook level, node name) of each event that a learner's engine also records."""
    return [(_HOOK_LEVELS[e.kind], events.name(e.node)) for e in events if e.kind in _HOOK_LEVELS]


def _first_hook_out_of_place(got, want):
    """The first hook level that runs out of place in the events ``got`` of a learner's
    engine, compared with ``want``, minigrad's (None if the hook levels run in the same
    order)."""
    want_steps, got_steps = _hook_steps(want), _hook_steps(got)
    for (level, node), mine in zip(want_steps, got_steps + [None] * len(want_steps)):
        if mine != (level, node):
            instead = "nothing" if mine is None else f"{mine[0]} of {mine[1]}"
            return f"{level} of {node} should run next, but your engine ran {instead}"
    if len(got_steps) > len(want_steps):
        level, node = got_steps[len(want_steps)]
        return f"your engine ran {level} of {node} after the last hook"
    return None


def _same_values(a, b):
    """Whether two gradient sequences hold the same objects (a hook's result handed on)."""
    return (isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b)
            and all(x is y for x, y in zip(a, b)))


def _described(args):
    """What a hook was called with, in words: "1 argument (a tensor)"."""
    def what(value):
        if value is None:
            return "None"
        if isinstance(value, torch.Tensor):
            return "a tensor"
        return {tuple: "a tuple", list: "a list"}.get(type(value), f"a {type(value).__name__}")
    inner = ", ".join(what(a) for a in args)
    return f"{len(args)} argument{'' if len(args) == 1 else 's'}" + (f" ({inner})" if args else "")


def _call_problem(event):
    """How the learner's engine called the hook of ``event`` otherwise than minigrad's
    engine does (None if it called it the same way)."""
    args, kind = event.args, event.kind
    grads = (tuple, list)
    right = {"tensor_hook": len(args) == 1 and (args[0] is None or isinstance(args[0], torch.Tensor)),
             "pre_hook": len(args) == 1 and isinstance(args[0], grads),
             "post_hook": len(args) == 2 and all(isinstance(a, grads) for a in args),
             "post_accumulate_hook": len(args) == 1 and args[0] is getattr(event.node, "variable", None),
             "callback": not args}.get(kind, True)
    return None if right else _described(args)


def _slot_received(event, slot):
    """The gradient in ``slot`` of the input buffer that ``event`` (at a node) saw, or a
    marker object when the event does not show that slot."""
    if event.kind == "tensor_hook" and event.slot == slot:
        return event.args[0]
    if event.kind == "pre_hook" and isinstance(event.args[0], (tuple, list)) and slot < len(event.args[0]):
        return event.args[0][slot]
    if event.kind == "apply" and slot < len(event.args):
        return event.args[slot]
    return _UNSEEN


_UNSEEN = object()


def _ignored_result(events, i):
    """Whether the hook of ``events[i]`` returned a replacement that the learner's engine
    did not hand on: to the next hook of the node, to the node itself, or (for its last
    post-hook) to the nodes it sends gradients to. None when the events cannot tell."""
    event = events[i]
    later = events[i + 1:]
    if event.kind == "post_hook":
        following = [e for e in later if e.node is event.node and e.kind == "post_hook"]
        if following:
            return not _same_values(following[0].args[0], event.result)
        handed = [e for e in events[:i] if e.node is event.node and e.kind == "apply"]
        if not handed or not isinstance(event.result, (tuple, list)):
            return None
        for (child, slot), original, new in zip(event.node.next_functions, handed[-1].result, event.result):
            if child is None or new is original or original is None:
                continue
            seen = next((_slot_received(e, slot) for e in later if e.node is child), _UNSEEN)
            if seen is original:
                return True
        return None
    for e in later:
        if e.node is not event.node:
            continue
        if event.kind == "tensor_hook":
            seen = _slot_received(e, event.slot)
            if seen is not _UNSEEN:
                return seen is not event.result
        elif event.kind == "pre_hook" and e.kind in ("pre_hook", "apply"):
            return not _same_values(e.args[0] if e.kind == "pre_hook" else e.args, event.result)
    return None


def _first_cause(got, want):
    """The first thing that went wrong on the learner's engine, when the events show it
    directly: a node run twice in one pass, a hook (or node) that raised where minigrad's
    engine did not, a hook's result the engine did not use, or a node that never ran."""
    raised_there = {(e.kind, want.name(e.node), type(e.result)) for e in want
                    if isinstance(e.result, BaseException)}
    if want.error is not None:
        raised_there.add(("apply", None, type(want.error)))
    runs = {}
    for i, event in enumerate(got):
        name = got.name(event.node)
        if event.kind == "apply":
            key = (event.pass_nr, id(event.node))
            runs[key] = runs.get(key, 0) + 1
            if runs[key] == 2:
                total = sum(1 for e in got if e.kind == "apply" and e.node is event.node
                            and e.pass_nr == event.pass_nr)
                return (f"{name} ran {total} times in one pass: did it run before all of its "
                        "gradients had arrived? A node runs once, when its dependency count "
                        "reaches zero")
        raised = isinstance(event.result, BaseException) and not (
            (event.kind, name, type(event.result)) in raised_there
            or (event.kind == "apply" and ("apply", None, type(event.result)) in raised_there))
        if raised and event.kind == "apply":
            return (f"engine.call_node({name}, ...) raised {_short(event.result)}: look at the "
                    "input buffer your engine gave it")
        if event.kind in _HOOK_CALLS:
            what, how = _HOOK_CALLS[event.kind]
            of = "" if event.node is None else f" of {name}"
            called = _call_problem(event)
            if raised and called:
                return (f"{what}{of} raised {_short(event.result)}: your engine called it with "
                        f"{called}, minigrad's engine calls it as {how}")
            if raised:
                return f"{what}{of} raised {_short(event.result)}; minigrad's engine calls it as {how}"
            if called:
                return f"your engine called {what}{of} with {called}; minigrad's engine calls it as {how}"
        if event.kind in ("tensor_hook", "pre_hook", "post_hook") and event.result is not None \
                and _ignored_result(got, i):
            what, _ = _HOOK_CALLS[event.kind]
            replaces = {"tensor_hook": "the gradient a tensor hook returns replaces its slot of "
                                       "the input buffer",
                        "pre_hook": "a tuple a pre-hook returns replaces the node's grad_outputs "
                                    "(its input buffer)",
                        "post_hook": "a tuple a post-hook returns replaces the node's grad_inputs "
                                     "(what it hands on)"}[event.kind]
            return (f"your engine ignored what {what} of {name} returned: {replaces}, for the "
                    "next hook and for the node")
    if got.error is None:
        ran = {got.name(e.node) for e in got if e.kind == "apply"}
        never = [n for n in dict.fromkeys(want.name(e.node) for e in want if e.kind == "apply")
                 if n not in ran]
        if never and ran:
            return (f"{never[0]} never ran: its dependency count never reached zero. Every edge "
                    "delivers, even one whose gradient is None: decrement the child's count for each")
    return None


def _diagnosis(got, want):
    """What the learner's run ``got`` (a :class:`_Run`) shows went wrong, compared with
    ``want``, minigrad's, said as directly as the traces allow (or None)."""
    cause = _first_cause(got.events, want.events)
    if cause:
        return cause

    def runs(trace):
        return [line for line in trace if line.startswith("run ")]
    if runs(want.log) and runs(got.log) == runs(want.log):
        out_of_place = _first_hook_out_of_place(got.events, want.events)
        if out_of_place:
            return f"the nodes ran in the right order but the hooks did not: {out_of_place}"
        return ("the nodes ran in the right order but the values differ: does the input "
                "buffer add the gradients that arrive in the same slot?")
    if runs(want.log) and sorted(runs(got.log)) == sorted(runs(want.log)):
        return "the same nodes in another order: pop the ready node with the highest _sequence_nr() first"
    hooked = any(e.kind in _HOOK_LEVELS and e.kind != "apply" for e in want.events)
    out_of_place = _first_hook_out_of_place(got.events, want.events)
    if hooked and out_of_place and got.events.error is None and not runs(want.log):
        return f"the hooks ran out of order: {out_of_place}"
    return None


class _Bypass(Exception):
    """minigrad's engine ran during the learner's pass (``parts`` empty), or the
    ``parts`` of it that the exercises ask for."""

    def __init__(self, parts=()):
        super().__init__(parts)
        self.parts = parts


class _Run:
    """One scenario on one engine: ``log``, the trace compared (the scenario's own lines,
    then "raised ..." if an exception left it), and the ``events`` of its passes."""

    def __init__(self, log, events):
        self.log, self.events = log, events


def _trace(scenario, run_backward=None):
    """The scenario on the real engine, or on ``run_backward`` (raising _Bypass when
    minigrad's engine, or one of its _ENGINE_PARTS, ran during it), as a :class:`_Run`."""
    log = []
    before = engine.real_engine_runs()
    watcher = _watch_calls(_ENGINE_PARTS)

    def watched(root, grad_outputs, keep_graph):
        with watcher:
            run_backward(root, grad_outputs, keep_graph)
    events = engine_events(lambda: scenario(log), None if run_backward is None else watched)
    if events.error is not None:
        log.append(f"raised {type(events.error).__name__}: {events.error}")
    if run_backward is not None and engine.real_engine_runs() != before:
        raise _Bypass()
    if watcher.ran:
        raise _Bypass(watcher.ran)
    return _Run(log, events)


def _first_difference(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return f"trace line {i + 1} is {g!r} on your engine, {w!r} on minigrad's"
    if len(got) < len(want):
        return (f"your engine's trace stops after {len(got)} line(s); minigrad's goes on with "
                f"{want[len(got)]!r}")
    return f"your engine's trace has an extra line {got[len(want)]!r}"


def _name_and_hint(scenario):
    """A scenario's name (its docstring's first line) and the hint after "Hint:" (or None)."""
    name, _, hint = scenario.__doc__.partition("Hint:")
    return name.strip(), " ".join(hint.split()).rstrip(".") or None


def _failure_row(name, hint, got, want):
    """A failing scenario's rows of the scoreboard: what went wrong (or the scenario's
    hint), the first trace line that differs, and the learner's line that raised."""
    cause = _diagnosis(got, want)
    rows = [f"  ✗ {name}: " + (cause if cause else f"hint: {hint}" if hint else "the traces differ")]
    rows.append(f"      {_first_difference(got.log, want.log)}")
    where = got.events.where
    if where is not None and got.log[-1:] != want.log[-1:] and got.log[-1].startswith("raised "):
        rows.append(f"      your code, line {where.lineno}: {where.line}")
    return "\n".join(rows)


def _scoreboard(run_backward, scenarios, what):
    failing, passing = [], []
    for scenario in scenarios:
        name, hint = _name_and_hint(scenario)
        want = _trace(scenario)
        try:
            got = _trace(scenario, run_backward)
        except _Bypass as bypass:
            if bypass.parts:
                return _Result(False, f"{what}: on {name!r} your engine called minigrad's own "
                                     f"{', '.join('engine.' + p for p in bypass.parts)}, a part of "
                                     "the engine this exercise asks you to write. Use your "
                                     "count_dependencies, a heapq ready queue, your own input "
                                     "buffers and the helpers of section 1 (engine.call_node, "
                                     "engine.tensor_hooks, ...).")
            return _Result(False, f"{what}: on {name!r} minigrad's own engine ran during your pass "
                                 "(engine.real_engine_runs() moved), so this scores it, not you. "
                                 "Write the loop yourself with engine.call_node and the hook helpers.")
        if got.log == want.log:
            passing.append(f"  ✓ {name}")
        else:
            failing.append(_failure_row(name, hint, got, want))
    board = f"your engine: {len(passing)}/{len(scenarios)} scenarios match"
    if not failing:
        return _Result(True, f"{what}: {board}, the same traces as minigrad's engine.")
    first = ("the one that differs comes first" if len(failing) == 1 else
             f"the {len(failing)} that differ come first")
    return _Result(False, "\n".join([f"{what}: {board}; {first}:"]
                                    + failing + passing))


def _probe(run_backward):
    """One plain pass first, so an unwritten engine is reported as not implemented."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with engine.use(run_backward):
        (x * 2).sum().backward()


def check_count_dependencies(count_dependencies):
    """``count_dependencies(root)`` returns ``{node: number of edges pointing at it}``
    for every node reachable from ``root`` (the engine's ``compute_dependencies``)."""
    def body():
        x, w = _leaves()
        y = x * w
        graphs = [("(x * w).sum()", (x * w).sum()),
                  ("diamond (y.sin() + y.cos()).sum()", (y.sin() + y.cos()).sum()),
                  ("(x * x).sum()", (x * x).sum()),
                  ("((x * w).relu() * x + w).sum()", ((x * w).relu() * x + w).sum()),
                  ("y * y + y", (y * y + y).sum())]
        deep = x
        for _ in range(5000):
            deep = deep * 1.0
        graphs.append(("a chain of 5,000 nodes", deep.sum()))
        for text, out in graphs:
            task = engine.GraphTask(keep_graph=True, create_graph=False)
            engine.compute_dependencies(task, out.grad_fn)
            want = task.dependencies
            with _watch_calls([engine.compute_dependencies]) as ran:
                try:
                    got = count_dependencies(out.grad_fn)
                except RecursionError:
                    return _Result(False, f"on {text}: your function went past Python's recursion "
                                         "limit. Real graphs are that deep: keep the nodes to visit "
                                         "on an explicit stack (a list), not the call stack.")
            if ran:
                return _Result(False, "your function called minigrad's engine.compute_dependencies, "
                                     "the count this exercise asks for: walk next_functions "
                                     "yourself with a stack (see the Hint).")
            if not isinstance(got, dict):
                return _Result(False, f"on {text}: expected a dict, got {type(got).__name__}.")
            if out.grad_fn in got and got[out.grad_fn]:
                return _Result(False, f"on {text}: the root has no incoming edge, so no count.")
            for node, n in want.items():
                if got.get(node, 0) != n:
                    hint = (" An edge that appears twice (x * x, y * y) counts twice."
                            if got.get(node, 0) < n else
                            " Walk each node's next_functions only once (keep a set of seen nodes).")
                    return _Result(False, f"on {text}: {node.name()} has count {got.get(node, 0)}, "
                                         f"expected {n}.{hint}")
        return _Result(True, "count_dependencies gives the engine's counts on all the graphs.")
    return _run_check("count_dependencies", body)


def check_engine_loop(run_backward_core):
    """``run_backward_core(root, grad_outputs, keep_graph)``: the engine without hooks.
    Compared with minigrad's engine on the graph scenarios (node order and gradients)."""
    def body():
        _probe(run_backward_core)
        return _scoreboard(run_backward_core, _GRAPH_SCENARIOS, "run_backward_core")
    return _run_check("run_backward_core", body)


def check_full_engine(my_run_backward):
    """``my_run_backward(root, grad_outputs, keep_graph)``: the whole engine, every hook
    level and final callbacks. Compared with minigrad's engine on every scenario. An
    engine that passes also learns, not scored, whether its ties among six ready leaves
    come out in the exact order of PyTorch's heap (:func:`heap_order`)."""
    def body():
        _probe(my_run_backward)
        result = _scoreboard(my_run_backward, SCENARIOS, "my_run_backward")
        if result:
            yours, heap = heap_order(my_run_backward), heap_order()
            result.message += (
                f"\nExtra, not scored: your six tied leaves ran in the order {yours}; "
                + ("exactly PyTorch's heap order." if yours == heap else
                   f"PyTorch's heap gives {heap} (to match it, port std::push_heap and "
                   "std::pop_heap: engine.ReadyQueue shows how)."))
        return result
    return _run_check("my_run_backward", body)


def heap_order(run_backward=None):
    """The order in which the tensor hooks of six stacked leaves run (their
    AccumulateGrad nodes tie): on minigrad's engine, which reproduces PyTorch's binary
    heap (``[0, 2, 5, 4, 1, 3]``), or on ``run_backward``."""
    if run_backward is None:
        return _stacked_leaves([])
    with engine.use(run_backward):
        return _stacked_leaves([])


def _spec_folder():
    return _Path(__file__).resolve().parents[2] / "spec" / "scenarios"


def spec_claims():
    """``[(name, module)]`` of the claims in the checkout's ``spec/scenarios`` (each module
    has ``CLAIM``, ``VERDICT``, ``run(torch)`` and ``check(trace)``); empty when minigrad
    was installed without its ``spec/`` folder."""
    folder = _spec_folder()
    if not (folder / "__init__.py").exists():
        return []
    package = "minigrad_spec_scenarios"
    if package not in sys.modules:
        found = importlib.util.spec_from_file_location(package, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        module = importlib.util.module_from_spec(found)
        sys.modules[package] = module
        found.loader.exec_module(module)
    return [(name, importlib.import_module(f"{package}.{name}")) for name in sys.modules[package].NAMES]


def claims_on_engine(run_backward, claims=None):
    """Rerun each spec claim (default :func:`spec_claims`) whose scenario calls
    ``backward()`` with ``run_backward`` plugged in, and return one row per claim:
    ``(name, committed verdict, whether its check still holds, why not)``. A claim whose
    scenario never reached ``run_backward`` (``autograd.grad`` only, or no backward) is
    left out. The random generator is left as it was."""
    rows, state = [], torch.get_rng_state()
    for name, claim in spec_claims() if claims is None else claims:
        calls = []

        def counted(root, grad_outputs, keep_graph):
            calls.append(root)
            run_backward(root, grad_outputs, keep_graph)
        problem = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.manual_seed(0)
            try:
                with engine.use(counted):
                    trace = claim.run(torch)
                claim.check(trace)
            except AssertionError as exc:
                problem = f"the check fails: {exc}".rstrip(": ")
            except NotImplementedError:
                raise
            except Exception as exc:
                problem = f"raised {describe_error(exc)}"
        if calls:
            rows.append((name, claim.VERDICT, problem is None, problem))
    torch.set_rng_state(state)           # the scenarios seed it: leave the learner's as it was
    return rows
