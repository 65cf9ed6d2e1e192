CLAIM = "A hook registered before an in-place op sees the old gradient."
VERDICT = "true"
SOURCES = (
    ("A pull request on retain_grad after in-place shows a hook registered before the in-place"
     " op getting the gradient of the old version.",
     "https://github.com/pytorch/pytorch/pull/79767"),
    ("The follow-up that fixed retain_grad after in-place ops.",
     "https://github.com/pytorch/pytorch/pull/79996"),
)
WHY = (
    "An in-place op gives the tensor a new grad_fn (the op's node), whose edge leads to "
    "the old one. A tensor hook is attached to the node the tensor has when the hook is "
    "registered: one registered before the in-place stays with the old node and sees the "
    "gradient with respect to the value before the op (here three times the new one, for "
    "mul_(3)); one registered after goes to the new node and sees the gradient with "
    "respect to the current value. The new node is newer, so its hooks run first. "
    "retain_grad() is different: it follows the tensor, so .grad is the gradient of the "
    "current value, whenever retain_grad was called."
)


def run(torch):
    from ._util import L
    out = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    h.register_hook(lambda g: out.append(f"hook registered before mul_(3): {L(g)}"))
    h.retain_grad()
    node_before = h.grad_fn.name()
    h.mul_(3)
    out.append(f"grad_fn before: {node_before}, after: {h.grad_fn.name()} "
               f"-> {h.grad_fn.next_functions[0][0].name()}")
    h.register_hook(lambda g: out.append(f"hook registered after mul_(3): {L(g)}"))
    (h * torch.tensor([1.0, 10.0])).sum().backward()
    out.append(f"h.grad (retain_grad called before) = {L(h.grad)}")
    out.append(f"x.grad = {L(x.grad)}")
    return out


def check(trace):
    assert trace[0] == "grad_fn before: MulBackward0, after: MulBackward0 -> MulBackward0"
    assert trace[1] == "hook registered after mul_(3): [1.0, 10.0]", "new node, new value's gradient, first"
    assert trace[2] == "hook registered before mul_(3): [3.0, 30.0]", "old node: the old value's gradient"
    assert trace[3] == "h.grad (retain_grad called before) = [1.0, 10.0]", "retain_grad follows the tensor"
    assert trace[4] == "x.grad = [3.0, 30.0]"
