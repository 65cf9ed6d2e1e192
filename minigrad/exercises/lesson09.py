"""Checks for lesson 09 (putting it together).

FLOP counts are computed from the modules' shapes (not from op hooks); the FSDP check
supplies its own ``gather``/``free`` that really empty the parameters (NaN) between uses,
so a missing or misplaced hook shows up as NaN outputs or gradients, and compares with
a plain model.
"""
import warnings

import numpy as np

from .. import _creation, models, nn
from ..autograd import op_hooks
from . import Result, compare_sequences, compare_values, run_check

__all__ = ["check_count_flops", "check_fsdp_hooks"]


def _shape_flops(model, x):
    """FLOPs of one forward from module shapes: 2 per multiply-add, biases not counted
    (the convention of ``torch.utils.flop_counter.FlopCounterMode``)."""
    n = x.shape[0]
    flops = {}
    h, w = x.shape[-2], x.shape[-1]
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            (kh, kw), (sh, sw), (ph, pw) = m.kernel_size, m.stride, m.padding
            h, w = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
            flops["convolution"] = flops.get("convolution", 0) + \
                2 * n * m.out_channels * h * w * m.in_channels * kh * kw
        elif isinstance(m, nn.MaxPool2d):
            k = m.kernel_size if isinstance(m.kernel_size, int) else m.kernel_size[0]
            h, w = h // k, w // k
        elif isinstance(m, nn.Linear):
            flops["addmm"] = flops.get("addmm", 0) + 2 * n * m.in_features * m.out_features
    return flops


def check_count_flops(count_flops):
    """``count_flops(fn, x)`` runs ``fn(x)`` once and returns ``{op name: FLOPs}`` for the
    ``mm``, ``addmm`` and ``convolution`` ops it ran, with an op-level forward hook."""
    def body():
        _creation.manual_seed(0)
        w = _creation.randn(64, 24)
        x, _ = models.load_split("test")
        x = x[:8]
        flat = _creation.randn(8, 64)
        cases = [("x @ w with x [8, 64], w [64, 24]", lambda t: t @ w, flat,
                  {"mm": 2 * 8 * 64 * 24}),
                 ("make_mlp() on 8 images", models.make_mlp(seed=0), x, None),
                 ("make_cnn() on 8 images", models.make_cnn(seed=0).eval(), x, None)]
        hooks_before = len(op_hooks._op_forward_hooks) + len(op_hooks._op_forward_pre_hooks)
        for label, fn, inp, expected in cases:
            if expected is None:
                expected = _shape_flops(fn, inp)
            got = count_flops(fn, inp)
            if not isinstance(got, dict):
                return Result(False, f"for {label} you returned {type(got).__name__}; return a dict "
                                     "{op name: FLOPs}.")
            got = {k: v for k, v in got.items() if v}
            if set(got) != set(expected):
                return Result(False, f"for {label} you counted the ops {sorted(got)}, expected "
                                     f"{sorted(expected)} (count only mm, addmm and convolution).")
            for op, flops in expected.items():
                if got[op] == flops:
                    continue
                if got[op] * 2 == flops:
                    hint = " A multiply-add is 2 FLOPs."
                elif op == "addmm" and got[op] > flops:
                    hint = (" Don't count the bias additions (FlopCounterMode doesn't): "
                            "2 * M * K * N.")
                else:
                    hint = ""
                return Result(False, f"for {label}, {op}: you counted {got[op]} FLOPs, expected "
                                     f"{flops}.{hint}")
        if len(op_hooks._op_forward_hooks) + len(op_hooks._op_forward_pre_hooks) != hooks_before:
            return Result(False, "the counts are right, but an op hook was left registered: it "
                                 "would count every op of the program from now on. Remove it.")
        return Result(True, "mm, addmm and convolution FLOPs match the shapes, and the hook "
                            "is gone.")
    before = (set(op_hooks._op_forward_hooks), set(op_hooks._op_forward_pre_hooks))
    try:
        return run_check("count_flops", body)
    finally:
        # a hook the learner's code left behind (or could not remove because it raised)
        # would count every op of the rest of the notebook: take it away
        for registry, keep in zip((op_hooks._op_forward_hooks, op_hooks._op_forward_pre_hooks), before):
            for key in [k for k in registry if k not in keep]:
                del registry[key]


def _fsdp_model():
    _creation.manual_seed(0)
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 32),
                         nn.ReLU(), nn.Linear(32, 10))


def check_fsdp_hooks(attach_fsdp_hooks):
    """``attach_fsdp_hooks(model, gather, free)`` registers hooks so that each child with
    parameters is gathered before its forward and before its backward, and freed after
    each. The check's ``free`` really empties the weights (NaN)."""
    def body():
        x, y = models.load_split("train")
        x, y = x[:16], y[:16]
        ref = _fsdp_model()
        ref_out = ref(x)
        nn.CrossEntropyLoss()(ref_out, y).backward()
        ref_grads = {n: p.grad._array.copy() for n, p in ref.named_parameters()}

        model = _fsdp_model()
        names = {id(m): n for n, m in model.named_children()}
        store = {n: p._array.copy() for n, p in model.named_parameters()}
        events = []

        def gather(module):
            name = names.get(id(module), "?")
            events.append(f"gather {name}")
            for pname, p in module.named_parameters():
                p._array[...] = store[f"{name}.{pname}"]

        def free(module):
            name = names.get(id(module), "?")
            events.append(f"free {name}")
            for p in module.parameters():
                p._array[...] = np.nan

        for p in model.parameters():
            p._array[...] = np.nan              # sharded: nothing materialised to start with
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # the first layer's pre-hook warns (no input grad)
            handles = attach_fsdp_hooks(model, gather, free)
            out = model(x)
            forward_events = list(events)
            if np.isnan(out._array).any():
                return Result(False, "the forward output has NaN: a layer ran with freed weights. "
                                     "gather(child) in a forward pre-hook of each child.")
            r = compare_sequences("the forward events", forward_events,
                                  ["gather 1", "free 1", "gather 3", "free 3", "gather 5", "free 5"])
            if not r:
                return Result(False, r.message + " (forward pre-hook: gather; forward hook: free; "
                                                 "only children that have parameters.)")
            nn.CrossEntropyLoss()(out, y).backward()
        backward_events = events[len(forward_events):]
        for name, p in model.named_parameters():
            if p.grad is None:
                return Result(False, f"{name}.grad is None after backward.")
            if np.isnan(p.grad._array).any():
                return Result(False, f"{name}.grad has NaN: backward used freed weights. gather(child) "
                                     "again in a full backward pre-hook "
                                     "(register_full_backward_pre_hook).")
            r = compare_values(f"the gradient of {name}", p.grad, ref_grads[name])
            if not r:
                return r
        for unit in ("5", "3", "1"):
            if backward_events.count(f"gather {unit}") != 1:
                return Result(False, f"in backward, child {unit} was gathered "
                                     f"{backward_events.count(f'gather {unit}')} times, expected once "
                                     f"(backward events: {backward_events}).")
            if backward_events.count(f"free {unit}") != 1:
                return Result(False, f"in backward, child {unit} was freed "
                                     f"{backward_events.count(f'free {unit}')} times, expected once, "
                                     "after all of its parameters' gradients are accumulated "
                                     f"(backward events: {backward_events}).")
            if backward_events.index(f"free {unit}") < backward_events.index(f"gather {unit}"):
                return Result(False, f"in backward, child {unit} was freed before it was gathered "
                                     f"(backward events: {backward_events}).")
        still = [n for n, p in model.named_parameters() if not np.isnan(p._array).all()]
        if still:
            return Result(False, f"after backward {still} are still materialised: free each child "
                                 "once its parameters' gradients are accumulated.")
        if not isinstance(handles, (list, tuple)) or not all(hasattr(h, "remove") for h in handles):
            return Result(False, "the gathers and frees are right; return the list of handles so "
                                 "the hooks can be removed.")
        for h in handles:
            h.remove()
        events.clear()
        model(x)
        if events:
            return Result(False, "after removing every returned handle, hooks still fire: "
                                 "return all of them.")
        return Result(True, "gather before forward and backward, free after each, once per "
                            "layer, and the same gradients as the unsharded model.")
    return run_check("attach_fsdp_hooks", body)
