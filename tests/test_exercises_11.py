"""The exercise checks of lesson 11: a right answer gets ✅, typical wrong answers get a
specific ❌, a stub gets "not implemented yet", and no check ever raises."""
import pytest

import minigrad as torch
from minigrad.exercises import lesson11 as l11

from exercise_support import stub, swapped, verdict

# --- exercise 1: predict the checkpoint hooks' order ----------------------------------------
ORDER = ["state_dict pre-hook on outer", "state_dict pre-hook on inner",
         "state_dict post-hook on inner", "state_dict post-hook on outer",
         "load pre-hook on outer", "load pre-hook on inner",
         "load post-hook on inner", "load post-hook on outer"]


def test_checkpoint_hook_order_verdicts(capsys):
    check = l11.check_checkpoint_hook_order
    assert verdict(check, lambda: list(ORDER), capsys)
    r = verdict(check, lambda: swapped(ORDER, "state_dict post-hook on inner",
                                       "state_dict post-hook on outer"), capsys)
    assert not r and "first goes wrong at event 3" in r.message and "post-hooks inner first" in r.message
    r = verdict(check, lambda: swapped(ORDER, "load pre-hook on outer", "load pre-hook on inner"), capsys)
    assert not r and "first goes wrong at event 5" in r.message and "pre-hooks outer first" in r.message
    r = verdict(check, lambda: ORDER[4:] + ORDER[:4], capsys)
    assert not r and "saves first" in r.message
    # all pre-hooks of a module, then its post-hooks (a module as one block): wrong
    r = verdict(check, lambda: swapped(ORDER, "state_dict pre-hook on inner",
                                       "state_dict post-hook on outer"), capsys)
    assert not r and "first goes wrong at event 2" in r.message
    r = verdict(check, lambda: ORDER[:-1], capsys)
    assert not r and "misses ['load post-hook on outer']" in r.message
    r = verdict(check, lambda: ORDER + ["state_dict pre-hook on outer"], capsys)
    assert not r and "more than once" in r.message
    r = verdict(check, lambda: ORDER[:7] + ["load hook on outer"], capsys)
    assert not r and "unknown event name" in r.message
    r = verdict(check, lambda: "state_dict pre-hook on outer", capsys)
    assert not r and "return a list" in r.message
    # bypass: measuring instead of predicting
    r = verdict(check, l11._checkpoint_pass, capsys)
    assert not r and "called state_dict()" in r.message
    # the names as listed (alphabetically) are not the answer
    r = verdict(check, lambda: list(l11.CHECKPOINT_HOOK_EVENTS), capsys)
    assert not r and "saves first" in r.message
    r = verdict(check, stub, capsys)
    assert not r and "not implemented yet" in r.message


# --- exercise 2: skip the checkpoint's tensors whose shape differs ------------------------------
def make_skipper(buffers=True, forgive=True, drop=True, reset=True, forgive_all=False,
                 drop_unknown=False, returns=True):
    """skip_mismatched_keys, right by default, with one thing wrong on request."""
    def skip_mismatched_keys(model):
        skipped = []

        def drop_hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
            if reset:
                skipped.clear()
            own = module.state_dict() if buffers else dict(module.named_parameters())
            for key in list(state_dict):
                if key not in own:
                    if drop_unknown:
                        del state_dict[key]
                    continue
                if state_dict[key].shape != own[key].shape:
                    if drop:
                        del state_dict[key]
                    skipped.append(key)

        def forgive_hook(module, incompatible_keys):
            if forgive_all:
                incompatible_keys.missing_keys.clear()
            elif forgive:
                for key in skipped:
                    if key in incompatible_keys.missing_keys:
                        incompatible_keys.missing_keys.remove(key)
        handles = [model.register_load_state_dict_pre_hook(drop_hook),
                   model.register_load_state_dict_post_hook(forgive_hook)]
        return handles if returns else None
    return skip_mismatched_keys


SKIPPER_MISTAKES = [
    (dict(buffers=False), ["BatchNorm's buffers", "running_mean"]),
    (dict(drop=False), ["size mismatch", "in place"]),
    (dict(forgive=False), ["Missing key(s)", "missing_keys"]),
    (dict(reset=False), ["an earlier load skipped"]),
    (dict(forgive_all=True), ["only those"]),
    (dict(drop_unknown=True), ["Unexpected key(s)"]),
    (dict(returns=False), ["return the list"]),
]


def test_skip_mismatched_keys_without_hooks(capsys):
    r = verdict(l11.check_skip_mismatched_keys, lambda model: [], capsys)   # registers nothing
    assert not r and "size mismatch" in r.message


# --- exercise 3: Lookahead ------------------------------------------------------------------
def make_lookahead(every=None, copy_back=True, lazy=False, pre=False, alias=False, replace=False,
                   returns=True, alpha_as=None, counts_from_zero=False, groups=None):
    """attach_lookahead, right by default, with one thing wrong on request: ``alpha_as``
    replaces alpha ("1": alpha ignored, slow <- fast; "0"; "1 - alpha"), ``every`` syncs
    every so many steps, ``counts_from_zero`` tests the count before adding one, ``groups``
    keeps slow weights for those param groups only."""
    def attach_lookahead(optimizer, k, alpha):
        rate = {None: alpha, "1": 1.0, "0": 0.0, "1 - alpha": 1 - alpha}[alpha_as]
        params = [p for i, group in enumerate(optimizer.param_groups) if groups is None or i in groups
                  for p in group["params"]]
        slow = [p if alias else None if lazy else p.detach().clone() for p in params]
        steps = [0]

        def sync(opt, args, kwargs):
            if not counts_from_zero:
                steps[0] += 1
            with torch.no_grad():
                for i, p in enumerate(params):
                    if slow[i] is None:
                        slow[i] = p.detach().clone()
                    if steps[0] % (every or k) == 0:
                        slow[i] += rate * (p - slow[i])
                        if replace:
                            for group in opt.param_groups:
                                group["params"] = [torch.nn.Parameter(q.detach().clone())
                                                   for q in group["params"]]
                        elif copy_back:
                            p.copy_(slow[i])
            if counts_from_zero:
                steps[0] += 1
        register = optimizer.register_step_pre_hook if pre else optimizer.register_step_post_hook
        handle = register(sync)
        return handle if returns else None
    return attach_lookahead


PLAIN_SGD = ["plain SGD", "alpha ignored", "never reach the parameters", "keep them as clones"]
LOOKAHEAD_MISTAKES = [
    (dict(every=1), ["after every step"]),
    (dict(copy_back=False), PLAIN_SGD),
    (dict(alias=True), PLAIN_SGD),
    (dict(alpha_as="1"), PLAIN_SGD),                    # slow <- fast
    (dict(alpha_as="0"), ["the slow weights never move", "alpha * (fast - slow)"]),
    (dict(alpha_as="1 - alpha"), ["(1 - alpha) * (fast - slow)"]),
    (dict(counts_from_zero=True), ["off by one", "after steps 1, 4, 7", "steps 3, 6"]),
    (dict(every=4), ["off by one", "after steps 4,", "steps 3, 6"]),
    (dict(every=2), ["off by one", "after steps 2, 4, 6"]),
    (dict(groups={0}), ["only the parameters of the first param group", "every group"]),
    (dict(groups={1}), ["only the parameters of the last param group"]),
    (dict(lazy=True), ["when the hook is attached"]),
    (dict(pre=True), ["step post-hook"]),
    (dict(replace=True), ["in place", "replace"]),
    (dict(returns=False), ["return the handle"]),
]


BUILT = {"skip_mismatched_keys": (l11.check_skip_mismatched_keys, make_skipper, SKIPPER_MISTAKES),
         "attach_lookahead": (l11.check_lookahead, make_lookahead, LOOKAHEAD_MISTAKES)}


@pytest.mark.parametrize("exercise", BUILT)
def test_the_solution_passes_and_the_stub_is_not_implemented(exercise, capsys):
    check, make, _ = BUILT[exercise]
    assert verdict(check, make(), capsys)
    r = verdict(check, stub, capsys)
    assert not r and "not implemented yet" in r.message


@pytest.mark.parametrize("exercise, mistake, says",
                         [(name, *row) for name, (_, _, rows) in BUILT.items() for row in rows],
                         ids=lambda v: str(v))
def test_each_likely_mistake_is_named(exercise, mistake, says, capsys):
    check, make, _ = BUILT[exercise]
    r = verdict(check, make(**mistake), capsys)
    assert not r and all(text in r.message for text in says), r.message
