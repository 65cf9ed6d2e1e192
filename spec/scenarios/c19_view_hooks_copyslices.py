CLAIM = ("Hooks on a view see the view's gradient; in-place through a view rewrites the "
         "base's graph (CopySlices).")
VERDICT = "partly true"
SOURCES = (
    ("The autograd notes cover in-place operations and views; we found no public page that "
     "states where hooks on a view go after an in-place change.",
     "https://pytorch.org/docs/stable/notes/autograd.html"),
)
WHY = (
    "The second half is true: after v = h[:, :2]; v.relu_(), h.grad_fn is "
    "torch::autograd::CopySlices, whose edge is h's old node; in backward it runs the "
    "relu's derivative on the view's part of h's gradient and passes the rest through. "
    "The view's own grad_fn is regenerated as AsStridedBackward0 pointing at CopySlices. "
    "The first half needs two qualifications. A hook registered on the view before the "
    "in-place sits on the view's old node (SliceBackward0), which is no longer in the "
    "graph: it never fires. A hook registered after fires on AsStridedBackward0, which "
    "only carries the gradient of the view's own later uses, not the part of the base's "
    "gradient that lies in the view; that part reaches hooks on the base."
)


def run(torch):
    from ._util import L
    out = []
    x = torch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, 6.0]], requires_grad=True)
    h = x * 1
    v = h[:, :2]
    v.register_hook(lambda g: out.append(f"view hook registered before relu_: {L(g)}"))
    v.relu_()
    v.register_hook(lambda g: out.append(f"view hook registered after relu_: {L(g)}"))
    h.register_hook(lambda g: out.append(f"base hook: {L(g)}"))
    out.append(f"h.grad_fn: {h.grad_fn.name()} -> "
               f"{[n.name() for n, _ in h.grad_fn.next_functions]}")
    out.append(f"v.grad_fn: {v.grad_fn.name()} -> "
               f"{[n.name() for n, _ in v.grad_fn.next_functions]}")
    out.append("backward of h.sum():")
    h.sum().backward(retain_graph=True)
    out.append(f"  x.grad = {L(x.grad)}")
    x.grad = None
    out.append("backward of h.sum() + (v * 10).sum():")
    (h.sum() + (v * 10).sum()).backward()
    out.append(f"  x.grad = {L(x.grad)}")
    return out


def check(trace):
    from ._util import index_of
    assert trace[0] == "h.grad_fn: torch::autograd::CopySlices -> ['MulBackward0']", \
        "the base's graph is rewritten"
    assert trace[1] == "v.grad_fn: AsStridedBackward0 -> ['torch::autograd::CopySlices']"
    assert not any(t.startswith("view hook registered before") for t in trace), \
        "a view hook registered before the in-place never fires"
    first, second = index_of(trace, "backward of h.sum():"), index_of(trace, "backward of h.sum() +")
    assert not any(t.startswith("view hook") for t in trace[first:second]), \
        "the base's gradient does not pass through the view's node"
    assert trace[first + 1] == "base hook: [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]"
    assert trace[first + 2] == "  x.grad = [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]", \
        "relu's derivative on the view's part"
    assert trace[second + 1] == "view hook registered after relu_: [[10.0, 10.0], [10.0, 10.0]]", \
        "only the view's own uses"
    assert trace[second + 3] == "  x.grad = [[11.0, 0.0, 1.0], [0.0, 11.0, 1.0]]"
