CLAIM = 'Mode "all" of register_multi_grad_hook fires once per backward pass.'
VERDICT = "false"
SOURCES = (
    ("The multi-grad hook design: the hook counts calls and fires when the count reaches the "
     "number of tensors the pass will reach, computed on the first call.",
     "https://github.com/pytorch/pytorch/issues/83617"),
    ("A pull request noting that register_multi_grad_hook did not fire reliably in one use "
     "case.",
     "https://github.com/pytorch/pytorch/pull/101981"),
)
WHY = (
    "register_multi_grad_hook puts one inner hook on each tensor. In mode \"all\" the "
    "inner hooks count their calls per graph task and call fn when the count reaches the "
    "number of tensors the engine will reach. That number is computed at the first inner "
    "hook of a pass, but it is kept in one variable shared by every pass. When a nested "
    "backward pass runs between two inner hooks of the outer pass (from a hook, or from "
    "reentrant checkpointing) it computes its own number and overwrites it. In the scenario "
    "the nested pass reaches one tensor, fires fn for itself, and leaves the number at 1; "
    "the outer pass's second inner hook then finds its count (2) past that number and fn "
    "is never called for the outer pass."
)


def run(torch):
    from ._util import L
    out = []
    register = torch.autograd.graph.register_multi_grad_hook

    out.append("1. no nested pass:")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = x * 2, x * 3            # b created last: its node runs first
    register((a, b), lambda gs: out.append(f"  fn got {L(gs)}"))
    (a + b).sum().backward()

    out.append("2. a nested pass (using only a) runs after b's inner hook, before a's:")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = x * 2, x * 3
    register((a, b), lambda gs: out.append(f"  fn got {L(gs)}"))

    def nested(grad_inputs, grad_outputs):
        out.append("  nested pass starts")
        with torch.enable_grad():
            (a * 5).sum().backward(retain_graph=True)
        out.append("  nested pass done")

    b.grad_fn.register_hook(nested)
    (a + b).sum().backward()
    out.append("  outer pass done")
    return out


def check(trace):
    from ._util import index_of
    second = index_of(trace, "2.")
    assert trace[1:second] == ["  fn got [[1.0, 1.0], [1.0, 1.0]]"], \
        "without nesting: one call, both gradients"
    assert trace[second + 1:] == ["  nested pass starts", "  fn got [[5.0, 5.0], None]",
                                  "  nested pass done", "  outer pass done"], \
        "the nested pass gets its call; the outer pass's call is lost:\n" + "\n".join(trace)
