# Hooks that return a new gradient replace it: double it, or zero out negatives.
import torch

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x * x
y.register_hook(lambda g: g * 2)
y.sum().backward()
print(x.grad)

w = torch.tensor([0.5, -0.5], requires_grad=True)
w.register_hook(lambda g: g.clamp(min=0))
loss = (w * torch.tensor([3.0, -4.0])).sum()
loss.backward()
print(w.grad)

def scale(factor):
    def hook(grad):
        print(f"scaling {grad.tolist()} by {factor}")
        return grad * factor
    return hook

a = torch.tensor([1.0, 1.0], requires_grad=True)
b = a * 3
b.register_hook(scale(10))
b.register_hook(scale(0.5))
b.sum().backward()
print(a.grad)
