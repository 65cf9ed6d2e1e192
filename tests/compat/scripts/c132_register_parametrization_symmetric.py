# https://docs.pytorch.org/docs/stable/generated/torch.nn.utils.parametrize.register_parametrization.html
# register_parametrization: a Symmetric parametrization with right_inverse,
# module.parametrizations.weight.original.
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).T  # Return a symmetric matrix

    def right_inverse(self, A):
        return A.triu()


m = nn.Linear(3, 3)
with torch.no_grad():
    m.weight.copy_(torch.arange(9.0).reshape(3, 3))
P.register_parametrization(m, "weight", Symmetric())
print(m.weight)
print(torch.allclose(m.weight, m.weight.T))
print(m.parametrizations.weight.original)
print(type(m).__name__, type(m.parametrizations).__name__, type(m.parametrizations.weight).__name__)
A = torch.tensor([[1.0, 2.0, 3.0], [2.0, 5.0, 6.0], [3.0, 6.0, 9.0]])
m.weight = A
print(m.parametrizations.weight.original)
print(torch.equal(m.weight, A))
m(torch.ones(1, 3)).sum().backward()
print(m.parametrizations.weight.original.grad)
print([name for name, _ in m.named_parameters()])
