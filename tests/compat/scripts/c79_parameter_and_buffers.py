# nn.Parameter, register_buffer and what .parameters()/.buffers()/.state_dict() contain.
import torch
import torch.nn as nn

class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor([2.0]))
        self.register_buffer("offset", torch.tensor([0.5]))
        self.plain = torch.tensor([7.0])

    def forward(self, x):
        return x * self.scale + self.offset

m = Scaler()
print(m.scale)
print([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()])
print(list(m.state_dict().keys()))
y = m(torch.tensor([1.0, 2.0]))
print(y)
y.sum().backward()
print(m.scale.grad, m.offset.requires_grad)
p = nn.Parameter(torch.ones(2))
print(p, isinstance(p, torch.Tensor), p.is_leaf)
print(nn.Parameter(torch.ones(1), requires_grad=False))
