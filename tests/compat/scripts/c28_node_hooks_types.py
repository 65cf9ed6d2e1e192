# What exactly do node hooks receive? Types, shapes and Nones.
import torch

w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
x = torch.tensor([[1.0, -1.0]])
y = x @ w
s = y.sum()
y.grad_fn.register_prehook(lambda go: print("pre", [type(g).__name__ for g in go],
                                            [tuple(g.shape) for g in go]))
y.grad_fn.register_hook(lambda gi, go: print("post", [None if g is None else tuple(g.shape) for g in gi]))
s.grad_fn.register_hook(lambda gi, go: print("sum post", gi, go))
s.backward()
print(w.grad)
print(y.grad_fn.name(), y.grad_fn.next_functions)
