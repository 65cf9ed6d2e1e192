# optimizer.zero_grad() sets .grad to None (set_to_none=True is the default).
import torch
import torch.nn as nn

model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.ones(1, 2)).sum().backward()
print(model.weight.grad, model.bias.grad)
opt.zero_grad()
print(model.weight.grad, model.bias.grad)
model(torch.ones(1, 2)).sum().backward()
opt.zero_grad(set_to_none=False)
print(model.weight.grad, model.bias.grad)
model.zero_grad()
print(model.weight.grad)
