CLAIM = ("retain_grad() stores the gradient after the tensor's hooks changed it, "
         "whatever the registration order.")
VERDICT = "true"
SOURCES = (
    ("The pull request that fixed hook ordering says retain_grad's hooks always execute last, "
     "after the other tensor hooks.",
     "https://github.com/pytorch/pytorch/pull/85849"),
    ("The autograd notes' section on the order of backward hooks.",
     "https://pytorch.org/docs/stable/notes/autograd.html"),
)
WHY = (
    "retain_grad() on a non-leaf does not join the tensor's hook dict. It installs a "
    "separate retains-grad hook on the grad_fn, and when the engine reaches that node it "
    "first runs all tensor hooks (in their order), then all retains-grad hooks. So .grad "
    "always holds the hooked value, whether retain_grad() was called before or after "
    "register_hook(); and inside a tensor hook, .grad still shows the previous value "
    "(None on the first backward)."
)


def run(torch):
    from ._util import L
    out = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)

    y = x * 2
    def y_hook(g):
        out.append(f"y hook got {L(g)}, y.grad inside hook = {L(y.grad)}")
        return g * 10
    y.register_hook(y_hook)        # hook first ...
    y.retain_grad()                # ... then retain_grad

    z = x * 3
    z.retain_grad()                # retain_grad first ...
    def z_hook(g):
        out.append(f"z hook got {L(g)}, z.grad inside hook = {L(z.grad)}")
        return g * 10
    z.register_hook(z_hook)        # ... then the hook

    (y + z).sum().backward()
    out.append(f"y.grad = {L(y.grad)} (hook registered before retain_grad)")
    out.append(f"z.grad = {L(z.grad)} (hook registered after retain_grad)")
    out.append(f"x.grad = {L(x.grad)}")
    return out


def check(trace):
    assert "y.grad = [10.0, 10.0] (hook registered before retain_grad)" in trace, \
        "retain_grad must store the hooked value (hook registered first)"
    assert "z.grad = [10.0, 10.0] (hook registered after retain_grad)" in trace, \
        "retain_grad must store the hooked value (hook registered second)"
    assert "y hook got [1.0, 1.0], y.grad inside hook = None" in trace
    assert "z hook got [1.0, 1.0], z.grad inside hook = None" in trace, \
        "inside a tensor hook, .grad is not stored yet"
    assert "x.grad = [50.0, 50.0]" in trace
