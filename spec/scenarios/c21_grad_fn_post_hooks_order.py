CLAIM = ("Post-hooks registered on a grad_fn (grad_fn.register_hook) run "
         "last-registered-first, and each sees the node's original grad_inputs.")
VERDICT = "false"
SOURCES = (
    ("The documentation of Node.register_hook: each hook may return new grad_inputs.",
     "https://pytorch.org/docs/2.5/generated/torch.autograd.graph.Node.register_hook.html"),
    ("The autograd notes' section on the order of backward hooks.",
     "https://pytorch.org/docs/stable/notes/autograd.html"),
)
WHY = (
    "The Python post-hooks of a node live in one ordered dict keyed by the handle id, "
    "which the node carries as a single post-hook. After the node's backward formula ran, "
    "the engine (call_post_hooks in engine.cpp) calls it, and it walks the dict from the "
    "front: registration order. A post-hook that returns a tuple replaces grad_inputs, and "
    "the next post-hook is called with the replacement, so the hooks form a chain; "
    "grad_outputs (the second argument) is the same for all of them. What the last hook "
    "returns is what flows to the next nodes, here the leaf's .grad. A number operand "
    "(x * 2) has no gradient slot of its own: its entry in grad_inputs is None."
)


def run(torch):
    from ._util import L
    out = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    node = y.grad_fn
    out.append(f"node: {node.name()}")
    for name, factor in (("A", 10.0), ("B", -1.0), ("C", None)):
        def hook(grad_inputs, grad_outputs, name=name, factor=factor):
            out.append(f"post-hook {name} got grad_inputs={L(grad_inputs)} "
                       f"grad_outputs={L(grad_outputs)}")
            if factor is not None:
                return tuple(None if g is None else g * factor for g in grad_inputs)
        node.register_hook(hook)
    y.sum().backward()
    out.append(f"x.grad = {L(x.grad)}")
    return out


def check(trace):
    from ._util import index_of
    a, b, c = (index_of(trace, f"post-hook {n}") for n in "ABC")
    assert a < b < c, "grad_fn post-hooks must run in registration order, not LIFO"
    assert "grad_inputs=[[2.0, 2.0], None]" in trace[a], "MulBackward0 by a number: None for it"
    assert ("grad_inputs=[[20.0, 20.0], None]" in trace[b]
            and "grad_inputs=[[-20.0, -20.0], None]" in trace[c]), \
        "each post-hook must receive what the previous one returned"
    assert all("grad_outputs=[[1.0, 1.0]]" in trace[i] for i in (a, b, c)), \
        "grad_outputs is the same for every post-hook"
    assert "x.grad = [-20.0, -20.0]" in trace
