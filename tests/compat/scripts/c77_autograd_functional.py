# torch.autograd.functional: jacobian and hessian of small functions.
import torch
from torch.autograd.functional import hessian, jacobian

def f(x):
    return x ** 2 + 3 * x

def g(x):
    return (x ** 3).sum()

x = torch.tensor([1.0, 2.0])
print(jacobian(f, x))
print(hessian(g, x))
print(jacobian(lambda a, b: a * b, (x, torch.tensor([3.0, 4.0]))))
