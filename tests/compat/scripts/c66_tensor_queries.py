# Tensor comparison and reduction helpers used around hooks: equal, all, any, gather, prod, var_mean.
import torch

a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(torch.equal(a, b), a.equal(b))
print((a > 0).all(), (a > 3).any(), (a > 3).any(dim=1))
print(torch.all(a > 1), torch.any(a < 0))
idx = torch.tensor([[1], [0]])
g = a.gather(1, idx)
print(g)
p = a.prod()
print(p)
var, mean = torch.var_mean(a, dim=0)
print(var, mean)
(g.sum() + p + var.sum()).backward()
print(a.grad)
print(a.prod(dim=1))
print(torch.std_mean(b))
