CLAIM = ("With prepend=True, a module's full backward hook or full backward pre-hook runs "
         "before the hooks registered earlier on that module.")
VERDICT = "true"
SOURCES = (
    ("The pull request that added prepend=True to module hooks; a maintainer notes that the "
     "next prepended hook makes yours not first anymore.",
     "https://github.com/pytorch/pytorch/pull/87370"),
)
WHY = (
    "A module keeps its full backward hooks and its full backward pre-hooks in two ordered "
    "dicts; prepend=True inserts the new hook at the front of its dict (move_to_end with "
    "last=False) instead of the end. When the module is called, each dict is read in order "
    "and handed to the BackwardHook that wraps the call, so a prepended hook runs first "
    "and every hook receives what the one before it returned. Pre-hooks (grad_output) all "
    "run before any backward hook (grad_input), whatever their prepend flags; and "
    "prepend=True is only 'first among this module's hooks': global module hooks still "
    "come before it (see c23)."
)


def run(torch):
    from ._util import L
    out = []
    lin = torch.nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, -1.0]]))
        lin.bias.copy_(torch.tensor([0.0]))

    def bwd(name, factor=None):
        def hook(m, grad_input, grad_output):
            out.append(f"backward hook {name} grad_input={L(grad_input)}")
            if factor is not None:
                return tuple(None if g is None else g * factor for g in grad_input)
        return hook

    def pre(name, factor=None):
        def hook(m, grad_output):
            out.append(f"backward pre-hook {name} grad_output={L(grad_output)}")
            if factor is not None:
                return tuple(None if g is None else g * factor for g in grad_output)
        return hook

    lin.register_full_backward_hook(bwd("1 (registered first)", 2.0))
    lin.register_full_backward_hook(bwd("2 (registered second)"))
    lin.register_full_backward_hook(bwd("3 (registered third, prepend=True)", 10.0), prepend=True)
    lin.register_full_backward_pre_hook(pre("1 (registered first)", 2.0))
    lin.register_full_backward_pre_hook(pre("2 (registered second, prepend=True)", 3.0),
                                        prepend=True)
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    lin(x).sum().backward()
    out.append(f"x.grad = {L(x.grad)}")
    return out


def check(trace):
    from ._util import index_of
    p1, p2 = index_of(trace, "backward pre-hook 1"), index_of(trace, "backward pre-hook 2")
    b1, b2, b3 = (index_of(trace, f"backward hook {n}") for n in "123")
    assert p2 < p1 < b3 < b1 < b2, \
        "prepended hooks first, then the others in registration order; pre-hooks before hooks"
    assert trace[p2].endswith("[[[1.0]]]") and trace[p1].endswith("[[[3.0]]]"), \
        "the second pre-hook in line sees the first one's replacement"
    assert trace[b3].endswith("[[[6.0, -6.0]]]") and trace[b1].endswith("[[[60.0, -60.0]]]") \
        and trace[b2].endswith("[[[120.0, -120.0]]]"), "backward hooks chain their replacements"
    assert trace[-1] == "x.grad = [[120.0, -120.0]]"
