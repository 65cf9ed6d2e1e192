# Keep an exponential moving average (EMA) of the weights with an optimizer step post-hook.
import copy

import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
ema_model = copy.deepcopy(model)
for p in ema_model.parameters():
    p.requires_grad_(False)
decay = 0.9

def ema_update(optimizer, args, kwargs):
    with torch.no_grad():
        for ema_p, p in zip(ema_model.parameters(), model.parameters()):
            ema_p.mul_(decay).add_(p, alpha=1 - decay)

optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.5)
handle = optimizer.register_step_post_hook(ema_update)
x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, -1.0]])
y = torch.tensor([[1.0], [0.0], [-1.0]])
for step in range(4):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        ema_loss = nn.functional.mse_loss(ema_model(x), y)
    print(f"step {step}: loss={loss.item():.4f} ema_loss={ema_loss.item():.4f}")
print(ema_model[2].weight)
handle.remove()
optimizer.step()
print(len(optimizer._optimizer_step_post_hooks))
