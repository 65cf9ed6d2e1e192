# https://PyTorch.org/docs/stable/generated/torch.nn.utils.spectral_norm.html
# the hook-based spectral_norm: weight_orig, weight_u, weight_v and a forward pre-hook that rescales before
# every forward.
import torch
import torch.nn as nn
from torch.nn.utils import spectral_norm

m = spectral_norm(nn.Linear(3, 2))
print(sorted(name for name, _ in m.named_parameters()))
print(sorted(name for name, _ in m.named_buffers()))
print(sorted(m.state_dict().keys()))
print(m.weight_u.shape, m.weight_v.shape, m.weight_orig.shape)
print([type(h).__name__ for h in m._forward_pre_hooks.values()])
with torch.no_grad():
    m.weight_orig.copy_(torch.tensor([[0.0, 3.0, 0.0], [0.0, 0.0, 1.0]]))
for _ in range(10):
    m(torch.ones(1, 3))
sigma = (m.weight_u * (m.weight_orig @ m.weight_v)).sum()
print(round(sigma.item(), 3))
print([[round(v, 3) for v in row] for row in m.weight.tolist()])
