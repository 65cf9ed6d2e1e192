# Log gradient norms per step with parameter hooks during a 3-step Adam run.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-0.8, 0.8, p.numel()).reshape(p.shape))
norms = {}
for name, p in model.named_parameters():
    p.register_hook(lambda g, name=name: norms.__setitem__(name, g.norm().item()))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
x = torch.tensor([[1.0, -1.0], [0.5, 2.0], [-1.0, 0.0]])
y = torch.tensor([[1.0], [0.0], [0.5]])
for step in range(3):
    opt.zero_grad()
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f} | " + " ".join(f"{k}={v:.4f}" for k, v in norms.items()))
