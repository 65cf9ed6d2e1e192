# Keep the handles, remove hooks later; a list of handles per model.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
handles = []
for name, p in model.named_parameters():
    handles.append(p.register_hook(lambda g, name=name: print(f"{name}: {g.norm():.4f}")))
x = torch.tensor([[1.0, -1.0]])
model(x).sum().backward()
print(len(handles), type(handles[0]).__name__)
for h in handles:
    h.remove()
model.zero_grad()
model(x).sum().backward()
print("no more hook output")
print(model[2].weight.grad)
