# https://dev-discuss.pytorch.org/t/torchdispatchmode-for-debugging-testing-and-more/717
# a PrintingMode that prints every aten call it sees, factory functions and backward included.
import torch
from torch.utils._python_dispatch import TorchDispatchMode


class PrintingMode(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        print(f"{func.__module__}.{func.__name__}")
        return func(*args, **(kwargs or {}))


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with PrintingMode():
    y = torch.ones(3)
    z = (x * y).sum()
print(z)
with PrintingMode():
    z.backward()
print(x.grad)
