# TorchDispatchMode: the aten ops a logging mode sees, forward and backward, modes nesting,
# a mode replacing a result, a mode that raises. The logger leaves out aten.detach and
# aten.ones_like, which PyTorch runs and minigrad does not (docs/differences.md).
import torch
import torch.nn as nn
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode_stack

SKIPPED = {"aten.detach.default", "aten.ones_like.default"}


class OpLogger(TorchDispatchMode):
    def __init__(self, tag=""):
        super().__init__()
        self.tag = tag
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if str(func) not in SKIPPED:
            self.ops.append(self.tag + str(func))
        return func(*args, **(kwargs or {}))

    def take(self):
        ops, self.ops = self.ops, []
        return ops


model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
x = torch.linspace(-2, 2, 20).reshape(5, 4)
with OpLogger() as log:
    loss = model(x).sum()
    print("mlp forward ", log.take())
    loss.backward()
    print("mlp backward", log.take())
print("grad", [round(v, 4) for v in model[0].weight.grad.flatten().tolist()])

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
c = torch.tensor([1.0, 1.0, 1.0])
with OpLogger() as log:
    out = a * b + c
    print("x*y+z forward ", log.take())
    out.sum().backward()
    print("x*y+z backward", log.take())
    (a * 2).sum(0, keepdim=True).mean()
    print("scalar and dim", log.take())

conv = nn.Conv2d(2, 3, 3)
with torch.no_grad():
    for p in conv.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
image = torch.linspace(-1, 1, 50).reshape(1, 2, 5, 5)
with OpLogger() as log:
    y = torch.relu(conv(image)).sum()
    print("conv forward", log.take())

with OpLogger("outer:") as outer, OpLogger("inner:") as inner:
    inner.ops = outer.ops           # one list: the order the two modes see each op
    print("stack depth", len(_get_current_dispatch_mode_stack()))
    (a + b).sum()
print("nested", outer.take())


class ZeroMul(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if str(func.overloadpacket) == "aten.mul":
            return out * 0
        return out


with ZeroMul():
    y = a * b + 1
print("replaced", y.tolist(), type(y.grad_fn).__name__, y.requires_grad)
a.grad = None
y.sum().backward()
print("grad through the replaced result", a.grad.tolist())


class Refuses(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise ValueError(f"no {func}")


try:
    with Refuses():
        a * b
except ValueError as error:
    print("ValueError:", error)
print("after the error", len(_get_current_dispatch_mode_stack()), (a * b).tolist())
