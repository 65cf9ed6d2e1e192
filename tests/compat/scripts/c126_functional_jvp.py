# https://docs.pytorch.org/docs/stable/generated/torch.autograd.functional.jvp.html
# jvp(func, inputs, v): Jacobian-vector products of the docs' examples, computed by the double-vjp trick.
import torch
from torch.autograd.functional import jvp


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.tensor([[0.0, 0.5, 1.0, 1.5], [-1.0, -0.5, 0.0, 0.25]])
v = torch.ones(2, 4)
out, jv = jvp(exp_reducer, inputs, v)
print(out)
print(jv)


def adder(x, y):
    return 2 * x + 3 * y


inputs = (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
v = (torch.ones(2), torch.ones(2))
print(jvp(adder, inputs, v))
print(jvp(lambda x: x * x, torch.tensor(3.0)))
