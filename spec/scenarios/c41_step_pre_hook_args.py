CLAIM = ("An optimizer step pre-hook gets the arguments given to step(), and may return any "
         "value to replace them.")
VERDICT = "partly true"
SOURCES = (
    ("The documentation of Optimizer.register_step_pre_hook: hook(optimizer, args, kwargs) "
     "returns None or the modified args and kwargs, as a tuple.",
     "https://docs.pytorch.org/docs/stable/generated/torch.optim.Optimizer.register_step_pre_hook.html"),
    ("The pull request that added the step hooks.",
     "https://github.com/pytorch/pytorch/pull/89176"),
)
WHY = (
    "The hooks run in the wrapper around the class's step, which receives step's "
    "arguments with the optimizer first: args is (optimizer,) for opt.step(), so the "
    "optimizer reaches the hook twice. A pre-hook may return None or exactly a pair "
    "(new_args, new_kwargs), which then replaces both for the step and for the later "
    "hooks, post-hooks included; any other value raises RuntimeError. A post-hook's return "
    "value is ignored."
)


def run(torch):
    import re
    from ._util import L, try_call
    out = []
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    w.grad = torch.tensor([1.0, 1.0])
    opt = torch.optim.SGD([w], lr=0.5)

    def look(optimizer, args, kwargs):
        out.append(f"  pre-hook: {len(args)} args, args[0] is the optimizer: {args[0] is optimizer}, "
                   f"kwargs keys: {sorted(kwargs)}")

    def add_closure(optimizer, args, kwargs):
        return args, {"closure": lambda: out.append("  the hook's closure runs") or torch.tensor(3.0)}

    handles = [opt.register_step_pre_hook(look), opt.register_step_pre_hook(add_closure),
               opt.register_step_post_hook(
                   lambda optimizer, args, kwargs: out.append(f"  post-hook: kwargs keys {sorted(kwargs)}")
                   or "ignored")]
    out.append("opt.step():")
    result = opt.step()
    out.append(f"  step returned {L(result)}, w = {L(w)}")
    for h in handles:
        h.remove()
    handle = opt.register_step_pre_hook(lambda optimizer, args, kwargs: torch.tensor([0.0, 0.0]))
    line = try_call("a pre-hook returning a tensor: opt.step()", opt.step)
    out.append(re.sub(r" at 0x[0-9a-fA-F]+", "", line))      # the message names step by address
    handle.remove()
    out.append(f"w = {L(w)}")
    return out


def check(trace):
    assert trace[1] == "  pre-hook: 1 args, args[0] is the optimizer: True, kwargs keys: []", \
        "args holds the optimizer itself"
    assert trace[2:4] == ["  the hook's closure runs", "  post-hook: kwargs keys ['closure']"], \
        "a returned (args, kwargs) replaces the step's arguments, for the post-hooks too"
    assert trace[4] == "  step returned 3.0, w = [0.5, 1.5]", "the post-hook's return is ignored"
    assert trace[5].endswith("-> RuntimeError: <function SGD.step> must return None or a tuple of "
                             "(new_args, new_kwargs), but got tensor([0., 0.])."), \
        "any other return value is refused"
    assert trace[6] == "w = [0.5, 1.5]", "before the step runs"
