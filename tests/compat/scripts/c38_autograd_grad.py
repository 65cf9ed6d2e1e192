# torch.autograd.grad for first and second derivatives (e.g. a gradient penalty).
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 3).sum()
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
print(dy_dx)
(d2y_dx2,) = torch.autograd.grad(dy_dx.sum(), x)
print(d2y_dx2)
print(x.grad)

w = torch.tensor([[1.0, -1.0], [0.5, 2.0]], requires_grad=True)
inp = torch.tensor([[1.0, 1.0]], requires_grad=True)
out = (inp @ w).tanh().sum()
g, = torch.autograd.grad(out, inp, create_graph=True)
penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
penalty.backward()
print(f"penalty {penalty.item():.6f}")
print(w.grad)
