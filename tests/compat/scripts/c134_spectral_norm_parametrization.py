# https://docs.pytorch.org/docs/stable/generated/torch.nn.utils.parametrizations.spectral_norm.html
# spectral_norm divides the weight by its largest singular value (power iteration); a diagonal weight diag(4,
# 1) becomes diag(1, 0.25).
import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import spectral_norm

lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[4.0, 0.0, 0.0], [0.0, 1.0, 0.0]]))
    lin.bias.zero_()
snm = spectral_norm(lin)
print(snm)
print(sorted(snm.state_dict().keys()))
print(snm.parametrizations.weight.original)
w = snm.weight
print([[round(v, 3) for v in row] for row in w.tolist()])
snm.eval()
print([round(v, 3) for v in snm(torch.ones(1, 3))[0].tolist()])
