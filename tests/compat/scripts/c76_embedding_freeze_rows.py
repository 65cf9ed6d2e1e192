# Freeze some rows of an embedding table by zeroing their gradient in a hook.
import torch
import torch.nn as nn

emb = nn.Embedding(5, 3)
with torch.no_grad():
    emb.weight.copy_(torch.arange(15, dtype=torch.float32).reshape(5, 3) / 10)
frozen = torch.tensor([0, 1])
mask = torch.ones(5, 1)
mask[frozen] = 0

emb.weight.register_hook(lambda g: g * mask)
tokens = torch.tensor([[0, 2, 4], [1, 2, 3]])
out = emb(tokens)
print(out.shape)
out.sum().backward()
print(emb.weight.grad)
opt = torch.optim.SGD(emb.parameters(), lr=1.0)
opt.step()
print(emb.weight)
print(emb)
