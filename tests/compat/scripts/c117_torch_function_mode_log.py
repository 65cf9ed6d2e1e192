# https://github.com/pytorch/pytorch/pull/75154
# __torch_function__ mode: a TorchFunctionMode sees the Python-level API calls (torch.add, Tensor.sum,
# F.linear), factory functions included.
import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode, resolve_name


class FunctionLog(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        print(f"Function Log: {resolve_name(func)}")
        return func(*args, **(kwargs or {}))


w = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
x = torch.tensor([1.0, -1.0])
with FunctionLog():
    y = torch.add(x, 1)
    z = F.linear(y, w).sum()
    t = torch.zeros(2)
print(y, z, t)
