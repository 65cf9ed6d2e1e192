# Save a model's state_dict to a file and load it into a fresh model.
import os
import tempfile

import torch
import torch.nn as nn

def make():
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))

model = make()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.pt")
    torch.save(model.state_dict(), path)
    other = make()
    result = other.load_state_dict(torch.load(path))
    print(result)
    state = torch.load(path, weights_only=True)
print(list(state.keys()))
for k, v in state.items():
    print(k, tuple(v.shape), v.requires_grad)
x = torch.tensor([[0.5, -0.5]])
print(torch.equal(model(x), other(x)))
print(other[0].weight)
