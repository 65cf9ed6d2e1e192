# register_multi_grad_hook: one callback once gradients for several tensors are ready.
import torch
from torch.autograd.graph import register_multi_grad_hook

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
out = (a * b).sum()

def all_ready(grads):
    print("all:", [None if g is None else g.tolist() for g in grads])

h = register_multi_grad_hook((a, b), all_ready)
out.backward()
h.remove()

c = torch.tensor([1.0], requires_grad=True)
d = torch.tensor([2.0], requires_grad=True)
register_multi_grad_hook((c, d), lambda g: print("any:", g), mode="any")
(c * 5).sum().backward()
print(c.grad, d.grad)
