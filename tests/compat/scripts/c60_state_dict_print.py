# Printing a state_dict and its keys.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
sd = model.state_dict()
print(sd.keys())
print(sd)
for k, v in sd.items():
    print(k, "\t", v.size())
print(type(sd).__name__)
sd["2.bias"].fill_(5.0)
print(model[2].bias)
