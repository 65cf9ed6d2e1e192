CLAIM = ("At a node, hooks run in the order the autograd notes give: tensor hooks, then "
         "grad_fn pre-hooks, then retain_grad.")
VERDICT = "partly true"
SOURCES = (
    ("The pull request that documented the hook order in the autograd notes (\"Backward Hooks "
     "execution\").",
     "https://github.com/pytorch/pytorch/pull/91667"),
    ("The notes themselves.",
     "https://pytorch.org/docs/stable/notes/autograd.html"),
)
WHY = (
    "Tensor hooks are the node's tensor pre-hooks and do run first, so a grad_fn "
    "pre-hook sees the gradient after the tensor hooks changed it. But the engine "
    "(call_tensor_pre_hooks in engine.cpp) runs the retains-grad hooks right after the "
    "tensor hooks, before any node pre-hook, so inside a grad_fn pre-hook .grad is "
    "already updated. The \"Backward Hooks execution\" section of the autograd notes puts "
    "retain_grad after the pre-hooks; the code does not."
)


def run(torch):
    from ._util import L
    out = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()

    def tensor_hook(g):
        out.append(f"tensor hook got {L(g)}, y.grad = {L(y.grad)}")
        return g * 10

    y.register_hook(tensor_hook)
    y.grad_fn.register_prehook(
        lambda go: out.append(f"grad_fn prehook got {L(go)}, y.grad = {L(y.grad)}"))
    (y * 3).sum().backward()
    out.append(f"y.grad = {L(y.grad)}")
    return out


def check(trace):
    assert trace == [
        "tensor hook got [3.0, 3.0], y.grad = None",
        "grad_fn prehook got [[30.0, 30.0]], y.grad = [30.0, 30.0]",
        "y.grad = [30.0, 30.0]",
    ], ("the pre-hook must see the tensor hook's result, and y.grad must already be "
        "stored when the pre-hook runs:\n" + "\n".join(trace))
