# A forward hook that returns a value replaces the module's output.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))

def clamp_output(module, inp, out):
    print(f"{module.__class__.__name__}: input {inp[0]} output {out}")
    return out.clamp(max=0.5)

handle = model[0].register_forward_hook(clamp_output)
x = torch.tensor([[2.0, 1.0]])
y = model(x)
print(y)
y.backward()
print(model[0].weight.grad)
handle.remove()
print(model(x))
print(model[0]._forward_hooks)
