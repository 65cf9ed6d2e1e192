CLAIM = "Saved-tensor hooks make in-place modification safe."
VERDICT = "false"
SOURCES = (
    ("The pull request applying saved-tensor hooks notes that in-place changes made through "
     "them are not all caught.",
     "https://github.com/pytorch/pytorch/pull/60975"),
    ("The autograd notes on saved-tensor hooks.",
     "https://pytorch.org/docs/stable/notes/autograd.html"),
)
WHY = (
    "Normally a saved tensor remembers the version counter of its tensor at save time; "
    "every in-place op bumps the counter, and unpacking a saved tensor whose version "
    "changed raises the well-known 'modified by an inplace operation' error. When a "
    "saved_tensors_hooks pair is active, the saved value is whatever pack returned and "
    "the version check is skipped. If pack returns the tensor itself (or anything sharing "
    "its memory), the in-place change flows into backward silently: no error, a wrong "
    "gradient. Hooks make it safe only if pack really copies."
)


def run(torch):
    from ._util import L, try_call
    out = []
    hooks = torch.autograd.graph.saved_tensors_hooks

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = y * y                      # saves y (twice)
    out.append(f"y._version = {y._version}")
    y.add_(1)
    out.append(f"after y.add_(1): y._version = {y._version}")
    out.append(try_call("no hooks", lambda: z.sum().backward()))

    for label, pack in (("identity pack", lambda t: t), ("copying pack", lambda t: t.clone())):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        with hooks(pack, lambda t: t):
            z = y * y
        y.add_(1)
        out.append(try_call(label, lambda: z.sum().backward()))
        out.append(f"  x.grad = {L(x.grad)} (correct: [2.0, 4.0])")
    return out


def check(trace):
    from ._util import index_of
    assert trace[:2] == ["y._version = 0", "after y.add_(1): y._version = 1"]
    assert trace[2].startswith(
        "no hooks -> RuntimeError: one of the variables needed for gradient computation has "
        "been modified by an inplace operation"), trace[2]
    i = index_of(trace, "identity pack")
    assert trace[i] == "identity pack -> no error", "hooks skip the version check"
    assert trace[i + 1] == "  x.grad = [4.0, 6.0] (correct: [2.0, 4.0])", \
        "and the gradient is silently wrong"
    j = index_of(trace, "copying pack")
    assert trace[j:j + 2] == ["copying pack -> no error", "  x.grad = [2.0, 4.0] (correct: [2.0, 4.0])"], \
        "only a pack hook that copies gives the right gradient"
