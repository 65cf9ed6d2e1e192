"""f06: inference mode and inference tensors.

Intent (issue 27 §4): torch.inference_mode() is no_grad that also sets
torch.is_inference_mode_enabled(); nothing is recorded inside, even under
enable_grad. Every tensor made inside is an inference tensor (t.is_inference()),
and so are its views and detach(); clone() outside gives a normal one. Outside
inference mode an inference tensor may join a graph where nothing saves it
(``c + x``), but PyTorch refuses, with its messages: saving it for backward
(``x * c`` saves c, at forward time), an in-place write (the write happens, then the
version bump raises), reading _version, requires_grad=True, and an in-place write
through a view of a normal tensor made in inference mode. Inside inference mode,
in-place writes to normal tensors are allowed. Also: inference_mode(False), the
decorator forms, and inference_mode(mode=False).
"""
import torch


def show_err(label, fn):
    try:
        fn()
        print(label, "-> no error")
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


x = torch.tensor([1., 2.], requires_grad=True)
normal = torch.ones(2)
print("outside:", torch.is_inference_mode_enabled(), torch.is_grad_enabled(), x.is_inference())
with torch.inference_mode():
    print("inside:", torch.is_inference_mode_enabled(), torch.is_grad_enabled())
    y = x * 2
    c = torch.ones(2)
    print("made inside:", y.is_inference(), y.requires_grad, y.grad_fn, c.is_inference(), x.is_inference())
    print("view of a normal tensor:", x[:1].is_inference())
    view = normal[:1]
    with torch.inference_mode(False):
        print("inference_mode(False):", torch.is_inference_mode_enabled(), torch.is_grad_enabled(),
              torch.ones(2).is_inference())
    with torch.enable_grad():
        yy = x * 2
        print("enable_grad inside:", torch.is_grad_enabled(), yy.requires_grad, yy.grad_fn, yy.is_inference())
    normal.add_(1)
    x.add_(1)
    print("in-place on normal tensors inside:", normal.tolist(), normal._version, x.tolist(), x._version)
    c.add_(1)
    print("in-place on an inference tensor inside:", c.tolist())
print("after:", torch.is_inference_mode_enabled(), torch.is_grad_enabled())

show_err("c._version", lambda: c._version)
show_err("c + x", lambda: print(" ", (c + x).grad_fn.name()))
show_err("x * c", lambda: x * c)
show_err("c.exp() (nothing requires grad)", lambda: c.exp())
show_err("c.requires_grad_()", lambda: c.requires_grad_())
show_err("c.requires_grad = True", lambda: setattr(c, "requires_grad", True))
show_err("c.requires_grad = False", lambda: setattr(c, "requires_grad", False))
show_err("c.add_(1)", lambda: c.add_(1))
print("c after the refused write (it happened):", c.tolist())
show_err("c.mul_(x)", lambda: c.mul_(x))
print("c after it:", c.tolist())
show_err("c.zero_()", lambda: c.zero_())
show_err("c.fill_(7.0)", lambda: c.fill_(7.0))
print("c after them:", c.tolist())
show_err("view made inside, written outside", lambda: view.add_(1))
base = x * 1
with torch.inference_mode():
    grad_view = base[:1]
show_err("view of a tensor requiring grad made inside, written outside", lambda: grad_view.mul_(2))
print("views and detach:", c[:1].is_inference(), c.detach().is_inference(), c.clone().is_inference())
d = c.clone().requires_grad_()
(d * x).sum().backward()
print("a clone joins autograd:", d.grad.tolist())


class SavesIt(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, other):
        ctx.save_for_backward(other)
        return t * 2

    @staticmethod
    def backward(ctx, g):
        return g, None


show_err("custom Function saving an inference tensor", lambda: SavesIt.apply(x, c))


@torch.inference_mode()
def called():
    return torch.ones(1), torch.is_inference_mode_enabled()


@torch.inference_mode
def bare():
    return torch.ones(1)


@torch.inference_mode(mode=False)
def disabled():
    return torch.ones(1), torch.is_grad_enabled()


t, on = called()
print("@inference_mode():", t.is_inference(), on)
print("@inference_mode:", bare().is_inference())
t, grad = disabled()
print("@inference_mode(mode=False):", t.is_inference(), grad)
with torch.no_grad():
    print("no_grad makes normal tensors:", torch.ones(1).is_inference())
