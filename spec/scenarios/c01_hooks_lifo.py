CLAIM = "Several hooks registered on one tensor run last-registered-first (LIFO)."
VERDICT = "false"
SOURCES = (
    ("A survey of PyTorch's hooks (dev-discuss, 'PyTorch hooks Part 1') lists what each hook "
     "receives but says nothing about the order of several hooks on one tensor, which left "
     "readers to guess it.",
     "https://dev-discuss.pytorch.org/t/pytorch-hooks-part-1-all-the-available-hooks/246"),
    ("Hook ordering was reworked in this pull request: tensor hooks before grad_fn pre-hooks, "
     "retain_grad last.",
     "https://github.com/pytorch/pytorch/pull/85849"),
    ("Where the order is documented now (\"Backward Hooks execution\").",
     "https://pytorch.org/docs/stable/notes/autograd.html"),
)
WHY = (
    "Every owner (a tensor, a grad_fn, a module) keeps its hooks in one ordered dict keyed "
    "by the handle id, and the engine walks a snapshot of that dict from the front: hooks "
    "run in registration order, and each one receives what the previous one returned, so "
    "the chain is visible in the values. The only way to jump the queue is an explicit "
    "prepend=True, which module hooks accept: it inserts the hook at the front of the "
    "dict. Global module hooks (torch.nn.modules.module.register_module_forward_hook) "
    "are a separate dict that runs before the module's own hooks."
)


def run(torch):
    from ._util import L
    out = []

    # 1. Three tensor hooks on one non-leaf tensor; each adds 1 so the chain shows.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    for name in ("A", "B", "C"):
        def hook(g, name=name):
            out.append(f"tensor hook {name} (registered {'ABC'.index(name) + 1}) got {L(g)}")
            return g + 1
        y.register_hook(hook)
    y.sum().backward()
    out.append(f"x.grad = {L(x.grad)}")

    # 2. Two node pre-hooks on one grad_fn.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_prehook(lambda go: out.append("grad_fn prehook 1 (registered first)"))
    y.grad_fn.register_prehook(lambda go: out.append("grad_fn prehook 2 (registered second)"))
    y.sum().backward()

    # 3. Module forward hooks: plain, plain, prepend=True, plus a global one.
    lin = torch.nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, -1.0]]))
        lin.bias.copy_(torch.tensor([0.5]))
    lin.register_forward_hook(lambda m, i, o: out.append("forward hook 1 (registered first)"))
    lin.register_forward_hook(lambda m, i, o: out.append("forward hook 2 (registered second)"))
    lin.register_forward_hook(lambda m, i, o: out.append("forward hook 3 (registered third, prepend=True)"),
                              prepend=True)
    handle = torch.nn.modules.module.register_module_forward_hook(
        lambda m, i, o: out.append("global forward hook"))
    try:
        y = lin(torch.tensor([[3.0, 1.0]]))
    finally:
        handle.remove()
    out.append(f"lin output = {L(y)}")
    return out


def check(trace):
    from ._util import index_of
    a, b, c = (index_of(trace, f"tensor hook {n}") for n in "ABC")
    assert a < b < c, "tensor hooks must run in registration order, not LIFO"
    assert trace[a].endswith("[1.0, 1.0]") and trace[c].endswith("[3.0, 3.0]"), \
        "each hook must receive what the previous one returned"
    assert "x.grad = [8.0, 8.0]" in trace, "the chained result (1+3)*2 must reach x.grad"
    assert index_of(trace, "grad_fn prehook 1") < index_of(trace, "grad_fn prehook 2"), \
        "node pre-hooks must run in registration order"
    g = index_of(trace, "global forward hook")
    f3, f1, f2 = (index_of(trace, f"forward hook {n}") for n in "312")
    assert g < f3 < f1 < f2, "expected: global, then prepend=True hook, then the others in order"
