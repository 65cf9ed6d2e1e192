# https://PyTorch.org/docs/stable/generated/torch.autograd.functional.vjp.html
# vjp(func, inputs, v): the docs' exp_reducer and adder examples, with create_graph.
import torch
from torch.autograd.functional import vjp


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.tensor([[0.0, 0.5, 1.0, 1.5], [-1.0, -0.5, 0.0, 0.25]])
v = torch.ones(2)
print(vjp(exp_reducer, inputs, v))
out, grad = vjp(exp_reducer, inputs, v, create_graph=True)
print(out)
print(grad)


def adder(x, y):
    return 2 * x + 3 * y


inputs = (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
v = torch.ones(2)
print(vjp(adder, inputs, v))
print(vjp(lambda x: (x ** 2).sum(), torch.tensor([1.0, -2.0, 3.0])))
