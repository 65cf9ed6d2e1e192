"""The exercise checks of lesson 11: a right answer gets ✅, typical wrong answers get a
specific ❌, a stub gets "not implemented yet", and no check ever raises."""
import minigrad as torch
from minigrad.exercises import lesson11 as l11

from exercise_support import stub, verdict

# --- exercise 1: predict the checkpoint hooks' order ----------------------------------------
ORDER = ["state_dict pre-hook on outer", "state_dict pre-hook on inner",
         "state_dict post-hook on inner", "state_dict post-hook on outer",
         "load pre-hook on outer", "load pre-hook on inner",
         "load post-hook on inner", "load post-hook on outer"]


def swapped(order, a, b):
    order = list(order)
    i, j = order.index(a), order.index(b)
    order[i], order[j] = order[j], order[i]
    return order


def test_checkpoint_hook_order_verdicts(capsys):
    check = l11.check_checkpoint_hook_order
    assert verdict(check, lambda: list(ORDER), capsys)
    r = verdict(check, lambda: swapped(ORDER, "state_dict post-hook on inner",
                                       "state_dict post-hook on outer"), capsys)
    assert not r and "event 3" in r.message and "post-hooks inner first" in r.message
    r = verdict(check, lambda: swapped(ORDER, "load pre-hook on outer", "load pre-hook on inner"), capsys)
    assert not r and "event 5" in r.message and "pre-hooks outer first" in r.message
    r = verdict(check, lambda: ORDER[4:] + ORDER[:4], capsys)
    assert not r and "saves first" in r.message
    # all pre-hooks of a module, then its post-hooks (a module as one block): wrong
    r = verdict(check, lambda: swapped(ORDER, "state_dict pre-hook on inner",
                                       "state_dict post-hook on outer"), capsys)
    assert not r and "event 2" in r.message
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


def test_skip_mismatched_keys(capsys):
    check = l11.check_skip_mismatched_keys
    assert verdict(check, make_skipper(), capsys)
    r = verdict(check, make_skipper(buffers=False), capsys)
    assert not r and "BatchNorm's buffers" in r.message and "running_mean" in r.message
    r = verdict(check, make_skipper(drop=False), capsys)
    assert not r and "size mismatch" in r.message and "in place" in r.message
    r = verdict(check, make_skipper(forgive=False), capsys)
    assert not r and "Missing key(s)" in r.message and "missing_keys" in r.message
    r = verdict(check, make_skipper(reset=False), capsys)
    assert not r and "an earlier load skipped" in r.message
    r = verdict(check, make_skipper(forgive_all=True), capsys)
    assert not r and "only those" in r.message
    r = verdict(check, make_skipper(drop_unknown=True), capsys)
    assert not r and "Unexpected key(s)" in r.message
    r = verdict(check, make_skipper(returns=False), capsys)
    assert not r and "return the list" in r.message
    # strict=False in disguise: a hook that drops nothing and forgives nothing
    r = verdict(check, lambda model: [], capsys)
    assert not r and "size mismatch" in r.message
    r = verdict(check, stub, capsys)
    assert not r and "not implemented yet" in r.message


# --- exercise 3: Lookahead ------------------------------------------------------------------
def make_lookahead(every=None, copy_back=True, lazy=False, pre=False, alias=False, replace=False,
                   returns=True):
    """attach_lookahead, right by default, with one thing wrong on request."""
    def attach_lookahead(optimizer, k, alpha):
        params = [p for group in optimizer.param_groups for p in group["params"]]
        slow = [p if alias else None if lazy else p.detach().clone() for p in params]
        steps = [0]

        def sync(opt, args, kwargs):
            steps[0] += 1
            with torch.no_grad():
                for i, p in enumerate(params):
                    if slow[i] is None:
                        slow[i] = p.detach().clone()
                    if steps[0] % (every or k) == 0:
                        slow[i] += alpha * (p - slow[i])
                        if replace:
                            for group in opt.param_groups:
                                group["params"] = [torch.nn.Parameter(q.detach().clone())
                                                   for q in group["params"]]
                        elif copy_back:
                            p.copy_(slow[i])
        register = optimizer.register_step_pre_hook if pre else optimizer.register_step_post_hook
        handle = register(sync)
        return handle if returns else None
    return attach_lookahead


def test_lookahead(capsys):
    check = l11.check_lookahead
    assert verdict(check, make_lookahead(), capsys)
    r = verdict(check, make_lookahead(every=1), capsys)
    assert not r and "after every step" in r.message
    r = verdict(check, make_lookahead(copy_back=False), capsys)
    assert not r and "plain SGD" in r.message and "Copy them into the parameters" in r.message
    r = verdict(check, make_lookahead(lazy=True), capsys)
    assert not r and "when the hook is attached" in r.message
    r = verdict(check, make_lookahead(pre=True), capsys)
    assert not r and "step post-hook" in r.message
    r = verdict(check, make_lookahead(alias=True), capsys)
    assert not r and "plain SGD" in r.message and "keep them as clones" in r.message
    r = verdict(check, make_lookahead(replace=True), capsys)
    assert not r and "in place" in r.message and "replace" in r.message
    r = verdict(check, make_lookahead(returns=False), capsys)
    assert not r and "return the handle" in r.message
    r = verdict(check, stub, capsys)
    assert not r and "not implemented yet" in r.message
