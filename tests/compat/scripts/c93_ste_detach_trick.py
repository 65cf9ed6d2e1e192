# https://ajkdrag.in/2-Zettels/detach-trick-for-straight-through-estimators
# the straight-through estimator written as f(x).detach() + x - x.detach().
import torch


def binary_with_ste(x):
    # Forward: binary step function
    # Backward: identity gradient
    return (x > 0).float().detach() + x - x.detach()


def binary_with_ste_simplified(x):
    # y = x + (f(x) - x).detach(): the same values and gradients, one detach
    return x + ((x > 0).float() - x).detach()


x = torch.tensor([0.6, -0.2, 1.5, -1.0], requires_grad=True)
y = binary_with_ste(x)
print("Forward values:", y)
print(y.grad_fn, [type(f).__name__ for f, _ in y.grad_fn.next_functions])
y.sum().backward()
print("Gradients:", x.grad)

x.grad = None
r = binary_with_ste_simplified(x * 2)
print(r)
(r * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
print(x.grad)

plain = (x > 0).float()
print(plain.requires_grad, plain.grad_fn)
