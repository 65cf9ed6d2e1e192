CLAIM = "handle.remove() called inside a hook takes effect in the same backward pass."
VERDICT = "false"
SOURCES = (
    ("The documentation of Tensor.register_hook: handle.remove() removes the hook; it does not"
     " say when the removal takes effect during a pass.",
     "https://pytorch.org/docs/stable/generated/torch.Tensor.register_hook.html"),
)
WHY = (
    "When the engine reaches a node it copies the list of the hooks to call, then calls "
    "them one by one from that copy. Removing a hook deletes it from the tensor's hook "
    "dictionary, not from the copy the engine is walking, so a hook removed by an "
    "earlier hook of the same node still runs in this pass, and is gone from the next. "
    "The same copy makes a hook registered during the pass wait for the next pass."
)


def run(torch):
    out = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    handles = {}

    def a(g):
        out.append("  hook A runs, removes B and registers C")
        handles["B"].remove()
        y.register_hook(lambda g: out.append("  hook C runs"))

    y.register_hook(a)
    handles["B"] = y.register_hook(lambda g: out.append("  hook B runs"))
    for n in (1, 2):
        out.append(f"pass {n}:")
        y.sum().backward(retain_graph=True)
    return out


def check(trace):
    from ._util import index_of
    second = index_of(trace, "pass 2:")
    assert trace[1:second] == ["  hook A runs, removes B and registers C", "  hook B runs"], \
        "the removed hook B still runs in the pass that removed it; C waits"
    assert "  hook B runs" not in trace[second:], "B is gone from the next pass"
    assert "  hook C runs" in trace[second:]
