# train() / eval() switch modules such as Dropout; eval-mode outputs are deterministic.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.Linear(2, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
print(model.training, [m.training for m in model])
model.eval()
print(model.training, [m.training for m in model])
x = torch.tensor([[1.0, 2.0]])
print(model(x))
print(torch.equal(model(x), model(x)))
model.train()
print(model[1].training)
out = model(x)
print(out.shape, out.requires_grad)
