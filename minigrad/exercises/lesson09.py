"""Checks for lesson 09 (putting it together).

* ``check_module_op_trace``: the learner predicts the order of global module hooks and op
  hooks for a small model; the check runs it with minigrad's real hooks and explains the
  first miss.
* ``check_saved_bytes_per_module``: the expected bytes come from running each leaf module
  by itself under its own ``saved_tensors_hooks`` (no module hooks at all).
* ``check_prefetching_fsdp``: the check supplies ``gather``/``free`` that really empty the
  parameters (NaN) between uses, logs when each unit's forward and backward start, and
  compares the whole event stream with the one the prefetching rules give, and the
  gradients with a plain model.

Checks print one verdict and never raise.
"""
import warnings

import numpy as np

from .. import _creation, models, nn
from ..autograd import graph as autograd_graph
from ..autograd import saved_variable
from ..autograd import op_hooks
from ..nn.modules import module as module_mod
from . import Result as _Result
from . import compare_values as _compare_values
from . import unless_hooks_left as _unless_hooks_left
from . import judge_returned_handles as _judge_returned_handles
from . import run_check as _run_check
from . import watch_calls as _watch_calls

__all__ = ["check_module_op_trace", "check_saved_bytes_per_module", "check_prefetching_fsdp",
           "trace_model"]

_GLOBAL_DICTS = ("_global_forward_pre_hooks", "_global_forward_hooks")


class _Cleanup:
    """Remove the global module hooks, op hooks and saved-tensor hook pairs that appear
    while it is active (a learner's leftovers would fire on every module, op or saved
    value of the rest of the notebook);
    ``left`` says how many there were."""

    def __enter__(self):
        self.saved_hooks_depth = len(saved_variable._saved_hooks_state.stack)
        self.before = {d: set(getattr(module_mod, d)) for d in _GLOBAL_DICTS}
        self.ops = {id(r): set(r) for r in (op_hooks._op_forward_hooks,
                                             op_hooks._op_forward_pre_hooks)}
        self.left = 0
        return self

    def count(self):
        n = sum(len([k for k in getattr(module_mod, d) if k not in keep])
                for d, keep in self.before.items())
        n += sum(len([k for k in r if k not in self.ops[id(r)]])
                 for r in (op_hooks._op_forward_hooks, op_hooks._op_forward_pre_hooks))
        return n

    def __exit__(self, *exc):
        for d, keep in self.before.items():
            registry = getattr(module_mod, d)
            for key in [k for k in registry if k not in keep]:
                del registry[key]
        for r in (op_hooks._op_forward_hooks, op_hooks._op_forward_pre_hooks):
            for key in [k for k in r if k not in self.ops[id(r)]]:
                del r[key]
        del saved_variable._saved_hooks_state.stack[self.saved_hooks_depth:]   # pairs left pushed
        return False


# --- exercise 1: predict the trace ---------------------------------------------------------------
def trace_model():
    """The model of exercise 1."""
    _creation.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 2), nn.ReLU())


def _run_trace():
    model = trace_model()
    log = []
    handles = [
        module_mod.register_module_forward_pre_hook(
            lambda m, args: log.append(f"pre {type(m).__name__}")),
        module_mod.register_module_forward_hook(
            lambda m, args, out: log.append(f"post {type(m).__name__}")),
        op_hooks.register_op_forward_hook(lambda name, args, out: log.append(f"op {name}")),
    ]
    try:
        model(_creation.ones(4, 3))
    finally:
        for h in handles:
            h.remove()
    return log


def _explain_trace(got, want):
    if got and got[0] != want[0]:
        return ("the container is called first: Sequential.__call__ runs its pre-hook before "
                "its forward calls the children.")
    if "op t" not in got:
        return "a Linear runs two ops: t (transpose the weight), then addmm (bias + x @ Wᵀ)."
    if got and got[-1] != want[-1]:
        return ("module hooks nest: the Sequential's forward hook runs after its forward "
                "returned, so after every child's hooks.")
    ops = [g for g in got if g.startswith("op ")]
    if ops != [w for w in want if w.startswith("op ")]:
        return "the ops, in order, are t and addmm (the Linear), then relu."
    return ("each op hook fires between the pre-hook and the forward hook of the module "
            "whose forward runs the op.")


def check_module_op_trace(predict_module_op_trace):
    """``predict_module_op_trace()`` returns the trace of exercise 1 ("pre X", "op name",
    "post X"); it is compared with a real run."""
    def body():
        calls = []
        with _Cleanup():
            spies = [op_hooks.register_op_forward_hook(lambda name, args, out: calls.append(name)),
                     module_mod.register_module_forward_pre_hook(
                         lambda m, args: calls.append(type(m).__name__))]
            try:
                got = predict_module_op_trace()
            finally:
                for h in spies:
                    h.remove()
        if calls:
            return _Result(False, "your function ran a model (or ops) to record the trace: that "
                                 "measures it instead of predicting it. Return a list written "
                                 "by hand, then run the next cell.")
        if not isinstance(got, (list, tuple)) or not all(isinstance(g, str) for g in got):
            return _Result(False, "return a list of strings such as 'pre Sequential', 'op t', "
                                 "'post Linear'.")
        got = list(got)
        if not got:
            return _Result(False, "you returned an empty list: return the trace by hand, one "
                                 "string per line the next cell prints.")
        want = _run_trace()
        if got == want:
            return _Result(True, "right: " + " → ".join(want) + ". Module hooks nest like calls; "
                                "op hooks fire inside the module that runs the op.")
        bad = [g for g in got if not (g.startswith(("pre ", "post ", "op ")))]
        if bad:
            return _Result(False, f"{bad} is not of the form 'pre <Module>', 'op <name>' or "
                                 "'post <Module>'.")
        # the first miss and why, never the real trace
        i = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
        found = f"entry {i + 1} ({got[i]!r}) is wrong" if i < len(got) else \
            f"your trace ends after {len(got)} entries, the real one goes on"
        return _Result(False, f"{found}. {_explain_trace(got, want)}")
    return _run_check("predict_module_op_trace", body)


# --- exercise 2: saved bytes per module ----------------------------------------------------------
def _reference_saved_bytes(model, x):
    """{module name: bytes packed while its own forward ran}, running each leaf module of
    (nested) Sequentials by itself under its own saved_tensors_hooks."""
    result = {}

    def run(module, h, prefix):
        if isinstance(module, nn.Sequential):
            for name, child in module.named_children():
                h = run(child, h, f"{prefix}.{name}" if prefix else name)
            return h
        total = [0]

        def pack(t):
            total[0] += t.numel() * t.element_size()
            return t
        with autograd_graph.saved_tensors_hooks(pack, lambda t: t):
            h = module(h)
        if total[0]:
            result[prefix] = total[0]
        return h
    run(model, x, "")
    return result


def _saved_cases():
    x, _ = models.load_split("test")
    _creation.manual_seed(0)
    nested = nn.Sequential(nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.Tanh()),
                           nn.Sequential(nn.Linear(32, 16), nn.ReLU()), nn.Linear(16, 10))
    return [("make_mlp() on 8 images", models.make_mlp(seed=0), x[:8]),
            ("make_cnn() on 4 images", models.make_cnn(seed=0), x[:4]),
            ("a Sequential of Sequentials", nested, x[:8])]


def check_saved_bytes_per_module(saved_bytes_per_module):
    """``saved_bytes_per_module(model, x)`` runs ``model(x)`` once and returns
    ``{module name: bytes of the tensors saved for backward by that module's own ops}``."""
    def body():
        with _Cleanup() as cleanup:
            for label, model, x in _saved_cases():
                model.train()
                _creation.manual_seed(1)
                want = _reference_saved_bytes(model, x)
                _creation.manual_seed(1)
                with _watch_calls([_reference_saved_bytes]) as ran:
                    got = saved_bytes_per_module(model, x)
                if ran:
                    return _Result(False, "your function called the check's own reference "
                                         "(minigrad.exercises.lesson09._reference_saved_bytes): "
                                         "count the bytes yourself, with global module hooks "
                                         "and saved_tensors_hooks.")
                if autograd_graph.current_saved_tensors_hooks() is not None:
                    return _Result(False, "your saved_tensors_hooks are still active after your "
                                         "function returned: use them in a `with` block.")
                if not isinstance(got, dict):
                    return _Result(False, f"for {label} you returned {type(got).__name__}; return "
                                         "a dict {module name: bytes}.")
                got = {k: int(v) for k, v in got.items() if v}
                if got == want:
                    continue
                total_got, total_want = sum(got.values()), sum(want.values())
                if "" in got and set(got) == {""}:
                    hint = ("everything went to the root module: charge each packed tensor to "
                            "the module on top of a stack that global forward pre-hooks push "
                            "and forward hooks pop (section 3's flops_per_module).")
                elif total_got == total_want:
                    hint = ("the total is right but it is split differently: charge a tensor to "
                            "the innermost module running (the top of the stack), named as in "
                            "named_modules() (nested ones look like '0.1').")
                else:
                    hint = ("count every tensor that pack receives while the forward runs, "
                            "t.numel() * t.element_size() bytes each (4 per float32 value).")
                diff = next((k for k in sorted(set(got) | set(want)) if got.get(k) != want.get(k)))
                return _Result(False, f"for {label}, module {diff!r}: you counted "
                                     f"{got.get(diff, 0)} bytes, expected {want.get(diff, 0)} "
                                     f"(expected {want}). Hint: {hint}")
            left = cleanup.count()
        return _unless_hooks_left(left, "global hook(s) are", "remove them in a finally: block",
                                  _Result(True, "the bytes each module saved for backward, in "
                                                "plain and nested models, and no hook left "
                                                "behind."))
    return _run_check("saved_bytes_per_module", body)


# --- exercise 3: FSDP with prefetching -----------------------------------------------------------
def _fsdp_model():
    _creation.manual_seed(0)
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 32),
                         nn.ReLU(), nn.Linear(32, 10))


def _expected_fsdp_events(units):
    """The events the prefetching rules give for ``units`` (names, forward order)."""
    events, gathered = [], set()

    def gather(u):
        if u not in gathered:
            gathered.add(u)
            events.append(f"gather {u}")
    for order, phase in ((units, "forward"), (units[::-1], "backward")):
        for k, u in enumerate(order):
            gather(u)
            if k + 1 < len(order):
                gather(order[k + 1])
            events.append(f"{phase} {u}")
            gathered.discard(u)
            events.append(f"free {u}")
    return events


def _fsdp_advice(got, want):
    i = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
    seen, materialised = set(), set()
    for e in got[:i + 1]:
        kind, unit = e.split(" ", 1)
        if kind == "gather" and unit in materialised:
            return (f"unit {unit} was gathered while it was already materialised (a gather is "
                    "communication): keep a set of the gathered units and skip those.")
        if kind == "gather":
            materialised.add(unit)
        elif kind == "free":
            materialised.discard(unit)
        seen.add(e)
    found = got[i] if i < len(got) else "(end)"
    expected = want[i] if i < len(want) else "(end)"
    if expected.startswith("gather") and found.startswith(("forward", "backward")):
        phase = found.split()[0]
        return (f"{expected} must come before {found}: in the {phase} pre-hook of a unit, "
                f"gather the next unit that {phase} will reach (prefetch), not only the unit "
                "itself.")
    return None


def check_prefetching_fsdp(attach_prefetching_fsdp):
    """``attach_prefetching_fsdp(model, gather, free)``: every child with parameters is a
    unit; before a unit's forward (backward) it is gathered if needed and the next unit of
    the forward (backward) order is prefetched; a unit is freed after its forward and once
    its parameters' gradients are accumulated; nothing is gathered twice."""
    def body():
        x, y = models.load_split("train")
        x, y = x[:16], y[:16]
        ref = _fsdp_model()
        nn.CrossEntropyLoss()(ref(x), y).backward()
        ref_grads = {n: p.grad._array.copy() for n, p in ref.named_parameters()}

        model = _fsdp_model()
        names = {id(m): n for n, m in model.named_children()}
        units = [n for n, m in model.named_children() if list(m.parameters())]
        store = {n: p._array.copy() for n, p in model.named_parameters()}
        events, peak = [], [0]

        def materialised():
            return sum(1 for u in units
                       if not np.isnan(model[int(u)].weight._array).all())

        def gather(module):
            name = names.get(id(module), "?")
            events.append(f"gather {name}")
            for pname, p in module.named_parameters():
                p._array[...] = store[f"{name}.{pname}"]
            peak[0] = max(peak[0], materialised())

        def free(module):
            name = names.get(id(module), "?")
            events.append(f"free {name}")
            for p in module.parameters():
                p._array[...] = np.nan

        for p in model.parameters():
            p._array[...] = np.nan              # sharded: nothing materialised to start with
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # the first unit's input needs no grad: it warns
            handles = attach_prefetching_fsdp(model, gather, free)
            mine = []
            for u in units:                   # the check's own markers, after your hooks
                layer = model[int(u)]
                layer.forward = (lambda f, u: lambda *a, **k: events.append(f"forward {u}")
                                 or f(*a, **k))(layer.forward, u)
                mine.append(layer.register_full_backward_pre_hook(
                    lambda m, go, u=u: events.append(f"backward {u}")))
            out = model(x)
            if np.isnan(out._array).any():
                return _Result(False, f"the forward output has NaN: a unit ran with freed weights "
                                     f"(events: {events}).")
            nn.CrossEntropyLoss()(out, y).backward()
        for h in mine:
            h.remove()
        for name, p in model.named_parameters():
            if p.grad is None:
                return _Result(False, f"{name}.grad is None after backward.")
            if np.isnan(p.grad._array).any():
                return _Result(False, f"{name}.grad has NaN: backward used freed weights; gather "
                                     "each unit again in a full backward pre-hook (events: "
                                     f"{events}).")
            r = _compare_values(f"the gradient of {name}", p.grad, ref_grads[name])
            if not r:
                return r
        want = _expected_fsdp_events(units)
        if events != want:
            advice = _fsdp_advice(events, want)
            i = next((i for i, (g, w) in enumerate(zip(events, want)) if g != w),
                     min(len(events), len(want)))
            return _Result(False, f"the gradients are right, but event {i + 1} is "
                                 f"{events[i] if i < len(events) else '(end)'!r}, expected "
                                 f"{want[i] if i < len(want) else '(end)'!r} (your events "
                                 f"start {events[:i + 1]}, expected {want[:i + 1]})."
                                 + (f" {advice}" if advice else ""))
        if peak[0] > 2:
            return _Result(False, f"{peak[0]} units were materialised at once; at most 2 (the "
                                 "running one and the prefetched one).")

        def hooks_fire_again():
            events.clear()
            for p in model.parameters():
                p._array[...] = 1.0
            model(x)
            return any(not e.startswith("forward") for e in events)
        r = _judge_returned_handles(
            handles, hooks_fire_again,
            not_handles="the events are right; return the list of handles so the hooks can be "
                        "removed.",
            still_active="after removing every returned handle, hooks still fire: return all "
                         "of them.")
        if not r:
            return r
        return _Result(True, "each unit gathered once per use with the next one prefetched, "
                            "freed after forward and after its gradients, at most 2 at a time, "
                            "and the unsharded gradients.")
    return _run_check("attach_prefetching_fsdp", body)
