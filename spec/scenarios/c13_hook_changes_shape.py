CLAIM = "A hook may change the gradient's shape."
VERDICT = "false"
SOURCES = (
    ("The documentation of Tensor.register_hook: the hook may return a new gradient to use in "
     "place of grad (it does not say that the shape must stay).",
     "https://pytorch.org/docs/stable/generated/torch.Tensor.register_hook.html"),
)
WHY = (
    "Whatever a tensor hook returns replaces the gradient, and the engine checks the "
    "replacement against the original: same dtype, same device, exactly the same size. "
    "There is no broadcasting and no reduction (unlike a node's own results, which the "
    "engine does sum back to the input's shape). A shape change raises a RuntimeError "
    "naming the hook, the backward pass stops, and .grad is left as it was."
)


def run(torch):
    from ._util import L, try_call
    out = []

    def to_scalar(g):
        return g.sum()

    def to_one_element(g):
        return g.sum().reshape(1)

    def same_shape(g):
        return g * 0.5

    for hook in (to_scalar, to_one_element, same_shape):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.register_hook(hook)
        out.append(try_call(f"hook {hook.__name__}", lambda: y.sum().backward()))
        out.append(f"  x.grad = {L(x.grad)}")
    return out


def check(trace):
    assert trace == [
        "hook to_scalar -> RuntimeError: hook 'to_scalar' has changed the size of value",
        "  x.grad = None",
        "hook to_one_element -> RuntimeError: hook 'to_one_element' has changed the size of value",
        "  x.grad = None",
        "hook same_shape -> no error",
        "  x.grad = [1.0, 1.0]",
    ], "shape changes must raise (even broadcastable ones); same shape is fine:\n" + "\n".join(trace)
