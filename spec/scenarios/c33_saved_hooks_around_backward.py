CLAIM = "A saved_tensors_hooks pair active only around backward() is never used."
VERDICT = "false"
SOURCES = (
    ("The pull request that added default saved-tensor hooks tests them with a double "
     "backward, where the backward pass itself saves tensors.",
     "https://github.com/pytorch/pytorch/pull/61834"),
    ("The autograd notes on saved-tensor hooks.",
     "https://pytorch.org/docs/stable/notes/autograd.html"),
)
WHY = (
    "saved_tensors_hooks applies to every tensor saved for backward while the context "
    "is active, and with create_graph=True the backward pass itself records a graph: the "
    "ops of the backward formulas save their inputs like any forward op, so pack runs "
    "during backward(). The pair stays attached to what it packed: unpack runs later, "
    "when the second-order pass uses those tensors, long after the context has closed. "
    "Without create_graph the backward formulas record nothing and the hooks are indeed "
    "unused."
)


def run(torch):
    import warnings
    from ._util import L
    out = []
    hooks = torch.autograd.graph.saved_tensors_hooks

    def pack(t):
        out.append(f"  pack {L(t)}")
        return t

    def unpack(t):
        out.append(f"  unpack {L(t)}")
        return t

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (x ** 3).sum()              # forward outside the hooks
    out.append("backward() without create_graph, inside the hooks:")
    with hooks(pack, unpack):
        loss.backward()
    x.grad = None
    loss = (x ** 3).sum()
    out.append("backward(create_graph=True), inside the hooks:")
    with hooks(pack, unpack), warnings.catch_warnings():
        warnings.simplefilter("ignore")    # create_graph with .backward() warns about a cycle
        loss.backward(create_graph=True)
    out.append(f"x.grad = {L(x.grad)}")
    out.append("second-order pass, outside the hooks:")
    (gx,) = torch.autograd.grad(x.grad.sum(), x)
    out.append(f"second derivative = {L(gx)}")
    return out


def check(trace):
    from ._util import index_of
    first, second, third = (index_of(trace, p) for p in ("backward() without", "backward(create",
                                                          "second-order"))
    assert trace[first + 1:second] == [], "without create_graph pack never runs"
    assert any(t.startswith("  pack") for t in trace[second:third]), \
        "with create_graph=True pack runs during backward()"
    assert any(t.startswith("  unpack") for t in trace[third:]), \
        "and unpack runs in the second-order pass, after the context closed"
