# Fine-tuning: optimizer only over trainable params, param groups with different learning rates.
import torch
import torch.nn as nn

backbone = nn.Linear(3, 3)
head = nn.Linear(3, 1)
model = nn.Sequential(backbone, nn.ReLU(), head)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
for p in backbone.parameters():
    p.requires_grad_(False)
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.01)
print(len(opt.param_groups[0]["params"]))
x = torch.tensor([[1.0, 2.0, 3.0]])
before = backbone.weight.clone()
for _ in range(2):
    opt.zero_grad()
    loss = (model(x) - 1).pow(2).mean()
    loss.backward()
    opt.step()
    print(f"loss {loss.item():.4f}")
print(torch.equal(before, backbone.weight))
print(head.weight)
opt2 = torch.optim.SGD([{"params": backbone.parameters(), "lr": 0.01}, {"params": head.parameters()}], lr=0.1)
print([g["lr"] for g in opt2.param_groups])
