# A global parameter registration hook that replaces (and logs) every parameter as modules are built.
import torch
import torch.nn as nn
from torch.nn.modules.module import register_module_parameter_registration_hook

created = []

def replace_and_log(module, name, param):
    new = nn.Parameter(torch.full_like(param, 0.5), requires_grad=name != "bias")
    created.append((f"{type(module).__name__}.{name}{tuple(param.shape)}", new))
    return new

class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(2))

    def forward(self, x):
        return x * self.gain

handle = register_module_parameter_registration_hook(replace_and_log)
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2), Scale())
handle.remove()
print([name for name, _ in created])
registered = dict(model.named_parameters())
print([registered[k] is p for k, (_, p) in zip(registered, created)])
# Linear initialises its parameters after registering them: the replacements get the usual init
print(all(p.abs().max() <= 1 / 2 ** 0.5 for k, p in registered.items() if k.startswith("0.")))
print(model[3].gain)
print({k: p.requires_grad for k, p in registered.items()})
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
out = model(torch.tensor([[1.0, -1.0]]))
out.sum().backward()
print(out, model[0].weight.grad.abs(), model[0].bias.grad)
print(len(created), nn.Linear(1, 1).weight.requires_grad)
