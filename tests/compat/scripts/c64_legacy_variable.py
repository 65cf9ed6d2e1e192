# Pre-0.4 style code: Variable wrappers still work and just return tensors.
import torch
from torch.autograd import Variable

x = Variable(torch.ones(2, 2), requires_grad=True)
print(x)
print(type(x).__name__, isinstance(x, torch.Tensor), isinstance(x, Variable))
y = x * 3
out = y.mean()
out.backward()
print(x.grad)
print(x.data)
v = Variable(torch.tensor([1.0, 2.0]))
print(v.requires_grad)
print(isinstance(torch.zeros(1), Variable))
