# Count dead ReLU units with forward hooks.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
stats = {}
for i, layer in enumerate(model):
    if isinstance(layer, nn.ReLU):
        layer.register_forward_hook(
            lambda m, inp, out, i=i: stats.__setitem__(i, (out == 0).float().mean().item()))
x = torch.linspace(-1, 1, 12).reshape(4, 3)
model(x)
for i, frac in stats.items():
    print(f"ReLU at {i}: {frac:.1%} dead")
print((model[0](x) > 0).sum(dim=0))
