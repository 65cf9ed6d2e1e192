CLAIM = ("Hooks on a leaf tensor run last-registered-first (LIFO), because they sit on "
         "the AccumulateGrad node rather than on a grad_fn.")
VERDICT = "false"
SOURCES = (
    ("A maintainer explains that register_hook on a parameter registers a pre-hook of its "
     "AccumulateGrad node, firing before accumulation.",
     "https://github.com/pytorch/pytorch/issues/76464"),
    ("The autograd notes' section on the order of backward hooks.",
     "https://pytorch.org/docs/stable/notes/autograd.html"),
)
WHY = (
    "A leaf's tensor hooks are the tensor pre-hooks of its AccumulateGrad node, read from "
    "the leaf's own ordered dict of hooks, exactly as a non-leaf's hooks are read by its "
    "grad_fn: the engine walks that dict from the front, so they run in registration "
    "order, each one receiving what the previous one returned. Only the last result is "
    "accumulated into .grad; the post-accumulate hooks (a separate ordered dict, also "
    "walked from the front) run after that and see the final .grad. A hook registered on "
    "the leaf after the first backward joins the end of the queue on the next backward."
)


def run(torch):
    from ._util import L
    out = []
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    for name, step in (("A", 1.0), ("B", 10.0), ("C", 100.0)):
        def hook(g, name=name, step=step):
            out.append(f"leaf hook {name} got {L(g)}")
            return g + step
        w.register_hook(hook)
    w.register_post_accumulate_grad_hook(
        lambda p: out.append(f"post-accumulate hook 1 sees w.grad = {L(p.grad)}"))
    w.register_post_accumulate_grad_hook(
        lambda p: out.append(f"post-accumulate hook 2 sees w.grad = {L(p.grad)}"))
    (w * 3).sum().backward()
    out.append(f"w.grad = {L(w.grad)}")

    out.append("second backward, hook D registered after the first:")
    w.grad = None
    w.register_hook(lambda g: out.append(f"leaf hook D got {L(g)}"))
    (w * 3).sum().backward()
    out.append(f"w.grad = {L(w.grad)}")
    return out


def check(trace):
    from ._util import index_of
    a, b, c = (index_of(trace, f"leaf hook {n}") for n in "ABC")
    assert a < b < c, "leaf hooks must run in registration order, not LIFO"
    assert trace[a] == "leaf hook A got [3.0, 3.0]"
    assert trace[b] == "leaf hook B got [4.0, 4.0]" and trace[c] == "leaf hook C got [14.0, 14.0]", \
        "each leaf hook must receive what the previous one returned"
    p1, p2 = index_of(trace, "post-accumulate hook 1"), index_of(trace, "post-accumulate hook 2")
    assert c < p1 < p2, "post-accumulate hooks run after every tensor hook, in registration order"
    assert trace[p1].endswith("[114.0, 114.0]"), "the chained result is what is accumulated"
    second = trace[index_of(trace, "second backward"):]
    assert [t.split(" got")[0] for t in second if t.startswith("leaf hook")] == \
        ["leaf hook A", "leaf hook B", "leaf hook C", "leaf hook D"], \
        "a hook added later runs last"
