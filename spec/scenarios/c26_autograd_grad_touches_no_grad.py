CLAIM = "torch.autograd.grad touches no .grad."
VERDICT = "false"
SOURCES = (
    ("An issue reporting that a hook on the input ran under backward() but not under "
     "autograd.grad: the two were expected to treat hooks alike.",
     "https://github.com/pytorch/pytorch/issues/35802"),
    ("The pull request that made tensor hooks, and retain_grad, run at the inputs of "
     "autograd.grad.",
     "https://github.com/pytorch/pytorch/pull/85849"),
)
WHY = (
    "autograd.grad captures the gradient of each requested input instead of running its "
    "AccumulateGrad node, so a leaf's .grad is left alone. But retain_grad() on a "
    "non-leaf is not AccumulateGrad: it is a hook kept on the tensor's grad_fn and run "
    "with the tensor hooks whenever the engine reaches that node, whether the pass "
    "accumulates or only captures. So a non-leaf that called retain_grad() gets its .grad "
    "written by autograd.grad, both when it lies between the output and the inputs and "
    "when it is itself the input asked for."
)


def run(torch):
    from ._util import L
    out = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    (gx,) = torch.autograd.grad((y * y).sum(), x, retain_graph=True)
    out.append(f"grad w.r.t. x = {L(gx)}")
    out.append(f"  leaf x.grad = {L(x.grad)}, non-leaf y.grad (retain_grad) = {L(y.grad)}")

    y.grad = None
    z = y * 3
    (gy,) = torch.autograd.grad(z.sum(), y)
    out.append(f"grad w.r.t. y itself = {L(gy)}")
    out.append(f"  leaf x.grad = {L(x.grad)}, non-leaf y.grad (retain_grad) = {L(y.grad)}")
    return out


def check(trace):
    assert trace[1] == "  leaf x.grad = None, non-leaf y.grad (retain_grad) = [4.0, 8.0]", \
        "a leaf's .grad is untouched, but a retained non-leaf on the way gets .grad"
    assert trace[3] == "  leaf x.grad = None, non-leaf y.grad (retain_grad) = [3.0, 3.0]", \
        "a retained non-leaf asked for as the input gets .grad too"
