"""Checks for lesson 11 (the hooks outside backward).

* ``check_checkpoint_hook_order``: the learner predicts the order of the state_dict and
  load_state_dict hooks of a model with one child; the check saves and loads that model
  with minigrad's real hooks and explains the first miss.
* ``check_skip_mismatched_keys``: checkpoints of a pretrained model are loaded into models
  with a resized head (parameters and BatchNorm buffers), nested or not; the check states
  what must load, what must stay, and which errors must still be raised.
* ``check_lookahead``: the weights after each step are compared with a Lookahead run
  written as a plain loop (no hooks), and with the runs the likely mistakes give.

Checks print one verdict and never raise.
"""
import copy
import re

import numpy as np

from .. import _creation, nn, optim
from ..grad_mode import no_grad as _no_grad
from ..nn.modules.module import Module as _Module
from . import Result as _Result
from . import judge_predicted_order as _judge_predicted_order
from . import judge_returned_handles as _judge_returned_handles
from . import run_check as _run_check

__all__ = ["check_checkpoint_hook_order", "check_skip_mismatched_keys", "check_lookahead",
           "CHECKPOINT_HOOK_EVENTS"]


# --- exercise 1: predict the order ---------------------------------------------------------------
#: the names the learner may use in the prediction, in alphabetical order (not the answer's)
CHECKPOINT_HOOK_EVENTS = ("load post-hook on inner", "load post-hook on outer",
                          "load pre-hook on inner", "load pre-hook on outer",
                          "state_dict post-hook on inner", "state_dict post-hook on outer",
                          "state_dict pre-hook on inner", "state_dict pre-hook on outer")


def _checkpoint_pass():
    """The pass of exercise 1: ``outer = nn.Sequential(inner)`` saved, then loaded back,
    logging CHECKPOINT_HOOK_EVENTS in the order they happen."""
    log = []
    inner = nn.Linear(2, 2)
    outer = nn.Sequential(inner)
    for name, m in (("outer", outer), ("inner", inner)):
        m.register_state_dict_pre_hook(
            lambda mod, prefix, keep_vars, n=name: log.append(f"state_dict pre-hook on {n}"))
        m.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta, n=name: log.append(f"state_dict post-hook on {n}"))
        m.register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, *rest, n=name: log.append(f"load pre-hook on {n}"))
        m.register_load_state_dict_post_hook(
            lambda mod, keys, n=name: log.append(f"load post-hook on {n}"))
    outer.load_state_dict(outer.state_dict())
    return log


def _explain_checkpoint_order(got, want):
    pos = {name: i for i, name in enumerate(got)}

    def before(a, b):
        return pos[a] < pos[b]
    if any(before(g, s) for g in got if g.startswith("load") for s in got if s.startswith("state_dict")):
        return ("the cell saves first (state_dict()), then loads what it saved: every state_dict "
                "hook runs first.")
    for verb in ("state_dict", "load"):
        if before(f"{verb} pre-hook on inner", f"{verb} pre-hook on outer"):
            return (f"{verb}() starts at the module it is called on, the outer one, and runs its "
                    "pre-hooks before it recurses into the children: pre-hooks outer first.")
        if before(f"{verb} post-hook on outer", f"{verb} post-hook on inner"):
            return (f"a {verb} post-hook runs once the module's children are done, so the inner "
                    "module's post-hook runs first: post-hooks inner first, like returns from "
                    "nested calls.")
    return None


def check_checkpoint_hook_order(predict_checkpoint_hook_order):
    """``predict_checkpoint_hook_order()`` returns the names of CHECKPOINT_HOOK_EVENTS in
    the order a save and a load of ``nn.Sequential(inner)`` run them."""
    def body():
        return _judge_predicted_order(
            predict_checkpoint_hook_order, CHECKPOINT_HOOK_EVENTS, _checkpoint_pass,
            see="the next cell", each_once="each hook runs once, for one save and one load.",
            right="Pre-hooks run on the way down the module tree, post-hooks on the way back up, "
                  "for saving and loading alike.",
            explain=_explain_checkpoint_order,
            measured_with={_Module.state_dict: "state_dict()", _Module.load_state_dict: "load_state_dict()"},
            who="PyTorch")
    return _run_check("predict_checkpoint_hook_order", body)


# --- exercise 2: load a checkpoint into a model with a resized head -----------------------------
def _pretrained(classes, nested, seed):
    """A model whose head (a Linear and a BatchNorm1d) has ``classes`` outputs."""
    _creation.manual_seed(seed)
    backbone = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
    head = nn.Sequential(nn.Linear(8, classes), nn.BatchNorm1d(classes))
    if nested:
        return nn.Sequential(backbone, head)
    return nn.Sequential(*backbone, *head)


def _trained_checkpoint(classes, nested, seed):
    """The state dict of a pretrained model whose BatchNorm ran one batch (so its
    running statistics are not the defaults)."""
    model = _pretrained(classes, nested, seed)
    model(_creation.randn(5, 4))
    return model.state_dict()


def _snapshot(model):
    return {k: v.numpy().copy() for k, v in model.state_dict().items()}


def _load(model, checkpoint):
    """``(result, error message)`` of ``model.load_state_dict(checkpoint)``."""
    try:
        return model.load_state_dict(checkpoint), None
    except RuntimeError as exc:
        return None, str(exc)


def _load_error_advice(error):
    """What to do about the first error of a strict load that should have passed."""
    resized = re.findall(r"size mismatch for (\S+):", error)
    first = error.splitlines()[1].strip() if "\n" in error else error
    if resized and all("running_" in key for key in resized):
        return (f"{first} BatchNorm's buffers have the head's size too: compare shapes with the "
                "whole model.state_dict() (parameters and buffers), not named_parameters().")
    if resized:
        return (f"{first} Remove each mismatched entry from the state_dict your load pre-hook "
                "receives, in place, before the module copies it.")
    return (f"{first} A key you removed in the pre-hook is then missing: forgive exactly those "
            "keys in a load post-hook (remove them from incompatible_keys.missing_keys, in place).")


def _mismatch_case(skip_mismatched_keys, nested):
    """Load a 10-class checkpoint into a 3-class model: the backbone and the head's
    num_batches_tracked load, the resized tensors keep the model's values."""
    where = "a nested model" if nested else "a flat Sequential"
    ckpt = _trained_checkpoint(10, nested, seed=1)
    given = dict(ckpt)
    model = _pretrained(3, nested, seed=2)
    before = _snapshot(model)
    handles = skip_mismatched_keys(model)
    result, error = _load(model, ckpt)
    if error is not None:
        return None, None, _Result(False, f"on {where} load_state_dict raised: {_load_error_advice(error)}")
    if list(ckpt) != list(given) or any(ckpt[k] is not given[k] for k in given):
        return None, None, _Result(False, "the caller's checkpoint dict changed: load_state_dict "
                                          "gives the hooks its own copy, change only that one.")
    if result.missing_keys or result.unexpected_keys:
        return None, None, _Result(False, f"on {where} load_state_dict returned {result}: the "
                                          "skipped keys should not be reported as missing.")
    for key, value in _snapshot(model).items():
        resized = ckpt[key].shape != model.state_dict()[key].shape
        want, whose = (before[key], "the model") if resized else (ckpt[key].numpy(), "the checkpoint")
        if not np.array_equal(value, want):
            return None, None, _Result(False, f"on {where}, {key} should have {whose}'s value: "
                                              "skip exactly the entries whose shape differs from "
                                              "the model's, load the rest.")
    return model, handles, None


def _still_strict(skip_mismatched_keys):
    """A key the checkpoint lacks, or one the model lacks, must still fail a strict load,
    also when an earlier load skipped keys."""
    model = _pretrained(3, False, seed=2)
    skip_mismatched_keys(model)
    _load(model, _trained_checkpoint(10, False, seed=1))       # skips the head's tensors
    ckpt = _trained_checkpoint(3, False, seed=1)
    for key in ("2.weight", "2.bias"):
        del ckpt[key]
    _, error = _load(model, ckpt)
    if error is None or "Missing key(s)" not in error:
        return _Result(False, "a checkpoint without 2.weight and 2.bias (the keys an earlier load "
                              "skipped) loaded without an error: forgive only the keys the "
                              "pre-hook removed in this same load, and only those.")
    ckpt = _trained_checkpoint(3, False, seed=1)
    ckpt["5.weight"] = _creation.ones(2)
    _, error = _load(model, ckpt)
    if error is None or 'Unexpected key(s) in state_dict: "5.weight"' not in error:
        return _Result(False, "a checkpoint with a key the model does not have (5.weight) loaded "
                              "without the 'Unexpected key(s)' error: skip only keys the model has "
                              "with another shape.")
    return None


def check_skip_mismatched_keys(skip_mismatched_keys):
    """``skip_mismatched_keys(model)`` registers load_state_dict hooks on ``model`` so that
    a strict load skips (and does not report) the checkpoint's tensors whose shape differs
    from the model's, and returns the list of handles."""
    def body():
        model = None
        for nested in (False, True):
            model, handles, failed = _mismatch_case(skip_mismatched_keys, nested)
            if failed is not None:
                return failed
        failed = _still_strict(skip_mismatched_keys)
        if failed is not None:
            return failed
        ckpt = _trained_checkpoint(10, True, seed=1)
        r = _judge_returned_handles(
            handles, lambda: _load(model, ckpt)[1] is None,
            not_handles="the loads are right; return the list of the handles of your hooks.",
            still_active="after removing every returned handle, the mismatched keys are still "
                         "skipped: return all of them.")
        if not r:
            return r
        return _Result(True, "the resized layers (parameters and buffers, nested or not) keep their "
                             "values, everything else loads, and missing or unexpected keys still "
                             "fail a strict load.")
    return _run_check("skip_mismatched_keys", body)


# --- exercise 3: Lookahead in a step post-hook ----------------------------------------------------
_STEPS = 7


def _lookahead_setup():
    """A model, an SGD with momentum over two param groups, and fixed batches."""
    _creation.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    groups = [{"params": list(model[0].parameters())},
              {"params": list(model[2].parameters()), "lr": 0.05}]
    opt = optim.SGD(groups, lr=0.1, momentum=0.9)
    batches = [(_creation.randn(6, 3), _creation.randn(6, 2)) for _ in range(_STEPS)]
    return model, opt, batches


def _train(model, opt, batches):
    """Run the steps; the parameters' values after each one."""
    trajectory = []
    for x, y in batches:
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()
        trajectory.append([p.detach().numpy().copy() for p in model.parameters()])
    return trajectory


def _lookahead_run(k, alpha, sync_steps=None, lazy=False, before_step=False, groups=None):
    """Lookahead as a plain loop. The keyword arguments give the likely mistakes:
    synchronising at other steps than every k-th (``sync_steps``, the steps that do), taking
    the slow weights at the first step (``lazy``), synchronising before the update
    (``before_step``, a step pre-hook), only the parameters of some param ``groups``."""
    model, opt, batches = _lookahead_setup()
    synced = [p for i, g in enumerate(opt.param_groups) if groups is None or i in groups
              for p in g["params"]]
    slow = [None if lazy else p.detach().clone() for p in synced]

    def sync(t):
        with _no_grad():
            for i, p in enumerate(synced):
                if slow[i] is None:
                    slow[i] = p.detach().clone()
                if (t % k == 0) if sync_steps is None else (t in sync_steps):
                    slow[i] += alpha * (p - slow[i])
                    p.copy_(slow[i])
    trajectory = []
    for t, (x, y) in enumerate(batches, 1):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        if before_step:
            sync(t)
        opt.step()
        if not before_step:
            sync(t)
        trajectory.append([p.detach().numpy().copy() for p in model.parameters()])
    return trajectory


def _same(a, b):
    return all(np.allclose(x, y, atol=1e-6) for xs, ys in zip(a, b) for x, y in zip(xs, ys))


def _steps_said(steps):
    return ", ".join(str(t) for t in sorted(steps))


def _lookahead_mistakes(k, alpha):
    """(the keyword arguments of _lookahead_run that make a likely mistake, what it is and
    what to do), most telling first."""
    right = {t for t in range(1, _STEPS + 1) if t % k == 0}
    every_step = set(range(1, _STEPS + 1))
    mistakes = [
        (dict(alpha=0.0), "the parameters go back to the weights they had when the hook was "
                          "attached, every k steps: the slow weights never move. Move them by "
                          "alpha * (fast - slow) before copying them into the parameters."),
        (dict(alpha=1 - alpha), f"the slow weights move by (1 - alpha) * (fast - slow), not by "
                                f"alpha * (fast - slow) (alpha={alpha}): slow += alpha * (fast - "
                                "slow)."),
        (dict(sync_steps=every_step), "the weights are synchronised after every step: count "
                                      "the steps and synchronise only when the count reaches a "
                                      "multiple of k."),
        (dict(groups={0}), "only the parameters of the first param group are synchronised: "
                           "Lookahead keeps slow weights for every parameter of every group "
                           "(loop over optimizer.param_groups, not param_groups[0])."),
        (dict(groups={1}), "only the parameters of the last param group are synchronised: "
                           "Lookahead keeps slow weights for every parameter of every group."),
        (dict(lazy=True), "the slow weights start from the weights after the first k steps: take "
                          "them (clones) when the hook is attached, before any step."),
        (dict(before_step=True), "the synchronisation runs before the optimizer's update: use a "
                                 "step post-hook, which sees the weights after the update."),
    ]
    # off by one: the steps counted from 0, or every k - 1 or k + 1 steps
    for steps in ({t for t in range(1, _STEPS + 1) if (t - 1) % k == 0},
                  {t for t in range(1, _STEPS + 1) if t % (k + 1) == 0},
                  {t for t in range(1, _STEPS + 1) if t % (k - 1) == 0}):
        mistakes.append((dict(sync_steps=steps),
                         f"off by one: your hook synchronises after steps {_steps_said(steps)}, "
                         f"Lookahead after every k-th step (k={k}): steps {_steps_said(right)}. "
                         "Count the steps from 1, add one at each call of the hook, and "
                         "synchronise when the count is a multiple of k."))
    return mistakes


def check_lookahead(attach_lookahead):
    """``attach_lookahead(optimizer, k, alpha)`` keeps slow weights (clones of the
    parameters when it is called) and, after every k-th ``step``, moves them by
    ``alpha * (fast - slow)`` and copies them into the parameters; returns the handle."""
    def body():
        k, alpha = 3, 0.3
        model, opt, batches = _lookahead_setup()
        params = list(model.parameters())
        handle = attach_lookahead(opt, k, alpha)
        got = _train(model, opt, batches)
        if any(a is not b for a, b in zip(params, (p for g in opt.param_groups for p in g["params"]))):
            return _Result(False, "the optimizer's parameters are not the model's any more: change "
                                  "the parameters in place (p.copy_(...) under no_grad), never "
                                  "replace them, or the optimizer updates tensors nobody uses.")
        if not any(np.isfinite(v).all() for step in got for v in step):
            return _Result(False, "the weights are not finite after training.")
        want = _lookahead_run(k, alpha)
        if not _same(got, want):
            if _same(got, _lookahead_run(k, alpha, sync_steps=set())):
                # alpha taken as 1 (slow <- fast), no copy back, or slow weights that are the
                # parameters themselves: each leaves the parameters as SGD made them
                return _Result(False, "the weights are those of plain SGD: every synchronisation "
                                      "left the parameters as the update made them. Three "
                                      "mistakes do that: alpha ignored (slow <- fast: move the "
                                      "slow weights by alpha * (fast - slow) instead); slow "
                                      "weights that never reach the parameters (copy them in, in "
                                      "place, after updating them); slow weights that are the "
                                      "parameters themselves (keep them as clones, or they move "
                                      "with them).")
            for mistake, message in _lookahead_mistakes(k, alpha):
                if _same(got, _lookahead_run(k, mistake.pop("alpha", alpha), **mistake)):
                    return _Result(False, message)
            step = next(t for t, (a, b) in enumerate(zip(got, want), 1) if not _same([a], [b]))
            return _Result(False, f"the weights differ from Lookahead's after step {step} of {_STEPS} "
                                  f"(k={k}, alpha={alpha}, SGD with momentum, two param groups): "
                                  "slow += alpha * (fast - slow) then fast = slow, every k-th step, for "
                                  "every parameter of every group.")
        if not all(p.is_leaf and p.grad_fn is None for p in params):
            return _Result(False, "a parameter got a grad_fn: update the weights under no_grad().")

        def syncs_again():
            twin_model, twin_opt = copy.deepcopy((model, opt))       # optimizer hooks are not copied
            extra = _lookahead_setup()[2]
            return not _same(_train(model, opt, extra), _train(twin_model, twin_opt, extra))
        r = _judge_returned_handles(
            [handle], syncs_again,
            not_handles="the weights are right; return the handle of your step post-hook.",
            still_active="after handle.remove() the weights are still synchronised.")
        if not r:
            return r
        return _Result(True, f"Lookahead's weights after every step (k={k}, alpha={alpha}, momentum, two "
                             "param groups), updated in place, and remove() stops it.")
    return _run_check("attach_lookahead", body)
