"""Random hook programs: minigrad's whole event trace must equal PyTorch's.

tests/test_random_graphs.py checks gradients and node order on random graphs. Here
hypothesis draws a *hook program*: a small random graph (leaves of shape (2,), float64,
in half the programs first all stacked together, so they become ready at once,
ops that keep that shape, sometimes a random ``nn.Sequential``), hooks at every level
the engine knows, and one or two backward passes. A program is plain data (dicts,
tuples, ints, strings) so hypothesis can shrink it and print it; one interpreter,
:func:`run`, written once against the framework module ``T`` (``minigrad`` or
``torch``), executes it and returns the event lines: who fired, in what order, with
what values (``.tolist()`` rounded to 4 decimals). The two traces must be equal.

What a program can contain:

* tensor hooks on leaves and non-leaves, ``retain_grad``, node pre- and post-hooks
  (``grad_fn.register_prehook/register_hook``; on a leaf, its AccumulateGrad node),
  post-accumulate-grad hooks, multi-grad hooks (mode "all" and "any");
* a ``saved_tensors_hooks`` pair around part of the forward (pack and unpack log);
* module hooks on a small ``nn.Sequential`` and its children: forward pre, forward,
  full backward, full backward pre, each with or without ``prepend=True``, and the
  four global module hooks;
* hook actions: return a replacement (the gradient scaled), remove another hook's
  handle mid-pass, queue a final callback
  (``Variable._execution_engine.queue_callback``) from inside the hook;
* passes: ``backward()``, ``autograd.grad`` on random inputs (``allow_unused``),
  ``backward(inputs=)``; with two passes the first keeps the graph.

An error in a forward or a pass is part of the trace (``error Type: message``), so
PyTorch's error messages are compared too. Patterns left out because minigrad differs
there are listed in the comment "Left out" below, with the difference they hide.

The examples are derandomized so CI sees the same programs every run; torch and
minigrad run in this same process.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch


# --- the ops ------------------------------------------------------------------------------
# name -> (arity, fn(T, *operands)); every operand and result has shape (2,).
OPS = {
    "add": (2, lambda T, a, b: a + b),
    "sub": (2, lambda T, a, b: a - b),
    "mul": (2, lambda T, a, b: a * b),
    "div": (2, lambda T, a, b: a / (b.sigmoid() + 0.5)),
    "tanh": (1, lambda T, a: a.tanh()),
    "sigmoid": (1, lambda T, a: a.sigmoid()),
    "sin": (1, lambda T, a: a.sin()),
    "scale": (1, lambda T, a: a * 0.5),
    "self_mul": (1, lambda T, a: a * a),
    "neg": (1, lambda T, a: -a),
    # a multi-output node whose second output is unused: its hooks see (g, None)
    "unbind_first": (1, lambda T, a: T.stack([a.unbind(0)[0], a.unbind(0)[0] * 2])),
    "flip_unbind": (1, lambda T, a: T.stack(list(a.unbind(0))[::-1])),
    "stack_sum": (2, lambda T, a, b: T.stack([a, b]).sum(0)),
    "stack3_sum": (3, lambda T, a, b, c: T.stack([a, b, c]).sum(0)),
    "stack4_mean": (4, lambda T, *xs: T.stack(xs).mean(0)),
    "module": (1, None),            # the program's nn.Sequential
}
OP_NAMES = sorted(OPS)

LAYERS = ("linear", "tanh", "sigmoid")
SCALES = (None, None, 2.0, -0.5)
TENSOR_KINDS = ("tensor", "tensor", "retain_grad", "pre", "post", "post_acc", "multi")
MODULE_KINDS = ("fwd_pre", "fwd", "bwd", "bwd_pre")
GLOBAL_KINDS = ("global_fwd_pre", "global_fwd", "global_bwd", "global_bwd_pre")

# Left out of the generator because minigrad differs from torch there (each reported to
# the lead with a minimal program; differences found and fixed are kept as the
# differential scenarios tests/differential/scenarios/h01_* ...):
# * ops the generator does not draw and that differ in what reaches a pack hook: where,
#   masked_fill, gather, indexing with a list, nll_loss / cross_entropy. PyTorch saves
#   the condition / mask / index / indices / target and total_weight as tensors (they
#   go through saved_tensors_hooks); minigrad keeps them as plain attributes.


# The op that gathers n leaves: their AccumulateGrad nodes become ready together, and
# the leaves' hooks fire in the heap's order (not FIFO from four on).
GATHERING_OPS = {2: "stack_sum", 3: "stack3_sum", 4: "stack4_mean"}


# --- the generator ------------------------------------------------------------------------
@st.composite
def programs(draw):
    n_leaves = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2 ** 16))
    use_module = draw(st.booleans())
    layers = (tuple(draw(st.lists(st.sampled_from(LAYERS), min_size=1, max_size=3)))
              if use_module else ())
    op_names = OP_NAMES if use_module else [n for n in OP_NAMES if n != "module"]
    steps = []
    n_values = n_leaves
    if n_leaves > 1 and draw(st.booleans()):        # every leaf gathered by one node
        steps.append((GATHERING_OPS[n_leaves], tuple(draw(st.permutations(range(n_leaves))))))
        n_values += 1
    for _ in range(draw(st.integers(1, 6))):
        name = draw(st.sampled_from(op_names))
        operands = tuple(draw(st.one_of(st.just(n_values - 1), st.integers(0, n_values - 1)))
                         for _ in range(OPS[name][0]))
        steps.append((name, operands))
        n_values += 1
    if use_module and not any(name == "module" for name, _ in steps):
        steps.append(("module", (n_values - 1,)))
        n_values += 1
    saved = None
    if draw(st.booleans()):
        start = draw(st.integers(0, len(steps) - 1))
        saved = (start, draw(st.integers(start + 1, len(steps))))

    n_hooks = draw(st.integers(1, 8))
    hooks = []
    for _ in range(n_hooks):
        kinds = TENSOR_KINDS + ((MODULE_KINDS + GLOBAL_KINDS) if use_module else ())
        kind = draw(st.sampled_from(kinds))
        if kind == "post_acc":
            target = draw(st.integers(0, n_leaves - 1))
        elif kind == "multi":
            target = (tuple(sorted(set(draw(st.lists(st.integers(0, n_values - 1),
                                                     min_size=1, max_size=3))))),
                      draw(st.sampled_from(("all", "any"))))
        elif kind in MODULE_KINDS:
            target = (draw(st.one_of(st.just(0), st.integers(0, len(layers)))),  # module,
                      draw(st.booleans()))                                          # prepend
        elif kind in GLOBAL_KINDS:
            target = None
        else:
            # often the last value, so several hooks share a tensor or a node, or a leaf,
            # so the order of leaves ready together shows
            target = draw(st.one_of(st.just(n_values - 1), st.integers(0, n_values - 1),
                                    st.integers(0, n_leaves - 1)))
        scale = draw(st.sampled_from(SCALES))
        remove = draw(st.one_of(st.none(), st.none(), st.integers(0, n_hooks - 1)))
        # queue_callback outside a backward pass only raises: not from forward hooks
        callback = "fwd" not in kind and draw(st.integers(0, 4)) == 0
        hooks.append((kind, target, scale, remove, callback))

    passes = []
    for _ in range(draw(st.integers(1, 2))):
        how = draw(st.sampled_from(("backward", "backward", "grad", "backward_inputs")))
        inputs = ()
        if how != "backward":
            inputs = tuple(draw(st.lists(st.integers(0, n_values - 1), min_size=1, max_size=3,
                                         unique=True)))
        passes.append((how, inputs))
    return {"leaves": n_leaves, "seed": seed, "layers": layers, "steps": steps,
            "saved": saved, "hooks": hooks, "passes": passes}


# --- the interpreter ------------------------------------------------------------------------
def r(value):
    """A tensor (or None, or a sequence of them) as nested lists rounded to 4 decimals."""
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return [r(v) for v in value]
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, list):
        return [r(v) for v in value]
    if isinstance(value, float):
        v = round(value, 4)
        return 0.0 if v == 0 else v
    return value


def _scaled(grads, scale):
    return tuple(None if g is None else g * scale for g in grads)


def _err(e):
    return f"error {type(e).__name__}: {e}"


def build_module(T, layers, seed):
    rng = np.random.default_rng(seed + 1)
    mods = []
    for kind in layers:
        if kind == "linear":
            lin = T.nn.Linear(2, 2).double()
            with T.no_grad():
                lin.weight.copy_(T.tensor(rng.uniform(-1, 1, (2, 2)), dtype=T.float64))
                lin.bias.copy_(T.tensor(rng.uniform(-1, 1, (2,)), dtype=T.float64))
            mods.append(lin)
        else:
            mods.append(T.nn.Tanh() if kind == "tanh" else T.nn.Sigmoid())
    return T.nn.Sequential(*mods)


def run(T, program):
    """Execute ``program`` with framework ``T``; return the event lines."""
    out = []
    log = out.append
    rng = np.random.default_rng(program["seed"])
    leaves = [T.tensor(rng.uniform(-1, 1, (2,)), dtype=T.float64, requires_grad=True)
              for _ in range(program["leaves"])]
    values = list(leaves)
    hooks = program["hooks"]
    handles = {}
    engine = T.autograd.Variable._execution_engine
    module_api = T.nn.modules.module

    def act(k, result_of_scale):
        """The side effects of hook k when it fires; returns its replacement or None."""
        kind, target, scale, remove, callback = hooks[k]
        if remove is not None and remove != k:
            handle = handles.get(remove)
            if handle is not None:
                log(f"  h{k} removes h{remove}")
                handle.remove()
        if callback:
            engine.queue_callback(lambda: log(f"  callback queued by h{k}"))
        return None if scale is None else result_of_scale(scale)

    # Module and its forward/backward hooks (registered before the forward).
    seq = build_module(T, program["layers"], program["seed"]) if program["layers"] else None
    mods = [seq] + list(seq) if seq is not None else []
    global_handles = []

    def module_hook(k, kind, label):
        if kind in ("fwd_pre", "global_fwd_pre"):
            def hook(m, inp):
                log(f"h{k} {kind} {label(m)} {r(inp)}")
                return act(k, lambda s: (inp[0] * s,))
        elif kind in ("fwd", "global_fwd"):
            def hook(m, inp, output):
                log(f"h{k} {kind} {label(m)} {r(inp)} -> {r(output)}")
                return act(k, lambda s: output * s)
        elif kind in ("bwd", "global_bwd"):
            def hook(m, grad_input, grad_output):
                log(f"h{k} {kind} {label(m)} gi={r(grad_input)} go={r(grad_output)}")
                return act(k, lambda s: _scaled(grad_input, s))
        else:
            def hook(m, grad_output):
                log(f"h{k} {kind} {label(m)} go={r(grad_output)}")
                return act(k, lambda s: _scaled(grad_output, s))
        return hook

    def label(m):
        for i, candidate in enumerate(mods):
            if candidate is m:
                return f"m{i}"
        return "m?"

    try:
        for k, (kind, target, scale, remove, callback) in enumerate(hooks):
            if kind in MODULE_KINDS:
                index, prepend = target
                register = {"fwd_pre": "register_forward_pre_hook",
                            "fwd": "register_forward_hook",
                            "bwd": "register_full_backward_hook",
                            "bwd_pre": "register_full_backward_pre_hook"}[kind]
                handles[k] = getattr(mods[index], register)(module_hook(k, kind, label),
                                                            prepend=prepend)
            elif kind in GLOBAL_KINDS:
                register = {"global_fwd_pre": module_api.register_module_forward_pre_hook,
                            "global_fwd": module_api.register_module_forward_hook,
                            "global_bwd": module_api.register_module_full_backward_hook,
                            "global_bwd_pre": module_api.register_module_full_backward_pre_hook,
                            }[kind]
                handles[k] = register(module_hook(k, kind, label))
                global_handles.append(handles[k])

        # The forward, part of it under a saved_tensors_hooks pair.
        def pack(x):
            log(f"pack {r(x)}")
            return x

        def unpack(x):
            log(f"unpack {r(x)}")
            return x

        saved = program["saved"]
        try:
            for i, (name, operands) in enumerate(program["steps"]):
                args = [values[j] for j in operands]
                fn = (lambda T, a: seq(a)) if name == "module" else OPS[name][1]
                if saved is not None and saved[0] <= i < saved[1]:
                    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
                        values.append(fn(T, *args))
                else:
                    values.append(fn(T, *args))
        except Exception as e:          # a forward hook may fail; the trace says how
            log(_err(e))
            return out
        used = {j for _, operands in program["steps"] for j in operands}
        loss = values[-1].sum()
        for i, v in enumerate(values[:-1]):
            if i not in used:
                loss = loss + v.sum()
        log(f"loss {r(loss)}")

        # Tensor- and node-level hooks (registered after the forward).
        retained = []
        for k, (kind, target, scale, remove, callback) in enumerate(hooks):
            if kind == "tensor":
                def hook(g, k=k, target=target):
                    log(f"h{k} tensor v{target} {r(g)}")
                    return act(k, lambda s: g * s)
                handles[k] = values[target].register_hook(hook)
            elif kind == "retain_grad":
                values[target].retain_grad()
                retained.append(target)
            elif kind in ("pre", "post"):
                v = values[target]
                node = v.grad_fn if v.grad_fn is not None else (v * 1).grad_fn.next_functions[0][0]
                if kind == "pre":
                    def hook(grad_outputs, k=k, target=target, name=node.name()):
                        log(f"h{k} pre {name}@v{target} {r(grad_outputs)}")
                        return act(k, lambda s: _scaled(grad_outputs, s))
                    handles[k] = node.register_prehook(hook)
                else:
                    def hook(grad_inputs, grad_outputs, k=k, target=target, name=node.name()):
                        log(f"h{k} post {name}@v{target} gi={r(grad_inputs)} go={r(grad_outputs)}")
                        return act(k, lambda s: _scaled(grad_inputs, s))
                    handles[k] = node.register_hook(hook)
            elif kind == "post_acc":
                def hook(p, k=k, target=target):
                    log(f"h{k} post_acc v{target} {r(p.grad)}")
                    act(k, lambda s: None)
                handles[k] = leaves[target].register_post_accumulate_grad_hook(hook)
            elif kind == "multi":
                indices, mode = target

                def hook(grads, k=k, indices=indices, mode=mode):
                    log(f"h{k} multi-{mode} {list(indices)} {r(grads)}")
                    act(k, lambda s: None)
                handles[k] = T.autograd.graph.register_multi_grad_hook(
                    [values[i] for i in indices], hook, mode=mode)

        # The passes.
        params = list(seq.named_parameters()) if seq is not None else []
        passes = program["passes"]
        for p, (how, inputs) in enumerate(passes):
            keep = p < len(passes) - 1
            log(f"pass {p}: {how} {list(inputs)} retain_graph={keep}")
            try:
                if how == "backward":
                    loss.backward(retain_graph=keep)
                elif how == "backward_inputs":
                    loss.backward(inputs=[values[i] for i in inputs], retain_graph=keep)
                else:
                    grads = T.autograd.grad(loss, [values[i] for i in inputs],
                                            retain_graph=keep, allow_unused=True)
                    log(f"  grad -> {r(list(grads))}")
            except Exception as e:
                log("  " + _err(e))
            for i, leaf in enumerate(leaves):
                log(f"  v{i}.grad {r(leaf.grad)}")
            for i in retained:
                if i >= len(leaves):
                    log(f"  v{i}.grad (retained) {r(values[i].grad)}")
            for name, param in params:
                log(f"  {name}.grad {r(param.grad)}")
        return out
    finally:
        for handle in global_handles:
            handle.remove()


# --- the test -----------------------------------------------------------------------------
def _compare(program):
    expected = run(torch, program)
    actual = run(minigrad, program)
    assert actual == expected, _diff(program, expected, actual)


def _diff(program, expected, actual):
    import difflib
    diff = "\n".join(difflib.unified_diff(expected, actual, "torch", "minigrad", lineterm=""))
    return f"program={program!r}\n{diff}"


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_random_hook_program_matches_torch(program):
    _compare(program)


def test_a_fixed_program_with_every_level():
    """A hand-written program, so a failure has a readable example: tensor hooks on a
    leaf and a non-leaf (one scaling), retain_grad, node pre/post hooks, a multi-grad
    hook, module hooks with prepend, a hook that removes another and queues a callback,
    saved-tensor hooks, and two passes."""
    program = {
        "leaves": 2, "seed": 3, "layers": ("linear", "tanh"),
        "steps": [("mul", (0, 1)), ("module", (2,)), ("tanh", (3,))],
        "saved": (0, 2),
        "hooks": [("tensor", 0, 2.0, None, False), ("retain_grad", 2, None, None, False),
                  ("pre", 3, None, None, False), ("post", 2, -0.5, None, True),
                  ("multi", ((0, 3), "all"), None, None, False),
                  ("bwd", (1, False), None, None, False), ("bwd_pre", (0, True), 2.0, 7, False),
                  ("tensor", 2, None, None, False)],
        "passes": [("backward", ()), ("grad", (0, 2))],
    }
    _compare(program)


def test_the_interpreter_can_fail():
    """The comparison is not vacuous: changing one hook's replacement changes the trace."""
    program = {"leaves": 1, "seed": 0, "layers": (), "steps": [("tanh", (0,))], "saved": None,
               "hooks": [("tensor", 1, 2.0, None, False)], "passes": [("backward", ())]}
    other = dict(program, hooks=[("tensor", 1, -0.5, None, False)])
    assert run(torch, program) != run(minigrad, other)
