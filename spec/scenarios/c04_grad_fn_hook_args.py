CLAIM = ("The first argument of a grad_fn post-hook is the op's inputs "
         "(or what save_for_backward saved).")
VERDICT = "false"
SOURCES = (
    ("A tutorial on Node.register_hook warns that grad_inputs and grad_outputs are easily "
     "confused with the op's forward inputs and outputs.",
     "https://runebook.dev/en/docs/pytorch/generated/torch.autograd.graph.node.register_hook"),
    ("The documentation of Node.register_hook: grad_inputs are gradients, not the op's inputs.",
     "https://pytorch.org/docs/2.5/generated/torch.autograd.graph.Node.register_hook.html"),
)
WHY = (
    "A node in the backward graph maps gradients to gradients: its inputs are the gradients "
    "w.r.t. the forward op's outputs (grad_outputs) and its outputs are the gradients w.r.t. "
    "the forward op's inputs (grad_inputs). A post-hook registered with "
    "grad_fn.register_hook(hook) is called as hook(grad_inputs, grad_outputs) after the "
    "node ran, so its first argument holds gradients, one per next edge, never the forward "
    "values. The forward values a node keeps are reachable separately, as grad_fn._saved_* "
    "or ctx.saved_tensors."
)


def run(torch):
    from ._util import L
    out = []

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    c = a * b
    out.append(f"forward inputs: a = {L(a)}, b = {L(b)}; node {c.grad_fn.name()}")
    c.grad_fn.register_hook(
        lambda grad_inputs, grad_outputs: out.append(
            f"post-hook arg 1 = {L(grad_inputs)}, arg 2 = {L(grad_outputs)}"))
    (c * torch.tensor([1.0, 10.0])).sum().backward()
    out.append(f"a.grad = {L(a.grad)}, b.grad = {L(b.grad)}")

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = torch.tensor([3.0, 4.0], requires_grad=True)
    y = Square.apply(x)
    out.append(f"custom Function saved x = {L(x)}")
    y.grad_fn.register_hook(
        lambda grad_inputs, grad_outputs: out.append(
            f"custom post-hook arg 1 = {L(grad_inputs)}, arg 2 = {L(grad_outputs)}"))
    y.sum().backward()
    return out


def check(trace):
    from ._util import line
    first = line(trace, "post-hook arg 1")
    assert first == "post-hook arg 1 = [[3.0, 40.0], [1.0, 20.0]], arg 2 = [[1.0, 10.0]]", first
    assert "[1.0, 2.0]" not in first and "[3.0, 4.0]" not in first, \
        "the post-hook's first argument must not be the forward inputs"
    assert "a.grad = [3.0, 40.0], b.grad = [1.0, 20.0]" in trace, \
        "arg 1 is exactly the gradient w.r.t. each forward input"
    custom = line(trace, "custom post-hook")
    assert custom == "custom post-hook arg 1 = [[6.0, 8.0]], arg 2 = [[1.0, 1.0]]", custom
    assert "[[3.0, 4.0]]" not in custom, "nor what save_for_backward saved"
