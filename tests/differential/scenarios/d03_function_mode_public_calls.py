# TorchFunctionMode: the public calls a logging mode sees (torch functions, Tensor methods
# and operators, torch.nn.functional, backward), nesting, and a mode replacing a result.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode


class CallLogger(TorchFunctionMode):
    def __init__(self, tag=""):
        super().__init__()
        self.tag = tag
        self.calls = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls.append(self.tag + func.__name__)
        return func(*args, **(kwargs or {}))

    def take(self):
        calls, self.calls = self.calls, []
        return calls


a = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
b = torch.tensor([0.5, 0.5, 2.0])
linear = nn.Linear(3, 2)      # made outside: minigrad's init runs no public calls
with CallLogger() as log:
    torch.add(a, b)
    print("torch.add", log.take())
    a + b, a * 2, a - b, a / 2, -a, a ** 2
    print("operators", log.take())
    a.add(b), a.sum(), a.mul(b).mean()
    print("methods", log.take())
    torch.relu(a), F.relu(a), torch.exp(a)
    print("functions", log.take())
    out = linear(a.reshape(1, 3))
    print("module call", log.take())
    out.sum().backward()
    print("backward", log.take())
    a[0]
    print("indexing", log.take())

with CallLogger("outer:") as outer, CallLogger("inner:") as inner:
    inner.calls = outer.calls
    torch.mul(a, b)
print("nested", outer.take())


class DoubleAdd(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        return out * 2 if func is torch.Tensor.add else out


with DoubleAdd():
    y = a + b
    z = torch.add(a, b)
print("replaced", y.tolist(), z.tolist(), type(y.grad_fn).__name__)
print("after the mode", (a + b).tolist())


# resolve_name (issue 31): the public name of a function, inside a mode and outside one;
# autograd.backward has none. (minigrad's names read minigrad.X: known_differences.toml.)
names = []


class Names(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        names.append(torch.overrides.resolve_name(func))
        return func(*args, **(kwargs or {}))


with Names():
    torch.add(a, b), a.sum(), a + b, F.relu(a), a[0]
    torch.autograd.backward((a * 1).sum())
print("resolve_name inside a mode:", names)
print("resolve_name outside:", [torch.overrides.resolve_name(f) for f in
                                (torch.add, torch.Tensor.sum, F.relu, torch.Tensor.__add__,
                                 torch.manual_seed, torch.autograd.backward)])
