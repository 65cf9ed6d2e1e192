# detach() shares memory and cuts the graph; clone() copies and keeps it.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = x.detach()
c = x.clone()
print(d.requires_grad, d.is_leaf, d.grad_fn)
print(c.requires_grad, c.is_leaf, c.grad_fn)
print(d.data_ptr() == x.data_ptr(), c.data_ptr() == x.data_ptr())
d[0] = 10.0
print(x)
(c * 2).sum().backward()
print(x.grad)
e = x.detach().clone().requires_grad_(True)
print(e, e.is_leaf)
y = x * 2
y.detach_()
print(y.requires_grad, y.grad_fn)
