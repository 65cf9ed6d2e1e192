# http://pytorch.org/docs/stable/generated/torch.autograd.functional.hvp.html
# hvp and vhp of the docs' pow_reducer and pow_adder_reducer; for a smooth function hvp equals vhp.
import torch
from torch.autograd.functional import hessian, hvp, vhp


def pow_reducer(x):
    return x.pow(3).sum()


inputs = torch.tensor([[0.5, 1.0], [1.5, 2.0]])
v = torch.ones(2, 2)
print(hvp(pow_reducer, inputs, v))
print(hvp(pow_reducer, inputs, v, create_graph=True))
print(vhp(pow_reducer, inputs, v))


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


inputs = (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
v = (torch.zeros(2), torch.ones(2))
print(hvp(pow_adder_reducer, inputs, v))
print(vhp(pow_adder_reducer, inputs, v))

x = torch.tensor([1.0, -1.0, 2.0])
w = torch.tensor([0.5, 1.0, -1.0])


def f(x):
    return (x.sin() * x).sum()


_, hv = hvp(f, x, w)
print(hv)
print(hessian(f, x) @ w)
print(torch.allclose(hv, hessian(f, x) @ w))
