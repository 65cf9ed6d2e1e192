CLAIM = ("A module's full backward pre-hook is the first hook to see the gradient of the "
         "module's output.")
VERDICT = "false"
SOURCES = (
    ("The feature request for module pre-backward hooks; a maintainer notes it runs before the"
     " module's own backward, not before any backward work.",
     "https://github.com/pytorch/pytorch/issues/62998"),
    ("The pull request that added register_full_backward_pre_hook.",
     "https://github.com/pytorch/pytorch/pull/86700"),
)
WHY = (
    "register_full_backward_pre_hook works by passing the module's outputs through an "
    "identity autograd Function (BackwardHookFunction); the output you get back is that "
    "node's result, so y.grad_fn is BackwardHookFunctionBackward. The module's pre-hooks "
    "are called from a post-hook of that node, with the gradients the node received. At a "
    "node the engine runs tensor hooks, then the node's pre-hooks, then the node, then its "
    "post-hooks: so a hook on the output tensor and a pre-hook on y.grad_fn (even one "
    "registered after the forward) both run first, and the module's pre-hook sees what "
    "they returned. The module's full backward hook is, in the same way, a post-hook of "
    "the identity node on the inputs, so it runs before the hooks on an input leaf."
)


def run(torch):
    from ._util import L
    out = []
    lin = torch.nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, -1.0]]))
        lin.bias.copy_(torch.tensor([0.0]))
    lin.register_full_backward_pre_hook(
        lambda m, grad_output: out.append(f"module backward pre-hook got {L(grad_output)}"))
    lin.register_full_backward_hook(
        lambda m, grad_input, grad_output: out.append(
            f"module backward hook got grad_input={L(grad_input)} grad_output={L(grad_output)}"))
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    y = lin(x)
    out.append(f"y.grad_fn is {y.grad_fn.name()}")

    def tensor_hook(g):
        out.append(f"tensor hook on y got {L(g)}, returns it times 10")
        return g * 10

    def node_pre_hook(grad_outputs):
        out.append(f"y.grad_fn pre-hook got {L(grad_outputs)}, returns it plus 1")
        return tuple(g + 1 for g in grad_outputs)

    y.register_hook(tensor_hook)
    y.grad_fn.register_prehook(node_pre_hook)
    x.register_hook(lambda g: out.append(f"tensor hook on x got {L(g)}"))
    (y * 3).sum().backward()
    out.append(f"x.grad = {L(x.grad)}")
    return out


def check(trace):
    assert trace == [
        "y.grad_fn is BackwardHookFunctionBackward",
        "tensor hook on y got [[3.0]], returns it times 10",
        "y.grad_fn pre-hook got [[[30.0]]], returns it plus 1",
        "module backward pre-hook got [[[31.0]]]",
        "module backward hook got grad_input=[[[31.0, -31.0]]] grad_output=[[[31.0]]]",
        "tensor hook on x got [[31.0, -31.0]]",
        "x.grad = [[31.0, -31.0]]",
    ], ("the tensor hook and the grad_fn pre-hook on the output must run before the "
        "module's pre-hook, which sees their result:\n" + "\n".join(trace))
