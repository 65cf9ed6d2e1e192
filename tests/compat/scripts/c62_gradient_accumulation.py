# Gradient accumulation over micro-batches gives the full-batch gradient.
import torch
import torch.nn as nn

model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.5, -0.5]]))
    model.bias.fill_(0.25)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
y = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
accum = 2
for i, (xb, yb) in enumerate(zip(x.split(2), y.split(2))):
    loss = nn.functional.mse_loss(model(xb), yb) / accum
    loss.backward()
    print(f"micro-batch {i}: loss {loss.item():.4f} grad {model.weight.grad}")
accumulated = model.weight.grad.clone()
model.zero_grad()
nn.functional.mse_loss(model(x), y).backward()
print(torch.allclose(accumulated, model.weight.grad))
