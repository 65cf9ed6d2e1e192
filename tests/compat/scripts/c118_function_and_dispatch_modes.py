# https://github.com/pytorch/pytorch/pull/110073/files
# the "Extending all torch API with Modes" note: the same calls seen by a TorchFunctionMode (Python API) and a
# TorchDispatchMode (aten ops).
import torch
from torch.overrides import TorchFunctionMode, resolve_name
from torch.utils._python_dispatch import TorchDispatchMode


class FunctionLog(TorchFunctionMode):
    def __torch_function__(self, func, types, args, kwargs=None):
        print(f"Function Log: {resolve_name(func)}")
        return func(*args, **(kwargs or {}))


class DispatchLog(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args, kwargs=None):
        print(f"Dispatch Log: {func}")
        return func(*args, **(kwargs or {}))


def f():
    a = torch.rand(10, requires_grad=True)
    b = a * 2
    b.sum().backward()


print("TorchFunctionMode logging:")
with FunctionLog():
    f()

print("TorchDispatchMode logging:")
with DispatchLog():
    f()
