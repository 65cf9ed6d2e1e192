CLAIM = ("A hook may modify grad in place instead of returning a new tensor: the effect "
         "is the same.")
VERDICT = "false"
SOURCES = (
    ("The documentation of Tensor.register_hook says the hook should not modify its argument; "
     "the claim is that doing it anyway works the same as returning a new gradient.",
     "https://pytorch.org/docs/stable/generated/torch.Tensor.register_hook.html"),
    ("A forum thread asking whether changing gradients in a hook and changing .grad directly "
     "are equivalent.",
     "https://discuss.pytorch.org/t/if-two-different-way-to-modify-grad-manually-is-equivalent/81640"),
)
WHY = (
    "A tensor hook receives the engine's own gradient tensor, not a copy, and the engine "
    "passes gradients on without copying them whenever it can: a sum's backward expands "
    "one number to the input's shape (a view in which every element shares one memory "
    "location), an add hands the same tensor to both of its inputs, a leaf's .grad may "
    "keep the incoming tensor itself, and the root's gradient is the tensor the caller "
    "passed to backward(). Modifying grad in place therefore raises when grad is an "
    "expanded view, changes the gradient of another tensor that shares it, and changes "
    "the caller's grad_tensors. Returning a new tensor (grad * 10) has none of these "
    "effects."
)


def run(torch):
    from ._util import L, try_call
    out = []

    out.append("1. grad comes from .sum() (expanded from one number):")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g.mul_(10))
    out.append("  " + try_call("y.sum().backward()", lambda: y.sum().backward()))

    out.append("2. z = x + w: x's hook multiplies its grad in place:")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g.mul_(10))
    (x + w).backward(torch.ones(2))
    out.append(f"  x.grad = {L(x.grad)}, w.grad = {L(w.grad)} (w's should be [1.0, 1.0])")

    out.append("3. the gradient passed to backward():")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g.mul_(10))
    grad_tensors = torch.ones(2)
    y.backward(grad_tensors)
    out.append(f"  x.grad = {L(x.grad)}, the caller's grad_tensors now = {L(grad_tensors)}")

    out.append("4. the same hook returning a new tensor instead:")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    grad_tensors = torch.ones(2)
    (x + w).backward(grad_tensors)
    out.append(f"  x.grad = {L(x.grad)}, w.grad = {L(w.grad)}, grad_tensors = {L(grad_tensors)}")
    return out


def check(trace):
    from ._util import index_of
    assert trace[index_of(trace, "1.") + 1] == (
        "  y.sum().backward() -> RuntimeError: unsupported operation: more than one element "
        "of the written-to tensor refers to a single memory location. Please clone() the "
        "tensor before performing the operation."), "in place on an expanded gradient raises"
    assert trace[index_of(trace, "2.") + 1] == \
        "  x.grad = [10.0, 10.0], w.grad = [10.0, 10.0] (w's should be [1.0, 1.0])", \
        "x's in-place hook also changed w's gradient"
    assert trace[index_of(trace, "3.") + 1] == \
        "  x.grad = [20.0, 20.0], the caller's grad_tensors now = [10.0, 10.0]", \
        "the caller's gradient was changed"
    assert trace[index_of(trace, "4.") + 1] == \
        "  x.grad = [10.0, 10.0], w.grad = [1.0, 1.0], grad_tensors = [1.0, 1.0]", \
        "returning a new tensor changes x's gradient only"
