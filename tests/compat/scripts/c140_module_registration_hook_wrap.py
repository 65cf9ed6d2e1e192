# https://PyTorch.org/docs/stable/generated/torch.nn.modules.module.register_module_module_registration_hook.html
# a global module registration hook that returns a new submodule: wrap every Linear as it is added.
import torch
import torch.nn as nn
from torch.nn.modules.module import register_module_module_registration_hook


class Logged(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        out = self.inner(x)
        print(f"  {type(self.inner).__name__} -> {tuple(out.shape)}")
        return out


def wrap_linear(module, name, submodule):
    if isinstance(submodule, nn.Linear) and not isinstance(module, Logged):
        print(f"wrapping {type(module).__name__}.{name}")
        return Logged(submodule)


handle = register_module_module_registration_hook(wrap_linear)
net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
handle.remove()
print(net)
print([name for name, _ in net.named_parameters()])
with torch.no_grad():
    for p in net.parameters():
        p.fill_(0.5)
print(net(torch.ones(1, 2)))
