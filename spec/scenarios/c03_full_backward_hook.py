CLAIM = ("A module's full backward hook fires once gradients w.r.t. its inputs are ready; "
         "if no input requires grad it fires on the output gradients (with a warning); "
         "if no output requires grad it never fires.")
VERDICT = "true"
SOURCES = (
    ("An issue reports the full backward hook firing at a different point when the input does "
     "not require grad; a maintainer answers that it then fires on the outputs' gradients, and"
     " that this was not documented.",
     "https://github.com/pytorch/pytorch/issues/100528"),
    ("The pull request that made the hook fire at all when no input requires grad.",
     "https://github.com/pytorch/pytorch/pull/56693"),
    ("The documentation of register_full_backward_hook, which now lists the three cases.",
     "https://pytorch.org/docs/stable/generated/torch.nn.Module.html"),
)
WHY = (
    "register_full_backward_hook works by passing the module's tensor inputs and outputs "
    "through an identity autograd Function (BackwardHookFunction). The hook is a post-hook "
    "of the inputs' identity node, so it runs when the gradients w.r.t. the inputs have been "
    "computed. When no input requires grad there is no such node; the hook is then called "
    "from the outputs' node with grad_input all None, and a UserWarning says so. When no "
    "output requires grad (or under no_grad) nothing is wrapped at all, the output has no "
    "grad_fn, and the hook can never run."
)


def run(torch):
    import warnings
    from ._util import L, warning_lines
    out = []

    def make():
        lin = torch.nn.Linear(2, 1)
        with torch.no_grad():
            lin.weight.copy_(torch.tensor([[1.0, -2.0]]))
            lin.bias.copy_(torch.tensor([0.5]))
        lin.register_full_backward_hook(
            lambda m, gi, go: out.append(f"  full hook grad_input={L(gi)} grad_output={L(go)}"))
        return lin

    out.append("1. input requires grad:")
    lin = make()
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    x.register_hook(lambda g: out.append(f"  x tensor hook {L(g)}"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (lin(x) * 3).sum().backward()
    out.extend("  " + w for w in warning_lines(caught))
    out.append(f"  x.grad = {L(x.grad)}")

    out.append("2. no input requires grad (only parameters do):")
    lin = make()
    x = torch.tensor([[1.0, 2.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (lin(x) * 3).sum().backward()
    out.extend("  " + w for w in warning_lines(caught))
    out.append(f"  weight.grad = {L(lin.weight.grad)}")

    out.append("3. no output requires grad:")
    lin = make()
    lin.weight.requires_grad_(False)
    lin.bias.requires_grad_(False)
    y = lin(torch.tensor([[1.0, 2.0]]))
    out.append(f"  output requires_grad = {y.requires_grad}, has grad_fn = {y.grad_fn is not None}")
    lin = make()
    with torch.no_grad():
        y = lin(torch.tensor([[1.0, 2.0]], requires_grad=True))
    out.append(f"  under no_grad: output requires_grad = {y.requires_grad}")
    out.append("end")
    return out


def check(trace):
    from ._util import index_of
    s1, s2, s3 = (index_of(trace, f"{n}.") for n in "123")
    part1, part2, part3 = trace[s1:s2], trace[s2:s3], trace[s3:]
    assert "  full hook grad_input=[[[3.0, -6.0]]] grad_output=[[[3.0]]]" in part1, \
        "with an input requiring grad the hook gets d/dinput and d/doutput"
    assert index_of(part1, "  full hook") < index_of(part1, "  x tensor hook"), \
        "the hook fires when the input gradient is ready, before it reaches the leaf x"
    assert not any("WARNING" in t for t in part1), "no warning in the normal case"
    assert "  full hook grad_input=[None] grad_output=[[[3.0]]]" in part2, \
        "with no input requiring grad the hook still fires, with grad_input all None"
    assert any(t.startswith("  WARNING UserWarning: Full backward hook is firing when gradients "
                            "are computed with respect to module outputs") for t in part2), \
        "and a UserWarning is emitted"
    assert not any("full hook" in t for t in part3), "no output requiring grad: the hook never fires"
    assert "  output requires_grad = False, has grad_fn = False" in part3
