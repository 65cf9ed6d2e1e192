# https://pytorch.org/docs/main/generated/torch.nn.utils.weight_norm.html
# the (deprecated) weight_norm: weight_g and weight_v replace weight, recomputed by a forward pre-hook.
import torch
import torch.nn as nn
from torch.nn.utils import remove_weight_norm, weight_norm

lin = nn.Linear(4, 3)
with torch.no_grad():
    lin.weight.copy_(torch.linspace(-1, 1, 12).reshape(3, 4))
    lin.bias.zero_()
m = weight_norm(lin, name='weight')
print(m)
print(m.weight_g.size(), m.weight_v.size())
print(m.weight_g)
print([name for name, _ in m.named_parameters()])
print(list(m._forward_pre_hooks.values())[0].__class__.__name__)
out = m(torch.ones(2, 4))
print(out)
out.sum().backward()
print(m.weight_g.grad)
print(m.weight_v.grad)
print(sorted(m.state_dict().keys()))
remove_weight_norm(m)
print([name for name, _ in m.named_parameters()])
