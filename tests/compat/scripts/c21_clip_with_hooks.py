# Gradient clipping with a hook on every parameter.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-2, 2, p.numel()).reshape(p.shape))
for p in model.parameters():
    p.register_hook(lambda grad: torch.clamp(grad, -0.5, 0.5))
x = torch.tensor([[3.0, -1.0], [1.0, 2.0]])
loss = model(x).pow(2).sum()
loss.backward()
for name, p in model.named_parameters():
    print(name, p.grad)
print(f"loss: {loss.item():.3f}")
