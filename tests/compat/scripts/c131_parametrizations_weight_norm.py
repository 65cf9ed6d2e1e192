# https://pytorch.org/docs/main/generated/torch.nn.utils.weight_norm.html
# the migration guide: parametrizations.weight_norm keeps g and v as parametrizations.weight.original0 /
# original1.
import torch
import torch.nn as nn
from torch.nn.utils import parametrize
from torch.nn.utils.parametrizations import weight_norm

lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[3.0, 0.0, 4.0], [1.0, 2.0, 2.0]]))
    lin.bias.zero_()
m = weight_norm(lin)
print(parametrize.is_parametrized(m), parametrize.is_parametrized(m, "weight"))
print(sorted(m.state_dict().keys()))
print(m.parametrizations.weight.original0)
print(m.parametrizations.weight.original1)
print(m.weight)
y = m(torch.tensor([[1.0, 1.0, 1.0]]))
y.sum().backward()
print(m.parametrizations.weight.original0.grad)
print(m.parametrizations.weight.original1.grad)
parametrize.remove_parametrizations(m, "weight")
print(sorted(m.state_dict().keys()), parametrize.is_parametrized(m))
