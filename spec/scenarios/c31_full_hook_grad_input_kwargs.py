CLAIM = "A module's full backward hook gets, in grad_input, the gradient of every tensor input."
VERDICT = "false"
SOURCES = (
    ("The pull request that introduced register_full_backward_hook to cover all tensor inputs "
     "and outputs of a module.",
     "https://github.com/pytorch/pytorch/pull/46163"),
    ("The pull request that added global module hooks; its docstring says grad_input only "
     "corresponds to the positional arguments.",
     "https://github.com/pytorch/pytorch/pull/38972"),
)
WHY = (
    "register_full_backward_hook routes the module's inputs through an identity autograd "
    "Function (BackwardHookFunction) before forward runs, and grad_input is what comes "
    "out of that Function. Only the positional arguments are routed: the module's "
    "forward pre-processing sees args and kwargs separately, and keyword arguments are "
    "passed to forward untouched. So a tensor passed by keyword gets its gradient as "
    "usual, but it is left out of grad_input, which then has one entry fewer than the "
    "tensors the module used."
)


def run(torch):
    from ._util import L
    out = []

    class Mix(torch.nn.Module):
        def forward(self, x, y=None):
            return x * 2 + y * 3

    m = Mix()
    m.register_full_backward_hook(
        lambda mod, grad_input, grad_output: out.append(
            f"  hook: len(grad_input) = {len(grad_input)}, grad_input = {L(grad_input)}"))
    for how in ("positional", "keyword"):
        out.append(f"y passed as a {how} argument:")
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = torch.tensor([1.0, 1.0], requires_grad=True)
        result = m(x, y) if how == "positional" else m(x, y=y)
        result.sum().backward()
        out.append(f"  y.grad = {L(y.grad)}")
    return out


def check(trace):
    from ._util import index_of
    kw = index_of(trace, "y passed as a keyword")
    assert "  hook: len(grad_input) = 2, grad_input = [[2.0, 2.0], [3.0, 3.0]]" in trace[:kw]
    assert "  hook: len(grad_input) = 1, grad_input = [[2.0, 2.0]]" in trace[kw:], \
        "a keyword tensor argument is left out of grad_input"
    assert trace[-1] == "  y.grad = [3.0, 3.0]", "although it still gets its gradient"
