CLAIM = "Hooks on a tensor used twice fire once, with the summed gradient."
VERDICT = "true"
SOURCES = (
    ("The documentation of Tensor.register_hook: the hook is called every time a gradient with"
     " respect to the tensor is computed (read as: once per use).",
     "https://pytorch.org/docs/stable/generated/torch.Tensor.register_hook.html"),
)
WHY = (
    "A tensor's hooks belong to its producing node. The engine counts how many edges point "
    "to each node and only queues the node once every consumer has delivered its "
    "gradient; the contributions are summed in the node's input buffer first. The tensor "
    "hooks then run once, on the total. (What happens per consumer is visible only with "
    "hooks on the consumers' nodes.)"
)


def run(torch):
    from ._util import L
    out = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2                       # y = [2, 4]
    y.register_hook(lambda g: out.append(f"y hook got {L(g)}"))
    a = y * 3                       # contributes 3
    b = y * y                       # contributes 2y = [4, 8]
    a.grad_fn.register_hook(lambda gi, go: out.append(f"consumer y*3 sends {L(gi[0])}"))
    b.grad_fn.register_hook(lambda gi, go: out.append(f"consumer y*y sends {L(gi)}"))
    (a + b).sum().backward()
    out.append(f"x.grad = {L(x.grad)}")
    return out


def check(trace):
    hook_calls = [t for t in trace if t.startswith("y hook")]
    assert hook_calls == ["y hook got [7.0, 11.0]"], \
        f"the hook must fire once with 3 + 2y summed: {hook_calls}"
    assert trace.index(hook_calls[0]) == len(trace) - 2, "and only after both consumers ran"
    assert "x.grad = [14.0, 22.0]" in trace
