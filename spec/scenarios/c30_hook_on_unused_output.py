CLAIM = "A hook on an output that gets no gradient never fires."
VERDICT = "false"
SOURCES = (
    ("An issue on hooks of outputs that get no gradient: the hook on one output of unbind was "
     "called with None, while a hook on an indexing output was not called at all.",
     "https://github.com/pytorch/pytorch/issues/11751"),
)
WHY = (
    "A tensor hook is a pre-hook of the tensor's grad_fn for the input slot of that "
    "tensor, and it runs whenever that node runs, whatever the slot holds. unbind makes "
    "one node (UnbindBackward0) for all its outputs. When only one output is used, the "
    "node still runs (it is reached through the used output), and the hook on the unused "
    "output is called with None: an undefined gradient, not zeros. A hook that does "
    "arithmetic on grad must check for None. Had the unused output its own node, that "
    "node would never run and its hooks would indeed never fire."
)


def run(torch):
    from ._util import L
    out = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = x.unbind()
    a.register_hook(lambda g: out.append(f"hook on a (used) got {L(g)}"))
    b.register_hook(lambda g: out.append(f"hook on b (unused) got {L(g)}"))
    (a * 3).backward()
    out.append(f"x.grad = {L(x.grad)}")
    return out


def check(trace):
    assert "hook on b (unused) got None" in trace, "the unused output's hook fires, with None"
    assert "hook on a (used) got 3.0" in trace
    assert trace[-1] == "x.grad = [3.0, 0.0]"
