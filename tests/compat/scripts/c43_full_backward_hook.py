# register_full_backward_hook: grad_input and grad_output of a module.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 2), nn.Sigmoid(), nn.Linear(2, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))

def bhook(module, grad_input, grad_output):
    print(module)
    print("  grad_input :", [None if g is None else tuple(g.shape) for g in grad_input])
    print("  grad_output:", [tuple(g.shape) for g in grad_output])
    print("  grad_output[0]:", grad_output[0])

for m in model:
    m.register_full_backward_hook(bhook)
x = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
model(x).sum().backward()
print(x.grad)
