# torch.nn.utils.clip_grad_norm_ and clip_grad_value_ in a training step.
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
x = torch.arange(8, dtype=torch.float32).reshape(2, 4)
loss = model(x).pow(2).sum()
loss.backward()
total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(f"total norm before clipping: {total:.4f}")
print(model.weight.grad)
print(f"norm after clipping: {torch.cat([p.grad.flatten() for p in model.parameters()]).norm():.5f}")
model.zero_grad()
model(x).pow(2).sum().backward()
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
print(model.weight.grad)
print(model.bias.grad)
