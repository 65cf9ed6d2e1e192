# Building inputs with arange and linspace.
import torch

print(torch.arange(5))
print(torch.arange(1, 4))
print(torch.arange(0, 1, 0.25))
print(torch.arange(5, dtype=torch.float32))
print(torch.arange(3.0))
print(torch.linspace(0, 1, 5))
print(torch.linspace(-1, 1, steps=3))
print(torch.linspace(0, 10, 4, dtype=torch.float64))
print(torch.arange(6).view(2, 3))
print(torch.arange(10)[::3])
x = torch.linspace(0, 2, 5, requires_grad=True)
(x ** 2).sum().backward()
print(x.grad)
print(torch.arange(4).float().mean())
