CLAIM = ("Inside a module's full backward hook, the gradients of the module's parameters "
         "are already in their .grad.")
VERDICT = "partly true"
SOURCES = (
    ("An issue: a user expected the parameters' .grad to be set inside a full backward hook "
     "and found None.",
     "https://github.com/pytorch/pytorch/issues/149938"),
    ("The documentation of register_full_backward_hook.",
     "https://pytorch.org/docs/stable/generated/torch.nn.Module.html"),
)
WHY = (
    "A full backward hook is a post-hook of the identity node that the module's inputs "
    "go through (BackwardHookFunction), so when an input requires grad it fires after "
    "every node inside the module has run; the parameters' AccumulateGrad nodes, which "
    "run as soon as their gradient is complete, have already written .grad. When no "
    "input requires grad there is no such node: the hook fires from the outputs' identity "
    "node, before any node inside the module, and the parameters' .grad is still None "
    "(from the first pass) or the previous pass's value."
)


def run(torch):
    import warnings
    from ._util import L
    out = []
    lin = torch.nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, -2.0]]))
        lin.bias.copy_(torch.tensor([0.5]))
    lin.register_full_backward_hook(
        lambda m, gi, go: out.append(f"  in the hook: weight.grad = {L(m.weight.grad)}"))
    for requires in (True, False):
        out.append(f"input requires grad: {requires}")
        lin.weight.grad = None
        x = torch.tensor([[1.0, 2.0]], requires_grad=requires)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # the no-input-grad case warns (see c03)
            lin(x).sum().backward()
        out.append(f"  after backward: weight.grad = {L(lin.weight.grad)}")
    return out


def check(trace):
    assert trace[:3] == ["input requires grad: True", "  in the hook: weight.grad = [[1.0, 2.0]]",
                         "  after backward: weight.grad = [[1.0, 2.0]]"], \
        "with an input requiring grad the parameters' .grad is set when the hook runs"
    assert trace[3:] == ["input requires grad: False", "  in the hook: weight.grad = None",
                         "  after backward: weight.grad = [[1.0, 2.0]]"], \
        "without one the hook runs before the parameters are accumulated"
