# Walk the backward graph from the loss down to the leaves, printing node names.
import torch

def walk(fn, depth=0):
    if fn is None:
        return
    line = "  " * depth + fn.name()
    if hasattr(fn, "variable"):
        line += f" -> leaf of shape {tuple(fn.variable.shape)}"
    print(line)
    for next_fn, _ in fn.next_functions:
        walk(next_fn, depth + 1)

w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
b = torch.tensor([0.1, 0.2], requires_grad=True)
x = torch.tensor([[1.0, 2.0]])
h = torch.tanh(x @ w + b)
loss = (h ** 2).sum()
walk(loss.grad_fn)
print(type(loss.grad_fn).__name__)
print(loss.grad_fn.next_functions[0][0].name())
