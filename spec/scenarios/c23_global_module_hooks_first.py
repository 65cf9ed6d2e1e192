CLAIM = ("Global module hooks (torch.nn.modules.module.register_module_*_hook) run before "
         "the module's own hooks, even those registered with prepend=True.")
VERDICT = "true"
SOURCES = (
    ("An issue quoting the documentation: global forward hooks registered with "
     "register_module_forward_hook fire before all hooks registered on the module.",
     "https://github.com/pytorch/pytorch/issues/147696"),
    ("The pull request that added global module hooks (its first draft said the opposite for "
     "backward hooks).",
     "https://github.com/pytorch/pytorch/pull/38972"),
)
WHY = (
    "Module.__call__ builds each hook list as the global dict followed by the module's "
    "own dict: forward pre-hooks, forward hooks, full backward pre-hooks and full "
    "backward hooks alike. prepend=True only reorders the module's own dict, so it cannot "
    "move a local hook ahead of a global one. The global hooks see every module, "
    "children included, which is why the trace below names the module."
)


def run(torch):
    from ._util import L
    out = []
    lin = torch.nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, -1.0]]))
        lin.bias.copy_(torch.tensor([0.0]))
    api = torch.nn.modules.module

    def say(text):
        return lambda *args: out.append(text)

    lin.register_forward_pre_hook(say("local forward pre-hook (prepend=True)"), prepend=True)
    lin.register_forward_hook(say("local forward hook (prepend=True)"), prepend=True)
    lin.register_full_backward_pre_hook(say("local backward pre-hook (prepend=True)"),
                                        prepend=True)
    lin.register_full_backward_hook(say("local backward hook (prepend=True)"), prepend=True)
    handles = [
        api.register_module_forward_pre_hook(say("global forward pre-hook")),
        api.register_module_forward_hook(say("global forward hook")),
        api.register_module_full_backward_pre_hook(say("global backward pre-hook")),
        api.register_module_full_backward_hook(say("global backward hook")),
    ]
    try:
        x = torch.tensor([[1.0, 2.0]], requires_grad=True)
        y = lin(x)
        out.append(f"output = {L(y)}")
        y.sum().backward()
    finally:
        for h in handles:
            h.remove()
    out.append(f"x.grad = {L(x.grad)}")
    return out


def check(trace):
    expected = []
    for kind in ("forward pre-hook", "forward hook"):
        expected += [f"global {kind}", f"local {kind} (prepend=True)"]
    expected.append("output = [[-1.0]]")
    for kind in ("backward pre-hook", "backward hook"):
        expected += [f"global {kind}", f"local {kind} (prepend=True)"]
    expected.append("x.grad = [[1.0, -1.0]]")
    assert trace == expected, "global hooks must come first at every level:\n" + "\n".join(trace)
