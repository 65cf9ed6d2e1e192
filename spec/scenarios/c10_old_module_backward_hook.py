CLAIM = ("The old register_backward_hook on a module made of several ops sees only the "
         "last op's gradients.")
VERDICT = "true"
SOURCES = (
    ("An early issue: a module computing x + y + z got only two entries in grad_input; the "
     "answer was that module hooks sit on the last function the module created.",
     "https://github.com/pytorch/pytorch/issues/598"),
    ("The pull request that deprecated register_backward_hook for this reason and added "
     "register_full_backward_hook.",
     "https://github.com/pytorch/pytorch/pull/46163"),
)
WHY = (
    "The deprecated Module.register_backward_hook simply registers a post-hook on the "
    "grad_fn of the module's output tensor. For a module made of several autograd ops, that "
    "node is only the last op, so grad_input holds the gradients w.r.t. that op's inputs "
    "(here: the ReLU's input), not w.r.t. the module's input. PyTorch warns with a "
    "FutureWarning when it can tell. register_full_backward_hook wraps the module's inputs "
    "and outputs instead and reports the true d/dinput."
)


def run(torch):
    import warnings
    from ._util import L, warning_lines
    out = []

    def make():
        net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
        with torch.no_grad():
            net[0].weight.copy_(torch.tensor([[1.0, 2.0], [3.0, -4.0]]))
            net[0].bias.copy_(torch.tensor([0.5, 0.5]))
        return net

    scale = torch.tensor([[1.0, 10.0]])
    net = make()
    net.register_backward_hook(
        lambda m, gi, go: out.append(f"old hook: grad_input={L(gi)} grad_output={L(go)}"))
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = net(x)
    out.extend(warning_lines(caught))
    out.append(f"output = {L(y)}, its node = {y.grad_fn.name()}")
    (y * scale).sum().backward()
    out.append(f"true d/dx = {L(x.grad)}")

    net = make()
    net.register_full_backward_hook(
        lambda m, gi, go: out.append(f"full hook: grad_input={L(gi)} grad_output={L(go)}"))
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    (net(x) * scale).sum().backward()
    return out


def check(trace):
    from ._util import line
    assert line(trace, "old hook") == \
        "old hook: grad_input=[[[1.0, 0.0]]] grad_output=[[[1.0, 10.0]]]", \
        "the old hook must see the gradient w.r.t. the ReLU's input (last op only)"
    assert "true d/dx = [[1.0, 2.0]]" in trace
    assert line(trace, "full hook") == \
        "full hook: grad_input=[[[1.0, 2.0]]] grad_output=[[[1.0, 10.0]]]", \
        "the full hook must see the true gradient w.r.t. the module input"
    assert any(t.startswith("WARNING FutureWarning: Using a non-full backward hook") for t in trace), \
        "PyTorch warns that the non-full hook misses grad_input"
