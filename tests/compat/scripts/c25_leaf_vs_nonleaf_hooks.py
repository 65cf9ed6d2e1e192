# Hooks on leaves run before accumulation; hooks on intermediates before the node.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
c = b * 3
a.register_hook(lambda g: print("a hook", g))
b.register_hook(lambda g: print("b hook", g))
c.register_hook(lambda g: print("c hook", g))
c.sum().backward()
print("a.grad", a.grad)
print(a.is_leaf, b.is_leaf, c.is_leaf)
print(a.grad_fn, b.grad_fn.name())
