# Gradient flow check: mean absolute gradient per layer (the numbers behind the usual plot).
import torch
import torch.nn as nn

model = nn.Sequential(
    nn.Linear(4, 8), nn.Sigmoid(),
    nn.Linear(8, 8), nn.Sigmoid(),
    nn.Linear(8, 1),
)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
x = torch.linspace(-2, 2, 12).reshape(3, 4)
loss = model(x).pow(2).mean()
loss.backward()
layers, ave_grads, max_grads = [], [], []
for n, p in model.named_parameters():
    if p.requires_grad and "bias" not in n:
        layers.append(n)
        ave_grads.append(p.grad.abs().mean())
        max_grads.append(p.grad.abs().max())
for n, a, m in zip(layers, ave_grads, max_grads):
    print(f"{n:10s} mean|g|={a:.6f} max|g|={m:.6f}")
print(ave_grads[0])
print([round(g.item(), 6) for g in ave_grads])
