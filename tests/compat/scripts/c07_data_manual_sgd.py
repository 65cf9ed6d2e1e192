# Old-style manual SGD through .data, as in early PyTorch tutorials.
import torch
import torch.nn as nn

model = nn.Linear(3, 2)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]])
target = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
lr = 0.05
for step in range(3):
    out = model(x)
    loss = ((out - target) ** 2).mean()
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data.add_(-lr * p.grad)
    print(f"step {step} loss {loss.item():.4f}")
print(model.weight.data)
print(model.bias.data)
for p in model.parameters():
    p.data.sub_(p.grad.data * lr)
print(model.bias)
