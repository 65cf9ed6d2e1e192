# torch.autograd.graph.save_on_cpu: on a CPU-only machine it just keeps tensors where they are.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
x = torch.tensor([[1.0, 2.0]])
with torch.autograd.graph.save_on_cpu(pin_memory=False):
    loss = model(x).sum()
loss.backward()
print(loss)
print(model[0].weight.grad)
