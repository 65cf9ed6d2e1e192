# BatchNorm1d: running statistics in train mode, then eval.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
bn = model[1]
print(bn)
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
x = torch.linspace(-2, 2, 15).reshape(5, 3)
model.train()
out = model(x)
out.sum().backward()
print(bn.running_mean)
print(bn.running_var)
print(bn.weight.grad)
model.eval()
with torch.no_grad():
    print(model(x[:2]))
print(bn.training, model.training)
print([name for name, _ in bn.named_buffers()])
