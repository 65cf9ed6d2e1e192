# checkpoint_sequential splits an nn.Sequential into checkpointed segments.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint_sequential

model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
x = torch.tensor([[1.0, 2.0], [-1.0, 0.5]], requires_grad=True)
out = checkpoint_sequential(model, 2, x, use_reentrant=False)
print(out)
out.sum().backward()
print(x.grad)
print(model[4].weight.grad)
