CLAIM = ("Global optimizer step hooks (torch.optim.optimizer.register_optimizer_step_*_hook) "
         "run before the optimizer's own step hooks, as global module hooks do.")
VERDICT = "partly true"
SOURCES = (
    ("The proposal for optimizer step hooks: global pre- and post-hooks common to all "
     "optimizers, next to each optimizer's own.",
     "https://github.com/pytorch/pytorch/issues/88446"),
    ("A pull request on PyTorch's step-hook tests: one test keeps showing the order between "
     "global and per-optimizer hooks.",
     "https://github.com/pytorch/pytorch/pull/190577"),
)
WHY = (
    "Optimizer.step is wrapped once per class (profile_hook_step). The wrapper calls the "
    "global pre-hooks, then the optimizer's own, then the step; after it, the optimizer's "
    "own post-hooks, then the global ones. So the global hooks enclose the optimizer's own "
    "on both sides, like the outer layer of an onion: first before the step, last after it. "
    "Global module hooks are different: they come first both before and after forward "
    "(see c23)."
)


def run(torch):
    import importlib
    from ._util import L
    out = []
    optimizer_module = importlib.import_module(torch.__name__ + ".optim.optimizer")
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    opt = torch.optim.SGD([w], lr=0.5)

    def say(text):
        return lambda optimizer, args, kwargs: out.append(text)

    opt.register_step_post_hook(say("own post-hook"))
    opt.register_step_pre_hook(say("own pre-hook"))
    handles = [optimizer_module.register_optimizer_step_pre_hook(say("global pre-hook")),
               optimizer_module.register_optimizer_step_post_hook(say("global post-hook"))]
    w.grad = torch.tensor([1.0, 1.0])
    try:
        opt.step()
    finally:
        for h in handles:
            h.remove()
    out.append(f"w = {L(w)}")
    return out


def check(trace):
    assert trace[:2] == ["global pre-hook", "own pre-hook"], "global pre-hooks run first"
    assert trace[2:4] == ["own post-hook", "global post-hook"], "global post-hooks run last"
    assert trace[4] == "w = [0.5, 1.5]"
