# In-place operations that autograd refuses, with the messages people search for.
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    w += 1
except RuntimeError as e:
    print(e)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.add_(1)
try:
    y.sum().backward()
except RuntimeError as e:
    print(e)
with torch.no_grad():
    w += 1
print(w)
z = x * 2
z.add_(1)
z.sum().backward()
print(x.grad, z.grad_fn)
print(x._version, z._version)
