# A small conv net with BatchNorm2d, one SGD step, gradients per layer.
import torch
import torch.nn as nn

model = nn.Sequential(
    nn.Conv2d(1, 2, 3, padding=1), nn.BatchNorm2d(2), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2, 2),
)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
x = torch.linspace(-1, 1, 32).reshape(2, 1, 4, 4)
target = torch.tensor([0, 1])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = nn.CrossEntropyLoss()(model(x), target)
loss.backward()
for name, p in model.named_parameters():
    print(f"{name}: {p.grad.abs().mean():.5f}")
opt.step()
print(model[1].running_mean, model[1].running_var)
print(f"loss {loss:.4f}")
