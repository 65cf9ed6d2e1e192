# The deprecated register_backward_hook on a module with several ops warns and gives partial grads.
import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x):
        return torch.relu(self.lin(x)) * 2

block = Block()
with torch.no_grad():
    block.lin.weight.copy_(torch.tensor([[1.0, 0.5], [-1.0, 2.0]]))
    block.lin.bias.zero_()

def old_hook(module, grad_input, grad_output):
    print("grad_input:", [None if g is None else tuple(g.shape) for g in grad_input])
    print("grad_output:", [tuple(g.shape) for g in grad_output])

block.register_backward_hook(old_hook)
x = torch.tensor([[1.0, 1.0]], requires_grad=True)
block(x).sum().backward()
print(x.grad)
