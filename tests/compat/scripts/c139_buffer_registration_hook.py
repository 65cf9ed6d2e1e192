# https://PyTorch.org/docs/stable/generated/torch.nn.modules.module.register_module_buffer_registration_hook.html
# a global buffer registration hook returning a new buffer: keep every registered buffer in float64.
import torch
import torch.nn as nn
from torch.nn.modules.module import register_module_buffer_registration_hook


def to_double(module, name, buffer):
    if buffer is not None and buffer.is_floating_point():
        print(f"{type(module).__name__}.{name}: {buffer.dtype} -> float64")
        return buffer.double()


handle = register_module_buffer_registration_hook(to_double)
bn = nn.BatchNorm1d(2)


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.tensor([2.0, 0.5]))
        self.register_buffer("steps", torch.tensor(0))

    def forward(self, x):
        return x * self.scale


s = Scaler()
handle.remove()
late = Scaler()
print(bn.running_mean.dtype, bn.num_batches_tracked.dtype)
print(s.scale.dtype, s.steps.dtype, late.scale.dtype)
print(s(torch.tensor([1.0, 1.0])))
print(sorted((k, v.dtype) for k, v in s.state_dict().items()))
