# https://docs.pytorch.org/1.8.0/_modules/torch/autograd/functional.html
# jacobian with vectorize=True and create_graph: the same matrix in one batched backward, and a Jacobian you
# can differentiate again.
import torch
from torch.autograd.functional import jacobian


def f(x):
    return torch.stack([x[0] * x[1], x[1] ** 2, x[0].exp()])


x = torch.tensor([1.0, 2.0])
print(jacobian(f, x))
print(jacobian(f, x, vectorize=True))
print(torch.equal(jacobian(f, x), jacobian(f, x, vectorize=True)))

x = torch.tensor([1.0, 2.0], requires_grad=True)
J = jacobian(f, x, create_graph=True)
print(J.requires_grad)
J.trace().backward()
print(x.grad)
