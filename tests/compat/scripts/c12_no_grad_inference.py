# Inference without building a graph: torch.no_grad as a context and as a decorator.
import torch
import torch.nn as nn

model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.fill_(0.5)
    model.bias.fill_(-1.0)
x = torch.tensor([[1.0, 3.0]])
with torch.no_grad():
    y = model(x)
print(y, y.requires_grad, y.grad_fn)

@torch.no_grad()
def predict(inp):
    return model(inp) * 2

z = predict(x)
print(z.requires_grad)
print(torch.is_grad_enabled())
with torch.no_grad():
    print(torch.is_grad_enabled())
    with torch.enable_grad():
        print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
print((x * 2).requires_grad, model(x).requires_grad)
torch.set_grad_enabled(True)
print(model(x).requires_grad)
