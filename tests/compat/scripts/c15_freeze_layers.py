# Freeze the first layer: only the second gets gradients.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
for p in model[0].parameters():
    p.requires_grad = False
x = torch.tensor([[1.0, 2.0, 3.0]])
model(x).sum().backward()
for name, p in model.named_parameters():
    print(f"{name}: requires_grad={p.requires_grad} grad={p.grad}")
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
total = sum(p.numel() for p in model.parameters())
print(f"trainable {trainable} / {total}")
print(model[0].weight.is_leaf, model[0].weight.grad)
