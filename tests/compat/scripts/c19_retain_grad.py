# .grad of an intermediate tensor is None unless you call retain_grad().
import torch

x = torch.tensor([2.0, 4.0], requires_grad=True)
y = x ** 2
z = y.mean()
y.retain_grad()
z.backward()
print(y.grad)
print(x.grad)
print(y.retains_grad, x.retains_grad, z.retains_grad)
a = x * 3
b = a.sum()
b.backward()
print(a.is_leaf, a.grad_fn)
print(a.grad)  # not retained: None, with a warning
