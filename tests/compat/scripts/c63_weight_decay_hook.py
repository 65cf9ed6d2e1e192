# Add L2 weight decay to gradients with hooks instead of in the optimizer.
import torch
import torch.nn as nn

model = nn.Linear(2, 2)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[1.0, -2.0], [0.5, 0.0]]))
    model.bias.zero_()
wd = 0.1
model.weight.register_hook(lambda g: g + wd * model.weight.detach())
out = model(torch.tensor([[1.0, 1.0]])).sum()
out.backward()
print(model.weight.grad)
print(model.bias.grad)
