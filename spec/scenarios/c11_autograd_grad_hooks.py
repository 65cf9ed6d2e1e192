CLAIM = ("In torch.autograd.grad, a leaf's .grad is left alone, its tensor hooks still run, "
         "its post-accumulate hooks do not.")
VERDICT = "true"
SOURCES = (
    ("An issue reports that a hook on the input tensor was not called under autograd.grad (it "
     "is now: the ordering fix made tensor hooks always run).",
     "https://github.com/pytorch/pytorch/issues/35802"),
    ("The pull request that made tensor hooks run for the inputs of autograd.grad.",
     "https://github.com/pytorch/pytorch/pull/85849"),
)
WHY = (
    "torch.autograd.grad does not accumulate: for each requested input the engine installs "
    "a capture at that input's node instead of running it. The node is still visited, so "
    "its tensor hooks (and retain_grad) run and the captured value is the hooked one; but "
    "the node itself is not executed. For a leaf that node is AccumulateGrad, so .grad is "
    "untouched and post-accumulate hooks, which live inside AccumulateGrad, never run. "
    "This holds for leaves only: a non-leaf that called retain_grad() keeps its retained "
    "gradient with the tensor hooks of its grad_fn, so autograd.grad does write its .grad "
    "(see c26)."
)


def run(torch):
    from ._util import L
    out = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: out.append(f"y tensor hook got {L(g)}"))

    def x_hook(g):
        out.append(f"x tensor hook got {L(g)}, returns g * 100")
        return g * 100

    x.register_hook(x_hook)
    x.register_post_accumulate_grad_hook(lambda p: out.append("x post-accumulate hook"))
    (gx,) = torch.autograd.grad((y * y).sum(), x)
    out.append(f"autograd.grad result = {L(gx)}, x.grad = {L(x.grad)}")
    out.append("now .backward() on a fresh graph:")
    y = x * 2
    (y * y).sum().backward()
    out.append(f"x.grad = {L(x.grad)}")
    return out


def check(trace):
    from ._util import index_of
    split = index_of(trace, "now .backward()")
    during, after = trace[:split], trace[split:]
    assert "x tensor hook got [8.0, 16.0], returns g * 100" in during, "leaf tensor hooks still run"
    assert any(t.startswith("y tensor hook") for t in during), "non-leaf tensor hooks still run"
    assert "autograd.grad result = [800.0, 1600.0], x.grad = None" in during, \
        ".grad untouched; the returned value is the one after the leaf's hooks"
    assert "x post-accumulate hook" not in during, "no post-accumulate hooks under autograd.grad"
    assert "x post-accumulate hook" in after and "x.grad = [800.0, 1600.0]" in after, \
        "with backward() the same hooks do accumulate and fire"
