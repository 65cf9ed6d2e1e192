# Clip gradients inside an optimizer step pre-hook instead of in the training loop.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-2, 2, p.numel()).reshape(p.shape))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
norms = []

def clip(opt, args, kwargs):
    params = [p for group in opt.param_groups for p in group["params"]]
    norms.append(round(torch.nn.utils.clip_grad_norm_(params, max_norm=1.0).item(), 4))

optimizer.register_step_pre_hook(clip)
x = torch.tensor([[3.0, -2.0], [1.0, 4.0]])
y = torch.tensor([[10.0], [-10.0]])
for _ in range(3):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    grad_norm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
    print(f"loss {loss.item():.3f} norm before clip {norms[-1]} after {grad_norm.item():.4f}")
print(model[2].weight)
